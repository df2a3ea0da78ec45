"""rsa-socket, BROKEN: a bad PKCS#1 v1.5 padding decrypts to a sentinel, and the digest shows it.

Plants: PKCS#1 v1.5 decoded the PyCryptodome way (its documented `PKCS1_v1_5.decrypt(ciphertext,
sentinel)`: a block that is not `00 02`, at least 8 non-zero padding bytes, `00`, message decodes to
the caller's sentinel instead of raising). The server then answers `Server: OK sha256=<digest>` of
what it got, so every bad padding gets the sentinel's digest: `--sentinel empty` (b"", the digest
of the empty string) or `--sentinel fixed16` (16 random bytes drawn once at start: one digest for
every bad padding, unknown in advance). A perfect padding oracle: the digest tells a bad padding
from a good one, although every answer is `Server: OK`. The decoding is done here by hand on raw
RSA, so the verdict does not depend on the OpenSSL underneath; a wrong length or a ciphertext not
below the modulus is still refused with `Server: ERROR`.

Expected verdict: fail, naming a padding oracle.
"""

import os

import base_server


def pkcs1_decode_or_sentinel(block, sentinel):
    """The message of `00 02 PS 00 M` (PS: at least 8 non-zero bytes), else `sentinel`."""
    if len(block) < 11 or block[0] != 0 or block[1] != 2:
        return sentinel
    separator = block.find(b"\x00", 2)
    if separator < 10:
        return sentinel
    return block[separator + 1:]


class SentinelFallback(base_server.Conversation):
    def decrypt(self, ciphertext):
        return pkcs1_decode_or_sentinel(self.raw_rsa(ciphertext), self.server.sentinel)


def options(parser):
    parser.add_argument("--sentinel", choices=["empty", "fixed16"], default="empty",
                        help="what a bad padding decodes to: b'' or 16 random bytes drawn at start")


if __name__ == "__main__":
    import argparse
    import zoolib

    def extra(parser: argparse.ArgumentParser):
        parser.add_argument("--padding", choices=["pkcs1"], default="pkcs1")
        parser.add_argument("--framing", choices=["legacy", "framed"], default="legacy")
        parser.add_argument("--digest", action="store_true", help="answer Server: OK sha256=<hex>")
        options(parser)

    args = zoolib.arguments(__doc__.strip().splitlines()[0], rsa_key=True, extra=extra)
    server = base_server.Server(args, SentinelFallback)
    server.sentinel = b"" if args.sentinel == "empty" else os.urandom(16)
    server.serve()
