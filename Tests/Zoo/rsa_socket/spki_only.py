"""rsa-socket, BROKEN: the phone's key is taken in SPKI PEM only.

Plants: `import_key` refuses a `-----BEGIN RSA PUBLIC KEY-----` (PKCS#1) PEM with `Server: ERROR`.
docs/PROTOCOL.md ("Padding and keys"): a conforming server accepts SPKI PEM (with or without the
final newline, any line ends) and PKCS#1 PEM, the PEM form of what iOS's
SecKeyCopyExternalRepresentation gives.

Expected verdict: fail, naming the client key format pkcs1-pem.
"""

import base_server
from base_server import Refusal


class SPKIOnly(base_server.Conversation):
    def import_key(self, pem):
        if pem.startswith(b"-----BEGIN RSA PUBLIC KEY-----"):
            raise Refusal("a PKCS#1 PEM key")
        return super().import_key(pem)


if __name__ == "__main__":
    base_server.main(SPKIOnly, __doc__, padding_default="pkcs1")
