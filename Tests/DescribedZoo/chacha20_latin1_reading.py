"""chacha20-latin1-reading (examples/protocols/chacha20-latin1-reading.toml), written from the description alone.

HTTP. GET /encriptado (no body) is answered 200 with a sensor reading — UTF-8 text the server
chooses, here a JSON object with fresh values — under bare ChaCha20 (pyca algorithms.ChaCha20,
mode=None: no Poly1305, nothing authenticated), the preshared 32-byte key (--psk) and the
description's fixed 16-byte IV 00000000 00000000 6f110e66 00f9d90a (OpenSSL's 4-byte little-endian
counter 0, then the 12-byte nonce), the same for every reading. The body is the ciphertext's bytes
as latin-1 characters (U+0000…U+00FF), the text sent in UTF-8. Other paths: 404; other methods on
/encriptado: 400 {"error": "bad request"}.

Plants (--plant):
  counter-after-nonce  writes the IV's halves the other way round (the 8 nonce bytes first, then the zero counter)
  raw-latin1-body      sends the latin-1 text encoded as latin-1 (the ciphertext's raw bytes), not as UTF-8
  reading-in-clear     answers the reading itself (UTF-8), not encrypted
"""

import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms  # noqa: E402

PLANTS = ("counter-after-nonce", "raw-latin1-body", "reading-in-clear")
IV = bytes.fromhex("00000000000000006f110e6600f9d90a")
SWAPPED_IV = IV[8:] + IV[:8]
REFUSAL = json.dumps({"error": "bad request"}).encode()


def fresh_reading():
    values = {"temperatura": round(random.uniform(15, 35), 1), "humedad": round(random.uniform(20, 90), 1), "unidad": "°C"}
    return json.dumps(values, ensure_ascii=False).encode("utf-8")


def chacha20(key, iv, data):
    encryptor = Cipher(algorithms.ChaCha20(key, iv), mode=None).encryptor()
    return encryptor.update(data) + encryptor.finalize()


class Handler(dzoolib.HTTPHandler):
    def do_GET(self):
        args = self.server.args
        self.body()
        if self.path != "/encriptado":
            return self.answer(404)
        reading = fresh_reading()
        if args.plant == "reading-in-clear":
            return self.answer(200, reading, "text/html; charset=utf-8")
        ciphertext = chacha20(args.psk, SWAPPED_IV if args.plant == "counter-after-nonce" else IV, reading)
        text = ciphertext.decode("latin-1")
        if args.plant == "raw-latin1-body":
            return self.answer(200, text.encode("latin-1"), "text/html; charset=latin-1")
        self.answer(200, text.encode("utf-8"), "text/html; charset=utf-8")

    def do_POST(self):
        self.body()
        if self.path != "/encriptado":
            return self.answer(404)
        self.answer(400, REFUSAL, "application/json")


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, psk=True)
    if len(args.psk) != 32:
        raise SystemExit("--psk: a ChaCha20 key is 32 bytes (64 hex digits)")
    dzoolib.serve_http(args, Handler)


if __name__ == "__main__":
    dzoolib.main_guard(main)
