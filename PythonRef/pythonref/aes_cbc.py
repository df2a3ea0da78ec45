"""AES-CBC with PKCS#7 padding, the aes-https {"data","iv"} envelope, and key derivation.

CBC has no MAC: a padding check is all that stands between a tampered message
and its plaintext, which is why the profile treats it as weak.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import os
import re

from cryptography.hazmat.primitives import padding as sympad
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from .errors import CryptoFailure, ErrorKind, unsupported

BLOCK = 16
AES_KEY_SIZES = (16, 24, 32)
KEY_DERIVATION_MODES = ("utf8-zeropad16", "base64-raw")


def strict_b64decode(text: str | bytes) -> bytes:
    """Standard alphabet, padding required, nothing else allowed; raises ValueError."""
    if isinstance(text, str):
        text = text.encode("ascii")  # UnicodeEncodeError is a ValueError
    if len(text) % 4 or text.endswith(b"==="):  # b64decode alone takes superfluous padding ("YWJj=", "YWJj====")
        raise ValueError("base64 is not padded to a multiple of 4 with at most two '='")
    return base64.b64decode(text, validate=True)


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


MAX_JSON_DEPTH = 512  # the Swift side's limit (StrictFormats.StrictJSON.maxDepth, which took Foundation's parser's)


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is not a finite number")
    return value


# The "unrolled loop" form: an alternation inside a repeat would keep a backtracking frame per
# character (≈ 150 MB for a 1 MiB body); this keeps one per escape.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)


def loads_strict(data: bytes) -> object:
    """JSON as RFC 8259 has it, read the way WireCrypto's StrictJSON + Foundation read it: UTF-8
    without a BOM, no NaN/Infinity (nor numbers too large to be finite), strings without lone
    surrogates and not starting with a raw U+FEFF (Foundation drops it), nested at most
    MAX_JSON_DEPTH deep. Raises ValueError for anything else. Validity is the whole text's: a
    member that a later duplicate name overrides must be valid too (docs/PROTOCOL.md), though only
    the last one counts."""
    text = data.decode("utf-8")
    if any(m.group().startswith('"\ufeff') for m in _JSON_STRING.finditer(text)):
        raise ValueError("a JSON string starts with a raw U+FEFF")
    overridden: dict[int, list[object]] = {}  # id(object) -> the values its duplicate names replaced

    def members(pairs: list[tuple[str, object]]) -> dict[str, object]:
        obj: dict[str, object] = {}
        for name, value in pairs:
            if name in obj:
                overridden.setdefault(id(obj), []).append(obj[name])
            obj[name] = value
        return obj

    try:
        doc = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float, object_pairs_hook=members)
    except RecursionError:  # absurdly nested
        raise ValueError("JSON nested too deeply") from None
    stack: list[tuple[object, int]] = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            value.encode("utf-8")  # a lone surrogate raises UnicodeEncodeError, a ValueError
        elif isinstance(value, (dict, list)):
            if depth > MAX_JSON_DEPTH:
                raise ValueError(f"JSON nested more than {MAX_JSON_DEPTH} deep")
            items = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
            if isinstance(value, dict):
                items += [(None, v) for v in overridden.get(id(value), ())]
            for name, item in items:
                if name is not None:
                    name.encode("utf-8")
                stack.append((item, depth + 1))
    return doc


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
