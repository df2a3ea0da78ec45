"""per-character-rsa-echo (examples/protocols/per-character-rsa-echo.toml), written from the description alone.

Raw TCP, legacy framing (a message ends at a quiet gap). The server's toy RSA key is preshared: its
private half is a file of two decimal lines, d then n (--toy-key; the client is given e then n). The
client sends its message encrypted character by character: each character U+c (c < n) as the character
U+(c^e mod n), the text in UTF-8. The server reads UTF-8 text, not empty, every character below n
(RSADP step 1, for each character: RFC 8017 §5.1.2), decrypts each alone (m = c^d mod n), logs the
plaintext and answers with the bytes it read, unchanged. The description has no `error`: what does not
check is refused by closing without an answer; the log says why. It then reads on: every later message
is taken and answered the same way, until the client closes. A thread per connection.

Plants (--plant):
  reduces-mod-n      a character not below n is not refused: it is decrypted as pow(c, d, n), as a bare
                     pow does, and the message answered
  answers-plaintext  answers the decrypted text instead of the bytes it read
  serves-once        serves the first connection, then the whole server exits (the source's one accept())
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402

PLANTS = ("reduces-mod-n", "answers-plaintext", "serves-once")


class Refused(Exception):
    """A message the server refuses (by closing without an answer); the text is the reason."""


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, toy_key=True)
    d, n = args.toy_key

    def plaintext(data):
        """The text the message `data` carries, or Refused with the reason."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused("not UTF-8 text")
        if not text:
            raise Refused("an empty message")
        for char in text:
            if ord(char) >= n and args.plant != "reduces-mod-n":
                raise Refused("U+%04X is not below n = %d" % (ord(char), n))
        # n is at most 32767 (a toy key): every m is a character, never a surrogate.
        return "".join(chr(pow(ord(char), d, n)) for char in text)

    def converse(sock, address):
        try:
            wire = dzoolib.Wire(sock)
            while True:
                data = wire.recv()
                try:
                    text = plaintext(data)
                except Refused as refused:
                    dzoolib.log("refused %s: %s" % (address, refused))
                    return
                dzoolib.log("message from %s: %r" % (address, text))
                wire.send(text.encode("utf-8") if args.plant == "answers-plaintext" else data)
        finally:
            dzoolib.exit_if_served_once(args, sock)

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
