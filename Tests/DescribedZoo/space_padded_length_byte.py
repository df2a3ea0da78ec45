"""space-padded-length-byte (examples/protocols/space-padded-length-byte.toml), written from the description alone.

Raw TCP, legacy framing (one send per message; a message of known length is read exactly, the
others end at a quiet gap or a close). The client sends a fresh 16-byte IV alone, then the length
of its message as one byte, then AES-CBC of the message padded with 1 to 16 spaces to the block
boundary (data += " " * (16 - len(data) % 16)) under the preshared 16-byte key (--psk: AES-128)
and that IV, and closes. The server decrypts, checks the padding (the bytes after the stated length
are 1 to 16 spaces, ending at the last block), logs the message cut to the stated length and
answers nothing; it closes when the client has. The description has no `error`: a ciphertext
that is not whole blocks, or whose padding or length does not check, is refused by closing
without an answer. A thread per connection: it serves every connection, one after another or at once.

Plants (--plant):
  serves-once        serves the first connection, then the whole server exits (as a script with one accept() does)
  dies-on-bad-length a ciphertext that is not whole blocks is an unhandled ValueError that takes the whole server down
  echoes-plaintext   sends the decrypted message back in the clear, where the description answers nothing
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

PLANTS = ("serves-once", "dies-on-bad-length", "echoes-plaintext")


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, psk=True)
    if len(args.psk) != 16:
        raise SystemExit("--psk: the description's key is 16 bytes (32 hex digits)")

    def message(iv, length, ciphertext):
        if not ciphertext or len(ciphertext) % 16:
            raise ValueError("a ciphertext of %d bytes is not whole blocks" % len(ciphertext))
        decryptor = Cipher(algorithms.AES(args.psk), modes.CBC(iv)).decryptor()
        padded = decryptor.update(ciphertext) + decryptor.finalize()
        pad = padded[length:]
        if not 1 <= len(pad) <= 16 or pad != b" " * len(pad):
            raise ValueError("%d bytes after the stated length %d are not 1 to 16 spaces" % (len(pad), length))
        return padded[:length]

    def converse(sock, address):
        try:
            wire = dzoolib.Wire(sock)
            iv = wire.recv(known=16)
            (length,) = wire.recv(known=1)
            ciphertext = wire.recv_last()
            try:
                text = message(iv, length, ciphertext)
            except ValueError as refused:
                if args.plant == "dies-on-bad-length" and len(ciphertext) % 16:
                    dzoolib.log("unhandled %r: the server dies" % refused)
                    os._exit(1)
                dzoolib.log("refused %s: %r" % (address, refused))
                return
            dzoolib.log("message from %s: %r" % (address, text.decode("utf-8", "replace")))
            if args.plant == "echoes-plaintext":
                wire.send(text)
        finally:
            dzoolib.exit_if_served_once(args, sock)

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
