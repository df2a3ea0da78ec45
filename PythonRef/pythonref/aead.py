"""AES-GCM and ChaCha20-Poly1305 in CryptoKit's two layouts, and SymmetricKey text.

CryptoKit's `SealedBox.combined` is nonce(12) || ciphertext || tag(16); pyca's
AEAD `encrypt` returns ciphertext || tag only, so the nonce is prepended here.
The separate parts (`SealedBox(nonce:ciphertext:tag:)`) carry what `combined` cannot: an AES-GCM
nonce longer than 12 bytes, which CryptoKit allows (`AES.GCM.Nonce(data:)` takes 12 bytes or more).
"""

from __future__ import annotations

import base64
import binascii
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305

from .text_formats import strict_b64decode
from .errors import CryptoFailure, ErrorKind, bad_input, unsupported

NONCE = 12
TAG = 16
# pyca/cryptography's AESGCM takes nonces of 8 to 128 bytes (OpenSSL's GCM_IV_MAX_SIZE); CryptoKit
# takes 12 or more. A longer nonce is Unsupported here, not wrong.
PYCA_MAX_GCM_NONCE = 128
ALGS = ("aes-gcm", "chachapoly")
SYMKEY_BITS = (128, 192, 256)
_KEY_SIZES = {"aes-gcm": (16, 24, 32), "chachapoly": (32,)}


def _cipher(alg: str, key: bytes) -> AESGCM | ChaCha20Poly1305:
    if alg not in ALGS:
        raise unsupported("AEAD algorithm", alg, ALGS)
    sizes = _KEY_SIZES[alg]
    if len(key) not in sizes:
        allowed = ", ".join(str(s) for s in sizes)
        raise CryptoFailure(ErrorKind.BAD_KEY, f"{alg} key is {len(key)} bytes; must be {allowed}")
    return AESGCM(key) if alg == "aes-gcm" else ChaCha20Poly1305(key)


def seal(alg: str, key: bytes, plaintext: bytes, nonce: bytes | None = None, aad: bytes | None = None) -> bytes:
    cipher = _cipher(alg, key)
    nonce = os.urandom(NONCE) if nonce is None else nonce
    if len(nonce) != NONCE:
        raise CryptoFailure(ErrorKind.BAD_LENGTH, f"nonce is {len(nonce)} bytes; must be 12")
    # Empty associated data authenticates the same as none (both in GCM and in RFC 8439).
    return nonce + cipher.encrypt(nonce, plaintext, aad or None)


def open_combined(alg: str, key: bytes, combined: bytes, aad: bytes | None = None) -> bytes:
    # The length first, as CryptoKit does (a SealedBox under 28 bytes cannot even be made), so a
    # short box under a wrong-size key is BadLength on both sides.
    if len(combined) < NONCE + TAG:
        raise CryptoFailure(ErrorKind.BAD_LENGTH, f"combined box is {len(combined)} bytes; needs at least 28")
    cipher = _cipher(alg, key)
    try:
        return cipher.decrypt(combined[:NONCE], combined[NONCE:], aad or None)
    except InvalidTag:
        raise CryptoFailure(ErrorKind.AUTH_FAILED, "authentication tag does not match") from None


def _check_parts_nonce(alg: str, nonce: bytes) -> None:
    if alg == "chachapoly" and len(nonce) != NONCE:
        raise CryptoFailure(ErrorKind.BAD_LENGTH, f"ChaChaPoly nonce is {len(nonce)} bytes; must be 12")
    if alg == "aes-gcm" and len(nonce) < NONCE:
        raise CryptoFailure(ErrorKind.BAD_LENGTH, f"AES-GCM nonce is {len(nonce)} bytes; CryptoKit takes 12 or more")
    if alg == "aes-gcm" and len(nonce) > PYCA_MAX_GCM_NONCE:
        raise CryptoFailure(
            ErrorKind.UNSUPPORTED, f"AES-GCM nonce is {len(nonce)} bytes; pyca/cryptography takes at most {PYCA_MAX_GCM_NONCE}"
        )


def seal_parts(alg: str, key: bytes, nonce: bytes, plaintext: bytes, aad: bytes | None = None) -> tuple[bytes, bytes]:
    """CryptoKit's `seal(_:using:nonce:authenticating:)` read as ciphertext and tag."""
    cipher = _cipher(alg, key)
    _check_parts_nonce(alg, nonce)
    sealed = cipher.encrypt(nonce, plaintext, aad or None)
    return sealed[:-TAG], sealed[-TAG:]


def open_parts(alg: str, key: bytes, nonce: bytes, ciphertext: bytes, tag: bytes, aad: bytes | None = None) -> bytes:
    """CryptoKit's `open(SealedBox(nonce:ciphertext:tag:), using:authenticating:)`: a tag other
    than 16 bytes cannot make a SealedBox (BadLength), as in CryptoKit."""
    if len(tag) != TAG:
        raise CryptoFailure(ErrorKind.BAD_LENGTH, f"tag is {len(tag)} bytes; must be 16")
    cipher = _cipher(alg, key)
    _check_parts_nonce(alg, nonce)
    try:
        return cipher.decrypt(nonce, ciphertext + tag, aad or None)
    except InvalidTag:
        raise CryptoFailure(ErrorKind.AUTH_FAILED, "authentication tag does not match") from None


def generate_symkey(bits: int) -> bytes:
    if bits not in SYMKEY_BITS:
        raise bad_input(f"bits must be 128, 192 or 256, got {bits}")
    return os.urandom(bits // 8)


def serialize_symkey(key: bytes) -> str:
    # Seed 004: Data(key).base64EncodedString() -- standard alphabet, with padding, no line breaks.
    return base64.b64encode(key).decode("ascii")


def parse_symkey(text: str) -> bytes:
    try:
        raw = strict_b64decode(text)
    except (ValueError, binascii.Error):
        raise CryptoFailure(ErrorKind.BAD_KEY, "symmetric key text is not strict base64") from None
    if len(raw) not in (16, 24, 32):
        raise CryptoFailure(ErrorKind.BAD_KEY, f"symmetric key decodes to {len(raw)} bytes; must be 16, 24 or 32")
    return raw
