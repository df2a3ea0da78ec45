"""cbc-prefix-kthx (examples/protocols/cbc-prefix-kthx.toml), written from the description alone.

Raw TCP, legacy framing (a message ends at a quiet gap). The client sends IV (16 bytes) || AES-CBC
(PKCS#7) under the preshared key (--psk); the server answers "kthx\n" when it decrypts and "bad\n"
when it does not (shorter than two blocks, not a multiple of 16, bad padding), and closes either way.

Plants (--plant):
  no-padding-check        answers "kthx\n" to any ciphertext of a sound length: the padding is never checked
  stays-open-after-error  answers "bad\n" but keeps the connection open (the description closes)
  unchecked-iv-length     no length check before the cipher is made: its `try` covers the decryption and
                          the unpadding only, so a message shorter than the IV raises ("Invalid IV size")
                          and the connection ends without "bad\n"
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives import padding  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

PLANTS = ("no-padding-check", "stays-open-after-error", "unchecked-iv-length")


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, psk=True)

    def decrypts(data):
        if args.plant == "unchecked-iv-length":
            decryptor = Cipher(algorithms.AES(args.psk), modes.CBC(data[:16])).decryptor()  # raises on a short IV
            try:
                unpadder = padding.PKCS7(128).unpadder()
                unpadder.update(decryptor.update(data[16:]) + decryptor.finalize()) + unpadder.finalize()
            except ValueError:
                return False
            return True
        if len(data) < 32 or len(data) % 16:
            return False
        decryptor = Cipher(algorithms.AES(args.psk), modes.CBC(data[:16])).decryptor()
        padded = decryptor.update(data[16:]) + decryptor.finalize()
        if args.plant == "no-padding-check":
            return True
        try:
            unpadder = padding.PKCS7(128).unpadder()
            unpadder.update(padded) + unpadder.finalize()
        except ValueError:
            return False
        return True

    def converse(sock, _address):
        wire = dzoolib.Wire(sock)
        if decrypts(wire.recv()):
            wire.send(b"kthx\n")
            return
        wire.send(b"bad\n")
        if args.plant == "stays-open-after-error":
            try:
                while wire.recv():
                    pass
            except dzoolib.PeerGone:
                return

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
