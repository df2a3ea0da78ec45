"""aes-https, BROKEN: the response reuses the request's IV.

Plants: the response envelope is sealed under the IV the client sent with its request (it is
fresh from the client's point of view, but the same key and IV now encrypt two messages).

Expected verdict: fail, naming "IV echoed".
"""

import threaded_httpserver


class EchoedIV(threaded_httpserver.SecureAPI):
    def response_iv(self, request_iv):
        return request_iv


if __name__ == "__main__":
    threaded_httpserver.main(EchoedIV, __doc__)
