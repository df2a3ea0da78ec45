from __future__ import annotations

import base64
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from pythonref import rsa_keys
from pythonref.errors import CryptoFailure, ErrorKind

# ---- an independent DER encoder, so exports are checked against bytes built by hand ----------


def _der_len(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(raw)]) + raw


def _tlv(tag: int, body: bytes) -> bytes:
    return bytes([tag]) + _der_len(len(body)) + body


def _der_int(v: int) -> bytes:
    # bit_length//8 + 1 bytes adds the 00 sign byte exactly when the top bit is set.
    return _tlv(0x02, v.to_bytes(v.bit_length() // 8 + 1, "big"))


def _pkcs1_der(n: int, e: int) -> bytes:
    return _tlv(0x30, _der_int(n) + _der_int(e))


def _spki_der(n: int, e: int) -> bytes:
    rsa_encryption = bytes.fromhex("06092a864886f70d010101") + bytes.fromhex("0500")
    return _tlv(0x30, _tlv(0x30, rsa_encryption) + _tlv(0x03, b"\x00" + _pkcs1_der(n, e)))


def _pem(label: str, der: bytes, eol: bytes = b"\n", final: bool = True) -> bytes:
    b64 = base64.b64encode(der)
    lines = [b"-----BEGIN " + label.encode() + b"-----"]
    lines += [b64[i : i + 64] for i in range(0, len(b64), 64)]
    lines.append(b"-----END " + label.encode() + b"-----")
    return eol.join(lines) + (eol if final else b"")


def _expect(kind: ErrorKind, fn, *args) -> CryptoFailure:  # type: ignore[no-untyped-def]
    with pytest.raises(CryptoFailure) as info:
        fn(*args)
    assert info.value.kind is kind, info.value.detail
    return info.value


# ---- export ----------------------------------------------------------------------------------


def _assert_ios_pem(pem: bytes, label: str) -> bytes:
    head = f"-----BEGIN {label}-----\n".encode()
    tail = f"-----END {label}-----".encode()
    assert pem.startswith(head)
    assert pem.endswith(tail) and not pem.endswith(b"\n")
    body = pem[len(head) : -len(tail)]
    assert body.endswith(b"\n") and b"\r" not in body
    lines = body[:-1].split(b"\n")
    assert all(len(line) == 64 for line in lines[:-1])
    assert 0 < len(lines[-1]) <= 64
    return base64.b64decode(b"".join(lines), validate=True)


def test_exportPublic_spkiPem_isExactlyTheIosLayout(key1024: rsa.RSAPrivateKey) -> None:
    nums = key1024.public_key().public_numbers()
    pem = rsa_keys.export_public(key1024.public_key(), "spki-pem")
    der = _assert_ios_pem(pem, "PUBLIC KEY")
    assert der.startswith(bytes.fromhex("30819f300d06092a864886f70d010101050003818d00"))
    assert der == _spki_der(nums.n, nums.e)


def test_exportPublic_derAndPkcs1_matchHandBuiltDer(key2048: rsa.RSAPrivateKey) -> None:
    pub = key2048.public_key()
    nums = pub.public_numbers()
    assert rsa_keys.export_public(pub, "spki-der") == _spki_der(nums.n, nums.e)
    assert rsa_keys.export_public(pub, "pkcs1-der") == _pkcs1_der(nums.n, nums.e)
    der = _assert_ios_pem(rsa_keys.export_public(pub, "pkcs1-pem"), "RSA PUBLIC KEY")
    assert der == _pkcs1_der(nums.n, nums.e)
    # 2048-bit SPKI PEM: 392 base64 chars -> six full lines and one of 8.
    spki = rsa_keys.export_public(pub, "spki-pem")
    assert spki.count(b"\n") == 1 + 7


def test_exportPublic_rejectsUnknownFormat(key1024: rsa.RSAPrivateKey) -> None:
    _expect(ErrorKind.UNSUPPORTED, rsa_keys.export_public, key1024.public_key(), "jwk")


@pytest.mark.parametrize("fmt", ["pkcs8-pem", "pkcs8-der", "pkcs1-pem"])
def test_exportPrivate_roundTripsEveryPlainFormat(key1024: rsa.RSAPrivateKey, fmt: str) -> None:
    blob = rsa_keys.export_private(key1024, fmt)
    loaded = rsa_keys.load_private(blob)
    assert loaded.private_numbers() == key1024.private_numbers()
    marker = {"pkcs8-pem": b"-----BEGIN PRIVATE KEY-----\n", "pkcs1-pem": b"-----BEGIN RSA PRIVATE KEY-----\n"}
    if fmt in marker:
        assert blob.startswith(marker[fmt]) and blob.endswith(b"-----\n")
    else:
        assert blob[0] == 0x30


def test_exportPrivate_encrypted_needsPassphraseToLoad(key1024: rsa.RSAPrivateKey) -> None:
    blob = rsa_keys.export_private(key1024, "pkcs8-pem-encrypted", b"s3cret")
    assert blob.startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----\n")
    assert rsa_keys.load_private(blob, b"s3cret").private_numbers() == key1024.private_numbers()
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_private, blob, b"wrong")
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_private, blob, None)


def test_exportPrivate_rejectsBadFormatsAndPassphraseMisuse(key1024: rsa.RSAPrivateKey) -> None:
    _expect(ErrorKind.UNSUPPORTED, rsa_keys.export_private, key1024, "pkcs12")
    _expect(ErrorKind.BAD_INPUT, rsa_keys.export_private, key1024, "pkcs8-pem-encrypted", None)
    _expect(ErrorKind.BAD_INPUT, rsa_keys.export_private, key1024, "pkcs8-pem-encrypted", b"")
    _expect(ErrorKind.BAD_INPUT, rsa_keys.export_private, key1024, "pkcs8-pem", b"pw")


# ---- loading public keys ---------------------------------------------------------------------


def _public_variants(key: rsa.RSAPrivateKey) -> dict[str, bytes]:
    nums = key.public_key().public_numbers()
    spki, pkcs1 = _spki_der(nums.n, nums.e), _pkcs1_der(nums.n, nums.e)
    return {
        "spki-pem": _pem("PUBLIC KEY", spki),
        "spki-pem-no-final-newline": _pem("PUBLIC KEY", spki, final=False),
        "spki-pem-crlf": _pem("PUBLIC KEY", spki, eol=b"\r\n"),
        "spki-pem-crlf-no-final-newline": _pem("PUBLIC KEY", spki, eol=b"\r\n", final=False),
        "spki-der": spki,
        "pkcs1-pem": _pem("RSA PUBLIC KEY", pkcs1),
        "pkcs1-pem-crlf-no-final-newline": _pem("RSA PUBLIC KEY", pkcs1, eol=b"\r\n", final=False),
        "pkcs1-der": pkcs1,
    }


@pytest.mark.parametrize(
    "variant",
    ["spki-pem", "spki-pem-no-final-newline", "spki-pem-crlf", "spki-pem-crlf-no-final-newline", "spki-der",
     "pkcs1-pem", "pkcs1-pem-crlf-no-final-newline", "pkcs1-der"],
)
def test_loadPublic_acceptsEveryPublicFormat(key1024: rsa.RSAPrivateKey, variant: str) -> None:
    blob = _public_variants(key1024)[variant]
    info = rsa_keys.public_info(rsa_keys.load_public(blob))
    p, q = key1024.private_numbers().p, key1024.private_numbers().q
    assert info == {"n": format(p * q, "x"), "e": 65537, "e_hex": "10001", "bits": 1024}
    assert not info["n"].startswith("0")  # type: ignore[union-attr]


def test_loadPublic_acceptsPrivateKeysAndReportsPublicHalf(key1024: rsa.RSAPrivateKey) -> None:
    want = key1024.public_key().public_numbers()
    for fmt in ("pkcs8-pem", "pkcs8-der", "pkcs1-pem"):
        blob = rsa_keys.export_private(key1024, fmt)
        assert rsa_keys.load_public(blob).public_numbers() == want, fmt
    pkcs1_der = key1024.private_bytes(ser.Encoding.DER, ser.PrivateFormat.TraditionalOpenSSL, ser.NoEncryption())
    assert rsa_keys.load_public(pkcs1_der).public_numbers() == want
    enc = rsa_keys.export_private(key1024, "pkcs8-pem-encrypted", b"pw")
    assert rsa_keys.load_public(enc, b"pw").public_numbers() == want
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, enc, b"nope")


def test_loadPrivate_acceptsCrlfAndMissingFinalNewline(key1024: rsa.RSAPrivateKey) -> None:
    pem = rsa_keys.export_private(key1024, "pkcs1-pem")
    crlf = pem.rstrip(b"\n").replace(b"\n", b"\r\n")
    assert rsa_keys.load_private(crlf).private_numbers() == key1024.private_numbers()


def test_loadPrivate_rejectsPublicKeys(key1024: rsa.RSAPrivateKey) -> None:
    for blob in _public_variants(key1024).values():
        _expect(ErrorKind.BAD_KEY, rsa_keys.load_private, blob)


def test_loadPrivate_rejectsPassphraseForUnencryptedKey(key1024: rsa.RSAPrivateKey) -> None:
    pem = rsa_keys.export_private(key1024, "pkcs8-pem")
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_private, pem, b"unexpected")
    # An empty passphrase means none.
    assert rsa_keys.load_private(pem, b"").private_numbers() == key1024.private_numbers()


def test_load_rejectsNonRsaKeys() -> None:
    for priv in (ec.generate_private_key(ec.SECP256R1()), ed25519.Ed25519PrivateKey.generate()):
        pub_pem = priv.public_key().public_bytes(ser.Encoding.PEM, ser.PublicFormat.SubjectPublicKeyInfo)
        priv_pem = priv.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.PKCS8, ser.NoEncryption())
        priv_der = priv.private_bytes(ser.Encoding.DER, ser.PrivateFormat.PKCS8, ser.NoEncryption())
        assert "not an RSA" in _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, pub_pem).detail
        _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, priv_pem)
        _expect(ErrorKind.BAD_KEY, rsa_keys.load_private, priv_pem)
        _expect(ErrorKind.BAD_KEY, rsa_keys.load_private, priv_der)


@pytest.mark.parametrize(
    "blob",
    [
        b"",
        b"\x00" * 10,
        b"public_key=",
        b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
        b"-----BEGIN PUBLIC KEY-----\nnot base64 at all!\n-----END PUBLIC KEY-----",
        b"-----BEGIN PUBLIC KEY-----\n",
        b"-----BEGIN public key-----\nAAAA\n-----END public key-----",
    ],
)
def test_load_rejectsGarbage(blob: bytes) -> None:
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, blob)
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_private, blob)


def test_load_rejectsRandomBytesAndTruncatedKeys(key1024: rsa.RSAPrivateKey) -> None:
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, os.urandom(300))
    pem = rsa_keys.export_public(key1024.public_key(), "spki-pem")
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, pem[: len(pem) // 2])
    der = rsa_keys.export_public(key1024.public_key(), "spki-der")
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, der[:-1])


def test_load_isCachedForRepeatedBytes(key2048: rsa.RSAPrivateKey) -> None:
    pem = rsa_keys.export_private(key2048, "pkcs8-pem")
    assert rsa_keys.load_private(pem) is rsa_keys.load_private(bytes(bytearray(pem)))
    pub = rsa_keys.export_public(key2048.public_key(), "spki-pem")
    assert rsa_keys.load_public(pub) is rsa_keys.load_public(pub)


# ---- generation ------------------------------------------------------------------------------


def test_generate_makesKeyOfRequestedSize() -> None:
    key = rsa_keys.generate(1024)
    assert key.key_size == 1024 and key.public_key().public_numbers().e == 65537


@pytest.mark.parametrize("bits,e", [(512, 65537), (1023, 65537), (16385, 65537), (1024, 17), (1024, 1)])
def test_generate_rejectsOutOfRangeParameters(bits: int, e: int) -> None:
    _expect(ErrorKind.BAD_INPUT, rsa_keys.generate, bits, e)


# ---- keys made by the OpenSSL command line (profile openssl-cli) ------------------------------

needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl CLI not installed")


@needs_openssl
def test_load_acceptsKeysWrittenByOpensslCli(tmp_path: Path) -> None:
    def run(*argv: str) -> bytes:
        return subprocess.run(["openssl", *argv], check=True, capture_output=True).stdout

    key = tmp_path / "key.pem"
    run("genrsa", "-out", str(key), "1024")  # OpenSSL 3: PKCS#8 "BEGIN PRIVATE KEY"
    blobs = {
        "genrsa": key.read_bytes(),
        "traditional": run("rsa", "-in", str(key), "-traditional"),
        "pubout": run("rsa", "-in", str(key), "-pubout"),
        "RSAPublicKey_out": run("rsa", "-in", str(key), "-RSAPublicKey_out"),
        "pubout-der": run("rsa", "-in", str(key), "-pubout", "-outform", "DER"),
    }
    encrypted = run("pkcs8", "-topk8", "-in", str(key), "-v2", "aes-256-cbc", "-passout", "pass:pw")
    assert blobs["traditional"].startswith(b"-----BEGIN RSA PRIVATE KEY-----")
    assert blobs["RSAPublicKey_out"].startswith(b"-----BEGIN RSA PUBLIC KEY-----")
    want = rsa_keys.public_info(rsa_keys.load_private(blobs["genrsa"]).public_key())
    for name, blob in blobs.items():
        assert rsa_keys.public_info(rsa_keys.load_public(blob)) == want, name
    assert rsa_keys.public_info(rsa_keys.load_private(encrypted, b"pw").public_key()) == want
    modulus = run("rsa", "-in", str(key), "-noout", "-modulus").decode().strip()
    assert modulus == "Modulus=" + str(want["n"]).upper()


def test_loadPublic_rejectsABodyThatDoesNotMatchItsLabel(key1024: rsa.RSAPrivateKey) -> None:
    # pyca itself accepts SPKI under "RSA PUBLIC KEY"; the protocol does not (a client bug).
    spki = rsa_keys.export_public(key1024.public_key(), "spki-pem")
    pkcs1 = rsa_keys.export_public(key1024.public_key(), "pkcs1-pem")
    assert rsa_keys.load_public(spki).public_numbers() == key1024.public_key().public_numbers()
    assert rsa_keys.load_public(pkcs1).public_numbers() == key1024.public_key().public_numbers()
    for mislabelled in (
        spki.replace(b"PUBLIC KEY-----", b"RSA PUBLIC KEY-----"),
        pkcs1.replace(b"RSA PUBLIC KEY-----", b"PUBLIC KEY-----"),
    ):
        with pytest.raises(CryptoFailure) as failure:
            rsa_keys.load_public(mislabelled)
        assert failure.value.kind == ErrorKind.BAD_KEY
        assert "not what its label says" in failure.value.detail
