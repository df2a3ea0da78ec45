"""gcm-tag-dropped-constant (examples/protocols/gcm-tag-dropped-constant.toml), written from the description alone.

HTTP. Two conversations, told apart by the request:
  GET /         (no body) is answered 200 with base64 of the AES-GCM ciphertext of the constant text
                "The answer is no" under the preshared 16-byte key (--psk: AES-128) and the
                description's fixed 80-byte nonce (the ASCII bytes its hex spells; GCM takes any
                nonce length, J0 by GHASH: pyca's modes.GCM(nonce) encryptor). Only the ciphertext is
                sent: the tag the encryptor makes is dropped (tag = "none").
  POST /echo    is answered 200 with "This is POST request. Received: " followed by the body, in the clear.
Other paths: 404. Nothing is ever refused (there is no tag to check).

Plants (--plant):
  twelve-byte-nonce  encrypts under the first 12 bytes of the nonce (as a GCM API that takes only 96-bit nonces would cut it)
  tag-kept           sends the ciphertext with the 16-byte tag after it (encrypt_and_digest's both halves)
  echo-unprefixed    answers a POST with the body alone, without "This is POST request. Received: "
"""

import base64
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

PLANTS = ("twelve-byte-nonce", "tag-kept", "echo-unprefixed")
ANSWER = b"The answer is no"
NONCE = bytes.fromhex(
    "36343438346537363631343737383638353933323339373336343438346537363631343835323761"
    "36323332373837363539333234363733363134373339376136343437373837363539333234363733")  # 80 bytes: the description's fixed:HEX
PREFIX = b"This is POST request. Received: "


def sealed_answer(key, plant):
    nonce = NONCE[:12] if plant == "twelve-byte-nonce" else NONCE
    encryptor = Cipher(algorithms.AES(key), modes.GCM(nonce)).encryptor()
    ciphertext = encryptor.update(ANSWER) + encryptor.finalize()
    if plant == "tag-kept":
        return ciphertext + encryptor.tag
    return ciphertext                      # the tag is dropped, as the description says


class Handler(dzoolib.HTTPHandler):
    def do_GET(self):
        args = self.server.args
        self.body()
        if self.path != "/":
            return self.answer(404)
        self.answer(200, base64.b64encode(sealed_answer(args.psk, args.plant)), "text/plain")

    def do_POST(self):
        args = self.server.args
        body = self.body()
        if self.path != "/echo":
            return self.answer(404)
        self.answer(200, body if args.plant == "echo-unprefixed" else PREFIX + body, "text/plain")


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, psk=True)
    if len(args.psk) != 16:
        raise SystemExit("--psk: the description's key is 16 bytes (32 hex digits)")
    assert len(NONCE) == 80
    dzoolib.serve_http(args, Handler)


if __name__ == "__main__":
    dzoolib.main_guard(main)
