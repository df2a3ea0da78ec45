"""rsa-pkcs1-pem-chat (examples/protocols/rsa-pkcs1-pem-chat.toml), written from the description alone.

Raw TCP, legacy framing. The server sends its public key as PKCS#1 PEM ("BEGIN RSA PUBLIC KEY");
the client answers with its own key the same way; the client sends one RSA PKCS#1 v1.5 block to
the server's key (k bytes); the server answers the same plaintext, RSA PKCS#1 v1.5 to the CLIENT's
key, and closes. Keys of 1024 bits by default, as the description. A client key that is not PKCS#1
PEM, or no sound RSA key (e < 3, e even, under 1024 bits), is refused: "ERROR" and a close.

Plants (--plant):
  spki-key           sends its key as SPKI PEM ("BEGIN PUBLIC KEY") instead of PKCS#1 PEM
  reply-to-own-key   encrypts the answer to its own key instead of the client's
  lf-only-pem        reads the client's key with a hand-written pattern: LF line ends only, nothing after
                     the END line (a key with CRLF line ends, or a line end after it, is refused)
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding, rsa  # noqa: E402

PLANTS = ("spki-key", "reply-to-own-key", "lf-only-pem")
ERROR = b"ERROR"


LF_ONLY = re.compile(rb"-----BEGIN RSA PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+\n-----END RSA PUBLIC KEY-----")


def client_key(text, lf_only=False):
    if lf_only and not LF_ONLY.fullmatch(text):
        raise ValueError("not the PEM this server's pattern reads")
    if not text.strip().startswith(b"-----BEGIN RSA PUBLIC KEY-----"):
        raise ValueError("not a PKCS#1 PEM public key")
    key = serialization.load_pem_public_key(text.strip() + b"\n")
    if not isinstance(key, rsa.RSAPublicKey):
        raise ValueError("not an RSA key")
    numbers = key.public_numbers()
    if numbers.e < 3 or numbers.e % 2 == 0 or key.key_size < 1024:
        raise ValueError("unsound RSA key (e=%d, %d bits)" % (numbers.e, key.key_size))
    return key


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, key=True, bits=1024)
    key = dzoolib.rsa_private_key(args.key, args.bits)
    fmt = serialization.PublicFormat.SubjectPublicKeyInfo if args.plant == "spki-key" else serialization.PublicFormat.PKCS1
    pem = key.public_key().public_bytes(serialization.Encoding.PEM, fmt)
    k = key.key_size // 8

    def converse(sock, _address):
        wire = dzoolib.Wire(sock)
        wire.send(pem)
        # Legacy framing: the client's key has no known length (a quiet gap ends it), the RSA block
        # after it has (k bytes). A client that sends both at once leaves no gap between them: the
        # block is then the last k bytes after the PEM's END line.
        data = wire.recv()
        end = data.find(b"-----END RSA PUBLIC KEY-----")
        block = None
        if end >= 0 and len(data) - (end + 28) in (k, k + 1):
            data, block = data[:-k], data[-k:]
        try:
            theirs = client_key(data, lf_only=args.plant == "lf-only-pem")
        except ValueError as refused:
            dzoolib.log("refused the client's key: %s" % refused)
            wire.send(ERROR)
            return
        if block is None:
            block = wire.recv(known=k)
        try:
            message = key.decrypt(block, padding.PKCS1v15())
        except ValueError:
            wire.send(ERROR)
            return
        to = key.public_key() if args.plant == "reply-to-own-key" else theirs
        try:
            wire.send(to.encrypt(message, padding.PKCS1v15()))
        except ValueError:
            wire.send(ERROR)

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
