"""aes-https, BROKEN: every response is encrypted under one fixed IV.

Plants: the IV of the response envelope is chosen once, when the server starts, and reused for
every response to every client. With CBC a repeated IV shows when two responses begin alike.

Expected verdict: fail, naming "IV repeated".
"""

import os

import threaded_httpserver

FIXED_IV = os.urandom(16)


class StaticIV(threaded_httpserver.SecureAPI):
    def response_iv(self, request_iv):
        return FIXED_IV


if __name__ == "__main__":
    threaded_httpserver.main(StaticIV, __doc__)
