"""`type = "ec-p256"` keys, `signature` values and HTTP refusals of a kind answered their own way,
in PythonRef's engine (arthuravianna/uff-web3-course's ds_server: ECDSA P-256 r || s over a text
field, a bad signature answered 200 with its own body). Signatures are checked with pyca directly
and with the openssl command line, not with the engine's own verifier."""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

from pythonref.described import DescriptionError, Party, Refused, loads

SIGNED = (Path(__file__).resolve().parents[2] / "examples/protocols/ecdsa-signed-message.toml").read_text()  # the shipped example


def parties(text: str = SIGNED, message: bytes = b"hello") -> tuple[Party, Party, ec.EllipticCurvePrivateKey]:
    desc = loads(text)
    key = ec.generate_private_key(ec.SECP256R1())
    client = Party(desc, "message", "client", private_keys={"signer": key}, message=message)
    server = Party(desc, None, "server", known_public_keys={"signer": key.public_key()})
    return client, server, key


def test_a_raw_signature_is_r_and_s_of_the_fields_text_and_is_answered_authentic() -> None:
    client, server, key = parties(message="Grüße".encode())
    request = client.next_message()
    fields = json.loads(request["body"])
    raw = base64.b64decode(fields["signature"])
    assert len(raw) == 64 and fields["message"] == "Grüße"
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key.public_key().verify(der, "Grüße".encode(), ec.ECDSA(hashes.SHA256()))  # raises if it does not verify
    server.receive(request)
    answer = server.next_message()
    assert answer["status"] == 200 and json.loads(answer["body"]) == {"message": "The message is authentic!"}
    client.receive(answer)
    assert client.done and client.refusal is None


@pytest.mark.parametrize("change", ["signature", "message"])
def test_a_changed_signature_or_text_is_an_authentication_refusal_with_the_declared_body(change: str) -> None:
    client, server, _ = parties()
    request = client.next_message()
    fields = json.loads(request["body"])
    if change == "signature":
        raw = bytearray(base64.b64decode(fields["signature"]))
        raw[-1] ^= 1
        fields["signature"] = base64.b64encode(bytes(raw)).decode()
    else:
        fields["message"] = "hellO"
    with pytest.raises(Refused) as refused:
        server.receive({**request, "body": json.dumps(fields).encode()})
    assert refused.value.kind == "authentication"
    answer = server.refusal_message()
    assert answer["status"] == 200 and answer["headers"]["content-type"] == "application/json"
    assert json.loads(answer["body"]) == {"message": "The message is not authentic!"}
    with pytest.raises(Refused) as told:  # the client tells that 200 from the answer it wanted
        client.receive(answer)
    assert told.value.kind == "authentication" and "the server refused the message" in told.value.reason


def test_a_der_signature_from_openssls_command_line_verifies(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    (tmp_path / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    (tmp_path / "text").write_bytes(b"signed by openssl")
    subprocess.run(["openssl", "dgst", "-sha256", "-sign", str(tmp_path / "key.pem"), "-out", str(tmp_path / "sig"),
                    str(tmp_path / "text")], check=True)
    der = (tmp_path / "sig").read_bytes()
    desc = loads(SIGNED.replace('format = "raw"', 'format = "der"'))

    def request(signature: bytes) -> dict:
        body = json.dumps({"message": "signed by openssl", "signature": base64.b64encode(signature).decode()}).encode()
        return {"method": "POST", "path": "/message", "headers": {"Content-Type": "application/json"}, "body": body}

    Party(desc, None, "server", known_public_keys={"signer": key.public_key()}).receive(request(der))
    r, s = decode_dss_signature(der)
    with pytest.raises(Refused):
        Party(desc, None, "server", known_public_keys={"signer": key.public_key()}).receive(
            request(r.to_bytes(32, "big") + s.to_bytes(32, "big")))


@pytest.mark.parametrize("old,new,path,words", [
    ('type = "ec-p256"\n', "", "signature", "is an RSA key"),
    ('holder = "client"', 'holder = "server"', "signature", "cannot sign with it"),
    ("preshared = true", "preshared = false", "signature", "public half before this message"),
    ('type = "ec-p256"', 'type = "ec-p256"\nbits = 2048', "keys.signer.bits", "remove bits"),
    ('of = "message"', 'of = "nothing"', "signature", "names no sibling field"),
    (', encoding = "base64" } } }', " } } }", "signature.encoding", "base64, base64url or hex"),
    (', body = { json = { message = { text = "The message is not authentic!" } } }', "",
     "errors.authentication.status", "give the refusal and the answer each a body"),
    ('body = { json = { message = { text = "The message is authentic!" } } }', "", "errors.authentication.status", "each a body"),
    ('{ json = { message = { text = "The message is not authentic!" } } }', "{ json = { } }", "errors.authentication.body", "at least one field"),
])
def test_descriptions_that_cannot_work_are_refused_by_key_path(old: str, new: str, path: str, words: str) -> None:
    assert old in SIGNED
    with pytest.raises(DescriptionError) as info:
        loads(SIGNED.replace(old, new))
    assert path in info.value.path and words in info.value.message, (info.value.path, info.value.message)


def test_the_key_in_the_same_message_as_its_signature_cannot_verify_it() -> None:
    text = SIGNED.replace("preshared = true", "preshared = false").replace(
        "body = { json = { message = { plain", 'body = { json = { key = { public_key = "signer", encoding = "utf8" }, message = { plain')
    with pytest.raises(DescriptionError) as info:
        loads(text)
    assert "signature" in info.value.path and "before this message" in info.value.message


def test_a_declared_refusal_is_told_first_even_where_the_answer_would_match() -> None:
    both = SIGNED.replace("The message is authentic!", "The message is not authentic!")
    client, _, _ = parties(both)
    client.next_message()
    with pytest.raises(Refused) as told:
        client.receive({"status": 200, "headers": {}, "body": b'{"message": "The message is not authentic!"}'})
    assert told.value.kind == "authentication"
