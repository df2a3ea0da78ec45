from __future__ import annotations

import base64

import pytest

from pythonref import aead
from pythonref.errors import CryptoFailure, ErrorKind

KEY32 = bytes(range(32))
NONCE = bytes(range(12))

# McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", Appendix B, Test Cases 2 and 4.
GCM_TC2 = dict(key="00" * 16, iv="00" * 12, pt="00" * 16, aad="",
               ct="0388dace60b6a392f328c2b971b2fe78", tag="ab6e47d42cec13bdf53a67b21257bddf")
GCM_TC4 = dict(
    key="feffe9928665731c6d6a8f9467308308",
    iv="cafebabefacedbaddecaf888",
    pt="d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
       "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
    aad="feedfacedeadbeeffeedfacedeadbeefabaddad2",
    ct="42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
       "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
    tag="5bc94fbc3221a5db94fae95ae7121a47",
)
# RFC 8439 section 2.8.2, the AEAD_CHACHA20_POLY1305 example.
CHACHA_RFC8439 = dict(
    key="808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
    iv="070000004041424344454647",
    pt=b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future,"
       b" sunscreen would be it.".hex(),
    aad="50515253c0c1c2c3c4c5c6c7",
    ct="d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
       "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
       "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
       "3ff4def08e4b7a9de576d26586cec64b6116",
    tag="1ae10b594f09e26a7e902ecbd0600691",
)
KATS = [("aes-gcm", GCM_TC2), ("aes-gcm", GCM_TC4), ("chachapoly", CHACHA_RFC8439)]


def _expect(kind: ErrorKind, fn, *args) -> CryptoFailure:  # type: ignore[no-untyped-def]
    with pytest.raises(CryptoFailure) as info:
        fn(*args)
    assert info.value.kind is kind, info.value.detail
    return info.value


@pytest.mark.parametrize("alg,v", KATS, ids=["gcm-tc2", "gcm-tc4", "chacha-rfc8439"])
def test_seal_matchesPublishedVector_inCombinedLayout(alg: str, v: dict[str, str]) -> None:
    key, iv, pt, aad = (bytes.fromhex(v[n]) for n in ("key", "iv", "pt", "aad"))
    combined = aead.seal(alg, key, pt, iv, aad)
    assert combined == iv + bytes.fromhex(v["ct"]) + bytes.fromhex(v["tag"])
    assert aead.open_combined(alg, key, combined, aad) == pt


@pytest.mark.parametrize("alg", aead.ALGS)
@pytest.mark.parametrize("size", [0, 1, 16, 1000])
def test_seal_roundTripsWithRandomNonce(alg: str, size: int) -> None:
    pt = bytes(i % 7 for i in range(size))
    a, b = aead.seal(alg, KEY32, pt), aead.seal(alg, KEY32, pt)
    assert len(a) == 12 + size + 16
    assert a[:12] != b[:12]  # fresh nonces
    assert aead.open_combined(alg, KEY32, a) == pt == aead.open_combined(alg, KEY32, b)


@pytest.mark.parametrize("size", [16, 24, 32])
def test_aesGcm_acceptsAllAesKeySizes(size: int) -> None:
    key = bytes(range(size))
    assert aead.open_combined("aes-gcm", key, aead.seal("aes-gcm", key, b"hi")) == b"hi"


@pytest.mark.parametrize("alg,size", [("aes-gcm", 0), ("aes-gcm", 15), ("aes-gcm", 33),
                                      ("chachapoly", 16), ("chachapoly", 24), ("chachapoly", 31)])
def test_wrongKeySize_isBadKey(alg: str, size: int) -> None:
    _expect(ErrorKind.BAD_KEY, aead.seal, alg, bytes(size), b"x")
    _expect(ErrorKind.BAD_KEY, aead.open_combined, alg, bytes(size), bytes(40))


@pytest.mark.parametrize("nonce_len", [0, 8, 11, 13, 16])
def test_seal_nonceNotTwelveBytes_isBadLength(nonce_len: int) -> None:
    _expect(ErrorKind.BAD_LENGTH, aead.seal, "aes-gcm", KEY32, b"x", bytes(nonce_len))


def test_unknownAlg_isUnsupported() -> None:
    _expect(ErrorKind.UNSUPPORTED, aead.seal, "aes-ccm", KEY32, b"x")
    _expect(ErrorKind.UNSUPPORTED, aead.open_combined, "AES-GCM", KEY32, bytes(40))


@pytest.mark.parametrize("alg", aead.ALGS)
def test_open_rejectsEveryTamperWithoutPlaintext(alg: str) -> None:
    pt = b"the file contents"
    combined = aead.seal(alg, KEY32, pt, NONCE, b"header")
    # A flipped bit anywhere: nonce, ciphertext, tag.
    for i in range(len(combined)):
        bad = combined[:i] + bytes([combined[i] ^ (1 << (i % 8))]) + combined[i + 1 :]
        failure = _expect(ErrorKind.AUTH_FAILED, aead.open_combined, alg, KEY32, bad, b"header")
        assert pt not in failure.detail.encode()
    _expect(ErrorKind.AUTH_FAILED, aead.open_combined, alg, bytes(32), combined, b"header")  # wrong key
    _expect(ErrorKind.AUTH_FAILED, aead.open_combined, alg, KEY32, combined, b"Header")  # wrong aad
    _expect(ErrorKind.AUTH_FAILED, aead.open_combined, alg, KEY32, combined)  # missing aad
    _expect(ErrorKind.AUTH_FAILED, aead.open_combined, alg, KEY32, combined[:-1], b"header")  # truncated
    _expect(ErrorKind.AUTH_FAILED, aead.open_combined, alg, KEY32, combined + b"\x00", b"header")  # extended


@pytest.mark.parametrize("alg", aead.ALGS)
def test_open_shorterThan28Bytes_isBadLength(alg: str) -> None:
    empty = aead.seal(alg, KEY32, b"")
    assert len(empty) == 28 and aead.open_combined(alg, KEY32, empty) == b""
    for n in (0, 12, 27):
        _expect(ErrorKind.BAD_LENGTH, aead.open_combined, alg, KEY32, empty[:n])


def test_emptyAad_isTheSameAsNoAad() -> None:
    combined = aead.seal("chachapoly", KEY32, b"x", NONCE, b"")
    assert combined == aead.seal("chachapoly", KEY32, b"x", NONCE, None)


# ---- SymmetricKey text -----------------------------------------------------------------------


@pytest.mark.parametrize("bits", [128, 192, 256])
def test_symkey_generateSerializeParse_roundTrip(bits: int) -> None:
    key = aead.generate_symkey(bits)
    assert len(key) == bits // 8 and key != aead.generate_symkey(bits)
    text = aead.serialize_symkey(key)
    assert text == base64.b64encode(key).decode() and "\n" not in text
    assert aead.parse_symkey(text) == key


def test_symkey_serialize_isStandardBase64WithPadding() -> None:
    assert aead.serialize_symkey(b"\xfb\xff" + bytes(14)) == "+/8AAAAAAAAAAAAAAAAAAA=="


@pytest.mark.parametrize("bits", [0, 64, 127, 255, 512])
def test_symkey_generate_rejectsOtherSizes(bits: int) -> None:
    _expect(ErrorKind.BAD_INPUT, aead.generate_symkey, bits)


@pytest.mark.parametrize(
    "text",
    ["", "AAAA", base64.b64encode(bytes(20)).decode(), "-_8AAAAAAAAAAAAAAAAAAA==", "+/8AAAAAAAAAAAAAAAAAAA",
     " +/8AAAAAAAAAAAAAAAAAAA==", "+/8AAAAAAAAAAAAAAAAAAA==\n", "\u00e9" * 24],
)
def test_symkey_parse_rejectsNonStrictOrWrongSize(text: str) -> None:
    _expect(ErrorKind.BAD_KEY, aead.parse_symkey, text)


# ---- separate parts (SealedBox(nonce:ciphertext:tag:)): nonces of 12 bytes or more ---------------

# McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", Appendix B, Test Case 6: a 60-byte IV.
GCM_TC6_IV = ("9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728"
              "c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b")
GCM_TC6_CT = ("8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca7"
              "01e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5")
GCM_TC6_TAG = "619cc5aefffe0bfa462af43c1699d050"


def test_sealParts_longNonce_matchesPublishedVector() -> None:
    v = GCM_TC4
    key, iv, pt, aad = (bytes.fromhex(x) for x in (v["key"], GCM_TC6_IV, v["pt"], v["aad"]))
    ciphertext, tag = aead.seal_parts("aes-gcm", key, iv, pt, aad)
    assert (ciphertext.hex(), tag.hex()) == (GCM_TC6_CT, GCM_TC6_TAG)
    assert aead.open_parts("aes-gcm", key, iv, ciphertext, tag, aad) == pt
    _expect(ErrorKind.AUTH_FAILED, aead.open_parts, "aes-gcm", key, iv, ciphertext, bytes(16), aad)


@pytest.mark.parametrize("alg,v", KATS, ids=["gcm-tc2", "gcm-tc4", "chacha-rfc8439"])
def test_parts_with12ByteNonce_areTheCombinedBoxCutApart(alg: str, v: dict[str, str]) -> None:
    key, iv, pt, aad = (bytes.fromhex(v[k]) for k in ("key", "iv", "pt", "aad"))
    ciphertext, tag = aead.seal_parts(alg, key, iv, pt, aad)
    assert iv + ciphertext + tag == aead.seal(alg, key, pt, iv, aad)
    assert (ciphertext.hex(), tag.hex()) == (v["ct"], v["tag"])


def test_parts_nonceLengths_asCryptoKitAndPycaAllow() -> None:
    for length in (12, 13, 16, 64, 128):
        ciphertext, tag = aead.seal_parts("aes-gcm", KEY32, bytes(length), b"pt")
        assert aead.open_parts("aes-gcm", KEY32, bytes(length), ciphertext, tag) == b"pt"
    for length in (0, 1, 8, 11):  # CryptoKit's AES.GCM.Nonce(data:) refuses them (pyca would take 8 to 11)
        _expect(ErrorKind.BAD_LENGTH, aead.seal_parts, "aes-gcm", KEY32, bytes(length), b"pt")
    for length in (129, 257):  # CryptoKit takes them; pyca cannot
        _expect(ErrorKind.UNSUPPORTED, aead.seal_parts, "aes-gcm", KEY32, bytes(length), b"pt")
        _expect(ErrorKind.UNSUPPORTED, aead.open_parts, "aes-gcm", KEY32, bytes(length), b"", bytes(16))
    for length in (11, 13, 24):
        _expect(ErrorKind.BAD_LENGTH, aead.seal_parts, "chachapoly", KEY32, bytes(length), b"pt")
    for tag_length in (0, 12, 15, 17):
        _expect(ErrorKind.BAD_LENGTH, aead.open_parts, "aes-gcm", KEY32, bytes(16), b"", bytes(tag_length))
