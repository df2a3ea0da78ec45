"""pickled-key-per-character (examples/protocols/pickled-key-per-character.toml), written from the description alone.

Raw TCP, legacy framing (a message ends at a quiet gap). The client sends a Python pickle of the
tuple (e, n, message): its own toy RSA public key (two ints) and its message (a str) in the clear.
The server reads it with the standard library's Unpickler restricted to no globals at all (the
Python documentation's "Restricting Globals": find_class refuses every name, so nothing is imported
or called), takes exactly a tuple of int, int, str with 3 <= e < n, n odd and from 128 to 32767,
and answers each character c of the message as chr(pow(ord(c) - 65, e, n)) in UTF-8 (per-character
RSA with offset 65; every character must be from 'A' to below 'A' + n), then closes. The
description has no `error`: what does not check is refused by closing without an answer. A thread
per connection.

Plants (--plant):
  no-offset         encrypts ord(c) itself, not ord(c) - 65: the client's chr(m + 65) is another text
  swaps-e-and-n     encrypts with pow(ord(c) - 65, n, e): the tuple read in the wrong order
  serves-once       serves the first connection, then the whole server exits (the source's one accept())
"""

import io
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402

PLANTS = ("no-offset", "swaps-e-and-n", "serves-once")
OFFSET = 65


class Refused(Exception):
    """A message the server refuses (by closing without an answer); the text is the reason."""


class NoGlobals(pickle.Unpickler):
    """An Unpickler that resolves no global name, so a pickle can build only plain values."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError("global %s.%s refused" % (module, name))


def read_tuple(data):
    """(e, n, message) from the pickle `data`, or Refused."""
    try:
        value = NoGlobals(io.BytesIO(data)).load()
    except Exception as failure:                      # any malformed pickle: refused, never raised on
        raise Refused("not a pickle this server takes: %s" % failure)
    if not (isinstance(value, tuple) and len(value) == 3 and type(value[0]) is int and type(value[1]) is int
            and type(value[2]) is str):
        raise Refused("not a tuple of int, int, str")
    e, n, message = value
    if not (128 <= n <= 32767 and n % 2 == 1 and 3 <= e < n and e % 2 == 1):
        raise Refused("not a toy RSA key: e = %d, n = %d" % (e, n))
    if not message or any(not 0 <= ord(c) - OFFSET < n for c in message):
        raise Refused("a message character outside 'A' to 'A' + n")
    return e, n, message


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS)

    def converse(sock, address):
        try:
            wire = dzoolib.Wire(sock)
            e, n, message = read_tuple(wire.recv())
            dzoolib.log("message from %s: %r" % (address, message))
            if args.plant == "no-offset":
                answer = "".join(chr(pow(ord(c), e, n)) for c in message)
            elif args.plant == "swaps-e-and-n":
                answer = "".join(chr(pow(ord(c) - OFFSET, n, e)) for c in message)
            else:
                answer = "".join(chr(pow(ord(c) - OFFSET, e, n)) for c in message)
            wire.send(answer.encode("utf-8"))
        except Refused as refused:
            dzoolib.log("refused %s: %s" % (address, refused))
        finally:
            dzoolib.exit_if_served_once(args, sock)
            sock.close()

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
