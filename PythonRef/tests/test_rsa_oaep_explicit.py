"""Padding "oaep" with an explicit label hash and MGF1 hash (what Wycheproof varies).

The encoding is checked independently: textbook RSA and RFC 8017 section 7.1.2 decoding written
out here with hashlib, so a swapped hash or MGF1 hash cannot pass by agreeing with itself.
"""

from __future__ import annotations

import hashlib
import itertools

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from pythonref import handlers, rsa_cipher, rsa_keys
from pythonref.errors import CryptoFailure, ErrorKind

# OpenSSL names (what the Swift side sends) -> hashlib names.
HASHLIB = {"SHA1": "sha1", "SHA224": "sha224", "SHA256": "sha256", "SHA384": "sha384", "SHA512": "sha512",
           "SHA512-224": "sha512_224", "SHA512-256": "sha512_256"}
MESSAGE = b"wycheproof varies both hashes"

# OAEP with SHA-512/224 or SHA-512/256: pyca's public API refuses them by an allow-list, which
# PythonRef bypasses through its OpenSSL backend's RSA routine where pyca still has it (Debian 12's
# pyca 38). Newer pyca (Debian 13's 43, PyPI's current) has no such routine: there PythonRef answers
# Unsupported, and must do so for encryption and decryption alike (never a decryption failure).
SHA512T = {"SHA512-224", "SHA512-256"}
try:
    from cryptography.hazmat.backends.openssl.rsa import _enc_dec_rsa_pkey_ctx  # noqa: F401
    PYCA_HAS_SHA512T_OAEP = True
except ImportError:
    PYCA_HAS_SHA512T_OAEP = False


def _raw_decrypt(key: rsa.RSAPrivateKey, ct: bytes) -> bytes:
    nums = key.private_numbers()
    k = (key.key_size + 7) // 8
    return pow(int.from_bytes(ct, "big"), nums.d, nums.public_numbers.n).to_bytes(k, "big")


def _mgf1(name: str, seed: bytes, length: int) -> bytes:
    out = b"".join(hashlib.new(name, seed + i.to_bytes(4, "big")).digest() for i in range(length // 8 + 2))
    return out[:length]


def _oaep_decode(em: bytes, label_hash: str, mgf_hash: str, label: bytes) -> bytes | None:
    h_len = hashlib.new(label_hash).digest_size
    if em[0] != 0:
        return None
    masked_seed, masked_db = em[1 : 1 + h_len], em[1 + h_len :]
    seed = bytes(a ^ b for a, b in zip(masked_seed, _mgf1(mgf_hash, masked_db, h_len)))
    db = bytes(a ^ b for a, b in zip(masked_db, _mgf1(mgf_hash, seed, len(masked_db))))
    if db[:h_len] != hashlib.new(label_hash, label).digest():
        return None
    rest = db[h_len:].lstrip(b"\x00")
    return rest[1:] if rest[:1] == b"\x01" else None


@pytest.mark.parametrize("hash_name,mgf1_hash", list(itertools.product(HASHLIB, HASHLIB)))
def test_oaep_everyHashPair_encodesAsRFC8017AndRoundTrips(key2048: rsa.RSAPrivateKey, hash_name: str, mgf1_hash: str) -> None:
    label = b"label " + hash_name.encode()
    if not PYCA_HAS_SHA512T_OAEP and {hash_name, mgf1_hash} & SHA512T:
        for call in (lambda: rsa_cipher.encrypt(key2048.public_key(), "oaep", MESSAGE, label, hash_name, mgf1_hash),
                     lambda: rsa_cipher.decrypt(key2048, "oaep", bytes(255) + b"\x01", label, hash_name, mgf1_hash)):
            with pytest.raises(CryptoFailure) as info:
                call()
            assert info.value.kind is ErrorKind.UNSUPPORTED, info.value
        return
    ct = rsa_cipher.encrypt(key2048.public_key(), "oaep", MESSAGE, label, hash_name, mgf1_hash)
    assert len(ct) == 256
    em = _raw_decrypt(key2048, ct)
    assert _oaep_decode(em, HASHLIB[hash_name], HASHLIB[mgf1_hash], label) == MESSAGE
    assert rsa_cipher.decrypt(key2048, "oaep", ct, label, hash_name, mgf1_hash) == MESSAGE


@pytest.mark.skipif(not PYCA_HAS_SHA512T_OAEP, reason="this pyca/cryptography has no OAEP with SHA-512/t (Unsupported)")
def test_oaep_sha512_256_ciphertext_failsWithTheUsualAnswerUnderOtherParameters(key2048: rsa.RSAPrivateKey) -> None:
    ct = rsa_cipher.encrypt(key2048.public_key(), "oaep", MESSAGE, None, "SHA512-256", "SHA512-224")
    details = set()
    for hash_name, mgf1_hash, label in [("SHA512-256", "SHA512-256", None), ("SHA512", "SHA512-224", None),
                                        ("SHA512-256", "SHA512-224", b"unexpected label")]:
        with pytest.raises(CryptoFailure) as info:
            rsa_cipher.decrypt(key2048, "oaep", ct, label, hash_name, mgf1_hash)
        assert info.value.kind is ErrorKind.DECRYPT_FAILED
        details.add(info.value.detail)
    assert details == {rsa_cipher.DECRYPT_FAILED_DETAIL}


def test_oaep_explicitSha256_isTheNamedOaepSha256(key2048: rsa.RSAPrivateKey) -> None:
    ct = rsa_cipher.encrypt(key2048.public_key(), "oaep", MESSAGE, None, "SHA256", "SHA256")
    assert rsa_cipher.decrypt(key2048, "oaep-sha256", ct) == MESSAGE


@pytest.mark.parametrize("hash_name,limit", [("SHA1", 214), ("SHA224", 198), ("SHA512-224", 198), ("SHA384", 158),
                                             ("SHA512", 126), ("SHA512-256", 190)])
def test_oaep_maxPlaintext_followsTheLabelHashOnly(hash_name: str, limit: int) -> None:
    assert rsa_cipher.max_plaintext(2048, "oaep", hash_name, "SHA1") == limit


def _call(op: str, args: dict[str, object]) -> dict[str, object]:
    result = handlers.handle(op, args)
    assert isinstance(result, dict)
    return result


def test_handle_oaepWithNamedHashes_roundTripsAndRejectsBadNames(key2048: rsa.RSAPrivateKey) -> None:
    pub = rsa_keys.export_public(key2048.public_key(), "spki-pem")
    priv = rsa_keys.export_private(key2048, "pkcs8-pem")
    base = {"padding": "oaep", "hash": "SHA384", "mgf1_hash": "SHA512-256", "label": b"L"}
    if not PYCA_HAS_SHA512T_OAEP:
        assert _call("rsa.encrypt", {"key": pub, "plaintext": b"m", **base}).get("err") == "Unsupported"
        base["mgf1_hash"] = "SHA512"
    ct = _call("rsa.encrypt", {"key": pub, "plaintext": b"m", **base})["ok"]
    assert _call("rsa.decrypt", {"key": priv, "ciphertext": ct, **base}) == {"ok": b"m"}
    assert _call("rsa.max_plaintext", {"bits": 3072, "padding": "oaep", "hash": "SHA384", "mgf1_hash": "SHA1"}) == {"ok": 286}
    cases = [
        ({"padding": "oaep", "mgf1_hash": "SHA1"}, "BadInput"),  # no label hash
        ({"padding": "oaep", "hash": "SHA1"}, "BadInput"),  # no MGF1 hash
        ({"padding": "oaep", "hash": "SHA3-256", "mgf1_hash": "SHA1"}, "Unsupported"),
        ({"padding": "oaep", "hash": "sha256", "mgf1_hash": "SHA1"}, "Unsupported"),  # names are OpenSSL's, exactly
        ({"padding": "oaep-sha1", "hash": "SHA256"}, "BadInput"),  # named paddings fix their hashes
        ({"padding": "pkcs1", "mgf1_hash": "SHA256"}, "BadInput"),
        ({"padding": "oaep", "hash": b"SHA1", "mgf1_hash": "SHA1"}, "BadInput"),
    ]
    for args, kind in cases:
        assert _call("rsa.encrypt", {"key": pub, "plaintext": b"m", **args}).get("err") == kind, args
        assert _call("rsa.decrypt", {"key": priv, "ciphertext": ct, **args}).get("err") == kind, args
