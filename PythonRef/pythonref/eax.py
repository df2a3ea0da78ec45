"""AES-EAX, written from Bellare, Rogaway and Wagner, "The EAX Mode of Operation" (FSE 2004), §3.

pyca/cryptography and OpenSSL have no EAX; servers that use PyCryptodome's `AES.new(key,
AES.MODE_EAX)` (the mode its documentation's first example uses: a 16-byte nonce, a 16-byte tag)
put it on the wire, so this is the reference crosscheck checks them with. Composed from pyca's
AES-CMAC (the paper's OMAC) and AES-CTR: N' = OMAC0(N), H' = OMAC1(H), C = CTR from N'
(the whole 128-bit block counts), tag = N' xor H' xor OMAC2(C).
"""

from __future__ import annotations

import hmac as _hmac

from cryptography.hazmat.primitives import cmac
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from .errors import CryptoFailure, ErrorKind

TAG_BYTES = 16


def _omac(tweak: int, data: bytes, key: bytes) -> bytes:
    """OMAC^t(M) = CMAC(K, [t]_128 || M): the tweak as a whole block, then the data."""
    mac = cmac.CMAC(algorithms.AES(key))
    mac.update(bytes(15) + bytes([tweak]) + data)
    return mac.finalize()


def _ctr(key: bytes, counter: bytes, data: bytes) -> bytes:
    worker = Cipher(algorithms.AES(key), modes.CTR(counter)).encryptor()
    return worker.update(data) + worker.finalize()


def _tag(key: bytes, nonce_mac: bytes, header: bytes, ciphertext: bytes) -> bytes:
    parts = (nonce_mac, _omac(1, header, key), _omac(2, ciphertext, key))
    return bytes(a ^ b ^ c for a, b, c in zip(*parts))


def seal(key: bytes, nonce: bytes, plaintext: bytes, header: bytes = b"") -> tuple[bytes, bytes]:
    """(ciphertext, tag)."""
    if not nonce:
        raise CryptoFailure(ErrorKind.BAD_LENGTH, "an EAX nonce needs at least one byte")
    nonce_mac = _omac(0, nonce, key)
    ciphertext = _ctr(key, nonce_mac, plaintext)
    return ciphertext, _tag(key, nonce_mac, header, ciphertext)


def open_(key: bytes, nonce: bytes, ciphertext: bytes, tag: bytes, header: bytes = b"") -> bytes:
    """The plaintext; CryptoFailure(AUTH_FAILED) when the tag (all 16 bytes) does not verify."""
    if not nonce:
        raise CryptoFailure(ErrorKind.BAD_LENGTH, "an EAX nonce needs at least one byte")
    nonce_mac = _omac(0, nonce, key)
    if len(tag) != TAG_BYTES or not _hmac.compare_digest(_tag(key, nonce_mac, header, ciphertext), tag):
        raise CryptoFailure(ErrorKind.AUTH_FAILED, "the EAX tag does not verify")
    return _ctr(key, nonce_mac, ciphertext)
