"""The described engine's values one at a time: every public key format both ways and strictly,
the encodings strictly, and the symmetric ciphers' edge cases."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from pythonref import rsa_keys
from pythonref.described import Refused
from pythonref.described import values as v
from pythonref.described.description import KEY_FORMATS, Value


@pytest.mark.parametrize("fmt", KEY_FORMATS)
def test_every_public_key_format_round_trips(fmt: str, key1024: rsa.RSAPrivateKey) -> None:
    payload = v.public_key_payload(key1024.public_key(), fmt)
    if fmt in ("json-ne", "jwk"):
        payload = v.loads_json(json.dumps(payload).encode())
    loaded = v.load_public_key(payload, fmt)
    assert loaded.public_numbers() == key1024.public_key().public_numbers()


def test_json_ne_holds_big_integers(key2048: rsa.RSAPrivateKey) -> None:
    text = json.dumps(v.public_key_payload(key2048.public_key(), "json-ne")).encode()
    assert v.load_public_key(v.loads_json(text), "json-ne").key_size == 2048


@pytest.mark.parametrize("fmt, payload", [
    ("pem-spki", b"-----BEGIN RSA PUBLIC KEY-----\nAAAA\n-----END RSA PUBLIC KEY-----"),  # the other label
    ("pem-pkcs1", b"not a key"),
    ("json-ne", {"n": 15, "e": True}),
    ("json-ne", {"n": "15", "e": 3}),
    ("jwk", {"kty": "EC", "n": "AQAB", "e": "AQAB"}),
    ("jwk", {"kty": "RSA", "n": "AQAB==", "e": "AQAB"}),  # base64url without padding only
])
def test_bad_public_keys_are_refused(fmt: str, payload: object) -> None:
    with pytest.raises(Refused):
        v.load_public_key(payload, fmt)


def test_a_private_key_or_the_wrong_der_is_not_a_public_key(key1024: rsa.RSAPrivateKey) -> None:
    with pytest.raises(Refused):
        v.load_public_key(rsa_keys.export_private(key1024, "pkcs8-pem"), "pem-spki")
    with pytest.raises(Refused):
        v.load_public_key(rsa_keys.export_public(key1024.public_key(), "pkcs1-der"), "der-spki")
    with pytest.raises(Refused):
        v.load_public_key(rsa_keys.export_private(key1024, "pkcs8-der"), "der-spki")


@pytest.mark.parametrize("encoding", ["raw", "base64", "base64url", "hex"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 16, 31])
def test_encodings_round_trip_with_known_lengths(encoding: str, n: int) -> None:
    data = bytes(range(250, 250 - n, -1))
    encoded = v.encode(data, encoding)
    assert len(encoded) == v.encoded_length(n, encoding)
    assert v.decode(encoded, encoding, "x") == data


@pytest.mark.parametrize("encoding, text", [
    ("base64", b"AQI"), ("base64", b"AQI=\n"), ("base64url", b"AQI="), ("base64url", b"A+I"),
    ("base64url", b"AQJ"),  # non-canonical: the unused bits are not zero
    ("hex", b"0g"), ("hex", b"012"), ("hex", b"01 02"), ("utf8", b"\xff"),
])
def test_encodings_are_strict(encoding: str, text: bytes) -> None:
    with pytest.raises(Refused, match=encoding):
        v.decode(text, encoding, "the value")


def _sealed(cipher: str, padding: str = "pkcs7") -> Value:
    return Value("sealed", "s", "x", cipher=cipher, padding=padding, carries="message", iv="prefix",
                 tag="appended" if cipher in ("aes-gcm", "chacha20-poly1305") else "")


@pytest.mark.parametrize("plaintext", [b"", b"a", b"x" * 16, b"y" * 17])
@pytest.mark.parametrize("cipher, padding", [("aes-cbc", "pkcs7"), ("aes-cbc", "zero"), ("aes-ecb", "pkcs7"),
                                             ("aes-ecb", "zero"), ("aes-ctr", "pkcs7"), ("aes-gcm", "pkcs7"),
                                             ("chacha20-poly1305", "pkcs7"), ("fernet", "pkcs7")])
def test_ciphers_round_trip(cipher: str, padding: str, plaintext: bytes) -> None:
    key = bytes(range(32))
    value = _sealed(cipher, padding)
    iv = bytes(v.IV_BYTES.get(cipher, 0))
    ct, tag = v.seal(value, key, plaintext, iv)
    assert v.open_sealed(value, key, ct, iv, tag) == plaintext
    if padding == "zero" and plaintext:
        assert len(ct) == -(-len(plaintext) // 16) * 16  # zero bytes to the block boundary, no more


def test_zero_padding_cannot_carry_a_trailing_zero() -> None:
    with pytest.raises(Refused, match="0x00"):
        v.seal(_sealed("aes-cbc", "zero"), bytes(16), b"ends in zero\x00", bytes(16))


@pytest.mark.parametrize("cipher", ["aes-cbc", "aes-gcm", "chacha20-poly1305", "fernet"])
def test_wrong_key_or_tampering_is_refused(cipher: str) -> None:
    value = _sealed(cipher)
    iv = bytes(v.IV_BYTES.get(cipher, 0))
    ct, tag = v.seal(value, bytes(32), b"sixteen byte msg!", iv)
    with pytest.raises(Refused):
        v.open_sealed(value, bytes([1]) * 32, ct, iv, tag)
    if cipher != "aes-cbc":  # CBC has no integrity: only its padding may notice
        with pytest.raises(Refused):
            v.open_sealed(value, bytes(32), ct[:-1] + bytes([ct[-1] ^ 1]), iv, tag)
