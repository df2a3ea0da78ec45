"""aes-https, BROKEN: a CBC padding oracle spelt late in an equal-length body (Vaudenay).

Plants: every bad envelope gets a 400 body of the same length and the same first 60 bytes,
`{"error":"bad request","detail":"the request could not be read (cause: padding)"}`; only the
cause word differs (`padding`, `content` for a plaintext that is not a JSON object, `unknown`
for a bad shape), past byte 48.

Expected verdict: fail, naming "padding oracle".
"""

import threaded_httpserver


class LateCause(threaded_httpserver.SecureAPI):
    def refuse_envelope(self, why):
        cause = {"padding": "padding", "json": "content"}.get(why, "unknown")
        self.reply(400, {"error": "bad request", "detail": "the request could not be read (cause: %s)" % cause})


if __name__ == "__main__":
    threaded_httpserver.main(LateCause, __doc__)
