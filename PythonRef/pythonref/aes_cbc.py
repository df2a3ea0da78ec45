"""AES-CBC with PKCS#7 padding, the aes-https {"data","iv"} envelope, and key derivation.

CBC has no MAC: a padding check is all that stands between a tampered message
and its plaintext, which is why the profile treats it as weak.
"""

from __future__ import annotations

import base64
import binascii
import json
import os

from cryptography.hazmat.primitives import padding as sympad
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from .errors import CryptoFailure, ErrorKind, unsupported
from .text_formats import loads_strict, strict_b64decode

BLOCK = 16
AES_KEY_SIZES = (16, 24, 32)
KEY_DERIVATION_MODES = ("utf8-zeropad16", "base64-raw")


def _check_key_iv(key: bytes, iv: bytes) -> None:
    # The IV first, as WireCrypto does, so a wrong IV under a wrong-size key is BadLength on both sides.
    if len(iv) != BLOCK:
        raise CryptoFailure(ErrorKind.BAD_LENGTH, f"IV is {len(iv)} bytes; must be 16")
    if len(key) not in AES_KEY_SIZES:
        raise CryptoFailure(ErrorKind.BAD_KEY, f"AES key is {len(key)} bytes; must be 16, 24 or 32")


def cbc_encrypt(key: bytes, iv: bytes, plaintext: bytes) -> bytes:
    _check_key_iv(key, iv)
    padder = sympad.PKCS7(BLOCK * 8).padder()
    padded = padder.update(plaintext) + padder.finalize()
    enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    return enc.update(padded) + enc.finalize()


def cbc_decrypt(key: bytes, iv: bytes, ciphertext: bytes) -> bytes:
    _check_key_iv(key, iv)
    if len(ciphertext) == 0 or len(ciphertext) % BLOCK:
        raise CryptoFailure(
            ErrorKind.BAD_LENGTH, f"ciphertext is {len(ciphertext)} bytes; must be a positive multiple of 16"
        )
    dec = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    padded = dec.update(ciphertext) + dec.finalize()
    unpadder = sympad.PKCS7(BLOCK * 8).unpadder()
    try:
        return unpadder.update(padded) + unpadder.finalize()
    except ValueError:
        raise CryptoFailure(ErrorKind.BAD_PADDING, "PKCS#7 padding is invalid") from None


def seal_envelope(key: bytes, plaintext: bytes, iv: bytes | None = None) -> bytes:
    """UTF-8 JSON {"data": b64(ct), "iv": b64(iv)}; a fresh random IV unless one is given."""
    iv = os.urandom(BLOCK) if iv is None else iv
    ct = cbc_encrypt(key, iv, plaintext)
    doc = {"data": base64.b64encode(ct).decode("ascii"), "iv": base64.b64encode(iv).decode("ascii")}
    return json.dumps(doc, separators=(",", ":")).encode("utf-8")


def _envelope_field(doc: dict[str, object], name: str) -> bytes:
    value = doc.get(name)
    if not isinstance(value, str):
        raise CryptoFailure(ErrorKind.BAD_ENVELOPE, f"envelope field {name!r} is missing or not a string")
    try:
        return strict_b64decode(value)
    except (ValueError, binascii.Error):
        raise CryptoFailure(ErrorKind.BAD_ENVELOPE, f"envelope field {name!r} is not valid base64") from None


def open_envelope(key: bytes, envelope: bytes) -> bytes:
    try:
        doc = loads_strict(envelope)
    except ValueError:
        raise CryptoFailure(ErrorKind.BAD_ENVELOPE, "envelope is not UTF-8 JSON") from None
    if not isinstance(doc, dict):
        raise CryptoFailure(ErrorKind.BAD_ENVELOPE, "envelope JSON is not an object")
    data = _envelope_field(doc, "data")
    iv = _envelope_field(doc, "iv")
    return cbc_decrypt(key, iv, data)


def derive_key(mode: str, encryption_key: str) -> bytes:
    """Turn the server's `encryptionKey` string into AES key bytes, per named mode."""
    if mode == "utf8-zeropad16":
        try:
            raw = encryption_key.encode("utf-8")
        except UnicodeEncodeError:
            raise CryptoFailure(ErrorKind.KEY_DERIVATION, "encryptionKey is not encodable as UTF-8") from None
        if not 1 <= len(raw) <= 15:
            raise CryptoFailure(
                ErrorKind.KEY_DERIVATION,
                f"utf8-zeropad16 needs 1..15 UTF-8 bytes, got {len(raw)}: the seed's "
                "getCString(maxLength: 17) into a 16-byte buffer (kCCKeySizeAES128) fails for 16 bytes "
                "or more (no room for the NUL), and an empty string is no key",
            )
        return raw.ljust(16, b"\x00")
    if mode == "base64-raw":
        try:
            raw = strict_b64decode(encryption_key)
        except (ValueError, binascii.Error):
            raise CryptoFailure(ErrorKind.KEY_DERIVATION, "base64-raw: encryptionKey is not strict base64") from None
        if len(raw) not in AES_KEY_SIZES:
            raise CryptoFailure(
                ErrorKind.KEY_DERIVATION, f"base64-raw: key decodes to {len(raw)} bytes; must be 16, 24 or 32"
            )
        return raw
    raise unsupported("key derivation mode", mode, KEY_DERIVATION_MODES)
