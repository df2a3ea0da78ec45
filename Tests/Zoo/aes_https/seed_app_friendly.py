"""aes-https, CORRECT, and serving seed 001's app as it ships: form or JSON login, short keys.

Written from docs/PROTOCOL.md ("What a server must accept", "Client profiles"): the login body
may be JSON or application/x-www-form-urlencoded (`password=…&username=…`, percent-escaped, `+`
a space), read by what it holds, not by its Content-Type; `encryptionKey` is a fresh string of 12
random ASCII letters and digits (key mode utf8-zeropad16: zero-padded to 16 bytes, which seed 001's
getCString can copy); the secure-data body is read as JSON whatever its Content-Type. The seed-app
mutants subclass this server.

Expected verdict: pass with --client both (audit: CBC without a MAC, the utf8-zeropad16 key mode).
"""

import json
import secrets
import string
import urllib.parse

import threaded_httpserver

ALPHABET = string.ascii_letters + string.digits


class SeedAppFriendly(threaded_httpserver.SecureAPI):
    def new_key(self):
        text = "".join(secrets.choice(ALPHABET) for _ in range(12))
        return text, text.encode() + bytes(16 - len(text))

    def login(self, body):
        if body.lstrip()[:1] != b"{":
            try:
                fields = urllib.parse.parse_qs(body.decode("ascii"), strict_parsing=True, keep_blank_values=True)
                body = json.dumps({name: values[-1] for name, values in fields.items()}).encode()
            except (ValueError, UnicodeDecodeError):
                return self.reply(400, {"error": "bad request"})
        return super().login(body)


if __name__ == "__main__":
    threaded_httpserver.main(SeedAppFriendly, __doc__)
