from __future__ import annotations

import os

import pytest

from pythonref import salsa20

# eSTREAM (ECRYPT) Salsa20 verified test vectors, ecrypt/trunk/submissions/salsa20/full/verified.test-vectors
# (https://www.ecrypt.eu.org/stream/svn/viewcvs.cgi/ecrypt/trunk/submissions/salsa20/full/), 128-bit and
# 256-bit key files: the key stream is the encryption of zero bytes. Set 1 has a zero nonce; Set 6 has a
# nonzero one and samples blocks 1023 and 1024.
# name: (key, nonce, offset of the 64 bytes, stream[offset..offset+63])
ESTREAM = {
    "128-bit Set 1, vector# 0, stream[0..63]": (
        "80000000000000000000000000000000", "0000000000000000", 0,
        "4DFA5E481DA23EA09A31022050859936DA52FCEE218005164F267CB65F5CFD7F"
        "2B4F97E0FF16924A52DF269515110A07F9E460BC65EF95DA58F740B7D1DBB0AA",
    ),
    "128-bit Set 1, vector# 0, stream[448..511]": (
        "80000000000000000000000000000000", "0000000000000000", 448,
        "B375703739DACED4DD4059FD71C3C47FC2F9939670FAD4A46066ADCC6A564578"
        "3308B90FFB72BE04A6B147CBE38CC0C3B9267C296A92A7C69873F9F263BE9703",
    ),
    "128-bit Set 6, vector# 0, stream[0..63]": (
        "0053A6F94C9FF24598EB3E91E4378ADD", "0D74DB42A91077DE", 0,
        "05E1E7BEB697D999656BF37C1B978806735D0B903A6007BD329927EFBE1B0E2A"
        "8137C1AE291493AA83A821755BEE0B06CD14855A67E46703EBF8F3114B584CBA",
    ),
    "128-bit Set 6, vector# 0, stream[65472..65535]": (
        "0053A6F94C9FF24598EB3E91E4378ADD", "0D74DB42A91077DE", 65472,
        "1A70A37B1C9CA11CD3BF988D3EE4612D15F1A08D683FCCC6558ECF2089388B8E"
        "555E7619BF82EE71348F4F8D0D2AE464339D66BFC3A003BF229C0FC0AB6AE1C6",
    ),
    "256-bit Set 1, vector# 0, stream[0..63]": (
        "8000000000000000000000000000000000000000000000000000000000000000", "0000000000000000", 0,
        "E3BE8FDD8BECA2E3EA8EF9475B29A6E7003951E1097A5C38D23B7A5FAD9F6844"
        "B22C97559E2723C7CBBD3FE4FC8D9A0744652A83E72A9C461876AF4D7EF1A117",
    ),
    "256-bit Set 1, vector# 0, stream[192..255]": (
        "8000000000000000000000000000000000000000000000000000000000000000", "0000000000000000", 192,
        "57BE81F47B17D9AE7C4FF15429A73E10ACF250ED3A90A93C711308A74C6216A9"
        "ED84CD126DA7F28E8ABF8BB63517E1CA98E712F4FB2E1A6AED9FDC73291FAA17",
    ),
    "256-bit Set 1, vector# 0, stream[448..511]": (
        "8000000000000000000000000000000000000000000000000000000000000000", "0000000000000000", 448,
        "696AFCFD0CDDCC83C7E77F11A649D79ACDC3354E9635FF137E929933A0BD6F53"
        "77EFA105A3A4266B7C0D089D08F1E855CC32B15B93784A36E56A76CC64BC8477",
    ),
    "256-bit Set 6, vector# 0, stream[0..63]": (
        "0053A6F94C9FF24598EB3E91E4378ADD3083D6297CCF2275C81B6EC11467BA0D", "0D74DB42A91077DE", 0,
        "F5FAD53F79F9DF58C4AEA0D0ED9A9601F278112CA7180D565B420A48019670EA"
        "F24CE493A86263F677B46ACE1924773D2BB25571E1AA8593758FC382B1280B71",
    ),
    "256-bit Set 6, vector# 0, stream[65536..65599]": (
        "0053A6F94C9FF24598EB3E91E4378ADD3083D6297CCF2275C81B6EC11467BA0D", "0D74DB42A91077DE", 65536,
        "81582C65D7562B80AEC2F1A673A9D01C9F892A23D4919F6AB47B9154E08E699B"
        "4117D7C666477B60F8391481682F5D95D96623DBC489D88DAA6956B9F0646B6E",
    ),
}

# "Salsa20 specification" (https://cr.yp.to/snuffle/spec.pdf) §8, the second example of the hash function.
SPEC_HASH_IN = bytes([
    211, 159, 13, 115, 76, 55, 82, 183, 3, 117, 222, 37, 191, 187, 234, 136,
    49, 237, 179, 48, 1, 106, 178, 219, 175, 199, 166, 48, 86, 16, 179, 207,
    31, 240, 32, 63, 15, 83, 93, 161, 116, 147, 48, 113, 238, 55, 204, 36,
    79, 201, 235, 79, 3, 81, 156, 47, 203, 26, 244, 243, 88, 118, 104, 54,
])
SPEC_HASH_OUT = bytes([
    109, 42, 178, 168, 156, 240, 248, 238, 168, 196, 190, 203, 26, 110, 170, 154,
    29, 29, 150, 26, 150, 30, 235, 249, 190, 163, 251, 48, 69, 144, 51, 57,
    118, 40, 152, 157, 180, 57, 27, 94, 107, 42, 236, 35, 27, 111, 114, 114,
    219, 236, 232, 135, 111, 155, 110, 18, 24, 232, 95, 158, 179, 19, 48, 202,
])
# Spec §9, both examples of the expansion function: k0 = 1..16, k1 = 201..216, n = 101..116.
SPEC_K0, SPEC_K1, SPEC_N = bytes(range(1, 17)), bytes(range(201, 217)), bytes(range(101, 117))
SPEC_EXPANSION_32 = bytes([
    69, 37, 68, 39, 41, 15, 107, 193, 255, 139, 122, 6, 170, 233, 217, 98,
    89, 144, 182, 106, 21, 51, 200, 65, 239, 49, 222, 34, 215, 114, 40, 126,
    104, 197, 7, 225, 197, 153, 31, 2, 102, 78, 76, 176, 84, 245, 246, 184,
    177, 160, 133, 130, 6, 72, 149, 119, 192, 195, 132, 236, 234, 103, 246, 74,
])
SPEC_EXPANSION_16 = bytes([
    39, 173, 46, 248, 30, 200, 82, 17, 48, 67, 254, 239, 37, 18, 13, 247,
    241, 200, 61, 144, 10, 55, 50, 185, 6, 47, 246, 253, 143, 86, 187, 225,
    134, 85, 110, 246, 161, 163, 43, 235, 231, 94, 171, 51, 145, 214, 112, 29,
    14, 232, 5, 16, 151, 140, 183, 141, 171, 9, 122, 181, 104, 182, 177, 193,
])


@pytest.mark.parametrize("name", sorted(ESTREAM))
def test_keyStream_matchesEstreamVerifiedVector(name: str) -> None:
    key_hex, nonce_hex, offset, stream_hex = ESTREAM[name]
    stream = salsa20.salsa20(bytes.fromhex(key_hex), bytes.fromhex(nonce_hex), bytes(offset + 64))
    assert stream[offset:] == bytes.fromhex(stream_hex)


def test_encrypt_isPlaintextXorTheKeyStream() -> None:
    key_hex, nonce_hex, _, stream_hex = ESTREAM["256-bit Set 6, vector# 0, stream[0..63]"]
    plaintext = b"\x5a" * 64
    expected = bytes(p ^ s for p, s in zip(plaintext, bytes.fromhex(stream_hex)))
    assert salsa20.salsa20(bytes.fromhex(key_hex), bytes.fromhex(nonce_hex), plaintext) == expected


def test_hash_matchesSpecSection8() -> None:
    assert salsa20._hash(SPEC_HASH_IN) == SPEC_HASH_OUT


def test_expansion_matchesSpecSection9() -> None:
    assert salsa20._expansion(SPEC_K0 + SPEC_K1, SPEC_N) == SPEC_EXPANSION_32
    assert salsa20._expansion(SPEC_K0, SPEC_N) == SPEC_EXPANSION_16


@pytest.mark.parametrize("key_len", [16, 32])
@pytest.mark.parametrize("size", [0, 1, 63, 64, 65, 1000])
def test_roundTrip_acrossBlockBoundaries(key_len: int, size: int) -> None:
    key, nonce, plaintext = os.urandom(key_len), os.urandom(8), os.urandom(size)
    ciphertext = salsa20.salsa20(key, nonce, plaintext)
    assert len(ciphertext) == size
    # Every length takes the same key stream from its start: no block is skipped or reused.
    stream = salsa20.salsa20(key, nonce, bytes(1000))
    assert ciphertext == bytes(p ^ s for p, s in zip(plaintext, stream))
    assert salsa20.salsa20(key, nonce, ciphertext) == plaintext


@pytest.mark.parametrize("key_len", [0, 15, 17, 24, 31, 33, 64])
def test_wrongKeySize_isValueError(key_len: int) -> None:
    with pytest.raises(ValueError, match=f"Salsa20 key is {key_len} bytes; must be 16 or 32"):
        salsa20.salsa20(bytes(key_len), bytes(8), b"x")


@pytest.mark.parametrize("nonce_len", [0, 7, 9, 12, 16, 24])
def test_wrongNonceSize_isValueError(nonce_len: int) -> None:
    with pytest.raises(ValueError, match=f"Salsa20 nonce is {nonce_len} bytes; must be 8"):
        salsa20.salsa20(bytes(32), bytes(nonce_len), b"x")


def test_keyAndNonceBothWrong_reportsTheKey() -> None:
    # The key first, as PyCryptodome and WireCrypto do; and even for empty data.
    with pytest.raises(ValueError, match="key is 20 bytes"):
        salsa20.salsa20(bytes(20), bytes(12), b"")
