"""What a Pi needs to meet an iOS app's EC code: X9.63 keys, ECDH with the ANSI X9.63 KDF, and
Apple's ECIES (`SecKeyCreateEncryptedData` with `eciesEncryption…X963SHA…AESGCM`), all with pyca.

Apple's ECIES, as its open-source Security framework composes it (SecKeyAdaptors.m,
`SecKeyECIESCopyEncryptedData` and `SecKeyECIESKeyExchangeKDFX963CopyResult`):
  ephemeral key pair on the recipient's curve; Z = ECDH(ephemeral, recipient);
  X9.63 KDF(Z, SharedInfo = ephemeral public key 04||X||Y) -> AES key of 16 bytes for curves of at
  most 256 bits, 32 above, and with a "VariableIV" algorithm 16 more bytes that are the GCM IV
  (otherwise the IV is 16 zero bytes); AES-GCM, no associated data, 16-byte tag;
  output = ephemeral public key || ciphertext || tag.
Standard and cofactor ECDH agree on P-256/384/521 (cofactor 1), so they are one function here.
Pure functions over bytes; failures are CryptoFailure with a shared ErrorKind.
"""

from __future__ import annotations

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from .errors import CryptoFailure, ErrorKind, unsupported

CURVES: dict[int, type[ec.EllipticCurve]] = {32: ec.SECP256R1, 48: ec.SECP384R1, 66: ec.SECP521R1}
HASHES: dict[str, type[hashes.HashAlgorithm]] = {
    "SHA1": hashes.SHA1, "SHA224": hashes.SHA224, "SHA256": hashes.SHA256, "SHA384": hashes.SHA384, "SHA512": hashes.SHA512,
}
IV = 16
TAG = 16


def _hash(name: str) -> hashes.HashAlgorithm:
    if name not in HASHES:
        raise unsupported("X9.63 KDF hash", name, HASHES)
    return HASHES[name]()


def _coordinate_size(length: int, parts: int) -> int:
    """The coordinate size of an X9.63 key of `length` bytes with `parts` coordinates after the 04."""
    for size in CURVES:
        if 1 + parts * size == length:
            return size
    raise CryptoFailure(ErrorKind.BAD_KEY, f"{length} bytes is no P-256/384/521 X9.63 key")


def load_x963_public(data: bytes) -> ec.EllipticCurvePublicKey:
    """04||X||Y: SecKeyCopyExternalRepresentation of a public EC key."""
    size = _coordinate_size(len(data), 2)
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(CURVES[size](), data)
    except ValueError:
        raise CryptoFailure(ErrorKind.BAD_KEY, "the X9.63 public key is not a point of its curve") from None


def load_x963_private(data: bytes) -> ec.EllipticCurvePrivateKey:
    """04||X||Y||K: SecKeyCopyExternalRepresentation of a private EC key; the point must be K*G."""
    size = _coordinate_size(len(data), 3)
    try:
        key = ec.derive_private_key(int.from_bytes(data[1 + 2 * size:], "big"), CURVES[size]())
    except ValueError:
        raise CryptoFailure(ErrorKind.BAD_KEY, "the X9.63 private scalar is out of range") from None
    if x963_public(key.public_key()) != data[:1 + 2 * size]:
        raise CryptoFailure(ErrorKind.BAD_KEY, "the X9.63 private key's public point is not K*G")
    return key


def x963_public(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


def x963_private(key: ec.EllipticCurvePrivateKey) -> bytes:
    size = (key.curve.key_size + 7) // 8
    return x963_public(key.public_key()) + key.private_numbers().private_value.to_bytes(size, "big")


def ecdh(private: ec.EllipticCurvePrivateKey, public: ec.EllipticCurvePublicKey) -> bytes:
    """The x coordinate of the shared point (kSecKeyAlgorithmECDHKeyExchangeStandard / Cofactor)."""
    if private.curve.name != public.curve.name:
        raise CryptoFailure(ErrorKind.BAD_KEY, f"keys of two curves: {private.curve.name} and {public.curve.name}")
    return private.exchange(ec.ECDH(), public)


def x963_kdf(hash_name: str, secret: bytes, shared_info: bytes, length: int) -> bytes:
    """ANSI X9.63 KDF (SEC 1 3.6.1): kSecKeyAlgorithmECDHKeyExchange…X963SHA* with requestedSize/sharedInfo."""
    return X963KDF(_hash(hash_name), length, shared_info or None).derive(secret)


def _key_and_iv(hash_name: str, secret: bytes, ephemeral: bytes, variable_iv: bool) -> tuple[bytes, bytes]:
    key_size = 16 if (len(ephemeral) - 1) // 2 <= 32 else 32
    derived = x963_kdf(hash_name, secret, ephemeral, key_size + (IV if variable_iv else 0))
    return derived[:key_size], derived[key_size:] if variable_iv else bytes(IV)


def ecies_seal(recipient: bytes, plaintext: bytes, hash_name: str = "SHA256", variable_iv: bool = False) -> bytes:
    """What SecKeyCreateEncryptedData makes for the X9.63 public key `recipient`."""
    public = load_x963_public(recipient)
    ephemeral_key = ec.generate_private_key(public.curve)
    ephemeral = x963_public(ephemeral_key.public_key())
    key, iv = _key_and_iv(hash_name, ecdh(ephemeral_key, public), ephemeral, variable_iv)
    return ephemeral + AESGCM(key).encrypt(iv, plaintext, None)


def ecies_open(recipient_private: bytes, sealed: bytes, hash_name: str = "SHA256", variable_iv: bool = False) -> bytes:
    """Opens what SecKeyCreateEncryptedData made for the X9.63 private key's public half."""
    private = load_x963_private(recipient_private)
    point = 1 + 2 * ((private.curve.key_size + 7) // 8)
    if len(sealed) < point + TAG:
        raise CryptoFailure(ErrorKind.BAD_LENGTH, f"ECIES ciphertext is {len(sealed)} bytes; needs at least {point + TAG}")
    ephemeral = sealed[:point]
    try:
        ephemeral_key = ec.EllipticCurvePublicKey.from_encoded_point(private.curve, ephemeral)
    except ValueError:
        raise CryptoFailure(ErrorKind.BAD_KEY, "the ephemeral public key is not a point of the curve") from None
    key, iv = _key_and_iv(hash_name, ecdh(private, ephemeral_key), ephemeral, variable_iv)
    try:
        return AESGCM(key).decrypt(iv, sealed[point:], None)
    except InvalidTag:
        raise CryptoFailure(ErrorKind.AUTH_FAILED, "ECIES tag does not match (wrong key, algorithm or tampered data)") from None


def random_x963_private(key_bits: int = 256) -> bytes:
    """A fresh key as SecKeyCopyExternalRepresentation gives a private one."""
    curves = {256: ec.SECP256R1, 384: ec.SECP384R1, 521: ec.SECP521R1}
    if key_bits not in curves:
        raise unsupported("EC key size", key_bits, (str(bits) for bits in curves))
    return x963_private(ec.generate_private_key(curves[key_bits]()))
