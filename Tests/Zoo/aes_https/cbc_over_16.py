"""aes-https, BROKEN: a CBC padding oracle only for a last plaintext byte above 16 (Vaudenay).

Plants: a hand-written padding check tests the padding length first and refuses a last byte
above 16 with `400 {"error":"bad length"}`; every other bad envelope gets the base's
`400 {"error":"bad request"}`. Probes whose bad padding ends in 00 or in an inconsistent run
never see the difference; an attacker learns, for every guess, whether the last byte is above 16.

Expected verdict: fail, naming "padding oracle".
"""

import threaded_httpserver
from cbc_steps import raw_plaintext


class LengthFirst(threaded_httpserver.SecureAPI):
    def open_envelope(self, body, key):
        try:
            return super().open_envelope(body, key)
        except threaded_httpserver.BadEnvelope as refusal:
            plaintext = raw_plaintext(body, key)
            if refusal.why == "padding" and plaintext and plaintext[-1] > 16:
                raise threaded_httpserver.BadEnvelope("length")
            raise

    def refuse_envelope(self, why):
        if why == "length":
            return self.reply(400, {"error": "bad length"})
        super().refuse_envelope(why)


if __name__ == "__main__":
    threaded_httpserver.main(LengthFirst, __doc__)
