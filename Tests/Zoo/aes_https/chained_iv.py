"""aes-https, BROKEN: each response's IV is the previous response's last ciphertext block.

Plants: one CBC chain across responses, as TLS 1.0 chained its records: the IV of a response is
the last ciphertext block of the response before it (to any client), so it is known before the
message is chosen. Every IV is new and none echoes the request's, but NIST SP 800-38A
(appendix C) wants CBC IVs unpredictable.

Expected verdict: fail, naming "IV predictable".
"""

import base64
import os
import threading

import threaded_httpserver

CHAIN = {"last": os.urandom(16)}
CHAIN_LOCK = threading.RLock()


class ChainedIV(threaded_httpserver.SecureAPI):
    def response_iv(self, request_iv):
        with CHAIN_LOCK:
            return CHAIN["last"]

    def seal(self, key, document, request_iv):
        with CHAIN_LOCK:
            envelope = super().seal(key, document, request_iv)
            CHAIN["last"] = base64.b64decode(envelope["data"])[-16:]
            return envelope


if __name__ == "__main__":
    threaded_httpserver.main(ChainedIV, __doc__)
