"""rsa-socket, BROKEN: a PKCS#1 v1.5 padding oracle told by the error text (Bleichenbacher/ROBOT).

Plants: PKCS#1 v1.5 is unpadded by hand after textbook RSA, and the refusal says why: a plaintext
block that does not begin `00 02` is answered `Server: ERROR padding`; one that begins `00 02` but
has no zero separator, or one within the first 8 padding bytes, is answered `Server: ERROR length`.
So an attacker learns, ciphertext by ciphertext, whether the block begins `00 02` — the oracle
Bleichenbacher's attack needs. Everything else is the base server (legacy framing, pkcs1).

Expected verdict: fail, naming "padding oracle".
"""

import base_server
from base_server import Refusal


class ErrorTextOracle(base_server.Conversation):
    def decrypt(self, ciphertext):
        block = self.raw_rsa(ciphertext)
        if block[:2] != b"\x00\x02":
            raise Refusal("not 00 02", answer=b"Server: ERROR padding")
        separator = block.find(b"\x00", 2)
        if separator < 10:
            raise Refusal("no separator after 8 padding bytes", answer=b"Server: ERROR length")
        return block[separator + 1:]


if __name__ == "__main__":
    base_server.main(ErrorTextOracle, __doc__, padding_default="pkcs1")
