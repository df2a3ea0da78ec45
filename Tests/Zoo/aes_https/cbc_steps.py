"""Plumbing for the CBC-oracle mutants: an envelope's decryption without the padding check.

Not a server. Written from docs/PROTOCOL.md (the `{"data","iv"}` envelope, AES-CBC, PKCS#7).
"""

import base64
import json

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def raw_plaintext(body, key):
    """The decrypted bytes of a well-shaped envelope, padding and all (None for any other body)."""
    try:
        envelope = json.loads(body)
        iv, data = base64.b64decode(envelope["iv"], validate=True), base64.b64decode(envelope["data"], validate=True)
    except (ValueError, KeyError, TypeError):
        return None
    if len(iv) != 16 or not data or len(data) % 16:
        return None
    decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    return decryptor.update(data) + decryptor.finalize()
