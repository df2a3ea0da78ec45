"""ctr-door-request (examples/protocols/ctr-door-request.toml), written from the description alone.

Raw TCP, 4-byte big-endian length prefixes. The client sends IV (16) || AES-256-CTR under the
preshared key (--psk); the server answers the same plaintext as a fresh IV || AES-CTR and closes.
A message shorter than an IV and one byte: "ERROR" (framed too) and a close.

Plants (--plant):
  echoes-iv             answers under the client's IV: the same keystream twice under one key
  little-endian-length  writes its length prefix little-endian (struct.pack("<I")), as a native-order Pi would
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

PLANTS = ("echoes-iv", "little-endian-length")


def ctr(key, iv, data):
    cipher = Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor()
    return cipher.update(data) + cipher.finalize()


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, psk=True)

    def converse(sock, _address):
        wire = dzoolib.Wire(sock, framing="length-prefix", length_bytes=4)

        def send(data):
            if args.plant == "little-endian-length":
                sock.sendall(struct.pack("<I", len(data)) + data)
            else:
                wire.send(data)

        data = wire.recv()
        if len(data) < 17:
            send(b"ERROR")
            return
        iv, message = data[:16], ctr(args.psk, data[:16], data[16:])
        out_iv = iv if args.plant == "echoes-iv" else os.urandom(16)
        send(out_iv + ctr(args.psk, out_iv, message))

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
