"""RSA encryption and decryption with the three paddings of the rsa-socket profile.

Decryption failures of every cause are reported as one kind with one text, so
this module can never become a Bleichenbacher/Manger oracle by its answers.
"""

from __future__ import annotations

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding as asym

from .errors import CryptoFailure, ErrorKind
from .rsa_keys import PrivateKey, PublicKey

PADDINGS = ("pkcs1", "oaep-sha1", "oaep-sha256")
# Bytes of padding overhead: 11 for PKCS#1 v1.5, 2*hLen+2 for OAEP.
_OVERHEAD = {"pkcs1": 11, "oaep-sha1": 2 * 20 + 2, "oaep-sha256": 2 * 32 + 2}
DECRYPT_FAILED_DETAIL = "RSA decryption failed"


def _check_padding(name: str) -> None:
    if name not in PADDINGS:
        raise CryptoFailure(ErrorKind.UNSUPPORTED, f"unknown padding {name!r}; known: {', '.join(PADDINGS)}")


def _padding(name: str, label: bytes | None) -> asym.AsymmetricPadding:
    _check_padding(name)
    if name == "pkcs1":
        if label:
            raise CryptoFailure(ErrorKind.BAD_INPUT, "a label is only meaningful with OAEP, not pkcs1")
        return asym.PKCS1v15()
    # oaep-sha256 is what iOS .rsaEncryptionOAEPSHA256 does: SHA-256 for the label hash AND MGF1.
    algo: hashes.HashAlgorithm = hashes.SHA1() if name == "oaep-sha1" else hashes.SHA256()
    return asym.OAEP(mgf=asym.MGF1(algorithm=algo), algorithm=algo, label=label or None)


def modulus_bytes(bits: int) -> int:
    return (bits + 7) // 8


def max_plaintext(bits: int, padding: str) -> int:
    """k - overhead; negative when the key is too small for the padding at all."""
    _check_padding(padding)
    if bits < 1:
        raise CryptoFailure(ErrorKind.BAD_INPUT, f"bits must be positive, got {bits}")
    return modulus_bytes(bits) - _OVERHEAD[padding]


def encrypt(key: PublicKey, padding: str, plaintext: bytes, label: bytes | None = None) -> bytes:
    pad = _padding(padding, label)
    limit = max_plaintext(key.key_size, padding)
    if limit < 0:
        raise CryptoFailure(ErrorKind.TOO_LONG, f"a {key.key_size}-bit key is too small for {padding} at all")
    if len(plaintext) > limit:
        raise CryptoFailure(
            ErrorKind.TOO_LONG,
            f"plaintext is {len(plaintext)} bytes; {padding} with a {key.key_size}-bit key allows at most {limit}",
        )
    return key.encrypt(plaintext, pad)


def decrypt(key: PrivateKey, padding: str, ciphertext: bytes, label: bytes | None = None) -> bytes:
    pad = _padding(padding, label)
    k = modulus_bytes(key.key_size)
    if len(ciphertext) != k:
        # The length is public, so saying so leaks nothing.
        raise CryptoFailure(
            ErrorKind.BAD_LENGTH, f"ciphertext is {len(ciphertext)} bytes; a {key.key_size}-bit key needs exactly {k}"
        )
    try:
        return key.decrypt(ciphertext, pad)
    except ValueError:
        # pyca raises ValueError for bad padding, wrong label, c >= n alike; keep it that way.
        raise CryptoFailure(ErrorKind.DECRYPT_FAILED, DECRYPT_FAILED_DETAIL) from None
