"""textbook-rsa-pycrypto-tuple (examples/protocols/textbook-rsa-pycrypto-tuple.toml), written from the description alone.

Raw TCP, legacy framing (one send() per message; a message of known length is read exactly, the
others end at a quiet gap). The server makes its RSA key at start (--bits, 1024 by default as the
description; or --key PEM). The client sends "Client: OK"; the server answers "public_key=", its
public key as SubjectPublicKeyInfo PEM ("BEGIN PUBLIC KEY", no line end after the END line), then
"\\n". The client sends "encrypted_message=" then Python 2's text of the one-tuple str((c,)) of
the textbook-RSA ciphertext of its message (no padding: m = OS2IP(message), c = m^e mod n, RFC 8017
§5.1.1): ('…',) with the bytes written as Python 2's repr of a str writes them. The server reads
that text strictly (only what Python 2 writes for some bytes), takes a ciphertext of 1 to k bytes
(k the modulus length: PyCrypto's long_to_bytes drops leading zero bytes, a sender may keep them),
refuses one not below the modulus (RSADP step 1, §5.1.2), decrypts m = c^d mod n with Python
integers (pyca has no raw RSA), takes the plaintext as m's bytes without leading zero bytes (one zero
byte for m = 0, as PyCrypto's long_to_bytes), logs it
and answers "Server: OK". The client sends "Quit"; the server answers "Server stopped\\n" and closes.
The description has no `error`: anything that does not check (an unexpected message, a wrong
label, a tuple text Python 2 would not write, a ciphertext of 0 or more than k bytes or not below
n) is refused by closing without an answer; the log says why. A thread per
connection: it serves every connection, one after another or at once.

Plants (--plant):
  reduces-mod-n   a ciphertext not below the modulus is not refused: it is decrypted as pow(c, d, n)
                  (what a bare pow does: c + n decrypts as c) and answered "Server: OK"
  ok-on-garbage   any text after "encrypted_message=" is answered "Server: OK", whether it reads as a
                  ciphertext or not (as the source's eval() path answers any tuple it is given)
  pkcs1-unpad     the server expects padded RSA: after the RSA operation it strips a PKCS#1 v1.5
                  padding (00 02, 8 or more nonzero bytes, 00) and closes when that does not check, so a
                  correct textbook client is refused
  serves-once     serves the first connection, then the whole server exits (the source's one accept())
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402

PLANTS = ("reduces-mod-n", "ok-on-garbage", "pkcs1-unpad", "serves-once")
HELLO, OK, QUIT, STOPPED = b"Client: OK", b"Server: OK", b"Quit", b"Server stopped\n"
KEY_LABEL, MESSAGE_LABEL = b"public_key=", b"encrypted_message="


class Refused(Exception):
    """A message the server refuses (by closing without an answer); the text is the reason."""


def python2_repr(data):
    """Python 2's repr of a str holding `data` (CPython 2.7 PyString_Repr): quoted with ' unless the bytes
    hold ' and no ", that quote and \\ escaped, \\t \\n \\r, other bytes below 0x20 or from 0x7f as \\xhh."""
    quote = b'"' if b"'" in data and b'"' not in data else b"'"
    out = bytearray(quote)
    for byte in data:
        char = bytes([byte])
        if char == quote or char == b"\\":
            out += b"\\" + char
        elif char == b"\t":
            out += b"\\t"
        elif char == b"\n":
            out += b"\\n"
        elif char == b"\r":
            out += b"\\r"
        elif byte < 0x20 or byte >= 0x7F:
            out += b"\\x%02x" % byte
        else:
            out += char
    return bytes(out + quote)


ESCAPES = {ord("t"): 9, ord("n"): 10, ord("r"): 13, ord("'"): 0x27, ord('"'): 0x22, ord("\\"): 0x5C}


def python2_tuple(text):
    """The bytes of Python 2's str((data,)) text `text`, read strictly: ('…',) or ("…",), and only the
    text Python 2 itself writes for those bytes (the same quote, escapes, lowercase hex), else Refused."""
    if len(text) < 5 or text[:1] != b"(" or text[-2:] != b",)" or text[1:2] not in (b"'", b'"') or text[-3:-2] != text[1:2]:
        raise Refused("not a Python 2 one-tuple text: %r" % text[:40])
    body, data, i = text[2:-3], bytearray(), 0
    while i < len(body):
        if body[i] != 0x5C:
            data.append(body[i])
            i += 1
        elif body[i + 1:i + 2] == b"x" and len(body) >= i + 4:
            try:
                data.append(int(body[i + 2:i + 4].decode("ascii"), 16))
            except ValueError:
                raise Refused("a \\x escape without two hex digits")
            i += 4
        elif i + 1 < len(body) and body[i + 1] in ESCAPES:
            data.append(ESCAPES[body[i + 1]])
            i += 2
        else:
            raise Refused("an escape Python 2 does not write")
    data = bytes(data)
    if b"(" + python2_repr(data) + b",)" != text:
        raise Refused("not the text Python 2 writes for those %d bytes" % len(data))
    return data


def pkcs1_unpad(em):
    """The pkcs1-unpad plant: EM = 00 || 02 || PS (8 or more nonzero bytes) || 00 || M, else Refused."""
    separator = em.find(b"\x00", 2)
    if em[:2] != b"\x00\x02" or separator < 10:
        raise Refused("PKCS#1 v1.5 padding does not check (the pkcs1-unpad plant)")
    return em[separator + 1:]


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, key=True, bits=1024)
    key = dzoolib.rsa_private_key(args.key, args.bits)
    n, d = key.public_key().public_numbers().n, key.private_numbers().d
    k = (n.bit_length() + 7) // 8
    pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    key_message = KEY_LABEL + pem.rstrip(b"\n") + b"\n"       # no line end after the END line, then the "\n" text

    def plaintext(data):
        """The message the "encrypted_message=" text `data` carries, or Refused with the reason."""
        if not data.startswith(MESSAGE_LABEL):
            raise Refused("no %r label: %r" % (MESSAGE_LABEL.decode(), data[:40]))
        block = python2_tuple(data[len(MESSAGE_LABEL):])
        if not 1 <= len(block) <= k:
            raise Refused("a ciphertext of %d bytes, the key takes 1 to %d" % (len(block), k))
        c = int.from_bytes(block, "big")
        if c >= n and args.plant != "reduces-mod-n":
            raise Refused("ciphertext not below the modulus")
        m = pow(c, d, n)                                        # textbook RSA (RSADP); a bare pow reduces c mod n
        if args.plant == "pkcs1-unpad":
            return pkcs1_unpad(m.to_bytes(k, "big"))
        return m.to_bytes(max(1, (m.bit_length() + 7) // 8), "big")  # without leading zero bytes; m = 0 is b"\x00" (long_to_bytes)

    def converse(sock, address):
        try:
            wire = dzoolib.Wire(sock)
            hello = wire.recv(known=len(HELLO))
            if hello != HELLO:
                raise Refused("expected %r, got %r" % (HELLO, hello))
            wire.send(key_message)
            data = wire.recv()
            try:
                text = plaintext(data)
                dzoolib.log("message from %s: %r" % (address, text.decode("utf-8", "replace")))
            except Refused as refused:
                if args.plant != "ok-on-garbage" or not data.startswith(MESSAGE_LABEL):
                    raise
                dzoolib.log("took garbage from %s (the ok-on-garbage plant): %s" % (address, refused))
            wire.send(OK)
            quit_ = wire.recv(known=len(QUIT))
            if quit_ != QUIT:
                raise Refused("expected %r, got %r" % (QUIT, quit_))
            wire.send(STOPPED)
        except Refused as refused:
            dzoolib.log("refused %s: %s" % (address, refused))
        finally:
            dzoolib.exit_if_served_once(args, sock)

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
