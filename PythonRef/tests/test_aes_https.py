"""The aes-https server logic and client steps, without I/O (docs/PROTOCOL.md, "aes-https as
implemented")."""

from __future__ import annotations

import base64
import json
import re

import pytest

from pythonref import aes_cbc, aes_https
from pythonref.errors import CryptoFailure, ErrorKind

USERS = {"alice": "correct horse", "bob": "battery staple"}
KEY32_B64 = base64.b64encode(bytes(range(32))).decode()
BAD_REQUEST = b'{"error":"bad request"}'
UNAUTHORIZED = b'{"error":"unauthorized"}'


def make(key_mode: str = "base64-raw", encryption_key: str | None = KEY32_B64) -> aes_https.AesHttpsServer:
    return aes_https.AesHttpsServer(aes_https.AesHttpsConfig(USERS, key_mode, encryption_key))


def post(path: str, body: bytes, headers: dict[str, str] | None = None) -> dict[str, object]:
    return {"method": "POST", "path": path, "headers": headers or {}, "body": body}


def login(server: aes_https.AesHttpsServer, user: str = "alice", key_mode: str = "base64-raw") -> aes_https.Login:
    resp = server.handle(aes_https.login_request(user, USERS[user]))
    return aes_https.parse_login(resp, key_mode)


def envelope(key: bytes, plaintext: bytes, iv: bytes = bytes(16)) -> bytes:
    return aes_cbc.seal_envelope(key, plaintext, iv)


# ---- login ---------------------------------------------------------------------------------------


def test_login_issues_a_random_hex_token_and_the_configured_key() -> None:
    server = make()
    resp = server.handle(aes_https.login_request("alice", "correct horse"))
    assert resp["status"] == 200
    assert resp["headers"] == {"content-type": "application/json"}
    doc = json.loads(resp["body"])
    assert set(doc) == {"token", "encryptionKey"}
    assert re.fullmatch(r"[0-9a-f]{32}", doc["token"])
    assert doc["encryptionKey"] == KEY32_B64
    assert resp["body"] == json.dumps(doc, separators=(",", ":")).encode()  # compact JSON
    other = json.loads(server.handle(aes_https.login_request("alice", "correct horse"))["body"])["token"]
    assert other != doc["token"]


@pytest.mark.parametrize("user, password", [("alice", "wrong"), ("alice", ""), ("carol", "correct horse"),
                                            ("", ""), ("alice", "correct horse "), ("Alice", "correct horse")])
def test_wrong_credentials_are_401(user: str, password: str) -> None:
    resp = make().handle(aes_https.login_request(user, password))
    assert (resp["status"], resp["body"]) == (401, UNAUTHORIZED)
    assert resp["headers"]["content-type"] == "application/json"


@pytest.mark.parametrize("body", [b"", b"not json", b"[]", b'"alice"', b"{}", b'{"username":"alice"}',
                                  b'{"username":"alice","password":1}', b'{"username":null,"password":"x"}',
                                  b"\xff\xfe", b"[" * 100_000, b'{"username":"alice","password":NaN}'])
def test_login_body_that_is_not_the_json_is_400(body: bytes) -> None:
    resp = make().handle(post("/login", body))
    assert (resp["status"], resp["body"]) == (400, BAD_REQUEST)


def test_login_ignores_extra_fields() -> None:
    body = json.dumps({"username": "bob", "password": "battery staple", "remember": True}).encode()
    assert make().handle(post("/login", body))["status"] == 200


# ---- secure-data ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key_mode, encryption_key", [("base64-raw", KEY32_B64),
                                                      ("base64-raw", base64.b64encode(b"k" * 16).decode()),
                                                      ("base64-raw", base64.b64encode(b"k" * 24).decode()),
                                                      ("utf8-zeropad16", "secret"),
                                                      ("utf8-zeropad16", "fifteen-bytes!!")])
def test_secure_data_echoes_params_under_a_fresh_iv(key_mode: str, encryption_key: str) -> None:
    server = make(key_mode, encryption_key)
    session = login(server, key_mode=key_mode)
    assert session.key == aes_cbc.derive_key(key_mode, encryption_key)
    params = {"text": "héllo", "n": 3, "list": [1, None, True], "nested": {"a": "b"}}
    req = aes_https.secure_request(session.token, session.key, params)
    assert req["headers"]["authorization"] == session.token  # the bare token
    resp = server.handle(req)
    assert resp["status"] == 200 and resp["headers"] == {"content-type": "application/json"}
    doc = json.loads(resp["body"])
    assert list(doc) == ["data", "iv"]  # compact, data first
    assert aes_https.parse_secure(resp, session.key) == {"echo": params}
    ivs = {json.loads(server.handle(req)["body"])["iv"] for _ in range(5)}
    assert len(ivs) == 5 and base64.b64decode(doc["iv"]) != bytes(16)


def test_every_issued_token_works_and_header_names_are_case_insensitive() -> None:
    server = make()
    a, b = login(server, "alice"), login(server, "bob")
    for s in (a, b):
        req = aes_https.secure_request(s.token, s.key, {"x": 1})
        req["headers"] = {"Authorization": s.token}
        assert server.handle(req)["status"] == 200


@pytest.mark.parametrize("headers", [{}, {"authorization": ""}, {"authorization": "0" * 32},
                                     {"authorization": "Bearer TOKEN"}, {"x-token": "TOKEN"}])
def test_missing_or_unknown_token_is_401(headers: dict[str, str]) -> None:
    server = make()
    session = login(server)
    headers = {k: v.replace("TOKEN", session.token) for k, v in headers.items()}
    resp = server.handle(post("/secure-data", envelope(session.key, b'{"a":1}'), headers))
    assert (resp["status"], resp["body"]) == (401, UNAUTHORIZED)


def test_a_token_from_another_server_is_401() -> None:
    session = login(make())
    resp = make().handle(aes_https.secure_request(session.token, session.key, {}))
    assert resp["status"] == 401


def _bad_envelopes(key: bytes) -> dict[str, bytes]:
    good = json.loads(envelope(key, b'{"a":1}'))
    ct = base64.b64decode(good["data"])
    iv = base64.b64decode(good["iv"])
    two_blocks = aes_cbc.cbc_encrypt(key, iv, b'{"a":"0123456789abcdef"}')
    flipped = bytearray(two_blocks)
    flipped[-17] ^= 0x01  # last byte of the second-to-last block: breaks the padding

    def env(data: object, iv_: object = good["iv"]) -> bytes:
        return json.dumps({"data": data, "iv": iv_}).encode()

    b64 = lambda b: base64.b64encode(b).decode()  # noqa: E731
    return {
        "empty": b"",
        "not-json": b"data=abc",
        "not-utf8": b"\xff" * 10,
        "json-array": b"[]",
        "json-string": b'"x"',
        "no-data": json.dumps({"iv": good["iv"]}).encode(),
        "no-iv": json.dumps({"data": good["data"]}).encode(),
        "data-number": env(5),
        "iv-null": env(good["data"], None),
        "data-not-base64": env("!!!!"),
        "data-unpadded-base64": env(good["data"].rstrip("=") + "A" if good["data"].endswith("=") else good["data"][:-1]),
        "data-urlsafe-base64": env(good["data"].replace("+", "-").replace("/", "_") + "-_"),
        "data-with-newline": env(good["data"][:8] + "\n" + good["data"][8:]),
        "iv-15-bytes": env(good["data"], b64(iv[:15])),
        "iv-17-bytes": env(good["data"], b64(iv + b"\x00")),
        "ct-empty": env(""),
        "ct-not-block-multiple": env(b64(ct[:-1])),
        "bad-padding": env(b64(bytes(flipped)), b64(iv)),
        "good-padding-garbage-json": env(b64(aes_cbc.cbc_encrypt(key, iv, b"\x00garbage{")), b64(iv)),
        "plaintext-json-array": env(b64(aes_cbc.cbc_encrypt(key, iv, b"[1,2]")), b64(iv)),
        "plaintext-json-nan": env(b64(aes_cbc.cbc_encrypt(key, iv, b'{"a":NaN}')), b64(iv)),
        "plaintext-not-utf8": env(b64(aes_cbc.cbc_encrypt(key, iv, b'{"a":"\xff"}')), b64(iv)),
        "wrong-key": envelope(bytes(32), b'{"a":1}'),
    }


def test_every_bad_envelope_gets_the_same_400_bytes() -> None:
    server = make()
    session = login(server)
    answers = set()
    for name, body in _bad_envelopes(session.key).items():
        resp = server.handle(post("/secure-data", body, {"authorization": session.token}))
        answers.add((resp["status"], tuple(sorted(resp["headers"].items())), resp["body"]))
        assert resp["status"] == 400, name
    assert answers == {(400, (("content-type", "application/json"),), BAD_REQUEST)}


def test_envelope_with_extra_fields_is_accepted() -> None:
    server = make()
    session = login(server)
    doc = json.loads(envelope(session.key, b'{"a":1}'))
    doc["mac"] = "ignored"
    resp = server.handle(post("/secure-data", json.dumps(doc).encode(), {"authorization": session.token}))
    assert aes_https.parse_secure(resp, session.key) == {"echo": {"a": 1}}


# ---- routing and limits --------------------------------------------------------------------------


@pytest.mark.parametrize("method, path, status, body", [
    ("POST", "/", 404, b'{"error":"not found"}'),
    ("POST", "/login/", 404, b'{"error":"not found"}'),
    ("POST", "/LOGIN", 404, b'{"error":"not found"}'),
    ("GET", "/nothing", 404, b'{"error":"not found"}'),
    ("GET", "/login", 405, b'{"error":"method not allowed"}'),
    ("PUT", "/secure-data", 405, b'{"error":"method not allowed"}'),
    ("post", "/login", 405, b'{"error":"method not allowed"}'),
])
def test_other_paths_404_other_methods_405(method: str, path: str, status: int, body: bytes) -> None:
    resp = make().handle({"method": method, "path": path, "headers": {}, "body": b""})
    assert (resp["status"], resp["body"]) == (status, body)
    assert resp["headers"]["content-type"] == "application/json"


def test_bodies_over_one_mib_are_413() -> None:
    server = make()
    session = login(server)
    big = b" " * (aes_https.MAX_BODY + 1)
    for req in (post("/login", big), post("/secure-data", big, {"authorization": session.token})):
        resp = server.handle(req)
        assert (resp["status"], resp["body"]) == (413, b'{"error":"too large"}')
    assert aes_https.preflight("POST", "/login", 10_000_000) == aes_https.refusal(413)
    assert aes_https.preflight("POST", "/login", aes_https.MAX_BODY) is None


def test_issued_tokens_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aes_https, "MAX_TOKENS", 3)
    server = make()
    sessions = [login(server) for _ in range(4)]
    statuses = [server.handle(aes_https.secure_request(s.token, s.key, {}))["status"] for s in sessions]
    assert statuses == [401, 200, 200, 200]  # the oldest was forgotten


def test_malformed_request_dicts_are_bad_input() -> None:
    server = make()
    for req in ({"method": "POST", "path": "/login", "headers": {}, "body": "text"},
                {"method": "POST", "path": "/login", "headers": [], "body": b""},
                {"method": "POST", "path": 1, "headers": {}, "body": b""},
                {"method": "POST", "path": "/login", "headers": {}, "body": b"", "extra": 1}):
        with pytest.raises(CryptoFailure) as info:
            server.handle(req)
        assert info.value.kind == ErrorKind.BAD_INPUT


@pytest.mark.parametrize("key_mode, encryption_key, kind", [
    ("utf8-zeropad16", "sixteen-bytes!!!", ErrorKind.KEY_DERIVATION),
    ("utf8-zeropad16", "", ErrorKind.KEY_DERIVATION),
    ("utf8-zeropad16", None, None),  # None: a fresh one
    ("base64-raw", base64.b64encode(b"k" * 20).decode(), ErrorKind.KEY_DERIVATION),
    ("base64-raw", "not base64", ErrorKind.KEY_DERIVATION),
    ("rot13", "x", ErrorKind.UNSUPPORTED),
])
def test_server_configuration_is_checked(key_mode: str, encryption_key: str | None, kind: ErrorKind | None) -> None:
    if kind is None:
        server = make(key_mode, encryption_key)
        assert 1 <= len(server.encryption_key.encode()) <= 15
        return
    with pytest.raises(CryptoFailure) as info:
        make(key_mode, encryption_key)
    assert info.value.kind == kind


def test_fresh_keys_per_mode() -> None:
    assert len(make("base64-raw", None).key) == 32
    assert len(make("utf8-zeropad16", None).key) == 16


# ---- the client steps ----------------------------------------------------------------------------


def test_login_request_shape() -> None:
    req = aes_https.login_request("alice", "pw")
    assert req == {"method": "POST", "path": "/login", "headers": {"content-type": "application/json"},
                   "body": b'{"username":"alice","password":"pw"}'}


def test_secure_request_is_deterministic_with_a_given_iv() -> None:
    key = bytes(range(16))
    req = aes_https.secure_request("tok", key, {"b": 1, "a": [True]}, iv=bytes(16))
    assert req["body"] == aes_cbc.seal_envelope(key, b'{"b":1,"a":[true]}', bytes(16))
    assert req["headers"] == {"authorization": "tok", "content-type": "application/json"}


@pytest.mark.parametrize("response, kind", [
    ({"status": 401, "headers": {}, "body": UNAUTHORIZED}, ErrorKind.BAD_INPUT),
    ({"status": 200, "headers": {}, "body": b"nope"}, ErrorKind.BAD_INPUT),
    ({"status": 200, "headers": {}, "body": b'{"token":"t"}'}, ErrorKind.BAD_INPUT),
    ({"status": 200, "headers": {}, "body": b'{"token":"","encryptionKey":"abc"}'}, ErrorKind.BAD_INPUT),
    ({"status": 200, "headers": {}, "body": b'{"token":"t","encryptionKey":"sixteen-bytes!!!"}'},
     ErrorKind.KEY_DERIVATION),
    ({"status": "200", "headers": {}, "body": b"{}"}, ErrorKind.BAD_INPUT),
])
def test_parse_login_failures(response: dict[str, object], kind: ErrorKind) -> None:
    with pytest.raises(CryptoFailure) as info:
        aes_https.parse_login(response, "utf8-zeropad16")
    assert info.value.kind == kind


def test_parse_secure_failures_keep_their_kinds() -> None:
    key = bytes(16)
    cases = [
        ({"status": 400, "headers": {}, "body": BAD_REQUEST}, ErrorKind.BAD_INPUT),
        ({"status": 200, "headers": {}, "body": b"{}"}, ErrorKind.BAD_ENVELOPE),
        ({"status": 200, "headers": {}, "body": envelope(key, b"[1]")}, ErrorKind.BAD_ENVELOPE),
        ({"status": 200, "headers": {}, "body": envelope(key, b"not json")}, ErrorKind.BAD_ENVELOPE),
        ({"status": 200, "headers": {}, "body": envelope(bytes(range(16)), b"{}")}, None),  # wrong key: padding
    ]
    for response, kind in cases:
        with pytest.raises(CryptoFailure) as info:
            aes_https.parse_secure(response, key)
        if kind is not None:
            assert info.value.kind == kind
        else:
            assert info.value.kind in (ErrorKind.BAD_PADDING, ErrorKind.BAD_ENVELOPE)


def test_secure_request_refuses_params_that_are_not_json() -> None:
    for params in ({"b": b"bytes"}, {"x": float("nan")}, ["list"]):
        with pytest.raises(CryptoFailure) as info:
            aes_https.secure_request("t", bytes(16), params)  # type: ignore[arg-type]
        assert info.value.kind == ErrorKind.BAD_INPUT


# ---- what the seed app sends (seed 001, AFNetworking) --------------------------------------------
#
# AFHTTPSessionManager's default AFHTTPRequestSerializer sends the login parameters as a form,
# sorted by name and escaped by AFPercentEscapedStringFromString (AFNetworking's
# AFURLRequestSerialization.m): ASCII letters, digits and -._~/? stay, every other UTF-8 byte is %HH.
# The bodies below are written out by hand from those rules, not made with the code under test.

SEED_USERS = {"testuser": "testpassword", "ana maría": "p@ss w+rd/?&=ü", "x": ""}


@pytest.mark.parametrize("body, user", [
    (b"password=testpassword&username=testuser", "testuser"),  # seed 001's own example account
    (b"password=p%40ss%20w%2Brd/?%26%3D%C3%BC&username=ana%20mar%C3%ADa", "ana maría"),
    (b"password=p%40ss+w%2Brd/?%26%3D%c3%bc&username=ana+mar%c3%ada", "ana maría"),  # + as space, lower-case hex
    (b"username=testuser&password=testpassword", "testuser"),  # any order
    (b"&username=testuser&&password=testpassword&", "testuser"),  # empty pairs skipped
    (b"username=nobody&password=testpassword&username=testuser", "testuser"),  # the last one counts
    (b"password=testpassword&username=testuser&remember=1&flag", "testuser"),  # other fields ignored
    (b"password&username=x", "x"),  # no "=": an empty value
    (b"password=&username=x", "x"),
    (b"%70assword=testpassword&%75sername=testuser", "testuser"),  # escaped names
])
def test_a_form_encoded_login_is_accepted(body: bytes, user: str) -> None:
    server = aes_https.AesHttpsServer(aes_https.AesHttpsConfig(SEED_USERS, "utf8-zeropad16"))
    for content_type in ("application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=utf-8",
                         None, "text/plain"):  # the body decides, not the Content-Type
        resp = server.handle(post("/login", body, {"content-type": content_type} if content_type else {}))
        assert resp["status"] == 200, (body, content_type, resp)
        assert resp["headers"] == {"content-type": "application/json"}
        assert set(json.loads(resp["body"])) == {"token", "encryptionKey"}


@pytest.mark.parametrize("body, status", [
    (b"password=wrong&username=testuser", 401),
    (b"password=testpassword&username=TestUser", 401),
    (b"password=testpassword%20&username=testuser", 401),
    (b"password=testpassword", 400),  # no username
    (b"username=testuser", 400),
    (b"", 400),
    (b"testuser:testpassword", 400),
    (b"password=test%GGpassword&username=testuser", 400),  # a broken escape
    (b"password=testpassword%&username=testuser", 400),
    (b"password=testpassword%4&username=testuser", 400),
    (b"password=%FF&username=testuser", 400),  # not UTF-8
    (b"password=%ED%A0%80&username=testuser", 400),  # an encoded surrogate is not UTF-8 either
    (b"password=%C0%AF&username=testuser", 400),  # nor an overlong form
    (b'["testuser","testpassword"]', 400),
    (b'  {"username":"testuser","password":"testpassword"', 400),  # starts like JSON: read as JSON
])
def test_a_form_login_that_is_wrong_or_malformed_is_refused(body: bytes, status: int) -> None:
    server = aes_https.AesHttpsServer(aes_https.AesHttpsConfig(SEED_USERS, "utf8-zeropad16"))
    resp = server.handle(post("/login", body, {"content-type": "application/x-www-form-urlencoded"}))
    assert (resp["status"], resp["body"]) == (status, BAD_REQUEST if status == 400 else UNAUTHORIZED)
    assert resp["headers"] == {"content-type": "application/json"}


def test_json_login_is_read_as_json_whatever_its_content_type() -> None:
    server = make()
    body = b' \r\n\t{"username":"alice","password":"correct horse"}'
    for headers in ({"content-type": "application/json"}, {"content-type": "application/x-www-form-urlencoded"}, {}):
        assert server.handle(post("/login", body, headers))["status"] == 200


def test_af_percent_escape_matches_afnetworking() -> None:
    assert aes_https.af_percent_escape("testpassword") == "testpassword"
    assert aes_https.af_percent_escape("a-b._~/?c") == "a-b._~/?c"  # kept, as AFNetworking keeps them
    assert aes_https.af_percent_escape(":#[]@!$&'()*+,;= %\"<>\\^`{|}") == (
        "%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D%20%25%22%3C%3E%5C%5E%60%7B%7C%7D")
    assert aes_https.af_percent_escape("ü😀") == "%C3%BC%F0%9F%98%80"


def test_form_login_request_is_what_the_seed_app_sends() -> None:
    req = aes_https.login_request("ana maría", "p@ss w+rd/?&=ü", encoding="form")
    assert req == {"method": "POST", "path": "/login",
                   "headers": {"content-type": "application/x-www-form-urlencoded"},
                   "body": b"password=p%40ss%20w%2Brd/?%26%3D%C3%BC&username=ana%20mar%C3%ADa"}
    server = aes_https.AesHttpsServer(aes_https.AesHttpsConfig(SEED_USERS, "utf8-zeropad16"))
    login_ = aes_https.parse_login(server.handle(req), "utf8-zeropad16")
    assert login_.token and len(login_.key) == 16
    with pytest.raises(CryptoFailure) as info:
        aes_https.login_request("u", "p", encoding="xml")
    assert info.value.kind == ErrorKind.UNSUPPORTED


def test_the_encrypted_body_needs_no_content_type() -> None:
    """Seed 001's EncryptedJSONRequestSerializer overrides AFJSONRequestSerializer's method without
    calling it, so the envelope goes out with no Content-Type; the server reads it all the same."""
    server = make("utf8-zeropad16", "secret")
    session = login(server, key_mode="utf8-zeropad16")
    req = aes_https.secure_request(session.token, session.key, {"example": "data"})
    for headers in ({"authorization": session.token},
                    {"authorization": session.token, "content-type": "application/x-www-form-urlencoded"},
                    {"authorization": session.token, "content-type": "text/plain"}):
        resp = server.handle(dict(req, headers=headers))
        assert resp["status"] == 200 and resp["headers"] == {"content-type": "application/json"}
        assert aes_https.parse_secure(resp, session.key) == {"echo": {"example": "data"}}


def _seed_get_cstring_key(encryption_key: str) -> bytes | None:
    """Seed 001's key handling, written from its code: `getCString(&keyBytes, maxLength: 17, encoding:
    .utf8)` into a 16-byte zeroed buffer. With the terminating NUL the UTF-8 bytes must fit in the 16
    bytes (Foundation clamps maxLength to the buffer), so 16 bytes or more fail (None)."""
    raw = encryption_key.encode("utf-8")
    return None if len(raw) + 1 > 16 else raw + bytes(16 - len(raw))


def test_utf8_zeropad16_servers_issue_keys_the_seed_app_can_use() -> None:
    for _ in range(200):  # fresh keys: every one fits the seed's buffer and decrypts what the server sends
        server = aes_https.AesHttpsServer(aes_https.AesHttpsConfig(SEED_USERS, "utf8-zeropad16"))
        resp = server.handle(aes_https.login_request("testuser", "testpassword", encoding="form"))
        issued = json.loads(resp["body"])["encryptionKey"]
        seed_key = _seed_get_cstring_key(issued)
        assert seed_key is not None and 1 <= len(issued.encode()) <= 15, issued
        echo = server.handle(aes_https.secure_request(json.loads(resp["body"])["token"], seed_key, {"n": 1}))
        assert aes_https.parse_secure(echo, seed_key) == {"echo": {"n": 1}}
    with pytest.raises(CryptoFailure) as info:  # and a configured key the app cannot use is refused up front
        aes_https.AesHttpsServer(aes_https.AesHttpsConfig(SEED_USERS, "utf8-zeropad16", "ünïcödé-keys"))
    assert info.value.kind == ErrorKind.KEY_DERIVATION and _seed_get_cstring_key("ünïcödé-keys") is None
    fifteen = aes_https.AesHttpsServer(aes_https.AesHttpsConfig(SEED_USERS, "utf8-zeropad16", "ünïcödé-key"))
    assert fifteen.key == _seed_get_cstring_key("ünïcödé-key") == "ünïcödé-key".encode() + b"\x00"


def test_credentials_are_compared_as_utf8_bytes() -> None:
    """As the Swift server does (AESHTTPSSeedAppTests): canonically equivalent spellings differ."""
    server = aes_https.AesHttpsServer(aes_https.AesHttpsConfig({"jos\u00e9": "caf\u00e9"}))
    assert server.handle(post("/login", b"password=caf%C3%A9&username=jos%C3%A9"))["status"] == 200
    assert server.handle(post("/login", b"password=cafe%CC%81&username=jos%C3%A9"))["status"] == 401
    assert server.handle(post("/login", b"password=caf%C3%A9&username=jose%CC%81"))["status"] == 401
