"""chacha-sensor-reading (examples/protocols/chacha-sensor-reading.toml), written from the description alone.

HTTP. GET /encriptado (no body) is answered 200 with base64(nonce (12) || ChaCha20-Poly1305
ciphertext || tag (16)) of the reading under the preshared key (--psk), a fresh nonce each time.
The reading is the description's message, "{'temperatura': 21.0, 'humedad': 40.0}". Other paths: 404.

Plants (--plant):
  fixed-nonce  the same nonce for every reading (the source's flaw: every reading under one keystream)
  no-tag       plain ChaCha20 without Poly1305 (the source's cipher): nothing a client can authenticate
"""

import base64
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305  # noqa: E402

PLANTS = ("fixed-nonce", "no-tag")
READING = b"{'temperatura': 21.0, 'humedad': 40.0}"
FIXED = os.urandom(12)


class Handler(dzoolib.HTTPHandler):
    def do_GET(self):
        args = self.server.args
        if self.path != "/encriptado":
            return self.answer(404)
        nonce = FIXED if args.plant == "fixed-nonce" else os.urandom(12)
        if args.plant == "no-tag":
            encryptor = Cipher(algorithms.ChaCha20(args.psk, b"\x00\x00\x00\x00" + nonce), mode=None).encryptor()
            sealed = encryptor.update(READING) + encryptor.finalize()
        else:
            sealed = ChaCha20Poly1305(args.psk).encrypt(nonce, READING, None)
        self.answer(200, base64.b64encode(nonce + sealed), "text/plain")

    def do_POST(self):
        self.body()
        self.answer(404)


def main():
    dzoolib.serve_http(dzoolib.arguments(__doc__.splitlines()[0], PLANTS, psk=True), Handler)


if __name__ == "__main__":
    dzoolib.main_guard(main)
