"""`also_accepts` on a public_key value (docs/PROTOCOL-DESCRIPTIONS.md, `public_key`): the receiver
reads the key as `format`, else as each listed format in order, and refuses as `format` does when
none loads; the sender still sends `format`. Parties of the rsa-socket seed's pi-to-phone
conversation converse in memory over real pyca keys; the reader refuses misuse at the key's path."""

from __future__ import annotations

import base64
import json
import tomllib
from typing import Any, Optional

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from pythonref import rsa_keys
from pythonref.described import Description, DescriptionError, Party, Refused, loads
from pythonref.described import values as v

from test_described import assert_refused_at, converse

# pi-to-phone (protocols/rsa-socket.toml): the client sends its key after "public_key=", the server
# answers its message RSA-encrypted to it, the client says "Quit", the server stops and closes.
PI_TO_PHONE = """
name = "also-accepts"
[transport]
kind = "tcp"
framing = "legacy"
[keys.client]
holder = "client"
type = "{key_type}"
[[conversation]]
name = "pi-to-phone"
message = "Secret message from RPi server"
error = {{ text = "Server: ERROR" }}
[[conversation.step]]
from = "client"
send = {{ concat = [ {{ text = "public_key=" }}, {{ public_key = "client", {qualifiers} }} ] }}
[[conversation.step]]
from = "server"
send = {{ rsa = "client", padding = "pkcs1", carries = "message" }}
[[conversation.step]]
from = "client"
send = {{ text = "Quit" }}
[[conversation.step]]
from = "server"
send = {{ text = "Server stopped\\n" }}
then = "close"
"""
SPKI_ALSO_PKCS1 = 'format = "pem-spki", also_accepts = ["pem-pkcs1"]'
KEY_PATH = "conversation[0].step[0].send.concat[1].also_accepts"
MESSAGE = b"Secret message from RPi server"


def _text(qualifiers: str, key_type: str = "rsa") -> str:
    return PI_TO_PHONE.format(qualifiers=qualifiers, key_type=key_type)


@pytest.fixture(scope="module")
def key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _public(key: rsa.RSAPrivateKey, fmt: serialization.PublicFormat,
            encoding: serialization.Encoding = serialization.Encoding.PEM) -> bytes:
    return key.public_key().public_bytes(encoding, fmt)


def _run(desc: Description, key: rsa.RSAPrivateKey, first: Optional[bytes] = None) -> tuple[Party, Party, list[Any]]:
    """pi-to-phone in memory, the client's key message replaced by `first` (what another client sends)."""
    def tamper(who: str, i: int, msg: Any) -> Any:
        return first if i == 0 and first is not None else msg

    return converse(desc, "pi-to-phone", client={"private_keys": {"client": key}}, tamper=tamper)


def _wires(key: rsa.RSAPrivateKey) -> dict[str, tuple[str, bytes]]:
    """What a receiver with also_accepts learns the key from: (the value's qualifiers, the key as sent)."""
    jwk = json.dumps(v.public_key_payload(key.public_key(), "jwk")).encode()
    der_pkcs1 = _public(key, serialization.PublicFormat.PKCS1, serialization.Encoding.DER)
    return {
        "pkcs1-pem": (SPKI_ALSO_PKCS1, _public(key, serialization.PublicFormat.PKCS1)),
        "spki-pem": (SPKI_ALSO_PKCS1, _public(key, serialization.PublicFormat.SubjectPublicKeyInfo)),
        # pem-pkcs1 does not load it; jwk, the next one, does
        "jwk-after-pkcs1": ('format = "pem-spki", also_accepts = ["pem-pkcs1", "jwk"]', jwk),
        "der-pkcs1": ('format = "der-spki", encoding = "base64", also_accepts = ["der-pkcs1"]', base64.b64encode(der_pkcs1)),
    }


@pytest.mark.parametrize("wire", ["pkcs1-pem", "spki-pem", "jwk-after-pkcs1", "der-pkcs1"])
def test_the_receiver_learns_the_key_in_a_format_it_also_accepts(key: rsa.RSAPrivateKey, wire: str) -> None:
    qualifiers, sent = _wires(key)[wire]
    c, s, log = _run(loads(_text(qualifiers)), key, b"public_key=" + sent)
    assert c.done and s.done and c.refusal is None and s.refusal is None
    assert log[0] == ("client", b"public_key=" + sent)
    assert s.received["public_key:client"] is True
    assert c.received["message"] == MESSAGE  # the server encrypted to the key it learnt
    assert [m for _, m in log[2:]] == [b"Quit", b"Server stopped\n"]


def test_the_sender_still_sends_format(key: rsa.RSAPrivateKey) -> None:
    desc = loads(_text(SPKI_ALSO_PKCS1))
    assert desc.conversations[0].steps[0].send is not None
    assert desc.conversations[0].steps[0].send.arg[1].also_accepts == ("pem-pkcs1",)
    c, s, log = _run(desc, key)
    assert log[0][1] == b"public_key=" + v.public_key_payload(key.public_key(), "pem-spki")
    assert log[0][1].startswith(b"public_key=-----BEGIN PUBLIC KEY-----\n")
    assert c.received["message"] == MESSAGE and s.refusal is None


def test_without_also_accepts_pkcs1_is_refused(key: rsa.RSAPrivateKey) -> None:
    desc = loads(_text('format = "pem-spki"'))
    assert desc.conversations[0].steps[0].send is not None
    assert desc.conversations[0].steps[0].send.arg[1].also_accepts == ()
    with pytest.raises(Refused, match=r"not a pem-spki PEM \(BEGIN PUBLIC KEY\)"):
        _run(desc, key, b"public_key=" + _public(key, serialization.PublicFormat.PKCS1))


@pytest.mark.parametrize("bad", ["der-spki", "der-pkcs1", "garbage", "spki-under-pkcs1-label", "pkcs1-truncated"])
def test_a_key_in_no_accepted_format_is_refused_as_format_refuses_it(key: rsa.RSAPrivateKey, bad: str) -> None:
    pkcs1 = _public(key, serialization.PublicFormat.PKCS1)
    sent = {
        "der-spki": _public(key, serialization.PublicFormat.SubjectPublicKeyInfo, serialization.Encoding.DER),
        "der-pkcs1": _public(key, serialization.PublicFormat.PKCS1, serialization.Encoding.DER),
        "garbage": b"not a key at all",
        # rsa_socket's quirk: an SPKI body under the PKCS#1 label, which pem-pkcs1 does not load either
        "spki-under-pkcs1-label": rsa_keys.ios_pem(
            "RSA PUBLIC KEY", _public(key, serialization.PublicFormat.SubjectPublicKeyInfo, serialization.Encoding.DER)),
        "pkcs1-truncated": pkcs1[:200] + pkcs1[-26:],
    }[bad]
    refusals: list[Refused] = []
    for qualifiers in (SPKI_ALSO_PKCS1, 'format = "pem-spki"'):
        with pytest.raises(Refused) as info:
            _run(loads(_text(qualifiers)), key, b"public_key=" + sent)
        refusals.append(info.value)
    with_also, without = refusals
    assert (with_also.reason, with_also.kind, with_also.status) == (without.reason, without.kind, without.status)
    assert type(with_also) is type(without)


LIST = "also_accepts is a list of one or more public-key formats"
RSA_FORMATS = ("also_accepts lists RSA public-key formats: pem-spki, pem-spki-newline, pem-pkcs1, der-spki, der-pkcs1, "
               "json-ne, jwk; found ")
MUST_BE_TEXT = ("also_accepts formats must be text as format 'pem-spki' is "
                "(pem-spki, pem-spki-newline, pem-pkcs1, json-ne, jwk)")
MUST_BE_BINARY = "also_accepts formats must be binary as format 'der-spki' is (der-spki, der-pkcs1)"
DER = 'format = "der-spki", encoding = "base64"'
CASES: list[tuple[str, str, Optional[str]]] = [
    ('also_accepts = "pem-pkcs1"', "rsa", LIST),
    ("also_accepts = []", "rsa", LIST),
    ("also_accepts = [1]", "rsa", LIST),
    ('also_accepts = ["pem-pkcs8"]', "rsa", RSA_FORMATS + "'pem-pkcs8'"),
    ('also_accepts = ["pem-pkcs1", "x962"]', "rsa", RSA_FORMATS + "'x962'"),
    ('also_accepts = ["der-spki"]', "ec-p256", "also_accepts is for RSA keys; key 'client' is ec-p256"),
    ('also_accepts = ["pem-spki"]', "rsa", "also_accepts repeats a format ('pem-spki')"),
    ('also_accepts = ["pem-pkcs1", "jwk", "pem-pkcs1"]', "rsa", "also_accepts repeats a format ('pem-pkcs1')"),
    ('also_accepts = ["der-spki"]', "rsa", MUST_BE_TEXT),
    ('also_accepts = ["json-ne", "der-pkcs1"]', "rsa", MUST_BE_TEXT),
    (DER + ', also_accepts = ["pem-pkcs1"]', "rsa", MUST_BE_BINARY),
    (DER + ', also_accepts = ["der-pkcs1"]', "rsa", None),  # valid
    ('format = "jwk", also_accepts = ["pem-spki", "pem-spki-newline", "pem-pkcs1", "json-ne"]', "rsa", None),
]


@pytest.mark.parametrize("qualifiers, key_type, words", CASES, ids=[str(i) for i in range(len(CASES))])
def test_also_accepts_errors_name_its_key_path(qualifiers: str, key_type: str, words: Optional[str]) -> None:
    assert_refused_at(tomllib.loads(_text(qualifiers, key_type)), KEY_PATH, words)


def test_also_accepts_is_for_public_key_values_only() -> None:
    text = _text('format = "pem-spki"').replace('carries = "message" }', 'carries = "message", also_accepts = ["pem-pkcs1"] }')
    assert_refused_at(tomllib.loads(text), "conversation[0].step[1].send.also_accepts", "unknown key 'also_accepts'")


def test_also_accepts_errors_name_the_line() -> None:
    text = _text('also_accepts = ["der-spki"]')
    with pytest.raises(DescriptionError) as info:
        loads(text)
    assert info.value.path == KEY_PATH and info.value.line is not None
    assert "also_accepts" in text.splitlines()[info.value.line - 1]
    assert str(info.value) == f"{KEY_PATH} (line {info.value.line}): {MUST_BE_TEXT}"
