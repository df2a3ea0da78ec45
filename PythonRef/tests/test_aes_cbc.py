from __future__ import annotations

import base64
import json

import pytest

from pythonref import aes_cbc
from pythonref.errors import CryptoFailure, ErrorKind

# NIST SP 800-38A, Appendix F.2.1 / F.2.3 / F.2.5 (CBC-AES128/192/256.Encrypt): one IV and
# plaintext, four blocks each.
SP800_38A_IV = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
SP800_38A_PT = bytes.fromhex(
    "6bc1bee22e409f96e93d7e117393172a" "ae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52ef" "f69f2445df4f9b17ad2b417be66c3710"
)
SP800_38A = {
    "F.2.1 AES-128": (
        "2b7e151628aed2a6abf7158809cf4f3c",
        "7649abac8119b246cee98e9b12e9197d" "5086cb9b507219ee95db113a917678b2"
        "73bed6b8e3c1743b7116e69e22229516" "3ff1caa1681fac09120eca307586e1a7",
    ),
    "F.2.3 AES-192": (
        "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
        "4f021db243bc633d7178183a9fa071e8" "b4d9ada9ad7dedf4e5e738763f69145a"
        "571b242012fb7ae07fa9baac3df102e0" "08b0e27988598881d920a9e64f5615cd",
    ),
    "F.2.5 AES-256": (
        "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
        "f58c4c04d6e5f1ba779eabfb5f7bfbd6" "9cfc4e967edb808d679f777bc6702c7d"
        "39f23369a9d9bacfa530e26304231461" "b2eb05e2c39be9fcda6c19078c6a9d1b",
    ),
}
KEY = bytes(range(16))
IV = bytes(range(100, 116))


def _expect(kind: ErrorKind, fn, *args) -> CryptoFailure:  # type: ignore[no-untyped-def]
    with pytest.raises(CryptoFailure) as info:
        fn(*args)
    assert info.value.kind is kind, info.value.detail
    return info.value


# ---- CBC -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SP800_38A))
def test_cbcEncrypt_matchesSp80038aVector(name: str) -> None:
    key_hex, ct_hex = SP800_38A[name]
    ct = aes_cbc.cbc_encrypt(bytes.fromhex(key_hex), SP800_38A_IV, SP800_38A_PT)
    # A block-aligned plaintext gets one whole extra block of PKCS#7 padding.
    assert len(ct) == 80
    assert ct[:64] == bytes.fromhex(ct_hex)
    assert aes_cbc.cbc_decrypt(bytes.fromhex(key_hex), SP800_38A_IV, ct) == SP800_38A_PT


def test_cbcEncrypt_pkcs7PaddingBlockIsTheCbcOfSixteen0x10Bytes() -> None:
    # The padding block is E(K, 0x10*16 XOR last ciphertext block): check it via a one-block CBC.
    key_hex, ct_hex = SP800_38A["F.2.1 AES-128"]
    key, last = bytes.fromhex(key_hex), bytes.fromhex(ct_hex)[-16:]
    full = aes_cbc.cbc_encrypt(key, SP800_38A_IV, SP800_38A_PT)
    assert aes_cbc.cbc_encrypt(key, last, b"\x10" * 16)[:16] == full[64:]


@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 31, 32, 1000])
def test_cbc_roundTripsEveryLength(size: int) -> None:
    pt = bytes(i % 251 for i in range(size))
    ct = aes_cbc.cbc_encrypt(KEY, IV, pt)
    assert len(ct) == (size // 16 + 1) * 16
    assert aes_cbc.cbc_decrypt(KEY, IV, ct) == pt


@pytest.mark.parametrize("key_len", [0, 8, 15, 17, 31, 33, 64])
def test_cbc_wrongKeySize_isBadKey(key_len: int) -> None:
    _expect(ErrorKind.BAD_KEY, aes_cbc.cbc_encrypt, bytes(key_len), IV, b"x")
    _expect(ErrorKind.BAD_KEY, aes_cbc.cbc_decrypt, bytes(key_len), IV, bytes(16))


@pytest.mark.parametrize("iv_len", [0, 12, 15, 17, 32])
def test_cbc_wrongIvSize_isBadLength(iv_len: int) -> None:
    _expect(ErrorKind.BAD_LENGTH, aes_cbc.cbc_encrypt, KEY, bytes(iv_len), b"x")
    _expect(ErrorKind.BAD_LENGTH, aes_cbc.cbc_decrypt, KEY, bytes(iv_len), bytes(16))


@pytest.mark.parametrize("ct_len", [0, 1, 15, 17, 33])
def test_cbcDecrypt_ciphertextNotPositiveMultipleOf16_isBadLength(ct_len: int) -> None:
    _expect(ErrorKind.BAD_LENGTH, aes_cbc.cbc_decrypt, KEY, IV, bytes(ct_len))


def test_cbcDecrypt_flippedPaddingByte_isBadPadding() -> None:
    ct = aes_cbc.cbc_encrypt(KEY, IV, b"A" * 16)  # second block is pure padding: 0x10 * 16
    # Flipping bit 0 of the previous block's last byte turns the final 0x10 into 0x11 (> 16).
    tampered = ct[:15] + bytes([ct[15] ^ 0x01]) + ct[16:]
    _expect(ErrorKind.BAD_PADDING, aes_cbc.cbc_decrypt, KEY, IV, tampered)
    # The same trick through the IV for a one-block message.
    one = aes_cbc.cbc_encrypt(KEY, IV, b"")
    _expect(ErrorKind.BAD_PADDING, aes_cbc.cbc_decrypt, KEY, IV[:15] + bytes([IV[15] ^ 0x01]), one)


def test_cbcDecrypt_truncatedOrWrongKey_neverGivesThePlaintext() -> None:
    pt = b"attack at dawn, bring snacks!!"  # 30 bytes: padding 02 02
    ct = aes_cbc.cbc_encrypt(KEY, IV, pt)
    _expect(ErrorKind.BAD_LENGTH, aes_cbc.cbc_decrypt, KEY, IV, ct[:-1])
    # Fixed key/IV, so these outcomes are deterministic; either way no plaintext comes back.
    for key in (bytes(16), bytes([1]) + KEY[1:]):
        try:
            assert aes_cbc.cbc_decrypt(key, IV, ct) != pt
        except CryptoFailure as failure:
            assert failure.kind is ErrorKind.BAD_PADDING
    # CBC has no MAC: flipping a bit in block 1 garbles block 1 and flips block 2 -- undetected.
    flipped = bytes([ct[0] ^ 0x80]) + ct[1:]
    out = aes_cbc.cbc_decrypt(KEY, IV, flipped)
    assert out[16:] == bytes([pt[16] ^ 0x80]) + pt[17:] and out[:16] != pt[:16]


# ---- the {"data","iv"} envelope ---------------------------------------------------------------


def test_sealEnvelope_withFixedIv_isCompactJsonDataThenIv() -> None:
    env = aes_cbc.seal_envelope(KEY, b'{"user":"x"}', IV)
    ct = aes_cbc.cbc_encrypt(KEY, IV, b'{"user":"x"}')
    expected = '{"data":"' + base64.b64encode(ct).decode() + '","iv":"' + base64.b64encode(IV).decode() + '"}'
    assert env == expected.encode()


def test_sealEnvelope_usesAFreshIvEachTime() -> None:
    ivs = {json.loads(aes_cbc.seal_envelope(KEY, b"same"))["iv"] for _ in range(20)}
    assert len(ivs) == 20
    assert all(len(base64.b64decode(iv)) == 16 for iv in ivs)


def test_openEnvelope_roundTripsAndIgnoresExtraFields() -> None:
    env = json.loads(aes_cbc.seal_envelope(KEY, b"hello"))
    env["extra"] = [1, 2, {"x": None}]
    assert aes_cbc.open_envelope(KEY, json.dumps(env, indent=2).encode()) == b"hello"


def test_openEnvelope_acceptsSwiftEscapedSlashes() -> None:
    # Swift's JSONEncoder writes "/" as "\/" by default; base64 is full of slashes.
    iv = b"\xff" * 16  # base64 "/////////////////////w=="
    env = aes_cbc.seal_envelope(KEY, b"slashes", iv)
    assert b"/" in env
    assert aes_cbc.open_envelope(KEY, env.replace(b"/", b"\\/")) == b"slashes"


@pytest.mark.parametrize(
    "envelope",
    [
        b"",
        b"\xff\xfe",
        b"not json",
        b"[]",
        b'"a string"',
        b"null",
        b"{}",
        b'{"data":"AAAAAAAAAAAAAAAAAAAAAA=="}',
        b'{"iv":"AAAAAAAAAAAAAAAAAAAAAA=="}',
        b'{"data":123,"iv":"AAAAAAAAAAAAAAAAAAAAAA=="}',
        b'{"data":"AAAAAAAAAAAAAAAAAAAAAA==","iv":null}',
        b'{"data":"AAAA AAAAAAAAAAAAAAAAAA==","iv":"AAAAAAAAAAAAAAAAAAAAAA=="}',
        b'{"data":"AAAAAAAAAAAAAAAAAAAAAA","iv":"AAAAAAAAAAAAAAAAAAAAAA=="}',
        b'{"data":"AAAAAAAAAAAAAAAAAAAAAA==","iv":"AAAAAAAAAAAAAAAAAAAAA-_="}',
        b'{"data":"AAAAAAAAAAAAAAAAAAAAAA==","iv":"\xc3\xa9AAAAAAAAAAAAAAAAAAAAA="}',
        b"[" * 100000,
    ],
)
def test_openEnvelope_malformed_isBadEnvelope(envelope: bytes) -> None:
    _expect(ErrorKind.BAD_ENVELOPE, aes_cbc.open_envelope, KEY, envelope)


def test_openEnvelope_cbcErrorsPassThrough() -> None:
    def env(data: bytes, iv: bytes) -> bytes:
        return json.dumps({"data": base64.b64encode(data).decode(), "iv": base64.b64encode(iv).decode()}).encode()

    _expect(ErrorKind.BAD_LENGTH, aes_cbc.open_envelope, KEY, env(bytes(16), bytes(15)))
    _expect(ErrorKind.BAD_LENGTH, aes_cbc.open_envelope, KEY, env(b"", IV))
    _expect(ErrorKind.BAD_LENGTH, aes_cbc.open_envelope, KEY, env(bytes(20), IV))
    good = json.loads(aes_cbc.seal_envelope(KEY, b"A" * 16, IV))
    ct = base64.b64decode(good["data"])
    _expect(ErrorKind.BAD_PADDING, aes_cbc.open_envelope, KEY, env(ct[:15] + bytes([ct[15] ^ 1]) + ct[16:], IV))
    _expect(ErrorKind.BAD_KEY, aes_cbc.open_envelope, bytes(5), env(ct, IV))


# ---- key derivation --------------------------------------------------------------------------


def test_deriveKey_utf8Zeropad16_padsShortStrings() -> None:
    assert aes_cbc.derive_key("utf8-zeropad16", "abc") == b"abc" + bytes(13)
    assert aes_cbc.derive_key("utf8-zeropad16", "x" * 15) == b"x" * 15 + b"\x00"
    assert aes_cbc.derive_key("utf8-zeropad16", "\u00e9" * 7) == "\u00e9".encode() * 7 + bytes(2)


@pytest.mark.parametrize("text", ["", "x" * 16, "x" * 17, "\u00e9" * 8, "0123456789abcdef0123456789abcdef", "\ud800"])
def test_deriveKey_utf8Zeropad16_refusesEmptyOrSixteenBytesOrMore(text: str) -> None:
    failure = _expect(ErrorKind.KEY_DERIVATION, aes_cbc.derive_key, "utf8-zeropad16", text)
    if text and text != "\ud800":
        assert "getCString" in failure.detail


@pytest.mark.parametrize("size", [16, 24, 32])
def test_deriveKey_base64Raw_decodesAesKeys(size: int) -> None:
    raw = bytes(range(size))
    assert aes_cbc.derive_key("base64-raw", base64.b64encode(raw).decode()) == raw


@pytest.mark.parametrize(
    "text",
    [base64.b64encode(bytes(20)).decode(), "", "AAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAA==\n",
     "AAAAAAAAAAAAAAAAAAAA-_==", "not base64!"],
)
def test_deriveKey_base64Raw_refusesBadText(text: str) -> None:
    _expect(ErrorKind.KEY_DERIVATION, aes_cbc.derive_key, "base64-raw", text)


def test_deriveKey_unknownMode_isUnsupported() -> None:
    _expect(ErrorKind.UNSUPPORTED, aes_cbc.derive_key, "pbkdf2", "abc")
