"""make test's cache of generated RSA keys (CROSSCHECK_TEST_KEY_CACHE): distinct keys within a
process, the cached key for a later one, a damaged or wrong-sized file made again, and nothing
read or written when no cache is set."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric import rsa

from pythonref import rsa_keys, test_key_cache


def _fresh_kind() -> str:
    """A kind no other test uses, so that this process's count for it starts at 0."""
    return "test-" + uuid.uuid4().hex[:8]


def _made(counter: list[int], bits: int = 1024):
    def make() -> rsa.RSAPrivateKey:
        counter.append(bits)
        return rsa.generate_private_key(public_exponent=65537, key_size=bits)
    return make


def _modulus(key: rsa.RSAPrivateKey) -> int:
    return key.public_key().public_numbers().n


def _der(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(ser.Encoding.DER, ser.PrivateFormat.PKCS8, ser.NoEncryption())


def test_each_call_in_a_process_gets_its_own_key_and_writes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(test_key_cache.ENVIRONMENT_VARIABLE, str(tmp_path))
    kind, made = _fresh_kind(), []
    first = test_key_cache.key(1024, _made(made), kind=kind)
    second = test_key_cache.key(1024, _made(made), kind=kind)
    assert len(made) == 2
    assert _modulus(first) != _modulus(second)
    assert sorted(os.listdir(tmp_path)) == [f"rsa-{kind}-1024-0.der", f"rsa-{kind}-1024-1.der"]
    written = ser.load_der_private_key((tmp_path / f"rsa-{kind}-1024-1.der").read_bytes(), password=None)
    assert _modulus(written) == _modulus(second)


def test_a_cached_key_is_the_one_a_process_gets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(test_key_cache.ENVIRONMENT_VARIABLE, str(tmp_path))
    kind, made = _fresh_kind(), []
    cached = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    (tmp_path / f"rsa-{kind}-1024-0.der").write_bytes(_der(cached))
    assert _modulus(test_key_cache.key(1024, _made(made), kind=kind)) == _modulus(cached)
    assert made == []


def test_a_damaged_wrong_sized_or_wrong_exponent_file_is_made_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(test_key_cache.ENVIRONMENT_VARIABLE, str(tmp_path))
    kind, made = _fresh_kind(), []
    (tmp_path / f"rsa-{kind}-1024-0.der").write_bytes(b"not a key")
    (tmp_path / f"rsa-{kind}-1024-1.der").write_bytes(_der(rsa.generate_private_key(public_exponent=65537, key_size=2048)))
    (tmp_path / f"rsa-{kind}-1024-2.der").write_bytes(_der(rsa.generate_private_key(public_exponent=3, key_size=1024)))
    for index in range(3):
        key = test_key_cache.key(1024, _made(made), kind=kind)
        assert key.key_size == 1024 and key.public_key().public_numbers().e == 65537
        on_disk = ser.load_der_private_key((tmp_path / f"rsa-{kind}-1024-{index}.der").read_bytes(), password=None)
        assert _modulus(on_disk) == _modulus(key)
    assert len(made) == 3


def test_no_cache_makes_every_key_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(test_key_cache.ENVIRONMENT_VARIABLE, raising=False)
    made: list[int] = []
    test_key_cache.key(1024, _made(made), kind=_fresh_kind())
    test_key_cache.key(1024, _made(made), kind=_fresh_kind())
    assert len(made) == 2


def test_generate_takes_cached_keys_only_for_e_65537(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(test_key_cache.ENVIRONMENT_VARIABLE, str(tmp_path))
    key = rsa_keys.generate(1024, 3)
    assert key.public_key().public_numbers().e == 3
    assert not any(name.startswith("rsa-pyca-") for name in os.listdir(tmp_path))
    assert rsa_keys.generate(1024).public_key().public_numbers().e == 65537
    assert any(name.startswith("rsa-pyca-1024-") for name in os.listdir(tmp_path))
