"""What a Pi needs to meet an iOS app's EC code: X9.63 keys, ECDH with the ANSI X9.63 KDF, and
Apple's ECIES (`SecKeyCreateEncryptedData` with `eciesEncryption…X963SHA…AESGCM`), all with pyca.

Apple's ECIES, as its open-source Security framework composes it (SecKeyAdaptors.m,
`SecKeyECIESCopyEncryptedData` and `SecKeyECIESKeyExchangeKDFX963CopyResult`):
  ephemeral key pair on the recipient's curve; Z = ECDH(ephemeral, recipient);
  X9.63 KDF(Z, SharedInfo = ephemeral public key 04||X||Y) -> AES key of 16 bytes for curves of at
  most 256 bits, 32 above, and with a "VariableIV" algorithm 16 more bytes that are the GCM IV
  (otherwise the IV is 16 zero bytes); AES-GCM, no associated data, 16-byte tag;
  output = ephemeral public key || ciphertext || tag.
ECDH, hash names and point loading are primitives'; pure functions over bytes; failures are
CryptoFailure with a shared ErrorKind.
"""

from __future__ import annotations

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from . import primitives
from .errors import CryptoFailure, ErrorKind, unsupported

# P-256/384/521 by the bytes of one coordinate: what an X9.63 key's length tells.
CURVES: dict[int, ec.EllipticCurve] = {primitives.coordinate_bytes(c): c for c in primitives.EC_CURVES.values()}
IV = 16
TAG = 16


def _coordinate_size(length: int, parts: int) -> int:
    """The coordinate size of an X9.63 key of `length` bytes with `parts` coordinates after the 04."""
    for size in CURVES:
        if 1 + parts * size == length:
            return size
    raise CryptoFailure(ErrorKind.BAD_KEY, f"{length} bytes is no P-256/384/521 X9.63 key")


def load_x963_public(data: bytes) -> ec.EllipticCurvePublicKey:
    """04||X||Y: SecKeyCopyExternalRepresentation of a public EC key."""
    return primitives.load_point(CURVES[_coordinate_size(len(data), 2)], data)


def load_x963_private(data: bytes) -> ec.EllipticCurvePrivateKey:
    """04||X||Y||K: SecKeyCopyExternalRepresentation of a private EC key; the point must be K*G."""
    size = _coordinate_size(len(data), 3)
    try:
        key = ec.derive_private_key(int.from_bytes(data[1 + 2 * size:], "big"), CURVES[size])
    except ValueError:
        raise CryptoFailure(ErrorKind.BAD_KEY, "the X9.63 private scalar is out of range") from None
    if x963_public(key.public_key()) != data[:1 + 2 * size]:
        raise CryptoFailure(ErrorKind.BAD_KEY, "the X9.63 private key's public point is not K*G")
    return key


def x963_public(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


def x963_private(key: ec.EllipticCurvePrivateKey) -> bytes:
    size = primitives.coordinate_bytes(key.curve)
    return x963_public(key.public_key()) + key.private_numbers().private_value.to_bytes(size, "big")


def x963_kdf(hash_name: str, secret: bytes, shared_info: bytes, length: int) -> bytes:
    """ANSI X9.63 KDF (SEC 1 3.6.1): kSecKeyAlgorithmECDHKeyExchange…X963SHA* with requestedSize/sharedInfo."""
    return X963KDF(primitives.hash_algorithm(hash_name, "X9.63 KDF hash"), length, shared_info or None).derive(secret)


def _key_and_iv(hash_name: str, secret: bytes, ephemeral: bytes, variable_iv: bool) -> tuple[bytes, bytes]:
    key_size = 16 if (len(ephemeral) - 1) // 2 <= 32 else 32
    derived = x963_kdf(hash_name, secret, ephemeral, key_size + (IV if variable_iv else 0))
    return derived[:key_size], derived[key_size:] if variable_iv else bytes(IV)


def ecies_seal(recipient: bytes, plaintext: bytes, hash_name: str = "SHA256", variable_iv: bool = False) -> bytes:
    """What SecKeyCreateEncryptedData makes for the X9.63 public key `recipient`."""
    public = load_x963_public(recipient)
    ephemeral_key = ec.generate_private_key(public.curve)
    ephemeral = x963_public(ephemeral_key.public_key())
    key, iv = _key_and_iv(hash_name, primitives.exchange(ephemeral_key, public), ephemeral, variable_iv)
    return ephemeral + AESGCM(key).encrypt(iv, plaintext, None)


def ecies_open(recipient_private: bytes, sealed: bytes, hash_name: str = "SHA256", variable_iv: bool = False) -> bytes:
    """Opens what SecKeyCreateEncryptedData made for the X9.63 private key's public half."""
    private = load_x963_private(recipient_private)
    point = 1 + 2 * primitives.coordinate_bytes(private.curve)
    if len(sealed) < point + TAG:
        raise CryptoFailure(ErrorKind.BAD_LENGTH, f"ECIES ciphertext is {len(sealed)} bytes; needs at least {point + TAG}")
    ephemeral = sealed[:point]
    ephemeral_key = primitives.load_point(private.curve, ephemeral)
    key, iv = _key_and_iv(hash_name, primitives.exchange(private, ephemeral_key), ephemeral, variable_iv)
    try:
        return AESGCM(key).decrypt(iv, sealed[point:], None)
    except InvalidTag:
        raise CryptoFailure(ErrorKind.AUTH_FAILED, "ECIES tag does not match (wrong key, algorithm or tampered data)") from None


def random_x963_private(key_bits: int = 256) -> bytes:
    """A fresh key as SecKeyCopyExternalRepresentation gives a private one."""
    curves = {curve.key_size: curve for curve in CURVES.values()}
    if key_bits not in curves:
        raise unsupported("EC key size", key_bits, (str(bits) for bits in curves))
    return x963_private(ec.generate_private_key(curves[key_bits]))
