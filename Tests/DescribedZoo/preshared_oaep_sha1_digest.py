"""preshared-oaep-sha1-digest (examples/protocols/preshared-oaep-sha1-digest.toml), from the description alone.

Raw TCP, legacy framing. The server's key is preshared (--key: the client already has its public
half). The client sends one RSA-OAEP-SHA1 block (k bytes); the server answers the lowercase hex
SHA-256 of the plaintext and closes. A block that does not decrypt: "ERROR" and a close.

Plants (--plant):
  digest-of-ciphertext  answers the SHA-256 of the ciphertext block instead of the plaintext's
  ok-on-garbage         a block that does not decrypt gets a digest (of nothing) instead of ERROR
"""

import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives import hashes  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding  # noqa: E402

PLANTS = ("digest-of-ciphertext", "ok-on-garbage")
OAEP_SHA1 = padding.OAEP(mgf=padding.MGF1(hashes.SHA1()), algorithm=hashes.SHA1(), label=None)


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, key=True)
    if not args.key:
        sys.exit("--key is required: the key is preshared")
    key = dzoolib.rsa_private_key(args.key)
    k = key.key_size // 8

    def converse(sock, _address):
        wire = dzoolib.Wire(sock)
        block = wire.recv(known=k)
        try:
            message = key.decrypt(block, OAEP_SHA1)
        except ValueError:
            if args.plant != "ok-on-garbage":
                wire.send(b"ERROR")
                return
            message = b""
        digested = block if args.plant == "digest-of-ciphertext" else message
        wire.send(hashlib.sha256(digested).hexdigest().encode())

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
