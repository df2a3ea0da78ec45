"""The session ops through `handlers.handle`, exactly as the Swift side calls them: machines relayed
by the caller (the in-process transport), the aes-https server and client steps, the registry."""

from __future__ import annotations

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from pythonref import handlers, rsa_keys, sessions
from pythonref import rsa_socket as rs

from op_calls import err, ok

PLAINTEXT = b"in-process plaintext"
USERS = {"alice": "pw"}
KEY_B64 = base64.b64encode(bytes(range(16))).decode()


@pytest.fixture(scope="module")
def server_pem(key1024: rsa.RSAPrivateKey) -> bytes:
    return rsa_keys.export_private(key1024, "pkcs8-pem")


@pytest.fixture(scope="module")
def client_pem(other1024: rsa.RSAPrivateKey) -> bytes:
    return rsa_keys.export_private(other1024, "pkcs8-pem")


def relay(client_id: int, client_actions: list[dict], server_id: int, server_actions: list[dict]) -> tuple[list, list]:
    """The in-process transport: deliver each side's sends to the other; idle both when quiet."""
    log: dict[int, list[dict]] = {client_id: list(client_actions), server_id: list(server_actions)}
    pending: dict[int, list[bytes]] = {server_id: [a["send"] for a in client_actions if "send" in a],
                                       client_id: [a["send"] for a in server_actions if "send" in a]}
    closed = {client_id: False, server_id: False}
    for _ in range(100):
        progressed = False
        for me, peer in ((client_id, server_id), (server_id, client_id)):
            while pending[me] and not closed[me]:
                step = ok("session.receive", {"session": me, "data": pending[me].pop(0)})
                log[me] += step["actions"]
                closed[me] = step["closed"]
                pending[peer] += [a["send"] for a in step["actions"] if "send" in a]
                progressed = True
        if not progressed:
            for me, peer in ((client_id, server_id), (server_id, client_id)):
                if not closed[me]:
                    step = ok("session.idle", {"session": me})
                    log[me] += step["actions"]
                    closed[me] = step["closed"]
                    pending[peer] += [a["send"] for a in step["actions"] if "send" in a]
                    progressed = progressed or bool(step["actions"])
            if not progressed:
                return log[client_id], log[server_id]
    raise AssertionError("did not settle")


def events(actions: list[dict]) -> list[dict]:
    return [a for a in actions if "event" in a]


@pytest.mark.parametrize("framing", rs.FRAMINGS)
@pytest.mark.parametrize("padding", rs.PADDINGS)
def test_phone_to_pi_through_sessions(server_pem: bytes, padding: str, framing: str) -> None:
    server = ok("session.open", {"role": "rsa-socket.server", "config": {
        "padding": padding, "framing": framing, "private_key": server_pem, "digest": True}})
    assert server["actions"] == []
    client = ok("session.open", {"role": "rsa-socket.client", "config": {
        "direction": "phone-to-pi", "padding": padding, "framing": framing, "plaintext": PLAINTEXT, "digest": True}})
    assert client["actions"] == [{"send": rs.frame(b"Client: OK", framing)}]
    c_log, s_log = relay(client["session"], client["actions"], server["session"], server["actions"])
    assert events(s_log) == [{"event": "decrypted", "plaintext": PLAINTEXT}, {"event": "quit"}]
    assert events(c_log) == [{"event": "server-ok", "digest": hashlib.sha256(PLAINTEXT).hexdigest(), "verified": True},
                             {"event": "server-stopped"}]
    assert c_log[-1] == {"close": True} and s_log[-1] == {"close": True}
    for sid in (client["session"], server["session"]):
        assert ok("session.close", {"session": sid}) is None


@pytest.mark.parametrize("framing", rs.FRAMINGS)
def test_pi_to_phone_through_sessions(server_pem: bytes, client_pem: bytes, framing: str) -> None:
    server = ok("session.open", {"role": "rsa-socket.server", "config": {
        "padding": "oaep-sha1", "framing": framing, "private_key": server_pem, "message": b"custom",
        "max_message": 4096, "quirk": None}})
    client = ok("session.open", {"role": "rsa-socket.client", "config": {
        "direction": "pi-to-phone", "padding": "oaep-sha1", "framing": framing, "private_key": client_pem,
        "key_format": "pkcs1-pem"}})
    c_log, s_log = relay(client["session"], client["actions"], server["session"], server["actions"])
    assert events(c_log) == [{"event": "decrypted", "plaintext": b"custom"}, {"event": "server-stopped"}]
    assert [e["event"] for e in events(s_log)] == ["sent-ciphertext", "quit"]


def test_receive_and_idle_report_closed(server_pem: bytes) -> None:
    sid = ok("session.open", {"role": "rsa-socket.server", "config": {
        "padding": "pkcs1", "framing": "legacy", "private_key": server_pem}})["session"]
    assert ok("session.receive", {"session": sid, "data": b"Client: O"}) == {"actions": [], "closed": False}
    step = ok("session.idle", {"session": sid})
    assert step["closed"] is True
    assert step["actions"] == [{"event": "error", "reason": step["actions"][0]["reason"]},
                               {"send": b"Server: ERROR"}, {"close": True}]
    assert ok("session.receive", {"session": sid, "data": b"Quit"}) == {"actions": [], "closed": True}
    ok("session.close", {"session": sid})


def test_session_errors(server_pem: bytes) -> None:
    assert err("session.open", {"role": "rsa-socket.relay", "config": {}}) == "Unsupported"
    assert err("session.open", {"role": "rsa-socket.server"}) == "BadInput"
    assert err("session.open", {"role": "rsa-socket.server", "config": {"padding": "pkcs1", "framing": "legacy"}}) == "BadInput"
    assert err("session.open", {"role": "rsa-socket.server", "config": {
        "padding": "pkcs1", "framing": "legacy", "private_key": server_pem, "colour": "red"}}) == "BadInput"
    assert err("session.open", {"role": "rsa-socket.server", "config": {
        "padding": "pkcs1", "framing": "legacy", "private_key": b"junk"}}) == "BadKey"
    assert err("session.open", {"role": "rsa-socket.server", "config": {
        "padding": "oaep", "framing": "legacy", "private_key": server_pem}}) == "Unsupported"
    assert err("session.open", {"role": "rsa-socket.client", "config": {
        "direction": "pi-to-phone", "padding": "pkcs1", "framing": "legacy"}}) == "BadInput"
    assert err("session.open", {"role": "aes-https.server", "config": {
        "users": USERS, "key_mode": "utf8-zeropad16", "encryption_key": "x" * 16}}) == "KeyDerivation"
    assert err("session.open", {"role": "aes-https.server", "config": {"users": {"a": 1}}}) == "BadInput"
    for op in ("session.receive", "session.idle", "session.close", "session.request"):
        assert err(op, {"session": 10**9, "data": b"", "request": {}}) == "BadInput"
        assert err(op, {"session": "1", "data": b"", "request": {}}) == "BadInput"
        assert err(op, {"session": True, "data": b"", "request": {}}) == "BadInput"
    assert err("session.receive", {"session": 1, "bogus": 1}) == "BadInput"
    rsa_sid = ok("session.open", {"role": "rsa-socket.server", "config": {
        "padding": "pkcs1", "framing": "legacy", "private_key": server_pem}})["session"]
    aes_sid = ok("session.open", {"role": "aes-https.server", "config": {"users": USERS}})["session"]
    assert err("session.request", {"session": rsa_sid, "request": {"method": "POST", "path": "/login"}}) == "BadInput"
    assert err("session.receive", {"session": aes_sid, "data": b"x"}) == "BadInput"
    assert err("session.receive", {"session": rsa_sid, "data": "text"}) == "BadInput"
    assert err("session.request", {"session": aes_sid, "request": {"method": "POST", "path": "/", "body": "s"}}) == "BadInput"
    ok("session.close", {"session": rsa_sid})
    assert err("session.close", {"session": rsa_sid}) == "BadInput"  # already closed
    ok("session.close", {"session": aes_sid})


def test_registry_is_bounded_and_evicts_the_oldest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sessions.REGISTRY, "limit", 3)
    ids = [ok("session.open", {"role": "aes-https.server", "config": {"users": USERS}})["session"] for _ in range(5)]
    assert len(set(ids)) == 5 and ids == sorted(ids)
    assert len(sessions.REGISTRY) <= 3
    assert err("session.close", {"session": ids[0]}) == "BadInput"
    assert err("session.close", {"session": ids[1]}) == "BadInput"
    for sid in ids[2:]:
        ok("session.close", {"session": sid})


def test_default_registry_limit() -> None:
    assert sessions.MAX_SESSIONS == 10_000 and sessions.REGISTRY.limit == 10_000


@pytest.mark.parametrize("key_mode, encryption_key", [("base64-raw", KEY_B64), ("utf8-zeropad16", "pw-key")])
def test_aes_https_server_and_client_ops(key_mode: str, encryption_key: str) -> None:
    sid = ok("session.open", {"role": "aes-https.server", "config": {
        "users": USERS, "key_mode": key_mode, "encryption_key": encryption_key}})["session"]
    req = ok("aes-https.client.login_request", {"username": "alice", "password": "pw"})
    assert req == {"method": "POST", "path": "/login", "headers": {"content-type": "application/json"},
                   "body": b'{"username":"alice","password":"pw"}'}
    resp = ok("session.request", {"session": sid, "request": req})
    assert resp["status"] == 200
    login = ok("aes-https.client.parse_login", {"response": resp, "key_mode": key_mode})
    assert set(login) == {"token", "encryption_key", "key"} and login["encryption_key"] == encryption_key
    params = {"n": 1, "s": "two", "l": [None, True], "d": {"k": "v"}}
    sreq = ok("aes-https.client.secure_request", {"token": login["token"], "key": login["key"], "params": params})
    sresp = ok("session.request", {"session": sid, "request": sreq})
    assert sresp["status"] == 200 and sresp["headers"] == {"content-type": "application/json"}
    assert ok("aes-https.client.parse_secure", {"response": sresp, "key": login["key"]}) == {"echo": params}

    fixed = ok("aes-https.client.secure_request", {"token": "t", "key": login["key"], "params": {}, "iv": bytes(16)})
    again = ok("aes-https.client.secure_request", {"token": "t", "key": login["key"], "params": {}, "iv": bytes(16)})
    assert fixed == again

    bad = dict(sreq, body=b'{"data":"AAAA","iv":"AAAA"}')
    assert ok("session.request", {"session": sid, "request": bad})["status"] == 400
    wrong = ok("session.request", {"session": sid, "request": ok("aes-https.client.login_request", {
        "username": "alice", "password": "nope"})})
    assert wrong["status"] == 401
    assert err("aes-https.client.parse_login", {"response": wrong, "key_mode": key_mode}) == "BadInput"
    assert err("aes-https.client.parse_secure", {"response": {"status": 200, "headers": {}, "body": b"{}"},
                                                 "key": login["key"]}) == "BadEnvelope"
    assert err("aes-https.client.secure_request", {"token": "t", "key": b"short", "params": {}}) == "BadKey"
    assert err("aes-https.client.secure_request", {"token": "t", "key": login["key"], "params": {"b": b"x"}}) == "BadInput"
    ok("session.close", {"session": sid})


def test_session_and_client_ops_are_registered_like_every_other_op() -> None:
    """The names and arguments the Swift side calls (Sources/Conformance/Sessions)."""
    table = handlers.op_table()
    assert {name: table[name] for name in table if name.startswith(("session.", "aes-https.client."))} == {
        "session.open": ["role", "config"],
        "session.receive": ["session", "data"],
        "session.idle": ["session"],
        "session.request": ["session", "request"],
        "session.close": ["session"],
        "aes-https.client.login_request": ["username", "password", "encoding"],  # encoding: optional, "json" or "form"
        "aes-https.client.parse_login": ["response", "key_mode"],
        "aes-https.client.secure_request": ["token", "key", "params", "iv"],
        "aes-https.client.parse_secure": ["response", "key"],
    }
