"""Signatures an app makes, verified as the Pi would: RSA PKCS#1 v1.5 and PSS, ECDSA (DER or raw r||s).

The app's public key comes in whatever form its code exports (docs/PROTOCOL.md "The app under
test"): X9.63 (04||X||Y, SecKey's external representation, CryptoKit's x963Representation),
raw X||Y, PKCS#1 RSAPublicKey DER, SubjectPublicKeyInfo DER, or PEM. Algorithm names are the
ones AppUnderTest's `MessageSigning` declares: "rsa-pkcs1v15-sha256", "rsa-pss-sha256",
"ecdsa-p256-sha256", "ecdsa-p256-sha256-raw", ... A signature that does not verify is an
answer (`False`), not an error; a key or name that cannot be read is an error. This module reads
those shapes; the loading and verifying themselves are `primitives`'.
"""

from __future__ import annotations

import re

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric import ec

from . import primitives, rsa_keys
from .errors import CryptoFailure, ErrorKind, unsupported

# The app's curve names, and primitives' names for them.
CURVES: dict[str, ec.EllipticCurve] = {"p256": primitives.EC_CURVES["P-256"], "p384": primitives.EC_CURVES["P-384"],
                                       "p521": primitives.EC_CURVES["P-521"]}

_ALGORITHM = re.compile(r"^(?:rsa-(pkcs1v15|pss)-(sha1|sha224|sha256|sha384|sha512)|ecdsa-(p256|p384|p521)-(sha256|sha384|sha512)(-raw)?)$")


def _bad_key(detail: str) -> CryptoFailure:
    return CryptoFailure(ErrorKind.BAD_KEY, detail)


def load_public_key(data: bytes, curve: str | None = None) -> primitives.PublicKeyTypes:
    """An RSA, EC or X25519 public key from any form an app exports; `curve` reads raw forms."""
    if not data:
        raise _bad_key("the public key is empty")
    if data.lstrip().startswith(b"-----BEGIN "):
        if b"RSA PUBLIC KEY" in data.lstrip()[:40]:
            return rsa_keys.load_public(data, None)
        try:
            return ser.load_pem_public_key(data)
        except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
            raise _bad_key(f"not a public key: {exc.args[0] if exc.args else exc}") from None
    if data[0] == 0x30:
        try:
            try:
                return primitives.load_spki(data)
            except CryptoFailure:
                return rsa_keys.load_public(data, None)  # PKCS#1 RSAPublicKey DER: SecKey's RSA external representation
        except CryptoFailure:
            # A raw key begins with 0x30 one time in 256 (X25519's 32 bytes, CryptoKit's 64-byte X || Y):
            # of that length for the curve given, it is read raw below; any other is not DER.
            if not _raw_length(data, curve):
                raise
    if curve == "x25519":
        return primitives.load_x25519(data)
    for name in [curve] if curve in CURVES else list(CURVES):
        n = primitives.coordinate_bytes(CURVES[name])
        if len(data) == 1 + 2 * n and data[0] == 0x04 or len(data) == 1 + n and data[0] in (2, 3):
            return primitives.load_point(CURVES[name], data)
        if len(data) == 2 * n and curve == name:
            return primitives.load_point(CURVES[name], b"\x04" + data)
    raise _bad_key(f"{len(data)} bytes that are no public key form crosscheck reads (X9.63, raw, DER, PEM)")


def _raw_length(data: bytes, curve: str | None) -> bool:
    """Whether `data` has the length of a raw public key of `curve` that can begin with any byte."""
    if curve == "x25519":
        return len(data) == 32
    return curve in CURVES and len(data) == 2 * primitives.coordinate_bytes(CURVES[curve])


def public_pem(data: bytes, curve: str | None = None) -> bytes:
    """The key as SubjectPublicKeyInfo PEM (what `openssl dgst -verify` reads)."""
    return load_public_key(data, curve).public_bytes(ser.Encoding.PEM, ser.PublicFormat.SubjectPublicKeyInfo)


def der_signature(algorithm: str, signature: bytes) -> bytes:
    """The signature as `openssl dgst` reads it: ECDSA raw r||s becomes DER; others are unchanged."""
    match = _parse(algorithm)
    if match.group(5) is None:
        return signature
    der = primitives.p1363_to_der(CURVES[match.group(3)], signature)
    if der is None:
        n = primitives.coordinate_bytes(CURVES[match.group(3)])
        raise CryptoFailure(ErrorKind.BAD_LENGTH, f"a raw {match.group(3)} signature is {2 * n} bytes, not {len(signature)}")
    return der


def _parse(algorithm: str) -> re.Match[str]:
    match = _ALGORITHM.match(algorithm)
    if match is None:
        raise unsupported("signature algorithm", algorithm, ["rsa-pkcs1v15-<hash>", "rsa-pss-<hash>", "ecdsa-<curve>-<hash>[-raw]"])
    return match


def verify(algorithm: str, public_key: bytes, message: bytes, signature: bytes) -> bool:
    """True when `signature` is `algorithm` over `message` under `public_key`."""
    match = _parse(algorithm)
    if match.group(1):
        key = load_public_key(public_key)
        return primitives.verify_public("rsa-" + match.group(1), key, message, signature, match.group(2).upper())
    curve = match.group(3)
    key = load_public_key(public_key, curve)
    if not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.name != CURVES[curve].name:
        raise _bad_key(f"{algorithm} needs a {curve} public key, got {getattr(key, 'curve', key).__class__.__name__}")
    scheme = "ecdsa-p1363" if match.group(5) else "ecdsa-der"
    return primitives.verify_public(scheme, key, message, signature, match.group(4).upper())
