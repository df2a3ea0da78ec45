"""pkcs1-decrypt-service (examples/protocols/pkcs1-decrypt-service.toml), written from the description alone.

Raw TCP, legacy framing (one send() per message; a message of known length is read exactly, the
others end at a quiet gap). The server's RSA key is preshared (--key: the client already has its
public half). A connection is a loop that lasts until the client closes: the client sends an RSA
PKCS#1 v1.5 ciphertext to the key (k bytes, 256 for a 2048-bit key), the server decrypts it and
answers the plaintext bytes in the clear; the client may send another, and another. Anything that
fails — a message that is not k bytes, a ciphertext not below the modulus (RFC 8017 §5.1.2 step 1),
a padding that does not check, an empty plaintext (legacy framing cannot carry an empty answer) —
is answered {"error": "<a fixed sentence>: <the reason>"} (json.dumps, so ASCII: the sentence is
Chinese, as the description's source has it, and travels as \\uXXXX escapes), the reason varying
with what failed, and the loop reads on: an error never closes the connection (error_then = "keep-open").

Reading: the bytes of a message are taken until k have arrived (exactly k: a second ciphertext sent
right behind the first is the next message), or, when fewer arrive, until a quiet gap — a message
of another length, refused. A message longer than k is thus a ciphertext and a message of its own.

The padding is checked by hand after the RSA operation (RFC 8017 §7.2.2 step 3), so the server
refuses a bad padding on every platform: pyca's PKCS1v15 decrypt on OpenSSL 3.2 and later (Debian 13)
does implicit rejection instead. --implicit-rejection (no flaw: a correct variant) does what that
pyca does: an undecryptable ciphertext gets a synthetic plaintext of its own, derived from it.

Plants (--plant):
  reduces-mod-n    a ciphertext not below the modulus is reduced mod n and decrypted anyway (textbook RSA,
                   pow(c, d, n), then the PKCS#1 v1.5 padding stripped by hand) instead of refused: RFC 8017
                   §5.1.2 step 1 says c must be below n
  closes-on-error  after an error answer the server closes the connection (the description keeps it open)
  sentinel         a ciphertext whose padding does not check is answered with the sentinel text "xyz" (as
                   PyCryptodome's PKCS1_v1_5 cipher.decrypt(ciphertext, sentinel) returns it) instead of an
                   error, while a wrong length still gets the error: a padding oracle
  names-the-padding-fault  a hand-written PKCS#1 v1.5 unpadder whose error names the check that failed
                   ("first byte is not 00", "block type is not 02", "no 00 separator", "padding string
                   shorter than 8 bytes"): every error still begins as the description says, but its text
                   tells the padding classes apart, Bleichenbacher's oracle
  drops-on-bad-padding  a padding that does not check is an unhandled exception: the connection is dropped
                   without a word, where every other failure gets the error and the loop reads on
"""

import hashlib
import json
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402

PLANTS = ("reduces-mod-n", "closes-on-error", "sentinel", "names-the-padding-fault", "drops-on-bad-padding")
SENTENCE = "\u89e3\u5bc6\u5931\u8d25"        # "decryption failed", the fixed sentence of every error
PADDING_FAILED = "Encryption/decryption failed."  # pyca's text for a padding that does not check (the usual error)
SENTINEL = b"xyz"


class Refused(Exception):
    """A message the server answers with its error; the text is the reason."""


class Messages(dzoolib.Wire):
    """dzoolib's legacy Wire, reading a message that is a k-byte ciphertext or ends short at a quiet gap."""

    peer_closed = False

    def message(self, k):
        if self.peer_closed and not self.buffer:
            raise dzoolib.PeerGone("peer closed")
        if not self.buffer:
            try:
                self._more(self.idle)
            except socket.timeout:
                raise dzoolib.PeerGone("silent peer")
        while len(self.buffer) < k:
            try:
                self._more(self.gap)
            except socket.timeout:
                break                            # a quiet gap: a message shorter than a ciphertext
            except dzoolib.PeerGone:
                self.peer_closed = True          # answer what came, then end
                break
        data, self.buffer = self.buffer[:k], self.buffer[k:]
        return data


def pkcs1_unpad(em):
    """EM = 00 || 02 || PS (at least 8 nonzero bytes) || 00 || M (RFC 8017 §7.2.2 step 3): M, or Refused."""
    separator = em.find(b"\x00", 2)
    if em[:2] != b"\x00\x02" or separator < 10:
        raise Refused(PADDING_FAILED)
    return em[separator + 1:]


def main():
    implicit_rejection = "--implicit-rejection" in sys.argv
    if implicit_rejection:
        sys.argv.remove("--implicit-rejection")
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, key=True)
    if not args.key:
        sys.exit("--key is required: the key is preshared")
    key = dzoolib.rsa_private_key(args.key)
    n, d = key.public_key().public_numbers().n, key.private_numbers().d
    k = (n.bit_length() + 7) // 8

    def plaintext(block):
        """The plaintext `block` carries, `SENTINEL` (the sentinel plant), or Refused with the reason."""
        if len(block) != k:
            raise Refused("ciphertext of %d bytes, the key takes %d" % (len(block), k))
        c = int.from_bytes(block, "big")
        if c >= n:
            if args.plant != "reduces-mod-n":
                raise Refused("ciphertext not below the modulus")
            message = pkcs1_unpad(pow(c, d, n).to_bytes(k, "big"))     # textbook: pow reduces c mod n
        elif args.plant == "names-the-padding-fault":
            em = pow(c, d, n).to_bytes(k, "big")
            separator = em.find(b"\x00", 2)
            if em[0] != 0:
                raise Refused("first byte is not 00")
            if em[1] != 2:
                raise Refused("block type is not 02")
            if separator < 0:
                raise Refused("no 00 separator")
            if separator < 10:
                raise Refused("padding string shorter than 8 bytes")
            message = em[separator + 1:]
        else:
            try:
                message = pkcs1_unpad(pow(c, d, n).to_bytes(k, "big"))
            except Refused:
                if args.plant == "sentinel":
                    return SENTINEL
                if args.plant == "drops-on-bad-padding":
                    raise ConnectionAbortedError("unhandled: bad padding")
                if implicit_rejection:  # a synthetic message of its own, 1 to k - 11 bytes, as OpenSSL's
                    stream = b"".join(hashlib.sha256(b"implicit rejection %d" % i + block).digest() for i in range(k // 32 + 1))
                    return stream[2:2 + 1 + int.from_bytes(stream[:2], "big") % (k - 11)]
                raise
        if not message:
            raise Refused("empty plaintext")
        return message

    def answer(block):
        """(the bytes to send, whether it is an error)."""
        try:
            return plaintext(block), False
        except ConnectionAbortedError:            # the plant drops-on-bad-padding: the handler dies
            raise
        except Refused as refused:
            reason = str(refused)
        except Exception as unexpected:           # never die on a message: any failure is an error answer
            reason = "%s: %s" % (type(unexpected).__name__, unexpected)
        return json.dumps({"error": "%s: %s" % (SENTENCE, reason)}).encode(), True

    def converse(sock, _address):
        wire = Messages(sock)
        while True:
            data, error = answer(wire.message(k))
            wire.send(data)
            if error and args.plant == "closes-on-error":
                return

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
