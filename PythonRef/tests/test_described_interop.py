"""The described engine against pythonref's own built-in seed implementations (rsa_socket's state
machines, aes_https's server handler and client functions), both ways, and planted failures that
each side must catch: a wrong padding, a tampered ciphertext, a wrong key, a server that answers
OK to garbage."""

from __future__ import annotations

import base64
import hashlib
import json
import tomllib
from pathlib import Path
from typing import Any, Callable, Optional

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from pythonref import aes_cbc, aes_https, rsa_keys
from pythonref import rsa_socket as rs
from pythonref.described import Party, Refused, load, loads
from pythonref.described.description import from_dict
from pythonref.rsa_socket import Event, Send

from test_described import CTR_DIGEST, converse

PROTOCOLS = Path(__file__).resolve().parents[2] / "protocols"
RSA_SOCKET = load(PROTOCOLS / "rsa-socket.toml")
AES_HTTPS = load(PROTOCOLS / "aes-https.toml")
USERS = {"user": "password"}


def _pem(key: rsa.RSAPrivateKey) -> bytes:
    return rsa_keys.export_private(key, "pkcs8-pem")


def _with_padding(padding: str) -> Any:
    """The rsa-socket description with another RSA padding in both directions."""
    doc = tomllib.loads((PROTOCOLS / "rsa-socket.toml").read_text())
    doc["conversation"][0]["step"][2]["send"]["concat"][1]["padding"] = padding
    doc["conversation"][1]["step"][1]["send"]["padding"] = padding
    return from_dict(doc)


# ---- rsa-socket: the described client against the built-in server -------------------------------


def _client_vs_builtin_server(party: Party, machine: rs.RsaSocketServer,
                              tamper: Optional[Callable[[bytes], bytes]] = None) -> list[Event]:
    events: list[Event] = []
    for _ in range(20):
        msg = party.next_message()
        if msg is None:
            break
        assert isinstance(msg, bytes)
        actions = machine.receive(tamper(msg) if tamper else msg)
        if not any(isinstance(a, Send) for a in actions) and not machine.closed:
            actions += machine.idle()  # the quiet gap after a message of unknown length
        for action in actions:
            if isinstance(action, Send):
                party.receive(action.data)
            elif isinstance(action, Event):
                events.append(action)
        if party.done:
            break
    return events


@pytest.mark.parametrize("conversation", ["phone-to-pi", "pi-to-phone"])
@pytest.mark.parametrize("padding", ["pkcs1", "oaep-sha256"])
def test_described_client_with_builtin_server(conversation: str, padding: str, key2048: rsa.RSAPrivateKey) -> None:
    desc = RSA_SOCKET if padding == "pkcs1" else _with_padding(padding)
    machine = rs.RsaSocketServer(rs.ServerConfig(padding=padding, framing="legacy", private_key=_pem(key2048)))
    party = Party(desc, conversation, "client", message=b"to the Pi" if conversation == "phone-to-pi" else None)
    events = _client_vs_builtin_server(party, machine)
    assert party.done and party.refusal is None and machine.closed
    if conversation == "phone-to-pi":
        assert [e.fields["plaintext"] for e in events if e.name == "decrypted"] == [b"to the Pi"]
    else:
        assert party.received["message"] == rs.DEFAULT_MESSAGE
    assert [e.name for e in events][-1] == "quit"


# ---- rsa-socket: the built-in client against the described server --------------------------------


def _builtin_client_vs_server(machine: rs.RsaSocketClient, party: Party,
                              tamper: Optional[Callable[[bytes], bytes]] = None) -> list[Event]:
    events: list[Event] = []
    pending = machine.start()
    for _ in range(20):
        answers: list[bytes] = []
        for action in pending:
            if isinstance(action, Event):
                events.append(action)
            elif isinstance(action, Send) and not party.done:
                try:
                    party.receive(tamper(action.data) if tamper else action.data)
                except Refused:
                    refusal = party.refusal_message()
                    assert isinstance(refusal, bytes)
                    answers.append(refusal)
                    break
                while (out := party.next_message()) is not None:
                    assert isinstance(out, bytes)
                    answers.append(out)
        if not answers:
            break
        pending = []
        for data in answers:
            pending += machine.receive(data)
    return events


@pytest.mark.parametrize("conversation", ["phone-to-pi", "pi-to-phone"])
@pytest.mark.parametrize("key_format", ["spki-pem", "spki-pem-newline"])
def test_builtin_client_with_described_server(conversation: str, key_format: str, key2048: rsa.RSAPrivateKey) -> None:
    config = rs.ClientConfig(direction=conversation, padding="pkcs1", framing="legacy", plaintext=b"from the phone",
                             private_key=_pem(key2048), key_format=key_format)
    party = Party(RSA_SOCKET, None, "server")
    events = _builtin_client_vs_server(rs.RsaSocketClient(config), party)
    assert rs.conversation_succeeded(conversation, events), events
    assert party.done and party.refusal is None
    if conversation == "phone-to-pi":
        assert party.received["message"] == b"from the phone"
    else:
        assert [e.fields["plaintext"] for e in events if e.name == "decrypted"] == [rs.DEFAULT_MESSAGE]


# ---- aes-https: both ways ------------------------------------------------------------------------


def test_described_client_with_builtin_aes_https_server() -> None:
    server = aes_https.AesHttpsServer(aes_https.AesHttpsConfig(USERS, "utf8-zeropad16"))
    party = Party(AES_HTTPS, "secure-data", "client", message=b"hello there")
    while not party.done:
        request = party.next_message()
        assert isinstance(request, dict)
        party.receive(server.handle(request))
    assert party.refusal is None
    assert party.received["secret:session"] == server.encryption_key.encode()
    assert party.received["echo"] == {"message": "hello there"}


def test_builtin_aes_https_client_with_described_server() -> None:
    party = Party(AES_HTTPS, None, "server")
    party.receive(aes_https.login_request("user", "password"))
    login = aes_https.parse_login(party.next_message(), "utf8-zeropad16")  # type: ignore[arg-type]
    params = {"message": "hi from the seed client"}
    party.receive(aes_https.secure_request(login.token, login.key, params))
    assert aes_https.parse_secure(party.next_message(), login.key) == {"echo": params}  # type: ignore[arg-type]
    assert party.done and party.received["message"] == b"hi from the seed client"


def test_builtin_aes_https_client_with_wrong_password_gets_401() -> None:
    party = Party(AES_HTTPS, None, "server")
    with pytest.raises(Refused):
        party.receive(aes_https.login_request("user", "nope"))
    assert party.refusal_message() == aes_https.refusal(401)


# ---- planted failures ----------------------------------------------------------------------------


def test_wrong_padding_client_is_refused_by_builtin_server(key2048: rsa.RSAPrivateKey) -> None:
    machine = rs.RsaSocketServer(rs.ServerConfig(padding="pkcs1", framing="legacy", private_key=_pem(key2048)))
    party = Party(_with_padding("oaep-sha1"), "phone-to-pi", "client")
    with pytest.raises(Refused, match="error value"):
        _client_vs_builtin_server(party, machine)
    assert machine.closed


def test_wrong_padding_server_is_noticed_by_described_client(key2048: rsa.RSAPrivateKey) -> None:
    machine = rs.RsaSocketServer(rs.ServerConfig(padding="oaep-sha1", framing="legacy", private_key=_pem(key2048)))
    party = Party(RSA_SOCKET, "pi-to-phone", "client")
    with pytest.raises(Refused, match="RSA"):
        _client_vs_builtin_server(party, machine)


def test_wrong_padding_builtin_client_gets_server_error(key2048: rsa.RSAPrivateKey) -> None:
    config = rs.ClientConfig(direction="phone-to-pi", padding="oaep-sha256", framing="legacy", plaintext=b"x")
    party = Party(RSA_SOCKET, None, "server")
    events = _builtin_client_vs_server(rs.RsaSocketClient(config), party)
    assert "server-error" in [e.name for e in events]
    assert party.refusal is not None


def _flip_last(data: bytes) -> bytes:
    return data[:-1] + bytes([data[-1] ^ 1])


def test_tampered_rsa_ciphertext_is_refused() -> None:
    def tamper(who: str, i: int, msg: Any) -> Any:
        return _flip_last(msg) if i == 2 else msg

    with pytest.raises(Refused, match="RSA"):
        converse(RSA_SOCKET, "phone-to-pi", tamper=tamper)


def test_tampered_cbc_envelope_is_refused_with_400() -> None:
    c = Party(AES_HTTPS, "secure-data", "client")
    s = Party(AES_HTTPS, None, "server")
    s.receive(c.next_message())
    c.receive(s.next_message())
    request = c.next_message()
    doc = json.loads(request["body"])
    data = bytearray(base64.b64decode(doc["data"]))
    data[-1] ^= 0x55  # the last block's padding
    doc["data"] = base64.b64encode(bytes(data)).decode()
    with pytest.raises(Refused):
        s.receive({**request, "body": json.dumps(doc).encode()})
    assert s.refusal_message()["status"] == 400


def test_tampered_gcm_is_refused() -> None:
    from test_described import GCM_TAG_FIELD

    desc = loads(GCM_TAG_FIELD)

    def flip_tag(who: str, i: int, msg: Any) -> Any:
        if i != 4:
            return msg
        doc = json.loads(msg)
        doc["tag"] = bytes(b ^ 1 for b in bytes.fromhex(doc["tag"])).hex()
        return json.dumps(doc).encode()

    with pytest.raises(Refused, match="authentication"):
        converse(desc, "wrapped", tamper=flip_tag)


def test_wrong_server_key_is_refused(key2048: rsa.RSAPrivateKey) -> None:
    other = rsa_keys.export_public(key2048.public_key(), "spki-pem")

    def swap_key(who: str, i: int, msg: Any) -> Any:
        return b"public_key=" + other + b"\n" if i == 1 else msg

    with pytest.raises(Refused, match="RSA"):
        converse(RSA_SOCKET, "phone-to-pi", tamper=swap_key)


def test_wrong_client_key_is_noticed_by_the_client(key2048: rsa.RSAPrivateKey) -> None:
    other = rsa_keys.export_public(key2048.public_key(), "spki-pem")

    def swap_key(who: str, i: int, msg: Any) -> Any:
        return b"public_key=" + other if i == 0 else msg

    with pytest.raises(Refused, match="RSA"):
        converse(RSA_SOCKET, "pi-to-phone", tamper=swap_key)


def test_wrong_preshared_secret_is_refused() -> None:
    from test_described import CHACHA_LINE
    desc = loads(CHACHA_LINE)
    with pytest.raises(Refused, match="authentication"):
        converse(desc, "chat", client={"secrets": {"psk": b"\x01" * 32}}, server={"secrets": {"psk": b"\x02" * 32}})


def test_garbage_is_refused_not_answered_ok() -> None:
    party = Party(RSA_SOCKET, None, "server")
    party.receive(b"Client: OK")
    party.next_message()
    with pytest.raises(Refused):
        party.receive(b"encrypted_message=" + b"\x00\x00" + b"\x5a" * 254)
    assert party.refusal_message() == b"Server: ERROR"


def test_client_notices_a_wrong_digest() -> None:
    desc = loads(CTR_DIGEST)

    def lie(who: str, i: int, msg: Any) -> Any:
        return b"OK sha256=" + hashlib.sha256(b"garbage").hexdigest().encode() if i == 3 else msg

    c, s, _ = converse(desc, "ctr", client={"message": b"m"})
    assert c.refusal is None
    with pytest.raises(Refused, match="digest"):
        converse(desc, "ctr", client={"message": b"m"}, tamper=lie)


def test_client_notices_a_wrong_echo() -> None:
    server = aes_https.AesHttpsServer(aes_https.AesHttpsConfig(USERS, "utf8-zeropad16"))
    party = Party(AES_HTTPS, "secure-data", "client", message=b"real")
    party.receive(server.handle(party.next_message()))  # type: ignore[arg-type]
    party.next_message()
    # A server that answers 200 and a well-formed envelope, but of something else.
    lie = aes_https.json_answer(200, aes_cbc.seal_envelope(server.key, b'{"echo":{"message":"garbage"}}'))
    with pytest.raises(Refused, match="echo"):
        party.receive(lie)


def test_client_notices_a_server_error_value() -> None:
    party = Party(RSA_SOCKET, "phone-to-pi", "client")
    party.next_message()
    with pytest.raises(Refused, match="error value"):
        party.receive(b"Server: ERROR")


# ---- whatever a peer sends, a party refuses or accepts: it never crashes --------------------------


def _mutations(msg: bytes, rng: "random.Random") -> list[bytes]:
    out = [b"", msg[:-1], msg + b"x", msg[: len(msg) // 2], bytes(rng.randrange(256) for _ in range(len(msg)))]
    for _ in range(30):
        i = rng.randrange(len(msg)) if msg else 0
        out.append(msg[:i] + bytes([rng.randrange(256)]) + msg[i + 1:])
    out += [b'{"data": "\\ud800"}', b'{"n": 1' + b"0" * 400 + b', "e": 3}', b"[]", b"null", b"\xff\xfe"]
    return out


@pytest.mark.parametrize("name", ["gcm-tag-field", "chacha-line", "ctr-digest", "ecb-json-ne", "cbc-der"])
def test_mutated_messages_are_refused_or_accepted_never_crash(name: str, key1024: rsa.RSAPrivateKey,
                                                             other1024: rsa.RSAPrivateKey) -> None:
    import random

    from test_described import PSK, SMALL
    desc = loads(SMALL[name])
    options = PSK if name == "chacha-line" else {}
    client = {**options, "private_keys": {"client": key1024}}  # made once: the test runs many conversations
    server = {**options, "private_keys": {"server": other1024}}
    _, _, log = converse(desc, desc.conversations[0].name, client=client, server=server)
    rng = random.Random(31)
    for index, (who, msg) in enumerate(log):
        for mutated in _mutations(msg, rng):
            def tamper(w: str, i: int, m: Any, index: int = index, mutated: bytes = mutated) -> Any:
                return mutated if i == index else m
            try:
                converse(desc, desc.conversations[0].name, client=client, server=server, tamper=tamper)
            except Refused:
                pass


def test_mutated_http_requests_never_crash() -> None:
    party = Party(AES_HTTPS, None, "server")
    for body in (b"", b"{}", b'{"username": 1, "password": []}', b'{"username": "\\ud800", "password": "x"}',
                 b"\xff", b'{"username": "user", "password": "password", "x": 1e999}'):
        party = Party(AES_HTTPS, None, "server")
        with pytest.raises(Refused):
            party.receive({"method": "POST", "path": "/login", "headers": {}, "body": body})
        assert party.refusal_message()["status"] in (400, 401)
    party = Party(AES_HTTPS, None, "server")
    with pytest.raises(Refused):
        party.receive({"method": "GET", "path": "/nowhere"})
    assert party.refusal_message()["status"] == 400  # error_status, for every refusal but 401
