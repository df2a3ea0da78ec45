"""rsa-socket, BROKEN: an OAEP oracle in the connection behaviour (Manger's attack), framed.

Plants: before OAEP-SHA256 decoding the server checks the first byte of the textbook-RSA block
itself. A non-zero first byte gets `Server: ERROR` and a close; any later OAEP failure (wrong label
hash, no 01 separator) gets the same `Server: ERROR` but the connection stays open for another
conversation. Same bytes, different connection behaviour: the first-byte test Manger's attack needs.
Run with the framed wire format (4-byte lengths) and OAEP-SHA256.

Expected verdict: fail, naming "padding oracle".
"""

import base_server
from base_server import Refusal


class MangerOracle(base_server.Conversation):
    def decrypt(self, ciphertext):
        if self.raw_rsa(ciphertext)[0] != 0:
            raise Refusal("first byte not zero")
        try:
            return self.private_key.decrypt(ciphertext, self.padding)
        except ValueError:
            raise Refusal("OAEP decoding failed; staying open", close=False)


if __name__ == "__main__":
    base_server.main(MangerOracle, __doc__, padding_default="oaep-sha256")
