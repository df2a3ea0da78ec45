"""PythonRef's one copy of each public-key primitive, with every parameter given by the caller.

Hash names, curves, public-key loaders, signature verification, ECDH/X25519 and HKDF, in pyca's
own calls. `signatures`, `key_agreement` and `ec_interop` read their own argument shapes and call
these; the ops `sig.verify`, `kex.agree` and `hkdf.derive` are what Wycheproof's signature (RSA
PKCS#1 v1.5 and PSS, ECDSA DER and IEEE P1363, Ed25519), key agreement (ECDH on P-256/384/521,
X25519) and HKDF files ask of an implementation, so the Swift side's verdicts are compared with
pyca's (`crosscheck wycheproof`), and pyca's with the files themselves
(tests/test_wycheproof_primitives.py).

A signature that does not verify is an answer (False), not an error; a key that cannot be used is
BadKey, a size out of range BadLength, a name not listed here Unsupported.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Union

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import hmac as _hmac
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, x25519
try:  # cryptography >= 40 (a Pi on a current image); Debian 12's 38 has only the old name
    from cryptography.hazmat.primitives.asymmetric.types import PublicKeyTypes
except ImportError:  # pragma: no cover - depends on the installed cryptography
    from cryptography.hazmat.primitives.asymmetric.types import PUBLIC_KEY_TYPES as PublicKeyTypes  # type: ignore[attr-defined,no-redef]
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from . import rsa_keys
from .errors import CryptoFailure, ErrorKind, unsupported

# OpenSSL's digest names, as WireCrypto's Digest spells them (RSA OAEP, signatures, HKDF, X9.63 KDF).
HASHES: dict[str, Callable[[], hashes.HashAlgorithm]] = {
    "SHA1": hashes.SHA1,
    "SHA224": hashes.SHA224,
    "SHA256": hashes.SHA256,
    "SHA384": hashes.SHA384,
    "SHA512": hashes.SHA512,
    "SHA512-224": hashes.SHA512_224,
    "SHA512-256": hashes.SHA512_256,
}
SIGNATURE_SCHEMES = ("rsa-pkcs1v15", "rsa-pss", "ecdsa-der", "ecdsa-p1363", "ed25519")
# Curves named as Apple's modules name them; X25519 has no pyca curve object.
EC_CURVES: dict[str, ec.EllipticCurve] = {"P-256": ec.SECP256R1(), "P-384": ec.SECP384R1(), "P-521": ec.SECP521R1()}
CURVES: dict[str, ec.EllipticCurve | None] = {**EC_CURVES, "X25519": None}
# How `agree`'s peer public key comes.
PUBLIC_ENCODINGS = ("spki-der", "x962", "raw")
AgreementPrivateKey = Union[ec.EllipticCurvePrivateKey, x25519.X25519PrivateKey]
_LOAD_ERRORS = (ValueError, TypeError, UnsupportedAlgorithm)


def _bad_key(detail: str) -> CryptoFailure:
    return CryptoFailure(ErrorKind.BAD_KEY, detail)


def hash_algorithm(name: str | None, what: str = "hash") -> hashes.HashAlgorithm:
    """The hash called `name` in HASHES; `what` names the argument in the error."""
    if name not in HASHES:
        raise unsupported(what, name, HASHES)
    return HASHES[name]()


def hmac(hash_name: str, key: bytes, message: bytes) -> bytes:
    """HMAC (RFC 2104) of `message` under `key` with the hash called `hash_name` in HASHES: what
    the Pi computes to check a request an app signed with a shared secret."""
    mac = _hmac.HMAC(key, hash_algorithm(hash_name))
    mac.update(message)
    return mac.finalize()


def coordinate_bytes(curve: ec.EllipticCurve) -> int:
    """Bytes of one coordinate (and of a P1363 r or s): X9.63 is 1 + 2n, compressed 1 + n."""
    return (curve.key_size + 7) // 8


# ---- public keys ----------------------------------------------------------------------------------


def load_spki(der: bytes) -> PublicKeyTypes:
    """A SubjectPublicKeyInfo DER public key of any type."""
    try:
        return ser.load_der_public_key(der)
    except _LOAD_ERRORS as exc:
        raise _bad_key(f"cannot load the public key: {exc.args[0] if exc.args else exc}") from None


def load_point(curve: ec.EllipticCurve, data: bytes) -> ec.EllipticCurvePublicKey:
    """An X9.62 point on `curve`: 04||X||Y (X9.63) or compressed 02/03||X."""
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(curve, data)
    except _LOAD_ERRORS:
        raise _bad_key(f"{len(data)} bytes that are not a point on {curve.name}") from None


def load_x25519(raw: bytes) -> x25519.X25519PublicKey:
    if len(raw) != 32:
        raise _bad_key(f"an X25519 public key is 32 bytes, not {len(raw)}")
    return x25519.X25519PublicKey.from_public_bytes(raw)


# ---- signatures -----------------------------------------------------------------------------------


def verify(scheme: str, key: bytes, message: bytes, signature: bytes, hash_name: str | None = None,
           mgf1_hash: str | None = None, salt_length: int | None = None) -> bool:
    """Whether `signature` is the SPKI DER `key`'s signature of `message` under `scheme`."""
    if scheme not in SIGNATURE_SCHEMES:
        raise unsupported("signature scheme", scheme, SIGNATURE_SCHEMES)
    public = rsa_keys.load_public(key) if scheme.startswith("rsa-") else load_spki(key)
    return verify_public(scheme, public, message, signature, hash_name, mgf1_hash, salt_length)


def verify_public(scheme: str, public: object, message: bytes, signature: bytes, hash_name: str | None = None,
                  mgf1_hash: str | None = None, salt_length: int | None = None) -> bool:
    """Whether `signature` is the loaded `public` key's signature of `message` under `scheme`.

    rsa-pss takes MGF1 with `mgf1_hash` (default: `hash_name`) and `salt_length` (default: the
    hash's length, as Apple's Security does); ecdsa-p1363 is r‖s, each as long as the group order.
    """
    if scheme not in SIGNATURE_SCHEMES:
        raise unsupported("signature scheme", scheme, SIGNATURE_SCHEMES)
    if scheme == "ed25519":
        if not isinstance(public, ed25519.Ed25519PublicKey):
            raise _bad_key("not an Ed25519 public key")
        return _verified(lambda: public.verify(signature, message))
    digest = hash_algorithm(hash_name)
    if scheme.startswith("rsa-"):
        if not isinstance(public, rsa.RSAPublicKey):
            raise _bad_key(f"{scheme} needs an RSA public key, not {type(public).__name__}")
        if scheme == "rsa-pkcs1v15":
            pad: padding.AsymmetricPadding = padding.PKCS1v15()
        else:
            mgf = hash_algorithm(mgf1_hash or hash_name, "mgf1_hash")
            salt = digest.digest_size if salt_length is None else salt_length
            if not 0 <= salt <= public.key_size // 8:
                raise CryptoFailure(ErrorKind.BAD_LENGTH, f"salt_length {salt} does not fit a {public.key_size}-bit key")
            pad = padding.PSS(mgf=padding.MGF1(mgf), salt_length=salt)
        return _verified(lambda: public.verify(signature, message, pad, digest))
    if not isinstance(public, ec.EllipticCurvePublicKey):
        raise _bad_key(f"{scheme} needs an EC public key, not {type(public).__name__}")
    if scheme == "ecdsa-p1363":
        der = p1363_to_der(public.curve, signature)
        if der is None:
            return False
        signature = der
    return _verified(lambda: public.verify(signature, message, ec.ECDSA(digest)))


def p1363_to_der(curve: ec.EllipticCurve, signature: bytes) -> bytes | None:
    """IEEE P1363 r‖s as X9.62 DER (what OpenSSL reads); None when it is not 2n bytes."""
    size = coordinate_bytes(curve)
    if len(signature) != 2 * size:
        return None
    return encode_dss_signature(int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big"))


def _verified(check: Callable[[], None]) -> bool:
    try:
        check()
    except InvalidSignature:
        return False
    return True


# ---- key agreement --------------------------------------------------------------------------------


def agree(curve: str, private: bytes, public: bytes, encoding: str) -> bytes:
    """The shared secret of our `private` key (the big-endian scalar; X25519: its 32 bytes) and the
    peer's `public` key: `spki-der` (SubjectPublicKeyInfo), `x962` (an EC point, 04‖X‖Y or
    compressed) or `raw` (X25519's 32 bytes)."""
    if curve not in CURVES:
        raise unsupported("curve", curve, CURVES)
    if encoding not in PUBLIC_ENCODINGS:
        raise unsupported("public key encoding", encoding, PUBLIC_ENCODINGS)
    named = CURVES[curve]
    ours: AgreementPrivateKey
    if named is None:
        if encoding == "x962":
            raise unsupported("public key encoding for X25519", encoding, ("spki-der", "raw"))
        theirs = load_spki(public) if encoding == "spki-der" else load_x25519(public)
        try:
            ours = x25519.X25519PrivateKey.from_private_bytes(private)
        except _LOAD_ERRORS as exc:
            raise _bad_key(f"X25519 private key: {exc}") from None
        return exchange(ours, theirs)
    if encoding == "raw":
        raise unsupported("public key encoding for " + curve, encoding, ("spki-der", "x962"))
    ours = _ec_private_key(curve, private)
    return exchange(ours, load_spki(public) if encoding == "spki-der" else load_point(named, public))


@lru_cache(maxsize=128)
def _ec_private_key(curve: str, private: bytes) -> ec.EllipticCurvePrivateKey:
    """The key of a big-endian scalar, made once: deriving it costs a scalar multiplication (K·G)
    and pyca's check, as much as the ECDH itself, and Wycheproof's ECDH files use 23 to 37 private
    keys across 355 to 1,047 tests each. (lru_cache keeps no exceptions: a bad scalar fails each time.)"""
    try:
        return ec.derive_private_key(int.from_bytes(private, "big"), CURVES[curve])
    except _LOAD_ERRORS as exc:
        raise _bad_key(f"private scalar not usable on {curve}: {exc}") from None


def exchange(private: AgreementPrivateKey, public: object) -> bytes:
    """The shared secret of two loaded keys: X25519, or ECDH's x coordinate of the shared point
    (Security's ECDHKeyExchangeStandard and Cofactor agree: P-256/384/521 have cofactor 1)."""
    try:
        if isinstance(private, x25519.X25519PrivateKey):
            if not isinstance(public, x25519.X25519PublicKey):
                raise _bad_key("the public key is not an X25519 key")
            # OpenSSL refuses an all-zero result (a low-order public key), as RFC 7748 §6.1 allows.
            return private.exchange(public)
        if not isinstance(public, ec.EllipticCurvePublicKey) or public.curve.name != private.curve.name:
            raise _bad_key(f"the public key is not on {private.curve.name}")
        return private.exchange(ec.ECDH(), public)
    except _LOAD_ERRORS as exc:
        raise _bad_key(f"key agreement refused the public key: {exc}") from None


# ---- HKDF -----------------------------------------------------------------------------------------


def hkdf(hash_name: str, ikm: bytes, salt: bytes | None, info: bytes | None, length: int) -> bytes:
    """RFC 5869 HKDF: at most 255 blocks of the hash; an empty or absent salt is HashLen zeros
    (CryptoKit's hkdfDerivedSymmetricKey reads an empty salt the same way)."""
    digest = hash_algorithm(hash_name)
    limit = 255 * digest.digest_size
    if not 0 < length <= limit:
        raise CryptoFailure(ErrorKind.BAD_LENGTH, f"HKDF-{hash_name} output must be 1 to {limit} bytes, not {length}")
    return HKDF(algorithm=digest, length=length, salt=salt or None, info=info).derive(ikm)
