"""RSA encryption and decryption with the paddings of the rsa-socket profile.

The profile's paddings have names (`pkcs1`, `oaep-sha1`, `oaep-sha256`); `oaep` takes the
label hash and the MGF1 hash as separate OpenSSL digest names (what Wycheproof varies):
SHA1, SHA224, SHA256, SHA384, SHA512, SHA512-224, SHA512-256.

Decryption failures of every cause are reported as one kind with one text, so
this module can never become a Bleichenbacher/Manger oracle by its answers.
"""

from __future__ import annotations

from typing import Callable

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding as asym

from .errors import CryptoFailure, ErrorKind, bad_input, unsupported
from .rsa_keys import PrivateKey, PublicKey

PADDINGS = ("pkcs1", "oaep-sha1", "oaep-sha256", "oaep")
# OpenSSL's digest names (as WireCrypto's Digest spells them) for padding "oaep".
OAEP_HASHES: dict[str, Callable[[], hashes.HashAlgorithm]] = {
    "SHA1": hashes.SHA1,
    "SHA224": hashes.SHA224,
    "SHA256": hashes.SHA256,
    "SHA384": hashes.SHA384,
    "SHA512": hashes.SHA512,
    "SHA512-224": hashes.SHA512_224,
    "SHA512-256": hashes.SHA512_256,
}
# pyca 38 allows only these as OAEP and MGF1 hashes, though OpenSSL takes SHA-512/t as well.
_PYCA_OAEP_HASHES = (hashes.SHA1, hashes.SHA224, hashes.SHA256, hashes.SHA384, hashes.SHA512)
# Bytes of padding overhead: 11 for PKCS#1 v1.5, 2*hLen+2 for OAEP.
_OVERHEAD = {"pkcs1": 11, "oaep-sha1": 2 * 20 + 2, "oaep-sha256": 2 * 32 + 2}
DECRYPT_FAILED_DETAIL = "RSA decryption failed"


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
    if name not in OAEP_HASHES:
        raise unsupported(argument, name, OAEP_HASHES)
    return OAEP_HASHES[name]()


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
            hash_name: str | None = None, mgf1_hash: str | None = None) -> bytes:
    scheme = _scheme(padding, label, hash_name, mgf1_hash)
    k = modulus_bytes(key.key_size)
    if len(ciphertext) != k:
        # The length is public, so saying so leaks nothing.
        raise CryptoFailure(
            ErrorKind.BAD_LENGTH, f"ciphertext is {len(ciphertext)} bytes; a {key.key_size}-bit key needs exactly {k}"
        )
    try:
        return _crypt(key, ciphertext, scheme)
    except ValueError:
        # pyca raises ValueError for bad padding, wrong label, c >= n alike; keep it that way.
        raise CryptoFailure(ErrorKind.DECRYPT_FAILED, DECRYPT_FAILED_DETAIL) from None
