"""ogre-directory-route (examples/protocols/ogre-directory-route.toml), written from the description alone.

Raw TCP, legacy framing; each connection makes one request, by its first byte, and is closed after it.
The server's RSA key is preshared (--key PEM; the client holds its public half).
  - "n" (a relay) or "e" (an exit): 220 bytes follow, an 8-byte address and a 212-byte key text;
    stored by address (a later one at the same address replaces it), no answer.
  - "r" (a route): a 4-byte big-endian length L, then L bytes (1 to k, k the modulus length): the
    textbook-RSA ciphertext c of a 32-byte key (no padding: RFC 8017 §5.1.2 RSADP, c below n, else
    refused); m = c^d mod n, written without leading zero bytes, must be 32 bytes. The answer: a
    4-byte big-endian length, then AES-256-CBC under that key, IV "0" * 16 (sixteen 0x30 bytes), of
    the route, two relays and one exit (address + key each; which relays, in which order, at random),
    padded as PKCS#7. A route asked for with fewer than two relays or no exit is refused.
The description has no `error`: a refusal is a close without an answer, and the server goes on. A
thread per connection.

Plants (--plant):
  reduces-mod-n        a ciphertext not below n is not refused: decrypted as pow(c, d, n), as a bare pow
                       does (c + n is taken as c)
  crashes-on-bad-input anything it refuses ends the whole server (the source's requests raise out of its loop)
  no-length-field      the route's ciphertext is sent without the 4-byte length before it
"""

import os
import random
import struct
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives import padding as sympadding  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

PLANTS = ("reduces-mod-n", "crashes-on-bad-input", "no-length-field")
IV = b"0" * 16
NODE = 220  # an 8-byte address and a 212-byte key text


class Refused(Exception):
    """A request the server refuses (by closing without an answer); the text is the reason."""


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, key=True, bits=1024)
    key = dzoolib.rsa_private_key(args.key, args.bits)
    n, d = key.public_key().public_numbers().n, key.private_numbers().d
    k = (n.bit_length() + 7) // 8
    relays, exits, lock = {}, {}, threading.Lock()

    def session_key(block):
        if not 1 <= len(block) <= k:
            raise Refused("a ciphertext of %d bytes; the key takes 1 to %d" % (len(block), k))
        c = int.from_bytes(block, "big")
        if c >= n and args.plant != "reduces-mod-n":
            raise Refused("ciphertext not below the modulus")
        m = pow(c, d, n)
        aes_key = m.to_bytes(max(1, (m.bit_length() + 7) // 8), "big")
        if len(aes_key) != 32:
            raise Refused("a key of %d bytes, not 32" % len(aes_key))
        return aes_key

    def route(aes_key):
        with lock:
            if len(relays) < 2 or not exits:
                raise Refused("a route needs two relays and an exit; %d and %d are registered" % (len(relays), len(exits)))
            chosen = random.sample(sorted(relays.items()), 2) + random.sample(sorted(exits.items()), 1)
        plain = b"".join(address + text for address, text in chosen)
        padder = sympadding.PKCS7(128).padder()
        padded = padder.update(plain) + padder.finalize()
        encryptor = Cipher(algorithms.AES(aes_key), modes.CBC(IV)).encryptor()
        return encryptor.update(padded) + encryptor.finalize()

    def converse(sock, address):
        wire = dzoolib.Wire(sock)
        try:
            request = wire.recv(known=1)
            if request in (b"n", b"e"):
                node = wire.recv(known=NODE)
                with lock:
                    (relays if request == b"n" else exits)[node[:8]] = node[8:]
                dzoolib.log("registered %s from %s" % ("a relay" if request == b"n" else "an exit", address))
            elif request == b"r":
                (length,) = struct.unpack("!I", wire.recv(known=4))
                if length > 4096:
                    raise Refused("a length of %d" % length)
                blob = route(session_key(wire.recv(known=length)))
                wire.send(blob if args.plant == "no-length-field" else struct.pack("!I", len(blob)) + blob)
                dzoolib.log("sent a route to %s" % (address,))
            else:
                raise Refused("no request %r" % request)
        except Refused as refused:
            dzoolib.log("refused %s: %s" % (address, refused))
            if args.plant == "crashes-on-bad-input":
                dzoolib.log("the crashes-on-bad-input plant: exiting")
                sock.close()
                os._exit(1)

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
