from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from pythonref import rsa_cipher, rsa_keys
from pythonref.errors import CryptoFailure, ErrorKind

PADDINGS = ["pkcs1", "oaep-sha1", "oaep-sha256"]
MESSAGE = b"Secret message from RPi server"


def _expect(kind: ErrorKind, fn, *args) -> CryptoFailure:  # type: ignore[no-untyped-def]
    with pytest.raises(CryptoFailure) as info:
        fn(*args)
    assert info.value.kind is kind, info.value.detail
    return info.value


# ---- textbook RSA and RFC 8017 decoding, written out here to check the padding independently ---


def _k(key: rsa.RSAPrivateKey) -> int:
    return (key.key_size + 7) // 8


def _raw_decrypt(key: rsa.RSAPrivateKey, ct: bytes) -> bytes:
    nums = key.private_numbers()
    return pow(int.from_bytes(ct, "big"), nums.d, nums.public_numbers.n).to_bytes(_k(key), "big")


def _raw_encrypt(key: rsa.RSAPrivateKey, em: bytes) -> bytes:
    pub = key.public_key().public_numbers()
    return pow(int.from_bytes(em, "big"), pub.e, pub.n).to_bytes(_k(key), "big")


def _mgf1(hash_name: str, seed: bytes, length: int) -> bytes:
    out = b""
    counter = 0
    while len(out) < length:
        out += hashlib.new(hash_name, seed + counter.to_bytes(4, "big")).digest()
        counter += 1
    return out[:length]


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


def _oaep_decode(em: bytes, label_hash: str, mgf_hash: str, label: bytes = b"") -> bytes | None:
    """RFC 8017 7.1.2 step 3; None where the encoding is inconsistent."""
    h_len = hashlib.new(label_hash).digest_size
    if em[0] != 0:
        return None
    masked_seed, masked_db = em[1 : 1 + h_len], em[1 + h_len :]
    seed = _xor(masked_seed, _mgf1(mgf_hash, masked_db, h_len))
    db = _xor(masked_db, _mgf1(mgf_hash, seed, len(masked_db)))
    if db[:h_len] != hashlib.new(label_hash, label).digest():
        return None
    rest = db[h_len:].lstrip(b"\x00")
    return rest[1:] if rest[:1] == b"\x01" else None


def _pkcs1_decode(em: bytes) -> bytes | None:
    if em[:2] != b"\x00\x02":
        return None
    sep = em.find(b"\x00", 2)
    return em[sep + 1 :] if sep >= 10 else None


# ---- limits ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bits,padding,limit",
    [(1024, "pkcs1", 117), (1024, "oaep-sha1", 86), (1024, "oaep-sha256", 62),
     (2048, "pkcs1", 245), (2048, "oaep-sha1", 214), (2048, "oaep-sha256", 190),
     (4096, "pkcs1", 501), (1025, "pkcs1", 118), (3072, "oaep-sha256", 318)],
)
def test_maxPlaintext_isModulusBytesMinusOverhead(bits: int, padding: str, limit: int) -> None:
    assert rsa_cipher.max_plaintext(bits, padding) == limit


def test_maxPlaintext_rejectsBadArguments() -> None:
    _expect(ErrorKind.UNSUPPORTED, rsa_cipher.max_plaintext, 1024, "oaep-md5")
    _expect(ErrorKind.BAD_INPUT, rsa_cipher.max_plaintext, 0, "pkcs1")


@pytest.mark.parametrize("padding", PADDINGS)
def test_encrypt_acceptsExactlyTheLimitAndRefusesOneMore(key1024: rsa.RSAPrivateKey, padding: str) -> None:
    limit = rsa_cipher.max_plaintext(1024, padding)
    pub = key1024.public_key()
    ct = rsa_cipher.encrypt(pub, padding, b"\xab" * limit)
    assert rsa_cipher.decrypt(key1024, padding, ct) == b"\xab" * limit
    failure = _expect(ErrorKind.TOO_LONG, rsa_cipher.encrypt, pub, padding, b"\xab" * (limit + 1))
    assert failure.detail == f"plaintext is {limit + 1} bytes; {padding} with a 1024-bit key allows at most {limit}"


def test_encrypt_tooLongDetail_matchesContractExample(key1024: rsa.RSAPrivateKey) -> None:
    failure = _expect(ErrorKind.TOO_LONG, rsa_cipher.encrypt, key1024.public_key(), "pkcs1", bytes(118))
    assert failure.detail == "plaintext is 118 bytes; pkcs1 with a 1024-bit key allows at most 117"


# A 512-bit public key (`openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:512`): made once,
# as newer pyca/cryptography (Debian 13's 43) no longer generates keys under 1024 bits.
SMALL_MODULUS = int("b7a52a70eb280c15b538be720b4dccb8b97483e5b038328741b5fdac51f15972"
                    "a452807ffe9728a1ee6d668cef61c73b032de624b2a6b0d78dab1a2f8f53ca0b", 16)


def test_encrypt_keyTooSmallForOaepSha256_isTooLong() -> None:
    small = rsa.RSAPublicNumbers(65537, SMALL_MODULUS).public_key()
    assert small.key_size == 512  # k=64 < 66
    failure = _expect(ErrorKind.TOO_LONG, rsa_cipher.encrypt, small, "oaep-sha256", b"")
    assert "too small" in failure.detail


# ---- round trips and independent checks of the padding ----------------------------------------


@pytest.mark.parametrize("padding", PADDINGS)
def test_encrypt_alwaysGivesExactlyKBytesAndRoundTrips(key1024: rsa.RSAPrivateKey, padding: str) -> None:
    for _ in range(30):  # some ciphertexts have leading zero bytes; they must still be k long
        ct = rsa_cipher.encrypt(key1024.public_key(), padding, MESSAGE)
        assert len(ct) == 128
        assert rsa_cipher.decrypt(key1024, padding, ct) == MESSAGE


def test_encrypt_pkcs1_producesType2Padding(key1024: rsa.RSAPrivateKey) -> None:
    em = _raw_decrypt(key1024, rsa_cipher.encrypt(key1024.public_key(), "pkcs1", MESSAGE))
    assert em[:2] == b"\x00\x02" and b"\x00" not in em[2:10]
    assert _pkcs1_decode(em) == MESSAGE


def test_encrypt_oaepSha256_usesSha256ForLabelAndMgf1(key2048: rsa.RSAPrivateKey) -> None:
    em = _raw_decrypt(key2048, rsa_cipher.encrypt(key2048.public_key(), "oaep-sha256", MESSAGE))
    assert _oaep_decode(em, "sha256", "sha256") == MESSAGE
    assert _oaep_decode(em, "sha256", "sha1") is None  # MGF1-SHA-1 would be a different scheme
    assert _oaep_decode(em, "sha1", "sha1") is None


def test_encrypt_oaepSha1_usesSha1Everywhere(key1024: rsa.RSAPrivateKey) -> None:
    em = _raw_decrypt(key1024, rsa_cipher.encrypt(key1024.public_key(), "oaep-sha1", MESSAGE))
    assert _oaep_decode(em, "sha1", "sha1") == MESSAGE


def test_encrypt_oaepLabel_isHashedIntoTheEncoding(key1024: rsa.RSAPrivateKey) -> None:
    ct = rsa_cipher.encrypt(key1024.public_key(), "oaep-sha256", MESSAGE, b"my label")
    assert _oaep_decode(_raw_decrypt(key1024, ct), "sha256", "sha256", b"my label") == MESSAGE
    assert rsa_cipher.decrypt(key1024, "oaep-sha256", ct, b"my label") == MESSAGE
    _expect(ErrorKind.DECRYPT_FAILED, rsa_cipher.decrypt, key1024, "oaep-sha256", ct)
    # An empty label is the same as none.
    plain = rsa_cipher.encrypt(key1024.public_key(), "oaep-sha1", MESSAGE, b"")
    assert rsa_cipher.decrypt(key1024, "oaep-sha1", plain, None) == MESSAGE


def test_encrypt_labelWithPkcs1_isBadInput(key1024: rsa.RSAPrivateKey) -> None:
    _expect(ErrorKind.BAD_INPUT, rsa_cipher.encrypt, key1024.public_key(), "pkcs1", MESSAGE, b"x")


def test_decrypt_acceptsHandMadePkcs1Padding(key1024: rsa.RSAPrivateKey) -> None:
    em = b"\x00\x02" + b"\x5a" * (128 - 3 - len(MESSAGE)) + b"\x00" + MESSAGE
    assert rsa_cipher.decrypt(key1024, "pkcs1", _raw_encrypt(key1024, em)) == MESSAGE


# ---- failures: one kind, one text, whatever the cause (no oracle) -----------------------------


def _bad_pkcs1_ciphertexts(key: rsa.RSAPrivateKey) -> dict[str, bytes]:
    k = _k(key)
    n = key.public_key().public_numbers().n
    body = MESSAGE
    ps = b"\x5a" * (k - 3 - len(body))
    probes = {
        "wrong first byte": b"\x01\x02" + ps + b"\x00" + body,
        "block type 1": b"\x00\x01" + ps + b"\x00" + body,
        "block type 3": b"\x00\x03" + ps + b"\x00" + body,
        "no zero separator": b"\x00\x02" + b"\x5a" * (k - 2),
        "separator too early": b"\x00\x02" + b"\x5a" * 4 + b"\x00" + b"\x5a" * (k - 7),
    }
    cts = {name: _raw_encrypt(key, em) for name, em in probes.items()}
    cts["c equals n"] = n.to_bytes(k, "big")
    cts["c all ff"] = b"\xff" * k
    return cts


@pytest.mark.parametrize("padding", PADDINGS)
def test_decrypt_everyFailureCause_givesTheSameAnswer(
    key1024: rsa.RSAPrivateKey, other1024: rsa.RSAPrivateKey, padding: str
) -> None:
    cases = dict(_bad_pkcs1_ciphertexts(key1024))
    if padding != "pkcs1":
        # Random-looking EMs: for pkcs1 about 1 in 300 of them would pass as valid padding, so
        # the pkcs1 target gets only the hand-made probes above; for OAEP a false pass is ~2^-256.
        good = rsa_cipher.encrypt(key1024.public_key(), padding, MESSAGE)
        cases["flipped bit"] = good[:-1] + bytes([good[-1] ^ 1])
        for other in PADDINGS:
            if other != padding:
                cases[f"made with {other}"] = rsa_cipher.encrypt(key1024.public_key(), other, MESSAGE)
        cases["wrong key"] = rsa_cipher.encrypt(other1024.public_key(), padding, MESSAGE)
        cases["random"] = os.urandom(127).rjust(128, b"\x00")
    details = set()
    for name, ct in cases.items():
        failure = _expect(ErrorKind.DECRYPT_FAILED, rsa_cipher.decrypt, key1024, padding, ct)
        details.add(failure.detail)
        assert MESSAGE not in failure.detail.encode(), name
    assert details == {rsa_cipher.DECRYPT_FAILED_DETAIL}


@pytest.mark.parametrize("length", [0, 1, 127, 129, 256])
def test_decrypt_wrongCiphertextLength_isBadLength(key1024: rsa.RSAPrivateKey, length: int) -> None:
    failure = _expect(ErrorKind.BAD_LENGTH, rsa_cipher.decrypt, key1024, "pkcs1", bytes(length))
    assert "exactly 128" in failure.detail


def test_decrypt_unknownPadding_isUnsupported(key1024: rsa.RSAPrivateKey) -> None:
    _expect(ErrorKind.UNSUPPORTED, rsa_cipher.decrypt, key1024, "none", bytes(128))
    _expect(ErrorKind.UNSUPPORTED, rsa_cipher.encrypt, key1024.public_key(), "raw", MESSAGE)


# ---- interop with the OpenSSL command line (profile openssl-cli) ------------------------------

_PKEYOPTS = {
    "pkcs1": ["-pkeyopt", "rsa_padding_mode:pkcs1"],
    "oaep-sha1": ["-pkeyopt", "rsa_padding_mode:oaep"],
    "oaep-sha256": ["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha256",
                    "-pkeyopt", "rsa_mgf1_md:sha256"],
}


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl CLI not installed")
@pytest.mark.parametrize("padding", PADDINGS)
def test_rsa_interoperatesWithOpensslPkeyutl(key1024: rsa.RSAPrivateKey, padding: str, tmp_path: Path) -> None:
    key_file = tmp_path / "key.pem"
    key_file.write_bytes(rsa_keys.export_private(key1024, "pkcs1-pem"))
    ours = rsa_cipher.encrypt(key1024.public_key(), padding, MESSAGE)
    cli = ["openssl", "pkeyutl", "-inkey", str(key_file), *_PKEYOPTS[padding]]
    assert subprocess.run([*cli, "-decrypt"], input=ours, capture_output=True, check=True).stdout == MESSAGE
    theirs = subprocess.run([*cli, "-encrypt"], input=MESSAGE, capture_output=True, check=True).stdout
    assert rsa_cipher.decrypt(key1024, padding, theirs) == MESSAGE
