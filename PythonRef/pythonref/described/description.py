"""A protocol description (docs/PROTOCOL-DESCRIPTIONS.md) loaded from TOML and checked in full.

`load(path)` returns frozen dataclasses or raises `DescriptionError(path, message)`, where `path`
is the dotted key path (`conversation[0].step[2].send.padding`) and the message says what is
allowed. Everything a run could trip over later is refused here, before any connection: unknown
keys, wrong types, and descriptions that cannot work (a walk through each conversation tracks
who knows which key and secret).
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional, Union

NAME_RE = re.compile(r"[a-z0-9-]+\Z")
ROLES = ("client", "server")
KINDS = ("tcp", "http", "https")
FRAMINGS = ("legacy", "length-prefix", "line", "close")
BITS = (1024, 2048, 3072, 4096)
# A toy RSA key (rsa_keys.TOY_BITS): n of 8 to 15 bits, for padding = "per-character" values only, as
# dianaxime/Lab6-Cifrado-PublicKeyEncription's rsa.py makes one (p, q = getPrime(5): a 10-bit n).
TOY_BITS = tuple(range(8, 16))
TOY_KEY_USE = 'bits 8 to 15 make a toy key, which only padding = "per-character" values use'
SECRET_BYTES = (8, 12, 16, 24, 32)  # 8 and 12: a nonce sent alone (iv = "secret:NAME"), never a key
DERIVES = ("raw", "utf8-zeropad16", "sha256", "passphrase-sha256", "passphrase-sha256-128")
PASSPHRASE_KEY_BYTES = {"passphrase-sha256": 32, "passphrase-sha256-128": 16}  # a text passphrase hashed to the key
TEXT_DERIVES = ("utf8-zeropad16", *PASSPHRASE_KEY_BYTES)  # the secret is text: letters and digits when made fresh
VALUE_KINDS = ("text", "concat", "public_key", "rsa", "sealed", "secret", "digest", "json", "config", "token",
               "nonce_of", "tag_of", "plain", "length_of", "form", "mac", "signature", "starts_with", "repeat",
               "pickle")
ERROR_THEN = ("close", "keep-open")  # a tcp conversation's error_then: after its error, the server closes or reads on
MAC_ALGORITHMS = ("cmac-aes", "hmac-sha256")  # mac: AES-CMAC (RFC 4493), HMAC-SHA256 (RFC 2104)
MAC_BYTES = {"cmac-aes": 16, "hmac-sha256": 32}  # a code's length: AES's block (RFC 4493 §2.4), SHA-256's (RFC 2104)
# mac of = "previous": in a concat, over the raw bytes, as sent, of the part just before it (encrypt-then-MAC):
# wenyupeng/securex's secure_channel.py sends nonce + ct + tag, ct = AESGCM(aes_key).encrypt(nonce, pt, None) and tag
# = HMAC-SHA256(hmac_key, nonce + ct), and its decrypt verifies the HMAC (h.verify) before AESGCM decrypts.
MAC_OF_PREVIOUS = "previous"
MAC_PREVIOUS_ENCODINGS = ("raw", "hex", "base64", "base64url")
SIGNATURE_ALGORITHMS = ("ecdsa-sha256",)  # signature: ECDSA (FIPS 186-5 §6.4) over SHA-256 of the covered text
SIGNATURE_FORMATS = ("der", "raw")  # X9.62 ECDSA-Sig-Value DER, or r || s (IEEE P1363, PyCryptodome's 'fips-186-3')
# ec-p256, ec-p384: NIST P-256 and P-384 (SEC 2 §2.4.2, §2.5.1), P-256 for signature values, both for
# agreement secrets; x25519: RFC 7748 §5, for agreement secrets.
KEY_TYPES = ("rsa", "ec-p256", "ec-p384", "x25519")
EC_KEY_TYPES = ("ec-p256", "ec-p384")
AGREEMENT_KEY_TYPES = (*EC_KEY_TYPES, "x25519")
KEY_BITS = {"ec-p256": 256, "ec-p384": 384, "x25519": 256}  # the curve's size (X25519: its 32-byte keys)
SHARED_SECRET_BYTES = {"ec-p256": 32, "ec-p384": 48, "x25519": 32}  # ECDH's x-coordinate (SEC 1 §3.3.1); RFC 7748 §6.1
# How the shared secret becomes the secret's bytes: HKDF (RFC 5869), ANSI X9.63 (SEC 1 §3.6.1), or itself.
AGREEMENT_KDFS = ("hkdf-sha256", "hkdf-sha384", "x963-sha256", "none")
AGREEMENT_BYTES = (16, 24, 32)
# skip: the KDF's first bytes dropped, the secret then bytes skip..skip+bytes of its output. RFC 5869 §2.3: HKDF's
# OKM is the first L octets of T(1) | T(2) | ..., so one derive of L = skip + bytes holds it (SEC 1 v2 §3.6.1
# likewise for X9.63's K1 ‖ K2 ‖ ..., Ki = Hash(Z ‖ Counter ‖ SharedInfo)). wenyupeng/securex's key_exchange.py
# derives HKDF(SHA256(), length=64, salt=None, info=b"SecureX-v1") once: its AES key the first 32 bytes, its
# HMAC key the last 32.
AGREEMENT_MAX_SKIP = 4096
AGREEMENT_DERIVES = ("raw", "sha256")
# Fields of a json or form written from, and read for, a sibling field: its IV or tag, a MAC or a signature over its text.
SIBLING_REFERENCES = ("nonce_of", "tag_of", "mac", "signature")
LENGTH_FIELD_BYTES = (1, 2, 4)  # length_of: a byte length, big-endian in this many bytes
# length_of = "message": the conversation's message's byte length; "next": inside a concat, the byte length of the
# part right after it as sent, as ProPorygon/TheOgreProtocol's utils.send_message_with_length_prefix writes
# struct.pack("!I", len(message)) + message (Python's struct module: "!" is network order, big-endian).
LENGTH_OF = ("message", "next")
KEY_FORMATS = ("pem-spki", "pem-spki-newline", "pem-pkcs1", "der-spki", "der-pkcs1", "json-ne", "jwk")  # an RSA key's
# An EC key's public half: SubjectPublicKeyInfo, or the point (SEC 1 v2 §2.3.3): 04||X||Y, 02/03||X, or X||Y
# (CryptoKit's rawRepresentation). An X25519 key's: SubjectPublicKeyInfo or its 32 bytes (RFC 7748 §5).
EC_KEY_FORMATS = ("pem-spki", "pem-spki-newline", "der-spki", "x962", "x962-compressed", "raw")
X25519_KEY_FORMATS = ("pem-spki", "pem-spki-newline", "der-spki", "raw")
PUBLIC_KEY_FORMATS = (*KEY_FORMATS, "x962", "x962-compressed", "raw")
# An RSA key's formats by what they are on the wire: a public_key's also_accepts stays on its format's side,
# so the value's length, encoding and place in a JSON or form hold whichever format came.
TEXT_KEY_FORMATS = ("pem-spki", "pem-spki-newline", "pem-pkcs1", "json-ne", "jwk")
BINARY_KEY_FORMATS = ("der-spki", "der-pkcs1")
RSA_PADDINGS = ("pkcs1", "oaep-sha1", "oaep-sha256", "none", "per-character")
# none: textbook RSA, RSAEP/RSADP (RFC 8017 §5.1.1, §5.1.2) with OS2IP/I2OSP (§4.2, §4.1) and no padding, as
# PyCrypto 2.x's _RSAobj.encrypt(m, K) / decrypt(c). Its sender sends long_to_bytes(c), which drops leading zero
# bytes, so the ciphertext has no known length; the plaintext is 1 to k-1 bytes not starting with 0x00.
# per-character: RSAEP/RSADP (RFC 8017 §5.1.1, §5.1.2) of each character's code point alone with a toy key, the
# ciphertext characters sent as UTF-8, as dianaxime/Lab6-Cifrado-PublicKeyEncription's rsa.py does
# (chipertext += chr(E(ord(c), public)), E(m) = m**e % n; decrypt chr(D(ord(i), private))). Text only.
PER_CHARACTER_CARRIES = ("message", "any-text")  # and "text:TEXT": UTF-8 text payloads
PER_CHARACTER_MAX = 128  # what a per-character value states is below 2^7, the least n an 8-bit key can have
PER_CHARACTER_BELOW = ("per-character RSA with a toy key carries characters below 128 (the smallest n of an "
                       "8-bit key)")
# offset: NithinYesudas/Networking_Lab_Python's rsa_server.py encrypts ord(c) - ord('A') (chr(pow(ord(c) -
# ord('A'), e, n))) and its rsa_client.py adds it back (chr(pow(ord(c), d, n) + 65)): each code point less
# `offset` is what RSAEP takes, so the characters carried run from offset to below offset + n.
MAX_OFFSET = 0x10FFFF  # the last code point (Unicode §3.9, D9)
# pickle: a Python pickle of a tuple of ints and strs, as CPython's pickle.dumps(t, protocol=4) writes one
# (Lib/pickle.py, Modules/_pickle.c; PEP 3154): NithinYesudas/Networking_Lab_Python's rsa_client.py sends
# pickle.dumps((e, n, msg)), its toy key's public half and its message, and rsa_server.py reads it with
# pickle.loads. An item is a key's e or n (a Python int) or a text value (a Python str of its UTF-8).
PICKLE_ITEM_KINDS = ("public_key", "text", "plain", "config", "token")
PICKLE_KEY_FORMATS = ("e", "n")  # a public_key item: the key's public exponent or modulus (RFC 8017 §3.1)
PICKLE_MAX_ITEMS = 8
PICKLE_ITEM_USE = "a pickle item is a key's e or n, or text: text, plain, config, token"
# aes-cfb: CFB with 128-bit segments (SP 800-38A §6.3; pyca modes.CFB, CommonCrypto kCCModeCFB); aes-cfb8:
# 8-bit segments (pyca modes.CFB8; PyCryptodome's AES.MODE_CFB by default, its segment_size being 8).
# aes-eax: PyCryptodome's AES.MODE_EAX with its defaults (a 16-byte nonce and tag, no header); eax.py.
CIPHERS = ("aes-cbc", "aes-ctr", "aes-cfb", "aes-cfb8", "aes-gcm", "aes-ecb", "chacha20-poly1305", "aes-eax", "fernet",
           "chacha20", "salsa20")
SYM_PADDINGS = ("pkcs7", "zero", "pkcs7-32", "space", "sequence")
CARRIES_AS = ("raw", "base64", "base64url", "base64url-padded", "hex")
# latin1: each byte as U+0000..U+00FF, in UTF-8. python2-tuple: the text Python 2 writes for str((data,)), data a
# Python 2 str: "(" + repr(data) + ",)" (PyCrypto's encrypt returns a one-tuple, sent as str(pub.encrypt(m, 32))).
ENCODINGS = ("raw", "base64", "base64url", "hex", "utf8", "latin1", "python2-tuple")
UNSIZED_ENCODINGS = ("latin1", "python2-tuple")  # their length does not follow from the bytes' length
CONFIG_NAMES = ("username", "password")
TOKEN_KINDS = ("new", "issued")
IV_BYTES = {"aes-cbc": 16, "aes-ctr": 16, "aes-cfb": 16, "aes-cfb8": 16, "aes-gcm": 12, "chacha20-poly1305": 12, "aes-eax": 16,
            "chacha20": 16,  # chacha20: OpenSSL's (and pyca's) 4-byte little-endian counter, then the 12-byte nonce
            "salsa20": 8}  # salsa20: PyCryptodome's Salsa20.new(key, nonce) nonce
AEAD = ("aes-gcm", "chacha20-poly1305", "aes-eax")
# The lengths of an aes-gcm `fixed:` nonce, in bytes (pyca's GCM range); a fresh one is 12.
GCM_FIXED_NONCE_BYTES = (8, 128)
UNAUTHENTICATED = ("aes-cbc", "aes-ctr", "aes-cfb", "aes-cfb8", "aes-ecb", "chacha20", "salsa20")  # no MAC: a changed ciphertext opens
CARRIES = ("message", "json-message", "json-fields", "any-text", "echo", "same")  # and "text:TEXT", "secret:NAME"
FIELD_TYPES = ("number", "integer", "string")  # the JSON types a json-fields plaintext's fields have
# A json-fields field { secret = "S", encoding = ... }: a JSON string of secret S's bytes so written (base64 with
# padding, base64url without, base64url-padded, hex lowercase). Held in Value.fields as "secret:ENCODING:S".
FIELD_SECRET_ENCODINGS = ("base64", "base64url", "base64url-padded", "hex")
SEPARATOR_MAX_BYTES = 16  # a sealed value's `separator`: 1 to this many UTF-8 bytes between its wire parts
REFUSAL_KINDS = ("length", "padding", "authentication")  # a conversation's `errors` keys: Refused.kind
MAX_MESSAGE = 16777216

_QUALIFIERS: dict[str, tuple[str, ...]] = {
    "text": (), "concat": (), "json": (), "config": (), "starts_with": (), "repeat": (), "pickle": (),
    "public_key": ("format", "also_accepts", "encoding"),
    "rsa": ("padding", "offset", "carries", "carries_as", "fields", "encoding"),
    "sealed": ("cipher", "padding", "iv", "tag", "separator", "carries", "carries_as", "fields", "encoding"),
    "secret": ("encoding",), "digest": ("of", "encoding"), "token": (),
    "nonce_of": ("encoding",), "tag_of": ("encoding",), "plain": ("encoding",), "length_of": ("bytes",), "form": (),
    "mac": ("algorithm", "of", "encoding"),
    "signature": ("algorithm", "of", "format", "encoding"),
}


class DescriptionError(Exception):
    """A description that cannot be used: `path` is the dotted key path, `message` what to do,
    `line` the key's line in the file when it was read from text."""

    def __init__(self, path: str, message: str, line: Optional[int] = None) -> None:
        where = f"{path} (line {line})" if line is not None else path
        super().__init__(f"{where}: {message}" if path else message)
        self.path = path
        self.message = message
        self.line = line


# ---- the model -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Value:
    """One value: `kind` and its argument (a str; for concat and pickle a tuple of Values; for json a tuple
    of (field, Value)), plus the qualifiers that apply (defaults filled in)."""

    kind: str
    arg: Any
    path: str
    format: str = "pem-spki"
    encoding: str = "raw"
    padding: str = ""
    carries: str = ""
    carries_as: str = "raw"  # a carried secret's bytes written as text (raw, base64url with padding, base64, hex)
    fields: tuple[tuple[str, str], ...] = ()  # carries = "json-fields": (name, its JSON type or "secret:ENC:S"), in order
    cipher: str = ""
    iv: str = ""
    tag: str = ""
    separator: str = ""  # sealed: the text between its wire parts (IV, tag, ciphertext), "" for none
    length_bytes: int = 4  # length_of: the field's width
    algorithm: str = ""  # mac, signature
    of: str = ""  # mac, signature: the sibling field whose text it covers
    also_accepts: tuple[str, ...] = ()  # public_key: formats its receiver tries after `format`, in order
    offset: int = 0  # rsa, per-character: taken from each code point before RSAEP, added back after RSADP


def wire_parts(cipher: str, iv: str, tag: str) -> tuple[str, ...]:
    """A sealed value's parts on the wire in their order: "iv" (a prefix IV), "tag" (an AEAD's, before
    or appended) and "ciphertext". A `separator` goes between them."""
    before = ("iv",) if iv == "prefix" else ()
    if cipher in AEAD and tag == "before":
        before += ("tag",)
    return before + ("ciphertext",) + (("tag",) if cipher in AEAD and tag == "appended" else ())


def field_secret(kind: str) -> Optional[tuple[str, str]]:
    """A json-fields field's kind "secret:ENCODING:S" as (S, ENCODING); None for a JSON type."""
    if not kind.startswith("secret:"):
        return None
    encoding, _, name = kind[7:].partition(":")
    return name, encoding


@dataclass(frozen=True)
class Transport:
    kind: str
    framing: str = "legacy"
    length_bytes: int = 4
    line_end: bytes = b"\n"
    max_message: int = 65536
    port: Optional[int] = None

    @property
    def is_http(self) -> bool:
        return self.kind in ("http", "https")


@dataclass(frozen=True)
class KeySpec:
    name: str
    holder: str
    bits: int = 2048  # EC and X25519 keys: their curve's (KEY_BITS)
    preshared: bool = False
    type: str = "rsa"


@dataclass(frozen=True)
class SecretSpec:
    name: str
    made_by: str
    bytes: int = 32
    derive: str = "raw"
    chars: int = 12
    # made_by = "agreement": the two [keys] (one per holder), the KDF and its salt and info.
    keys: tuple[str, ...] = ()
    kdf: str = ""
    salt: bytes = b""
    info: bytes = b""
    skip: int = 0  # the KDF's first bytes dropped: the secret is bytes skip..skip+bytes of its output

    @property
    def key_bytes(self) -> int:
        """The length of the cipher key the secret becomes."""
        return 32 if self.derive == "sha256" else PASSPHRASE_KEY_BYTES.get(self.derive, self.bytes)


@dataclass(frozen=True)
class Step:
    index: int
    sender: str
    send: Optional[Value] = None  # tcp
    method: str = ""  # http client steps
    target: str = ""
    headers: tuple[tuple[str, Value], ...] = ()  # names lowercase
    status: int = 200  # http server steps
    body: Optional[Value] = None
    close: bool = False
    query: Optional[Value] = None  # http client steps: a form value, the query string

    def tops(self) -> tuple[Value, ...]:
        """The step's values as written: its message or body, its query and its headers."""
        return tuple(v for v in (self.send, self.body, self.query, *(h for _, h in self.headers)) if v is not None)


@dataclass(frozen=True)
class Conversation:
    name: str
    steps: tuple[Step, ...]
    message: Optional[bytes] = None
    error: Optional[Value] = None
    error_status: int = 400
    errors: tuple[tuple[str, Value], ...] = ()  # tcp: (refusal kind, its answer) where it is not `error`
    # http(s): (refusal kind, its status, its constant body or None) where it is not error_status
    http_errors: tuple[tuple[str, int, Optional[Value]], ...] = ()
    error_then: str = "close"  # tcp: after its error the server closes, or ("keep-open") reads on

    def error_for(self, kind: Optional[str]) -> Optional[Value]:
        """The answer to a refusal of `kind` (REFUSAL_KINDS, or None): `errors.<kind>`, else `error`."""
        return dict(self.errors).get(kind, self.error) if kind is not None else self.error


@dataclass(frozen=True)
class Description:
    name: str
    transport: Transport
    conversations: tuple[Conversation, ...]
    keys: tuple[KeySpec, ...] = ()
    secrets: tuple[SecretSpec, ...] = ()
    summary: str = ""
    source: str = ""

    def key(self, name: str) -> KeySpec:
        return next(k for k in self.keys if k.name == name)

    def secret(self, name: str) -> SecretSpec:
        return next(s for s in self.secrets if s.name == name)

    @property
    def textbook_raw_secrets(self) -> frozenset[str]:
        """The secrets some textbook RSA value carries as their raw bytes (padding = "none", carries =
        "secret:S", no carries_as, S not a text secret). OS2IP (RFC 8017 §4.2) makes the plaintext an integer,
        and the receiver's I2OSP back to minimal bytes (PyCrypto's long_to_bytes) drops a leading 0x00: the
        maker of such a secret draws it again while its first byte is 0x00 (values.new_secret)."""
        return frozenset(name for v in self._values() if (name := _textbook_raw_secret(v, self.secrets)) is not None)

    def _values(self) -> list[Value]:
        """Every value of every step, nested ones included, in order."""
        return [v for conv in self.conversations for step in conv.steps for top in step.tops() for v in _walk(top)]

    def weaknesses(self) -> list[str]:
        """What the description itself makes weak, for reports (the spec's "weak: reported")."""
        out = [f"key {k.name!r} is 1024 bits" for k in self.keys if k.type == "rsa" and k.bits == 1024]
        out += [f"secret {s.name!r} is a short string zero-padded to a key (utf8-zeropad16)"
                for s in self.secrets if s.derive == "utf8-zeropad16"]
        out += [f"secret {s.name!r} is a passphrase hashed to a key ({s.derive}): no salt, no work factor"
                for s in self.secrets if s.derive in PASSPHRASE_KEY_BYTES]
        seen: set[str] = set()
        values = self._values()
        # Sealed fields a sibling mac covers are authenticated (encrypt-then-MAC).
        mac_covered = {w.path for v in values for _, covered in _macs(v) for w in _walk(covered)}
        for v in values:
            if v.kind == "sealed" and v.iv.startswith("fixed:"):
                seen.add(f"{v.path}: a fixed IV/nonce")
            macs = _macs(v)
            for mac, covered in macs:
                if (covered.kind == "sealed" and covered.iv.startswith("field:")
                        and covered.iv[6:] not in {m.of for m, _ in macs}):
                    seen.add(f"{mac.path}: the {mac.algorithm} covers field {mac.of!r} but not its IV in field "
                             f"{covered.iv[6:]!r}: a changed IV changes the first plaintext block undetected")
            if v.kind == "sealed" and v.iv == f"secret:{v.arg}":
                seen.add(f"{v.path}: the IV is the key")
            elif v.kind == "sealed" and v.iv.startswith("secret:") and any(
                    s.name == v.iv[7:] and s.made_by == "preshared" for s in self.secrets):
                seen.add(f"{v.path}: a fixed IV/nonce (a preshared secret)")
            if v.kind == "sealed" and v.cipher == "aes-ecb":
                seen.add(f"{v.path}: aes-ecb shows equal blocks")
            if v.kind == "rsa" and v.padding == "none":  # the Swift engine's wording
                seen.add(f"{v.path}: RSA to key {v.arg} with no padding (textbook RSA, RFC 8017 §5.1.1): "
                         "deterministic, and malleable (c·sᵉ decrypts to m·s)")
            raw_secret = _textbook_raw_secret(v, self.secrets)
            if raw_secret is not None:  # the Swift engine's wording
                seen.add(f"{v.path}: textbook RSA of raw secret {raw_secret} (RFC 8017 §4.2: one secret in 256 begins "
                         "with 0x00, which the receiver's integer drops; crosscheck's sender draws another)")
            if v.kind == "rsa" and v.padding == "per-character":  # the Swift engine's wording
                seen.add(f"{v.path}: RSA to key {v.arg} per character with a toy key of {self.key(v.arg).bits} bits "
                         "(each character encrypted alone: a substitution table, read by factoring n or trying each "
                         "character)")
            if v.kind == "pickle":  # the Swift engine's wording
                seen.add(f"{v.path}: a Python pickle (a server that reads it with pickle.loads runs whatever code a "
                         "client sends)")
            if v.kind == "sealed" and v.cipher in UNAUTHENTICATED and v.path not in mac_covered:
                seen.add(f"{v.path}: {v.cipher} is not authenticated")
            if v.kind == "sealed" and v.tag == "none":
                seen.add(f"{v.path}: {v.cipher} without its tag is not authenticated")
            if v.kind == "sealed" and v.separator:
                said = json.dumps(v.separator, ensure_ascii=False)
                seen.add(f"{v.path}: the IV, tag and ciphertext are random bytes joined by {said}: parts that hold it, "
                         "or end so that they meet it, do not split back, so a sender that does not seal again "
                         'loses correct messages (with "::", about one in 120: a part that ends with ":"); '
                         "lengths known in advance cannot fail so")
        # Two sealed values under one key with one IV taken from a secret: the same key and IV twice.
        for conv in self.conversations:
            first: dict[tuple[str, str], str] = {}
            for v in (w for step in conv.steps for top in step.tops() for w in _walk(top)):
                if v.kind == "sealed" and v.iv.startswith("secret:"):
                    pair = (v.arg, v.iv[7:])
                    if pair in first:
                        seen.add(f"{v.path}: secret {v.arg!r} with IV secret {v.iv[7:]!r} again, as at {first[pair]}: "
                                 "the same key and IV twice")
                    else:
                        first[pair] = v.path
        # A server that answers in the clear the message a client sent it encrypted is a decryption
        # oracle: whoever replays a recorded ciphertext reads its plaintext.
        for conv in self.conversations:
            sent_encrypted = False
            for step in conv.steps:
                for v in (w for top in step.tops() for w in _walk(top)):
                    if step.sender == "client" and v.kind in ("rsa", "sealed") and v.carries in ("message", "json-message"):
                        sent_encrypted = True
                    elif step.sender == "server" and v.kind == "plain" and sent_encrypted:
                        seen.add(f"{v.path}: the server answers in the clear the message the client sent encrypted: "
                                 "a decryption oracle")
        return out + sorted(seen)

    def conversation(self, name: str) -> Conversation:
        for c in self.conversations:
            if c.name == name:
                return c
        raise DescriptionError("conversation", f"no conversation named {name!r}; there are "
                               f"{', '.join(c.name for c in self.conversations)}")


# ---- reading TOML tables strictly ----------------------------------------------------------------


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _unknown_keys(table: dict[str, Any], allowed: tuple[str, ...], path: str) -> None:
    for key in table:
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; allowed here: {', '.join(allowed)}"
            raise DescriptionError(_join(path, key), f"unknown key {key!r}{hint}")


def _type_name(value: object) -> str:
    return {str: "a string", int: "an integer", bool: "a boolean", dict: "a table", list: "an array",
            float: "a float"}.get(type(value), type(value).__name__)


def _get(table: dict[str, Any], key: str, kind: type, path: str, default: Any = None, required: bool = False) -> Any:
    if key not in table:
        if required:
            raise DescriptionError(_join(path, key), f"{key} is required; add it")
        return default
    value = table[key]
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        want = _type_name(kind() if kind is not list else [])
        raise DescriptionError(_join(path, key), f"{key} must be {want}; found {_type_name(value)} {value!r}")
    return value


def _choice(table: dict[str, Any], key: str, allowed: tuple[Any, ...], path: str, default: Any = None,
            required: bool = False) -> Any:
    if key not in table and not required:
        return default
    value = _get(table, key, type(allowed[0]), path, default, required)
    if value not in allowed:
        shown = ", ".join(str(a) if isinstance(a, int) else f'"{a}"' for a in allowed)
        raise DescriptionError(_join(path, key), f"{key} must be one of {shown}; found {value!r}")
    return value


# ---- values --------------------------------------------------------------------------------------


def _value(raw: object, path: str, in_json: bool = False, in_pickle: bool = False, in_concat: bool = False) -> Value:
    if not isinstance(raw, dict):
        raise DescriptionError(path, f"a value must be an inline table such as {{ text = \"...\" }}; "
                               f"found {_type_name(raw)} {raw!r}")
    kinds = [k for k in raw if k in VALUE_KINDS]
    if len(kinds) != 1:
        if not kinds:
            _unknown_keys({k: None for k in raw}, VALUE_KINDS, path)
            raise DescriptionError(path, f"a value needs one kind key: {', '.join(VALUE_KINDS)}")
        raise DescriptionError(path, f"a value has exactly one kind key; found {', '.join(kinds)}")
    kind = kinds[0]
    _unknown_keys(raw, (kind,) + _QUALIFIERS[kind], path)
    kpath = _join(path, kind)
    if kind == "concat":
        parts = _get(raw, "concat", list, path)
        if not parts:
            raise DescriptionError(kpath, "concat needs at least one part")
        v = Value("concat", tuple(_value(p, f"{kpath}[{i}]", in_concat=True) for i, p in enumerate(parts)), path)
        for part in v.arg:
            if part.kind == "repeat":
                _not_whole(part.path)
        _check_concat(v, None)
    elif kind == "pickle":
        if in_json:
            raise DescriptionError(kpath, "a pickle is binary; it cannot be a JSON or form field")
        v = _pickle(_get(raw, "pickle", list, path), path)
    elif kind in ("json", "form"):
        if kind == "form" and in_json:
            raise DescriptionError(kpath, "a form cannot be a field; it is a body or a query")
        fields = _get(raw, kind, dict, path)
        if not fields:
            raise DescriptionError(kpath, f"{kind} needs at least one field")
        v = Value(kind, tuple((name, _value(f, _join(kpath, name), in_json=True)) for name, f in fields.items()),
                  path)
        for w in (w for _, f in v.arg for w in _walk(f)):
            if tells_next(w):  # in a concat that is a field: its text is the field's, not bytes before bytes
                raise DescriptionError(_join(w.path, "length_of"), 'length_of = "next" is raw bytes before the next '
                                       "part of a concat; it cannot be a JSON or form field")
        if kind == "form":
            for name, f in v.arg:
                if f.kind in ("json", "form") or (f.kind == "public_key" and f.format in ("json-ne", "jwk")
                                                  and f.encoding == "raw"):
                    raise DescriptionError(_join(kpath, name), "a form field is text: a value with an encoding, "
                                           "not a JSON object or form")
        _check_json_siblings(v)
    else:
        arg = _get(raw, kind, str, path)
        v = _leaf(kind, arg, raw, path, in_json, in_pickle, in_concat)
        if tells_next(v) and not in_concat:
            raise DescriptionError(kpath, 'length_of = "next" is the byte length of the next part of a concat: put it '
                                   "in a concat, directly before the part whose length it tells")
    return v


def _pickle(items: list[Any], path: str) -> Value:
    """pickle = [item, ...]: 1 to PICKLE_MAX_ITEMS items of PICKLE_ITEM_KINDS, and each key whose e or n it
    holds with both, once each (its receiver learns the key from them)."""
    kpath = _join(path, "pickle")
    if not 1 <= len(items) <= PICKLE_MAX_ITEMS:
        raise DescriptionError(kpath, f"a pickle holds 1 to {PICKLE_MAX_ITEMS} items; found {len(items)}")
    values: list[Value] = []
    for i, item in enumerate(items):
        ipath = f"{kpath}[{i}]"
        kinds = [k for k in item if k in VALUE_KINDS] if isinstance(item, dict) else []
        if len(kinds) == 1 and kinds[0] not in PICKLE_ITEM_KINDS:
            raise DescriptionError(ipath, PICKLE_ITEM_USE)
        values.append(_value(item, ipath, in_pickle=True))
    for name in dict.fromkeys(p.arg for p in values if p.kind == "public_key"):
        held = [p.format for p in values if p.kind == "public_key" and p.arg == name]
        if sorted(held) != list(PICKLE_KEY_FORMATS):
            raise DescriptionError(kpath, f"a pickle holds key {name!r}'s e and n once each (its receiver learns the "
                                   f"key from them); this one holds {', '.join(held)}")
    return Value("pickle", tuple(values), path)


def _leaf(kind: str, arg: str, raw: dict[str, Any], path: str, in_json: bool, in_pickle: bool = False,
          in_concat: bool = False) -> Value:
    kpath = _join(path, kind)
    enc_default = "hex" if kind == "digest" else "raw"
    encoding = _choice(raw, "encoding", ENCODINGS, path, enc_default)
    fields: dict[str, Any] = {"encoding": encoding}
    if kind in ("text", "starts_with"):
        pass
    elif kind == "repeat":
        _choice(raw, "repeat", ("received",), path, required=True)
        if in_json:
            _not_whole(path)
    elif kind == "config":
        if arg not in CONFIG_NAMES:
            raise DescriptionError(kpath, f"config must be one of {', '.join(CONFIG_NAMES)}; found {arg!r}")
    elif kind == "token":
        if arg not in TOKEN_KINDS:
            raise DescriptionError(kpath, f'token must be "new" or "issued"; found {arg!r}')
    elif kind == "digest":
        if arg != "sha256":
            raise DescriptionError(kpath, f'digest must be "sha256"; found {arg!r}')
        _choice(raw, "of", ("message",), path, "message")
    elif kind == "public_key" and in_pickle:  # a Python int: the key's e or n
        _unknown_keys(raw, ("public_key", "format"), path)
        fields["format"] = _choice(raw, "format", PICKLE_KEY_FORMATS, path, required=True)
    elif kind == "public_key":
        if raw.get("format") in PICKLE_KEY_FORMATS:
            raise DescriptionError(_join(path, "format"), f'format = "{raw["format"]}" is a pickle item\'s (the key\'s '
                                   f'{"public exponent" if raw["format"] == "e" else "modulus"} as a Python int): put '
                                   "it in a pickle value, with the other number")
        fields["format"] = _choice(raw, "format", PUBLIC_KEY_FORMATS, path, "pem-spki")  # by the key's type: _check_knowledge
        fields["also_accepts"] = _also_accepts(raw, path)
    elif kind == "rsa":
        fields["padding"] = _choice(raw, "padding", RSA_PADDINGS, path, required=True)
        fields["carries"] = _carries(raw, path)
        fields["fields"] = _json_fields(raw, path, fields["carries"])
        fields["offset"] = _offset(raw, path, fields["padding"])
        if fields["padding"] == "per-character":
            _check_per_character_carries(fields["carries"], _join(path, "carries"), fields["offset"])
    elif kind == "sealed":
        fields.update(_sealed(raw, path))
    elif kind == "plain":
        if arg != "message":
            raise DescriptionError(kpath, f'plain must be "message" (the conversation\'s message in the clear); '
                                   f"found {arg!r}")
        if in_pickle and "encoding" in raw and encoding != "utf8":
            raise DescriptionError(_join(path, "encoding"), "a pickle item is a Python str, the message's UTF-8: "
                                   f'encoding must be "utf8" or absent; found {encoding!r}')
    elif kind == "mac":
        fields["algorithm"] = _choice(raw, "algorithm", MAC_ALGORITHMS, path, required=True)
        fields["of"] = _get(raw, "of", str, path, required=True)
        if "encoding" not in raw:
            fields["encoding"] = encoding = "hex"
        # In a json or form, "previous" is a sibling field of that name; elsewhere the concat part before the mac.
        previous = fields["of"] == MAC_OF_PREVIOUS and not in_json
        if previous and not in_concat:
            raise DescriptionError(kpath, 'of = "previous" is a `mac` in a `concat`, after the part it covers')
        if not in_json and not previous:
            raise DescriptionError(kpath, "a mac is a field of a json or form value, next to the field it covers"
                                   + ('; in a concat, of = "previous" after the part it covers' if in_concat else ""))
        if previous and encoding not in MAC_PREVIOUS_ENCODINGS:
            raise DescriptionError(_join(path, "encoding"), "a MAC after the part it covers is written raw or as hex, "
                                   f"base64 or base64url, not {encoding}")
        if not previous and encoding not in ("hex", "base64", "base64url"):
            raise DescriptionError(_join(path, "encoding"), f"a MAC is written as hex, base64 or base64url, not {encoding}")
    elif kind == "signature":
        fields["algorithm"] = _choice(raw, "algorithm", SIGNATURE_ALGORITHMS, path, "ecdsa-sha256")
        fields["of"] = _get(raw, "of", str, path, required=True)
        fields["format"] = _choice(raw, "format", SIGNATURE_FORMATS, path, "der")
        if "encoding" not in raw:
            raise DescriptionError(_join(path, "encoding"), "a signature needs an encoding: base64, base64url or hex")
        if encoding not in ("hex", "base64", "base64url"):
            raise DescriptionError(_join(path, "encoding"), f"a signature is written as hex, base64 or base64url, not {encoding}")
        if not in_json:
            raise DescriptionError(kpath, "a signature is a field of a json or form value, next to the field it covers")
    elif kind == "length_of":
        if arg not in LENGTH_OF:
            raise DescriptionError(kpath, f'length_of must be "message" (its byte length) or "next" (the byte length '
                                   f"of the next part of a concat); found {arg!r}")
        if in_json and arg == "next":
            raise DescriptionError(kpath, 'length_of = "next" is raw bytes before the next part of a concat; it cannot '
                                   "be a JSON or form field")
        if in_json:
            raise DescriptionError(kpath, "a length_of is raw bytes; it cannot be a JSON field")
        fields["length_bytes"] = _choice(raw, "bytes", LENGTH_FIELD_BYTES, path, 4)
    if kind in ("rsa", "sealed"):
        fields["carries_as"] = _carries_as(raw, path, fields["carries"])
    # What each kind may be encoded as: utf8 only for text payloads.
    text_payload = kind in ("text", "config", "token", "secret", "plain") or (
        kind == "public_key" and fields["format"].startswith("pem"))
    if encoding == "utf8" and not text_payload:
        raise DescriptionError(_join(path, "encoding"), f"encoding utf8 is for text payloads; {kind} is binary: "
                               "use base64, base64url or hex")
    if kind == "sealed" and fields["cipher"] == "fernet" and "encoding" in raw:
        raise DescriptionError(_join(path, "encoding"), "a fernet token is always base64url with padding: "
                               "remove encoding")
    if in_json and encoding == "raw" and _binary_in_json(kind, fields):
        raise DescriptionError(_join(path, "encoding"), f"{kind} in a json field is binary: add encoding = "
                               '"base64" (or base64url, hex)')
    if kind == "sealed" and not in_json:
        for where in ("iv", "tag"):
            if fields[where].startswith("field:"):
                raise DescriptionError(_join(path, where), f'{where} = "field:NAME" puts it in a sibling JSON field: '
                                       'use it inside a json value, or write "prefix"/"appended"')
    if not in_json and kind in ("nonce_of", "tag_of"):
        raise DescriptionError(kpath, f"{kind} is only meaningful as a field of a json value, next to the sealed "
                               "value it belongs to")
    return Value(kind, arg, path, **fields)


def _not_whole(path: str) -> None:
    """repeat = "received" inside a concat, json or form (at `path`): it is a tcp step's whole message."""
    raise DescriptionError(_join(path, "repeat"), 'repeat = "received" is the whole send of a tcp step (the last '
                           "message this side received, sent back as it came): not a part of a concat, json or form")


def _offset(raw: dict[str, Any], path: str, padding: str) -> int:
    """An rsa value's `offset`: 0 to MAX_OFFSET, with padding = "per-character" only; 0 when absent."""
    if "offset" in raw and padding != "per-character":
        raise DescriptionError(_join(path, "offset"), 'offset is for padding = "per-character" only')
    offset = _get(raw, "offset", int, path, 0)
    if not 0 <= offset <= MAX_OFFSET:
        raise DescriptionError(_join(path, "offset"), f"offset must be in 0..{MAX_OFFSET}; found {offset}")
    return int(offset)


def _check_per_character_carries(carries: str, where: str, offset: int) -> None:
    """A per-character value carries UTF-8 text, one character at a time: the conversation's message, a
    stated text (each character from offset to below offset + 128, which any toy key's n allows) or any text."""
    if carries not in PER_CHARACTER_CARRIES and not carries.startswith("text:"):
        raise DescriptionError(where, "per-character RSA encrypts UTF-8 text one character at a time: carries must "
                               f"be message, text:TEXT or any-text; found {carries!r}")
    if carries.startswith("text:") and not _per_character_carries_text(carries[5:], offset):
        raise DescriptionError(where, _per_character_range(offset))


def _per_character_carries_text(text: str, offset: int) -> bool:
    """Whether each character of a stated text is one any toy key carries: from offset to below offset + 128."""
    return all(offset <= ord(c) < offset + PER_CHARACTER_MAX for c in text)


def _per_character_range(offset: int) -> str:
    """The characters a stated per-character text may have, in words."""
    if offset == 0:
        return PER_CHARACTER_BELOW
    return (f"per-character RSA with offset {offset} carries characters from {offset} to "
            f"{offset + PER_CHARACTER_MAX - 1} (the smallest n of an 8-bit key)")


def _also_accepts(raw: dict[str, Any], path: str) -> tuple[str, ...]:
    """A public_key's `also_accepts`, as written: its shape and format names here, the rest by the key's
    type (_check_also_accepts)."""
    if "also_accepts" not in raw:
        return ()
    where, formats = _join(path, "also_accepts"), raw["also_accepts"]
    if not (isinstance(formats, list) and formats and all(isinstance(f, str) for f in formats)):
        raise DescriptionError(where, "also_accepts is a list of one or more public-key formats; found "
                               f"{_type_name(formats)} {formats!r}")
    for fmt in formats:
        if fmt not in PUBLIC_KEY_FORMATS:
            raise DescriptionError(where, f"also_accepts lists RSA public-key formats: {', '.join(KEY_FORMATS)}; "
                                   f"found {fmt!r}")
    return tuple(formats)


def _binary_in_json(kind: str, fields: dict[str, Any]) -> bool:
    if kind in ("rsa", "nonce_of", "tag_of", "secret", "plain", "mac", "signature"):
        return True
    if kind == "sealed":
        return fields["cipher"] != "fernet"
    if kind == "public_key":
        return fields["format"].startswith("der") or fields["format"] in ("x962", "x962-compressed", "raw")
    return False


def _carries(raw: dict[str, Any], path: str) -> str:
    carries = _get(raw, "carries", str, path, "message")  # absent: the conversation's message (the Swift reader too)
    if "fields" in raw and carries != "json-fields":
        raise DescriptionError(_join(path, "fields"), 'fields goes with carries = "json-fields" only: remove it')
    if carries in CARRIES or any(carries.startswith(p) and len(carries) > len(p) for p in ("secret:", "text:")):
        return carries
    raise DescriptionError(_join(path, "carries"), "carries must be message, json-message, json-fields, any-text, "
                           f"echo, same, text:TEXT or secret:NAME; found {carries!r}")


_SECRET_FIELD = ('{ secret = "NAME", encoding = "base64" | "base64url" | "base64url-padded" | "hex" } (secret NAME\'s '
                 "bytes written so, in a JSON string)")


def _json_fields(raw: dict[str, Any], path: str, carries: str) -> tuple[tuple[str, str], ...]:
    """carries = "json-fields"'s `fields`: { name = "number" | "integer" | "string" | { secret = "S", encoding =
    ... }, ... }, in the order written; a secret field's kind is "secret:ENCODING:S" (field_secret)."""
    if carries != "json-fields":
        return ()  # (`fields` without json-fields: refused by _carries)
    fpath = _join(path, "fields")
    table = raw.get("fields")
    if not isinstance(table, dict) or not table:
        found = "" if "fields" not in raw else f"; found {_type_name(table)} {table!r}"
        raise DescriptionError(fpath, 'carries = "json-fields" needs fields, the fields the JSON plaintext has: '
                               f'{{ name = "number" | "integer" | "string" | {{ secret = "S", encoding = ... }}, ... }}'
                               f"{found}")
    out: list[tuple[str, str]] = []
    carried_in: dict[str, str] = {}  # secret -> the field that carries it
    for name, kind in table.items():
        npath = _join(fpath, name)
        if isinstance(kind, dict):
            _unknown_keys(kind, ("secret", "encoding"), npath)
            for key in ("secret", "encoding"):
                if key not in kind:
                    raise DescriptionError(_join(npath, key), f"a secret field is {_SECRET_FIELD}: add {key}")
            secret = _get(kind, "secret", str, npath)
            if not secret:
                raise DescriptionError(_join(npath, "secret"), "secret names one of [secrets]; found an empty name")
            encoding = _choice(kind, "encoding", FIELD_SECRET_ENCODINGS, npath)
            if secret in carried_in:
                raise DescriptionError(_join(npath, "secret"), f"secret {secret!r} is already carried in field "
                                       f"{carried_in[secret]!r}: a plaintext carries a secret once")
            carried_in[secret] = name
            out.append((name, f"secret:{encoding}:{secret}"))
        elif not isinstance(kind, str) or kind not in FIELD_TYPES:
            raise DescriptionError(npath, f'a field\'s type must be one of "number", "integer", "string", or a secret '
                                   f"field {_SECRET_FIELD}; found {_type_name(kind)} {kind!r}")
        else:
            out.append((name, kind))
    return tuple(out)


def _carries_as(raw: dict[str, Any], path: str, carries: str) -> str:
    if "carries_as" in raw and not carries.startswith("secret:"):
        raise DescriptionError(_join(path, "carries_as"), 'carries_as is for carries = "secret:NAME" only (the '
                               "secret's bytes written as text): remove it")
    return _choice(raw, "carries_as", CARRIES_AS, path, "raw")


def _sealed(raw: dict[str, Any], path: str) -> dict[str, Any]:
    cipher = _choice(raw, "cipher", CIPHERS, path, required=True)
    out: dict[str, Any] = {"cipher": cipher, "carries": _carries(raw, path)}
    out["fields"] = _json_fields(raw, path, out["carries"])
    if "padding" in raw and cipher not in ("aes-cbc", "aes-ecb"):
        raise DescriptionError(_join(path, "padding"), f"padding is for aes-cbc and aes-ecb only, not {cipher}: "
                               "remove it")
    out["padding"] = _choice(raw, "padding", SYM_PADDINGS, path, "pkcs7")
    # aes-ecb and fernet have no IV of their own to place: omitted means "none" for them.
    iv = _get(raw, "iv", str, path, "none" if cipher in ("aes-ecb", "fernet") else "prefix")
    ivpath = _join(path, "iv")
    if iv == "none":
        if cipher not in ("aes-ecb", "fernet"):
            raise DescriptionError(ivpath, f'iv = "none" is only for aes-ecb and fernet; {cipher} needs a fresh '
                                   'IV/nonce: use "prefix" or "field:NAME"')
    elif cipher in ("aes-ecb", "fernet"):
        raise DescriptionError(ivpath, f'{cipher} places no IV: write iv = "none" or leave it out')
    elif iv.startswith("fixed:"):
        try:
            fixed = bytes.fromhex(iv[6:])
        except ValueError:
            raise DescriptionError(ivpath, f"fixed:HEX needs hex digits; found {iv!r}") from None
        if cipher == "aes-gcm":
            # GCM takes any nonce length (NIST SP 800-38D §5.2.1.1; 96 bits is the recommended one);
            # 8 to 128 bytes is what pyca's GCM accepts (a nonce made of a hostname's text is 80).
            if not GCM_FIXED_NONCE_BYTES[0] <= len(fixed) <= GCM_FIXED_NONCE_BYTES[1]:
                raise DescriptionError(ivpath, f"an aes-gcm fixed: nonce is 8 to 128 bytes; fixed: gives {len(fixed)}")
        elif len(fixed) != IV_BYTES[cipher]:
            raise DescriptionError(ivpath, f"{cipher} needs a {IV_BYTES[cipher]}-byte IV; fixed: gives {len(fixed)}")
    elif cipher == "fernet" and iv.startswith("secret:"):
        raise DescriptionError(ivpath, f'{cipher} places no IV: write iv = "none" or leave it out')
    elif not (iv == "prefix" or (iv.startswith("field:") and len(iv) > 6) or (iv.startswith("secret:") and len(iv) > 7)):
        raise DescriptionError(ivpath, f'iv must be "prefix", "field:NAME", "fixed:HEX", "secret:NAME" or "none"; '
                               f"found {iv!r}")
    out["iv"] = iv
    if "tag" in raw and cipher not in AEAD:
        raise DescriptionError(_join(path, "tag"), f"tag is for aes-gcm, chacha20-poly1305 and aes-eax only, not {cipher}")
    tag = _get(raw, "tag", str, path, "appended" if cipher in AEAD else "")
    if tag == "none" and cipher != "aes-gcm":
        raise DescriptionError(_join(path, "tag"), f'tag = "none" is for aes-gcm only (a server that drops '
                               f'the tag of encrypt_and_digest), not {cipher}')
    # "before": nonce || tag || ciphertext, the order PyCryptodome's documentation writes them in.
    if cipher in AEAD and not (tag in ("appended", "before", "none") or (tag.startswith("field:") and len(tag) > 6)):
        raise DescriptionError(_join(path, "tag"),
                               f'tag must be "appended", "before", "field:NAME" or "none"; found {tag!r}')
    out["tag"] = tag
    out["separator"] = _separator(raw, path, cipher, iv, tag)
    return out


def _separator(raw: dict[str, Any], path: str, cipher: str, iv: str, tag: str) -> str:
    """`separator`: 1 to 16 UTF-8 bytes put between the sealed value's wire parts (b"::".join([nonce,
    tag, ciphertext])), the `encoding` then applied to the whole; "" when absent."""
    if "separator" not in raw:
        return ""
    where = _join(path, "separator")
    separator = _get(raw, "separator", str, path)
    size = len(separator.encode("utf-8"))
    if not 1 <= size <= SEPARATOR_MAX_BYTES:
        raise DescriptionError(where, f"separator is text of 1 to {SEPARATOR_MAX_BYTES} UTF-8 bytes; found {size} "
                               f"bytes {separator!r}")
    if cipher == "fernet":
        raise DescriptionError(where, "a fernet token is one base64url text with nothing to separate: remove separator")
    parts = wire_parts(cipher, iv, tag)
    if len(parts) < 2:
        raise DescriptionError(where, "`separator` joins the IV, the tag and the ciphertext; this value has only "
                               f'the ciphertext on the wire (iv = "{iv}"' + (f', tag = "{tag}"' if tag else "")
                               + "): remove separator")
    return separator


def _macs(v: Value) -> list[tuple[Value, Value]]:
    """The mac fields of a json or form value and the sibling each covers (its `of`), in order; a concat's
    macs with of = "previous" and the part before each."""
    if v.kind == "concat":
        return [(p, v.arg[i - 1]) for i, p in enumerate(v.arg) if i > 0 and covers_previous(p)]
    if v.kind not in ("json", "form"):
        return []
    fields = dict(v.arg)
    return [(f, fields[f.of]) for _, f in v.arg if f.kind == "mac" and f.of in fields]


def _check_json_siblings(v: Value) -> None:
    fields = dict(v.arg)
    for name, f in v.arg:
        if f.kind in ("nonce_of", "tag_of"):
            target = fields.get(f.arg)
            where = "iv" if f.kind == "nonce_of" else "tag"
            if target is None or target.kind != "sealed" or getattr(target, where) != f"field:{name}":
                raise DescriptionError(_join(f.path, f.kind), f"{f.kind} = {f.arg!r} needs a sibling sealed field "
                                       f"{f.arg!r} with {where} = \"field:{name}\"")
        if f.kind in ("mac", "signature"):
            target = fields.get(f.of)
            if target is None or target.kind in (*SIBLING_REFERENCES, "json") or (
                    target.kind == "public_key" and target.format in ("json-ne", "jwk") and target.encoding == "raw"):
                what = "MAC" if f.kind == "mac" else "signature"
                raise DescriptionError(_join(f.path, "of"), f"of = {f.of!r} names no sibling field that carries "
                                       f"text (the {what} covers that field's text as sent; not a JSON object)")
        if f.kind == "sealed":
            for where in ("iv", "tag"):
                place = getattr(f, where)
                if place.startswith("field:"):
                    other = fields.get(place[6:])
                    want = "nonce_of" if where == "iv" else "tag_of"
                    if other is None or other.kind != want or other.arg != name:
                        raise DescriptionError(_join(f.path, where), f"{where} = {place!r} needs a sibling field "
                                               f"{place[6:]!r} = {{ {want} = \"{name}\", encoding = ... }}")


def public_key_length(key_type: str, fmt: str) -> Optional[int]:
    """The byte length of a `key_type` public key in `fmt`, where it is fixed: SEC 1 points (v2
    §2.3.3), an X25519 key (RFC 7748 §5), and their SubjectPublicKeyInfo DER (RFC 5480, RFC 8410:
    91 bytes on P-256, 120 on P-384, 44 for X25519)."""
    if key_type == "x25519":
        return {"raw": 32, "der-spki": 44}.get(fmt)
    if key_type in ("ec-p256", "ec-p384"):
        c = 48 if key_type == "ec-p384" else 32
        return {"x962": 1 + 2 * c, "x962-compressed": 1 + c, "raw": 2 * c, "der-spki": 120 if c == 48 else 91}.get(fmt)
    return None


def tells_next(v: Value) -> bool:
    """Whether the value is a length_of = "next": the byte length of the concat part after it."""
    return v.kind == "length_of" and v.arg == "next"


def covers_previous(part: Value) -> bool:
    """Whether a concat's part is a mac with of = "previous": the code of the part before it, as sent. (The reader
    takes of = "previous" so only in a concat; in a json or form it names a sibling field, never a concat's part.)"""
    return part.kind == "mac" and part.of == MAC_OF_PREVIOUS


def told_parts(parts: tuple[Value, ...]) -> frozenset[int]:
    """The indexes of a concat's parts whose length a length_of = "next" directly before them tells (its
    receiver reads their length from that field, whatever their kind)."""
    return frozenset(i + 1 for i, p in enumerate(parts[:-1]) if tells_next(p))


def _check_concat(v: Value, secrets: Optional[dict[str, SecretSpec]], keys: Optional[dict[str, KeySpec]] = None) -> None:
    """A concat its receiver can split (values.split_concat): a length_of = "next" directly before a part that
    is not a length_of; a mac with of = "previous" directly after a part it can cover (not a length_of, whose
    bytes a length_of = "next" only has once its concat is built, nor another such mac); at most one part of
    unknown length that no length_of tells, and no told part after it (that part is found by the fixed lengths
    of the parts after it; such a mac's length is fixed). `secrets`, `keys`: the description's, once read; None
    while reading the value, when every secret and key is taken to have a known length."""
    parts: tuple[Value, ...] = v.arg
    for i, p in enumerate(parts):
        if covers_previous(p) and (i == 0 or parts[i - 1].kind == "length_of" or covers_previous(parts[i - 1])):
            raise DescriptionError(_join(p.path, "mac"), 'a `mac` with of = "previous" covers the part before it in '
                                   "its concat; this one has none to cover")
    for i, p in enumerate(parts):
        if not tells_next(p):
            continue
        if i == len(parts) - 1:
            raise DescriptionError(_join(p.path, "length_of"), 'length_of = "next" tells the byte length of the part '
                                   "after it, and it is the last part of its concat: put it directly before the part "
                                   "whose length it tells")
        if parts[i + 1].kind == "length_of":
            raise DescriptionError(_join(p.path, "length_of"), 'length_of = "next" is followed by another length_of, '
                                   f"whose length is fixed ({parts[i + 1].length_bytes} bytes): put it directly before "
                                   "the part whose length it tells")
    told = told_parts(parts)
    unknown = [i for i, p in enumerate(parts) if i not in told and not _static_length_known(p, secrets, keys)]
    if len(unknown) > 1:
        shown = " and ".join(parts[i].path for i in unknown)
        raise DescriptionError(_join(v.path, "concat"), "at most one part may have an unknown length that no length_of "
                               f"tells (a receiver could not split them); {shown} both do: put {{ length_of = \"next\" }} "
                               "before one, a known-length part between them, or use another framing")
    if unknown:
        after = sorted(i for i in told if i > unknown[0])
        if after:
            field = parts[after[0] - 1]
            raise DescriptionError(_join(field.path, "length_of"), f"the part this length_of tells ({parts[after[0]].path}) "
                                   f"comes after {parts[unknown[0]].path}, a part of unknown length that no length_of "
                                   "tells: a receiver finds that part by the fixed lengths of the parts after it, so "
                                   'none of them may be told; put a { length_of = "next" } before that part too')


def _static_length_known(v: Value, secrets: Optional[dict[str, SecretSpec]] = None,
                         keys: Optional[dict[str, KeySpec]] = None) -> bool:
    """Whether a receiver knows the value's length before reading it (concat splitting). latin1 and
    python2-tuple text have none: a byte over 0x7F takes two, or four as \\xNN (but a utf8-zeropad16 secret's
    letters and digits take one in latin1). Nor has textbook RSA: its sender may drop leading zero bytes; nor
    per-character RSA: its ciphertext characters take 1 to 3 bytes of UTF-8. A length_of of either kind is
    `bytes` long; a part whose length a length_of = "next" tells is still of unknown length here (the caller,
    _check_concat, knows it is told)."""
    if v.kind in ("text", "length_of"):
        return True
    if v.kind == "mac":  # of = "previous" in a concat: the algorithm's code (MAC_BYTES), encoded
        return v.encoding not in UNSIZED_ENCODINGS
    if v.kind == "rsa" and v.padding in ("none", "per-character"):
        return False  # per-character: a character's UTF-8 takes 1 to 3 bytes
    if v.kind in ("rsa", "digest", "nonce_of", "tag_of"):
        return v.encoding not in UNSIZED_ENCODINGS
    if v.kind == "secret":
        spec = (secrets or {}).get(v.arg)
        if spec is None:
            return True  # not known yet: checked again once the secrets are
        if spec.derive in PASSPHRASE_KEY_BYTES:
            return False  # a passphrase has any length
        # raw: `bytes`; utf8-zeropad16: `chars`, one byte each in latin1 too
        return v.encoding not in UNSIZED_ENCODINGS or (v.encoding == "latin1" and spec.derive == "utf8-zeropad16")
    if v.kind == "public_key":
        if keys is None:
            return True  # not known yet: checked again once the keys are
        spec_key = keys.get(v.arg)
        return (spec_key is not None and public_key_length(spec_key.type, v.format) is not None
                and v.encoding not in UNSIZED_ENCODINGS)
    if v.kind == "concat":
        return all(_static_length_known(p, secrets, keys) for p in v.arg)
    return False


def _textbook_raw_secret(v: Value, secrets: tuple[SecretSpec, ...]) -> Optional[str]:
    """The secret S a textbook RSA value carries as its raw bytes (carries = "secret:S", no carries_as, S not a
    text secret), else None. RFC 8017 §4.2: OS2IP drops leading zeros, and I2OSP back to minimal bytes
    (PyCrypto's long_to_bytes) does not restore them: random bytes begin with 0x00 once in 256, which a text
    secret (letters and digits) never does. ProPorygon/TheOgreProtocol's client.py sends
    da_pub_key.encrypt(aes_key, 0)[0] for aes_key = randfile.read(32), and its directory_authority.py's
    da_mykey.decrypt(aes_enc) then gives 31 bytes."""
    if v.kind != "rsa" or v.padding != "none" or not v.carries.startswith("secret:") or v.carries_as != "raw":
        return None
    name = v.carries[len("secret:"):]
    spec = next((s for s in secrets if s.name == name), None)
    return None if spec is not None and spec.derive in TEXT_DERIVES else name


def _walk(v: Value) -> Iterator[Value]:
    yield v
    if v.kind == "concat":
        for p in v.arg:
            yield from _walk(p)
    elif v.kind in ("json", "form"):
        for _, f in v.arg:
            yield from _walk(f)
    elif v.kind == "pickle":
        for p in v.arg:
            yield from _walk(p)


# ---- the file ------------------------------------------------------------------------------------


def load(path: Union[str, Path]) -> Description:
    """Read and check a description file."""
    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise DescriptionError("", f"cannot read {path}: {exc.strerror}") from None
    try:
        return loads(text.decode("utf-8"))
    except UnicodeDecodeError:
        raise DescriptionError("", f"{path} is not UTF-8") from None


def loads(text: str) -> Description:
    """Read and check a description's text; errors name the key's line as well as its path."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DescriptionError("", f"not valid TOML: {exc}") from None
    try:
        return from_dict(doc)
    except DescriptionError as exc:
        raise DescriptionError(exc.path, exc.message, _line_of(text, exc.path)) from None


_HEADER = re.compile(r"\s*(\[\[?)\s*([A-Za-z0-9_.\- \"]+?)\s*\]\]?\s*(#.*)?$")
_SEGMENT = re.compile(r"([^.\[\]]+)(?:\[(\d+)\])?")


def _line_of(text: str, path: str) -> Optional[int]:
    """The 1-based line of a dotted key path in TOML text: the line of the key in its table (inline
    tables are one line, so a path into one ends there), else the table's header. tomllib keeps no
    positions; this reads the header and key lines, which is all a description uses."""
    if not path:
        return None
    lines = text.splitlines()
    headers = [(i, m.group(2).replace(" ", "").replace('"', "")) for i, line in enumerate(lines)
               if (m := _HEADER.match(line))]
    segments = [(m.group(1), int(m.group(2)) if m.group(2) else None) for m in _SEGMENT.finditer(path)]
    start, end = 0, headers[0][0] if headers else len(lines)
    table: list[str] = []
    rest = segments
    for n, (name, index) in enumerate(segments):
        candidate = ".".join(table + [name])
        inside = [h for h in headers if h[1] == candidate and start <= h[0] < (end if table else len(lines))]
        # (a nested array's headers are counted within its parent's region: step[2] of conversation[1])
        if inside:
            line_no = inside[index if index is not None and index < len(inside) else 0][0]
            start = line_no
            end = next((h[0] for h in headers if h[0] > line_no and not h[1].startswith(candidate + ".")),
                       len(lines))
            table.append(name)
            rest = segments[n + 1:]
        elif any(h[1].startswith(candidate + ".") for h in headers):
            table.append(name)  # `keys` of [keys.server]: no header of its own
            end = len(lines)
            rest = segments[n + 1:]
        else:
            break
    if not rest:
        return start + 1
    key = re.compile(rf'\s*"?{re.escape(rest[0][0])}"?\s*=')
    for i in range(start, end):
        if key.match(lines[i]):
            return i + 1
    return start + 1 if table else None


def from_dict(doc: dict[str, Any]) -> Description:
    _unknown_keys(doc, ("name", "summary", "source", "transport", "keys", "secrets", "conversation"), "")
    name = _get(doc, "name", str, "", required=True)
    if not NAME_RE.match(name):
        raise DescriptionError("name", f"name must be lowercase letters, digits and '-'; found {name!r}")
    transport = _transport(_get(doc, "transport", dict, "", required=True))
    keys = tuple(_key(n, _get(doc["keys"], n, dict, "keys"), f"keys.{n}") for n in _get(doc, "keys", dict, "", {}))
    secrets = tuple(_secret(n, _get(doc["secrets"], n, dict, "secrets"), f"secrets.{n}", keys)
                    for n in _get(doc, "secrets", dict, "", {}))
    raw_convs = _get(doc, "conversation", list, "", required=True)
    if not raw_convs:
        raise DescriptionError("conversation", "a description needs at least one [[conversation]]")
    convs = tuple(_conversation(c, f"conversation[{i}]", transport) for i, c in enumerate(raw_convs))
    names = [c.name for c in convs]
    for i, n in enumerate(names):
        if n in names[:i]:
            raise DescriptionError(f"conversation[{i}].name", f"conversation names must be unique; {n!r} is twice")
    desc = Description(name, transport, convs, keys, secrets, _get(doc, "summary", str, "", ""),
                       _get(doc, "source", str, "", ""))
    for i, c in enumerate(convs):
        _check_knowledge(desc, c, f"conversation[{i}]")
    return desc


def _transport(t: dict[str, Any]) -> Transport:
    p = "transport"
    _unknown_keys(t, ("kind", "framing", "length_bytes", "line_end", "max_message", "port"), p)
    kind = _choice(t, "kind", KINDS, p, required=True)
    if kind != "tcp":
        for k in ("framing", "length_bytes", "line_end"):
            if k in t:
                raise DescriptionError(f"{p}.{k}", f"{k} is for tcp only: HTTP delimits its own messages; remove it")
    framing = _choice(t, "framing", FRAMINGS, p, "legacy")
    if "length_bytes" in t and framing != "length-prefix":
        raise DescriptionError(f"{p}.length_bytes", 'length_bytes is for framing = "length-prefix" only')
    if "line_end" in t and framing != "line":
        raise DescriptionError(f"{p}.line_end", 'line_end is for framing = "line" only')
    length_bytes = _choice(t, "length_bytes", (2, 4), p, 4)
    line_end = _choice(t, "line_end", ("\n", "\r\n"), p, "\n")
    max_message = _get(t, "max_message", int, p, 65536)
    if not 1 <= max_message <= MAX_MESSAGE:
        raise DescriptionError(f"{p}.max_message", f"max_message must be in 1..{MAX_MESSAGE}; found {max_message}")
    if framing == "length-prefix" and max_message >= 1 << (8 * length_bytes):
        max_message = (1 << (8 * length_bytes)) - 1  # a 2-byte prefix cannot say more
    port = _get(t, "port", int, p)
    if port is not None and not 1 <= port <= 65535:
        raise DescriptionError(f"{p}.port", f"port must be in 1..65535; found {port}")
    return Transport(kind, framing, length_bytes, line_end.encode(), max_message, port)


def _key(name: str, k: dict[str, Any], p: str) -> KeySpec:
    _unknown_keys(k, ("type", "holder", "bits", "preshared"), p)
    key_type = _choice(k, "type", KEY_TYPES, p, "rsa")
    if key_type in KEY_BITS and "bits" in k:
        raise DescriptionError(f"{p}.bits", f"an {key_type} key is {KEY_BITS[key_type]} bits by its curve; remove bits")
    bits = KEY_BITS.get(key_type) or _bits(k, p)
    return KeySpec(name, _choice(k, "holder", ROLES, p, required=True), bits, _get(k, "preshared", bool, p, False), key_type)


def _bits(k: dict[str, Any], p: str) -> int:
    """An RSA key's `bits`: BITS, or TOY_BITS for a toy key (whose use _check_knowledge checks)."""
    bits = _get(k, "bits", int, p, 2048)
    if bits not in BITS and bits not in TOY_BITS:
        raise DescriptionError(f"{p}.bits", f"bits must be one of {', '.join(map(str, BITS))}; found {bits!r}; "
                               f"{TOY_KEY_USE}")
    return int(bits)


def _secret(name: str, s: dict[str, Any], p: str, keys: tuple[KeySpec, ...]) -> SecretSpec:
    _unknown_keys(s, ("made_by", "bytes", "derive", "chars", "keys", "kdf", "salt", "info", "skip"), p)
    made_by = _choice(s, "made_by", ("client", "server", "preshared", "agreement"), p, required=True)
    if made_by == "agreement":
        return _agreement(name, s, p, keys)
    for key in ("keys", "kdf", "salt", "info", "skip"):
        if key in s:
            raise DescriptionError(f"{p}.{key}", f'{key} is for made_by = "agreement" secrets only (a key agreement '
                                   f"and its KDF); this one is made by {made_by}: remove {key}")
    derive = _choice(s, "derive", DERIVES, p, "raw")
    if "bytes" in s and derive in PASSPHRASE_KEY_BYTES:
        raise DescriptionError(f"{p}.bytes", f"the key size follows the derive ({derive}: "
                               f"{PASSPHRASE_KEY_BYTES[derive]} bytes); remove bytes")
    nbytes = _choice(s, "bytes", SECRET_BYTES, p, 32)
    if "chars" in s and derive not in TEXT_DERIVES:
        raise DescriptionError(f"{p}.chars", 'chars is for text secrets only (derive = "utf8-zeropad16", '
                               '"passphrase-sha256", "passphrase-sha256-128")')
    chars = _get(s, "chars", int, p, 12)
    if derive in PASSPHRASE_KEY_BYTES and not 1 <= chars <= 64:
        raise DescriptionError(f"{p}.chars", f"chars must be in 1..64 (a fresh passphrase's length); found {chars}")
    if derive not in PASSPHRASE_KEY_BYTES and not 1 <= chars <= 15:
        raise DescriptionError(f"{p}.chars", f"chars must be in 1..15 (the key is zero-padded to 16); found {chars}")
    if derive == "utf8-zeropad16" and nbytes != 16:
        raise DescriptionError(f"{p}.bytes", "utf8-zeropad16 makes a 16-byte key: bytes must be 16")
    return SecretSpec(name, made_by, nbytes, derive, chars)


def _agreement(name: str, s: dict[str, Any], p: str, keys: tuple[KeySpec, ...]) -> SecretSpec:
    """made_by = "agreement": ECDH or X25519 of two [keys], one per holder, then the KDF
    (docs/PROTOCOL-DESCRIPTIONS.md, "Key agreement")."""
    by_name = {k.name: k for k in keys}
    pair = s.get("keys")
    if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(n, str) for n in pair)):
        found = "; it is missing" if pair is None else f"; found {_type_name(pair)} {pair!r}"
        raise DescriptionError(f"{p}.keys", 'an agreement secret needs keys = ["A", "B"]: two names of [keys] of one '
                               f"type ({', '.join(AGREEMENT_KEY_TYPES)}), one held by the client and one by the server"
                               f"{found}")
    for n in pair:
        if n not in by_name:
            raise DescriptionError(f"{p}.keys", f"no key {n!r}: add [keys.{n}] or use one of "
                                   f"{', '.join(by_name) or '(none)'}")
        if by_name[n].type not in AGREEMENT_KEY_TYPES:
            raise DescriptionError(f"{p}.keys", f"key {n!r} is an RSA key; a key agreement needs two keys of type "
                                   f"{', '.join(AGREEMENT_KEY_TYPES)}")
    a, b = by_name[pair[0]], by_name[pair[1]]
    if a.type != b.type:
        raise DescriptionError(f"{p}.keys", f"key {a.name!r} is {a.type} and key {b.name!r} {b.type}: a key agreement "
                               f"needs two keys of one type ({', '.join(AGREEMENT_KEY_TYPES)})")
    if a.holder == b.holder:
        raise DescriptionError(f"{p}.keys", f"both keys are held by the {a.holder}: a key agreement needs one key held "
                               "by the client and one by the server")
    kdf = _choice(s, "kdf", AGREEMENT_KDFS, p, "hkdf-sha256")
    # RFC 5869 §2.2: an absent salt is HashLen zero bytes, which HMAC pads to the same key as an empty one.
    salt_hex = _get(s, "salt", str, p, "")
    if "salt" in s and not kdf.startswith("hkdf-"):
        raise DescriptionError(f"{p}.salt", f"salt is for kdf hkdf-sha256 or hkdf-sha384 only, not {kdf}: remove it")
    if not re.fullmatch(r"(?:[0-9a-fA-F]{2})*", salt_hex):
        raise DescriptionError(f"{p}.salt", f"salt is hex text (an even number of hex digits, may be empty); found {salt_hex!r}")
    info = _get(s, "info", str, p, "")
    if "info" in s and kdf == "none":
        raise DescriptionError(f"{p}.info", "info is for kdf hkdf-sha256, hkdf-sha384 or x963-sha256 only, not none: "
                               "remove it")
    shared = SHARED_SECRET_BYTES[a.type]
    if kdf == "none":
        # The shared secret itself: its length is the curve's, so bytes may only restate it.
        nbytes = _get(s, "bytes", int, p, shared)
        if nbytes != shared:
            raise DescriptionError(f"{p}.bytes", f'with kdf = "none" the secret is the {a.type} shared secret itself: '
                                   f'bytes must be {shared} (or left out); found {nbytes}; for a shorter key use an hkdf kdf')
    else:
        nbytes = _choice(s, "bytes", AGREEMENT_BYTES, p, 32)
    derive = _choice(s, "derive", AGREEMENT_DERIVES, p, "raw")  # applied to the derived bytes, as for any secret
    if "chars" in s:
        raise DescriptionError(f"{p}.chars", "chars is for text secrets only; an agreement secret is bytes: remove it")
    if "skip" in s and kdf == "none":
        raise DescriptionError(f"{p}.skip", "`skip` drops the first bytes of a KDF's output; with "
                               'kdf = "none" there is none; remove it')
    skip = _get(s, "skip", int, p, 0)
    if not 0 <= skip <= AGREEMENT_MAX_SKIP:
        raise DescriptionError(f"{p}.skip", f"skip must be in 0..{AGREEMENT_MAX_SKIP}; found {skip}")
    return SecretSpec(name, "agreement", nbytes, derive, keys=(a.name, b.name), kdf=kdf, salt=bytes.fromhex(salt_hex),
                      info=info.encode("utf-8"), skip=int(skip))


def _conversation(c: object, p: str, transport: Transport) -> Conversation:
    if not isinstance(c, dict):
        raise DescriptionError(p, "each [[conversation]] must be a table")
    _unknown_keys(c, ("name", "message", "error", "errors", "error_status", "error_then", "step"), p)
    name = _get(c, "name", str, p, required=True)
    if not NAME_RE.match(name):
        raise DescriptionError(f"{p}.name", f"name must be lowercase letters, digits and '-'; found {name!r}")
    message = _get(c, "message", str, p)
    if transport.is_http and "error" in c:
        raise DescriptionError(f"{p}.error", "an http conversation refuses with a status: use error_status")
    if not transport.is_http and "error_status" in c:
        raise DescriptionError(f"{p}.error_status", "error_status is for http(s); a tcp conversation uses error")
    if transport.is_http and "error_then" in c:
        raise DescriptionError(f"{p}.error_then", "error_then is for tcp; an http server answers each request")
    error_then = _choice(c, "error_then", ERROR_THEN, p, "close")
    error = _value(c["error"], f"{p}.error") if "error" in c else None
    raw_errors = _get(c, "errors", dict, p, {})
    _unknown_keys(raw_errors, REFUSAL_KINDS, f"{p}.errors")
    errors: tuple[tuple[str, Value], ...] = ()
    http_errors: list[tuple[str, int, Optional[Value]]] = []
    if transport.is_http:
        for kind in (k for k in REFUSAL_KINDS if k in raw_errors):
            # { status = N, body = value }: the body a constant the server can always send.
            kp = f"{p}.errors.{kind}"
            entry = _get(raw_errors, kind, dict, f"{p}.errors", required=True)
            _unknown_keys(entry, ("status", "body"), kp)
            kind_status = _get(entry, "status", int, kp, required=True)
            if not 100 <= kind_status <= 599:
                raise DescriptionError(f"{kp}.status", f"status must be in 100..599; found {kind_status}")
            kind_body = _value(entry["body"], f"{kp}.body") if "body" in entry else None
            if kind_body is not None and any(v.kind not in ("text", "json", "form") for v in _walk(kind_body)):
                raise DescriptionError(f"{kp}.body", "a refusal's body is a constant: text, or a json or form of text fields")
            http_errors.append((kind, kind_status, kind_body))
    else:
        errors = tuple((kind, _value(raw_errors[kind], f"{p}.errors.{kind}")) for kind in REFUSAL_KINDS if kind in raw_errors)
    status = _get(c, "error_status", int, p, 400)
    if not 400 <= status <= 599:
        raise DescriptionError(f"{p}.error_status", f"error_status must be in 400..599; found {status}")
    raw_steps = _get(c, "step", list, p, required=True)
    if not raw_steps:
        raise DescriptionError(f"{p}.step", "a conversation needs at least one [[conversation.step]]")
    if transport.is_http and isinstance(raw_steps[0], dict) and raw_steps[0].get("from") == "server":
        raise DescriptionError(f"{p}.step[0].from", "an http conversation starts with the client's request: "
                               'make step 0 from = "client"')
    steps = tuple(_step(s, i, f"{p}.step[{i}]", transport) for i, s in enumerate(raw_steps))
    for s in steps[:-1]:
        if s.close:
            raise DescriptionError(f"{p}.step[{s.index}].then", 'then = "close" ends the conversation: only the '
                                   "last step may have it")
    if transport.framing == "close" and not transport.is_http:
        # After its message a side has closed its half of the connection: it cannot send again.
        for role in ("client", "server"):
            sends = [s for s in steps if s.sender == role]
            if len(sends) > 1:
                raise DescriptionError(f"{p}.step[{sends[1].index}]", 'with framing = "close" a message ends when its '
                                       f"sender closes its side, so the {role} sends at most one message; this is its second")
    if transport.is_http:
        for i, s in enumerate(steps):
            want = "client" if i % 2 == 0 else "server"
            if s.sender != want:
                first = " (an http conversation starts with the client's request)" if i == 0 else ""
                raise DescriptionError(f"{p}.step[{i}].from", f"an http conversation alternates request and response: "
                                       f"step {i} must be from {want}{first}")
        if len(steps) % 2:
            raise DescriptionError(f"{p}.step[{len(steps) - 1}]", "the last request has no response step: add one")
        for s in steps:
            if s.sender == "server" and s.status == status:
                raise DescriptionError(f"{p}.step[{s.index}].status", f"a correct answer and a refusal would both be status {status}: "
                                       "nothing could tell them apart; give the answer its own status or error_status another")
        for kind, kind_status, kind_body in http_errors:
            # A refusal answered with a correct answer's status is told apart by the two bodies alone.
            if any(s.sender == "server" and s.status == kind_status and (kind_body is None or s.body is None) for s in steps):
                raise DescriptionError(f"{p}.errors.{kind}.status", f"a correct answer and this refusal are both status {kind_status}: "
                                       "give the refusal and the answer each a body that tells them apart")
    if error_then == "keep-open":
        # The next message after a refusal begins a conversation again: the client's, on a connection both keep.
        if transport.framing == "close":
            raise DescriptionError(f"{p}.error_then", 'with framing = "close" each side sends one message and closes: '
                                   'nothing is read after an error; remove error_then')
        if steps[0].sender != "client":
            raise DescriptionError(f"{p}.error_then", "keep-open reads the next message as a conversation's first, "
                                   "so the conversation must begin with the client's step")
    for answer in (error, *(v for _, v in errors)):
        if answer is None:
            continue
        # starts_with: a refusal's text that varies after a fixed beginning, so the whole error value only.
        inner = [w for w in list(_walk(answer))[1:] if w.kind == "starts_with"]
        if inner:
            raise DescriptionError(inner[0].path, "starts_with is a whole error value (error = { starts_with = \"…\" }), "
                                   "not a part of one")
        # A refusal told by its beginning must be told apart from every answer the server gives as a constant.
        if answer.kind == "starts_with":
            begins = answer.arg.encode("utf-8")
            if not begins:
                raise DescriptionError(_join(answer.path, "starts_with"), "an empty beginning matches every answer: "
                                       "give the text every refusal begins with")
            for s in steps:
                if s.sender == "server" and s.send is not None and s.send.kind == "text":
                    said = s.send.arg.encode("utf-8")
                    if said.startswith(begins) or begins.startswith(said):
                        raise DescriptionError(_join(answer.path, "starts_with"), f"step {s.index}'s answer "
                                               f"{s.send.arg!r} and this refusal's beginning cannot be told apart")
    return Conversation(name, steps, message.encode("utf-8") if message is not None else None, error, status, errors,
                        tuple(http_errors), error_then)


def _step(s: object, i: int, p: str, transport: Transport) -> Step:
    if not isinstance(s, dict):
        raise DescriptionError(p, "each [[conversation.step]] must be a table")
    allowed = ("from", "request", "query", "headers", "status", "body", "then") if transport.is_http else ("from", "send", "then")
    _unknown_keys(s, allowed, p)
    sender = _choice(s, "from", ROLES, p, required=True)
    close = _choice(s, "then", ("close",), p, "") == "close"
    if not transport.is_http:
        return Step(i, sender, send=_value(_get(s, "send", dict, p, required=True), f"{p}.send"), close=close)
    method = target = ""
    if sender == "client":
        if "status" in s:
            raise DescriptionError(f"{p}.status", "status is for a server's response step")
        request = _get(s, "request", str, p, required=True)
        m = re.fullmatch(r"([A-Z]+) (/\S*)", request)
        if m is None:
            raise DescriptionError(f"{p}.request", f'request must be "METHOD /path" such as "POST /login"; found '
                                   f"{request!r}")
        method, target = m.group(1), m.group(2)
        if "?" in target:
            raise DescriptionError(f"{p}.request", 'the path has a query ("?"); write the path alone and the query as '
                                   "query = { form = { name = value, ... } }")
    elif "request" in s:
        raise DescriptionError(f"{p}.request", "request is for a client step; a server step has status")
    headers = []
    for hname, hval in _get(s, "headers", dict, p, {}).items():
        hp = f"{p}.headers.{hname}"
        # A plain string is a literal header value (shorthand for { text = "..." }).
        v = Value("text", hval, hp) if isinstance(hval, str) else _value(hval, hp)
        if v.kind == "form":
            raise DescriptionError(_join(hp, "form"), "a header's value is text, not a form")
        headers.append((hname.lower(), v))
    status = _get(s, "status", int, p, 200)
    if not 100 <= status <= 599:
        raise DescriptionError(f"{p}.status", f"status must be in 100..599; found {status}")
    body = _value(s["body"], f"{p}.body") if "body" in s else None
    query = None
    if "query" in s:
        if sender != "client":
            raise DescriptionError(f"{p}.query", "query is for a client step (the request's query string)")
        query = _value(s["query"], f"{p}.query")
        if query.kind != "form":
            raise DescriptionError(f"{p}.query", "a query is a form value: { form = { name = value, ... } }")
    return Step(i, sender, None, method, target, tuple(headers), status, body, close, query)


# ---- who knows what, step by step ----------------------------------------------------------------


def _check_length_of(v: Value, conv: Conversation) -> None:
    """A length_of states the length of the conversation's message: some value carries it, and none
    carries a plaintext its sender draws instead (json-fields, any-text)."""
    values = [w for step in conv.steps for top in step.tops() for w in _walk(top)]
    carried = any(w.kind == "plain" or (w.kind in ("rsa", "sealed") and w.carries in ("message", "json-message"))
                  for w in values)
    drawn = any(w.kind in ("rsa", "sealed") and w.carries in ("json-fields", "any-text") for w in values)
    if not carried or drawn:
        raise DescriptionError(_join(v.path, "length_of"), "a length_of states the length of the conversation's message; "
                               'carry the message (carries = "message" or a plain value), not a plaintext its sender '
                               "draws (json-fields, any-text)")
    if conv.message is not None and len(conv.message) >= 1 << (8 * v.length_bytes):
        raise DescriptionError(_join(v.path, "length_of"), f"the conversation's message has {len(conv.message)} bytes: "
                               f"more than a {v.length_bytes}-byte length field holds")


def _check_iv_secret(v: Value, secrets: dict[str, SecretSpec], me_knows: set[str], peer_knows: set[str],
                     me: str, peer: str) -> None:
    """iv = "secret:NAME": a raw secret of the cipher's IV length that both sides know by now."""
    name, where = v.iv[7:], _join(v.path, "iv")
    if name not in secrets:
        raise DescriptionError(where, f"no secret {name!r}: add [secrets.{name}]")
    spec = secrets[name]
    low, high = GCM_FIXED_NONCE_BYTES if v.cipher == "aes-gcm" else (IV_BYTES[v.cipher], IV_BYTES[v.cipher])
    if spec.derive != "raw" or not low <= spec.bytes <= high:
        size = f"{low}" if low == high else f"{low} to {high}"
        raise DescriptionError(where, f'iv = "secret:{name}" needs a raw secret of the IV length ({size} bytes); '
                               f"secret {name!r} has " + (f"{spec.bytes} bytes" if spec.derive == "raw"
                                                           else f'derive = "{spec.derive}"'))
    for side, knows in ((me, me_knows), (peer, peer_knows)):
        # A nonce sent alone must come first; an IV that is the key itself arrives with it (an
        # RSA-wrapped key beside its ciphertext), as the key check allows.
        if name not in knows and name != v.arg:
            raise DescriptionError(where, f"the IV is secret {name!r}, which the {side} does not know yet: "
                                   f'send it first ({{ secret = "{name}" }})')


def _check_carried(s: str, where: str, secrets: dict[str, SecretSpec], me: str) -> str:
    """A secret a plaintext carries (carries = "secret:S", a json-fields secret field): it exists and its
    maker sends it. Returns S, which the receiver knows from this message on."""
    if s not in secrets:
        raise DescriptionError(where, f"no secret {s!r}: add [secrets.{s}]")
    if secrets[s].made_by == "agreement":
        raise DescriptionError(where, f'secret {s!r} is agreed (made_by = "agreement"): each side computes it and '
                               "nobody sends it")
    if secrets[s].made_by != me:
        raise DescriptionError(where, f"the {me} carries secret {s!r} but it is made by {secrets[s].made_by}: only "
                               "its maker sends it")
    return s


def _agreed(secrets: tuple[SecretSpec, ...], known_keys: set[str]) -> set[str]:
    """The agreement secrets a side knows when it knows these keys' public halves: it holds one key of
    each pair, so knowing the other's public half is all it needs (SEC 1 v2 §3.3.1; RFC 7748 §6.1)."""
    return {s.name for s in secrets if s.made_by == "agreement" and set(s.keys) <= known_keys}


def _public_key_formats(spec: KeySpec) -> tuple[str, ...]:
    if spec.type == "x25519":
        return X25519_KEY_FORMATS
    return EC_KEY_FORMATS if spec.type in EC_KEY_TYPES else KEY_FORMATS


def _check_also_accepts(v: Value, spec: KeySpec) -> None:
    """also_accepts: more of an RSA key's formats, none twice (nor `format`), each text or binary as
    `format` is: the receiver reads them from the same bytes."""
    where = _join(v.path, "also_accepts")
    if spec.type != "rsa":
        raise DescriptionError(where, f"also_accepts is for RSA keys; key {spec.name!r} is {spec.type}")
    same = TEXT_KEY_FORMATS if v.format in TEXT_KEY_FORMATS else BINARY_KEY_FORMATS
    seen = {v.format}
    for fmt in v.also_accepts:
        if fmt not in KEY_FORMATS:
            raise DescriptionError(where, f"also_accepts lists RSA public-key formats: {', '.join(KEY_FORMATS)}; "
                                   f"found {fmt!r}")
        if fmt in seen:
            raise DescriptionError(where, f"also_accepts repeats a format ({fmt!r})")
        seen.add(fmt)
        if fmt not in same:
            side = "text" if same is TEXT_KEY_FORMATS else "binary"
            raise DescriptionError(where, f"also_accepts formats must be {side} as format {v.format!r} is "
                                   f"({', '.join(same)})")


def _check_toy_key(v: Value, spec: KeySpec) -> None:
    """A toy key (bits 8 to 15) is for per-character values only, and a per-character value needs one; its
    public half may be sent as a pickle's e and n (NithinYesudas/Networking_Lab_Python's rsa_client.py)."""
    if v.kind == "public_key" and v.format in PICKLE_KEY_FORMATS:
        return
    per_character = v.kind == "rsa" and v.padding == "per-character"
    if spec.type != "rsa" or per_character == (spec.bits in TOY_BITS):
        return
    if per_character:
        raise DescriptionError(_join(v.path, "padding"), 'padding = "per-character" needs a toy key (bits 8 to 15 in '
                               f"[keys.{spec.name}]); key {spec.name!r} is {spec.bits} bits")
    use = f'with padding = "{v.padding}"' if v.kind == "rsa" else "as a public_key value"
    raise DescriptionError(f"keys.{spec.name}.bits", f"{TOY_KEY_USE}; {v.path} uses key {spec.name!r} {use}")


def _unknown_agreement(spec: SecretSpec, keys: dict[str, KeySpec], side: str) -> str:
    """Why `side` does not know agreement secret `spec` yet: the other key's public half."""
    other = next(k for k in spec.keys if keys[k].holder != side)
    return (f"secret {spec.name!r} is agreed from keys {spec.keys[0]!r} and {spec.keys[1]!r}, and the {side} has not "
            f"received key {other!r}'s public half yet: send it in an earlier public_key value from the "
            f"{keys[other].holder}, or set preshared = true in [keys.{other}]")


def _check_knowledge(desc: Description, conv: Conversation, p: str) -> None:
    keys = {k.name: k for k in desc.keys}
    secrets = {s.name: s for s in desc.secrets}
    other = {"client": "server", "server": "client"}
    knows_key = {r: {k.name for k in desc.keys if k.holder == r or k.preshared} for r in ROLES}
    knows_secret = {r: {s.name for s in desc.secrets if s.made_by in (r, "preshared")} | _agreed(desc.secrets, knows_key[r])
                    for r in ROLES}
    token_issued = False
    has_received = {r: False for r in ROLES}  # whether the side has received a message in this conversation
    for step in conv.steps:
        me, peer = step.sender, other[step.sender]
        learned_keys: set[str] = set()
        learned_secrets: set[str] = set()
        for top in step.tops():
            for v in _walk(top):
                kp = _join(v.path, v.kind)
                if v.kind == "concat":
                    _check_concat(v, secrets, keys)
                if v.kind in ("public_key", "rsa", "signature") and v.arg not in keys:
                    raise DescriptionError(kp, f"no key {v.arg!r}: add [keys.{v.arg}] or use one of "
                                           f"{', '.join(keys) or '(none)'}")
                if v.kind in ("sealed", "secret", "mac") and v.arg not in secrets:
                    raise DescriptionError(kp, f"no secret {v.arg!r}: add [secrets.{v.arg}] or use one of "
                                           f"{', '.join(secrets) or '(none)'}")
                if v.kind == "signature":
                    spec = keys[v.arg]
                    if spec.type != "ec-p256":
                        what = "an RSA key" if spec.type == "rsa" else f"an {spec.type} key"
                        raise DescriptionError(kp, f"key {v.arg!r} is {what}; an ecdsa-sha256 signature needs "
                                               f'type = "ec-p256" in [keys.{v.arg}]')
                    if spec.holder != me:
                        raise DescriptionError(kp, f"key {v.arg!r}'s private half is the {spec.holder}'s, so the {me} "
                                               "cannot sign with it: sign with a key the sender holds")
                    if v.arg not in knows_key[peer]:
                        raise DescriptionError(kp, f"the {peer} does not know key {v.arg!r}'s public half before this message, so it "
                                               "cannot verify this: send it in an earlier step in a public_key value, or set preshared = true")
                if (v.kind == "public_key" and v.format not in _public_key_formats(keys[v.arg])
                        and not (v.format in PICKLE_KEY_FORMATS and keys[v.arg].type == "rsa")):
                    spec = keys[v.arg]
                    what = "an RSA key" if spec.type == "rsa" else f"an {spec.type} key"
                    raise DescriptionError(_join(v.path, "format"), f"key {v.arg!r} is {what}: its public half is "
                                           f"{', '.join(_public_key_formats(spec))}, not {v.format}")
                if v.kind == "public_key" and v.also_accepts:
                    _check_also_accepts(v, keys[v.arg])
                if v.kind == "rsa" and keys[v.arg].type != "rsa":
                    raise DescriptionError(kp, f"key {v.arg!r} is an {keys[v.arg].type} key; rsa encrypts to an RSA key")
                if v.kind in ("rsa", "public_key"):
                    _check_toy_key(v, keys[v.arg])
                if v.kind == "rsa" and v.padding == "per-character" and v.carries == "message" and conv.message is not None:
                    if not conv.message:  # an empty ciphertext is refused: there is nothing to decrypt
                        raise DescriptionError(_join(p, "message"), "per-character RSA carries 1 or more characters; "
                                               "the conversation's message is empty")
                    if not _per_character_carries_text(conv.message.decode("utf-8"), v.offset):  # TOML text: UTF-8
                        raise DescriptionError(_join(p, "message"), _per_character_range(v.offset))
                if v.kind == "repeat":
                    if desc.transport.is_http:
                        raise DescriptionError(kp, 'repeat = "received" is the whole send of a tcp step; an http '
                                               "request or response is not one")
                    if not has_received[me]:
                        raise DescriptionError(v.path, 'repeat = "received" sends back the last message this side '
                                               f"received; the {me} has received none before this step")
                if v.kind == "public_key":
                    if keys[v.arg].holder != me:
                        raise DescriptionError(kp, f"the {me} sends key {v.arg!r}'s public half but the "
                                               f"{keys[v.arg].holder} holds it: change holder or the step's from")
                    learned_keys.add(v.arg)
                    # An agreement secret the peer can compute from here on (an ephemeral key before its ciphertext).
                    learned_secrets |= _agreed(desc.secrets, knows_key[peer] | learned_keys)
                if v.kind == "rsa":
                    spec = keys[v.arg]
                    if v.arg not in knows_key[me]:
                        raise DescriptionError(kp, f"the {me} encrypts to key {v.arg!r} but never learns its public "
                                               "half: send it first in a public_key value from the "
                                               f"{spec.holder}, or set preshared = true")
                    if spec.holder != peer:
                        raise DescriptionError(kp, f"the {peer} receives this but the {spec.holder} holds key "
                                               f"{v.arg!r}'s private half: encrypt to a key the {peer} holds")
                if v.kind == "secret" and secrets[v.arg].made_by == "agreement":
                    raise DescriptionError(kp, f"secret {v.arg!r} is agreed (made_by = \"agreement\"): each side "
                                           "computes it and nobody sends it; send a public_key value instead")
                if v.kind in ("sealed", "secret") and v.arg not in knows_secret[me]:
                    if secrets[v.arg].made_by == "agreement":
                        raise DescriptionError(kp, f"the {me} does not know secret {v.arg!r} here: "
                                               + _unknown_agreement(secrets[v.arg], keys, me))
                    raise DescriptionError(kp, f"the {me} does not know secret {v.arg!r} here: it is made by "
                                           f"{secrets[v.arg].made_by}; carry it to the {me} first")
                if v.kind == "secret":
                    if v.encoding == "utf8" and secrets[v.arg].derive not in TEXT_DERIVES:
                        raise DescriptionError(_join(v.path, "encoding"), "encoding utf8 is only for text secrets "
                                               "(utf8-zeropad16, passphrase-sha256, passphrase-sha256-128); use "
                                               "base64 or hex")
                    learned_secrets.add(v.arg)
                if v.kind == "sealed" and v.arg not in knows_secret[peer] and v.arg not in learned_secrets:
                    # Learned before this value: in an earlier message, or earlier in this one (an RSA-wrapped key first).
                    if secrets[v.arg].made_by == "agreement":
                        raise DescriptionError(kp, f"the {peer} cannot open this: "
                                               + _unknown_agreement(secrets[v.arg], keys, peer))
                    raise DescriptionError(kp, f"the {peer} never learns secret {v.arg!r}, so it cannot open this; "
                                           f'send it first (carries = "secret:{v.arg}" or {{ secret = "{v.arg}" }})')
                if v.kind == "sealed":
                    spec = secrets[v.arg]
                    need = {"chacha20-poly1305": (32,), "chacha20": (32,), "fernet": (32,),
                            "salsa20": (16, 32)}.get(v.cipher, (16, 24, 32))
                    if spec.key_bytes not in need:
                        passphrase = spec.derive in PASSPHRASE_KEY_BYTES
                        fix = 'use derive = "passphrase-sha256"' if passphrase else "set bytes = 32"
                        if spec.made_by == "agreement" and spec.kdf == "none":
                            fix = 'use derive = "sha256" (or an hkdf kdf)'  # the shared secret's length is the curve's
                        sizes = {"salsa20": "a 16- or 32-byte", "chacha20-poly1305": "a 32-byte", "chacha20": "a 32-byte",
                                 "fernet": "a 32-byte"}.get(v.cipher, "a 16-, 24- or 32-byte")
                        if spec.key_bytes < 16:
                            article = "an" if spec.key_bytes == 8 else "a"
                            fix = f'{article} {spec.key_bytes}-byte secret is a nonce: use it as iv = "secret:{v.arg}"'
                        raise DescriptionError(_join(v.path, "cipher"), f"{v.cipher} needs {sizes} key; secret "
                                               f"{v.arg!r} gives {spec.key_bytes} bytes: {fix}")
                if v.kind == "length_of" and v.arg == "message":
                    _check_length_of(v, conv)
                if v.kind == "starts_with":
                    raise DescriptionError(v.path, "starts_with is only a tcp conversation's error or errors value "
                                           "(a refusal whose text varies); a step sends a value both sides can check")
                if v.kind == "mac":
                    for side in (me, peer):
                        if v.arg not in knows_secret[side]:
                            raise DescriptionError(kp, f"the {side} does not know secret {v.arg!r} here, so it cannot "
                                                   f"{'compute' if side == me else 'verify'} the MAC")
                    if v.algorithm == "cmac-aes" and secrets[v.arg].key_bytes not in (16, 24, 32):
                        raise DescriptionError(kp, f"cmac-aes needs a 16-, 24- or 32-byte key; secret {v.arg!r} gives "
                                               f"{secrets[v.arg].key_bytes} bytes")
                if (v.kind == "sealed" and v.carries == "message" and conv.message
                        and v.cipher in ("aes-cbc", "aes-ecb")
                        and conv.message[-1:] == {"space": b" ", "zero": b"\x00"}.get(v.padding, b"-")):
                    raise DescriptionError(_join(v.path, "padding"), "the conversation's message ends in "
                                           f"{'a space' if v.padding == 'space' else '0x00'}, which {v.padding} padding "
                                           "strips: it cannot be carried")
                if v.kind == "rsa" and v.padding == "none":
                    fixed = conv.message if v.carries == "message" else (
                        v.carries[5:].encode("utf-8") if v.carries.startswith("text:") else None)
                    k = keys[v.arg].bits // 8 if v.arg in keys else None
                    if fixed is not None and (fixed[:1] in (b"", b"\x00") or (k is not None and len(fixed) >= k)):
                        # OS2IP (RFC 8017 §4.2) of an empty or 0x00-led plaintext does not give it back, and
                        # k bytes may not be below n (RSAEP §5.1.1 step 1).
                        raise DescriptionError(_join(v.path, "padding"), "textbook RSA (padding none) carries 1 to k-1 "
                                               "bytes not starting with 0x00; the "
                                               + ("conversation's message" if v.carries == "message" else "stated text")
                                               + (" is empty" if not fixed else " starts with 0x00" if fixed[0] == 0
                                                  else f" has {len(fixed)} bytes, and k is {k}"))
                if v.kind == "sealed" and v.iv.startswith("secret:"):
                    _check_iv_secret(v, secrets, knows_secret[me], knows_secret[peer], me, peer)
                if v.carries.startswith("secret:"):
                    learned_secrets.add(_check_carried(v.carries[7:], _join(v.path, "carries"), secrets, me))
                for fname, fkind in v.fields:  # json-fields: { secret = "S", encoding = ... } teaches S too
                    carried_secret = field_secret(fkind)
                    if carried_secret is not None:
                        where = _join(_join(_join(v.path, "fields"), fname), "secret")
                        learned_secrets.add(_check_carried(carried_secret[0], where, secrets, me))
                if v.carries in ("echo", "same") and me != "server":
                    raise DescriptionError(_join(v.path, "carries"), f"carries = {v.carries!r} is a server's answer")
                if v.kind == "token":
                    if v.arg == "new" and me != "server":
                        raise DescriptionError(kp, 'token = "new" is made by the server')
                    if v.arg == "issued":
                        if me != "client":
                            raise DescriptionError(kp, 'token = "issued" is sent back by the client')
                        if not token_issued:
                            raise DescriptionError(kp, 'the client sends a token before the server issued one: '
                                                   'add token = "new" to an earlier server step')
                    token_issued = token_issued or v.arg == "new"
        knows_key[peer] |= learned_keys
        knows_secret[peer] |= learned_secrets | _agreed(desc.secrets, knows_key[peer])
        has_received[peer] = True
    for answer in (conv.error, *(v for _, v in conv.errors)):
        if answer is None:
            continue
        for v in _walk(answer):
            if v.kind not in ("text", "concat", "starts_with"):
                raise DescriptionError(_join(v.path, v.kind), "an error value is fixed text: use { text = \"...\" } "
                                       "(or { starts_with = \"...\" } for a text that varies after its beginning)")
