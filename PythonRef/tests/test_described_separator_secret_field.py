"""Two format features, in PythonRef's engine, from a PyCryptodome key distribution server
(`b"::".join([cipher.nonce, tag, ciphertext])`, read back by `data.split(b"::")`, whose EAX-sealed
answer is the JSON `{"key": b64encode(session_key).decode(), "idB": "server", "randomA": 123}`):
`separator` on a `sealed` value (its wire parts joined by a text, the encoding over the whole) and a
json-fields field that carries a secret (`{ secret = "S", encoding = "base64" }`). Client and
server parties converse in memory and over loopback, refuse what is wrong, and the reader refuses
misuse by key path."""

from __future__ import annotations

import base64
import json
import os
import re
import threading
import tomllib
from pathlib import Path
from typing import Any, Optional

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from pythonref import eax
from pythonref.described import DescriptionError, Party, Refused, loads
from pythonref.described import server as dserver
from pythonref.described import values as v

from test_described import _DELETE, _set, assert_refused_at, converse

PSK = bytes(range(16))
# The example both engines' tests read: the server's shape as it is (the client's message then answered
# in the clear).
HANDOUT = Path(__file__).resolve().parents[2] / "examples" / "protocols" / "eax-separated-key-handout.toml"
SEALED_EAX = 'cipher = "aes-eax", tag = "before", separator = "::", encoding = "base64"'

# The client asks for a session key; the server answers it EAX-sealed under a preshared key, its three
# parts joined by "::" and base64'd, the key base64 in a JSON field. The client then seals a text under
# the session key the same way and the server answers the same plaintext so sealed, in a JSON field.
KEY_DISTRIBUTION = f"""
name = "eax-key-distribution"
[transport]
kind = "http"
[secrets.psk]
made_by = "preshared"
bytes = 16
[secrets.session]
made_by = "server"
bytes = 32
[[conversation]]
name = "key"
[[conversation.step]]
from = "client"
request = "POST /key"
body = {{ json = {{ id = {{ text = "client" }} }} }}
[[conversation.step]]
from = "server"
body = {{ sealed = "psk", {SEALED_EAX}, carries = "json-fields", fields = {{ key = {{ secret = "session", encoding = "base64" }}, idB = "string", randomA = "integer" }} }}
[[conversation.step]]
from = "client"
request = "POST /message"
body = {{ sealed = "session", {SEALED_EAX}, carries = "any-text" }}
[[conversation.step]]
from = "server"
body = {{ json = {{ message = {{ sealed = "session", {SEALED_EAX}, carries = "same" }} }} }}
"""

# Raw bytes over tcp: AES-GCM's nonce, ciphertext and appended tag joined by "||"; a refusal of kind
# length has its own answer.
GCM_TCP = """
name = "gcm-separated"
[transport]
kind = "tcp"
framing = "length-prefix"
[secrets.psk]
made_by = "preshared"
bytes = 16
[[conversation]]
name = "gcm"
error = { text = "error" }
errors = { length = { text = "bad parts" } }
[[conversation.step]]
from = "client"
send = { sealed = "psk", cipher = "aes-gcm", separator = "||", carries = "message" }
[[conversation.step]]
from = "server"
send = { sealed = "psk", cipher = "aes-gcm", separator = "||", carries = "same" }
"""

# A server-made key carried in a json-fields field, in each encoding, under AES-GCM; the client then
# seals the conversation's message under it.
SECRET_FIELD = """
name = "secret-field"
[transport]
kind = "tcp"
framing = "line"
[secrets.psk]
made_by = "preshared"
bytes = 16
[secrets.session]
made_by = "server"
bytes = 32
[[conversation]]
name = "field"
[[conversation.step]]
from = "client"
send = { text = "hello" }
[[conversation.step]]
from = "server"
send = { sealed = "psk", cipher = "aes-gcm", carries = "json-fields", fields = { n = "integer", k = { secret = "session", encoding = "base64" }, s = "string" }, encoding = "base64" }
[[conversation.step]]
from = "client"
send = { sealed = "session", cipher = "aes-gcm", carries = "any-text", encoding = "base64" }
"""


def _in_encoding(encoding: str) -> str:
    """SECRET_FIELD with its secret field in `encoding`."""
    old = '{ secret = "session", encoding = "base64" }'
    assert SECRET_FIELD.count(old) == 1
    return SECRET_FIELD.replace(old, f'{{ secret = "session", encoding = "{encoding}" }}')


def _psk() -> dict[str, Any]:
    return {"secrets": {"psk": PSK}}


def _eax_body(plaintext: bytes, key: bytes = PSK) -> tuple[bytes, bytes, bytes]:
    """(nonce, tag, ciphertext) of `plaintext` under EAX, through eax.py (PyCryptodome's defaults), with
    no ':' in any part: a test that cuts or joins parts gets the refusal it means, never a random one."""
    while True:
        nonce = os.urandom(16)
        ct, tag = eax.seal(key, nonce, plaintext)
        if b":" not in nonce + tag + ct:
            return nonce, tag, ct


def _answer(pieces: list[bytes]) -> dict[str, Any]:
    return {"status": 200, "headers": {}, "body": base64.b64encode(b"::".join(pieces))}


def _waiting_client() -> Party:
    """A client of KEY_DISTRIBUTION that sent its request and waits for the sealed answer."""
    c = Party(loads(KEY_DISTRIBUTION), "key", "client", **_psk())
    assert c.next_message() is not None
    return c


SESSION_JSON = b'{"key":"' + base64.b64encode(bytes(32)) + b'","idB":"server","randomA":123}'


# ---- separator: what goes on the wire ------------------------------------------------------------


def test_key_distribution_converses_and_the_key_arrives() -> None:
    desc = loads(KEY_DISTRIBUTION)
    c, s, log = converse(desc, "key", client=_psk(), server=_psk())
    assert c.done and s.done and c.refusal is None and s.refusal is None
    session = s.secrets["session"]
    assert len(session) == 32 and c.secrets["session"] == session and c.received["secret:session"] == session
    assert log[0][1]["body"] == b'{"id":"client"}'
    for body, key in ((log[1][1]["body"], PSK), (log[2][1]["body"], session),
                      (json.loads(log[3][1]["body"])["message"].encode(), session)):
        nonce, tag, ct = base64.b64decode(body, validate=True).split(b"::")  # exactly three parts
        assert len(nonce) == 16 and len(tag) == 16
        opened = eax.open_(key, nonce, ct, tag)
        if key == PSK:
            doc = json.loads(opened)
            assert list(doc) == ["key", "idB", "randomA"]  # in the order written
            assert base64.b64decode(doc["key"], validate=True) == session and doc["key"].endswith("=")
            assert type(doc["randomA"]) is int and re.fullmatch(r"crosscheck [A-Za-z0-9]{6}", doc["idB"])
        else:
            assert opened == s.received["message"]  # the client's text, and the server's same answer


def test_separated_eax_is_pycryptodomes_join() -> None:
    """The wire is base64(nonce + b"::" + tag + b"::" + ciphertext), as the server writes it."""
    desc = loads(KEY_DISTRIBUTION)
    value = desc.conversations[0].steps[2].body
    assert value is not None and value.separator == "::" and value.tag == "before"
    session = os.urandom(32)
    ctx = v.Context(desc, desc.conversations[0], "client", {}, {}, {"psk": PSK, "session": session}, {})
    wire = base64.b64decode(v.build(value, ctx), validate=True)
    nonce, tag, ct = wire.split(b"::")
    assert wire == nonce + b"::" + tag + b"::" + ct
    assert eax.open_(session, nonce, ct, tag) == ctx.last_sent and ctx.last_sent.startswith(b"crosscheck reading ")


def test_separated_gcm_over_tcp_puts_the_tag_last() -> None:
    desc = loads(GCM_TCP)
    c, s, log = converse(desc, "gcm", client={**_psk(), "message": b"hello gcm"}, server=_psk())
    assert c.done and s.done and s.received["message"] == b"hello gcm" and c.received["same"] == b"hello gcm"
    for _, wire in log:
        nonce, ct, tag = wire.split(b"||")
        assert len(nonce) == 12 and len(tag) == 16
        assert AESGCM(PSK).decrypt(nonce, ct + tag, None) == b"hello gcm"


def _thread(srv: Any) -> threading.Thread:
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("name, conversation, preshared", [("key-distribution", "key", "psk"), ("gcm-tcp", "gcm", "psk"),
                                                             ("handout", "reading", "device")])
def test_separated_values_over_loopback(name: str, conversation: str, preshared: str) -> None:
    text = {"key-distribution": KEY_DISTRIBUTION, "gcm-tcp": GCM_TCP}.get(name) or HANDOUT.read_text(encoding="utf-8")
    desc = loads(text)
    options = {"secrets": {preshared: PSK}}
    srv = dserver.make_server(desc, party_options=options, quiet_gap=0.2)
    thread = _thread(srv)
    try:
        out = dserver.run_client(desc, conversation, "127.0.0.1", srv.port, timeout=10, quiet_gap=0.2,
                                 party_options=options)
        assert out["ok"], out["reason"]
        assert [entry["from"] for entry in out["log"]] == [s.sender for s in desc.conversations[0].steps]
        if conversation != "gcm":
            assert len(out["values"]["secret:session"]) == 32
    finally:
        srv.shutdown()
        if hasattr(srv, "server_close"):
            srv.server_close()
        thread.join(timeout=5)


def test_the_example_hands_out_a_key_and_the_message_is_the_clients() -> None:
    desc = loads(HANDOUT.read_text(encoding="utf-8"))
    device = {"secrets": {"device": PSK}}
    c, s, log = converse(desc, "reading", client={**device, "message": b"temperature 21"}, server=device)
    assert c.done and s.done and c.refusal is None and s.refusal is None
    assert c.secrets["session"] == s.secrets["session"] and len(c.secrets["session"]) == 32
    nonce, tag, ct = base64.b64decode(log[1][1]["body"]).split(b"::")
    doc = json.loads(eax.open_(PSK, nonce, ct, tag))
    assert base64.b64decode(doc["key"]) == s.secrets["session"]
    nonce, tag, ct = log[2][1]["body"].split(b"::")  # raw: no encoding
    assert len(nonce) == 16 and len(tag) == 16 and eax.open_(s.secrets["session"], nonce, ct, tag) == b"temperature 21"
    # A plaintext that hands out a key is not the conversation's message: the client's own is answered.
    assert s.received["message"] == b"temperature 21" and log[3][1]["body"] == b'{"message":"temperature 21"}'
    c, s, log = converse(desc, "reading", client=device, server=device)  # no message given: a fresh one
    assert s.received["message"].startswith(b"crosscheck ") and b"key" not in s.received["message"]


def test_a_key_handed_out_is_not_the_message_a_reading_is() -> None:
    desc = loads(SECRET_FIELD)
    value = desc.conversations[0].steps[1].send
    assert value is not None
    ctx = v.Context(desc, desc.conversations[0], "server", {}, {}, {"psk": PSK, "session": bytes(32)}, {})
    out = v.carried("json-fields", ctx, fields=value.fields)
    assert ctx.message is None and ctx.last_sent == out and ctx.last_json == json.loads(out)
    client = v.Context(desc, desc.conversations[0], "client", {}, {}, {"psk": PSK}, {})
    v.accept("json-fields", out, client, fields=value.fields)
    assert client.message is None and "message" not in client.received and client.secrets["session"] == bytes(32)
    reading = v.carried("json-fields", ctx, fields=(("n", "integer"),))  # without a secret field: as before
    assert ctx.message == reading


def test_a_separator_is_reported_weak() -> None:
    weak = loads(GCM_TCP).weaknesses()
    assert ("conversation[0].step[0].send: the IV, tag and ciphertext are random bytes joined by \"||\": parts that "
            "hold it, or end so that they meet it, do not split back, so a sender that does not seal again "
            'loses correct messages (with "::", about one in 120: a part that ends with ":"); lengths known '
            "in advance cannot fail so") in weak
    assert any("joined by \"a\"" in w for w in loads(ONE_BYTE).weaknesses())
    assert not any("joined by" in w for w in loads(SECRET_FIELD).weaknesses())


# ---- separator: what the receiver refuses --------------------------------------------------------


def test_a_well_made_answer_is_taken() -> None:
    c = _waiting_client()
    c.receive(_answer(list(_eax_body(SESSION_JSON))))
    assert c.refusal is None and c.secrets["session"] == bytes(32)


@pytest.mark.parametrize("pieces, reason", [
    (lambda n, t, c: [n, t + c], 'the aes-eax value splits into 2 parts on "::"; the description has 3 (a part that '
                                 "contains the separator cannot be read)"),
    (lambda n, t, c: [n, t, c, b"more"], 'the aes-eax value splits into 4 parts on "::"; the description has 3 (a part '
                                         "that contains the separator cannot be read)"),
    (lambda n, t, c: [n + t + c], 'the aes-eax value splits into 1 parts on "::"; the description has 3 (a part '
                                  "that contains the separator cannot be read)"),
    (lambda n, t, c: [n[:15], t, c], "the aes-eax IV/nonce part is 15 bytes; must be 16"),
    (lambda n, t, c: [n + b"!", t, c], "the aes-eax IV/nonce part is 17 bytes; must be 16"),
    (lambda n, t, c: [n, t[:15], c], "the aes-eax tag part is 15 bytes; must be 16"),
    (lambda n, t, c: [n, b"", c], "the aes-eax tag part is 0 bytes; must be 16"),
])
def test_wrong_parts_are_refused_as_length(pieces: Any, reason: str) -> None:
    c = _waiting_client()
    with pytest.raises(Refused) as info:
        c.receive(_answer(pieces(*_eax_body(SESSION_JSON))))
    assert info.value.reason == reason and info.value.kind == "length"


def test_a_tampered_part_is_refused_as_authentication() -> None:
    nonce, tag, ct = _eax_body(SESSION_JSON)
    c = _waiting_client()
    with pytest.raises(Refused) as info:
        c.receive(_answer([nonce, tag, bytes([ct[0] ^ 1]) + ct[1:]]))
    assert info.value.kind == "authentication"


def test_the_encoding_is_over_the_whole_joined_value() -> None:
    nonce, tag, ct = _eax_body(SESSION_JSON)
    c = _waiting_client()
    with pytest.raises(Refused, match="not valid base64"):  # each part base64'd, then joined: not the description's
        c.receive({"status": 200, "headers": {}, "body": b"::".join(base64.b64encode(p) for p in (nonce, tag, ct))})


def test_tcp_server_answers_a_wrong_part_count_with_its_length_error() -> None:
    desc = loads(GCM_TCP)
    nonce, sealed = b"|", b""
    while b"|" in nonce + sealed:  # no '|' in a part: each wire below is refused for what it means to be
        nonce = os.urandom(12)
        sealed = AESGCM(PSK).encrypt(nonce, b"hi", None)
    for wire, kind, answer in ((nonce + b"||" + sealed, "length", b"bad parts"),  # the tag not separated: 2 parts
                               (nonce[:11] + b"||" + sealed[:-16] + b"||" + sealed[-16:], "length", b"bad parts"),
                               (nonce + b"||" + sealed[:-16] + b"||" + bytes(16), "authentication", b"error")):
        s = Party(desc, None, "server", **_psk())
        with pytest.raises(Refused):
            s.receive(wire)
        assert s.refusal is not None and s.refusal.kind == kind and s.refusal_message() == answer
    s = Party(desc, None, "server", **_psk())
    s.receive(nonce + b"||" + sealed[:-16] + b"||" + sealed[-16:])
    assert s.refusal is None and s.received["message"] == b"hi"


# ---- separator: the sender seals again until its parts split back -------------------------------


ONE_BYTE = f"""
name = "one-byte-separator"
[transport]
kind = "tcp"
framing = "length-prefix"
[secrets.psk]
made_by = "preshared"
bytes = 16
[[conversation]]
name = "a"
[[conversation.step]]
from = "client"
send = {{ sealed = "psk", cipher = "aes-eax", tag = "before", separator = "a", carries = "message" }}
[[conversation.step]]
from = "server"
send = {{ text = "ok" }}
"""


def _client_context(text: str, secrets: Optional[dict[str, bytes]] = None, message: bytes = b"") -> v.Context:
    desc = loads(text)
    return v.Context(desc, desc.conversations[0], "client", {}, {}, dict(secrets or {"psk": PSK}), {},
                     message=message or os.urandom(64))


def test_a_one_byte_separator_always_splits_into_the_layouts_parts() -> None:
    """Over 16 + 16 + 64 random bytes one byte value turns up about a third of the time; every value
    sent still splits into exactly nonce, tag and ciphertext, and opens."""
    value = loads(ONE_BYTE).conversations[0].steps[0].send
    assert value is not None
    for _ in range(300):
        ctx = _client_context(ONE_BYTE)
        wire = v.build(value, ctx)
        parts = wire.split(b"a")
        assert len(parts) == 3 and [len(p) for p in parts] == [16, 16, 64]
        assert eax.open_(PSK, parts[0], parts[2], parts[1]) == ctx.message
        server = Party(loads(ONE_BYTE), None, "server", **_psk())
        server.receive(wire)
        assert server.refusal is None and server.received["message"] == ctx.message


def test_the_sender_seals_again_under_a_fresh_nonce(monkeypatch: pytest.MonkeyPatch) -> None:
    value = loads(ONE_BYTE).conversations[0].steps[0].send
    assert value is not None
    nonces = iter([b"a" * 16, b"xa" * 8, b"b" * 16])  # two nonces that hold the separator, then one that does not
    calls: list[bytes] = []

    def seal(val: Any, key: bytes, plaintext: bytes, iv: bytes) -> tuple[bytes, bytes]:
        calls.append(iv)
        return b"c" * len(plaintext), b"t" * 16

    monkeypatch.setattr(v, "_iv_for", lambda val, ctx: next(nonces))
    monkeypatch.setattr(v, "seal", seal)
    wire = v.build(value, _client_context(ONE_BYTE, message=b"m" * 5))
    assert calls == [b"a" * 16, b"xa" * 8, b"b" * 16] and wire == b"b" * 16 + b"a" + b"t" * 16 + b"a" + b"c" * 5


def test_the_sender_gives_up_after_100_tries(monkeypatch: pytest.MonkeyPatch) -> None:
    value = loads(ONE_BYTE).conversations[0].steps[0].send
    assert value is not None
    calls: list[bytes] = []

    def seal(val: Any, key: bytes, plaintext: bytes, iv: bytes) -> tuple[bytes, bytes]:
        calls.append(iv)
        return b"a" * len(plaintext), b"t" * 16  # every ciphertext holds the separator

    monkeypatch.setattr(v, "seal", seal)
    wire = v.build(value, _client_context(ONE_BYTE, message=b"m" * 5))
    assert len(calls) == 100 and len(set(calls)) == 100  # a fresh nonce each time
    assert wire == calls[-1] + b"a" + b"t" * 16 + b"a" + b"a" * 5  # what it has: the receiver cannot split it
    server = Party(loads(ONE_BYTE), None, "server", **_psk())
    with pytest.raises(Refused, match=r'splits into \d+ parts on "a"; the description has 3') as info:
        server.receive(wire)
    assert info.value.kind == "length"


def test_a_fixed_nonce_is_sealed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    text = ONE_BYTE.replace('separator = "a"', 'separator = "a", iv = "fixed:' + "61" * 16 + '"')
    value = loads(text).conversations[0].steps[0].send
    assert value is not None and value.iv.startswith("fixed:")
    calls: list[bytes] = []
    real = v.seal

    def seal(val: Any, key: bytes, plaintext: bytes, iv: bytes) -> tuple[bytes, bytes]:
        calls.append(iv)
        return real(val, key, plaintext, iv)

    monkeypatch.setattr(v, "seal", seal)
    v.build(value, _client_context(text))
    assert calls == [b"a" * 16]  # another try would give the same parts


def test_parts_that_make_the_separator_together_do_not_split_back() -> None:
    assert v._splits_back([b"x", b"y", b"z"], b"::")
    assert not v._splits_back([b"x:", b":y"], b"::")  # no part holds "::", yet x::::y splits into x, "", y
    assert not v._splits_back([b"x", b"y::z"], b"::")
    assert not v._splits_back([b"x:", b"y"], b"::")  # x:::y splits into x and :y


# ---- separator: what the reader refuses ----------------------------------------------------------


def _doc(text: str = KEY_DISTRIBUTION) -> dict[str, Any]:
    return tomllib.loads(text)


BODY1 = ["conversation", 0, "step", 1, "body"]
BODY2 = ["conversation", 0, "step", 2, "body"]
B1 = "conversation[0].step[1].body"
B2 = "conversation[0].step[2].body"
_MSG = {"sealed": "session", "carries": "any-text", "encoding": "base64", "separator": "::"}
_CBC = {**_MSG, "cipher": "aes-cbc"}
_IN_JSON = {"json": {"data": {**_MSG, "cipher": "aes-cbc", "iv": "field:iv"},
                     "iv": {"nonce_of": "data", "encoding": "base64"}}}

SEPARATOR_CASES = [
    (_set(_doc(), BODY2 + ["separator"], 1), f"{B2}.separator", "separator must be a string; found an integer 1"),
    (_set(_doc(), BODY2 + ["separator"], ""), f"{B2}.separator", "1 to 16 UTF-8 bytes; found 0 bytes"),
    (_set(_doc(), BODY2 + ["separator"], "x" * 17), f"{B2}.separator", "1 to 16 UTF-8 bytes; found 17 bytes"),
    (_set(_doc(), BODY2 + ["separator"], "\u00e9" * 9), f"{B2}.separator", "found 18 bytes"),  # 9 characters
    (_set(_doc(), BODY2 + ["separator"], "\u00e9" * 8), None, None),  # 16 bytes
    (_set(_doc(), BODY2 + ["separator"], "x" * 16), None, None),
    (_set(_doc(), BODY2, {"sealed": "session", "cipher": "fernet", "carries": "any-text", "separator": "::"}),
     f"{B2}.separator", "a fernet token is one base64url text with nothing to separate"),
    (_set(_doc(), BODY2, {**_CBC, "iv": "fixed:" + "00" * 16}), f"{B2}.separator",
     "`separator` joins the IV, the tag and the ciphertext; this value has only the ciphertext on the wire"),
    (_set(_doc(), BODY2, {**_MSG, "cipher": "aes-ecb"}), f"{B2}.separator", "only the ciphertext on the wire"),
    (_set(_doc(), BODY2, _IN_JSON), f"{B2}.json.data.separator", "only the ciphertext on the wire"),
    (_set(_doc(), BODY2, {"json": {"data": {**_MSG, "cipher": "aes-gcm", "iv": "field:iv", "tag": "field:tag"},
                                   "iv": {"nonce_of": "data", "encoding": "hex"},
                                   "tag": {"tag_of": "data", "encoding": "hex"}}}),
     f"{B2}.json.data.separator", "only the ciphertext on the wire"),
    (_set(_doc(), BODY2, {**_CBC}), None, None),  # IV::ciphertext
    (_set(_doc(), BODY2, {**_MSG, "cipher": "aes-gcm", "tag": "none"}), None, None),  # nonce::ciphertext
    (_set(_doc(), BODY2, {"json": {"data": {**_MSG, "cipher": "aes-eax", "iv": "field:iv"},  # ciphertext::tag
                                   "iv": {"nonce_of": "data", "encoding": "hex"}}}), None, None),
    (_set(_doc(), BODY2, {"secret": "session", "encoding": "hex", "separator": "::"}), f"{B2}.separator",
     "unknown key 'separator'"),
    (_set(_doc(), BODY2, {"json": {"k": {"rsa": "x", "padding": "pkcs1", "separator": "::"}}}),
     f"{B2}.json.k.separator", "unknown key 'separator'"),
]


@pytest.mark.parametrize("doc, path, words", SEPARATOR_CASES, ids=[str(i) for i in range(len(SEPARATOR_CASES))])
def test_separator_misuse_is_refused_by_key_path(doc: dict[str, Any], path: Optional[str], words: Optional[str]) -> None:
    assert_refused_at(doc, path, words)


def test_separator_errors_name_the_line() -> None:
    bad = GCM_TCP.replace('cipher = "aes-gcm", separator = "||", carries = "same"',
                          'cipher = "fernet", separator = "||", carries = "same"')
    with pytest.raises(DescriptionError) as info:
        loads(bad)
    assert info.value.path == "conversation[0].step[1].send.separator"
    assert info.value.line is not None and 'separator = "||", carries = "same"' in bad.splitlines()[info.value.line - 1]
    assert str(info.value).startswith(f"conversation[0].step[1].send.separator (line {info.value.line}): ")


# ---- a secret in a json-fields field -------------------------------------------------------------


def _written(secret: bytes, encoding: str) -> str:
    return {"base64": base64.b64encode(secret), "base64url": base64.urlsafe_b64encode(secret).rstrip(b"="),
            "base64url-padded": base64.urlsafe_b64encode(secret), "hex": secret.hex().encode()}[encoding].decode()


@pytest.mark.parametrize("encoding", ["base64", "base64url", "base64url-padded", "hex"])
def test_secret_field_in_each_encoding(encoding: str) -> None:
    secret = bytes([0xfb, 0xff, 0xfe]) * 10 + b"\x00\x01"  # base64 has '+' and '/', base64url '-' and '_'
    desc = loads(_in_encoding(encoding))
    step = desc.conversations[0].steps[1].send
    assert step is not None and step.fields == (("n", "integer"), ("k", f"secret:{encoding}:session"), ("s", "string"))
    c, s, log = converse(desc, "field", client=_psk(), server={**_psk(), "secrets": {"psk": PSK, "session": secret}})
    assert c.done and s.done and c.refusal is None and s.refusal is None
    assert c.secrets["session"] == secret and c.received["secret:session"] == secret
    box = base64.b64decode(log[1][1])
    plaintext = AESGCM(PSK).decrypt(box[:12], box[12:], None)
    doc = json.loads(plaintext)
    assert list(doc) == ["n", "k", "s"] and type(doc["n"]) is int and isinstance(doc["s"], str)
    assert doc["k"] == _written(secret, encoding)
    assert plaintext == (f'{{"n":{doc["n"]},"k":"{doc["k"]}","s":"{doc["s"]}"}}').encode()  # compact, in order
    box = base64.b64decode(log[2][1])
    assert AESGCM(secret).decrypt(box[:12], box[12:], None) == s.received["message"]  # sealed under the carried key


def _secret_field_client() -> Party:
    c = Party(loads(SECRET_FIELD), "field", "client", **_psk())
    assert c.next_message() == b"hello"
    return c


def _gcm_box(plaintext: bytes) -> bytes:
    nonce = os.urandom(12)
    return base64.b64encode(nonce + AESGCM(PSK).encrypt(nonce, plaintext, None))


def _reading(k: Any) -> bytes:
    return json.dumps({"n": 7, "k": k, "s": "x"}).encode()


NO_STRING = "the JSON plaintext has no string field \"k\" (secret 'session' as base64)"
NOT_BASE64 = "the JSON field \"k\" (secret 'session' as base64) is not valid base64"
ZEROS = base64.b64encode(bytes(32)).decode()


@pytest.mark.parametrize("plaintext, reason", [
    (b'{"n": 7, "s": "x"}', NO_STRING),
    (_reading(None), NO_STRING),
    (_reading(12), NO_STRING),
    (_reading([ZEROS]), NO_STRING),
    (_reading(ZEROS.rstrip("=")), NOT_BASE64),
    (_reading(ZEROS[:-2] + "B="), NOT_BASE64),  # the last character's unused bits set: not canonical
    (_reading(base64.urlsafe_b64encode(b"\xfb" * 32).decode()), NOT_BASE64),  # base64url's alphabet
    (_reading(" " + ZEROS), NOT_BASE64),
    (_reading(base64.b64encode(bytes(31)).decode()), "secret 'session' is 31 bytes; the description says 32"),
    (_reading(base64.b64encode(bytes(33)).decode()), "secret 'session' is 33 bytes; the description says 32"),
    (_reading(""), "secret 'session' is 0 bytes; the description says 32"),
    (b'{"n": 7.5, "k": "' + ZEROS.encode() + b'", "s": "x"}', 'the JSON plaintext has no integer field "n"'),
])
def test_a_bad_secret_field_is_refused(plaintext: bytes, reason: str) -> None:
    c = _secret_field_client()
    with pytest.raises(Refused) as info:
        c.receive(_gcm_box(plaintext))
    assert info.value.reason == reason
    assert "session" not in c.secrets or c.secrets["session"] != bytes(32)


def test_a_secret_field_is_learned_with_extra_fields_in_any_order() -> None:
    c = _secret_field_client()
    c.receive(_gcm_box(b'{"extra": 1, "s": "y", "k": "' + base64.b64encode(bytes(range(32))) + b'", "n": 0}'))
    assert c.refusal is None and c.secrets["session"] == bytes(range(32))
    assert c.received["secret:session"] == bytes(range(32)) and c.next_message() is not None


def test_a_hex_secret_field_is_written_lowercase_and_read_in_either_case() -> None:
    desc = loads(_in_encoding("hex"))
    secret = bytes(range(0xe0, 0x100))
    for text, good in ((secret.hex(), True), (secret.hex().upper(), True), (secret.hex()[:-1], False),
                       ("0x" + secret.hex()[2:], False), (secret.hex()[:-2] + " f", False)):
        c = Party(desc, "field", "client", **_psk())
        c.next_message()
        if good:
            c.receive(_gcm_box(_reading(text)))
            assert c.secrets["session"] == secret
        else:
            with pytest.raises(Refused, match=r"is not valid hex$"):
                c.receive(_gcm_box(_reading(text)))
    ctx = v.Context(desc, desc.conversations[0], "server", {}, {}, {"psk": PSK, "session": secret}, {})
    value = desc.conversations[0].steps[1].send
    assert value is not None
    assert json.loads(v.carried("json-fields", ctx, fields=value.fields))["k"] == secret.hex()


@pytest.mark.parametrize("encoding, text, good", [
    ("base64url", base64.urlsafe_b64encode(b"\xfb" * 32).decode().rstrip("="), True),
    ("base64url", base64.urlsafe_b64encode(b"\xfb" * 32).decode(), False),  # padded: base64url-padded's
    ("base64url", base64.b64encode(b"\xfb" * 32).decode().rstrip("="), False),  # the standard alphabet
    ("base64url-padded", base64.urlsafe_b64encode(b"\xfb" * 32).decode(), True),
    ("base64url-padded", base64.urlsafe_b64encode(b"\xfb" * 32).decode().rstrip("="), False),
])
def test_base64url_secret_fields_are_read_strictly(encoding: str, text: str, good: bool) -> None:
    desc = loads(_in_encoding(encoding))
    c = Party(desc, "field", "client", **_psk())
    c.next_message()
    if good:
        c.receive(_gcm_box(_reading(text)))
        assert c.secrets["session"] == b"\xfb" * 32
    else:
        with pytest.raises(Refused, match=f"is not valid {encoding}$"):
            c.receive(_gcm_box(_reading(text)))


def test_fresh_integers_stay_json_integers() -> None:
    desc = loads(SECRET_FIELD)
    value = desc.conversations[0].steps[1].send
    assert value is not None
    for _ in range(50):
        ctx = v.Context(desc, desc.conversations[0], "server", {}, {}, {"psk": PSK, "session": bytes(32)}, {})
        doc = json.loads(v.carried("json-fields", ctx, fields=value.fields))
        assert list(doc) == ["n", "k", "s"] and type(doc["n"]) is int and 0 <= doc["n"] <= 255


# ---- a secret in a json-fields field: what the reader refuses ------------------------------------


SEND1 = ["conversation", 0, "step", 1, "send"]
SEND2 = ["conversation", 0, "step", 2, "send"]
P1 = "conversation[0].step[1].send"
P2 = "conversation[0].step[2].send"
K = SEND1 + ["fields", "k"]
KP = f"{P1}.fields.k"
_ALLOWED = '{ secret = "NAME", encoding = "base64" | "base64url" | "base64url-padded" | "hex" }'


def _sdoc(text: str = SECRET_FIELD) -> dict[str, Any]:
    return tomllib.loads(text)


def _agreement(doc: dict[str, Any]) -> dict[str, Any]:
    doc = _set(doc, ["keys"], {"a": {"type": "x25519", "holder": "client", "preshared": True},
                               "b": {"type": "x25519", "holder": "server", "preshared": True}})
    return _set(doc, ["secrets", "ag"], {"made_by": "agreement", "keys": ["a", "b"]})


SECRET_FIELD_CASES = [
    (_set(_sdoc(), K + ["encoding"], _DELETE), f"{KP}.encoding", f"a secret field is {_ALLOWED}"),
    (_set(_sdoc(), K + ["secret"], _DELETE), f"{KP}.secret", "add secret"),
    (_set(_sdoc(), K, {}), f"{KP}.secret", "add secret"),
    (_set(_sdoc(), K + ["encoding"], "base32"), f"{KP}.encoding",
     'encoding must be one of "base64", "base64url", "base64url-padded", "hex"; found \'base32\''),
    (_set(_sdoc(), K + ["encoding"], "raw"), f"{KP}.encoding", "must be one of"),
    (_set(_sdoc(), K + ["encoding"], "utf8"), f"{KP}.encoding", "must be one of"),
    (_set(_sdoc(), K + ["encoding"], 64), f"{KP}.encoding", "encoding must be a string"),
    (_set(_sdoc(), K + ["secret"], 1), f"{KP}.secret", "secret must be a string; found an integer 1"),
    (_set(_sdoc(), K + ["secret"], ""), f"{KP}.secret", "found an empty name"),
    (_set(_sdoc(), K + ["carries_as"], "hex"), f"{KP}.carries_as", "unknown key 'carries_as'; allowed here: secret, encoding"),
    (_set(_sdoc(), K + ["encodings"], "hex"), f"{KP}.encodings", "did you mean 'encoding'?"),
    (_set(_sdoc(), K + ["secret"], "nope"), f"{KP}.secret", "no secret 'nope': add [secrets.nope]"),
    (_set(_sdoc(), ["secrets", "session", "made_by"], "client"), f"{KP}.secret",
     "the server carries secret 'session' but it is made by client: only its maker sends it"),
    (_set(_set(_sdoc(), ["secrets", "session", "made_by"], "preshared"), SEND2 + ["sealed"], "psk"), f"{KP}.secret",
     "it is made by preshared: only its maker sends it"),
    (_set(_agreement(_sdoc()), K + ["secret"], "ag"), f"{KP}.secret",
     "secret 'ag' is agreed (made_by = \"agreement\"): each side computes it and nobody sends it"),
    (_set(_sdoc(), SEND1 + ["fields", "k2"], {"secret": "session", "encoding": "hex"}), f"{P1}.fields.k2.secret",
     "secret 'session' is already carried in field 'k'"),
    (_set(_sdoc(), K, "secret"), KP, 'a field\'s type must be one of "number", "integer", "string", or a secret field'),
    (_set(_sdoc(), K, ["session", "base64"]), KP, "found an array"),
    # The client knows the key only because the field carries it.
    (_set(_sdoc(), K, "string"), f"{P2}.sealed",
     "the client does not know secret 'session' here: it is made by server; carry it to the client first"),
    # Sealed under the key it carries: the client cannot open it.
    (_set(_sdoc(), SEND1 + ["sealed"], "session"), f"{P1}.sealed", "the client never learns secret 'session'"),
    # A secret field is json-fields' only.
    (_set(_sdoc(), SEND1 + ["carries"], "json-message"), f"{P1}.fields", 'goes with carries = "json-fields" only'),
    (_set(_sdoc(), K + ["encoding"], "hex"), None, None),
    (_set(_sdoc(), K + ["encoding"], "base64url"), None, None),
    (_set(_sdoc(), K + ["encoding"], "base64url-padded"), None, None),
    # Over RSA, as carries = "secret:S" may be.
    (_set(_set(_sdoc(), ["keys"], {"c": {"holder": "client", "bits": 1024, "preshared": True}}), SEND1,
          {"rsa": "c", "padding": "oaep-sha256", "encoding": "base64", "carries": "json-fields",
           "fields": {"k": {"secret": "session", "encoding": "base64"}}}), None, None),
]


@pytest.mark.parametrize("doc, path, words", SECRET_FIELD_CASES, ids=[str(i) for i in range(len(SECRET_FIELD_CASES))])
def test_secret_field_misuse_is_refused_by_key_path(doc: dict[str, Any], path: Optional[str],
                                                     words: Optional[str]) -> None:
    assert_refused_at(doc, path, words)


def test_secret_field_errors_name_the_line() -> None:
    bad = KEY_DISTRIBUTION.replace('{ secret = "session", encoding = "base64" }', '{ secret = "session", encoding = "b64" }')
    with pytest.raises(DescriptionError) as info:
        loads(bad)
    assert info.value.path == "conversation[0].step[1].body.fields.key.encoding"
    assert info.value.line is not None and 'encoding = "b64"' in bad.splitlines()[info.value.line - 1]
    bad = KEY_DISTRIBUTION.replace('made_by = "server"', 'made_by = "client"')
    with pytest.raises(DescriptionError) as info:
        loads(bad)
    assert info.value.path == "conversation[0].step[1].body.fields.key.secret"
    assert info.value.line is not None and "secret = \"session\"" in bad.splitlines()[info.value.line - 1]


def test_secret_field_over_rsa_converses(key1024: Any) -> None:
    doc = _set(_set(_sdoc(), ["keys"], {"c": {"holder": "client", "bits": 1024, "preshared": True}}), SEND1,
               {"rsa": "c", "padding": "oaep-sha256", "encoding": "base64", "carries": "json-fields",
                "fields": {"k": {"secret": "session", "encoding": "base64"}}})
    from pythonref.described.description import from_dict
    desc = from_dict(doc)
    c, s, _ = converse(desc, "field", client={**_psk(), "private_keys": {"c": key1024}},
                       server={**_psk(), "known_public_keys": {"c": key1024.public_key()}})
    assert c.done and s.done and c.secrets["session"] == s.secrets["session"]
