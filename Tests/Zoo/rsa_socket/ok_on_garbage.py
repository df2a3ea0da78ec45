"""rsa-socket, BROKEN: answers `Server: OK` to a ciphertext it cannot decrypt.

Plants: a decryption failure is logged and then acknowledged as if it had worked — the server
accepts garbage (OAEP-SHA256, legacy framing, no digest extension, so the client cannot tell).

Expected verdict: fail, naming "undecryptable" (the probe that sends one).
"""

import sys

import base_server
from base_server import Refusal


class AcceptsGarbage(base_server.Conversation):
    def decrypt(self, ciphertext):
        try:
            return super().decrypt(ciphertext)
        except Refusal:
            print("could not decrypt; acknowledging anyway", file=sys.stderr)
            return b""


if __name__ == "__main__":
    base_server.main(AcceptsGarbage, __doc__)
