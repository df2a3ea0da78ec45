"""Signature verification, key agreement and HKDF with every parameter given by the caller.

What Wycheproof's signature (RSA PKCS#1 v1.5 and PSS, ECDSA DER and IEEE P1363, Ed25519), key
agreement (ECDH on P-256/384/521, X25519) and HKDF files ask of an implementation, in pyca's own
calls, so the Swift side's verdicts are compared with pyca's (`crosscheck wycheproof`), and pyca's
with the files themselves (tests/test_wycheproof_primitives.py).

A signature that does not verify is an answer (False), not an error; a key that cannot be used is
BadKey, a size out of range BadLength, a name not listed here Unsupported.
"""

from __future__ import annotations

from typing import Callable

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, x25519
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from . import rsa_keys
from .errors import CryptoFailure, ErrorKind, unsupported

# OpenSSL's digest names, as WireCrypto's Digest spells them (and rsa_cipher's OAEP_HASHES).
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
# Key agreement curves, named as Apple's modules name them, and how the peer's public key comes.
CURVES: dict[str, ec.EllipticCurve | None] = {
    "P-256": ec.SECP256R1(), "P-384": ec.SECP384R1(), "P-521": ec.SECP521R1(), "X25519": None,
}
PUBLIC_ENCODINGS = ("spki-der", "x962", "raw")
_LOAD_ERRORS = (ValueError, TypeError, UnsupportedAlgorithm)


def _bad_key(detail: str) -> CryptoFailure:
    return CryptoFailure(ErrorKind.BAD_KEY, detail)


def _hash(name: str | None, what: str) -> hashes.HashAlgorithm:
    if name not in HASHES:
        raise unsupported(what, name, HASHES)
    return HASHES[name]()


def _load_spki(der: bytes) -> object:
    try:
        return ser.load_der_public_key(der)
    except _LOAD_ERRORS as exc:
        raise _bad_key(f"cannot load the public key: {exc.args[0] if exc.args else exc}") from None


# ---- signatures -----------------------------------------------------------------------------------


def verify(scheme: str, key: bytes, message: bytes, signature: bytes, hash_name: str | None = None,
           mgf1_hash: str | None = None, salt_length: int | None = None) -> bool:
    """Whether `signature` is the SPKI DER `key`'s signature of `message` under `scheme`.

    rsa-pss takes MGF1 with `mgf1_hash` (default: `hash_name`) and `salt_length` (default: the
    hash's length, as Apple's Security does); ecdsa-p1363 is r‖s, each as long as the group order.
    """
    if scheme not in SIGNATURE_SCHEMES:
        raise unsupported("signature scheme", scheme, SIGNATURE_SCHEMES)
    if scheme == "ed25519":
        public = _load_spki(key)
        if not isinstance(public, ed25519.Ed25519PublicKey):
            raise _bad_key("not an Ed25519 public key")
        return _verified(lambda: public.verify(signature, message))
    digest = _hash(hash_name, "hash")
    if scheme.startswith("rsa-"):
        rsa_public = rsa_keys.load_public(key)
        if scheme == "rsa-pkcs1v15":
            pad: padding.AsymmetricPadding = padding.PKCS1v15()
        else:
            mgf = _hash(mgf1_hash or hash_name, "mgf1_hash")
            salt = digest.digest_size if salt_length is None else salt_length
            if not 0 <= salt <= rsa_public.key_size // 8:
                raise CryptoFailure(ErrorKind.BAD_LENGTH, f"salt_length {salt} does not fit a {rsa_public.key_size}-bit key")
            pad = padding.PSS(mgf=padding.MGF1(mgf), salt_length=salt)
        return _verified(lambda: rsa_public.verify(signature, message, pad, digest))
    ec_public = _load_spki(key)
    if not isinstance(ec_public, ec.EllipticCurvePublicKey):
        raise _bad_key("not an EC public key")
    if scheme == "ecdsa-p1363":
        size = (ec_public.curve.key_size + 7) // 8
        if len(signature) != 2 * size:
            return False
        r, s = int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big")
        signature = encode_dss_signature(r, s)
    return _verified(lambda: ec_public.verify(signature, message, ec.ECDSA(digest)))


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
    if named is None:
        return _x25519(private, public, encoding)
    scalar = int.from_bytes(private, "big")
    try:
        ours = ec.derive_private_key(scalar, named)
    except _LOAD_ERRORS as exc:
        raise _bad_key(f"private scalar not usable on {curve}: {exc}") from None
    if encoding == "raw":
        raise unsupported("public key encoding for " + curve, encoding, ("spki-der", "x962"))
    if encoding == "spki-der":
        theirs = _load_spki(public)
    else:
        try:
            theirs = ec.EllipticCurvePublicKey.from_encoded_point(named, public)
        except _LOAD_ERRORS as exc:
            raise _bad_key(f"not a point on {curve}: {exc}") from None
    if not isinstance(theirs, ec.EllipticCurvePublicKey) or theirs.curve.name != named.name:
        raise _bad_key(f"the public key is not on {curve}")
    try:
        return ours.exchange(ec.ECDH(), theirs)
    except _LOAD_ERRORS as exc:
        raise _bad_key(f"ECDH refused the public key: {exc}") from None


def _x25519(private: bytes, public: bytes, encoding: str) -> bytes:
    if encoding == "spki-der":
        theirs = _load_spki(public)
        if not isinstance(theirs, x25519.X25519PublicKey):
            raise _bad_key("not an X25519 public key")
    elif encoding == "raw":
        try:
            theirs = x25519.X25519PublicKey.from_public_bytes(public)
        except _LOAD_ERRORS as exc:
            raise _bad_key(f"X25519 public key: {exc}") from None
    else:
        raise unsupported("public key encoding for X25519", encoding, ("spki-der", "raw"))
    try:
        ours = x25519.X25519PrivateKey.from_private_bytes(private)
        # OpenSSL refuses an all-zero result (a low-order public key), as RFC 7748 §6.1 allows.
        return ours.exchange(theirs)
    except _LOAD_ERRORS as exc:
        raise _bad_key(f"X25519 refused: {exc}") from None


# ---- HKDF -----------------------------------------------------------------------------------------


def hkdf(hash_name: str, ikm: bytes, salt: bytes | None, info: bytes | None, length: int) -> bytes:
    """RFC 5869 HKDF: at most 255 blocks of the hash; an empty or absent salt is HashLen zeros."""
    digest = _hash(hash_name, "hash")
    limit = 255 * digest.digest_size
    if not 0 < length <= limit:
        raise CryptoFailure(ErrorKind.BAD_LENGTH, f"HKDF-{hash_name} output must be 1 to {limit} bytes, not {length}")
    return HKDF(algorithm=digest, length=length, salt=salt or None, info=info).derive(ikm)
