"""aes-https, BROKEN: a CBC padding oracle in the connection — bad padding drops it unanswered.

Plants: the PKCS#7 unpadding error is not caught: the request handler raises, http.server logs
the traceback and closes the connection without any response. A good padding with bad JSON still
gets the proper 400. An attacker tells the two apart by whether an answer comes at all.

Expected verdict: fail, naming "padding oracle".
"""

import threaded_httpserver


class RaisesOnBadPadding(threaded_httpserver.SecureAPI):
    def open_envelope(self, body, key):
        try:
            return super().open_envelope(body, key)
        except threaded_httpserver.BadEnvelope as refusal:
            if refusal.why == "padding":
                raise ValueError("Invalid padding bytes.")  # escapes do_POST: no response at all
            raise


if __name__ == "__main__":
    threaded_httpserver.main(RaisesOnBadPadding, __doc__)
