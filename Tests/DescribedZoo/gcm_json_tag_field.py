"""gcm-json-tag-field (examples/protocols/gcm-json-tag-field.toml), written from the description alone.

HTTP. POST /decrypt with a JSON body {"nonce", "ciphertext", "tag"} (base64 each): AES-256-GCM
under the preshared key (--psk), a 12-byte nonce, the 16-byte tag apart, no associated data; the
plaintext is the JSON object {"message": …}. The server answers 200 with {"nonce", "ciphertext",
"tag"} sealing {"echo": <the request's JSON object>} under a FRESH nonce. Anything that does not authenticate
or is not such an object: 400, empty body. Other paths: 404.

Plants (--plant):
  accepts-wrong-tag  never checks the tag (decrypts the GCM keystream as plain CTR): a forged body gets 200
  reuses-nonce       seals the answer under the request's nonce (a nonce used twice under one key)
  short-tag          takes a tag of 4 to 16 bytes (pyca's GCM mode with min_tag_length=4): a tag cut short gets 200
  tag-optional       verifies the tag only when the body has one: a body without "tag" is decrypted as plain CTR
"""

import base64
import binascii
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.exceptions import InvalidTag  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: E402

PLANTS = ("accepts-wrong-tag", "reuses-nonce", "short-tag", "tag-optional")


def field(fields, name, size=None):
    value = base64.b64decode(fields[name], validate=True)
    if size is not None and len(value) != size:
        raise ValueError("%s of %d bytes" % (name, len(value)))
    return value


class Handler(dzoolib.HTTPHandler):
    def do_POST(self):
        args = self.server.args
        body = self.body()
        if self.path != "/decrypt":
            return self.answer(404)
        try:
            fields = json.loads(body)
            tag_size = None if args.plant == "short-tag" else 16
            untagged = args.plant == "tag-optional" and "tag" not in fields
            nonce, ciphertext = field(fields, "nonce", 12), field(fields, "ciphertext")
            tag = b"" if untagged else field(fields, "tag", tag_size)
            if args.plant == "short-tag":
                decryptor = Cipher(algorithms.AES(args.psk), modes.GCM(nonce, tag, min_tag_length=4)).decryptor()
                plaintext = decryptor.update(ciphertext) + decryptor.finalize()
            elif args.plant == "accepts-wrong-tag" or untagged:
                decryptor = Cipher(algorithms.AES(args.psk), modes.CTR(nonce + b"\x00\x00\x00\x02")).decryptor()
                plaintext = decryptor.update(ciphertext) + decryptor.finalize()
            else:
                plaintext = AESGCM(args.psk).decrypt(nonce, ciphertext + tag, None)
            request = json.loads(plaintext)
            if not isinstance(request, dict) or "message" not in request:
                raise ValueError("no message")
        except (ValueError, KeyError, TypeError, InvalidTag, binascii.Error) as refused:
            dzoolib.log("refused: %r" % refused)
            return self.answer(400)
        out_nonce = nonce if args.plant == "reuses-nonce" else os.urandom(12)
        sealed = AESGCM(args.psk).encrypt(out_nonce, json.dumps({"echo": request}).encode(), None)
        answer = {"nonce": base64.b64encode(out_nonce).decode(),
                  "ciphertext": base64.b64encode(sealed[:-16]).decode(),
                  "tag": base64.b64encode(sealed[-16:]).decode()}
        self.answer(200, json.dumps(answer).encode(), "application/json")


def main():
    dzoolib.serve_http(dzoolib.arguments(__doc__.splitlines()[0], PLANTS, psk=True), Handler)


if __name__ == "__main__":
    dzoolib.main_guard(main)
