"""rsa-socket, BROKEN: closes right after the key.

Plants: in phone-to-pi the server sends `public_key=…` and closes before the ciphertext comes; in
pi-to-phone it reads the phone's key and closes without sending a ciphertext. No answer, no error.

Expected verdict: fail, naming "closed".
"""

import base_server
from base_server import Refusal


class ClosesAfterTheKey(base_server.Conversation):
    def after_sending_key(self):
        raise Refusal("closing after our key", answer=None)

    def import_key(self, pem):
        super().import_key(pem)
        raise Refusal("closing after the phone's key", answer=None)


if __name__ == "__main__":
    base_server.main(ClosesAfterTheKey, __doc__)
