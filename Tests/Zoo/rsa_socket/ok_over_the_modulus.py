"""rsa-socket, BROKEN: acknowledges a ciphertext over the modulus, which no OpenSSL decrypts.

Plants: the ciphertext is reduced modulo n before decryption (c mod n, as a hand-rolled textbook
RSA might), so a k-byte value >= n is decrypted instead of refused. Otherwise it is the base server
with PKCS#1 v1.5 and the digest extension; the zoo runs it on a current cryptography (OpenSSL >=
3.2), whose implicit rejection answers a bad padding with `Server: OK` and a synthetic plaintext's
digest — correct — so only the out-of-range ciphertext tells it from a correct current Pi.

Expected verdict: fail, naming the ciphertext over the modulus.
"""

import base_server


class ReducesModN(base_server.Conversation):
    def decrypt(self, ciphertext):
        n = self.private_key.public_key().public_numbers().n
        reduced = (int.from_bytes(ciphertext, "big") % n).to_bytes(self.k, "big")
        return super().decrypt(reduced)


if __name__ == "__main__":
    base_server.main(ReducesModN, __doc__, padding_default="pkcs1")
