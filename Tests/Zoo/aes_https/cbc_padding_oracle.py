"""aes-https, BROKEN: a CBC padding oracle in the 400 body (Vaudenay).

Plants: a bad envelope is refused with a body that says why: `{"error":"bad padding"}` when the
PKCS#7 padding is wrong, `{"error":"bad json"}` when the padding is right but the plaintext is not
a JSON object, `{"error":"bad envelope"}` otherwise. Padding right vs wrong is all an attacker
needs to decrypt any envelope byte by byte.

Expected verdict: fail, naming "padding oracle".
"""

import threaded_httpserver


class TellsWhy(threaded_httpserver.SecureAPI):
    def refuse_envelope(self, why):
        self.reply(400, {"error": {"padding": "bad padding", "json": "bad json"}.get(why, "bad envelope")})


if __name__ == "__main__":
    threaded_httpserver.main(TellsWhy, __doc__)
