"""The Pi's side of a key agreement with the app: a key pair, and the key both sides derive.

ECDH on P-256/P-384/P-521 or X25519, then the derivation the app declares (AppUnderTest's
`KeyAgreementScheme`): "hkdf-sha256" (RFC 5869, CryptoKit's hkdfDerivedSymmetricKey; also
-sha384, -sha512) or "x963-sha256" (ANSI X9.63, CryptoKit's x963DerivedSymmetricKey and Security's
ecdhKeyExchangeStandardX963SHA256; also -sha384, -sha512), or "raw" (the shared secret itself,
only as a wrong derivation to compare with). Public keys go out in the app's format: "x963"
(04||X||Y), "raw" (X||Y; X25519's 32 bytes), "der" or "pem" (SubjectPublicKeyInfo). The agreement
and HKDF are `primitives`', the X9.63 KDF `ec_interop`'s.
"""

from __future__ import annotations

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric import ec, x25519

from . import ec_interop, primitives, signatures
from .errors import CryptoFailure, ErrorKind, bad_input, unsupported

CURVES = (*signatures.CURVES, "x25519")
FORMATS = ("x963", "raw", "der", "pem")
KDFS = tuple(f"{kdf}-{h}" for kdf in ("hkdf", "x963") for h in ("sha256", "sha384", "sha512")) + ("raw",)


def _curve(name: str) -> str:
    if name not in CURVES:
        raise unsupported("curve", name, CURVES)
    return name


def generate(curve: str, fmt: str) -> dict[str, bytes]:
    """A fresh key pair: the private key as PKCS#8 DER, the public key in `fmt`."""
    private: primitives.AgreementPrivateKey
    if _curve(curve) == "x25519":
        private = x25519.X25519PrivateKey.generate()
    else:
        private = ec.generate_private_key(signatures.CURVES[curve])
    return {
        "private": private.private_bytes(ser.Encoding.DER, ser.PrivateFormat.PKCS8, ser.NoEncryption()),
        "public": export_public(private.public_key(), curve, fmt),
    }


def export_public(key: ec.EllipticCurvePublicKey | x25519.X25519PublicKey, curve: str, fmt: str) -> bytes:
    if fmt == "der":
        return key.public_bytes(ser.Encoding.DER, ser.PublicFormat.SubjectPublicKeyInfo)
    if fmt == "pem":
        return key.public_bytes(ser.Encoding.PEM, ser.PublicFormat.SubjectPublicKeyInfo)
    if isinstance(key, x25519.X25519PublicKey):
        if fmt != "raw":
            raise bad_input(f"an X25519 public key is raw, DER or PEM, not {fmt!r}")
        return key.public_bytes(ser.Encoding.Raw, ser.PublicFormat.Raw)
    point = ec_interop.x963_public(key)
    if fmt == "x963":
        return point
    if fmt == "raw":
        return point[1:]
    raise unsupported("public key format", fmt, FORMATS)


def shared_secret(curve: str, private_pkcs8: bytes, peer_public: bytes) -> bytes:
    """The raw ECDH / X25519 shared secret of our private key and the peer's public key."""
    try:
        private = ser.load_der_private_key(private_pkcs8, None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        raise CryptoFailure(ErrorKind.BAD_KEY, "the private key is not an unencrypted PKCS#8 DER key") from None
    peer = signatures.load_public_key(peer_public, _curve(curve))
    if curve == "x25519":
        if not isinstance(private, x25519.X25519PrivateKey):
            raise CryptoFailure(ErrorKind.BAD_KEY, "the private key is not an X25519 key")
    elif not isinstance(private, ec.EllipticCurvePrivateKey) or private.curve.name != signatures.CURVES[curve].name:
        raise CryptoFailure(ErrorKind.BAD_KEY, f"the private key is not a {curve} key")
    return primitives.exchange(private, peer)


def derive(curve: str, private_pkcs8: bytes, peer_public: bytes, kdf: str, salt: bytes, info: bytes, length: int) -> bytes:
    """The symmetric key both sides derive from the shared secret with `kdf`."""
    if kdf not in KDFS:
        raise unsupported("key derivation", kdf, KDFS)
    if not 1 <= length <= 64:
        raise bad_input(f"key length {length} is not 1...64 bytes")
    secret = shared_secret(curve, private_pkcs8, peer_public)
    if kdf == "raw":
        return secret[:length]
    name, hash_name = kdf.split("-")
    if name == "hkdf":
        return primitives.hkdf(hash_name.upper(), secret, salt, info, length)
    return ec_interop.x963_kdf(hash_name.upper(), secret, info, length)
