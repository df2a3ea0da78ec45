"""rsa-oaep256-fernet (examples/protocols/rsa-oaep256-fernet.toml), written from the description alone.

Raw TCP, legacy framing. The server speaks first: its public key as SPKI PEM. The client sends one
RSA-OAEP-SHA256 block (k bytes: a known length) holding a 32-byte session secret, then a Fernet
token (16 signing + 16 encryption bytes of that secret) holding the message; the server answers a
Fernet token of what it received and closes. Any refusal: "ERROR" and a close.

Plants (--plant):
  oaep-sha1        unwraps the session secret with OAEP-SHA1: a correct client's block is refused
  answer-in-clear  answers the decrypted message itself instead of a Fernet token of it
  ok-on-bad-token  a token that fails verification still gets a token (of b"OK") instead of ERROR
  reduces-mod-n    takes the RSA block modulo n before unwrapping it: c + n unwraps as c does
                   (RFC 8017 §5.1.2 step 1 refuses a ciphertext not below n)
"""

import base64
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.fernet import Fernet, InvalidToken  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding  # noqa: E402

PLANTS = ("oaep-sha1", "answer-in-clear", "ok-on-bad-token", "reduces-mod-n")
ERROR = b"ERROR"


def oaep(digest):
    return padding.OAEP(mgf=padding.MGF1(digest()), algorithm=digest(), label=None)


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, key=True)
    key = dzoolib.rsa_private_key(args.key, args.bits)
    pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    k = key.key_size // 8

    def converse(sock, _address):
        wire = dzoolib.Wire(sock)
        wire.send(pem)
        block = wire.recv(known=k)
        try:
            if args.plant == "reduces-mod-n" and len(block) == k:
                block = (int.from_bytes(block, "big") % key.private_numbers().public_numbers.n).to_bytes(k, "big")
            secret = key.decrypt(block, oaep(hashes.SHA1 if args.plant == "oaep-sha1" else hashes.SHA256))
            if len(secret) != 32:
                raise ValueError("session secret of %d bytes" % len(secret))
        except ValueError as refused:
            dzoolib.log("refused the session secret: %s" % refused)
            wire.send(ERROR)
            return
        fernet = Fernet(base64.urlsafe_b64encode(secret))
        token = wire.recv()
        try:
            message = fernet.decrypt(token)
        except InvalidToken:
            if args.plant == "ok-on-bad-token":
                wire.send(fernet.encrypt(b"OK"))
                return
            dzoolib.log("refused the token")
            wire.send(ERROR)
            return
        wire.send(message if args.plant == "answer-in-clear" else fernet.encrypt(message))

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
