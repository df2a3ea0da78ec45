"""aes-https, BROKEN: a CBC padding oracle through the JSON step's own exception (Vaudenay).

Plants: the server refuses a bad padding and a plaintext that is not JSON with the base's
`400 {"error":"bad request"}`, but its JSON step is `json.loads(plaintext.decode("utf-8"))` with
only JSON errors handled: a plaintext that is not UTF-8 raises `UnicodeDecodeError`, which the
framework turns into `500 {"error":"internal server error"}`. Vaudenay's attack garbles a
ciphertext block, so every plaintext behind a valid padding is random bytes, almost never UTF-8:
the 500 says "the padding was valid". ASCII probes never see it.

Expected verdict: fail, naming "padding oracle".
"""

import threaded_httpserver
from cbc_steps import raw_plaintext
from cryptography.hazmat.primitives import padding as symmetric_padding


class NotUTF8Raises(threaded_httpserver.SecureAPI):
    def open_envelope(self, body, key):
        try:
            return super().open_envelope(body, key)
        except threaded_httpserver.BadEnvelope as refusal:
            if refusal.why == "json":
                unpadder = symmetric_padding.PKCS7(128).unpadder()
                plaintext = unpadder.update(raw_plaintext(body, key)) + unpadder.finalize()
                plaintext.decode("utf-8")  # the unhandled step: raises UnicodeDecodeError
            raise

    def secure_data(self, body):
        try:
            super().secure_data(body)
        except UnicodeDecodeError:
            self.reply(500, {"error": "internal server error"})


if __name__ == "__main__":
    threaded_httpserver.main(NotUTF8Raises, __doc__)
