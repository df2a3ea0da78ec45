"""fixed-iv-cbc-upload (examples/protocols/fixed-iv-cbc-upload.toml), written from the description alone.

HTTP. POST /upload whose raw body is AES-128-CBC (PKCS#7) under the preshared key (--psk) and the
description's fixed IV 7F2C02DE7B7EF2E879A12798232C21A6; the server answers 200 with the same
plaintext sealed the same way (same key, same fixed IV). A body that does not decrypt (length not a
positive multiple of 16, bad padding): 400 with an empty body, whatever the reason. Other paths: 404.

Plants (--plant):
  padding-oracle  bad padding gets 500 "padding error", other refusals 400: the reasons differ on the wire
  ok-on-garbage   a body whose padding is wrong still gets 200 (the padding is not checked)
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives import padding  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

PLANTS = ("padding-oracle", "ok-on-garbage")
IV = bytes.fromhex("7F2C02DE7B7EF2E879A12798232C21A6")


class BadPadding(ValueError):
    pass


class Handler(dzoolib.HTTPHandler):
    def do_POST(self):
        args = self.server.args
        body = self.body()
        if self.path != "/upload":
            return self.answer(404)
        if not body or len(body) % 16:
            return self.answer(400)
        decryptor = Cipher(algorithms.AES(args.psk), modes.CBC(IV)).decryptor()
        padded = decryptor.update(body) + decryptor.finalize()
        try:
            unpadder = padding.PKCS7(128).unpadder()
            message = unpadder.update(padded) + unpadder.finalize()
        except ValueError:
            if args.plant == "padding-oracle":
                return self.answer(500, b"padding error", "text/plain")
            if args.plant != "ok-on-garbage":
                return self.answer(400)
            message = padded[:-1]
        padder = padding.PKCS7(128).padder()
        encryptor = Cipher(algorithms.AES(args.psk), modes.CBC(IV)).encryptor()
        sealed = encryptor.update(padder.update(message) + padder.finalize()) + encryptor.finalize()
        self.answer(200, sealed)


def main():
    dzoolib.serve_http(dzoolib.arguments(__doc__.splitlines()[0], PLANTS, psk=True), Handler)


if __name__ == "__main__":
    dzoolib.main_guard(main)
