"""RSA encryption and decryption with the paddings of the rsa-socket profile.

The profile's paddings have names (`pkcs1`, `oaep-sha1`, `oaep-sha256`); `oaep` takes the
label hash and the MGF1 hash as separate OpenSSL digest names (what Wycheproof varies):
SHA1, SHA224, SHA256, SHA384, SHA512, SHA512-224, SHA512-256.

Decryption failures of every cause are reported as one kind with one text, so
this module can never become a Bleichenbacher/Manger oracle by its answers.

PKCS#1 v1.5 decryption models both Pi generations, whatever OpenSSL pyca links (`rejection`):
`explicit` (Debian 12, OpenSSL 3.0: a bad padding is an error) and `implicit` (OpenSSL >= 3.2:
a bad padding decrypts to a synthetic message derived from the private key and the ciphertext,
draft-irtf-cfrg-rsa-guidance "implicit rejection", OpenSSL PR 13817). When the linked OpenSSL does
what is asked (found once per process by decrypting a known-bad padding), pyca decrypts; otherwise
this module does it from the private numbers (`_pkcs1_decrypt`). Either way, a ciphertext of the
wrong length or >= the modulus is an error, as every OpenSSL has it.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Optional

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding as asym

from .checks import one_of
from .errors import CryptoFailure, ErrorKind, bad_input, unsupported
from .primitives import HASHES, hash_algorithm
from .rsa_keys import PrivateKey, PublicKey

PADDINGS = ("pkcs1", "oaep-sha1", "oaep-sha256", "oaep")
# OpenSSL's digest names (as WireCrypto's Digest spells them) for padding "oaep".
OAEP_HASHES = HASHES
# pyca 38 allows only these as OAEP and MGF1 hashes, though OpenSSL takes SHA-512/t as well.
_PYCA_OAEP_HASHES = (hashes.SHA1, hashes.SHA224, hashes.SHA256, hashes.SHA384, hashes.SHA512)
# Bytes of padding overhead: 11 for PKCS#1 v1.5, 2*hLen+2 for OAEP.
_OVERHEAD = {"pkcs1": 11, "oaep-sha1": 2 * 20 + 2, "oaep-sha256": 2 * 32 + 2}
DECRYPT_FAILED_DETAIL = "RSA decryption failed"
# What a bad PKCS#1 v1.5 padding decrypts to: an error (OpenSSL 3.0, iOS) or a synthetic message
# (OpenSSL >= 3.2's default). OAEP is the same under both: always an error.
REJECTIONS = ("explicit", "implicit")


class _Scheme:
    """A resolved padding: pyca's padding object plus the hashes it was built from."""

    def __init__(self, name: str, pad: asym.AsymmetricPadding, overhead: int,
                 hashes_used: tuple[hashes.HashAlgorithm, ...] = ()) -> None:
        self.name, self.pad, self.overhead, self.hashes_used = name, pad, overhead, hashes_used

    @property
    def beyond_pyca(self) -> bool:
        """True for OAEP with SHA-512/224 or SHA-512/256, which pyca's public API refuses."""
        return any(not isinstance(h, _PYCA_OAEP_HASHES) for h in self.hashes_used)


def _check_padding(name: str) -> None:
    if name not in PADDINGS:
        raise unsupported("padding", name, PADDINGS)


def _hash(name: str | None, argument: str) -> hashes.HashAlgorithm:
    if name is None:
        raise bad_input(f"padding 'oaep' needs {argument} (one of {', '.join(OAEP_HASHES)})")
    return hash_algorithm(name, argument)


def _scheme(name: str, label: bytes | None, hash_name: str | None = None, mgf1_hash: str | None = None) -> _Scheme:
    _check_padding(name)
    if name != "oaep" and (hash_name is not None or mgf1_hash is not None):
        raise bad_input(f"hash and mgf1_hash are only for padding 'oaep', not {name}")
    if name == "pkcs1":
        if label:
            raise bad_input("a label is only meaningful with OAEP, not pkcs1")
        return _Scheme(name, asym.PKCS1v15(), _OVERHEAD[name])
    if name == "oaep":
        algo, mgf = _hash(hash_name, "hash"), _hash(mgf1_hash, "mgf1_hash")
    else:
        # oaep-sha256 is what iOS .rsaEncryptionOAEPSHA256 does: SHA-256 for the label hash AND MGF1.
        algo = hashes.SHA1() if name == "oaep-sha1" else hashes.SHA256()
        mgf = algo
    pad = asym.OAEP(mgf=asym.MGF1(algorithm=mgf), algorithm=algo, label=label or None)
    return _Scheme(name, pad, 2 * algo.digest_size + 2, (algo, mgf))


def _crypt(key: PublicKey | PrivateKey, data: bytes, scheme: _Scheme) -> bytes:
    """key.encrypt / key.decrypt. pyca 38 refuses SHA-512/t in OAEP by an allow-list, not for
    want of OpenSSL support; for those it calls the very EVP routine its public API uses (same
    constant-time tail, same ValueError on failure), so only the allow-list is bypassed."""
    if scheme.beyond_pyca:
        try:
            from cryptography.hazmat.backends.openssl import backend
            from cryptography.hazmat.backends.openssl.rsa import _enc_dec_rsa_pkey_ctx
        except ImportError:
            raise CryptoFailure(ErrorKind.UNSUPPORTED, "this pyca/cryptography has no OAEP with SHA-512/224 or SHA-512/256") from None
        return _enc_dec_rsa_pkey_ctx(backend, key, data, backend._lib.RSA_PKCS1_OAEP_PADDING, scheme.pad)
    if isinstance(key, PrivateKey):
        return key.decrypt(data, scheme.pad)
    return key.encrypt(data, scheme.pad)


def modulus_bytes(bits: int) -> int:
    return (bits + 7) // 8


def max_plaintext(bits: int, padding: str, hash_name: str | None = None, mgf1_hash: str | None = None) -> int:
    """k - overhead; negative when the key is too small for the padding at all."""
    scheme = _scheme(padding, None, hash_name, mgf1_hash)
    if bits < 1:
        raise bad_input(f"bits must be positive, got {bits}")
    return modulus_bytes(bits) - scheme.overhead


def encrypt(key: PublicKey, padding: str, plaintext: bytes, label: bytes | None = None,
            hash_name: str | None = None, mgf1_hash: str | None = None) -> bytes:
    scheme = _scheme(padding, label, hash_name, mgf1_hash)
    limit = max_plaintext(key.key_size, padding, hash_name, mgf1_hash)
    if limit < 0:
        raise CryptoFailure(ErrorKind.TOO_LONG, f"a {key.key_size}-bit key is too small for {padding} at all")
    if len(plaintext) > limit:
        raise CryptoFailure(
            ErrorKind.TOO_LONG,
            f"plaintext is {len(plaintext)} bytes; {padding} with a {key.key_size}-bit key allows at most {limit}",
        )
    try:
        return _crypt(key, plaintext, scheme)
    except ValueError:
        # A peer's key OpenSSL will not encrypt to (even modulus, e >= n, …): the key's fault.
        raise CryptoFailure(ErrorKind.BAD_KEY, f"cannot encrypt to this {key.key_size}-bit key") from None


def decrypt(key: PrivateKey, padding: str, ciphertext: bytes, label: bytes | None = None,
            hash_name: str | None = None, mgf1_hash: str | None = None, rejection: str = "explicit") -> bytes:
    scheme = _scheme(padding, label, hash_name, mgf1_hash)
    one_of("rejection", rejection, REJECTIONS)
    k = modulus_bytes(key.key_size)
    if len(ciphertext) != k:
        # The length is public, so saying so leaks nothing.
        raise CryptoFailure(
            ErrorKind.BAD_LENGTH, f"ciphertext is {len(ciphertext)} bytes; a {key.key_size}-bit key needs exactly {k}"
        )
    if scheme.name == "pkcs1" and rejection != library_rejection(key):
        return _pkcs1_decrypt(key, ciphertext, rejection)
    try:
        return _crypt(key, ciphertext, scheme)
    except ValueError:
        # pyca raises ValueError for bad padding, wrong label, c >= n alike; keep it that way.
        raise CryptoFailure(ErrorKind.DECRYPT_FAILED, DECRYPT_FAILED_DETAIL) from None


# ---- PKCS#1 v1.5 decryption of both generations, independent of the linked OpenSSL ---------------

_library_rejection: Optional[str] = None


def library_rejection(key: PrivateKey) -> str:
    """What the linked OpenSSL does with a bad PKCS#1 v1.5 padding, "explicit" or "implicit": found
    once per process by decrypting, with `key`, a ciphertext whose padding is wrong (block type 1)."""
    global _library_rejection
    if _library_rejection is None:
        public = key.public_key().public_numbers()
        k = modulus_bytes(key.key_size)
        bad = int.from_bytes(b"\x00\x01" + b"\xff" * (k - 2), "big")  # < n: its top byte is zero
        probe = pow(bad, public.e, public.n).to_bytes(k, "big")
        try:
            key.decrypt(probe, asym.PKCS1v15())
            _library_rejection = "implicit"
        except ValueError:
            _library_rejection = "explicit"
    return _library_rejection


def _pkcs1_decrypt(key: PrivateKey, ciphertext: bytes, rejection: str) -> bytes:
    """RFC 8017 RSAES-PKCS1-v1_5 decryption (m = c^d mod n by CRT, then EME-PKCS1-v1_5 decoding)
    with the padding check written without early exits, and implicit rejection's synthetic message
    for a bad padding when `rejection` is "implicit". The caller has checked the length."""
    numbers = key.private_numbers()
    n, k = numbers.public_numbers.n, len(ciphertext)
    c = int.from_bytes(ciphertext, "big")
    if c >= n:
        raise CryptoFailure(ErrorKind.DECRYPT_FAILED, DECRYPT_FAILED_DETAIL)
    m1, m2 = pow(c, numbers.dmp1, numbers.p), pow(c, numbers.dmq1, numbers.q)
    em = (m2 + numbers.q * ((numbers.iqmp * (m1 - m2)) % numbers.p)).to_bytes(k, "big")
    good, start = _pkcs1_unpad(em)
    if rejection == "implicit":
        synthetic = synthetic_message(numbers.d, ciphertext)
        return em[start:] if good else synthetic
    if not good:
        raise CryptoFailure(ErrorKind.DECRYPT_FAILED, DECRYPT_FAILED_DETAIL)
    return em[start:]


def _pkcs1_unpad(em: bytes) -> tuple[bool, int]:
    """EM = 0x00 || 0x02 || PS (>= 8 nonzero bytes) || 0x00 || M: (padding is good, where M starts).
    Every byte is looked at whatever the earlier ones were, so the work does not say where it failed."""
    good = (em[0] == 0) & (em[1] == 2)
    zero_at, found = 0, False
    for i in range(2, len(em)):
        is_zero = em[i] == 0
        zero_at = i if (is_zero and not found) else zero_at
        found = found | is_zero
    good = good & found & (zero_at >= 10)
    return bool(good), zero_at + 1


def _hmac_sha256(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


def _prf(kdk: bytes, label: bytes, length: int) -> bytes:
    """The draft's IRPRF: HMAC-SHA256(KDK, I2OSP(i, 2) || label || I2OSP(8 * length, 2)) for
    i = 0, 1, ..., concatenated and cut to `length` bytes."""
    bits = (8 * length).to_bytes(2, "big")
    blocks = (length + 31) // 32
    return b"".join(_hmac_sha256(kdk, i.to_bytes(2, "big") + label + bits) for i in range(blocks))[:length]


def synthetic_message(d: int, ciphertext: bytes) -> bytes:
    """Implicit rejection's answer to a bad PKCS#1 v1.5 padding (draft-irtf-cfrg-rsa-guidance):
    KDK = HMAC-SHA256(SHA256(I2OSP(d, k)), C); a k-byte candidate message and 128 two-byte candidate
    lengths from the PRF; the length is the last candidate, masked to the bit width of k - 10, that
    is below k - 10 (0 if none is); the message is the last `length` bytes of the candidate."""
    k = len(ciphertext)
    kdk = _hmac_sha256(hashlib.sha256(d.to_bytes(k, "big")).digest(), ciphertext)
    candidate = _prf(kdk, b"message", k)
    lengths = _prf(kdk, b"length", 256)
    limit = k - 2 - 8  # the version and type bytes, and at least 8 padding bytes
    mask = (1 << limit.bit_length()) - 1
    length = 0
    for i in range(0, len(lengths), 2):
        value = int.from_bytes(lengths[i:i + 2], "big") & mask
        length = value if value < limit else length
    return candidate[k - length:] if length else b""
