"""aes-https, BROKEN (weak): session tokens are a counter.

Plants: the token of the n-th login is the decimal number 1000 + n ("1001", "1002", …): unique,
so everything works, but anyone can guess a valid token. docs/PROTOCOL.md's server makes tokens of
32 random hex characters; issue 12 asks for token length and entropy in the audit.

Expected verdict: pass, with the audit finding "weak token".
"""

import itertools
import threading

import threaded_httpserver

COUNTER = itertools.count(1001)
COUNTER_LOCK = threading.Lock()


class CountingTokens(threaded_httpserver.SecureAPI):
    def new_token(self):
        with COUNTER_LOCK:
            return str(next(COUNTER))


if __name__ == "__main__":
    threaded_httpserver.main(CountingTokens, __doc__)
