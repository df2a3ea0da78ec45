"""rsa-socket, BROKEN: decrypts OAEP-SHA256 but encrypts to the phone with PKCS#1 v1.5.

Plants: the pi-to-phone ciphertext is padded with PKCS#1 v1.5 whatever the configuration says
(phone-to-pi is OAEP-SHA256 as configured). A client configured for OAEP-SHA256 (crosscheck is
run with --padding oaep-sha256) cannot decrypt what the server sends.

Expected verdict: fail, naming "padding.pi-to-phone" (the direction that does not work).
"""

from cryptography.hazmat.primitives.asymmetric import padding

import base_server


class PKCS1ToThePhone(base_server.Conversation):
    def encrypt_for(self, phone_key, message):
        return phone_key.encrypt(message, padding.PKCS1v15())


if __name__ == "__main__":
    base_server.main(PKCS1ToThePhone, __doc__)
