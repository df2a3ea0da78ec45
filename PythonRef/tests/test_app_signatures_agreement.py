"""signature.verify and agreement.derive against answers pyca did not make: signatures made by the
`openssl` command, RFC 7748's X25519 vector, HKDF and X9.63 written out from their RFCs with hmac/hashlib."""

from __future__ import annotations

import hashlib
import hmac
import subprocess
from pathlib import Path

import pytest

from op_calls import err, ok
from pythonref import key_agreement

MESSAGE = b"the door is locked"


def openssl(*args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(["openssl", *args], input=data, capture_output=True, check=True).stdout


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("sig")
    paths = {"rsa": folder / "rsa.pem", "p256": folder / "p256.pem"}
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", str(paths["rsa"]))
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(paths["p256"]))
    return paths


def sign(key: Path, *options: str, data: bytes = MESSAGE) -> bytes:
    return openssl("dgst", "-sha256", "-sign", str(key), *options, data=data)


@pytest.mark.parametrize("form", ["spki-pem", "spki-der", "pkcs1-der", "pkcs1-pem"])
def test_rsaPKCS1_opensslSignature_verifiesUnderEveryKeyForm(keys: dict[str, Path], form: str) -> None:
    public = {
        "spki-pem": openssl("pkey", "-in", str(keys["rsa"]), "-pubout"),
        "spki-der": openssl("pkey", "-in", str(keys["rsa"]), "-pubout", "-outform", "DER"),
        "pkcs1-der": openssl("rsa", "-in", str(keys["rsa"]), "-RSAPublicKey_out", "-outform", "DER"),
        "pkcs1-pem": openssl("rsa", "-in", str(keys["rsa"]), "-RSAPublicKey_out"),
    }[form]
    signature = sign(keys["rsa"])
    assert ok("signature.verify", {"alg": "rsa-pkcs1v15-sha256", "public_key": public, "message": MESSAGE, "signature": signature}) is True
    assert ok("signature.verify", {"alg": "rsa-pkcs1v15-sha256", "public_key": public, "message": MESSAGE + b"!", "signature": signature}) is False
    # The same signature is not PSS, nor PKCS#1 over another hash.
    assert ok("signature.verify", {"alg": "rsa-pss-sha256", "public_key": public, "message": MESSAGE, "signature": signature}) is False
    assert ok("signature.verify", {"alg": "rsa-pkcs1v15-sha1", "public_key": public, "message": MESSAGE, "signature": signature}) is False


def test_rsaPSS_saltAsLongAsTheDigest(keys: dict[str, Path]) -> None:
    public = openssl("pkey", "-in", str(keys["rsa"]), "-pubout")
    signature = sign(keys["rsa"], "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:32")
    assert ok("signature.verify", {"alg": "rsa-pss-sha256", "public_key": public, "message": MESSAGE, "signature": signature}) is True


def test_ecdsaP256_derAndRaw_underX963AndRawKeys(keys: dict[str, Path]) -> None:
    spki = openssl("pkey", "-in", str(keys["p256"]), "-pubout", "-outform", "DER")
    x963 = spki[-65:]
    assert x963[0] == 4
    der = sign(keys["p256"])
    for public in (x963, spki, openssl("pkey", "-in", str(keys["p256"]), "-pubout")):
        assert ok("signature.verify", {"alg": "ecdsa-p256-sha256", "public_key": public, "message": MESSAGE, "signature": der}) is True
    # The DER signature's r and s as raw r||s (CryptoKit's rawRepresentation), read by hand.
    assert der[0] == 0x30
    r_len = der[3]
    r = int.from_bytes(der[4:4 + r_len], "big")
    s = int.from_bytes(der[6 + r_len:], "big")
    raw = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    args = {"alg": "ecdsa-p256-sha256-raw", "public_key": x963[1:], "message": MESSAGE, "signature": raw}
    assert ok("signature.verify", args) is True
    assert ok("signature.verify", {**args, "message": b"another"}) is False
    inputs = ok("signature.openssl_inputs", {"alg": "ecdsa-p256-sha256-raw", "public_key": x963, "signature": raw})
    assert inputs["signature_der"] == der
    assert inputs["public_pem"].startswith(b"-----BEGIN PUBLIC KEY-----")


def test_badKeysAndNames_areErrors() -> None:
    assert err("signature.verify", {"alg": "rsa-pkcs1v15-md5", "public_key": b"x", "message": b"", "signature": b""}) == "Unsupported"
    assert err("signature.verify", {"alg": "ecdsa-p256-sha256", "public_key": b"\x04" + bytes(64), "message": b"", "signature": b""}) == "BadKey"
    assert err("signature.verify", {"alg": "ecdsa-p256-sha256", "public_key": bytes(10), "message": b"", "signature": b""}) == "BadKey"


# RFC 7748 section 6.1: Alice's private key, Bob's public key, their shared secret.
ALICE = bytes.fromhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
BOB_PUBLIC = bytes.fromhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
SHARED = bytes.fromhex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
ALICE_PKCS8 = bytes.fromhex("302e020100300506032b656e04220420") + ALICE


def hkdf_sha256(secret: bytes, salt: bytes, info: bytes, length: int) -> bytes:
    prk = hmac.new(salt or bytes(32), secret, hashlib.sha256).digest()
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out, counter = out + block, counter + 1
    return out[:length]


def x963_sha256(secret: bytes, shared_info: bytes, length: int) -> bytes:
    out, counter = b"", 1
    while len(out) < length:
        out += hashlib.sha256(secret + counter.to_bytes(4, "big") + shared_info).digest()
        counter += 1
    return out[:length]


def derive(kdf: str, salt: bytes = b"", info: bytes = b"", length: int = 32) -> bytes:
    return ok("agreement.derive", {"curve": "x25519", "private_key": ALICE_PKCS8, "peer_public_key": BOB_PUBLIC, "kdf": kdf,
                                   "salt": salt, "info": info, "length": length})


def test_x25519_rfc7748Secret_thenEachDerivationAsItsRFCWritesIt() -> None:
    assert derive("raw") == SHARED
    assert derive("hkdf-sha256", b"salt", b"crosscheck v1") == hkdf_sha256(SHARED, b"salt", b"crosscheck v1", 32)
    assert derive("hkdf-sha256") == hkdf_sha256(SHARED, b"", b"", 32)
    assert derive("x963-sha256", info=b"shared", length=16) == x963_sha256(SHARED, b"shared", 16)
    assert derive("x963-sha256", length=48) == x963_sha256(SHARED, b"", 48)


def test_p256_bothSidesDeriveTheSameKey_inEveryPublicKeyFormat() -> None:
    for fmt in key_agreement.FORMATS:
        pi, app = ok("agreement.generate", {"curve": "p256", "format": fmt}), ok("agreement.generate", {"curve": "p256", "format": fmt})
        one = ok("agreement.derive", {"curve": "p256", "private_key": pi["private"], "peer_public_key": app["public"], "kdf": "hkdf-sha256",
                                      "salt": b"s", "info": b"i", "length": 32})
        two = ok("agreement.derive", {"curve": "p256", "private_key": app["private"], "peer_public_key": pi["public"], "kdf": "hkdf-sha256",
                                      "salt": b"s", "info": b"i", "length": 32})
        assert one == two and len(one) == 32, fmt
    assert len(ok("agreement.generate", {"curve": "p256", "format": "x963"})["public"]) == 65
    assert len(ok("agreement.generate", {"curve": "p256", "format": "raw"})["public"]) == 64


def test_rawPublicKeysThatBeginWith0x30_areReadRawNotAsDER() -> None:
    """One raw key in 256 begins with DER's SEQUENCE byte: an X25519 key of 32 bytes, or CryptoKit's
    64-byte X || Y, is still read raw for its curve (a clean-clone `make test` met the X25519 case)."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, x25519
    while True:
        peer = x25519.X25519PrivateKey.generate()
        raw = peer.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        if raw[0] == 0x30:
            break
    expected = x25519.X25519PrivateKey.from_private_bytes(ALICE).exchange(peer.public_key())
    assert ok("agreement.derive", {"curve": "x25519", "private_key": ALICE_PKCS8, "peer_public_key": raw, "kdf": "raw", "length": 32}) == expected
    while True:
        signer = ec.generate_private_key(ec.SECP256R1())
        xy = signer.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)[1:]
        if xy[0] == 0x30:
            break
    message = b"signed by a key whose X begins 0x30"
    signature = signer.sign(message, ec.ECDSA(hashes.SHA256()))
    assert ok("signature.verify", {"alg": "ecdsa-p256-sha256", "public_key": xy, "message": message, "signature": signature}) is True
    # A 0x30 key of another length is still refused, as DER that does not read.
    assert err("agreement.derive", {"curve": "x25519", "private_key": ALICE_PKCS8, "peer_public_key": raw + b"\x00", "kdf": "raw", "length": 32}) == "BadKey"


def test_agreementErrors() -> None:
    assert err("agreement.generate", {"curve": "p255", "format": "raw"}) == "Unsupported"
    assert err("agreement.derive", {"curve": "x25519", "private_key": ALICE_PKCS8, "peer_public_key": bytes(31), "kdf": "raw", "length": 32}) == "BadKey"
    assert err("agreement.derive", {"curve": "x25519", "private_key": ALICE_PKCS8, "peer_public_key": BOB_PUBLIC, "kdf": "md5", "length": 32}) == "Unsupported"


# ---- hmac.compute: what the Pi computes over a request an app signed (RFC 2104) --------------------


def test_hmac_compute_matchesRFC4231TestCase2_andTheOtherHashes() -> None:
    # RFC 4231 §4.3: key "Jefe", data "what do ya want for nothing?".
    key, data = b"Jefe", b"what do ya want for nothing?"
    assert ok("hmac.compute", {"hash": "SHA256", "key": key, "message": data}).hex() == \
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    assert ok("hmac.compute", {"hash": "SHA512", "key": key, "message": data}).hex() == (
        "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737")
    assert ok("hmac.compute", {"hash": "SHA1", "key": key, "message": data}) == hmac.new(key, data, hashlib.sha1).digest()
    assert err("hmac.compute", {"hash": "MD5", "key": key, "message": data})
