"""rsa-socket, BROKEN: a PKCS#1 v1.5 padding oracle told by closing vs answering (ROBOT kind).

Plants: PKCS#1 v1.5 unpadded by hand after textbook RSA. A plaintext block that does not begin
`00 02` makes the server close the connection without a word; every other failure (no zero
separator, one within the first 8 bytes) gets `Server: ERROR` and a close. The answer bytes differ
(nothing vs `Server: ERROR`), which tells an attacker which ciphertexts begin `00 02`.

Expected verdict: fail, naming "padding oracle".
"""

import base_server
from base_server import Refusal


class SilentCloseOracle(base_server.Conversation):
    def decrypt(self, ciphertext):
        block = self.raw_rsa(ciphertext)
        if block[:2] != b"\x00\x02":
            raise Refusal("not 00 02: hang up", answer=None)
        separator = block.find(b"\x00", 2)
        if separator < 10:
            raise Refusal("bad padding string")
        return block[separator + 1:]


if __name__ == "__main__":
    base_server.main(SilentCloseOracle, __doc__, padding_default="pkcs1")
