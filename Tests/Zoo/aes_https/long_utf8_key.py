"""aes-https, BROKEN: a 24-character encryptionKey used as its UTF-8 bytes (AES-192).

Plants: the key mode is the seed's utf8-zeropad16, but the server hands out 24-character key
strings and uses their 24 bytes as an AES-192 key. Python does not mind; the seed's CommonCrypto
code (a 16-byte buffer, getCString(maxLength: 17)) cannot hold 16 bytes or more, so the iOS app
never has the key (docs/PROTOCOL.md: "Treat ≥16 bytes in this mode as a conformance failure").
crosscheck is run with --key-mode utf8-zeropad16.

Expected verdict: fail, naming "encryptionKey".
"""

import secrets
import string

import threaded_httpserver


class LongUTF8Key(threaded_httpserver.SecureAPI):
    def new_key(self):
        text = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(24))
        return text, text.encode("utf-8")


if __name__ == "__main__":
    threaded_httpserver.main(LongUTF8Key, __doc__)
