from __future__ import annotations

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from pythonref import ec_interop, primitives
from pythonref.errors import CryptoFailure, ErrorKind

# NIST CAVP KAS ECC CDH primitive (SP 800-56A), [P-256] COUNT = 0.
CDH_D = "7d7dc5f71eb29ddaf80d6214632eeae03d9058af1fb6d22ed80badb62bc1a534"
CDH_Q = ("04ead218590119e8876b29146ff89ca61770c4edbbf97d38ce385ed281d8a6b230"
         "28af61281fd35e2fa7002523acc85a429cb06ee6648325389f59edfce1405141")
CDH_PEER = ("04700c48f77f56584c5cc632ca65640db91b6bacce3a4df6b42ce7cc838833d287"
            "db71e509e3fd9b060ddb20ba5c51dcc5948d46fbf640dfe0441782cab85fa4ac")
CDH_Z = "46fc62106420ff012e54a434fbdd2d25ccc5852060561e68040dd7778997bd7b"


def _kdf_by_hand(name: str, z: bytes, info: bytes, length: int) -> bytes:
    """SEC 1 3.6.1 with hashlib: Hash(Z || counter32 || info) for counter = 1, 2, …"""
    out = b""
    counter = 1
    while len(out) < length:
        out += hashlib.new(name, z + counter.to_bytes(4, "big") + info).digest()
        counter += 1
    return out[:length]


def test_x963_keys_and_ecdh_match_nist_cdh():
    private = ec_interop.load_x963_private(bytes.fromhex(CDH_Q + CDH_D))
    assert ec_interop.x963_public(private.public_key()).hex() == CDH_Q
    assert ec_interop.x963_private(private).hex() == CDH_Q + CDH_D
    peer = ec_interop.load_x963_public(bytes.fromhex(CDH_PEER))
    assert primitives.exchange(private, peer).hex() == CDH_Z


def test_x963_kdf_matches_nist_cavp_and_the_definition():
    # NIST CAVP ansx963_2001.rsp, SHA-256 COUNT = 0 (no SharedInfo).
    z = bytes.fromhex("96c05619d56c328ab95fe84b18264b08725b85e33fd34f08")
    assert ec_interop.x963_kdf("SHA256", z, b"", 16).hex() == "443024c3dae66b95e6f5670601558f71"
    for name in ("SHA1", "SHA224", "SHA256", "SHA384", "SHA512"):
        assert ec_interop.x963_kdf(name, z, b"info", 70) == _kdf_by_hand(name.lower(), z, b"info", 70)
    with pytest.raises(CryptoFailure) as failure:
        ec_interop.x963_kdf("MD5", z, b"", 16)
    assert failure.value.kind is ErrorKind.UNSUPPORTED


def test_bad_keys_are_bad_key():
    point = bytearray.fromhex(CDH_Q)
    point[-1] ^= 1
    cases = [(ec_interop.load_x963_public, bytes(point)), (ec_interop.load_x963_public, bytes.fromhex(CDH_Q)[:-1]),
             (ec_interop.load_x963_private, bytes.fromhex(CDH_PEER + CDH_D))]  # the point is not K*G
    for loader, data in cases:
        with pytest.raises(CryptoFailure) as failure:
            loader(data)
        assert failure.value.kind is ErrorKind.BAD_KEY


@pytest.mark.parametrize("bits", [256, 384, 521])
@pytest.mark.parametrize("variable_iv", [False, True])
def test_ecies_opens_a_box_composed_by_hand_as_apple_documents(bits, variable_iv):
    recipient = ec_interop.random_x963_private(bits)
    public = ec_interop.load_x963_private(recipient).public_key()
    ephemeral_key = ec.generate_private_key(public.curve)
    ephemeral = ec_interop.x963_public(ephemeral_key.public_key())
    z = ephemeral_key.exchange(ec.ECDH(), public)
    key_size = 16 if bits == 256 else 32
    derived = _kdf_by_hand("sha384", z, ephemeral, key_size + 16)
    iv = derived[key_size:] if variable_iv else bytes(16)
    sealed = ephemeral + AESGCM(derived[:key_size]).encrypt(iv, b"to the Pi", None)
    assert ec_interop.ecies_open(recipient, sealed, "SHA384", variable_iv) == b"to the Pi"
    # The other IV rule, or another hash, does not open it.
    for hash_name, variable in (("SHA384", not variable_iv), ("SHA256", variable_iv)):
        with pytest.raises(CryptoFailure) as failure:
            ec_interop.ecies_open(recipient, sealed, hash_name, variable)
        assert failure.value.kind is ErrorKind.AUTH_FAILED


def test_ecies_round_trip_and_refusals():
    recipient = ec_interop.random_x963_private(256)
    public = recipient[:65]
    sealed = ec_interop.ecies_seal(public, b"", "SHA256", True)
    assert len(sealed) == 65 + 16
    assert ec_interop.ecies_open(recipient, sealed, "SHA256", True) == b""
    sealed = ec_interop.ecies_seal(public, b"hello", "SHA1")
    assert ec_interop.ecies_open(recipient, sealed, "SHA1") == b"hello"
    tampered = bytearray(sealed)
    tampered[-1] ^= 1
    with pytest.raises(CryptoFailure) as failure:
        ec_interop.ecies_open(recipient, bytes(tampered), "SHA1")
    assert failure.value.kind is ErrorKind.AUTH_FAILED
    with pytest.raises(CryptoFailure) as failure:
        ec_interop.ecies_open(recipient, sealed[:80], "SHA1")
    assert failure.value.kind is ErrorKind.BAD_LENGTH
    off_curve = bytearray(sealed)
    off_curve[64] ^= 1
    with pytest.raises(CryptoFailure) as failure:
        ec_interop.ecies_open(recipient, bytes(off_curve), "SHA1")
    assert failure.value.kind is ErrorKind.BAD_KEY


def test_ecies_opens_a_third_party_box():
    """jedda/ECIES-Swift-Playground (Pages/Decrypt): a box for .eciesEncryptionCofactorVariableIVX963SHA384AESGCM
    and its SEC 1 key, here as X9.63 bytes."""
    key = bytes.fromhex(
        "04eea3060961b42fb1d8029b558486cbcb1ddc17385de445d9d3d3295696660464bbc8221de564182ad9b2de04c2db8e62be5119ef9f593c582cb5832042866bb2"
        "4f2f3481259b0c5247e661979368a04f8512ea448056cf6e7d2ade13086ddd81")
    box = base64.b64decode("BNYuilyA9qKhJ51iaNFzMJXe7Z3pUG62o3vPfud3LEJbw2f1yMLEKF+V+6GQNNbk4Vjw2IHpEaZSB2If/ibZCS08AC6l/eUzMhW11k0Qr5mxggMHwV0aB1K8p/1J4bcy7n/4plUAEyA=")
    assert ec_interop.ecies_open(key, box, "SHA384", True) == b"This is a test message."
