"""Building and parsing the values of a protocol description (docs/PROTOCOL-DESCRIPTIONS.md, "Values").

Pure: a `Context` holds what one side knows (its keys, the peer's public keys, secrets, the
conversation's message, the token); `build` makes a value's bytes and `parse` checks received
bytes against a value, learning keys and secrets from them, or raises `Refused`. Keys are loaded
by pythonref's strict loaders and RSA goes through rsa_cipher (explicit rejection of a bad
PKCS#1 v1.5 padding, as the rsa-socket server has it by default).
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import hmac as pyhmac
import json
import math
import re
import secrets as pysecrets
import string
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence, Union

from cryptography.exceptions import InvalidSignature, InvalidTag, UnsupportedAlgorithm
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import cmac, hashes, hmac, serialization
from cryptography.hazmat.primitives import padding as sympad
from cryptography.hazmat.primitives.asymmetric import ec, rsa, x25519
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
try:  # pyca 47 and later keep CFB with the decrepit modes (the old place warns, then goes)
    from cryptography.hazmat.decrepit.ciphers.modes import CFB, CFB8
except ImportError:  # pyca 38 (Debian 12), 43 (Debian 13)
    from cryptography.hazmat.primitives.ciphers.modes import CFB, CFB8  # type: ignore[assignment]
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF

from .. import aead, aes_cbc, eax, rsa_cipher, rsa_keys, rsa_socket, text_formats
from ..salsa20 import salsa20
from ..errors import CryptoFailure, ErrorKind
from .description import (AEAD, AGREEMENT_KEY_TYPES, IV_BYTES, MAC_BYTES, PASSPHRASE_KEY_BYTES, SIBLING_REFERENCES,
                          TEXT_DERIVES, TOY_BITS, UNSIZED_ENCODINGS, Conversation, Description, SecretSpec, Value,
                          covers_previous, field_secret, public_key_length, tells_next, told_parts, wire_parts)

PickleItem = Union[int, str]

JsonObj = dict[str, Any]
_B64URL = re.compile(rb"[A-Za-z0-9_-]*\Z")
_HEX = re.compile(rb"[0-9a-fA-F]*\Z")  # either case: base16 is case-insensitive (RFC 4648 §8); both engines write lowercase
_ALNUM = string.ascii_letters + string.digits
TAG_BYTES = 16
DIGEST_BYTES = 32
MAX_PASSPHRASE = 1024  # a given or received passphrase: 1 to this many bytes
SEPARATED_TRIES = 100  # a sender seals a separated value at most this often for parts the receiver can split


class Refused(Exception):
    """The peer's message is not what the description says. `status`: the HTTP status a server
    answers with (401 for an unknown token or bad credentials; None: the conversation's own).
    `kind`: "length" (a block ciphertext that is not whole blocks), "padding" (a block padding that
    does not check) or "authentication" (a tag or Fernet token that does not verify), for a tcp
    conversation's `errors`; None for any other refusal."""

    def __init__(self, reason: str, status: Optional[int] = None, kind: Optional[str] = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.kind = kind


@dataclass
class Context:
    """What one side knows during a conversation."""

    description: Description
    conversation: Conversation
    role: str
    private_keys: dict[str, rsa.RSAPrivateKey]
    public_keys: dict[str, rsa.RSAPublicKey]
    secrets: dict[str, bytes]  # a secret's bytes (utf8-zeropad16, passphrases: the string's UTF-8)
    config: dict[str, str]
    message: Optional[bytes] = None  # what is carried as "message"; a receiver learns it
    expect_message: bool = False  # the receiver checks a carried message against `message`
    token: Optional[str] = None  # client: the token it was issued
    issued: set[str] = field(default_factory=set)  # server: the tokens it issued
    last_json: Any = None  # the json-message object (client: sent; server: received)
    last_sent: Optional[bytes] = None  # the last plaintext this side sealed or encrypted
    last_received: Optional[bytes] = None  # the last plaintext this side opened
    # tcp: the last whole message (framing removed) this side sent and received in this conversation, which
    # repeat = "received" sends back and checks; the party sets them.
    message_sent: Optional[bytes] = None
    message_received: Optional[bytes] = None
    received: dict[str, Any] = field(default_factory=dict)
    stated_length: Optional[int] = None  # what a length_of value said, checked once the message arrives

    def copy(self) -> "Context":
        clone = copy.copy(self)
        for name in ("public_keys", "secrets", "config", "issued", "received"):
            setattr(clone, name, copy.copy(getattr(self, name)))
        return clone


def random_message() -> bytes:
    """Fresh printable text for a conversation that names no message."""
    return ("crosscheck " + "".join(pysecrets.choice(_ALNUM) for _ in range(20))).encode("ascii")


def new_secret(description: Description, name: str) -> bytes:
    """A fresh secret for [secrets.NAME]: letters and digits for a text secret, else random bytes. A secret
    that textbook RSA carries raw (Description.textbook_raw_secrets) is drawn again while its first byte is
    0x00: OS2IP (RFC 8017 §4.2) would drop it, and the receiver would read one byte fewer (one draw in 256)."""
    spec = description.secret(name)
    if spec.derive in TEXT_DERIVES:
        return "".join(pysecrets.choice(_ALNUM) for _ in range(spec.chars)).encode("ascii")
    out = pysecrets.token_bytes(spec.bytes)
    if name in description.textbook_raw_secrets:
        while out[0] == 0:
            out = pysecrets.token_bytes(spec.bytes)
    return out


def cipher_key(ctx: Context, name: str) -> bytes:
    """The cipher key secret `name` becomes by its `derive`."""
    spec = ctx.description.secret(name)
    if name not in ctx.secrets:
        raise Refused(f"secret {name!r} is not known yet")
    raw = ctx.secrets[name]
    if spec.derive == "sha256":
        return hashlib.sha256(raw).digest()
    if spec.derive in PASSPHRASE_KEY_BYTES:
        if not 1 <= len(raw) <= MAX_PASSPHRASE:
            raise Refused(f"passphrase {name!r} is {len(raw)} bytes; it must be 1 to {MAX_PASSPHRASE}")
        return hashlib.sha256(raw).digest()[:PASSPHRASE_KEY_BYTES[spec.derive]]
    if spec.derive == "utf8-zeropad16":
        try:
            return aes_cbc.derive_key("utf8-zeropad16", raw.decode("utf-8"))
        except (UnicodeDecodeError, CryptoFailure) as exc:
            raise Refused(f"secret {name!r} is no utf8-zeropad16 key: {exc}") from None
    return raw


def _check_secret(ctx: Context, name: str, raw: bytes) -> None:
    spec = ctx.description.secret(name)
    if spec.derive in TEXT_DERIVES:
        ctx.secrets[name] = raw
        cipher_key(ctx, name)  # utf8-zeropad16: 1..15 UTF-8 bytes; a passphrase: 1..1024 bytes; else Refused
    elif len(raw) != spec.bytes:
        raise Refused(f"secret {name!r} is {len(raw)} bytes; the description says {spec.bytes}")
    ctx.secrets[name] = raw


def loads_json(data: bytes) -> Any:
    """JSON read strictly (text_formats.loads_strict), except that integers may exceed binary64:
    json-ne's "n" of a 2048-bit key has 617 digits, which a reader of doubles cannot hold."""
    try:
        return text_formats.loads_strict(data)
    except ValueError as exc:
        if "too large to be finite" not in str(exc):
            raise
    return json.loads(data.decode("utf-8"), parse_constant=_no_constant)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# ---- encodings -----------------------------------------------------------------------------------


# Python 2 repr's named escapes (Objects/stringobject.c, PyString_Repr), both ways.
_PY2_ESCAPES = {0x09: b"\\t", 0x0A: b"\\n", 0x0D: b"\\r"}
_PY2_UNESCAPES = {ord("t"): 0x09, ord("n"): 0x0A, ord("r"): 0x0D}


def python2_tuple(data: bytes) -> bytes:
    """str((data,)) in Python 2, data a str: "(" + repr(data) + ",)". repr (Objects/stringobject.c,
    PyString_Repr) quotes with ' unless the bytes hold ' and no ", escapes that quote and the backslash,
    writes \\t \\n \\r, any other byte below 0x20 or from 0x7F as \\x and two lowercase hex digits, the rest
    as themselves."""
    quote = ord('"') if b"'" in data and b'"' not in data else ord("'")
    out = bytearray([ord("("), quote])
    for b in data:
        if b in (quote, ord("\\")):
            out += bytes([ord("\\"), b])
        elif b in _PY2_ESCAPES:
            out += _PY2_ESCAPES[b]
        elif b < 0x20 or b >= 0x7F:
            out += b"\\x%02x" % b
        else:
            out.append(b)
    return bytes(out + bytes([quote]) + b",)")


def _from_python2_tuple(text: bytes) -> bytes:
    """The bytes of a python2-tuple text, only as python2_tuple writes them: read leniently, then the
    text must be what python2_tuple writes for what was read (its quote, its escapes, nothing else)."""
    if len(text) < 5 or text[:1] != b"(" or text[1:2] not in (b"'", b'"') or text[-3:] != text[1:2] + b",)":
        raise ValueError("not ('…',)")
    body, out, i = text[2:-3], bytearray(), 0
    while i < len(body):
        if body[i] != ord("\\"):
            out.append(body[i])
            i += 1
        elif body[i + 1:i + 2] == b"x":
            out.append(int(body[i + 2:i + 4].decode("ascii"), 16))  # ValueError: not two hex digits
            i += 4
        elif i + 1 < len(body):
            out.append(_PY2_UNESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            raise ValueError("a backslash at the end")
    if python2_tuple(bytes(out)) != text:
        raise ValueError("not as Python 2 writes it")
    return bytes(out)


def encode(data: bytes, encoding: str) -> bytes:
    if encoding == "python2-tuple":
        return python2_tuple(data)
    if encoding == "base64":
        return base64.b64encode(data)
    if encoding == "base64url":
        return base64.urlsafe_b64encode(data).rstrip(b"=")
    if encoding == "hex":
        return data.hex().encode("ascii")
    if encoding == "latin1":
        return data.decode("latin-1").encode("utf-8")  # each byte as U+0000..U+00FF, the text in UTF-8
    return data  # raw, utf8


def decode(data: bytes, encoding: str, what: str) -> bytes:
    try:
        if encoding == "base64":
            return text_formats.strict_b64decode(data)
        if encoding == "base64url":
            if not _B64URL.match(data) or len(data) % 4 == 1:
                raise ValueError("not unpadded base64url")
            out = base64.urlsafe_b64decode(data + b"=" * (-len(data) % 4))
            if encode(out, "base64url") != data:
                raise ValueError("non-canonical base64url")
            return out
        if encoding == "hex":
            if not _HEX.match(data) or len(data) % 2:
                raise ValueError("not hex")
            return bytes.fromhex(data.decode("ascii"))
        if encoding == "utf8":
            data.decode("utf-8")
        if encoding == "latin1":
            text = data.decode("utf-8")
            if any(ord(c) > 0xFF for c in text):
                raise ValueError("a character over U+00FF")
            return text.encode("latin-1")
        if encoding == "python2-tuple":
            return _from_python2_tuple(data)
        return data
    except (ValueError, binascii.Error):
        raise Refused(f"{what} is not valid {encoding}") from None


def encoded_length(n: int, encoding: str) -> Optional[int]:
    """The length of n bytes so encoded, when it follows from n alone."""
    if encoding in UNSIZED_ENCODINGS:
        return None  # latin1: bytes over 0x7F take two; python2-tuple: escapes take two or four
    if encoding == "hex":
        return 2 * n
    if encoding == "base64":
        return 4 * math.ceil(n / 3)
    if encoding == "base64url":
        return math.ceil(4 * n / 3)
    return n


def known_length(v: Value, ctx: Context) -> Optional[int]:
    """The value's length on the wire as its receiver knows it beforehand, or None."""
    if v.kind == "text":
        return len(v.arg.encode("utf-8"))
    if v.kind == "rsa" and v.padding == "none":
        return None  # PyCrypto's sender sends long_to_bytes(c): fewer than k bytes when c has leading zeros
    if v.kind == "rsa" and v.padding == "per-character":
        return None  # a ciphertext character's UTF-8 takes 1 to 3 bytes
    if v.kind == "rsa" and v.arg in ctx.private_keys:
        return encoded_length(rsa_cipher.modulus_bytes(ctx.private_keys[v.arg].key_size), v.encoding)
    if v.kind == "digest":
        return encoded_length(DIGEST_BYTES, v.encoding)
    if v.kind == "length_of":
        return v.length_bytes
    if v.kind == "mac":  # of = "previous" in a concat: the algorithm's code, encoded
        return encoded_length(MAC_BYTES[v.algorithm], v.encoding)
    if v.kind == "secret":
        spec = ctx.description.secret(v.arg)
        if spec.derive in PASSPHRASE_KEY_BYTES:
            return None  # a given or received passphrase has any length
        if spec.derive == "utf8-zeropad16":  # `chars` letters and digits: one byte each, in latin1 too
            return encoded_length(spec.chars, "raw" if v.encoding == "latin1" else v.encoding)
        return encoded_length(spec.bytes, v.encoding)
    if v.kind == "public_key":
        fixed = public_key_length(ctx.description.key(v.arg).type, v.format)
        return None if fixed is None else encoded_length(fixed, v.encoding)
    if v.kind == "concat":
        lengths = [known_length(p, ctx) for p in v.arg]
        return None if None in lengths else sum(lengths)  # type: ignore[arg-type]
    return None


# ---- textbook RSA (padding = "none") -------------------------------------------------------------


def textbook_encrypt(key: rsa.RSAPublicKey, plaintext: bytes) -> bytes:
    """RSAEP (RFC 8017 §5.1.1): c = m^e mod n, m = OS2IP(plaintext) (§4.2), c written as I2OSP(c, k) (§4.1),
    as PyCrypto 2.x's _RSAobj.encrypt(m, K) computes it. The plaintext is 1 to k-1 bytes (so m < n) and does
    not start with 0x00, which the receiver's integer could not give back; else CryptoFailure TOO_LONG, as a
    padded plaintext over its limit."""
    numbers = key.public_numbers()
    k = rsa_cipher.modulus_bytes(key.key_size)
    if not 1 <= len(plaintext) <= k - 1 or plaintext[0] == 0:
        raise CryptoFailure(ErrorKind.TOO_LONG, f"plaintext is {len(plaintext)} bytes"
                            + (" starting with 0x00" if plaintext[:1] == b"\x00" else "")
                            + "; textbook RSA (padding none) carries 1 to k-1 bytes not starting with 0x00 "
                            f"(k = {k} for a {key.key_size}-bit key)")
    return pow(int.from_bytes(plaintext, "big"), numbers.e, numbers.n).to_bytes(k, "big")


def textbook_decrypt(key: rsa.RSAPrivateKey, ciphertext: bytes) -> bytes:
    """RSADP (RFC 8017 §5.1.2): m = c^d mod n, c = OS2IP(ciphertext) (§4.2), as PyCrypto 2.x's decrypt(c).
    The ciphertext is 1 to k bytes (PyCrypto sends long_to_bytes(c), without leading zero bytes) and c < n
    (§5.1.2 step 1); the plaintext is m's minimal big-endian bytes, b"\\x00" for m = 0 (long_to_bytes(m))."""
    numbers = key.private_numbers()
    n = numbers.public_numbers.n
    k = rsa_cipher.modulus_bytes(key.key_size)
    if not 1 <= len(ciphertext) <= k:
        # The length is public, so saying so leaks nothing (as rsa_cipher.decrypt's wrong length).
        raise Refused(f"RSA (none): ciphertext is {len(ciphertext)} bytes; textbook RSA with a {key.key_size}-bit key "
                      f"takes 1 to {k}")
    c = int.from_bytes(ciphertext, "big")
    if c >= n:
        raise Refused("the RSA ciphertext is not below the modulus (RFC 8017 §5.1.2 step 1)")
    m = pow(c, numbers.d, n)
    return m.to_bytes(max(1, (m.bit_length() + 7) // 8), "big")


# ---- per-character RSA (padding = "per-character") ------------------------------------------------


def _toy_numbers(n: int, bits: int) -> None:
    """A per-character key is a toy key (rsa_keys.TOY_MIN_N to TOY_MAX_N), so that each ciphertext character
    is below U+8000: a Unicode scalar value, never a surrogate."""
    if not rsa_keys.TOY_MIN_N <= n <= rsa_keys.TOY_MAX_N:
        raise CryptoFailure(ErrorKind.BAD_KEY, f"per-character RSA needs a toy key (n from {rsa_keys.TOY_MIN_N} to "
                            f"{rsa_keys.TOY_MAX_N}); this key has {bits} bits")


def per_character_encrypt(key: rsa.RSAPublicKey, plaintext: bytes, offset: int = 0) -> bytes:
    """dianaxime/Lab6-Cifrado-PublicKeyEncription's rsa.py encrypt: for each character c of the UTF-8
    text, chr(ord(c)^e mod n) (RSAEP, RFC 8017 §5.1.1, of the code point alone), the result written as
    UTF-8. Each code point must be below n (RSAEP step 1) and the text not empty (the receiver has nothing
    to decrypt); else CryptoFailure, whose detail shows no plaintext. `offset`: each code point less it is
    encrypted, chr((ord(c) - offset)^e mod n), as NithinYesudas/Networking_Lab_Python's rsa_server.py does
    with ord('A') (chr(pow(ord(c)-ord('A'), e, n))); the code points then run from offset to below offset + n."""
    numbers = key.public_numbers()
    n, e = numbers.n, numbers.e
    _toy_numbers(n, key.key_size)
    try:
        text = plaintext.decode("utf-8")
    except UnicodeDecodeError:
        raise CryptoFailure(ErrorKind.BAD_INPUT, "the plaintext is not UTF-8 text; per-character RSA encrypts "
                            "text, one character at a time") from None
    if not text:
        raise CryptoFailure(ErrorKind.TOO_LONG, "per-character RSA carries 1 or more characters; the plaintext is empty")
    if not all(0 <= ord(c) - offset < n for c in text):
        carried = (f"with offset {offset} carries characters from U+{offset:04X} ({offset}) to below {offset} + n = "
                   f"{offset + n}" if offset else f"carries only characters below n = {n}")
        raise CryptoFailure(ErrorKind.TOO_LONG, f"per-character RSA {carried}")
    return "".join(chr(pow(ord(c) - offset, e, n)) for c in text).encode("utf-8")


def per_character_decrypt(key: rsa.RSAPrivateKey, ciphertext: bytes, offset: int = 0) -> bytes:
    """dianaxime's rsa.py decrypt: for each character C of the UTF-8 ciphertext, chr(ord(C)^d mod n)
    (RSADP, RFC 8017 §5.1.2); the plaintext that text in UTF-8. Refused: UTF-8 that is not strictly so
    (RFC 3629 §3: no surrogates, no overlong forms), an empty ciphertext, a character not below n (§5.1.2
    step 1). `offset` is added back, chr(ord(C)^d mod n + offset), as NithinYesudas/Networking_Lab_Python's
    rsa_client.py does (chr(pow(ord(c), d, n) + 65)); a sum that is a surrogate or over U+10FFFF (Unicode
    §3.9, D76: no scalar value) is refused."""
    numbers = key.private_numbers()
    n = numbers.public_numbers.n
    try:
        _toy_numbers(n, key.key_size)
    except CryptoFailure as exc:
        raise Refused(f"RSA (per-character): {exc.detail}") from None
    try:
        text = ciphertext.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("the per-character RSA ciphertext is not UTF-8 text") from None
    if not text:
        raise Refused("the per-character RSA ciphertext is empty")
    above = next((c for c in text if ord(c) >= n), None)
    if above is not None:
        raise Refused(f"the per-character RSA ciphertext has a character not below n = {n} (U+{ord(above):04X})")
    # m < n ≤ 32767: below the surrogates, so chr(m) is always a scalar value UTF-8 can write; m + offset may not be.
    points = [pow(ord(c), numbers.d, n) + offset for c in text]
    bad = next((m for m in points if 0xD800 <= m <= 0xDFFF or m > 0x10FFFF), None)
    if bad is not None:
        raise Refused(f"the per-character RSA ciphertext decrypts to no character (U+{bad:04X})")
    return "".join(map(chr, points)).encode("utf-8")


# ---- Python pickles (value kind pickle) ----------------------------------------------------------
#
# A tuple of ints and strs as CPython's pickle.dumps(t, protocol=4) writes it (PEP 3154; the opcodes of
# Lib/pickle.py, the choices of Modules/_pickle.c): PROTO 4, one FRAME (_Pickler_CommitFrame: a frame of at
# least FRAME_SIZE_MIN = 4 bytes gets its header; a tuple's is at least 5), the items, the tuple, STOP.
# Protocol 5 (PEP 574, the default from Python 3.14) writes such a tuple with the same opcodes.

_PICKLE_PROTOCOLS = (4, 5)
_PICKLE_MAX_FRAME = 65536  # _pickle.c's FRAME_SIZE_TARGET: a str this long, or a frame grown so, ends the frame
_TUPLE_N = {1: b"\x85", 2: b"\x86", 3: b"\x87"}  # TUPLE1, TUPLE2, TUPLE3
_MARK, _TUPLE, _MEMOIZE, _STOP, _FRAME, _PROTO = b"(", b"t", b"\x94", b".", b"\x95", b"\x80"


def _pickled_int(x: int) -> bytes:
    """save_long (_pickle.c): BININT1, BININT2 or BININT when it fits, else LONG1 or LONG4 of
    pickle.encode_long's little-endian two's complement."""
    if 0 <= x <= 0xFF:
        return b"K" + bytes([x])  # BININT1
    if 0 <= x <= 0xFFFF:
        return b"M" + x.to_bytes(2, "little")  # BININT2
    if -(1 << 31) <= x < 1 << 31:
        return b"J" + x.to_bytes(4, "little", signed=True)  # BININT
    data = x.to_bytes((x.bit_length() >> 3) + 1, "little", signed=True)
    if x < 0 and data[-1] == 0xFF and data[-2] & 0x80:  # pickle.encode_long drops a redundant sign byte
        data = data[:-1]
    if len(data) < 256:
        return b"\x8a" + bytes([len(data)]) + data  # LONG1
    return b"\x8b" + len(data).to_bytes(4, "little", signed=True) + data  # LONG4


def _pickled_str(text: str) -> bytes:
    """save_unicode (_pickle.c): UTF-8, SHORT_BINUNICODE under 256 bytes else BINUNICODE, then MEMOIZE."""
    data = text.encode("utf-8")
    head = b"\x8c" + bytes([len(data)]) if len(data) < 256 else b"X" + len(data).to_bytes(4, "little")
    return head + data + _MEMOIZE


def pickle_tuple(items: Sequence[PickleItem], protocol: int = 4) -> bytes:
    """pickle.dumps(tuple(items), protocol) of ints and strs, byte for byte, except that a str is written
    again where CPython would refer back to the same str object (BINGET): an equal str twice is written twice.
    ValueError when the payload would be 65536 bytes or more (CPython may then write more than one frame: a str
    of 64 KiB goes outside the frame, and a frame that reaches 64 KiB before the end is closed)."""
    body = b"".join(_pickled_int(x) if isinstance(x, int) else _pickled_str(x) for x in items)
    body = body + _TUPLE_N[len(items)] if len(items) in _TUPLE_N else _MARK + body + _TUPLE
    body += _MEMOIZE + _STOP
    if len(body) >= _PICKLE_MAX_FRAME:
        raise ValueError(f"it would be {len(body)} bytes after its frame header: {_PICKLE_MAX_FRAME} or more, which "
                         "CPython may write in more than one frame")
    return _PROTO + bytes([protocol]) + _FRAME + len(body).to_bytes(8, "little") + body


def _from_pickle_tuple(data: bytes) -> tuple[PickleItem, ...]:
    """The items of a pickled tuple, only as pickle_tuple writes them (never pickle.loads: unpickling runs
    whatever the pickle names). Read leniently, by these opcodes alone, then the bytes must be what
    pickle_tuple writes for what was read with that protocol. ValueError otherwise."""
    if len(data) < 11 or data[:1] != _PROTO or data[1] not in _PICKLE_PROTOCOLS or data[2:3] != _FRAME:
        raise ValueError("not a framed pickle of protocol 4 or 5")
    items: list[PickleItem] = []
    pos = 11
    while pos < len(data):
        op = data[pos]
        pos += 1
        if op in (0x4B, 0x4D, 0x4A):  # BININT1, BININT2, BININT
            size = {0x4B: 1, 0x4D: 2, 0x4A: 4}[op]
            items.append(int.from_bytes(_taken(data, pos, size), "little", signed=op == 0x4A))
        elif op in (0x8A, 0x8B):  # LONG1, LONG4
            head = 1 if op == 0x8A else 4
            size = int.from_bytes(_taken(data, pos, head), "little", signed=op == 0x8B)
            pos += head
            items.append(int.from_bytes(_taken(data, pos, size), "little", signed=True))
        elif op in (0x8C, 0x58):  # SHORT_BINUNICODE, BINUNICODE
            head = 1 if op == 0x8C else 4
            size = int.from_bytes(_taken(data, pos, head), "little")
            pos += head
            items.append(_taken(data, pos, size).decode("utf-8"))  # strict: no surrogates (UnicodeDecodeError)
        elif op in (0x28, 0x74, 0x85, 0x86, 0x87, 0x94, 0x2E):  # MARK, TUPLE, TUPLE1-3, MEMOIZE, STOP
            size = 0
        else:
            raise ValueError(f"opcode 0x{op:02x}")
        pos += size
    if not items:
        raise ValueError("no items")
    if pickle_tuple(items, data[1]) != data:
        raise ValueError("not as pickle.dumps writes it")
    return tuple(items)


def _taken(data: bytes, pos: int, size: int) -> bytes:
    """data[pos:pos + size], or ValueError when the data ends first."""
    if size < 0 or pos + size > len(data):
        raise ValueError("truncated")
    return data[pos:pos + size]


def _pickle_shape(v: Value) -> str:
    """What a pickle value's receiver expects, for a refusal, in the Swift engine's words: "3 items (int, int, str)"
    ("1 items (str)" too: one wording for both engines)."""
    types = ", ".join("int" if item.kind == "public_key" else "str" for item in v.arg)
    return f"{len(v.arg)} items ({types})"


# ---- public keys ---------------------------------------------------------------------------------


def _b64url_int(n: int) -> str:
    return base64.urlsafe_b64encode(n.to_bytes(max(1, (n.bit_length() + 7) // 8), "big")).rstrip(b"=").decode()


_CURVES: dict[str, ec.EllipticCurve] = {"ec-p256": ec.SECP256R1(), "ec-p384": ec.SECP384R1()}
_KEY_WORDS = {"ec-p256": "an EC key on P-256", "ec-p384": "an EC key on P-384", "x25519": "an X25519 key"}
AgreementPublicKey = Union[ec.EllipticCurvePublicKey, x25519.X25519PublicKey]


def make_key(description: Description, name: str) -> Any:
    """A fresh private key for [keys.NAME]: RSA of its bits (a toy key for bits 8 to 15), EC on P-256 or
    P-384, or X25519."""
    spec = description.key(name)
    if spec.type == "x25519":
        return x25519.X25519PrivateKey.generate()
    if spec.type in _CURVES:
        return ec.generate_private_key(_CURVES[spec.type])
    if spec.bits in TOY_BITS:
        return rsa_keys.generate_toy(spec.bits)
    return rsa_keys.generate(spec.bits)


def public_key_payload(key: Any, fmt: str) -> Any:
    """Bytes for the PEM/DER and point formats; a JSON object for json-ne and jwk."""
    if isinstance(key, x25519.X25519PublicKey) and fmt == "raw":  # its 32 bytes (RFC 7748 §5)
        return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    if isinstance(key, ec.EllipticCurvePublicKey) and fmt in ("x962", "x962-compressed", "raw"):
        # SEC 1 v2 §2.3.3: 04||X||Y, 02/03||X; raw is X||Y, CryptoKit's rawRepresentation (the 04 dropped).
        if fmt == "x962-compressed":
            return key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint)
        point = key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        return point if fmt == "x962" else point[1:]
    if isinstance(key, (ec.EllipticCurvePublicKey, x25519.X25519PublicKey)):  # SubjectPublicKeyInfo
        if fmt == "der-spki":
            return key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        pem = key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).rstrip(b"\n")
        return pem + (b"\n" if fmt == "pem-spki-newline" else b"")
    if fmt in ("pem-spki", "pem-spki-newline"):
        return rsa_keys.export_public(key, "spki-pem") + (b"\n" if fmt == "pem-spki-newline" else b"")
    if fmt == "pem-pkcs1":
        return rsa_keys.export_public(key, "pkcs1-pem")
    if fmt in ("der-spki", "der-pkcs1"):
        return rsa_keys.export_public(key, "spki-der" if fmt == "der-spki" else "pkcs1-der")
    nums = key.public_numbers()
    if fmt == "json-ne":
        return {"n": nums.n, "e": nums.e}
    return {"kty": "RSA", "n": _b64url_int(nums.n), "e": _b64url_int(nums.e)}


_PEM_LABEL = {"pem-spki": b"PUBLIC KEY", "pem-spki-newline": b"PUBLIC KEY", "pem-pkcs1": b"RSA PUBLIC KEY",
              "der-spki": b"PUBLIC KEY", "der-pkcs1": b"RSA PUBLIC KEY"}


def _load_point(data: bytes, fmt: str, key_type: str) -> AgreementPublicKey:
    """An EC point (x962, x962-compressed, raw X||Y) or X25519's 32 bytes, of exactly its length."""
    if key_type == "x25519":
        if len(data) != 32:
            raise Refused(f"an X25519 public key is 32 bytes (RFC 7748 §5), not {len(data)}")
        return x25519.X25519PublicKey.from_public_bytes(data)
    curve = _CURVES[key_type]
    n = (curve.key_size + 7) // 8
    point = b"\x04" + data if fmt == "raw" else data
    if fmt == "x962-compressed":
        well_formed = len(point) == 1 + n and point[0] in (2, 3)
    else:
        well_formed = len(point) == 1 + 2 * n and point[0] == 4
    if not well_formed:
        shape = {"x962": f"04 and {2 * n} bytes", "x962-compressed": f"02 or 03 and {n} bytes",
                 "raw": f"{2 * n} bytes (X||Y)"}[fmt]
        raise Refused(f"a {fmt} point on {curve.name} is {shape}; got {len(data)} bytes")
    # SEC 1 v2 §3.2.2.1: pyca (OpenSSL) refuses a point that is not on the curve (ValueError).
    return ec.EllipticCurvePublicKey.from_encoded_point(curve, point)


def load_ec_public_key(payload: Any, fmt: str, key_type: str = "ec-p256") -> AgreementPublicKey:
    """A received public key of `key_type` (ec-p256, ec-p384, x25519): SubjectPublicKeyInfo DER, one
    PEM block (at most a line end after it) as RSA keys are read, or a point (_load_point). Every form
    is validated at load: an EC point must be on its curve (SEC 1 v2 §3.2.2.1)."""
    if not isinstance(payload, (bytes, bytearray)):
        raise Refused(f"a {fmt} key is bytes")
    data = bytes(payload)
    try:
        if fmt in ("x962", "x962-compressed", "raw"):
            key: Any = _load_point(data, fmt, key_type)
        elif fmt == "der-spki":
            key = serialization.load_der_public_key(data)
        else:
            end = data.rfind(b"-----END PUBLIC KEY-----")
            if not data.startswith(b"-----BEGIN PUBLIC KEY-----") or end < 0 or data[end + 24:] not in (b"", b"\n", b"\r\n", b"\r"):
                raise Refused("the key is not one PEM block from -----BEGIN PUBLIC KEY----- to -----END PUBLIC KEY----- "
                              "and at most a line end")
            key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise Refused(f"not a valid {key_type} key: {exc}") from None
    if key_type == "x25519":
        right = isinstance(key, x25519.X25519PublicKey)
    else:
        right = isinstance(key, ec.EllipticCurvePublicKey) and key.curve.name == _CURVES[key_type].name
    if not right:
        raise Refused(f"the key is not {_KEY_WORDS[key_type]} (the description's key is {key_type})")
    return key


# ---- key agreement -------------------------------------------------------------------------------


def agree(description: Description, name: str, role: str, private_keys: Mapping[str, Any],
          public_keys: Mapping[str, Any]) -> Optional[bytes]:
    """Agreement secret `name`'s bytes as `role` computes them (docs/PROTOCOL-DESCRIPTIONS.md, "Key
    agreement"): None while the other key's public half is unknown; Refused when the exchange
    refuses that key (an all-zero X25519 result)."""
    spec = description.secret(name)
    own, other = sorted(spec.keys, key=lambda k: description.key(k).holder != role)
    if own not in private_keys or other not in public_keys:
        return None
    private, peer = private_keys[own], public_keys[other]
    try:
        if isinstance(private, x25519.X25519PrivateKey):
            # RFC 7748 §6.1: pyca (OpenSSL) refuses an all-zero result, a small-order public key (ValueError).
            shared = private.exchange(peer)
        else:
            shared = private.exchange(ec.ECDH(), peer)  # SEC 1 v2 §3.3.1: the x-coordinate of d·Q, big-endian
    except (ValueError, TypeError):  # TypeError: a given (preshared) key of another type
        raise Refused(f"the key agreement of secret {name!r} refused key {other!r}: "
                      + ("the X25519 shared secret is all zero (a small-order public key; RFC 7748 §6.1)"
                         if isinstance(private, x25519.X25519PrivateKey) else "no shared secret")) from None
    return derive_agreed(spec, shared)


def derive_agreed(spec: SecretSpec, shared: bytes) -> bytes:
    """The secret's bytes from the shared secret by its kdf (`derive` applies after, in cipher_key): bytes
    skip..skip+bytes of the KDF's output. RFC 5869 §2.3: the OKM is the first L octets of T(1) | T(2) | ..., so a
    longer derive begins with a shorter one and one of L = skip + bytes holds the secret (SEC 1 v2 §3.6.1 likewise
    for X9.63); wenyupeng/securex's key_exchange.py takes its HMAC key as the last 32 bytes of a 64-byte HKDF."""
    if spec.kdf == "none":
        return shared
    length = spec.skip + spec.bytes
    if spec.kdf == "x963-sha256":  # SEC 1 v2 §3.6.1, SharedInfo = info (CryptoKit x963DerivedSymmetricKey)
        return X963KDF(hashes.SHA256(), length, spec.info or None).derive(shared)[spec.skip:]
    # RFC 5869; an empty salt is none (§2.2: HashLen zeros either way), CryptoKit's salt: Data().
    algorithm = hashes.SHA384() if spec.kdf == "hkdf-sha384" else hashes.SHA256()
    return HKDF(algorithm, length, spec.salt or None, spec.info).derive(shared)[spec.skip:]


def learn_agreed(ctx: Context, key_name: str) -> None:
    """The agreement secrets key `key_name` completes for this side, (re)computed now that it is known."""
    for spec in ctx.description.secrets:
        if spec.made_by == "agreement" and key_name in spec.keys:
            agreed = agree(ctx.description, spec.name, ctx.role, ctx.private_keys, ctx.public_keys)
            if agreed is not None:
                ctx.secrets[spec.name] = agreed


def sign(private_key: ec.EllipticCurvePrivateKey, data: bytes, fmt: str) -> bytes:
    """ECDSA over SHA-256 of `data` (FIPS 186-5 §6.4.1): DER, or r || s of 32 bytes each."""
    der = private_key.sign(data, ec.ECDSA(hashes.SHA256()))
    if fmt == "der":
        return der
    r, s = decode_dss_signature(der)
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def verified(public_key: ec.EllipticCurvePublicKey, signature: bytes, data: bytes, fmt: str) -> bool:
    """Whether `signature` (DER, or r || s) is the key's ECDSA-SHA256 signature of `data` (FIPS 186-5 §6.4.2)."""
    if fmt == "raw":
        if len(signature) != 64:
            return False
        signature = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public_key.verify(signature, data, ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError):
        return False
    return True


def load_public_key(payload: Any, fmt: str) -> rsa.RSAPublicKey:
    """A received public key, strictly: PEM through rsa_socket's wire rules (one block, a public
    label that matches the body), DER as that PEM, JSON numbers through the same strict loader."""
    try:
        if fmt.startswith("pem"):
            if not payload.startswith(b"-----BEGIN " + _PEM_LABEL[fmt] + b"-----"):
                raise Refused(f"the key is not a {fmt} PEM (BEGIN {_PEM_LABEL[fmt].decode()})")
            return rsa_socket.import_wire_public_key(payload)
        if fmt.startswith("der"):
            return rsa_socket.import_wire_public_key(rsa_keys.ios_pem(_PEM_LABEL[fmt].decode(), payload))
        if not isinstance(payload, dict):
            raise Refused(f"a {fmt} key must be a JSON object")
        if fmt == "json-ne":
            n, e = payload.get("n"), payload.get("e")
            if type(n) is not int or type(e) is not int:
                raise Refused('a json-ne key needs integer "n" and "e"')
        else:
            if payload.get("kty") != "RSA" or not isinstance(payload.get("n"), str) or not isinstance(payload.get("e"), str):
                raise Refused('a jwk needs "kty": "RSA" and base64url strings "n" and "e"')
            n = int.from_bytes(decode(payload["n"].encode("ascii", "replace"), "base64url", "jwk n"), "big")
            e = int.from_bytes(decode(payload["e"].encode("ascii", "replace"), "base64url", "jwk e"), "big")
        if n <= 0 or e <= 0:
            raise Refused("the key's n and e must be positive")
        try:
            key = rsa.RSAPublicNumbers(e, n).public_key()
        except ValueError as exc:
            raise Refused(f"not an RSA key: {exc}") from None
        return rsa_socket.import_wire_public_key(rsa_keys.export_public(key, "spki-pem"))
    except CryptoFailure as exc:
        raise Refused(f"bad public key: {exc.detail}") from None


# ---- symmetric ciphers ---------------------------------------------------------------------------


def _pad(data: bytes, padding: str) -> bytes:
    if padding in ("pkcs7", "pkcs7-32"):
        p = sympad.PKCS7(128 if padding == "pkcs7" else 256).padder()
        return p.update(data) + p.finalize()
    if padding == "sequence":
        # The bytes 01 02 ... n to the block boundary: bchr(i + 1) for i in range(padding_len).
        return data + bytes(range(1, 16 - len(data) % 16 + 1))
    if padding == "space":
        # Spaces to the block boundary, 1 to 16: data += " " * (16 - len(data) % 16).
        if data.endswith(b" "):
            raise Refused("space padding cannot carry a plaintext that ends in a space")
        return data + b" " * (16 - len(data) % 16)
    if data.endswith(b"\x00"):
        raise Refused("zero padding cannot carry a plaintext that ends in 0x00")
    # Zero bytes up to a block boundary; an empty plaintext is one block of zeros (mcrypt's way).
    return data + b"\x00" * (-len(data) % 16 or (16 if not data else 0))


def _unpad(data: bytes, padding: str) -> bytes:
    if padding == "pkcs7":
        u = sympad.PKCS7(128).unpadder()
        try:
            return u.update(data) + u.finalize()
        except ValueError:
            raise Refused("PKCS#7 padding is invalid", kind="padding") from None
    if padding == "pkcs7-32":
        # To a 32-byte boundary over 16-byte blocks (Python AESCipher classes with bs = 32): checked here,
        # as pyca's unpadder wants whole 32-byte blocks.
        n = data[-1] if data else 0
        if not 1 <= n <= min(32, len(data)) or data[-n:] != bytes([n]) * n:
            raise Refused("PKCS#7-32 padding is invalid", kind="padding")
        return data[:-n]
    if padding == "sequence":
        n = data[-1] if data else 0
        if not 1 <= n <= min(16, len(data)) or data[-n:] != bytes(range(1, n + 1)):
            raise Refused("the sequence padding (01 02 ... n) is invalid", kind="padding")
        return data[:-n]
    if padding == "space":
        if not data.endswith(b" "):
            raise Refused("space padding is invalid: the last byte is no space", kind="padding")
        kept = data.rstrip(b" ")
        return data[: max(len(kept), len(data) - 16)]  # at most 16 spaces are padding
    return data.rstrip(b"\x00")


# CFB's feedback is the ciphertext, so its directions differ (SP 800-38A §6.3): _aes takes `encrypt`.
CFB_MODES = {"aes-cfb": CFB, "aes-cfb8": CFB8}


def _aes(key: bytes, mode: modes.Mode, data: bytes, encrypt: bool) -> bytes:
    c = Cipher(algorithms.AES(key), mode)
    op = c.encryptor() if encrypt else c.decryptor()
    return op.update(data) + op.finalize()


def _chacha20(key: bytes, iv: bytes, data: bytes) -> bytes:
    """ChaCha20 without Poly1305 (pyca's algorithms.ChaCha20, mode=None): the data XOR the key stream,
    both ways. The 16-byte IV is OpenSSL's: a 4-byte little-endian block counter, then the 12-byte nonce."""
    try:
        op = Cipher(algorithms.ChaCha20(key, iv), mode=None).encryptor()
    except ValueError as exc:
        raise Refused(f"chacha20: {exc}") from None
    return op.update(data) + op.finalize()


def _gcm_any_nonce(key: bytes, nonce: bytes, data: bytes, tag: bytes | None) -> tuple[bytes, bytes]:
    """AES-GCM through pyca's mode API, which takes nonces of 8 to 128 bytes (AESGCM's parts API is
    CryptoKit's 12). `tag` None: encrypt, giving (ciphertext, tag); b"": the tag was dropped, so this
    is only GCM's counter-mode half, the data XOR the keystream (both ways, nothing verified);
    otherwise decrypt and verify."""
    try:
        if tag:
            op = Cipher(algorithms.AES(key), modes.GCM(nonce, tag)).decryptor()
            return op.update(data) + op.finalize(), tag
        enc = Cipher(algorithms.AES(key), modes.GCM(nonce)).encryptor()
        out = enc.update(data)
        enc.finalize()
        return out, (enc.tag if tag is None else b"")
    except InvalidTag:
        raise Refused("aes-gcm: authentication tag does not match", kind="authentication") from None
    except ValueError as exc:
        raise Refused(f"aes-gcm: {exc}") from None


def seal(v: Value, key: bytes, plaintext: bytes, iv: bytes) -> tuple[bytes, bytes]:
    """(ciphertext, tag) of one sealed value; the tag is empty but for the AEADs."""
    if v.cipher == "fernet":
        return Fernet(base64.urlsafe_b64encode(key)).encrypt(plaintext), b""
    if v.cipher == "aes-gcm" and (v.tag == "none" or len(iv) != IV_BYTES["aes-gcm"]):
        return _gcm_any_nonce(key, iv, plaintext, None)
    if v.cipher == "aes-eax":
        return eax.seal(key, iv, plaintext)
    if v.cipher in ("aes-gcm", "chacha20-poly1305"):
        return aead.seal_parts("aes-gcm" if v.cipher == "aes-gcm" else "chachapoly", key, iv, plaintext)
    if v.cipher == "aes-ctr":
        return _aes(key, modes.CTR(iv), plaintext, True), b""
    if v.cipher in CFB_MODES:
        return _aes(key, CFB_MODES[v.cipher](iv), plaintext, True), b""
    if v.cipher == "chacha20":
        return _chacha20(key, iv, plaintext), b""
    if v.cipher == "salsa20":
        return salsa20(key, iv, plaintext), b""
    mode = modes.CBC(iv) if v.cipher == "aes-cbc" else modes.ECB()
    return _aes(key, mode, _pad(plaintext, v.padding), True), b""


def open_sealed(v: Value, key: bytes, ciphertext: bytes, iv: bytes, tag: bytes) -> bytes:
    try:
        if v.cipher == "fernet":
            # Strict as every reader here: base64url with padding that re-encodes to the same text
            # (pyca's decrypt alone takes trailing bytes after the padding).
            try:
                raw = base64.urlsafe_b64decode(ciphertext)
            except (binascii.Error, ValueError):
                raise Refused("the fernet token is not base64url") from None
            if base64.urlsafe_b64encode(raw) != ciphertext:
                raise Refused("the fernet token is not canonical base64url with padding")
            return Fernet(base64.urlsafe_b64encode(key)).decrypt(ciphertext)
        if v.cipher == "aes-gcm" and v.tag == "none":
            return _gcm_any_nonce(key, iv, ciphertext, b"")[0]  # the tag was dropped: nothing to verify
        if v.cipher == "aes-gcm" and len(iv) != IV_BYTES["aes-gcm"]:
            if len(tag) != TAG_BYTES:
                raise Refused(f"aes-gcm: tag is {len(tag)} bytes; must be 16", kind="authentication")
            return _gcm_any_nonce(key, iv, ciphertext, tag)[0]
        if v.cipher == "aes-eax":
            return eax.open_(key, iv, ciphertext, tag)
        if v.cipher in ("aes-gcm", "chacha20-poly1305"):
            return aead.open_parts("aes-gcm" if v.cipher == "aes-gcm" else "chachapoly", key, iv, ciphertext, tag)
        if v.cipher == "aes-ctr":
            return _aes(key, modes.CTR(iv), ciphertext, False)
        if v.cipher in CFB_MODES:
            return _aes(key, CFB_MODES[v.cipher](iv), ciphertext, False)  # nothing authenticates it: any bytes open
        if v.cipher == "chacha20":
            return _chacha20(key, iv, ciphertext)  # nothing authenticates it: any ciphertext opens
        if v.cipher == "salsa20":
            return salsa20(key, iv, ciphertext)  # nor this
        if not ciphertext or len(ciphertext) % 16:
            raise Refused(f"{v.cipher} ciphertext is {len(ciphertext)} bytes, not a positive multiple of 16",
                          kind="length")
        mode = modes.CBC(iv) if v.cipher == "aes-cbc" else modes.ECB()
        return _unpad(_aes(key, mode, ciphertext, False), v.padding)
    except InvalidToken:
        raise Refused("the fernet token does not verify", kind="authentication") from None
    except CryptoFailure as exc:
        # Only the AEADs raise it here: a tag that does not verify (or is not 16 bytes, as the Swift engine has it).
        raise Refused(f"{v.cipher}: {exc.detail}", kind="authentication" if v.cipher in AEAD else None) from None


# ---- what values carry ---------------------------------------------------------------------------


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def carried_text(data: bytes, carries_as: str) -> bytes:
    """A carried secret's bytes as the plaintext writes them (`carries_as`; base64url-padded is
    Fernet.generate_key()'s text, base64url the values' unpadded one)."""
    if carries_as == "base64url-padded":
        return base64.urlsafe_b64encode(data)
    return encode(data, carries_as)  # raw, base64, base64url, hex


def uncarried_text(text: bytes, carries_as: str) -> bytes:
    """The secret's bytes from a carried plaintext, strictly: they must write back to the same text."""
    if carries_as == "raw":
        return text
    try:
        if carries_as == "hex":
            out = bytes.fromhex(text.decode("ascii"))
        elif carries_as == "base64url":
            out = decode(text, "base64url", "the carried secret")
        else:
            out = (base64.urlsafe_b64decode if carries_as == "base64url-padded" else base64.b64decode)(text)
    except (ValueError, binascii.Error, Refused):
        raise Refused(f"the carried secret is not {carries_as}") from None
    if carried_text(out, carries_as) != text:
        raise Refused(f"the carried secret is not canonical {carries_as}")
    return out


def _random_text(n: int) -> str:
    return "".join(pysecrets.choice(_ALNUM) for _ in range(n))


def _json_reading(fields: tuple[tuple[str, str], ...], secrets: Mapping[str, bytes]) -> bytes:
    """A json-fields plaintext: the fields in order, values of their types drawn fresh (a reading the
    receiver cannot have guessed): an integer 0..255, that integer and a half, "crosscheck " and six
    letters and digits; a secret field, the secret's bytes as its encoding writes them."""
    number = pysecrets.randbelow(256)
    text = json.dumps(f"crosscheck {_random_text(6)}", ensure_ascii=False)
    values = {"integer": str(number), "number": f"{number}.5", "string": text}

    def written(kind: str) -> str:
        carried_secret = field_secret(kind)
        if carried_secret is None:
            return values[kind]
        name, encoding = carried_secret
        return json.dumps(carried_text(secrets[name], encoding).decode("ascii"))

    members = (f"{json.dumps(name, ensure_ascii=False)}:{written(kind)}" for name, kind in fields)
    return ("{" + ",".join(members) + "}").encode("utf-8")


def _hands_out_secret(fields: tuple[tuple[str, str], ...]) -> bool:
    """Whether a json-fields plaintext carries a secret in a field: then it is not the conversation's message."""
    return any(field_secret(kind) is not None for _, kind in fields)


def _field_secret_bytes(value: Any, field_name: str, secret: str, encoding: str) -> bytes:
    """A json-fields secret field's bytes, read strictly: a JSON string, base64 and base64url(-padded)
    canonical as carries_as reads them, hex in either case (as an `encoding`)."""
    shown = f"{_quoted(field_name)} (secret {secret!r} as {encoding})"
    if not isinstance(value, str):
        raise Refused(f"the JSON plaintext has no string field {shown}")
    text = value.encode("utf-8", "surrogateescape")
    try:
        return decode(text, "hex", "") if encoding == "hex" else uncarried_text(text, encoding)
    except Refused:
        raise Refused(f"the JSON field {shown} is not valid {encoding}") from None


def _quoted(text: str) -> str:
    """Text in JSON quotes, as refusals show a plaintext."""
    return json.dumps(text, ensure_ascii=False)


def carried(carries: str, ctx: Context, carries_as: str = "raw",
            fields: tuple[tuple[str, str], ...] = ()) -> bytes:
    """The plaintext a sender puts in an rsa or sealed value (`fields`: carries = "json-fields"'s)."""
    if carries == "message":
        if ctx.message is None:
            ctx.message = random_message()
        out = ctx.message
    elif carries == "json-message":
        if ctx.message is None:
            ctx.message = random_message()
        ctx.last_json = {"message": ctx.message.decode("utf-8", "surrogateescape")}
        out = _dumps(ctx.last_json)
    elif carries == "echo":
        out = _dumps({"echo": ctx.last_json})
    elif carries == "same":
        if ctx.last_received is None:
            raise Refused("nothing received yet to answer with the same plaintext")
        out = ctx.last_received
    elif carries == "json-fields":
        out = _json_reading(fields, ctx.secrets)
        ctx.last_json = loads_json(out)
        if not _hands_out_secret(fields):  # a reading stands for the conversation's message; a key handed out does not
            ctx.message = out
    elif carries == "any-text":
        out = f"crosscheck reading {_random_text(12)}".encode("ascii")
    elif carries.startswith("text:"):
        out = carries[5:].encode("utf-8")
    else:
        out = carried_text(ctx.secrets[carries[7:]], carries_as)
    ctx.last_sent = out
    return out


def _of_type(value: Any, kind: str) -> bool:
    """Whether a JSON value is of a json-fields type: an integer is a number written without '.', 'e'
    or 'E' (json reads those as floats), a number either."""
    if isinstance(value, bool):
        return False
    if kind == "integer":
        return isinstance(value, int)
    if kind == "number":
        return isinstance(value, (int, float))
    return isinstance(value, str)


def accept(carries: str, plaintext: bytes, ctx: Context, carries_as: str = "raw",
           fields: tuple[tuple[str, str], ...] = ()) -> None:
    """Check a received plaintext against what it carries, and learn from it (`fields`: carries =
    "json-fields"'s)."""
    ctx.last_received = plaintext
    if carries == "message":
        if ctx.expect_message and plaintext != ctx.message:
            raise Refused("the message received is not the conversation's message")
        ctx.message = plaintext
        ctx.received["message"] = plaintext
    elif carries in ("json-message", "echo"):
        try:
            doc = loads_json(plaintext)
        except ValueError:
            raise Refused(f"the {carries} plaintext is not JSON") from None
        if not isinstance(doc, dict):
            raise Refused(f"the {carries} plaintext is not a JSON object")
        if carries == "echo":
            if doc != {"echo": ctx.last_json}:
                raise Refused("the echo is not what was sent")
            ctx.received["echo"] = doc["echo"]
            return
        if not isinstance(doc.get("message"), str):
            raise Refused('the json-message has no string "message"')
        message = doc["message"].encode("utf-8", "surrogateescape")
        if ctx.expect_message and message != ctx.message:
            raise Refused("the message received is not the conversation's message")
        ctx.message = message
        ctx.last_json = doc
        ctx.received["message"] = message
    elif carries == "same":
        if plaintext != ctx.last_sent:
            raise Refused("the answer is not the same plaintext as was sent")
        ctx.received["same"] = plaintext
    elif carries == "json-fields":
        try:
            doc = loads_json(plaintext)
        except ValueError:
            raise Refused("the plaintext is not a JSON object") from None
        if not isinstance(doc, dict):
            raise Refused("the plaintext is not a JSON object")
        for name, kind in fields:
            carried_secret = field_secret(kind)
            if carried_secret is not None:
                secret, encoding = carried_secret
                _check_secret(ctx, secret, _field_secret_bytes(doc.get(name), name, secret, encoding))
                ctx.received[f"secret:{secret}"] = ctx.secrets[secret]
            elif name not in doc or not _of_type(doc[name], kind):
                raise Refused(f"the JSON plaintext has no {kind} field {_quoted(name)}")
        ctx.last_json = doc
        if not _hands_out_secret(fields):
            ctx.message = plaintext
            ctx.received["message"] = plaintext
    elif carries == "any-text":
        try:
            plaintext.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused("the plaintext is not UTF-8 text") from None
        ctx.message = plaintext
        ctx.received["message"] = plaintext
    elif carries.startswith("text:"):
        if plaintext != carries[5:].encode("utf-8"):
            shown = plaintext[:80].decode("utf-8", "replace")
            raise Refused(f"the plaintext is not the stated text {_quoted(carries[5:])}; received {_quoted(shown)}")
    else:  # secret:NAME
        _check_secret(ctx, carries[7:], uncarried_text(plaintext, carries_as))
        ctx.received[carries] = ctx.secrets[carries[7:]]


# ---- building ------------------------------------------------------------------------------------


def build(v: Value, ctx: Context) -> bytes:
    """The bytes of a value as its sender makes them."""
    out = _build(v, ctx, {})
    return _dumps(out) if isinstance(out, dict) else out


def _build(v: Value, ctx: Context, scratch: dict[str, dict[str, bytes]]) -> Any:
    k = v.kind
    if k in ("text", "starts_with"):  # starts_with: a server built from the description sends just the beginning
        return v.arg.encode("utf-8")
    if k == "concat":
        return _build_concat(v, ctx)
    if k == "json":
        return _build_json(v, ctx)
    if k == "form":
        fields = _build_json(v, ctx)
        return urllib.parse.urlencode([(name, value) for name, value in fields.items()],
                                      quote_via=urllib.parse.quote, safe="").encode("ascii")
    if k == "config":
        return ctx.config[v.arg].encode("utf-8")
    if k == "token":
        if v.arg == "new":
            # config["token"]: the harness gives two servers the same token, so either takes the client's next request.
            token = ctx.config.get("token") or pysecrets.token_hex(16)
            ctx.issued.add(token)
            return token.encode("ascii")
        if ctx.token is None:
            raise Refused("no token was issued")
        return ctx.token.encode("utf-8")
    if k == "public_key":
        payload = public_key_payload(ctx.private_keys[v.arg].public_key(), v.format)
        if isinstance(payload, dict):
            return payload if v.encoding == "raw" else encode(_dumps(payload), v.encoding)
        return encode(payload, v.encoding)
    if k == "digest":
        if ctx.message is None:
            raise Refused("no message to digest")
        return encode(hashlib.sha256(ctx.message).digest(), v.encoding)
    if k == "secret":
        return encode(ctx.secrets[v.arg], v.encoding)
    if k == "plain":
        if ctx.message is None:
            ctx.message = random_message()
        return encode(ctx.message, v.encoding)
    if k == "length_of":
        assert v.arg == "message", 'a length_of = "next" is filled in by its concat (_build_concat)'
        if ctx.message is None:
            ctx.message = random_message()
        if len(ctx.message) >= 1 << (8 * v.length_bytes):
            raise Refused(f"the message has {len(ctx.message)} bytes: more than a {v.length_bytes}-byte length field holds")
        return len(ctx.message).to_bytes(v.length_bytes, "big")
    if k == "rsa":
        try:
            plaintext = carried(v.carries, ctx, v.carries_as, v.fields)
            if v.padding == "none":
                ct = textbook_encrypt(ctx.public_keys[v.arg], plaintext)
            elif v.padding == "per-character":
                ct = per_character_encrypt(ctx.public_keys[v.arg], plaintext, v.offset)
            else:
                ct = rsa_cipher.encrypt(ctx.public_keys[v.arg], v.padding, plaintext)
        except CryptoFailure as exc:
            raise Refused(f"cannot encrypt to key {v.arg!r}: {exc.detail}") from None
        return encode(ct, v.encoding)
    if k == "sealed":
        return _build_sealed(v, ctx, scratch)
    if k == "pickle":
        return _build_pickle(v, ctx, scratch)
    if k == "repeat":  # dianaxime's server.py: recibido = sc.recv(1024) ... sc.send(recibido)
        if ctx.message_received is None:
            raise Refused("nothing received yet to send back")
        return ctx.message_received
    raise AssertionError(f"{k} is built by its json")  # nonce_of / tag_of: in _build_json


def _build_concat(v: Value, ctx: Context) -> bytes:
    """The parts one after another, built in order; a mac with of = "previous" is the code of the part before it
    as built (after its encoding; never a length_of: description._check_concat), encoded: wenyupeng/securex's
    secure_channel.py sends nonce + ct + HMAC-SHA256(hmac_key, nonce + ct). Then each length_of = "next" is the
    byte length of the part after it as built (after its encoding), big-endian in its `bytes` bytes:
    struct.pack("!I", len(ct)) + ct in ProPorygon/TheOgreProtocol's utils.send_message_with_length_prefix. A part
    too long for its field cannot be sent (Refused)."""
    parts: tuple[Value, ...] = v.arg
    pieces: list[bytes] = []
    for p in parts:
        if tells_next(p):
            pieces.append(b"")  # filled in below
        elif covers_previous(p):
            pieces.append(encode(mac(p.algorithm, cipher_key(ctx, p.arg), pieces[-1]), p.encoding))
        else:
            pieces.append(build(p, ctx))
    for i in sorted(told_parts(parts)):
        field, size = parts[i - 1], len(pieces[i])
        if size >= 1 << (8 * field.length_bytes):
            raise Refused(f"{parts[i].path} has {size} bytes: more than a {field.length_bytes}-byte length field holds")
        pieces[i - 1] = size.to_bytes(field.length_bytes, "big")
    return b"".join(pieces)


def _build_pickle(v: Value, ctx: Context, scratch: dict[str, dict[str, bytes]]) -> bytes:
    """pickle.dumps((item, ...)) as rsa_client.py sends it: a key's e or n as an int, a text value as a str."""
    items: list[PickleItem] = []
    for item in v.arg:
        if item.kind == "public_key":
            numbers = ctx.private_keys[item.arg].public_key().public_numbers()
            items.append(numbers.e if item.format == "e" else numbers.n)
            continue
        try:
            items.append(_build(item, ctx, scratch).decode("utf-8"))
        except UnicodeDecodeError:
            raise Refused(f"cannot build the pickle: {item.path} is not UTF-8 text (a Python str)") from None
    try:
        return pickle_tuple(items)
    except ValueError as exc:
        raise Refused(f"cannot build the pickle: {exc}") from None


def _iv_for(v: Value, ctx: Context) -> bytes:
    if v.iv.startswith("fixed:"):
        return bytes.fromhex(v.iv[6:])
    if v.iv.startswith("secret:"):
        return ctx.secrets[v.iv[7:]]  # the secret's own bytes: a nonce sent alone, or the key as IV
    return pysecrets.token_bytes(IV_BYTES[v.cipher]) if v.cipher in IV_BYTES else b""


def _build_sealed(v: Value, ctx: Context, scratch: dict[str, dict[str, bytes]]) -> bytes:
    key, plaintext = cipher_key(ctx, v.arg), carried(v.carries, ctx, v.carries_as, v.fields)
    iv = _iv_for(v, ctx)
    ct, tag = seal(v, key, plaintext, iv)
    if v.cipher == "fernet":
        return ct  # the token is already base64url with padding
    if v.separator:
        sep = v.separator.encode("utf-8")
        # A part that holds the separator (or makes it with its neighbour) would not split back: seal again
        # under a fresh IV/nonce. A fixed or secret IV gives the same parts each time, so one try.
        fresh = v.iv == "prefix" or v.iv.startswith("field:")
        tries = 1
        while not _splits_back(_parts(v, iv, tag, ct), sep) and fresh and tries < SEPARATED_TRIES:
            iv = _iv_for(v, ctx)
            ct, tag = seal(v, key, plaintext, iv)
            tries += 1
        body = sep.join(_parts(v, iv, tag, ct))
    else:
        body = b"".join(_parts(v, iv, tag, ct))
    if v.iv.startswith("field:"):
        scratch.setdefault(v.iv[6:], {})["iv"] = iv
    if v.tag.startswith("field:"):
        scratch.setdefault(v.tag[6:], {})["tag"] = tag
    return encode(body, v.encoding)


def _parts(v: Value, iv: bytes, tag: bytes, ct: bytes) -> list[bytes]:
    """A sealed value's wire parts in their order (description.wire_parts)."""
    named = {"iv": iv, "tag": tag, "ciphertext": ct}
    return [named[part] for part in wire_parts(v.cipher, v.iv, v.tag)]


def _splits_back(parts: list[bytes], sep: bytes) -> bool:
    """Whether parts joined by `sep` split on it into the same parts (none holds it, and none makes it
    with its neighbour: b"x:" and b"y" joined by b"::" read back as b"x" and b":y")."""
    return sep.join(parts).split(sep) == parts


def _build_json(v: Value, ctx: Context) -> JsonObj:
    scratch: dict[str, dict[str, bytes]] = {}
    built: dict[str, Any] = {}
    # The sealed values first: their siblings nonce_of / tag_of need the IV and tag they chose.
    for name, f in v.arg:
        if f.kind not in SIBLING_REFERENCES:
            out = _build(f, ctx, scratch)
            built[name] = out if isinstance(out, (dict, list)) else out.decode("utf-8", "surrogateescape")
    for name, f in v.arg:
        if f.kind in ("nonce_of", "tag_of"):
            part = scratch[name]["iv" if f.kind == "nonce_of" else "tag"]
            built[name] = encode(part, f.encoding).decode("ascii")
        elif f.kind in ("mac", "signature"):  # over the covered field's text as sent
            covered = built[f.of].encode("utf-8", "surrogateescape")
            code = (mac(f.algorithm, cipher_key(ctx, f.arg), covered) if f.kind == "mac"
                    else sign(ctx.private_keys[f.arg], covered, f.format))  # a signature: by the key's private half
            built[name] = encode(code, f.encoding).decode("ascii")
    return {name: built[name] for name, _ in v.arg}


def mac(algorithm: str, key: bytes, data: bytes) -> bytes:
    """A mac value's code: AES-CMAC (RFC 4493) or HMAC-SHA256 (RFC 2104), through pyca."""
    if algorithm == "cmac-aes":
        c = cmac.CMAC(algorithms.AES(key))
        c.update(data)
        return c.finalize()
    h = hmac.HMAC(key, hashes.SHA256())
    h.update(data)
    return h.finalize()


# ---- parsing -------------------------------------------------------------------------------------


def parse(v: Value, data: bytes, ctx: Context) -> None:
    """Check received bytes against a value, learning what it teaches; Refused if they differ."""
    _parse(v, data, ctx, {})


def _show(data: bytes) -> str:
    return repr(data[:40]) + ("…" if len(data) > 40 else "")


def _parse(v: Value, data: Any, ctx: Context, scratch: dict[str, dict[str, bytes]]) -> None:
    k = v.kind
    if k == "text":
        if data != v.arg.encode("utf-8"):
            raise Refused(f"expected {v.arg!r}, got {_show(data)}")
    elif k == "starts_with":
        if not data.startswith(v.arg.encode("utf-8")):
            raise Refused(f"expected text beginning {v.arg!r}, got {_show(data)}")
    elif k == "concat":
        _parse_concat(v, data, ctx)
    elif k == "json":
        if isinstance(data, bytes):
            try:
                data = loads_json(data)
            except ValueError:
                raise Refused(f"expected a JSON object, got {_show(data)}") from None
        if not isinstance(data, dict):
            raise Refused("expected a JSON object")
        _parse_json(v, data, ctx)
    elif k == "form":
        _parse_json(v, _form_fields(data), ctx, container="form field")
    elif k == "config":
        if data != ctx.config[v.arg].encode("utf-8"):
            raise Refused(f"wrong {v.arg}", status=401)
    elif k == "token":
        token = decode(data, "utf8", "the token").decode("utf-8")
        if v.arg == "new":
            if not token:
                raise Refused("an empty token")
            ctx.token = token
            ctx.received["token"] = token
        elif token not in ctx.issued:
            raise Refused("unknown token", status=401)
    elif k == "public_key":
        key_type = ctx.description.key(v.arg).type
        try:
            ctx.public_keys[v.arg] = _received_key(data, v.format, v.encoding, key_type)
        except Refused:
            also = _also_accepted(data, v, key_type)
            if also is None:
                raise  # none loads: the refusal is format's, as without also_accepts
            ctx.public_keys[v.arg] = also
        ctx.received[f"public_key:{v.arg}"] = True
        learn_agreed(ctx, v.arg)  # the message that brought the key is refused if the agreement refuses it
    elif k == "digest":
        got = decode(data, v.encoding, "the digest")
        if ctx.message is None or got != hashlib.sha256(ctx.message).digest():
            raise Refused("the digest is not that of the message")
    elif k == "secret":
        _check_secret(ctx, v.arg, decode(data, v.encoding, f"secret {v.arg!r}"))
        ctx.received[f"secret:{v.arg}"] = ctx.secrets[v.arg]
    elif k == "length_of":
        if len(data) != v.length_bytes:
            raise Refused(f"the length field is not {v.length_bytes} bytes")
        if v.arg == "message":  # "next": its concat took the part after it by this length (split_concat)
            ctx.stated_length = int.from_bytes(data, "big")
    elif k == "plain":
        message = decode(data, v.encoding, "the message in the clear")
        if ctx.message is None:
            ctx.message = message
            ctx.received["message"] = message
        elif message != ctx.message:
            raise Refused("the message in the clear is not the conversation's message")
    elif k == "rsa":
        ct = decode(data, v.encoding, "the RSA ciphertext")
        if v.padding == "none":
            accept(v.carries, textbook_decrypt(ctx.private_keys[v.arg], ct), ctx, v.carries_as, v.fields)
            return
        if v.padding == "per-character":
            accept(v.carries, per_character_decrypt(ctx.private_keys[v.arg], ct, v.offset), ctx, v.carries_as, v.fields)
            return
        try:
            plaintext = rsa_cipher.decrypt(ctx.private_keys[v.arg], v.padding, ct)
        except CryptoFailure as exc:
            raise Refused(f"RSA ({v.padding}): {exc.detail}") from None
        accept(v.carries, plaintext, ctx, v.carries_as, v.fields)
    elif k == "sealed":
        _parse_sealed(v, data, ctx, scratch)
    elif k == "pickle":
        _parse_pickle(v, data, ctx, scratch)
    elif k == "repeat":
        if ctx.message_sent is None or data != ctx.message_sent:
            raise Refused("the answer is not the message sent")
        ctx.received["repeat"] = data
    else:  # nonce_of / tag_of are read by their json first
        pass


def _parse_pickle(v: Value, data: bytes, ctx: Context, scratch: dict[str, dict[str, bytes]]) -> None:
    """rsa_server.py's e,n,msg = pickle.loads(key), strictly (_from_pickle_tuple): the tuple has the value's
    items, an int for a key's e or n and a str for a text value, whose UTF-8 that value's parse checks. A key
    whose e and n arrived is learned: a toy key by the toy rules where the description's key is one."""
    shape = f"the message is not a pickle of {_pickle_shape(v)} as pickle.dumps writes one"
    try:
        got = _from_pickle_tuple(data)
    except (ValueError, UnicodeDecodeError):
        raise Refused(shape) from None
    if len(got) != len(v.arg) or any(isinstance(x, int) != (item.kind == "public_key") for item, x in zip(v.arg, got)):
        raise Refused(shape)
    numbers: dict[str, dict[str, int]] = {}
    for item, x in zip(v.arg, got):
        if isinstance(x, int):
            numbers.setdefault(item.arg, {})[item.format] = x
        else:
            _parse(item, x.encode("utf-8"), ctx, scratch)
    for name, number in numbers.items():
        toy = ctx.description.key(name).bits in TOY_BITS
        try:
            ctx.public_keys[name] = rsa_keys.public_from_numbers(number["n"], number["e"], toy=toy)
        except CryptoFailure as exc:
            raise Refused(f"bad public key: {exc.detail}") from None
        ctx.received[f"public_key:{name}"] = True


def _received_key(data: Any, fmt: str, encoding: str, key_type: str) -> Any:
    """A received public key in `fmt`: `data` is a JSON field's object, or bytes in `encoding`."""
    if isinstance(data, dict):
        if fmt not in ("json-ne", "jwk"):
            raise Refused(f"a JSON object is not a {fmt} key")  # (an also_accepts format beside a JSON one)
        payload: Any = data
    else:
        payload = decode(data, encoding, "the public key")
        if fmt in ("json-ne", "jwk"):
            try:
                payload = loads_json(payload)
            except ValueError:
                raise Refused(f"the {fmt} key is not JSON") from None
    if key_type in AGREEMENT_KEY_TYPES:
        return load_ec_public_key(payload, fmt, key_type)
    return load_public_key(payload, fmt)


def _also_accepted(data: Any, v: Value, key_type: str) -> Any:
    """The key in the first of v.also_accepts that loads, or None: the receiver's other formats."""
    for fmt in v.also_accepts:
        try:
            return _received_key(data, fmt, v.encoding, key_type)
        except Exception:  # noqa: BLE001 -- whatever this format trips on, the refusal is `format`'s
            continue
    return None


def _parse_concat(v: Value, data: bytes, ctx: Context) -> None:
    """The parts read in order, each from its bytes (split_concat). A part a mac with of = "previous" covers is
    read only once that mac verifies over its bytes as they came (encrypt-then-MAC: a sealed part is not opened
    under a MAC that fails), as wenyupeng/securex's secure_channel.py decrypt runs h.verify(tag) before
    AESGCM(aes_key).decrypt."""
    parts: tuple[Value, ...] = v.arg
    pieces = split_concat(v, data, ctx)
    for i, (p, piece) in enumerate(zip(parts, pieces)):
        if covers_previous(p):
            continue  # verified before the part before it was read
        if i + 1 < len(parts) and covers_previous(parts[i + 1]):
            _verify_mac_of_previous(parts[i + 1], p, piece, pieces[i + 1], ctx)
        _parse(p, piece, ctx, {})


def _verify_mac_of_previous(m: Value, covered: Value, piece: bytes, code: bytes, ctx: Context) -> None:
    """Mac `m` (of = "previous"), which came as `code`, over part `covered`'s bytes as they came: Refused (kind
    authentication, as a json mac's refusal) unless it is the code under its secret, compared whole and in
    constant time (split_concat gave it the code's fixed length)."""
    got = decode(code, m.encoding, f"the {m.algorithm}")
    if not pyhmac.compare_digest(got, mac(m.algorithm, cipher_key(ctx, m.arg), piece)):
        raise Refused(f"the {m.algorithm} after {covered.path} does not verify over it (wrong key or tampered)",
                      kind="authentication")


def split_concat(v: Value, data: bytes, ctx: Context) -> list[bytes]:
    """A concat's bytes cut into its parts' as its receiver cuts them, left to right: a part of known length
    takes that many bytes; a length_of = "next" takes its `bytes` and tells the next part's length (big-endian,
    as struct.unpack("!I", ...) reads ProPorygon/TheOgreProtocol's prefix), which that part then takes; the one
    part of unknown length that no length_of tells takes what is left but the known lengths of the parts after
    it (the description allows one, and no told part after it: description._check_concat). The parts must use
    up the message exactly. Refused otherwise."""
    parts: tuple[Value, ...] = v.arg
    lengths = [known_length(p, ctx) for p in parts]
    told = told_parts(parts)
    pieces: list[bytes] = []
    pos, stated = 0, 0
    for i, p in enumerate(parts):
        left, known = len(data) - pos, lengths[i]
        if i in told:
            n = stated
            if n > left:
                raise Refused(f"the length field says {n} bytes; only {left} are left")
            if known is not None and n != known:
                raise Refused(f"the length field says {n} bytes; {p.path} is {known}")
        elif known is not None:
            n = known
            if n > left:
                raise Refused(f"message too short: {len(data)} bytes")
        else:
            after = [length for length in lengths[i + 1:] if length is not None]
            if len(after) < len(parts) - i - 1 or any(j > i for j in told):
                # (the description refuses such a concat: description._check_concat; a receiver never guesses)
                raise Refused(f"{p.path} cannot be found: a part after it has no known length")
            n = left - sum(after)
            if n < 0:
                raise Refused(f"message too short: {len(data)} bytes")
        piece = data[pos:pos + n]
        if tells_next(p):
            stated = int.from_bytes(piece, "big")
        pieces.append(piece)
        pos += n
    if pos != len(data):
        raise Refused(f"{len(data) - pos} unexpected bytes after the message")
    return pieces


def _form_fields(data: Any) -> dict[str, str]:
    """name=value&... as a form reader takes it ("+" a space, %XX a byte, UTF-8); each name once."""
    try:
        pairs = urllib.parse.parse_qsl(bytes(data).decode("utf-8"), keep_blank_values=True, strict_parsing=False,
                                       errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise Refused(f"expected form fields (name=value&..., URL-encoded UTF-8), got {_show(bytes(data))}") from None
    fields: dict[str, str] = {}
    for name, value in pairs:
        if name in fields:
            raise Refused(f"the form field {name!r} is given twice")
        fields[name] = value
    return fields


def _parse_json(v: Value, doc: JsonObj, ctx: Context, container: str = "JSON field") -> None:
    scratch: dict[str, dict[str, bytes]] = {}
    for name, f in v.arg:
        if name not in doc:
            raise Refused(f"the {container} {name!r} is missing",
                          status=401 if f.kind in ("token", "config") else None)
    for name, f in v.arg:  # IVs, tags and MACs first: the sealed values need them, a MAC is checked before opening
        if f.kind in SIBLING_REFERENCES:
            if not isinstance(doc[name], str):
                raise Refused(f"field {name!r} must be a string")
            raw = decode(doc[name].encode("utf-8", "surrogateescape"), f.encoding, f"field {name!r}")
            if f.kind in ("mac", "signature"):  # over the covered field's text as sent
                covered = doc.get(f.of)
                if not isinstance(covered, str):
                    raise Refused(f"the {container} {f.of!r} is missing or not a string")
                text = covered.encode("utf-8", "surrogateescape")
                if f.kind == "mac" and not pyhmac.compare_digest(raw, mac(f.algorithm, cipher_key(ctx, f.arg), text)):
                    raise Refused(f"the {f.algorithm} in field {name!r} does not verify over field {f.of!r} (wrong key or "
                                  "tampered)", kind="authentication")
                if f.kind == "signature":
                    key = ctx.public_keys.get(f.arg)
                    if key is None:
                        raise Refused(f"key {f.arg!r}'s public half has not arrived")
                    if not verified(key, raw, text, f.format):
                        raise Refused(f"the {f.algorithm} signature in field {name!r} does not verify over field {f.of!r} with "
                                      f"key {f.arg!r} (wrong key, tampered, or not {f.format})", kind="authentication")
                continue
            scratch.setdefault(name, {})["iv" if f.kind == "nonce_of" else "tag"] = raw
    for name, f in v.arg:
        if f.kind in SIBLING_REFERENCES:
            continue
        value = doc[name]
        native = f.kind == "json" or (f.kind == "public_key" and f.format in ("json-ne", "jwk") and f.encoding == "raw")
        if native:
            if not isinstance(value, dict):
                raise Refused(f"field {name!r} must be a JSON object")
            _parse(f, value, ctx, scratch)
        else:
            if not isinstance(value, str):
                raise Refused(f"field {name!r} must be a string", status=401 if f.kind in ("token", "config") else None)
            _parse(f, value.encode("utf-8", "surrogateescape"), ctx, scratch)


def _parse_sealed(v: Value, data: bytes, ctx: Context, scratch: dict[str, dict[str, bytes]]) -> None:
    key = cipher_key(ctx, v.arg)
    if v.cipher == "fernet":
        accept(v.carries, open_sealed(v, key, data, b"", b""), ctx, v.carries_as, v.fields)
        return
    body = decode(data, v.encoding, "the sealed value")
    iv_len = IV_BYTES.get(v.cipher, 0)
    if v.separator:
        body = _unseparated(v, body)  # the IV and tag parts now of their lengths: the slicing below is exact
    if v.iv == "prefix":
        if len(body) < iv_len:
            raise Refused(f"sealed value of {len(body)} bytes is shorter than its IV")
        iv, body = body[:iv_len], body[iv_len:]
    elif v.iv.startswith("field:"):
        iv = scratch.get(v.iv[6:], {}).get("iv", b"")
    elif v.iv.startswith("fixed:"):
        iv = bytes.fromhex(v.iv[6:])
    elif v.iv.startswith("secret:"):
        if v.iv[7:] not in ctx.secrets:
            raise Refused(f"secret {v.iv[7:]!r}, the IV, has not arrived")
        iv = ctx.secrets[v.iv[7:]]
    else:
        iv = b""
    if v.iv.startswith(("fixed:", "secret:")):
        iv_len = len(iv)  # an aes-gcm fixed nonce may be 8 to 128 bytes; the reader checked both
    if v.cipher in IV_BYTES and len(iv) != iv_len:
        raise Refused(f"{v.cipher} IV/nonce is {len(iv)} bytes; must be {iv_len}")
    tag = b""
    if v.tag == "appended":
        if len(body) < TAG_BYTES:
            raise Refused("sealed value shorter than its tag")
        body, tag = body[:-TAG_BYTES], body[-TAG_BYTES:]
    elif v.tag == "before":
        if len(body) < TAG_BYTES:
            raise Refused("sealed value shorter than its tag")
        tag, body = body[:TAG_BYTES], body[TAG_BYTES:]
    elif v.tag.startswith("field:"):
        tag = scratch.get(v.tag[6:], {}).get("tag", b"")
    accept(v.carries, open_sealed(v, key, body, iv, tag), ctx, v.carries_as, v.fields)


def _unseparated(v: Value, body: bytes) -> bytes:
    """A separated sealed value's parts joined as an unseparated one's (the reading below takes them
    apart by length): split on the separator, the count and each IV and tag part's length checked."""
    sep = v.separator.encode("utf-8")
    names = wire_parts(v.cipher, v.iv, v.tag)
    pieces = body.split(sep)
    if len(pieces) != len(names):
        raise Refused(f"the {v.cipher} value splits into {len(pieces)} parts on {_quoted(v.separator)}; the "
                      f"description has {len(names)} (a part that contains the separator cannot be read)", kind="length")
    for name, piece in zip(names, pieces):
        if name == "iv" and len(piece) != IV_BYTES[v.cipher]:
            raise Refused(f"the {v.cipher} IV/nonce part is {len(piece)} bytes; must be {IV_BYTES[v.cipher]}",
                          kind="length")
        if name == "tag" and len(piece) != TAG_BYTES:
            raise Refused(f"the {v.cipher} tag part is {len(piece)} bytes; must be {TAG_BYTES}", kind="length")
    return b"".join(pieces)


def check_stated_length(ctx: Context) -> None:
    """A length_of value's length against the message, once both have arrived."""
    message = ctx.received.get("message")
    if ctx.stated_length is not None and isinstance(message, bytes) and ctx.stated_length != len(message):
        raise Refused(f"the length field says {ctx.stated_length} bytes; the message has {len(message)}")
