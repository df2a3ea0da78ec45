from __future__ import annotations

import base64
import json
import os
from pathlib import Path
import platform
from typing import Any

import cryptography
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from op_calls import ALLOWED_KINDS, call, err, ok
from pythonref import handlers, rsa_keys

KEY16 = bytes(range(16))
IV = bytes(range(16, 32))
KEY32 = bytes(range(32))


@pytest.fixture(scope="module")
def pems(key1024: rsa.RSAPrivateKey) -> dict[str, bytes]:
    return {
        "priv": rsa_keys.export_private(key1024, "pkcs8-pem"),
        "pub": rsa_keys.export_public(key1024.public_key(), "spki-pem"),
        "enc": rsa_keys.export_private(key1024, "pkcs8-pem-encrypted", b"pw"),
    }


# ---- success paths -----------------------------------------------------------------------------


def test_version_reportsTheRunningStack() -> None:
    v = ok("version", {})
    assert v["python"] == platform.python_version()
    assert v["cryptography"] == cryptography.__version__
    assert v["openssl"].startswith("OpenSSL ")


def test_rsaFlow_generateInfoEncryptDecrypt() -> None:
    keys = ok("rsa.generate", {"bits": 1024})
    assert keys["private_pkcs8_pem"].startswith(b"-----BEGIN PRIVATE KEY-----\n")
    assert keys["public_spki_pem"].endswith(b"-----END PUBLIC KEY-----")
    info = ok("rsa.public_info", {"key": keys["public_spki_pem"]})
    assert info == ok("rsa.private_info", {"key": keys["private_pkcs8_pem"]})
    assert info["bits"] == 1024 and info["e"] == 65537 and int(info["n"], 16).bit_length() == 1024
    for padding in ("pkcs1", "oaep-sha1", "oaep-sha256"):
        ct = ok("rsa.encrypt", {"key": keys["public_spki_pem"], "padding": padding, "plaintext": b"hi"})
        assert len(ct) == 128
        assert ok("rsa.decrypt", {"key": keys["private_pkcs8_pem"], "padding": padding, "ciphertext": ct}) == b"hi"


def test_rsaGenerate_acceptsExponent3() -> None:
    keys = ok("rsa.generate", {"bits": 1024, "e": 3})
    assert ok("rsa.public_info", {"key": keys["public_spki_pem"]})["e"] == 3


def test_rsaExports_throughHandle(pems: dict[str, bytes]) -> None:
    spki = ok("rsa.export_public", {"key": pems["enc"], "passphrase": b"pw", "format": "spki-pem"})
    assert spki == pems["pub"]
    der = ok("rsa.export_public", {"key": pems["pub"], "format": "pkcs1-der"})
    assert ok("rsa.public_info", {"key": der}) == ok("rsa.public_info", {"key": pems["pub"]})
    enc = ok("rsa.export_private", {"key": pems["priv"], "format": "pkcs8-pem-encrypted", "export_passphrase": b"x"})
    assert ok("rsa.private_info", {"key": enc, "passphrase": b"x"}) == ok("rsa.public_info", {"key": pems["pub"]})
    assert ok("rsa.export_private", {"key": enc, "passphrase": b"x", "format": "pkcs8-pem"}) == pems["priv"]


def test_rsaEncrypt_withLabelAndEncryptedPrivateKey(pems: dict[str, bytes]) -> None:
    ct = ok("rsa.encrypt", {"key": pems["priv"], "padding": "oaep-sha256", "plaintext": b"m", "label": b"L"})
    args = {"key": pems["enc"], "passphrase": b"pw", "padding": "oaep-sha256", "ciphertext": ct, "label": b"L"}
    assert ok("rsa.decrypt", args) == b"m"


def test_symmetricOps_throughHandle() -> None:
    ct = ok("cbc.encrypt", {"key": KEY16, "iv": IV, "plaintext": b"p"})
    assert ok("cbc.decrypt", {"key": KEY16, "iv": IV, "ciphertext": ct}) == b"p"
    env = ok("envelope.seal", {"key": KEY16, "plaintext": b'{"a":1}', "iv": IV})
    inner = ok("cbc.encrypt", {"key": KEY16, "iv": IV, "plaintext": b'{"a":1}'})
    assert json.loads(env) == {"data": base64.b64encode(inner).decode(), "iv": base64.b64encode(IV).decode()}
    assert ok("envelope.open", {"key": KEY16, "envelope": env}) == b'{"a":1}'
    fresh = ok("envelope.seal", {"key": KEY16, "plaintext": b"r"})
    assert ok("envelope.open", {"key": KEY16, "envelope": fresh}) == b"r"
    assert ok("kdf.derive", {"mode": "utf8-zeropad16", "encryption_key": "k"}) == b"k" + bytes(15)
    assert ok("kdf.derive", {"mode": "base64-raw", "encryption_key": base64.b64encode(KEY32).decode()}) == KEY32
    for alg in ("aes-gcm", "chachapoly"):
        box = ok("aead.seal", {"alg": alg, "key": KEY32, "plaintext": b"f", "aad": b"a"})
        assert ok("aead.open", {"alg": alg, "key": KEY32, "combined": box, "aad": b"a"}) == b"f"
        fixed = ok("aead.seal", {"alg": alg, "key": KEY32, "plaintext": b"f", "nonce": bytes(12)})
        assert fixed[:12] == bytes(12)
    key = ok("symkey.generate", {"bits": 256})
    assert ok("symkey.parse", {"text": ok("symkey.serialize", {"key": key})}) == key
    assert ok("rsa.max_plaintext", {"bits": 2048, "padding": "oaep-sha256"}) == 190


def test_handle_acceptsBytearrayAndNoneForOptionals() -> None:
    ct = ok("cbc.encrypt", {"key": bytearray(KEY16), "iv": bytearray(IV), "plaintext": bytearray(b"p")})
    assert isinstance(ct, bytes)
    box = ok("aead.seal", {"alg": "aes-gcm", "key": KEY32, "plaintext": b"", "nonce": None, "aad": None})
    assert len(box) == 28


# ---- every error kind is reachable through handle ---------------------------------------------


def _error_cases(p: dict[str, bytes]) -> list[tuple[str, object, dict[str, Any], str]]:
    big = b"\x01" * 118
    return [
        ("BadInput", "rsa.generate", {"bits": 512}, "bits out of range"),
        ("BadInput", "rsa.generate", {"bits": "1024"}, "bits as str"),
        ("BadInput", "cbc.encrypt", {"key": KEY16, "iv": IV}, "missing plaintext"),
        ("BadInput", "cbc.encrypt", {"key": KEY16, "iv": IV, "plaintext": b"", "aad": b""}, "unknown arg"),
        ("BadInput", "symkey.generate", {"bits": True}, "bool is not an int"),
        ("BadInput", "rsa.encrypt", {"key": p["pub"], "padding": "pkcs1", "plaintext": b"", "label": b"x"}, "label"),
        ("BadInput", 42, {}, "op not a str"),
        ("UnknownOp", "rsa.sign", {}, "unknown op"),
        ("UnknownOp", "", {}, "empty op"),
        ("BadKey", "rsa.public_info", {"key": os.urandom(64)}, "random bytes"),
        ("BadKey", "rsa.private_info", {"key": p["pub"]}, "public key as private"),
        ("BadKey", "rsa.private_info", {"key": p["enc"], "passphrase": b"wrong"}, "wrong passphrase"),
        ("BadKey", "rsa.decrypt", {"key": p["enc"], "padding": "pkcs1", "ciphertext": bytes(128)}, "no passphrase"),
        ("BadKey", "cbc.encrypt", {"key": bytes(10), "iv": IV, "plaintext": b""}, "AES key size"),
        ("BadKey", "aead.seal", {"alg": "chachapoly", "key": KEY16, "plaintext": b""}, "chacha key size"),
        ("BadKey", "symkey.parse", {"text": "AAAA"}, "symkey size"),
        ("TooLong", "rsa.encrypt", {"key": p["pub"], "padding": "pkcs1", "plaintext": big}, "over limit"),
        ("DecryptFailed", "rsa.decrypt", {"key": p["priv"], "padding": "pkcs1", "ciphertext": bytes(128)}, "zero"),
        ("BadLength", "rsa.decrypt", {"key": p["priv"], "padding": "pkcs1", "ciphertext": bytes(127)}, "k-1"),
        ("BadLength", "rsa.decrypt", {"key": p["priv"], "padding": "pkcs1", "ciphertext": bytes(127),
                                      "rejection": "implicit"}, "k-1 under implicit rejection too"),
        ("Unsupported", "rsa.decrypt", {"key": p["priv"], "padding": "pkcs1", "ciphertext": bytes(128),
                                        "rejection": "lenient"}, "unknown rejection"),
        ("BadInput", "rsa.decrypt", {"key": p["priv"], "padding": "pkcs1", "ciphertext": bytes(128),
                                     "rejection": 1}, "rejection not a str"),
        ("BadLength", "cbc.decrypt", {"key": KEY16, "iv": IV, "ciphertext": bytes(17)}, "cbc length"),
        ("BadLength", "cbc.encrypt", {"key": KEY16, "iv": bytes(8), "plaintext": b""}, "iv length"),
        ("BadLength", "aead.open", {"alg": "aes-gcm", "key": KEY32, "combined": bytes(27)}, "short box"),
        ("BadLength", "aead.seal", {"alg": "aes-gcm", "key": KEY32, "plaintext": b"", "nonce": bytes(16)}, "nonce"),
        ("BadLength", "aead.seal_parts", {"alg": "aes-gcm", "key": KEY32, "nonce": bytes(11), "plaintext": b""}, "gcm nonce"),
        ("BadLength", "aead.seal_parts", {"alg": "chachapoly", "key": KEY32, "nonce": bytes(16), "plaintext": b""}, "chacha"),
        ("BadLength", "aead.open_parts",
         {"alg": "aes-gcm", "key": KEY32, "nonce": bytes(12), "ciphertext": b"", "tag": bytes(15)}, "short tag"),
        ("AuthFailed", "aead.open_parts",
         {"alg": "aes-gcm", "key": KEY32, "nonce": bytes(16), "ciphertext": b"", "tag": bytes(16)}, "zero tag, long nonce"),
        ("Unsupported", "aead.open_parts",
         {"alg": "aes-gcm", "key": KEY32, "nonce": bytes(129), "ciphertext": b"", "tag": bytes(16)}, "nonce over pyca's 128"),
        ("BadPadding", "cbc.decrypt", {"key": KEY16, "iv": IV, "ciphertext": _bad_padding_ct()}, "padding"),
        ("AuthFailed", "aead.open", {"alg": "aes-gcm", "key": KEY32, "combined": bytes(28)}, "zero tag"),
        ("KeyDerivation", "kdf.derive", {"mode": "utf8-zeropad16", "encryption_key": "x" * 16}, "16 bytes"),
        ("KeyDerivation", "kdf.derive", {"mode": "base64-raw", "encryption_key": "AAAA"}, "3 bytes"),
        ("BadEnvelope", "envelope.open", {"key": KEY16, "envelope": b"{"}, "bad json"),
        ("Unsupported", "rsa.encrypt", {"key": p["pub"], "padding": "oaep-sha512", "plaintext": b""}, "padding"),
        ("Unsupported", "rsa.export_public", {"key": p["pub"], "format": "openssh"}, "format"),
        ("Unsupported", "kdf.derive", {"mode": "hkdf", "encryption_key": "x"}, "mode"),
        ("Unsupported", "aead.open", {"alg": "aes-siv", "key": KEY32, "combined": bytes(28)}, "alg"),
    ]


def _bad_padding_ct() -> bytes:
    ct = ok("cbc.encrypt", {"key": KEY16, "iv": IV, "plaintext": b"A" * 16})
    return ct[:15] + bytes([ct[15] ^ 1]) + ct[16:]


def test_everyErrorKind_isReachable(pems: dict[str, bytes]) -> None:
    seen = set()
    for kind, op, args, why in _error_cases(pems):
        result = call(op, args)
        assert result.get("err") == kind, (why, result)
        seen.add(kind)
    seen.add(err("version", {"x": 1}))  # BadInput again, via an unknown argument
    assert seen == ALLOWED_KINDS - {"Internal"}  # Internal: see the next test


def test_unexpectedException_isInternalWithTraceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(a: object) -> None:
        raise ZeroDivisionError("kaboom")

    monkeypatch.setitem(handlers._OPS, "version", (boom, ()))
    result = call("version", {})
    assert result["err"] == "Internal"
    first, rest = result["detail"].split("\n", 1)
    assert first == "ZeroDivisionError: kaboom"
    assert "Traceback" in rest and "boom" in rest


def test_exceptionWhoseStrFails_isStillInternal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Nasty(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no str for you")

    def boom(a: object) -> None:
        raise Nasty()

    monkeypatch.setitem(handlers._OPS, "version", (boom, ()))
    assert call("version", {})["err"] == "Internal"


def test_kindsFromHandle_tooLongDetailStatesLimit(pems: dict[str, bytes]) -> None:
    result = call("rsa.encrypt", {"key": pems["pub"], "padding": "oaep-sha1", "plaintext": bytes(87)})
    detail = "plaintext is 87 bytes; oaep-sha1 with a 1024-bit key allows at most 86"
    assert result == {"err": "TooLong", "detail": detail}


def test_rsaDecryptFailures_areIdenticalResponses(key1024: rsa.RSAPrivateKey, pems: dict[str, bytes]) -> None:
    n = key1024.public_key().public_numbers().n
    good = ok("rsa.encrypt", {"key": pems["pub"], "padding": "oaep-sha256", "plaintext": b"secret"})
    probes = [bytes(128), n.to_bytes(128, "big"), b"\xff" * 128, good[:-1] + bytes([good[-1] ^ 4]),
              ok("rsa.encrypt", {"key": pems["pub"], "padding": "oaep-sha1", "plaintext": b"secret"})]
    responses = [call("rsa.decrypt", {"key": pems["priv"], "padding": "oaep-sha256", "ciphertext": c}) for c in probes]
    responses.append(call("rsa.decrypt", {"key": pems["priv"], "padding": "oaep-sha256", "ciphertext": good,
                                          "label": b"wrong"}))
    assert all(r == responses[0] for r in responses)
    assert responses[0]["err"] == "DecryptFailed"
    assert "secret" not in responses[0]["detail"]


# ---- handle never raises, whatever it is given -------------------------------------------------


def _valid_args(p: dict[str, bytes]) -> dict[str, dict[str, Any]]:
    return {
        "version": {},
        "rsa.generate": {"bits": 1024},
        "rsa.public_info": {"key": p["pub"]},
        "rsa.private_info": {"key": p["enc"], "passphrase": b"pw"},
        "rsa.export_public": {"key": p["priv"], "format": "spki-der"},
        "rsa.export_private": {"key": p["priv"], "format": "pkcs8-pem-encrypted", "export_passphrase": b"e"},
        "rsa.max_plaintext": {"bits": 1024, "padding": "pkcs1"},
        "rsa.encrypt": {"key": p["pub"], "padding": "oaep-sha1", "plaintext": b"x", "label": b"l"},
        "rsa.decrypt": {"key": p["priv"], "padding": "pkcs1", "rejection": "implicit",
                        "ciphertext": ok("rsa.encrypt", {"key": p["pub"], "padding": "pkcs1", "plaintext": b"x"})},
        "cbc.encrypt": {"key": KEY16, "iv": IV, "plaintext": b"x"},
        "cbc.decrypt": {"key": KEY16, "iv": IV, "ciphertext": ok("cbc.encrypt", {"key": KEY16, "iv": IV,
                                                                                 "plaintext": b"x"})},
        "envelope.seal": {"key": KEY16, "plaintext": b"x", "iv": IV},
        "envelope.open": {"key": KEY16, "envelope": ok("envelope.seal", {"key": KEY16, "plaintext": b"x"})},
        "kdf.derive": {"mode": "utf8-zeropad16", "encryption_key": "abc"},
        "aead.seal": {"alg": "aes-gcm", "key": KEY32, "plaintext": b"x", "nonce": bytes(12), "aad": b"a"},
        "aead.open": {"alg": "chachapoly", "key": KEY32, "aad": b"a",
                      "combined": ok("aead.seal", {"alg": "chachapoly", "key": KEY32, "plaintext": b"x", "aad": b"a"})},
        "aead.seal_parts": {"alg": "aes-gcm", "key": KEY32, "nonce": bytes(16), "plaintext": b"x", "aad": b"a"},
        "aead.open_parts": {"alg": "aes-gcm", "key": KEY32, "nonce": bytes(16), "aad": b"a",
                            **ok("aead.seal_parts", {"alg": "aes-gcm", "key": KEY32, "nonce": bytes(16), "plaintext": b"x",
                                                     "aad": b"a"})},
        "symkey.generate": {"bits": 128},
        "symkey.serialize": {"key": KEY16},
        "symkey.parse": {"text": base64.b64encode(KEY16).decode()},
        "sig.verify": {"scheme": "rsa-pss", "key": p["pub"], "message": b"m", "signature": bytes(128), "hash": "SHA256",
                       "mgf1_hash": "SHA1", "salt_length": 20},
        "hmac.compute": {"hash": "SHA256", "key": b"k", "message": b"m"},
        "kex.agree": {"curve": "X25519", "private": bytes(range(32)), "public": bytes([9]) + bytes(31), "encoding": "raw"},
        "hkdf.derive": {"hash": "SHA256", "ikm": b"k", "salt": b"s", "info": b"i", "length": 42},
        # what an app under test signs and agrees (signatures.py, key_agreement.py)
        "signature.verify": {"alg": "rsa-pkcs1v15-sha256", "public_key": p["pub"], "message": b"m", "signature": bytes(128)},
        "signature.openssl_inputs": {"alg": "rsa-pss-sha256", "public_key": p["pub"], "signature": bytes(128)},
        "agreement.generate": {"curve": "x25519", "format": "raw"},
        "agreement.derive": {"curve": "p256", "private_key": ok("agreement.generate", {"curve": "p256", "format": "der"})["private"],
                             "peer_public_key": ok("agreement.generate", {"curve": "p256", "format": "x963"})["public"],
                             "kdf": "x963-sha256", "salt": b"", "info": b"i", "length": 16},
        # sessions (sessions.py): each needing one gets a session of its own
        "session.open": {"role": "rsa-socket.server", "config": _rsa_server(p)},
        "session.receive": {"session": ok("session.open", {"role": "rsa-socket.server", "config": _rsa_server(p)})[
            "session"], "data": b"Client: OK"},
        "session.idle": {"session": ok("session.open", {"role": "rsa-socket.server", "config": _rsa_server(p)})[
            "session"]},
        "session.request": {"session": ok("session.open", {"role": "aes-https.server", "config": {"users": {}}})[
            "session"], "request": {"method": "POST", "path": "/login", "headers": {}, "body": b"{}"}},
        "session.close": {"session": ok("session.open", {"role": "aes-https.server", "config": {}})["session"]},
        # described protocols (sessions.py, described/): a party of the seed's description per op
        "described.check": {"path": DESCRIPTION},
        "described.open": {"path": DESCRIPTION, "conversation": "phone-to-pi", "role": "client", "private_keys": {},
                           "known_public_keys": {}, "secrets": {}, "message": b"m", "config": {}},
        "described.next": {"session": ok("described.open", {"path": DESCRIPTION, "conversation": "phone-to-pi", "role": "client"})["session"]},
        "described.receive": {"session": ok("described.open", {"path": DESCRIPTION, "role": "server"})["session"], "message": b"Client: OK"},
        "described.state": {"session": ok("described.open", {"path": DESCRIPTION, "role": "server"})["session"]},
        "described.refusal": {"session": ok("described.open", {"path": DESCRIPTION, "role": "server"})["session"]},
        "described.close": {"session": ok("described.open", {"path": DESCRIPTION, "role": "server"})["session"]},
        "aes-https.client.login_request": {"username": "u", "password": "p", "encoding": "form"},
        "aes-https.client.parse_login": {"key_mode": "utf8-zeropad16", "response": {
            "status": 200, "headers": {}, "body": b'{"token":"t","encryptionKey":"abc"}'}},
        "aes-https.client.secure_request": {"token": "t", "key": KEY16, "params": {"a": [1]}, "iv": IV},
        "aes-https.client.parse_secure": {"key": KEY16, "response": {
            "status": 200, "headers": {}, "body": ok("envelope.seal", {"key": KEY16, "plaintext": b'{"a":1}'})}},
    }


DESCRIPTION = str(Path(__file__).resolve().parents[2] / "protocols" / "rsa-socket.toml")


def _rsa_server(p: dict[str, bytes]) -> dict[str, Any]:
    return {"padding": "pkcs1", "framing": "legacy", "private_key": p["priv"]}


GARBAGE: list[object] = [1, -1, 0, 10**40, True, False, 1.5, "text", "", b"", b"\x00", os.urandom(300),
                         bytearray(b"\xff" * 17), [], [b"x"], {}, {"a": b"b"}, object(), ("t",), memoryview(b"m")]


def test_validArgs_coverEveryOp(pems: dict[str, bytes]) -> None:
    assert set(_valid_args(pems)) == set(handlers.op_table())
    for op, args in _valid_args(pems).items():
        assert set(args) <= set(handlers.op_table()[op]), op
        result = call(op, args)
        assert "ok" in result, (op, result)  # the garbage test below mutates a working call


def test_handle_neverRaisesNorFailsInternally_onGarbageArguments(pems: dict[str, bytes]) -> None:
    for op, valid in _valid_args(pems).items():
        if op == "rsa.generate":
            continue  # covered below without generating dozens of keys
        for name in handlers.op_table()[op]:
            for junk in GARBAGE:
                result = call(op, {**valid, name: junk})
                assert result.get("err") != "Internal", (op, name, type(junk), result)
            if name in valid:
                missing = {k: v for k, v in valid.items() if k != name}
                assert call(op, missing).get("err") != "Internal", (op, name)
        assert err(op, {**valid, "bogus": 1}) == "BadInput"


def test_rsaGenerate_garbageBits_isBadInput() -> None:
    for junk in GARBAGE:
        assert err("rsa.generate", {"bits": junk}) == "BadInput", junk
    assert err("rsa.generate", {"bits": 1024, "e": 17}) == "BadInput"


@pytest.mark.parametrize("args", [None, [], "args", b"", 7, {1: 2}, {b"key": b""}, {("t",): 1}])
def test_handle_badArgsContainer_isBadInput(args: object) -> None:
    assert err("version", args) == "BadInput"


@pytest.mark.parametrize("op", [None, 1, b"version", ["version"], object()])
def test_handle_nonStringOp_isBadInput(op: object) -> None:
    assert err(op, {}) == "BadInput"


def test_handle_randomKeysForEveryKeyTakingOp() -> None:
    for _ in range(20):
        junk = os.urandom(int.from_bytes(os.urandom(1), "big"))
        for op in ("rsa.public_info", "rsa.private_info"):
            assert err(op, {"key": junk}) == "BadKey"
        for op, extra in (("rsa.encrypt", {"plaintext": b"x"}), ("rsa.decrypt", {"ciphertext": bytes(128)})):
            assert err(op, {"key": junk, "padding": "pkcs1", **extra}) == "BadKey"
        assert err("rsa.export_public", {"key": junk, "format": "spki-pem"}) == "BadKey"
        assert err("rsa.export_private", {"key": junk, "format": "pkcs8-pem"}) == "BadKey"
