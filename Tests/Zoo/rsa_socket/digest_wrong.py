"""rsa-socket, BROKEN: the digest extension hashes the ciphertext, not the plaintext.

Plants: `Server: OK sha256=<hex>` carries SHA-256 of the received ciphertext instead of the
recovered plaintext, so the proof the extension exists for proves nothing (OAEP-SHA256, legacy).

Expected verdict: fail, naming "digest".
"""

import hashlib

import base_server


class DigestOfTheWrongBytes(base_server.Conversation):
    def ok_answer(self, plaintext, ciphertext):
        return b"Server: OK sha256=" + hashlib.sha256(ciphertext).hexdigest().encode()


if __name__ == "__main__":
    base_server.main(DigestOfTheWrongBytes, __doc__)
