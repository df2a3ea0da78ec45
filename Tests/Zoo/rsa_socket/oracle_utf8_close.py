"""rsa-socket, BROKEN: well-formed padding told apart from malformed, by an uncaught decode error.

Plants: the usual Python 3 line `message = plaintext.decode()` after a successful PKCS#1 v1.5
decryption, with nothing catching UnicodeDecodeError: a ciphertext whose padding is right but whose
plaintext is not UTF-8 kills the client's thread and the connection closes with no answer, while a
padding error gets `Server: ERROR`. A Bleichenbacher ciphertext with valid padding decrypts to
random bytes, so an attacker learns "padding was valid" from the silent close. The server's own
conversations (text plaintexts) work.

Expected verdict: fail, naming "padding oracle".
"""

import sys

import base_server


class DecodesPlaintext(base_server.Conversation):
    def decrypt(self, ciphertext):
        plaintext = super().decrypt(ciphertext)
        print("message: %s" % plaintext.decode("utf-8"), file=sys.stderr)  # THE FLAW: may raise, uncaught
        return plaintext


if __name__ == "__main__":
    base_server.main(DecodesPlaintext, __doc__, padding_default="pkcs1")
