"""ecb-hex-line (examples/protocols/ecb-hex-line.toml), written from the description alone.

Raw TCP, one message per line ("\n"). The client sends the hex of AES-128-ECB under the preshared
key (--psk), zero bytes padding the last block; the server strips trailing zero bytes and answers
the same plaintext the same way (hex line), then closes. A line that is not hex of whole blocks:
"ERROR\n" and a close.

Plants (--plant):
  pkcs7-padding  pads its answer with PKCS#7 instead of zero bytes
  no-line-end    forgets the "\n" after its answer (a client reading a line waits in vain)
  drops-partial-block  decrypts the whole blocks of a ciphertext that is not whole blocks and
                 answers them (a decryptor's update() without finalize()), instead of "ERROR"
"""

import binascii
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

PLANTS = ("pkcs7-padding", "no-line-end", "drops-partial-block")


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, psk=True)

    def ecb(data, decrypt=False):
        cipher = Cipher(algorithms.AES(args.psk), modes.ECB())
        worker = cipher.decryptor() if decrypt else cipher.encryptor()
        return worker.update(data) + worker.finalize()

    def converse(sock, _address):
        wire = dzoolib.Wire(sock, framing="line", line_end=b"\n")
        line = wire.recv().strip(b"\r")
        try:
            sealed = binascii.unhexlify(line)
            if args.plant == "drops-partial-block":
                sealed = sealed[: len(sealed) - len(sealed) % 16]
            if not sealed or len(sealed) % 16:
                raise ValueError("not whole blocks")
        except (ValueError, binascii.Error):
            wire.send(b"ERROR")
            return
        message = ecb(sealed, decrypt=True).rstrip(b"\x00")
        if args.plant == "pkcs7-padding":
            n = 16 - len(message) % 16
            padded = message + bytes([n]) * n
        else:
            padded = message + b"\x00" * (-len(message) % 16)
        answer = binascii.hexlify(ecb(padded))
        if args.plant == "no-line-end":
            sock.sendall(answer)
            try:
                wire.recv()
            except dzoolib.PeerGone:
                pass
            return
        wire.send(answer)

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
