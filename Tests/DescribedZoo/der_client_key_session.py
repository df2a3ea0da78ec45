"""der-client-key-session (examples/protocols/der-client-key-session.toml), from the description alone.

Raw TCP, 2-byte big-endian length prefixes. The client sends its RSA public key as DER
SubjectPublicKeyInfo. The server makes a fresh 16-byte session secret and answers ONE message:
RSA-OAEP-SHA1 of the secret to the client's key (k bytes), then IV (16) || AES-128-CBC (PKCS#7) of
the description's message "hello world" under the secret; then it closes. A key that is not DER
SPKI RSA, or no sound one (e < 3, e even, under 1024 bits): "ERROR" (framed) and a close.

Plants (--plant):
  fixed-iv  the same CBC IV for every conversation (the source's module-level IV)
  pkcs1     wraps the session secret with PKCS#1 v1.5 instead of OAEP-SHA1
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives import padding as sympadding  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding, rsa  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

PLANTS = ("fixed-iv", "pkcs1")
MESSAGE = b"hello world"
FIXED_IV = os.urandom(16)


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS)

    def converse(sock, _address):
        wire = dzoolib.Wire(sock, framing="length-prefix", length_bytes=2)
        der = wire.recv()
        try:
            key = serialization.load_der_public_key(der)
            if not isinstance(key, rsa.RSAPublicKey):
                raise ValueError("not RSA")
            e = key.public_numbers().e
            if e < 3 or e % 2 == 0 or key.key_size < 1024:
                raise ValueError("unsound key")
        except ValueError as refused:
            dzoolib.log("refused the key: %s" % refused)
            wire.send(b"ERROR")
            return
        secret = os.urandom(16)
        if args.plant == "pkcs1":
            wrapped = key.encrypt(secret, padding.PKCS1v15())
        else:
            wrapped = key.encrypt(secret, padding.OAEP(mgf=padding.MGF1(hashes.SHA1()), algorithm=hashes.SHA1(), label=None))
        iv = FIXED_IV if args.plant == "fixed-iv" else os.urandom(16)
        padder = sympadding.PKCS7(128).padder()
        encryptor = Cipher(algorithms.AES(secret), modes.CBC(iv)).encryptor()
        sealed = encryptor.update(padder.update(MESSAGE) + padder.finalize()) + encryptor.finalize()
        wire.send(wrapped + iv + sealed)

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
