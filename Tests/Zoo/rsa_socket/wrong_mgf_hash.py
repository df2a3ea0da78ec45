"""rsa-socket, BROKEN: OAEP with SHA-256 but MGF1-SHA1 — a padding no iOS or OpenSSL default uses.

Plants: the server's OAEP hashes the label with SHA-256 but masks with MGF1-SHA-1 (a classic
mix-up: pyca's MGF1 and algorithm are separate arguments). Neither oaep-sha256 (SHA-256 with
MGF1-SHA-256), oaep-sha1 nor pkcs1 interoperates with it, in either direction.

Expected verdict: fail, naming "no padding works".
"""

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding

import base_server


class MixedOAEP(base_server.Conversation):
    def __init__(self, sock, server):
        super().__init__(sock, server)
        self.padding = padding.OAEP(mgf=padding.MGF1(hashes.SHA1()), algorithm=hashes.SHA256(), label=None)


if __name__ == "__main__":
    base_server.main(MixedOAEP, __doc__)
