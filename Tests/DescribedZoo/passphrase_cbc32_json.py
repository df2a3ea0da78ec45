"""passphrase-cbc32-json (examples/protocols/passphrase-cbc32-json.toml), written from the description alone.

Raw TCP, legacy framing (one send per message). The client sends a JSON object {"data":
base64(IV (16) || AES-256-CBC ciphertext)}; the AES key is SHA-256 of the preshared passphrase's
UTF-8 bytes (--passphrase TEXT, e.g. TopSecretKey), and the plaintext (the client's message, any
bytes) is padded PKCS#7-style to a 32-byte boundary (1…32 pad bytes, each the pad's length), so the
ciphertext is a whole number of 32-byte units. The server answers "OK" when the field decrypts and
its padding is sound, then closes. The description has no `error`: anything else is refused by
closing without an answer. Every connection is served, whatever the one before sent.

Plants (--plant):
  unchecked-padding  strips as many bytes as the last one says, checking nothing (the source's unpad): a bad padding gets OK
  sha256-truncated   takes the first 16 bytes of SHA-256 as the key (AES-128): a correct client is refused
  dies-on-garbage    exits the whole server after the first message it refuses (the source's one-client loop)
  pkcs7-16           takes only 16-byte PKCS#7 pad lengths (1…16): a correct message padded by more is refused
"""

import base64
import binascii
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

PLANTS = ("unchecked-padding", "sha256-truncated", "dies-on-garbage", "pkcs7-16")
UNIT = 32   # the padding's block size (AESCipher's bs = 32); AES's own block is 16


class Refused(Exception):
    pass


def unpad32(padded, check=True, unit=UNIT):
    n = padded[-1]
    if not check:
        return padded[:-n] if n else padded
    if not 1 <= n <= unit or padded[-n:] != bytes([n]) * n:
        raise Refused("bad padding")
    return padded[:-n]


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, passphrase=True)
    secret = args.passphrase.encode("utf-8")
    if not 1 <= len(secret) <= 1024:
        raise SystemExit("--passphrase: 1 to 1024 bytes")
    key = hashlib.sha256(secret).digest()
    if args.plant == "sha256-truncated":
        key = key[:16]

    def open_report(data):
        try:
            envelope = json.loads(data)
            sealed = base64.b64decode(envelope["data"], validate=True)
        except (ValueError, KeyError, TypeError, binascii.Error) as why:
            raise Refused("not a JSON report: %r" % why)
        iv, ciphertext = sealed[:16], sealed[16:]
        if len(iv) != 16 or not ciphertext or len(ciphertext) % UNIT:
            raise Refused("ciphertext of %d bytes" % len(ciphertext))
        decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
        padded = decryptor.update(ciphertext) + decryptor.finalize()
        return unpad32(padded, check=args.plant != "unchecked-padding", unit=16 if args.plant == "pkcs7-16" else UNIT)

    def converse(sock, address):
        wire = dzoolib.Wire(sock)
        try:
            plaintext = open_report(wire.recv())
        except Refused as why:
            dzoolib.log("refused %s: %s" % (address, why))
            if args.plant == "dies-on-garbage":
                dzoolib.log("dying")
                os._exit(1)
            return  # no `error` in the description: a refusal closes without an answer
        dzoolib.log("report from %s: %d bytes" % (address, len(plaintext)))
        wire.send(b"OK")

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
