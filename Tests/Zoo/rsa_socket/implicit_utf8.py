"""rsa-socket, CORRECT: implicit rejection, and an application that reads its plaintext as UTF-8.

Written from docs/PROTOCOL.md: the tutorial's server decoded what it decrypted as text; this one
does too, and refuses a plaintext that is not UTF-8 with `Server: ERROR` and a close, like any other
failure. On a current cryptography (OpenSSL >= 3.2, as the zoo runs it) a bad PKCS#1 v1.5 padding
decrypts to a synthetic plaintext, which is then acknowledged when it happens to be UTF-8 (empty,
or short) and refused otherwise — exactly as a real random plaintext would be. Not a padding
oracle: the answer depends on the plaintext, not on the padding. Otherwise the base server
(pkcs1, the digest extension).

Expected verdict: pass, the audit naming the plaintext rule (and implicit rejection).
"""

import base_server


class DecodesUTF8(base_server.Conversation):
    def decrypt(self, ciphertext):
        plaintext = super().decrypt(ciphertext)
        try:
            plaintext.decode("utf-8")
        except UnicodeDecodeError:
            raise base_server.Refusal("the plaintext is not UTF-8")
        return plaintext


if __name__ == "__main__":
    base_server.main(DecodesUTF8, __doc__, padding_default="pkcs1")
