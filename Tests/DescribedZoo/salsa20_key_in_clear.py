"""salsa20-key-in-clear (examples/protocols/salsa20-key-in-clear.toml), written from the description alone.

Raw TCP, legacy framing (one send per message; a message of known length is read exactly, the
others end at a quiet gap or a close). On each connection the server makes a fresh 32-byte Salsa20
key and sends it first, in the clear (the description's flaw); the client then sends its 8-byte
nonce as a message of its own, then the Salsa20/20 ciphertext of its text (zoo_salsa20: "expand
32-byte k", the 8-byte nonce, the block counter from 0; no MAC) as another, and closes. The server
decrypts, logs the plaintext and answers nothing; it closes when the client has. A ciphertext that
does not come (silence, a close) ends the connection without an answer too.

Plants (--plant):
  key-per-process   makes its key once when it starts and sends the same one on every connection
  sixteen-byte-key  makes and sends a 16-byte key (Salsa20 takes one: "expand 16-byte k") where the description's is 32
  serves-once       serves the first connection, then the whole server exits
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
import zoo_salsa20  # noqa: E402

PLANTS = ("key-per-process", "sixteen-byte-key", "serves-once")


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS)
    process_key = os.urandom(32)

    def converse(sock, address):
        try:
            wire = dzoolib.Wire(sock)
            if args.plant == "key-per-process":
                key = process_key
            else:
                key = os.urandom(16 if args.plant == "sixteen-byte-key" else 32)
            wire.send(key)
            nonce = wire.recv(known=8)
            ciphertext = wire.recv_last()
            plaintext = zoo_salsa20.salsa20(key, nonce, ciphertext)
            dzoolib.log("text from %s: %r" % (address, plaintext.decode("utf-8", "replace")))
        finally:
            dzoolib.exit_if_served_once(args, sock)

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
