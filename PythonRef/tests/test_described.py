"""PythonRef's engine for protocol descriptions (docs/PROTOCOL-DESCRIPTIONS.md): the checks of a
description, and client and server parties conversing in process over the seeds and a handful of
small descriptions (every cipher, key format and framing)."""

from __future__ import annotations

import copy
import dataclasses
import tomllib
from pathlib import Path
from typing import Any, Optional

import pytest

from pythonref.described import DescriptionError, Party, Refused, load, loads
from pythonref.described.description import from_dict
from pythonref.described.framing import FramingError, Reader, frame

PROTOCOLS = Path(__file__).resolve().parents[2] / "protocols"
RSA_SOCKET = PROTOCOLS / "rsa-socket.toml"
AES_HTTPS = PROTOCOLS / "aes-https.toml"


def converse(desc: Any, conversation: str, client: Optional[dict[str, Any]] = None,
             server: Optional[dict[str, Any]] = None, tamper: Any = None) -> tuple[Party, Party, list[Any]]:
    """Run a client and a server party against each other in memory. `tamper(who, index, msg)`
    may change a message in flight. The server does not know the conversation beforehand."""
    c = Party(desc, conversation, "client", **(client or {}))
    s = Party(desc, None, "server", **(server or {}))
    log: list[Any] = []
    for _ in range(100):
        for who, me, peer in (("client", c, s), ("server", s, c)):
            msg = me.next_message()
            if msg is not None:
                if tamper is not None:
                    msg = tamper(who, len(log), msg)
                log.append((who, msg))
                peer.receive(msg)
                break
        else:
            return c, s, log
    raise AssertionError("did not settle")


# ---- the seeds -----------------------------------------------------------------------------------


@pytest.mark.parametrize("conversation", ["phone-to-pi", "pi-to-phone"])
def test_rsa_socket_seed_converses(conversation: str) -> None:
    desc = load(RSA_SOCKET)
    c, s, log = converse(desc, conversation)
    assert c.done and s.done and c.refusal is None and s.refusal is None
    assert s.conversation is not None and s.conversation.name == conversation
    if conversation == "phone-to-pi":
        assert log[0] == ("client", b"Client: OK")
        assert log[1][1].startswith(b"public_key=-----BEGIN PUBLIC KEY-----\n") and log[1][1].endswith(b"-----\n")
        assert log[2][1].startswith(b"encrypted_message=") and len(log[2][1]) == len(b"encrypted_message=") + 256
        assert [m for _, m in log[3:]] == [b"Server: OK", b"Quit", b"Server stopped\n"]
        assert s.received["message"].startswith(b"crosscheck ")
    else:
        assert c.received["message"] == b"Secret message from RPi server"
        assert log[0][1].startswith(b"public_key=-----BEGIN PUBLIC KEY-----") and log[0][1].endswith(b"-----")
        assert len(log[1][1]) == 256


def test_aes_https_seed_converses() -> None:
    desc = load(AES_HTTPS)
    c, s, log = converse(desc, "secure-data", client={"message": b"hello"})
    assert c.done and s.done
    login = log[0][1]
    assert (login["method"], login["path"]) == ("POST", "/login")
    assert login["body"] == b'{"username":"user","password":"password"}'
    assert log[2][1]["headers"]["authorization"] == c.received["token"]
    assert len(c.received["secret:session"]) == 12
    assert s.received["message"] == b"hello"
    assert c.received["echo"] == {"message": "hello"}


def test_aes_https_bad_credentials_are_401_and_unknown_token_401() -> None:
    desc = load(AES_HTTPS)
    c = Party(desc, "secure-data", "client", config={"password": "wrong"})
    s = Party(desc, None, "server")
    with pytest.raises(Refused):
        s.receive(c.next_message())
    assert s.refusal_message()["status"] == 401

    c = Party(desc, "secure-data", "client")
    s = Party(desc, None, "server")
    s.receive(c.next_message())
    c.receive(s.next_message())
    request = c.next_message()
    request["headers"]["authorization"] = "0" * 32
    with pytest.raises(Refused, match="unknown token"):
        s.receive(request)
    assert s.refusal_message()["status"] == 401


def test_rsa_socket_server_answers_its_error_value() -> None:
    desc = load(RSA_SOCKET)
    s = Party(desc, None, "server")
    with pytest.raises(Refused):
        s.receive(b"Hello?")
    assert s.done and s.refusal_message() == b"Server: ERROR"


# ---- small descriptions, every cipher, key format and framing ------------------------------------

HEAD = """
name = "{name}"
[transport]
{transport}
[keys.server]
holder = "server"
bits = 1024
[keys.client]
holder = "client"
bits = 1024
"""

GCM_TAG_FIELD = HEAD.format(name="rsa-wrapped-gcm", transport='kind = "tcp"\nframing = "length-prefix"') + """
[secrets.session]
made_by = "client"
[[conversation]]
name = "wrapped"
error = { text = "ERR" }
[[conversation.step]]
from = "client"
send = { text = "hello" }
[[conversation.step]]
from = "server"
send = { public_key = "server", format = "jwk" }
[[conversation.step]]
from = "client"
send = { rsa = "server", padding = "oaep-sha256", carries = "secret:session", encoding = "base64" }
[[conversation.step]]
from = "server"
send = { text = "ok" }
[[conversation.step]]
from = "client"
send = { json = { data = { sealed = "session", cipher = "aes-gcm", iv = "field:nonce", tag = "field:tag", carries = "json-message", encoding = "base64" }, nonce = { nonce_of = "data", encoding = "base64" }, tag = { tag_of = "data", encoding = "hex" } } }
[[conversation.step]]
from = "server"
send = { json = { data = { sealed = "session", cipher = "aes-gcm", carries = "echo", encoding = "base64url" } } }
"""

CHACHA_LINE = HEAD.format(name="chacha-line", transport='kind = "tcp"\nframing = "line"\nline_end = "\\r\\n"') + """
[secrets.psk]
made_by = "preshared"
[[conversation]]
name = "chat"
[[conversation.step]]
from = "client"
send = { sealed = "psk", cipher = "chacha20-poly1305", carries = "message", encoding = "base64" }
[[conversation.step]]
from = "server"
send = { sealed = "psk", cipher = "chacha20-poly1305", carries = "same", encoding = "hex" }
"""

CTR_DIGEST = HEAD.format(name="ctr-digest", transport='kind = "tcp"\nframing = "length-prefix"\nlength_bytes = 2') + """
[secrets.k]
made_by = "server"
bytes = 24
derive = "sha256"
[[conversation]]
name = "ctr"
[[conversation.step]]
from = "client"
send = { text = "key?" }
[[conversation.step]]
from = "server"
send = { concat = [ { text = "key=" }, { secret = "k", encoding = "hex" } ] }
[[conversation.step]]
from = "client"
send = { concat = [ { text = "msg=" }, { sealed = "k", cipher = "aes-ctr", iv = "fixed:000102030405060708090a0b0c0d0e0f", carries = "message" } ] }
[[conversation.step]]
from = "server"
send = { concat = [ { text = "OK sha256=" }, { digest = "sha256" } ] }
then = "close"
"""

ECB_JSON_NE = HEAD.format(name="ecb-json-ne", transport='kind = "tcp"') + """
[secrets.s]
made_by = "client"
bytes = 16
[[conversation]]
name = "ecb"
message = "fixed text"
error = { text = "no" }
[[conversation.step]]
from = "client"
send = { text = "hi" }
[[conversation.step]]
from = "server"
send = { public_key = "server", format = "json-ne" }
[[conversation.step]]
from = "client"
send = { json = { key = { rsa = "server", padding = "pkcs1", carries = "secret:s", encoding = "base64" }, data = { sealed = "s", cipher = "aes-ecb", padding = "zero", carries = "message", encoding = "base64" } } }
[[conversation.step]]
from = "server"
send = { sealed = "s", cipher = "aes-ecb", carries = "same" }
"""

FERNET_HTTP = HEAD.format(name="fernet-http", transport='kind = "http"') + """
[secrets.f]
made_by = "client"
[[conversation]]
name = "fernet"
[[conversation.step]]
from = "client"
request = "POST /hello"
body = { json = { hello = { text = "there" } } }
[[conversation.step]]
from = "server"
body = { json = { key = { public_key = "server", format = "pem-pkcs1", encoding = "utf8" } } }
[[conversation.step]]
from = "client"
request = "POST /data"
headers = { X-Kind = "fernet" }
body = { json = { k = { rsa = "server", padding = "oaep-sha1", carries = "secret:f", encoding = "base64" }, token = { sealed = "f", cipher = "fernet", carries = "json-message" } } }
[[conversation.step]]
from = "server"
status = 201
body = { sealed = "f", cipher = "fernet", carries = "echo" }
"""

CBC_DER_CLIENT_KEY = HEAD.format(name="cbc-der", transport='kind = "tcp"\nframing = "line"') + """
[secrets.s]
made_by = "server"
bytes = 32
[[conversation]]
name = "der"
[[conversation.step]]
from = "client"
send = { concat = [ { text = "K:" }, { public_key = "client", format = "der-spki", encoding = "base64" } ] }
[[conversation.step]]
from = "server"
send = { rsa = "client", padding = "oaep-sha1", carries = "secret:s", encoding = "hex" }
[[conversation.step]]
from = "client"
send = { sealed = "s", cipher = "aes-cbc", carries = "message", encoding = "base64" }
[[conversation.step]]
from = "server"
send = { concat = [ { text = "D:" }, { digest = "sha256", encoding = "base64url" } ] }
"""

SMALL = {"gcm-tag-field": GCM_TAG_FIELD, "chacha-line": CHACHA_LINE, "ctr-digest": CTR_DIGEST,
         "ecb-json-ne": ECB_JSON_NE, "fernet-http": FERNET_HTTP, "cbc-der": CBC_DER_CLIENT_KEY}
PSK = {"secrets": {"psk": bytes(range(32))}}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_small_descriptions_converse(name: str) -> None:
    desc = loads(SMALL[name])
    options = PSK if name == "chacha-line" else {}
    stated = desc.conversations[0].message  # ecb-json-ne states its message; the others carry ours
    c, s, log = converse(desc, desc.conversations[0].name,
                         client={**options, **({} if stated else {"message": b"the message"})}, server=options)
    assert c.done and s.done and c.refusal is None and s.refusal is None
    assert s.received["message"] == (stated or b"the message")
    for _, msg in log:  # every message goes through its framing and back
        if isinstance(msg, bytes):
            reader = Reader(desc.transport)
            reader.feed(frame(desc.transport, msg))
            assert reader.next(len(msg)) == msg


def test_gcm_tag_field_puts_nonce_and_tag_in_fields() -> None:
    import json
    desc = loads(GCM_TAG_FIELD)
    _, s, log = converse(desc, "wrapped", client={"message": b"m"})
    doc = json.loads(log[4][1])
    assert list(doc) == ["data", "nonce", "tag"] and len(bytes.fromhex(doc["tag"])) == 16
    assert s.received["secret:session"] and len(s.received["secret:session"]) == 32


def test_jwk_and_json_ne_keys_are_json_objects() -> None:
    import json
    for text, fields in ((GCM_TAG_FIELD, {"kty", "n", "e"}), (ECB_JSON_NE, {"n", "e"})):
        desc = loads(text)
        _, _, log = converse(desc, desc.conversations[0].name)
        assert set(json.loads(log[1][1])) == fields


def test_ecb_checks_the_stated_message() -> None:
    desc = loads(ECB_JSON_NE)
    with pytest.raises(Refused, match="not the conversation's message"):
        converse(desc, "ecb", client={"message": b"other text"})


def test_fernet_http_status_and_header_are_checked() -> None:
    desc = loads(FERNET_HTTP)
    c, s, log = converse(desc, "fernet", client={"message": b"x"})
    assert log[2][1]["headers"]["x-kind"] == "fernet" and log[3][1]["status"] == 201

    def wrong_status(who: str, i: int, msg: Any) -> Any:
        return {**msg, "status": 200} if i == 3 else msg

    with pytest.raises(Refused, match="status 200, expected 201"):
        converse(desc, "fernet", tamper=wrong_status)


# ---- framing -------------------------------------------------------------------------------------


def test_length_prefix_refuses_zero_and_over_max() -> None:
    desc = loads(CTR_DIGEST)
    reader = Reader(desc.transport)
    reader.feed(b"\x00\x00")
    with pytest.raises(FramingError, match="0"):
        reader.next()
    small = from_dict({**tomllib.loads(CTR_DIGEST), "transport": {"kind": "tcp", "framing": "length-prefix",
                                                                  "max_message": 10}})
    reader = Reader(small.transport)
    reader.feed(b"\x00\x00\x00\x0bhello world")
    with pytest.raises(FramingError, match="over max_message"):
        reader.next()
    with pytest.raises(FramingError):
        frame(small.transport, b"x" * 11)


def test_line_framing_and_legacy_reader() -> None:
    desc = loads(CHACHA_LINE)
    reader = Reader(desc.transport)
    reader.feed(b"one\r\ntw")
    assert reader.next() == b"one" and reader.next() is None
    reader.feed(b"o\r\n")
    assert reader.next() == b"two"
    with pytest.raises(FramingError):
        frame(desc.transport, b"a\r\nb")
    legacy = load(RSA_SOCKET).transport
    reader = Reader(legacy)
    reader.feed(b"encrypted_message=" + b"\x00" * 10 + b"Quit")
    assert reader.next(expected_length=28) == b"encrypted_message=" + b"\x00" * 10
    assert reader.next() is None  # unknown length: only a quiet gap ends it
    assert reader.next(final=True) == b"Quit"


def test_a_line_of_max_message_bytes_whose_crlf_arrives_split_is_taken() -> None:
    # The stop-49 review: a CRLF line of exactly max_message bytes holds max_message + 1 bytes before
    # its "\n" arrives; one more byte with no line end can never fit.
    t = dataclasses.replace(loads(CHACHA_LINE).transport, max_message=8)
    reader = Reader(t)
    reader.feed(b"A" * 8 + b"\r")
    assert reader.next() is None
    reader.feed(b"\n")
    assert reader.next() == b"A" * 8
    over = Reader(t)
    over.feed(b"A" * 10)
    with pytest.raises(FramingError):
        over.next()


def test_legacy_reader_takes_the_error_value_whole() -> None:
    legacy = load(RSA_SOCKET).transport
    reader = Reader(legacy)
    reader.feed(b"Server: ER")
    assert reader.next(10, alternative=b"Server: ERROR") is None  # could still be the error value
    reader.feed(b"ROR")
    assert reader.next(10, alternative=b"Server: ERROR") == b"Server: ERROR"
    reader.feed(b"Server: OKQuit")
    assert reader.next(10, alternative=b"Server: ERROR") == b"Server: OK"
    assert reader.next(4) == b"Quit"
    reader.feed(b"Server: E")
    assert reader.next(10, final=True, alternative=b"Server: ERROR") == b"Server: E"


# ---- what a description may not say -------------------------------------------------------------


def _seed() -> dict[str, Any]:
    return tomllib.loads(RSA_SOCKET.read_text())


def _https() -> dict[str, Any]:
    return tomllib.loads(AES_HTTPS.read_text())


def _set(doc: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    target = doc
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return doc


_DELETE = object()
_SEALED = {"sealed": "s", "cipher": "aes-gcm", "carries": "message"}


def _with_secret(doc: dict[str, Any], made_by: str = "client") -> dict[str, Any]:
    return {**doc, "secrets": {"s": {"made_by": made_by}}}


CASES = [
    # (document, the key path named, words the message has)
    (_set(_seed(), ["nmae"], "x"), "nmae", "did you mean 'name'"),
    (_set(_seed(), ["transport", "framming"], "legacy"), "transport.framming", "did you mean 'framing'"),
    (_set(_seed(), ["keys", "server", "bits"], 1000), "keys.server.bits",
     "bits must be one of 1024, 2048, 3072, 4096; found 1000"),
    (_set(_seed(), ["keys", "server", "holder"], "phone"), "keys.server.holder", "must be one of"),
    (_set(_seed(), ["keys", "server", "bits"], "2048"), "keys.server.bits", "must be an integer"),
    (_set(_seed(), ["name"], "RSA Socket"), "name", "lowercase"),
    (_set(_seed(), ["transport", "max_message"], 0), "transport.max_message", "1..16777216"),
    (_set(_seed(), ["transport", "length_bytes"], 2), "transport.length_bytes", "length-prefix"),
    (_set(_seed(), ["conversation", 0, "step", 2, "send", "concat", 1, "padding"], "pkcs2"),
     "conversation[0].step[2].send.concat[1].padding", 'one of "pkcs1", "oaep-sha1", "oaep-sha256"'),
    (_set(_seed(), ["conversation", 0, "step", 2, "send", "concat", 1, "carries"], "msg"),
     "conversation[0].step[2].send.concat[1].carries", "carries must be"),
    (_set(_seed(), ["conversation", 0, "step", 2, "send", "concat", 1, "paddin"], "pkcs1"),
     "conversation[0].step[2].send.concat[1].paddin", "did you mean 'padding'"),
    (_set(_seed(), ["conversation", 0, "step", 0, "send"], {"txt": "x"}), "conversation[0].step[0].send.txt",
     "did you mean 'text'"),
    (_set(_seed(), ["conversation", 0, "step", 0, "send"], "Client: OK"), "conversation[0].step[0].send",
     "must be a table"),
    (_set(_seed(), ["conversation", 0, "step", 0, "from"], "phone"), "conversation[0].step[0].from", "one of"),
    (_set(_seed(), ["conversation", 0, "step", 0, "then"], "stop"), "conversation[0].step[0].then", '"close"'),
    (_set(_seed(), ["conversation", 1, "name"], "phone-to-pi"), "conversation[1].name", "unique"),
    # rsa to a key whose public half the sender never learns: the server's key message removed
    (_set(_seed(), ["conversation", 0, "step", 1, "send"], {"text": "hi"}),
     "conversation[0].step[2].send.concat[1].rsa", "never learns its public half"),
    (_set(_seed(), ["conversation", 0, "step", 2, "send", "concat", 1, "rsa"], "nokey"),
     "conversation[0].step[2].send.concat[1].rsa", "no key 'nokey'"),
    (_set(_seed(), ["conversation", 0, "step", 1, "from"], "client"),
     "conversation[0].step[1].send.concat[1].public_key", "the server holds it"),
    # concat with two unknown-length parts
    (_set(_seed(), ["conversation", 0, "step", 1, "send", "concat", 0], {"public_key": "server"}),
     "conversation[0].step[1].send.concat", "at most one part may have an unknown length"),
    # GCM with iv none
    (_set(_with_secret(_seed(), "preshared"), ["conversation", 0, "step", 0, "send"], {**_SEALED, "iv": "none"}),
     "conversation[0].step[0].send.iv", 'iv = "none" is only for aes-ecb and fernet'),
    (_set(_with_secret(_seed(), "preshared"), ["conversation", 0, "step", 0, "send"],
          {**_SEALED, "iv": "fixed:00"}), "conversation[0].step[0].send.iv", "an aes-gcm fixed: nonce is 8 to 128 bytes"),
    (_set(_with_secret(_seed(), "preshared"), ["conversation", 0, "step", 0, "send"],
          {**_SEALED, "padding": "pkcs7"}), "conversation[0].step[0].send.padding", "aes-cbc and aes-ecb only"),
    (_set(_with_secret(_seed(), "preshared"), ["conversation", 0, "step", 0, "send"],
          {**_SEALED, "cipher": "fernet", "encoding": "base64"}), "conversation[0].step[0].send.encoding",
     "always base64url"),
    (_set(_with_secret(_seed(), "preshared"), ["conversation", 0, "step", 0, "send"],
          {**_SEALED, "cipher": "chacha20-poly1305"}) | {"secrets": {"s": {"made_by": "preshared", "bytes": 16}}},
     "conversation[0].step[0].send.cipher", "needs a 32-byte key"),
    # sealed with a secret the sender does not know
    (_set(_with_secret(_seed(), "server"), ["conversation", 0, "step", 0, "send"], _SEALED),
     "conversation[0].step[0].send.sealed", "does not know secret 's'"),
    # nonce_of without a sibling that names it; a field: IV without its nonce_of
    (_set(_with_secret(_seed(), "preshared"), ["conversation", 0, "step", 0, "send"],
          {"json": {"data": {**_SEALED, "encoding": "base64"}, "iv": {"nonce_of": "data", "encoding": "base64"}}}),
     "conversation[0].step[0].send.json.iv.nonce_of", "needs a sibling sealed field"),
    (_set(_with_secret(_seed(), "preshared"), ["conversation", 0, "step", 0, "send"],
          {"json": {"data": {**_SEALED, "iv": "field:iv", "encoding": "base64"}}}),
     "conversation[0].step[0].send.json.data.iv", "needs a sibling field 'iv'"),
    (_set(_with_secret(_seed(), "preshared"), ["conversation", 0, "step", 0, "send"],
          {"json": {"data": _SEALED}}), "conversation[0].step[0].send.json.data.encoding", "add encoding"),
    # secret:S carried by the side that does not make S
    (_set(_with_secret(_seed(), "server"), ["conversation", 0, "step", 2, "send", "concat", 1, "carries"],
          "secret:s"), "conversation[0].step[2].send.concat[1].carries", "made by server"),
    (_set(_seed(), ["secrets"], {"s": {"made_by": "client", "derive": "utf8-zeropad16"}}), "secrets.s.bytes",
     "bytes must be 16"),
    (_set(_seed(), ["secrets"], {"s": {"made_by": "client", "chars": 4}}), "secrets.s.chars", "utf8-zeropad16"),
    (_set(_seed(), ["conversation", 0, "error_status"], 400), "conversation[0].error_status", "http"),
    # framing on http; a server step first in an http conversation
    (_set(_https(), ["transport", "framing"], "line"), "transport.framing", "tcp only"),
    (_set(_https(), ["conversation", 0, "step", 0, "from"], "server"), "conversation[0].step[0].from",
     "starts with the client's request"),
    (_set(_https(), ["conversation", 0, "step", 0, "send"], {"text": "x"}), "conversation[0].step[0].send",
     "unknown key 'send'"),
    (_set(_https(), ["conversation", 0, "step", 0, "request"], "post login"), "conversation[0].step[0].request",
     "METHOD /path"),
    (_set(_https(), ["conversation", 0, "step", 2, "headers", "Authorization"], {"token": "new"}),
     "conversation[0].step[2].headers.Authorization.token", "made by the server"),
    (_set(_https(), ["conversation", 0, "step", 1, "body", "json", "encryptionKey", "encoding"], "base64"),
     "conversation[0].step[3].body.json.data.sealed", None),  # still valid: base64 of a utf8 secret
    (_set(_https(), ["conversation", 0, "step", 0, "body", "json", "username", "config"], "user"),
     "conversation[0].step[0].body.json.username.config", "username, password"),
    (_set(_https(), ["conversation", 0, "step", 3, "body", "json", "data", "carries"], "same") | {},
     None, None),  # same is a server's answer: valid
    (_set(_https(), ["conversation", 0, "step", 2, "body", "json", "data", "carries"], "echo"),
     "conversation[0].step[2].body.json.data.carries", "server's answer"),
    (_set(_https(), ["conversation", 0, "step", 2, "body", "json", "data", "tag"], "appended"),
     "conversation[0].step[2].body.json.data.tag", "aes-gcm, chacha20-poly1305 and aes-eax only"),
    (_set(_https(), ["conversation", 0, "step", 3], _DELETE), "conversation[0].step[2]", "no response"),
    (_set(_seed(), ["conversation", 0, "step", 0, "then"], "close"), "conversation[0].step[0].then",
     "only the last step"),
    (_set(_seed(), ["conversation", 0, "step", 0, "send", "encoding"], "hex"), "conversation[0].step[0].send.encoding",
     "unknown key 'encoding'"),
    (_set(_with_secret(_seed(), "preshared"), ["conversation", 0, "step", 0, "send"], {**_SEALED, "tag": "field:t"}),
     "conversation[0].step[0].send.tag", "inside a json value"),
    (_set(_seed(), ["conversation", 0, "step", 1, "send", "concat", 1, "format"], "pem"),
     "conversation[0].step[1].send.concat[1].format", '"pem-spki", "pem-spki-newline"'),
]


def assert_refused_at(doc: dict[str, Any], path: Optional[str], words: Optional[str]) -> None:
    """`doc` is refused at `path` with `words` in the message; a valid variation when `words` is None."""
    if words is None:
        from_dict(doc)
        return
    with pytest.raises(DescriptionError) as info:
        from_dict(doc)
    assert info.value.path == path, str(info.value)
    assert words in info.value.message, str(info.value)
    assert str(info.value).startswith(path)


@pytest.mark.parametrize("doc, path, words", CASES, ids=[str(i) for i in range(len(CASES))])
def test_description_errors_name_the_key_path(doc: dict[str, Any], path: Optional[str], words: Optional[str]) -> None:
    assert_refused_at(doc, path, words)


def test_load_names_the_file_and_toml_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n")
    with pytest.raises(DescriptionError, match="not valid TOML"):
        load(bad)
    with pytest.raises(DescriptionError, match="cannot read"):
        load(tmp_path / "missing.toml")
    with pytest.raises(DescriptionError, match="conversation is required"):
        loads('name = "x"\n[transport]\nkind = "tcp"\n')


def test_seeds_load_as_frozen_dataclasses() -> None:
    import dataclasses
    desc = load(RSA_SOCKET)
    assert [c.name for c in desc.conversations] == ["phone-to-pi", "pi-to-phone"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        desc.name = "x"  # type: ignore[misc]
    https = load(AES_HTTPS)
    assert https.transport.kind == "https" and https.secret("session").derive == "utf8-zeropad16"


def test_errors_from_text_name_the_line() -> None:
    text = RSA_SOCKET.read_text()
    lines = text.splitlines()
    bad = text.replace('padding = "pkcs1", carries = "message" } ] }', 'padding = "pkcs2", carries = "message" } ] }')
    with pytest.raises(DescriptionError) as info:
        loads(bad)
    assert info.value.path == "conversation[0].step[2].send.concat[1].padding"
    assert info.value.line is not None and "encrypted_message=" in lines[info.value.line - 1]
    assert f"(line {info.value.line})" in str(info.value)
    with pytest.raises(DescriptionError) as info:
        loads(text.replace("bits = 2048", "bits = 1000", 1))
    assert info.value.line is not None and lines[info.value.line - 1] == "bits = 2048"
    assert lines[info.value.line - 2] == 'holder = "server"'


def test_weaknesses_are_reported() -> None:
    assert load(RSA_SOCKET).weaknesses() == []
    weak = load(AES_HTTPS).weaknesses()
    assert any("utf8-zeropad16" in w for w in weak) and any("aes-cbc is not authenticated" in w for w in weak)
    ctr = loads(CTR_DIGEST).weaknesses()
    assert any("1024 bits" in w for w in ctr) and any("fixed IV" in w for w in ctr)
