"""RSA keys: generate, load in every format the profiles use, export.

Loading is cached because the Swift harness hands the same PEM bytes over
hundreds of times, and pyca checks every private key on load (slow at 4096 bits).
"""

from __future__ import annotations

import base64
import binascii
import re
from functools import lru_cache

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric import rsa

from .errors import CryptoFailure, ErrorKind, bad_input, unsupported

PublicKey = rsa.RSAPublicKey
PrivateKey = rsa.RSAPrivateKey

MIN_BITS = 1024
MAX_BITS = 16384
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


@lru_cache(maxsize=128)
def _load_private_cached(data: bytes, passphrase: bytes | None) -> PrivateKey:
    label = _pem_label(data)
    try:
        if label is None:
            _require_one_structure(data)
            key = ser.load_der_private_key(data, passphrase)
        elif label in PRIVATE_PEM_LABELS and b"Proc-Type:" in data[:512]:
            # Legacy PEM with headers (OpenSSL 1.x `genrsa -aes256`): OpenSSL's PEM reader decrypts it.
            key = ser.load_pem_private_key(_normalize_pem(data), passphrase)
        elif label in PRIVATE_PEM_LABELS:
            der = _pem_der(data, label)
            _require_one_structure(der)
            key = ser.load_der_private_key(der, passphrase)
        else:
            raise _bad_key(f"PEM label {label.decode()!r} is not a private key label")
    except _LOAD_ERRORS as exc:
        raise _bad_key(f"cannot load private key: {_why(exc)}") from None
    return _require_rsa_private(key)


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
    header = 2 if der[1] < 0x80 else 2 + (der[1] & 0x7F)
    expected = 0x30 if label == b"PUBLIC KEY" else 0x02
    if header >= len(der) or der[header] != expected:
        holds = "a PKCS#1 RSAPublicKey" if label == b"PUBLIC KEY" else "a SubjectPublicKeyInfo"
        raise _bad_key(f"the {label.decode()!r} PEM block holds {holds}, not what its label says")
    _require_one_structure(der)
    return der


@lru_cache(maxsize=128)
def _load_public_only_cached(data: bytes) -> PublicKey:
    label = _pem_label(data)
    try:
        if label is None:
            _require_one_structure(data)
            _require_rsa_encryption_spki(data)
            key = ser.load_der_public_key(data)  # SPKI or bare PKCS#1 RSAPublicKey
        elif label in PUBLIC_PEM_LABELS:
            der = _require_body_matches_label(data, label)
            _require_rsa_encryption_spki(der)
            key = ser.load_der_public_key(der)
        else:
            raise _bad_key(f"PEM label {label.decode()!r} is not a public key label")
    except _LOAD_ERRORS as exc:
        raise _bad_key(f"cannot load public key: {_why(exc)}") from None
    return _require_rsa_public(key)


def load_private(data: bytes, passphrase: bytes | None = None) -> PrivateKey:
    """PKCS#8 PEM/DER, PKCS#1 PEM/DER, encrypted PKCS#8 PEM/DER."""
    return _load_private_cached(bytes(data), _norm_pass(passphrase))


def load_public(data: bytes, passphrase: bytes | None = None) -> PublicKey:
    """Any public key format, or any private key format (its public half)."""
    data = bytes(data)
    label = _pem_label(data)
    if label is not None and label in PRIVATE_PEM_LABELS:
        return load_private(data, passphrase).public_key()
    if label is not None:
        return _load_public_only_cached(data)
    # DER carries no label: try public first, then private.
    try:
        return _load_public_only_cached(data)
    except CryptoFailure as public_failure:
        try:
            return load_private(data, passphrase).public_key()
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
    return rsa.generate_private_key(public_exponent=e, key_size=bits)


def public_info(key: PublicKey) -> dict[str, object]:
    nums = key.public_numbers()
    # An exponent over 63 bits cannot cross to Swift as an int (nor fit WireCrypto's RSAKeyInfo,
    # which reports 0 for it): report 0 the same way. Such keys are useless, not secret.
    e = nums.e if nums.e.bit_length() <= 63 else 0
    return {"n": format(nums.n, "x"), "e": e, "bits": key.key_size}


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
