"""aes-https, BROKEN: a timing-only CBC padding oracle (Canvel et al. 2003).

Plants: every bad envelope gets the base's `400 {"error":"bad request"}`, byte for byte, but
the server does 150 ms of work (a sleep here) after a valid padding, before the JSON step
refuses the plaintext; a bad padding is refused at once. The answers are alike; their time
tells a valid padding from an invalid one.

Expected verdict with `--timing 20 --strict`: fail, naming "timing oracle".
"""

import time

import threaded_httpserver


class SlowAfterPadding(threaded_httpserver.SecureAPI):
    def refuse_envelope(self, why):
        if why == "json":
            time.sleep(0.15)
        super().refuse_envelope(why)


if __name__ == "__main__":
    threaded_httpserver.main(SlowAfterPadding, __doc__)
