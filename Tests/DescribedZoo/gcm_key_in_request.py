"""gcm-key-in-request (examples/protocols/gcm-key-in-request.toml), written from the description alone.

HTTP. POST /decrypt with a JSON body {"key", "nonce", "ciphertext"}, base64 each: the client's own
fresh 32-byte AES key (sent in the clear with the box: the description's flaw), a 12-byte nonce,
and AES-256-GCM ciphertext || 16-byte tag (pyca AESGCM, no associated data). The server answers
200 with {"plaintext": <the decrypted message as UTF-8 text>} in the clear. Anything that is not
such a body, does not authenticate or is not UTF-8: 400 {"error": "bad request"}. Other paths: 404.

Plants (--plant):
  accepts-flipped-tag  never checks the tag (decrypts the GCM keystream as plain CTR): a forged box gets 200
  plaintext-base64     answers {"plaintext": base64(plaintext)} instead of the text itself
  dies-after-refusal   the first request it refuses is answered 400, then the whole server exits (os._exit)
  missing-field-500    a body without one of the fields is an unhandled KeyError: 500, as Flask answers one
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

PLANTS = ("accepts-flipped-tag", "plaintext-base64", "dies-after-refusal", "missing-field-500")
REFUSAL = json.dumps({"error": "bad request"}).encode()


def field(fields, name, size=None, at_least=0):
    value = fields[name]
    if not isinstance(value, str):
        raise TypeError("%s is not a string" % name)
    value = base64.b64decode(value, validate=True)
    if size is not None and len(value) != size:
        raise ValueError("%s of %d bytes" % (name, len(value)))
    if len(value) < at_least:
        raise ValueError("%s of %d bytes" % (name, len(value)))
    return value


def gcm_without_tag(key, nonce, ciphertext):
    """The plant's decryption: GCM's keystream (counter 2 onwards, as GCM's CTR starts) with no tag check."""
    decryptor = Cipher(algorithms.AES(key), modes.CTR(nonce + b"\x00\x00\x00\x02")).decryptor()
    return decryptor.update(ciphertext) + decryptor.finalize()


class Handler(dzoolib.HTTPHandler):
    def do_POST(self):
        plant = self.server.args.plant
        body = self.body()
        if self.path != "/decrypt":
            return self.answer(404)
        try:
            fields = json.loads(body)
            if not isinstance(fields, dict):
                raise TypeError("not a JSON object")
            key = field(fields, "key", 32)
            nonce = field(fields, "nonce", 12)
            sealed = field(fields, "ciphertext", at_least=16)
            if plant == "accepts-flipped-tag":
                plaintext = gcm_without_tag(key, nonce, sealed[:-16])
            else:
                plaintext = AESGCM(key).decrypt(nonce, sealed, None)
            text = plaintext.decode("utf-8")
        except (ValueError, KeyError, TypeError, InvalidTag, binascii.Error) as refused:
            if plant == "missing-field-500" and isinstance(refused, KeyError):
                return self.answer(500, b"Internal Server Error", "text/plain")
            dzoolib.log("refused: %r" % refused)
            self.answer(400, REFUSAL, "application/json")
            if plant == "dies-after-refusal":
                self.wfile.flush()
                dzoolib.log("dying")
                os._exit(1)
            return
        if plant == "plaintext-base64":
            text = base64.b64encode(plaintext).decode()
        self.answer(200, json.dumps({"plaintext": text}).encode(), "application/json")

    def do_GET(self):
        self.answer(404)


def main():
    dzoolib.serve_http(dzoolib.arguments(__doc__.splitlines()[0], PLANTS), Handler)


if __name__ == "__main__":
    dzoolib.main_guard(main)
