"""RSA keys: generate, load in every format the profiles use, export.

Loading is cached because the Swift harness hands the same PEM bytes over
hundreds of times, and pyca checks every private key on load (slow at 4096 bits).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import secrets
from functools import lru_cache

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric import rsa

from . import test_key_cache
from .errors import CryptoFailure, ErrorKind, bad_input, unsupported

PublicKey = rsa.RSAPublicKey
PrivateKey = rsa.RSAPrivateKey

MIN_BITS = 1024
MAX_BITS = 16384
# Toy keys: what a protocol description's [keys] with bits 8 to 15 makes, for `padding = "per-character"`
# values only (described/values.py; dianaxime/Lab6-Cifrado-PublicKeyEncription's rsa.py draws p, q =
# getPrime(5)). Loaded only where the caller says the key is one: n from 128 to 32767 (8 to 15 bits), so
# every character it encrypts is below U+8000 and never a surrogate (U+D800..U+DFFF).
TOY_BITS = range(8, 16)
TOY_MIN_N = 128
TOY_MAX_N = 32767
# pyca 38 only generates with e = 3 or 65537.
ALLOWED_EXPONENTS = (3, 65537)

PUBLIC_PEM_LABELS = (b"PUBLIC KEY", b"RSA PUBLIC KEY")
PRIVATE_PEM_LABELS = (b"PRIVATE KEY", b"RSA PRIVATE KEY", b"ENCRYPTED PRIVATE KEY")
PUBLIC_FORMATS = ("spki-pem", "spki-der", "pkcs1-pem", "pkcs1-der")
PRIVATE_FORMATS = ("pkcs8-pem", "pkcs8-der", "pkcs1-pem", "pkcs8-pem-encrypted")

_BEGIN = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----")
_LOAD_ERRORS = (ValueError, TypeError, UnsupportedAlgorithm)


def _bad_key(detail: str) -> CryptoFailure:
    return CryptoFailure(ErrorKind.BAD_KEY, detail)


def _why(exc: Exception) -> str:
    # pyca's ValueError carries a tuple (message, [openssl errors]); the message is enough.
    first = exc.args[0] if exc.args else exc
    return str(first)


def _pem_label(data: bytes) -> bytes | None:
    """The label of the first PEM block, or None if `data` is not PEM at all."""
    text = data.lstrip()
    if not text.startswith(b"-----BEGIN "):
        return None
    m = _BEGIN.match(text)
    if m is None:
        raise _bad_key("malformed PEM header line")
    return m.group(1)


_END = re.compile(rb"-----END [^\r\n]*?-----")


def _normalize_pem(data: bytes) -> bytes:
    # The iOS exporter omits the final newline, Windows tools write \r\n;
    # give OpenSSL one canonical shape. Only the first block: PEM_read_bio skips a block that does
    # not decode and takes the next, which would silently load another key (WireCrypto does not).
    second = data.find(b"-----BEGIN ", data.find(b"-----BEGIN ") + 1)
    if second > 0:
        data = data[:second]
    end = _END.search(data)
    if end is not None:
        data = data[: end.end()]
    return data.strip().replace(b"\r\n", b"\n") + b"\n"


def _norm_pass(passphrase: bytes | None) -> bytes | None:
    # An empty passphrase means "none": pyca would otherwise treat b"" as given.
    return passphrase or None


def _require_rsa_public(key: object) -> PublicKey:
    if not isinstance(key, rsa.RSAPublicKey):
        raise _bad_key(f"not an RSA key ({type(key).__name__})")
    return key


def _require_rsa_private(key: object) -> PrivateKey:
    if not isinstance(key, rsa.RSAPrivateKey):
        raise _bad_key(f"not an RSA private key ({type(key).__name__})")
    return key


_NUMBERS_RULE = "RFC 8017 §3.1 needs an odd e with 3 ≤ e < n"


def _numbers_defect(n: int, e: int, toy: bool = False) -> str | None:
    """What is wrong with (n, e) as an RSA public key, or None: the rule of WireCrypto's
    `requireValidRSANumbers` (RFC 8017 §3.1: n a product of odd primes, 3 ≤ e ≤ n − 1, e coprime
    to the even λ(n); the protocol's floor of 1024 bits, docs/PROTOCOL.md). e = 1 is the identity:
    "encrypting" to it sends the padded message in the clear. `toy`: a toy key's n (TOY_MIN_N to
    TOY_MAX_N) instead of the floor."""
    if e < 0:
        return f"e is negative: no RSA key ({_NUMBERS_RULE})"
    if e == 0:
        return f"e = 0: no RSA key ({_NUMBERS_RULE})"
    if e == 1:
        return f"e = 1: no RSA key (encrypting to it sends the message in the clear; {_NUMBERS_RULE})"
    if e % 2 == 0:
        shown = str(e) if e.bit_length() <= 64 else hex(e)
        return f"e = {shown} is even: no RSA key ({_NUMBERS_RULE})"
    if n <= 0:
        return "the modulus n is not positive: no RSA key (RFC 8017 §3.1)"
    if n % 2 == 0:
        return "the modulus n is even: no RSA key (RFC 8017 §3.1: n is a product of odd primes)"
    if toy and not TOY_MIN_N <= n <= TOY_MAX_N:
        return (f"the modulus has {n.bit_length()} bits: a toy key's has 8 to 15 (n from {TOY_MIN_N} to {TOY_MAX_N}, "
                'for padding = "per-character" only)')
    if not toy and n.bit_length() < MIN_BITS:
        return f"the modulus has {n.bit_length()} bits: below the {MIN_BITS} bits the protocol requires (docs/PROTOCOL.md)"
    if e >= n:
        return f"e is not below n: no RSA key ({_NUMBERS_RULE})"
    return None


def _require_valid_numbers(key: PublicKey | PrivateKey, toy: bool = False) -> None:
    public = key.public_key() if isinstance(key, rsa.RSAPrivateKey) else key
    numbers = public.public_numbers()
    defect = _numbers_defect(numbers.n, numbers.e, toy)
    if defect is not None:
        raise _bad_key(defect)


def public_from_numbers(n: int, e: int, *, toy: bool = False) -> PublicKey:
    """A public key from its two numbers (a Python pickle's e and n), by the number rule (`_numbers_defect`):
    `toy`: a toy key, as load_public's."""
    defect = _numbers_defect(n, e, toy)
    if defect is not None:
        raise _bad_key(defect)
    return rsa.RSAPublicNumbers(e, n).public_key()


def _require_der(der: bytes, encodings: tuple[bytes, ...]) -> None:
    """DER as DER (X.690 §10): what was loaded must re-encode to exactly the bytes given, as one of
    `encodings`. One rule for every BER form pyca's loader lets through (non-minimal and indefinite
    lengths, INTEGERs with leading zeros or a sign, a BIT STRING with unused bits, absent
    rsaEncryption parameters, other version numbers); WireCrypto's `requireDER` is the same."""
    if der in encodings:
        return

    def agreeing(encoded: bytes) -> int:
        return next((i for i, (a, b) in enumerate(zip(der, encoded)) if a != b), min(len(der), len(encoded)))

    canonical = max(encodings, key=agreeing)  # the structure that was meant: the longest common prefix
    # The TLV rules `_der_defect` names were checked before pyca read the key; what is left is what
    # only the re-encoding shows.
    raise _bad_key(
        f"not DER (X.690 §10): it re-encodes to other bytes from byte {agreeing(canonical)} on ({len(der)} bytes given, "
        f"{len(canonical)} in DER: missing or other algorithm parameters, or another version)"
    )


def _element(der: bytes, index: int) -> tuple[int, int, int]:
    """(tag, content start, content end) of the DER element at `index`; IndexError past the end."""
    length, start = der[index + 1], index + 2
    if length & 0x80:
        count = length & 0x7F
        length, start = int.from_bytes(der[start : start + count], "big"), start + count
    if start + length > len(der):
        raise IndexError("element past the end")
    return der[index], start, start + length


def _require_valid_public_numbers_in(der: bytes, toy: bool = False) -> None:
    """The number rule (`_numbers_defect`) on an SPKI's or PKCS#1 key's INTEGERs, read from DER
    that `_der_defect` passed, before pyca sees them: pyca ≥ 42 refuses some such keys itself, in
    its own words, and pyca 38 loads them; both are told the same defect this way."""
    try:
        _, start, _ = _element(der, 0)
        first = _element(der, start)
        if first[0] == 0x30:  # SPKI: algorithm, BIT STRING { 00, RSAPublicKey }
            bits = _element(der, first[2])
            if bits[0] != 0x03:
                return
            _, start, _ = _element(der, bits[1] + 1)
            first = _element(der, start)
        n_tag, n_start, n_end = first
        e_tag, e_start, e_end = _element(der, n_end)
    except IndexError:
        return  # not an RSA key's shape: the loader says what it is
    if n_tag != 0x02 or e_tag != 0x02:
        return
    defect = _numbers_defect(int.from_bytes(der[n_start:n_end], "big"), int.from_bytes(der[e_start:e_end], "big"), toy)
    if defect is not None:
        raise _bad_key(defect)


def _require_no_der_defect(der: bytes) -> None:
    """DER's rules named before pyca reads the key: pyca 38 (OpenSSL's decoders) takes some BER and
    reads its oddities into other numbers, pyca ≥ 42 (its own Rust parser) refuses them in words of
    its own; either way the person is told the same defect."""
    found = _der_defect(der)
    if found:
        raise _bad_key(f"not DER (X.690 §10): {found[0]} at byte {found[1]}")


def _der_defect(der: bytes, start: int = 0, stop: int | None = None, depth: int = 0) -> tuple[str, int] | None:
    """The first X.690 §10 (DER) rule the TLV tree breaks, and where: diagnosis only
    (`_require_der` decides). WireCrypto's `derDefect` gives the same words."""
    index, stop = start, len(der) if stop is None else stop
    while index < stop:
        if depth >= 16 or index + 2 > stop:
            return None
        tag, first = der[index], der[index + 1]
        length, content = first, index + 2
        if first == 0x80:
            return ("an indefinite length (BER)", index + 1)
        if first & 0x80:
            count = first & 0x7F
            if not 1 <= count <= 4 or content + count > stop:
                return None
            length = int.from_bytes(der[content : content + count], "big")
            if der[content] == 0 or length < 0x80:
                return ("a length in more bytes than it needs", index + 1)
            content += count
        end = content + length
        if end > stop:
            return None
        if tag == 0x02:
            if length == 0:
                return ("an empty INTEGER", index)
            if length > 1 and ((der[content] == 0 and not der[content + 1] & 0x80) or (der[content] == 0xFF and der[content + 1] & 0x80)):
                return ("an INTEGER with a redundant leading byte", content)
            if der[content] & 0x80:
                return ("a negative INTEGER (a key's numbers are positive)", content)
        elif tag == 0x03:
            if length == 0:
                return ("an empty BIT STRING", index)
            if der[content]:
                return (f"a BIT STRING with {der[content]} unused bits (a key's BIT STRING has none)", content)
            inner = _der_defect(der, content + 1, end, depth + 1)
            if inner:
                return inner
        elif tag == 0x04 or tag & 0x20:
            inner = _der_defect(der, content, end, depth + 1)
            if inner:
                return inner
        index = end
    return None


def _require_public_der(der: bytes, key: PublicKey) -> None:
    spki = len(der) > 2 and _first_inner_tag(der) == 0x30
    fmt = ser.PublicFormat.SubjectPublicKeyInfo if spki else ser.PublicFormat.PKCS1
    _require_der(der, (key.public_bytes(ser.Encoding.DER, fmt),))


def _require_private_der(der: bytes, key: PrivateKey) -> None:
    none = ser.NoEncryption()
    _require_der(
        der,
        (
            key.private_bytes(ser.Encoding.DER, ser.PrivateFormat.PKCS8, none),
            key.private_bytes(ser.Encoding.DER, ser.PrivateFormat.TraditionalOpenSSL, none),
        ),
    )


def _first_inner_tag(der: bytes) -> int | None:
    """The tag of the first element inside a DER SEQUENCE, or None."""
    if len(der) < 3 or der[0] != 0x30:
        return None
    header = 2 if der[1] < 0x80 else 2 + (der[1] & 0x7F)
    return der[header] if header < len(der) else None


def _is_encrypted_pkcs8(der: bytes) -> bool:
    # EncryptedPrivateKeyInfo is SEQUENCE { SEQUENCE algorithm, OCTET STRING }: its first inner
    # element is a SEQUENCE, which no plain private-key structure has.
    return _first_inner_tag(der) == 0x30


@lru_cache(maxsize=128)
def _load_private_cached(data: bytes, passphrase: bytes | None, toy: bool) -> PrivateKey:
    label = _pem_label(data)
    try:
        der: bytes | None
        if label is None:
            der = data
            _require_one_structure(der)
            _require_plain_private_der(der)
            key = ser.load_der_private_key(der, passphrase)
        elif label in PRIVATE_PEM_LABELS and b"Proc-Type:" in data[:512]:
            # Legacy PEM with headers (OpenSSL 1.x `genrsa -aes256`): OpenSSL's PEM reader decrypts it.
            der = None
            key = ser.load_pem_private_key(_normalize_pem(data), passphrase)
        elif label in PRIVATE_PEM_LABELS:
            der = _pem_der(data, label)
            _require_one_structure(der)
            _require_plain_private_der(der)
            key = ser.load_der_private_key(der, passphrase)
        else:
            raise _bad_key(f"PEM label {label.decode()!r} is not a private key label")
    except _LOAD_ERRORS as exc:
        raise _bad_key(f"cannot load private key: {_why(exc)}") from None
    private = _require_rsa_private(key)
    # An encrypted key's DER is the encryption's: only its numbers can be checked.
    if der is not None and not _is_encrypted_pkcs8(der):
        _require_private_der(der, private)
    _require_valid_numbers(private, toy)
    return private


def _require_plain_private_der(der: bytes) -> None:
    """DER's rules and the version, named before pyca reads a private key that is not encrypted (an
    encrypted one's content is ciphertext: the loader decides)."""
    if not _is_encrypted_pkcs8(der):
        _require_no_der_defect(der)
        _require_private_version(der)


def _require_private_version(der: bytes) -> None:
    """RFC 8017 A.1.2: RSAPrivateKey's version "SHALL be 0 ..., unless multi-prime is used, in which
    case it SHALL be 1"; OpenSSL keeps and re-encodes any other value, so `_require_der` cannot
    catch it. `der` is DER already (PKCS#8 or PKCS#1). WireCrypto's `requireRSAPrivateKeyVersion`."""

    try:
        _, outer_start, _ = _element(der, 0)
        version = _element(der, outer_start)
        second = _element(der, version[2])
        if second[0] == 0x30:  # PKCS#8: version, algorithm, OCTET STRING { RSAPrivateKey }
            _, octets_start, _ = _element(der, second[2])
            _, inner_start, _ = _element(der, octets_start)
            version = _element(der, inner_start)
    except IndexError:
        return  # not DER: `_require_private_der` names that
    value = der[version[1] : version[2]]
    if version[0] != 0x02 or len(value) != 1 or value[0] > 1:
        shown = str(int.from_bytes(value, "big", signed=True)) if len(value) == 1 else "0x" + value.hex()
        raise _bad_key(f"the RSAPrivateKey version is {shown}, not 0 (two primes) or 1 (more): RFC 8017 A.1.2")


def _tlv_end(der: bytes, offset: int, depth: int = 0) -> int:
    """Where the (BER) element at `offset` ends; indefinite lengths are followed to their 00 00."""
    if depth > 32 or offset + 2 > len(der) or der[offset] & 0x1F == 0x1F:
        raise _bad_key("DER with a malformed length")
    size, position = der[offset + 1], offset + 2
    if size == 0x80:  # BER indefinite length: elements until the end-of-contents octets
        while der[position : position + 2] != b"\x00\x00":
            if position >= len(der):
                raise _bad_key("DER with a malformed length")
            position = _tlv_end(der, position, depth + 1)
        return position + 2
    if size & 0x80:
        count = size & 0x7F
        if not 1 <= count <= 4 or position + count > len(der):
            raise _bad_key("DER with a malformed length")
        size, position = int.from_bytes(der[position : position + count], "big"), position + count
    if position + size > len(der):
        raise _bad_key("the DER structure is longer than the data")
    return position + size


def _require_one_structure(der: bytes) -> None:
    """DER must be exactly one structure (docs/PROTOCOL.md): pyca reads the first and ignores
    whatever follows it, WireCrypto refuses trailing bytes."""
    end = _tlv_end(der, 0)
    if end != len(der):
        raise _bad_key(f"{len(der) - end} bytes follow the DER structure")


_RSA_ENCRYPTION_OID = bytes.fromhex("06092a864886f70d010101")


def _require_rsa_encryption_spki(der: bytes) -> None:
    """An SPKI must name rsaEncryption: pyca also loads RSASSA-PSS keys (signature-only) as RSA
    public keys, which WireCrypto (and the protocol) refuse."""
    header = 2 if der[1] < 0x80 else 2 + (der[1] & 0x7F)
    inner = der[header:]
    if inner[:1] != b"\x30":
        return  # PKCS#1 RSAPublicKey (or a private key): no algorithm to check
    algorithm = 2 if len(inner) > 1 and inner[1] < 0x80 else 2 + (inner[1] & 0x7F if len(inner) > 1 else 0)
    if not inner[algorithm:].startswith(_RSA_ENCRYPTION_OID):
        raise _bad_key("not an RSA encryption key: the SubjectPublicKeyInfo algorithm is not rsaEncryption")


def _pem_der(data: bytes, label: bytes) -> bytes:
    """The DER of the first PEM block labelled `label`, read as WireCrypto's PEM.body reads it: the
    BEGIN line ends in a line end (LF, CRLF or CR), the body is the text up to the END line with
    `\\r`/`\\n` dropped, strict base64, not empty. (OpenSSL's PEM readers differ on damaged blocks;
    both sides decode the body themselves instead.)"""
    text = data.decode("ascii", errors="replace")
    begin, end = f"-----BEGIN {label.decode()}-----", f"-----END {label.decode()}-----"
    start = text.find(begin)
    stop = text.find(end, start + len(begin)) if start >= 0 else -1
    if start < 0 or stop < start:
        raise _bad_key(f"no complete {label.decode()!r} PEM block")
    # docs/PROTOCOL.md, "PEM line ends": LF, CRLF or a lone CR; the BEGIN line must end in one.
    if text[start + len(begin) : start + len(begin) + 1] not in ("\r", "\n") or start + len(begin) >= stop:
        raise _bad_key(f"the {label.decode()!r} BEGIN line does not end in a line end (LF, CRLF or CR)")
    body = text[start + len(begin) : stop].replace("\r", "").replace("\n", "")
    try:
        if len(body) % 4 or body.endswith("==="):  # b64decode takes superfluous padding ("YWJj=", "YWJj====")
            raise ValueError("base64 is not padded to a multiple of 4 with at most two '='")
        der = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        raise _bad_key(f"the {label.decode()!r} PEM body is not base64") from None
    if not der:
        raise _bad_key(f"the {label.decode()!r} PEM body is empty")
    return der


def _require_body_matches_label(data: bytes, label: bytes) -> bytes:
    """The PEM block's DER (`_pem_der`), one DER structure. pyca accepts SPKI under `RSA PUBLIC KEY`
    (and the reverse); the protocol does not, because that is a client bug worth catching. SPKI is
    SEQUENCE { SEQUENCE algorithm, BIT STRING }; PKCS#1 is SEQUENCE { INTEGER n, INTEGER e }: the
    first inner tag tells them apart."""
    der = _pem_der(data, label)
    if len(der) < 3 or der[0] != 0x30:
        raise _bad_key(f"the {label.decode()!r} PEM body is not a DER SEQUENCE")
    expected = 0x30 if label == b"PUBLIC KEY" else 0x02
    if _first_inner_tag(der) != expected:
        holds = "a PKCS#1 RSAPublicKey" if label == b"PUBLIC KEY" else "a SubjectPublicKeyInfo"
        raise _bad_key(f"the {label.decode()!r} PEM block holds {holds}, not what its label says")
    _require_one_structure(der)
    return der


@lru_cache(maxsize=128)
def _load_public_only_cached(data: bytes, toy: bool) -> PublicKey:
    label = _pem_label(data)
    try:
        if label is None:
            der = data
            _require_one_structure(der)
            _require_no_der_defect(der)
            _require_rsa_encryption_spki(der)
            _require_valid_public_numbers_in(der, toy)
            key = ser.load_der_public_key(der)  # SPKI or bare PKCS#1 RSAPublicKey
        elif label in PUBLIC_PEM_LABELS:
            der = _require_body_matches_label(data, label)
            _require_no_der_defect(der)
            _require_rsa_encryption_spki(der)
            _require_valid_public_numbers_in(der, toy)
            key = ser.load_der_public_key(der)
        else:
            raise _bad_key(f"PEM label {label.decode()!r} is not a public key label")
    except _LOAD_ERRORS as exc:
        raise _bad_key(f"cannot load public key: {_why(exc)}") from None
    public = _require_rsa_public(key)
    # DER first: BER's oddities read as other numbers (a BIT STRING with unused bits shifts e).
    _require_public_der(der, public)
    _require_valid_numbers(public, toy)
    return public


def load_private(data: bytes, passphrase: bytes | None = None, *, toy: bool = False) -> PrivateKey:
    """PKCS#8 PEM/DER, PKCS#1 PEM/DER, encrypted PKCS#8 PEM/DER. `toy`: a toy key (TOY_MIN_N to
    TOY_MAX_N), and only one, where the caller's description says the key is one."""
    return _load_private_cached(bytes(data), _norm_pass(passphrase), toy)


def load_public(data: bytes, passphrase: bytes | None = None, *, toy: bool = False) -> PublicKey:
    """Any public key format, or any private key format (its public half). `toy`: as load_private."""
    data = bytes(data)
    label = _pem_label(data)
    if label is not None and label in PRIVATE_PEM_LABELS:
        return load_private(data, passphrase, toy=toy).public_key()
    if label is not None:
        return _load_public_only_cached(data, toy)
    # DER carries no label: try public first, then private.
    try:
        return _load_public_only_cached(data, toy)
    except CryptoFailure as public_failure:
        try:
            return load_private(data, passphrase, toy=toy).public_key()
        except CryptoFailure as private_failure:
            raise _bad_key(
                f"DER is neither an RSA public key ({public_failure.detail})"
                f" nor an RSA private key ({private_failure.detail})"
            ) from None


def generate(bits: int, e: int = 65537) -> PrivateKey:
    if not MIN_BITS <= bits <= MAX_BITS:
        raise bad_input(f"bits must be in {MIN_BITS}..{MAX_BITS}, got {bits}")
    if e not in ALLOWED_EXPONENTS:
        raise bad_input(f"e must be one of {ALLOWED_EXPONENTS}, got {e}")
    if e != 65537:
        return rsa.generate_private_key(public_exponent=e, key_size=bits)
    return test_key_cache.key(bits, lambda: rsa.generate_private_key(public_exponent=e, key_size=bits))


def _primes(low: int, high: int) -> list[int]:
    """The primes in [low, high), by trial division (high is at most 256 here)."""
    return [p for p in range(max(low, 2), high) if all(p % f for f in range(2, math.isqrt(p) + 1))]


def generate_toy(bits: int) -> PrivateKey:
    """A fresh toy key of exactly `bits` bits (8 to 15), as textbook RSA makes one (RFC 8017 §3.1, §3.2):
    distinct primes p, q drawn from those in [2^(h-1), 2^h), h = ceil(bits/2), until n = pq has `bits`
    bits; e a random odd number in [3, φ) with gcd(e, φ) = 1, φ = (p-1)(q-1); d = e^-1 mod φ. An ordinary
    pyca key (pyca loads and exports keys this small), with the CRT values RFC 8017 §3.2 names."""
    if bits not in TOY_BITS:
        raise bad_input(f"a toy key has 8 to 15 bits, got {bits}")
    half = (bits + 1) // 2
    candidates = _primes(1 << (half - 1), 1 << half)
    while True:
        p, q = secrets.choice(candidates), secrets.choice(candidates)
        if p != q and (p * q).bit_length() == bits:
            break
    phi = (p - 1) * (q - 1)
    while True:
        e = 3 + 2 * secrets.randbelow(phi // 2 - 1)  # the odd numbers 3, 5, ..., φ - 1
        if math.gcd(e, phi) == 1:
            break
    d = pow(e, -1, phi)
    return rsa.RSAPrivateNumbers(p, q, d, d % (p - 1), d % (q - 1), pow(q, -1, p),
                                 rsa.RSAPublicNumbers(e, p * q)).private_key()


def public_info(key: PublicKey) -> dict[str, object]:
    nums = key.public_numbers()
    # An exponent over 63 bits cannot cross to Swift as an int: `e` is 0 for it (as WireCrypto's
    # RSAKeyInfo.publicExponent), and `e_hex` always holds it, which is what comparisons use.
    e = nums.e if nums.e.bit_length() <= 63 else 0
    return {"n": format(nums.n, "x"), "e": e, "e_hex": format(nums.e, "x"), "bits": key.key_size}


def ios_pem(label: str, der: bytes) -> bytes:
    """PEM exactly as iOS CryptoExportImportManager builds it: 64-char lines, no final newline."""
    b64 = base64.b64encode(der)
    lines = b"".join(b64[i : i + 64] + b"\n" for i in range(0, len(b64), 64))
    return b"-----BEGIN " + label.encode() + b"-----\n" + lines + b"-----END " + label.encode() + b"-----"


def export_public(key: PublicKey, fmt: str) -> bytes:
    if fmt in ("spki-pem", "spki-der"):
        der = key.public_bytes(ser.Encoding.DER, ser.PublicFormat.SubjectPublicKeyInfo)
        return ios_pem("PUBLIC KEY", der) if fmt == "spki-pem" else der
    if fmt in ("pkcs1-pem", "pkcs1-der"):
        der = key.public_bytes(ser.Encoding.DER, ser.PublicFormat.PKCS1)
        return ios_pem("RSA PUBLIC KEY", der) if fmt == "pkcs1-pem" else der
    raise unsupported("public key format", fmt, PUBLIC_FORMATS)


def export_private(key: PrivateKey, fmt: str, export_passphrase: bytes | None = None) -> bytes:
    if fmt == "pkcs8-pem-encrypted":
        if not export_passphrase:
            raise bad_input("pkcs8-pem-encrypted needs a non-empty export_passphrase")
        return key.private_bytes(
            ser.Encoding.PEM, ser.PrivateFormat.PKCS8, ser.BestAvailableEncryption(export_passphrase)
        )
    table = {
        "pkcs8-pem": (ser.Encoding.PEM, ser.PrivateFormat.PKCS8),
        "pkcs8-der": (ser.Encoding.DER, ser.PrivateFormat.PKCS8),
        "pkcs1-pem": (ser.Encoding.PEM, ser.PrivateFormat.TraditionalOpenSSL),
    }
    if fmt not in table:
        raise unsupported("private key format", fmt, PRIVATE_FORMATS)
    if export_passphrase:
        raise bad_input(f"export_passphrase is only for pkcs8-pem-encrypted, not {fmt}")
    encoding, fmt_ = table[fmt]
    return key.private_bytes(encoding, fmt_, ser.NoEncryption())
