"""aes-https, BROKEN (weak): every login is handed the same encryptionKey.

Plants: one AES-256 key is made when the server starts and given to every login, whoever logs in,
instead of a fresh key per login. Tokens stay fresh. docs/PROTOCOL.md makes this a weakness to
report (issue 12: "a repeat is an audit weakness"), not a conformance failure.

Expected verdict: pass, with the audit finding "encryptionKey reused".
"""

import os

import threaded_httpserver

SHARED_KEY = os.urandom(32)


class OneKeyForAll(threaded_httpserver.SecureAPI):
    def new_key(self):
        return threaded_httpserver.b64(SHARED_KEY), SHARED_KEY


if __name__ == "__main__":
    threaded_httpserver.main(OneKeyForAll, __doc__)
