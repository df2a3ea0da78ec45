"""PKCS#1 v1.5 decryption of both Pi generations (rsa_cipher's `rejection`): "explicit" (an error
for a bad padding, OpenSSL 3.0) and "implicit" (OpenSSL >= 3.2's synthetic message), whichever
OpenSSL this Python's cryptography links.

The implicit answers are checked byte for byte against Vectors/implicit-rejection/vectors.json,
which a cryptography on OpenSSL >= 3.2 wrote (its provenance block says which; generate.py there
makes it again). With `make venv-current`'s venv present, the same checks also run on that Python,
where the library's behaviour is the other one; without it, that test says it is skipped and why.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest
from cryptography.hazmat.primitives.asymmetric import padding as asym
from cryptography.hazmat.primitives.asymmetric import rsa

from pythonref import rsa_cipher, rsa_keys, sessions
from pythonref import rsa_socket as rs
from pythonref.errors import CryptoFailure, ErrorKind
from pythonref.rsa_socket import Send

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT.parent / "Vectors" / "implicit-rejection" / "vectors.json"
VENV_PYTHON = ROOT.parent / ".venv-current" / "bin" / "python"
DOCUMENT: dict[str, Any] = json.loads(VECTORS.read_text())
VALID = ("valid", "valid-empty", "valid-longest")
REFUSED_OUTRIGHT = {"modulus": ErrorKind.DECRYPT_FAILED, "above-modulus": ErrorKind.DECRYPT_FAILED,
                    "short": ErrorKind.BAD_LENGTH}


def _openssl_number(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split()[1].split(".")[:2])


def test_the_vectors_come_from_an_openssl_with_implicit_rejection() -> None:
    provenance = DOCUMENT["provenance"]
    assert set(provenance) == {"made", "command", "python", "cryptography", "openssl"}
    assert _openssl_number(provenance["openssl"]) >= (3, 2), provenance
    assert [key["bits"] for key in DOCUMENT["keys"]] == [1024, 1536, 2048, 3072, 4096]
    for key in DOCUMENT["keys"]:
        classes = [case["class"] for case in key["cases"]]
        assert len(classes) == len(set(classes)) >= 12
        synthetic = [c for c in key["cases"] if c["class"] not in VALID and "plaintext" in c]
        # the library acknowledged every bad padding, each with its own message
        assert len(synthetic) == len(classes) - len(VALID) - len(REFUSED_OUTRIGHT)
        assert len({c["plaintext"] for c in synthetic if c["plaintext"]}) >= len(synthetic) - 1
        assert all("error" in c for c in key["cases"] if c["class"] in REFUSED_OUTRIGHT)


@pytest.fixture(params=[key["bits"] for key in DOCUMENT["keys"]], ids=lambda bits: f"rsa{bits}")
def vector_key(request: pytest.FixtureRequest) -> Iterator[tuple[rsa_keys.PrivateKey, list[dict[str, str]]]]:
    entry = next(key for key in DOCUMENT["keys"] if key["bits"] == request.param)
    yield rsa_keys.load_private(entry["private_pkcs8_pem"].encode("ascii")), entry["cases"]


@pytest.fixture(params=["library", "own"])
def path(request: pytest.FixtureRequest) -> str:
    """Run each test with pyca doing what it does and with rsa_cipher's own code doing it all: the
    library's rejection is set to the opposite of what is asked, so the own code decrypts."""
    return str(request.param)


def _decrypt(key: rsa_keys.PrivateKey, ciphertext: bytes, rejection: str, path: str,
             monkeypatch: pytest.MonkeyPatch) -> bytes:
    library = rsa_cipher.library_rejection(key)
    if path == "own":
        monkeypatch.setattr(rsa_cipher, "_library_rejection", "explicit" if rejection == "implicit" else "implicit")
    elif library != rejection:
        pytest.skip(f"this cryptography's OpenSSL rejects {library}ly; the 'own' run covers {rejection}")
    try:
        return rsa_cipher.decrypt(key, "pkcs1", ciphertext, rejection=rejection)
    finally:
        monkeypatch.setattr(rsa_cipher, "_library_rejection", library)


def test_implicit_gives_exactly_what_openssl_3_2_gives(vector_key, path: str, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    key, cases = vector_key
    for case in cases:
        ciphertext = bytes.fromhex(case["ciphertext"])
        if "plaintext" in case:
            assert _decrypt(key, ciphertext, "implicit", path, monkeypatch).hex() == case["plaintext"], case["class"]
        else:
            with pytest.raises(CryptoFailure) as info:
                _decrypt(key, ciphertext, "implicit", path, monkeypatch)
            assert info.value.kind is REFUSED_OUTRIGHT[case["class"]], case["class"]


def test_explicit_refuses_every_bad_padding_with_one_text(vector_key, path: str,  # type: ignore[no-untyped-def]
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    key, cases = vector_key
    for case in cases:
        ciphertext = bytes.fromhex(case["ciphertext"])
        if case["class"] in VALID:
            assert _decrypt(key, ciphertext, "explicit", path, monkeypatch).hex() == case["plaintext"], case["class"]
            continue
        with pytest.raises(CryptoFailure) as info:
            _decrypt(key, ciphertext, "explicit", path, monkeypatch)
        kind = REFUSED_OUTRIGHT.get(case["class"], ErrorKind.DECRYPT_FAILED)
        assert info.value.kind is kind, case["class"]
        if kind is ErrorKind.DECRYPT_FAILED:
            assert info.value.detail == rsa_cipher.DECRYPT_FAILED_DETAIL


def test_own_explicit_decryption_agrees_with_pyca_on_random_ciphertexts(key1024: rsa.RSAPrivateKey,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Against pyca's own answers where the library rejects explicitly (Debian 12's does)."""
    if rsa_cipher.library_rejection(key1024) != "explicit":
        pytest.skip("this cryptography's OpenSSL rejects implicitly; the vectors cover the own explicit code")
    monkeypatch.setattr(rsa_cipher, "_library_rejection", "implicit")  # so decrypt() runs the own code
    public = key1024.public_key()
    cases = [os.urandom(127).rjust(128, b"\x00") for _ in range(200)]
    cases += [public.encrypt(os.urandom(n), asym.PKCS1v15()) for n in (0, 1, 50, 117)]
    agreed = 0
    for ciphertext in cases:
        try:
            expected: bytes | None = key1024.decrypt(ciphertext, asym.PKCS1v15())
        except ValueError:
            expected = None
        try:
            got: bytes | None = rsa_cipher.decrypt(key1024, "pkcs1", ciphertext)
        except CryptoFailure as failure:
            assert failure.kind is ErrorKind.DECRYPT_FAILED
            got = None
        assert got == expected, ciphertext.hex()
        agreed += expected is not None
    assert agreed >= 4


def test_synthetic_message_is_deterministic_bounded_and_key_bound(key1024: rsa.RSAPrivateKey,
                                                                 other1024: rsa.RSAPrivateKey) -> None:
    d, other_d = key1024.private_numbers().d, other1024.private_numbers().d
    lengths = set()
    for i in range(64):
        ciphertext = hashlib.shake_256(i.to_bytes(2, "big")).digest(128)
        message = rsa_cipher.synthetic_message(d, ciphertext)
        assert message == rsa_cipher.synthetic_message(d, ciphertext)
        assert message != rsa_cipher.synthetic_message(other_d, ciphertext) or not message
        assert len(message) <= 128 - 11
        lengths.add(len(message))
    assert len(lengths) > 20  # lengths spread over 0..k-11, not one fixed length


def test_oaep_is_an_error_under_both_rejections(key1024: rsa.RSAPrivateKey) -> None:
    for rejection in rsa_cipher.REJECTIONS:
        with pytest.raises(CryptoFailure) as info:
            rsa_cipher.decrypt(key1024, "oaep-sha256", bytes(128), rejection=rejection)
        assert info.value.kind is ErrorKind.DECRYPT_FAILED


def test_rejection_names_are_checked(key1024: rsa.RSAPrivateKey) -> None:
    with pytest.raises(CryptoFailure) as info:
        rsa_cipher.decrypt(key1024, "pkcs1", bytes(128), rejection="lenient")
    assert info.value.kind is ErrorKind.UNSUPPORTED and "explicit, implicit" in info.value.detail
    pem = rsa_keys.export_private(key1024, "pkcs8-pem")
    with pytest.raises(CryptoFailure) as info:
        rs.ServerConfig(padding="pkcs1", framing="framed", private_key=pem, rejection="none")
    assert info.value.kind is ErrorKind.UNSUPPORTED


# ---- the rsa-socket server of each generation -----------------------------------------------------


def _bad_padding_ciphertexts(key: rsa.RSAPrivateKey) -> dict[str, bytes]:
    public = key.public_key().public_numbers()
    k = 128
    ems = {"wrong-block-type": b"\x00\x01" + b"\x11" * 100 + b"\x00" + b"m" * 25,
           "no-separator": b"\x00\x02" + b"\x22" * 126,
           "short-padding": b"\x00\x02" + b"\x33" * 7 + b"\x00" + b"\x44" * 118,
           "nonzero-first-byte": b"\x01\x02" + b"\x55" * 126}
    return {name: pow(int.from_bytes(em, "big"), public.e, public.n).to_bytes(k, "big") for name, em in ems.items()}


def _answer(pem: bytes, rejection: str, ciphertext: bytes) -> list[bytes]:
    server = rs.RsaSocketServer(rs.ServerConfig(padding="pkcs1", framing="framed", private_key=pem, digest=True,
                                                rejection=rejection))
    out = server.receive(rs.frame(b"Client: OK", "framed"))
    out += server.receive(rs.frame(b"encrypted_message=" + ciphertext, "framed"))
    return [a.data for a in out if isinstance(a, Send)][1:]


def test_the_server_of_each_generation(key1024: rsa.RSAPrivateKey) -> None:
    pem = rsa_keys.export_private(key1024, "pkcs8-pem")
    d = key1024.private_numbers().d
    for name, ciphertext in _bad_padding_ciphertexts(key1024).items():
        assert _answer(pem, "explicit", ciphertext) == [rs.frame(b"Server: ERROR", "framed")], name
        digest = hashlib.sha256(rsa_cipher.synthetic_message(d, ciphertext)).hexdigest().encode()
        assert _answer(pem, "implicit", ciphertext) == [rs.frame(b"Server: OK sha256=" + digest, "framed")], name
    n = key1024.public_key().public_numbers().n
    for refused in (n.to_bytes(128, "big"), b"\xff" * 128, bytes(127)):  # >= n, > n, short: refused by both
        for rejection in rsa_cipher.REJECTIONS:
            assert _answer(pem, rejection, refused) == [rs.frame(b"Server: ERROR", "framed")], rejection


def test_sessions_take_the_rejection(key1024: rsa.RSAPrivateKey) -> None:
    pem = rsa_keys.export_private(key1024, "pkcs8-pem")
    ciphertext = _bad_padding_ciphertexts(key1024)["no-separator"]
    answers = {}
    for rejection in rsa_cipher.REJECTIONS:
        sid, _ = sessions.open_session("rsa-socket.server", {"padding": "pkcs1", "framing": "framed",
                                                             "private_key": pem, "rejection": rejection})
        sessions.receive(sid, rs.frame(b"Client: OK", "framed"))
        step = sessions.receive(sid, rs.frame(b"encrypted_message=" + ciphertext, "framed"))
        answers[rejection] = [a["send"] for a in step["actions"] if "send" in a]
        sessions.close(sid)
    assert answers == {"explicit": [rs.frame(b"Server: ERROR", "framed")],
                       "implicit": [rs.frame(b"Server: OK", "framed")]}


# ---- the same on the venv's current cryptography ---------------------------------------------------

_ON_VENV = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from pythonref import rsa_cipher, rsa_keys
from pythonref.errors import CryptoFailure
from cryptography.hazmat.backends.openssl import backend
out = {"openssl": backend.openssl_version_text(), "answers": []}
for entry in json.load(open(sys.argv[2]))["keys"]:
    key = rsa_keys.load_private(entry["private_pkcs8_pem"].encode())
    for case in entry["cases"]:
        for rejection in ("explicit", "implicit"):
            try:
                got = rsa_cipher.decrypt(key, "pkcs1", bytes.fromhex(case["ciphertext"]), rejection=rejection).hex()
            except CryptoFailure as failure:
                got = failure.kind.value
            out["answers"].append([entry["bits"], case["class"], rejection, got])
out["library"] = rsa_cipher._library_rejection
print(json.dumps(out))
"""


def test_pythonref_on_the_current_cryptography_gives_the_same_answers() -> None:
    if not VENV_PYTHON.exists():
        pytest.skip(f"no {VENV_PYTHON} (`make venv-current` makes it): PythonRef on a current cryptography not run")
    result = subprocess.run([str(VENV_PYTHON), "-c", _ON_VENV, str(ROOT), str(VECTORS)], capture_output=True,
                            text=True, timeout=600, check=True)
    report = json.loads(result.stdout)
    assert _openssl_number(report["openssl"]) >= (3, 2) and report["library"] == "implicit", report["openssl"]
    expected = []
    for entry in DOCUMENT["keys"]:
        for case in entry["cases"]:
            refused = REFUSED_OUTRIGHT.get(case["class"])
            for rejection in ("explicit", "implicit"):
                if refused is not None:
                    want = refused.value
                elif rejection == "implicit" or case["class"] in VALID:
                    want = case["plaintext"]
                else:
                    want = "DecryptFailed"
                expected.append([entry["bits"], case["class"], rejection, want])
    assert report["answers"] == expected
