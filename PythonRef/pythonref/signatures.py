"""Signatures an app makes, verified as the Pi would: RSA PKCS#1 v1.5 and PSS, ECDSA (DER or raw r||s).

The app's public key comes in whatever form its code exports (docs/PROTOCOL.md "The app under
test"): X9.63 (04||X||Y, SecKey's external representation, CryptoKit's x963Representation),
raw X||Y, PKCS#1 RSAPublicKey DER, SubjectPublicKeyInfo DER, or PEM. Algorithm names are the
ones AppUnderTest's `MessageSigning` declares: "rsa-pkcs1v15-sha256", "rsa-pss-sha256",
"ecdsa-p256-sha256", "ecdsa-p256-sha256-raw", ... A signature that does not verify is an
answer (`False`), not an error; a key or name that cannot be read is an error.
"""

from __future__ import annotations

import re

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils, x25519

from . import rsa_keys
from .errors import CryptoFailure, ErrorKind, unsupported

HASHES = {"sha1": hashes.SHA1, "sha224": hashes.SHA224, "sha256": hashes.SHA256, "sha384": hashes.SHA384, "sha512": hashes.SHA512}
CURVES = {"p256": ec.SECP256R1, "p384": ec.SECP384R1, "p521": ec.SECP521R1}
# Bytes of one coordinate per curve: X9.63 is 1 + 2n, raw X||Y is 2n.
COORDINATE_BYTES = {"p256": 32, "p384": 48, "p521": 66}

_ALGORITHM = re.compile(r"^(?:rsa-(pkcs1v15|pss)-(sha1|sha224|sha256|sha384|sha512)|ecdsa-(p256|p384|p521)-(sha256|sha384|sha512)(-raw)?)$")


def _bad_key(detail: str) -> CryptoFailure:
    return CryptoFailure(ErrorKind.BAD_KEY, detail)


def load_public_key(data: bytes, curve: str | None = None):
    """An RSA, EC or X25519 public key from any form an app exports; `curve` reads raw forms."""
    if not data:
        raise _bad_key("the public key is empty")
    stripped = data.lstrip()
    try:
        if stripped.startswith(b"-----BEGIN "):
            if b"RSA PUBLIC KEY" in stripped[:40]:
                return rsa_keys.load_public(data, None)
            return ser.load_pem_public_key(data)
        if data[0] == 0x30:
            try:
                return ser.load_der_public_key(data)
            except (ValueError, UnsupportedAlgorithm):
                return rsa_keys.load_public(data, None)  # PKCS#1 RSAPublicKey DER: SecKey's RSA external representation
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise _bad_key(f"not a public key: {exc.args[0] if exc.args else exc}") from None
    if curve == "x25519":
        if len(data) != 32:
            raise _bad_key(f"an X25519 public key is 32 bytes, not {len(data)}")
        return x25519.X25519PublicKey.from_public_bytes(data)
    names = [curve] if curve in CURVES else list(CURVES)
    for name in names:
        n = COORDINATE_BYTES[name]
        point = None
        if len(data) == 1 + 2 * n and data[0] == 0x04 or len(data) == 1 + n and data[0] in (2, 3):
            point = data
        elif len(data) == 2 * n and curve == name:
            point = b"\x04" + data
        if point is not None:
            try:
                return ec.EllipticCurvePublicKey.from_encoded_point(CURVES[name](), point)
            except ValueError:
                raise _bad_key(f"{len(data)} bytes that are not a point on {name}") from None
    raise _bad_key(f"{len(data)} bytes that are no public key form crosscheck reads (X9.63, raw, DER, PEM)")


def public_pem(data: bytes, curve: str | None = None) -> bytes:
    """The key as SubjectPublicKeyInfo PEM (what `openssl dgst -verify` reads)."""
    return load_public_key(data, curve).public_bytes(ser.Encoding.PEM, ser.PublicFormat.SubjectPublicKeyInfo)


def der_signature(algorithm: str, signature: bytes) -> bytes:
    """The signature as `openssl dgst` reads it: ECDSA raw r||s becomes DER; others are unchanged."""
    match = _parse(algorithm)
    if match.group(5) is None:
        return signature
    n = COORDINATE_BYTES[match.group(3)]
    if len(signature) != 2 * n:
        raise CryptoFailure(ErrorKind.BAD_LENGTH, f"a raw {match.group(3)} signature is {2 * n} bytes, not {len(signature)}")
    return utils.encode_dss_signature(int.from_bytes(signature[:n], "big"), int.from_bytes(signature[n:], "big"))


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
        if not isinstance(key, rsa.RSAPublicKey):
            raise _bad_key(f"{algorithm} needs an RSA public key, got {type(key).__name__}")
        digest = HASHES[match.group(2)]()
        pad = padding.PKCS1v15() if match.group(1) == "pkcs1v15" else padding.PSS(padding.MGF1(HASHES[match.group(2)]()), digest.digest_size)
        try:
            key.verify(signature, message, pad, digest)
            return True
        except InvalidSignature:
            return False
    curve = match.group(3)
    key = load_public_key(public_key, curve)
    if not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.name != CURVES[curve]().name:
        raise _bad_key(f"{algorithm} needs a {curve} public key, got {getattr(key, 'curve', key).__class__.__name__}")
    try:
        der = der_signature(algorithm, signature)
    except CryptoFailure:
        return False
    try:
        key.verify(der, message, ec.ECDSA(HASHES[match.group(4)]()))
        return True
    except (InvalidSignature, ValueError):
        return False
