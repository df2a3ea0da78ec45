"""json-cbc-sha256-passphrase (examples/protocols/json-cbc-sha256-passphrase.toml), from the description alone.

Raw TCP, legacy framing. The client sends a JSON object {"data": base64(IV || AES-CBC)}, the AES
key being SHA-256 of the preshared secret (--psk): AES-256. The server answers "OK" when the field
decrypts (PKCS#7 checked) and "ERROR" otherwise — one text whatever went wrong — then closes.

Plants (--plant):
  raw-key       uses the preshared secret itself as the AES key (no SHA-256): a correct client gets ERROR
  error-oracle  says why: "ERROR padding" for a bad padding, "ERROR json" for a body that is no JSON envelope
"""

import base64
import binascii
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives import padding  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

PLANTS = ("raw-key", "error-oracle")


class Refused(Exception):
    pass


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, psk=True)
    key = args.psk if args.plant == "raw-key" else hashlib.sha256(args.psk).digest()

    def open_envelope(data):
        try:
            envelope = json.loads(data)
            sealed = base64.b64decode(envelope["data"], validate=True)
        except (ValueError, KeyError, TypeError, binascii.Error):
            raise Refused("json")
        if len(sealed) < 32 or len(sealed) % 16:
            raise Refused("length")
        decryptor = Cipher(algorithms.AES(key), modes.CBC(sealed[:16])).decryptor()
        padded = decryptor.update(sealed[16:]) + decryptor.finalize()
        try:
            unpadder = padding.PKCS7(128).unpadder()
            return unpadder.update(padded) + unpadder.finalize()
        except ValueError:
            raise Refused("padding")

    def converse(sock, _address):
        wire = dzoolib.Wire(sock)
        try:
            open_envelope(wire.recv())
        except Refused as why:
            wire.send(b"ERROR " + str(why).encode() if args.plant == "error-oracle" else b"ERROR")
            return
        wire.send(b"OK")

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
