"""Per-character RSA with a toy key (`padding = "per-character"`, `[keys] bits` 8 to 15) and the
`repeat = "received"` value, as dianaxime/Lab6-Cifrado-PublicKeyEncription has them: its rsa.py sends
`chr(ord(c) ** e % n)` for each character c, as UTF-8, under a 10-bit key (p, q = getPrime(5)), and its
server.py answers `sc.send(recibido)`, the bytes it read. Known answers from that formula with the key
it committed (servpriv.key: 431, 589), round trips, the shared fixture (Tests/Descriptions/
per-character-rsa-echo.toml) in memory, over loopback and through PEM sessions, refusals, the
reader's rules by key path, and the toy key maker."""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any, Optional

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from pythonref import rsa_keys, sessions
from pythonref.described import DescriptionError, Party, Refused, loads
from pythonref.described import server as dserver
from pythonref.described import values as v
from pythonref.errors import CryptoFailure

from test_described import converse
from test_described_readings import DESCRIPTIONS, fixture

ECHO = fixture("per-character-rsa-echo")  # Tests/Descriptions/per-character-rsa-echo.toml

# dianaxime's committed key: servpriv.key holds "431\n589\n"; n = 589 = 19 · 31, φ = 18 · 30 = 540, and
# 431 · 431 = 185761 = 344 · 540 + 1, so e = d = 431.
P, Q, E, N = 19, 31, 431, 589
D = 431


def dianaxime_key() -> rsa.RSAPrivateKey:
    return rsa.RSAPrivateNumbers(P, Q, D, D % (P - 1), D % (Q - 1), pow(Q, -1, P),
                                 rsa.RSAPublicNumbers(E, N)).private_key()


def cifrar(m: str) -> str:
    """rsa.py's cifrar, as written there: chr(E(ord(c), public)), E(m) = m ** e % n."""
    return "".join(chr(ord(c) ** E % N) for c in m)


def decifrar(c: str) -> str:
    """rsa.py's decifrar: chr(D(ord(i), private)), D(c) = c ** d % n."""
    return "".join(chr(ord(i) ** D % N) for i in c)


def variant(text: str, *changes: tuple[str, str]) -> str:
    for old, new in changes:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


PER_CHARACTER = '{ rsa = "server", padding = "per-character" }'


def echo(value: str = PER_CHARACTER, message: Optional[str] = None) -> str:
    """The fixture with the client's value replaced, and a stated message."""
    text = variant(ECHO, (PER_CHARACTER, value))
    if message is not None:
        text = variant(text, ('name = "echoed"\n', f'name = "echoed"\nmessage = "{message}"\n'))
    return text


def options(key: rsa.RSAPrivateKey, message: Optional[bytes] = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The client's and the server's party options: the server holds the key, the client was given it."""
    client: dict[str, Any] = {"known_public_keys": {"server": key.public_key()}}
    if message is not None:
        client["message"] = message
    return client, {"private_keys": {"server": key}}


def server_party(desc: Any, key: rsa.RSAPrivateKey) -> Party:
    return Party(desc, None, "server", private_keys={"server": key})


# ---- known answers -------------------------------------------------------------------------------


def test_the_key_is_dianaxime_s() -> None:
    key = dianaxime_key()
    nums = key.private_numbers()
    assert key.key_size == 10 and nums.public_numbers.n == 589 and nums.public_numbers.e == 431 and nums.d == 431
    assert (E * D) % ((P - 1) * (Q - 1)) == 1 and 431 * 431 == 185761 == 344 * 540 + 1


@pytest.mark.parametrize("plaintext, codes", [
    ("h", [55]),  # 104 ** 431 % 589
    ("hello", [55, 225, 573, 573, 462]),
    (", crosscheck", [282, 497, 119, 570, 462, 172, 172, 119, 55, 225, 119, 350]),
])
def test_known_answers(plaintext: str, codes: list[int]) -> None:
    key = dianaxime_key()
    assert [ord(c) for c in cifrar(plaintext)] == codes
    assert [pow(ord(c), E, N) for c in plaintext] == codes
    ciphertext = "".join(map(chr, codes)).encode("utf-8")
    assert v.per_character_encrypt(key.public_key(), plaintext.encode("utf-8")) == ciphertext
    assert v.per_character_decrypt(key, ciphertext) == plaintext.encode("utf-8")
    assert decifrar(ciphertext.decode("utf-8")) == plaintext


def test_hello_on_the_wire() -> None:
    # "7" is U+0037 (one byte), U+00E1 two bytes, U+023D and U+01CE two bytes each.
    ciphertext = v.per_character_encrypt(dianaxime_key().public_key(), b"hello")
    assert ciphertext == b"7\xc3\xa1\xc8\xbd\xc8\xbd\xc7\x8e"
    assert ciphertext == bytes(cifrar("hello"), "utf-8")  # client.py: s.send(bytes(rsa.cifrar(mensaje, publicServ),'utf-8'))


def test_every_character_below_n_round_trips() -> None:
    key = dianaxime_key()
    text = "".join(chr(c) for c in range(N))  # U+0000 .. U+024C: every code point the key can carry
    ciphertext = v.per_character_encrypt(key.public_key(), text.encode("utf-8"))
    assert ciphertext.decode("utf-8") == cifrar(text)
    assert sorted(ord(c) for c in ciphertext.decode("utf-8")) == list(range(N))  # a permutation of Z_n
    assert v.per_character_decrypt(key, ciphertext) == text.encode("utf-8")


# ---- the engine both ways ------------------------------------------------------------------------


def test_engine_client_to_dianaxime_server_and_back() -> None:
    key = dianaxime_key()
    desc = loads(ECHO)
    message = "Hola, mañana a las 10: ¿sí?"  # ñ, ¿ and í are below n = 589
    client = Party(desc, "echoed", "client", known_public_keys={"server": key.public_key()},
                   message=message.encode("utf-8"))
    sent = client.next_message()
    assert isinstance(sent, bytes)
    # server.py: rsa.decifrar(recibido.decode('utf-8'), private)
    assert decifrar(sent.decode("utf-8")) == message
    assert sent == cifrar(message).encode("utf-8")
    client.receive(sent)  # server.py's sc.send(recibido)
    assert client.done and client.refusal is None and client.received["repeat"] == sent


def test_dianaxime_client_to_engine_server() -> None:
    key = dianaxime_key()
    server = server_party(loads(ECHO), key)
    recibido = bytes(cifrar("quit? no: hello"), "utf-8")  # client.py's message
    server.receive(recibido)
    assert server.received["message"] == b"quit? no: hello"
    assert server.next_message() == recibido
    assert server.done and server.refusal is None


@pytest.mark.parametrize("encoding", ["raw", "base64", "hex", "latin1"])
def test_encodings_apply_to_the_utf8_ciphertext(encoding: str) -> None:
    key = dianaxime_key()
    desc = loads(echo(f'{{ rsa = "server", padding = "per-character", encoding = "{encoding}" }}'))
    client, srv = options(key, b"hello")
    c, s, log = converse(desc, "echoed", client, srv)
    assert c.done and s.done and s.received["message"] == b"hello"
    assert log[0][1] == v.encode(b"7\xc3\xa1\xc8\xbd\xc8\xbd\xc7\x8e", encoding)
    assert log[1][1] == log[0][1]


def test_stated_text_and_any_text() -> None:
    key = dianaxime_key()
    desc = loads(echo('{ rsa = "server", padding = "per-character", carries = "text:ok, server" }'))
    client, srv = options(key)
    c, s, log = converse(desc, "echoed", client, srv)
    assert log[0][1] == cifrar("ok, server").encode("utf-8") and c.done and s.done
    desc = loads(echo('{ rsa = "server", padding = "per-character", carries = "any-text" }'))
    c, s, log = converse(desc, "echoed", client, srv)
    assert s.received["message"].startswith(b"crosscheck reading ")
    assert decifrar(log[0][1].decode("utf-8")).encode("utf-8") == s.received["message"]


def test_per_character_in_a_concat_has_no_known_length() -> None:
    key = dianaxime_key()
    desc = loads(echo('{ concat = [ { text = "m=" }, { rsa = "server", padding = "per-character" }, { text = "\\n" } ] }'))
    server = server_party(desc, key)
    assert server.expected_length() is None
    wire = b"m=" + cifrar("hi there").encode("utf-8") + b"\n"
    server.receive(wire)
    assert server.received["message"] == b"hi there"
    assert server.next_message() == wire  # repeat: the whole message, its text parts too
    with pytest.raises(DescriptionError, match="at most one part"):
        loads(echo('{ concat = [ { rsa = "server", padding = "per-character" }, '
                   '{ rsa = "server", padding = "per-character" } ] }'))


# ---- the shared fixture --------------------------------------------------------------------------


def test_fixture_reads_as_dianaxime_s_protocol() -> None:
    desc = loads(ECHO)
    assert desc.key("server").bits == 10 and desc.key("server").preshared
    steps = desc.conversations[0].steps
    assert [(s.sender, s.send.kind if s.send else None) for s in steps] == [("client", "rsa"), ("server", "repeat")]
    assert steps[0].send is not None and steps[0].send.padding == "per-character" and steps[0].send.carries == "message"
    assert steps[1].close
    assert desc.weaknesses() == [
        "conversation[0].step[0].send: RSA to key server per character with a toy key of 10 bits (each character "
        "encrypted alone: a substitution table, read by factoring n or trying each character)"]


def test_fixture_conversation_ends_with_the_echo_accepted() -> None:
    key = dianaxime_key()
    client, srv = options(key, b"hello, crosscheck")
    c, s, log = converse(loads(ECHO), "echoed", client, srv)
    assert [who for who, _ in log] == ["client", "server"]
    assert log[0][1] == cifrar("hello, crosscheck").encode("utf-8")
    assert log[1][1] == log[0][1]
    assert s.received["message"] == b"hello, crosscheck"
    assert c.received["repeat"] == log[0][1]
    assert c.done and s.done and c.refusal is None and s.refusal is None


def test_fixture_with_a_fresh_toy_key_and_a_random_message() -> None:
    desc = loads(ECHO)
    server = Party(desc, None, "server")  # makes the server's key: a fresh toy key of 10 bits
    key = server.private_keys["server"]
    assert key.key_size == 10
    c, s, log = converse(desc, "echoed", {"known_public_keys": {"server": key.public_key()}},
                         {"private_keys": {"server": key}})
    assert s.received["message"].startswith(b"crosscheck ") and c.received["repeat"] == log[0][1]
    nums = key.private_numbers()
    n = nums.public_numbers.n
    assert "".join(chr(pow(ord(ch), nums.d, n)) for ch in log[0][1].decode("utf-8")).encode() == s.received["message"]


def test_fixture_over_loopback() -> None:
    key = dianaxime_key()
    desc = loads(ECHO)
    client, srv_options = options(key, "dónde".encode("utf-8"))
    srv = dserver.make_server(desc, party_options=srv_options, quiet_gap=0.2)
    assert isinstance(srv, dserver.TcpServer)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        out = dserver.run_client(desc, "echoed", "127.0.0.1", srv.port, timeout=10, quiet_gap=0.2,
                                 party_options=client)
    finally:
        srv.shutdown()
        thread.join(timeout=5)
    assert out["ok"], out["reason"]
    assert [e["from"] for e in out["log"]] == ["client", "server"]
    assert out["log"][0]["message"] == cifrar("dónde").encode("utf-8") == out["log"][1]["message"]
    assert out["values"]["repeat"] == out["log"][0]["message"]


def test_fixture_through_pem_sessions(tmp_path: Path) -> None:
    """The Swift side opens parties with PEM keys (sessions.open_described): a toy key loads where the
    description's key is one, and only there."""
    key = dianaxime_key()
    path = str(DESCRIPTIONS / "per-character-rsa-echo.toml")
    private_pem = rsa_keys.export_private(key, "pkcs8-pem").decode("ascii")
    public_pem = rsa_keys.export_public(key.public_key(), "spki-pem").decode("ascii")
    server_sid = sessions.open_described(path, None, "server", {"server": private_pem}, {}, {}, None, {})
    client_sid = sessions.open_described(path, "echoed", "client", {}, {"server": public_pem}, {}, b"hello", {})
    try:
        sent = sessions.described(client_sid, lambda party: party.next_message())
        assert sent == b"7\xc3\xa1\xc8\xbd\xc8\xbd\xc7\x8e"
        assert sessions.described_receive(server_sid, sent) is None
        answer = sessions.described(server_sid, lambda party: party.next_message())
        assert answer == sent
        assert sessions.described_receive(client_sid, answer) is None
        assert sessions.described(client_sid, sessions.described_state) == {"done": True, "received": {"repeat": sent}}
        assert sessions.described(server_sid, sessions.described_state) == {"done": True,
                                                                             "received": {"message": b"hello"}}
    finally:
        sessions.close(server_sid)
        sessions.close(client_sid)
    # A 10-bit key for a description whose key is 2048 bits is refused as before.
    other = tmp_path / "big.toml"
    other.write_text(variant(ECHO, ("bits = 10", "bits = 2048"), (PER_CHARACTER, '{ rsa = "server", padding = "pkcs1" }')))
    with pytest.raises(CryptoFailure, match="below the 1024 bits"):
        sessions.open_described(str(other), None, "server", {"server": private_pem}, {}, {}, None, {})


# ---- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize("ciphertext, reason", [
    (b"\xff", "the per-character RSA ciphertext is not UTF-8 text"),
    (b"7\xc3", "the per-character RSA ciphertext is not UTF-8 text"),  # cut in a character
    (b"\xed\xa0\x80", "the per-character RSA ciphertext is not UTF-8 text"),  # U+D800, a surrogate (RFC 3629 §3)
    (b"\xc0\xb7", "the per-character RSA ciphertext is not UTF-8 text"),  # "7" overlong
    (b"", "the per-character RSA ciphertext is empty"),
    ("7\u024d".encode("utf-8"), "the per-character RSA ciphertext has a character not below n = 589 (U+024D)"),
    ("\u4e2d".encode("utf-8"), "the per-character RSA ciphertext has a character not below n = 589 (U+4E2D)"),
])
def test_receiver_refuses(ciphertext: bytes, reason: str) -> None:
    key = dianaxime_key()
    with pytest.raises(Refused) as info:
        v.per_character_decrypt(key, ciphertext)
    assert info.value.reason == reason
    server = server_party(loads(ECHO), key)
    with pytest.raises(Refused) as info:
        server.receive(ciphertext)
    assert info.value.reason == reason and server.done and server.refusal is info.value
    assert "message" not in server.received


def test_a_message_that_is_not_the_conversation_s_is_refused() -> None:
    key = dianaxime_key()
    server = server_party(loads(echo(message="hello")), key)
    with pytest.raises(Refused, match="not the conversation's message"):
        server.receive(cifrar("hellp").encode("utf-8"))


@pytest.mark.parametrize("answer", [b"", b"7\xc3\xa1\xc8\xbd\xc8\xbd\xc7", b"7\xc3\xa1\xc8\xbd\xc8\xbd\xc7\x8e\n",
                                    b"hello", b"7\xc3\xa1\xc8\xbd\xc8\xbd\xc7\x8f"])
def test_an_echo_that_differs_is_refused(answer: bytes) -> None:
    key = dianaxime_key()
    client, srv = options(key, b"hello")

    def tamper(who: str, index: int, msg: Any) -> Any:
        return answer if who == "server" else msg

    with pytest.raises(Refused) as info:
        converse(loads(ECHO), "echoed", client, srv, tamper=tamper)
    assert info.value.reason == "the answer is not the message sent"


@pytest.mark.parametrize("message, words", [
    ("\u024d".encode("utf-8"), "per-character RSA carries only characters below n = 589"),  # U+024D = 589
    ("a\U0001F600".encode("utf-8"), "per-character RSA carries only characters below n = 589"),
    (b"\xff\xfe", "the plaintext is not UTF-8 text; per-character RSA encrypts text, one character at a time"),
    (b"", "per-character RSA carries 1 or more characters; the plaintext is empty"),
])
def test_sender_cannot_carry(message: bytes, words: str) -> None:
    key = dianaxime_key()
    with pytest.raises(CryptoFailure) as failure:
        v.per_character_encrypt(key.public_key(), message)
    assert failure.value.detail == words
    client = Party(loads(ECHO), "echoed", "client", known_public_keys={"server": key.public_key()}, message=message)
    with pytest.raises(Refused) as info:
        client.next_message()
    assert info.value.reason == f"cannot encrypt to key 'server': {words}"
    assert client.done and client.refusal is info.value


def test_a_key_that_is_not_a_toy_key_is_refused(key1024: rsa.RSAPrivateKey) -> None:
    with pytest.raises(CryptoFailure, match="per-character RSA needs a toy key"):
        v.per_character_encrypt(key1024.public_key(), b"hi")
    with pytest.raises(Refused, match="per-character RSA needs a toy key"):
        v.per_character_decrypt(key1024, b"hi")
    with pytest.raises(ValueError, match="key 'server' is a toy key"):
        server_party(loads(ECHO), key1024)
    with pytest.raises(ValueError, match="key 'server' is a toy key"):
        Party(loads(ECHO), "echoed", "client", known_public_keys={"server": key1024.public_key()})


# ---- the description's rules ---------------------------------------------------------------------


def refused(text: str, path: str, message: str) -> None:
    with pytest.raises(DescriptionError) as info:
        loads(text)
    assert info.value.path == path, str(info.value)
    assert info.value.message == message, str(info.value)
    assert info.value.line is not None


STEP0 = "conversation[0].step[0].send"
TOY_USE = 'bits 8 to 15 make a toy key, which only padding = "per-character" values use'
BELOW_128 = "per-character RSA with a toy key carries characters below 128 (the smallest n of an 8-bit key)"


@pytest.mark.parametrize("padding", ["pkcs1", "oaep-sha256", "none"])
def test_toy_key_with_another_padding(padding: str) -> None:
    refused(echo(f'{{ rsa = "server", padding = "{padding}" }}'), "keys.server.bits",
            f"{TOY_USE}; {STEP0} uses key 'server' with padding = \"{padding}\"")


def test_toy_key_as_a_public_key_value() -> None:
    text = variant(ECHO, ("preshared = true\n", ""), ('[[conversation.step]]\nfrom = "client"',
                   '[[conversation.step]]\nfrom = "client"\nsend = { text = "hi" }\n[[conversation.step]]\n'
                   'from = "server"\nsend = { public_key = "server" }\n[[conversation.step]]\nfrom = "client"'))
    refused(text, "keys.server.bits", f"{TOY_USE}; conversation[0].step[1].send uses key 'server' as a public_key value")


@pytest.mark.parametrize("bits", [1024, 2048])
def test_per_character_needs_a_toy_key(bits: int) -> None:
    refused(variant(ECHO, ("bits = 10", f"bits = {bits}")), f"{STEP0}.padding",
            f"padding = \"per-character\" needs a toy key (bits 8 to 15 in [keys.server]); key 'server' is {bits} bits")


@pytest.mark.parametrize("bits", [7, 16, 512, 1000, 0, -10])
def test_bits_outside_both_ranges(bits: int) -> None:
    refused(variant(ECHO, ("bits = 10", f"bits = {bits}")), "keys.server.bits",
            f"bits must be one of 1024, 2048, 3072, 4096; found {bits}; {TOY_USE}")


@pytest.mark.parametrize("bits", list(range(8, 16)))
def test_bits_8_to_15_are_taken(bits: int) -> None:
    assert loads(variant(ECHO, ("bits = 10", f"bits = {bits}"))).key("server").bits == bits


@pytest.mark.parametrize("carries", ["secret:s", "json-fields", "json-message", "echo", "same"])
def test_per_character_carries_text_only(carries: str) -> None:
    extra = ', fields = { a = "integer" }' if carries == "json-fields" else ""
    text = echo(f'{{ rsa = "server", padding = "per-character", carries = "{carries}"{extra} }}')
    refused(text + '[secrets.s]\nmade_by = "client"\n', f"{STEP0}.carries",
            "per-character RSA encrypts UTF-8 text one character at a time: carries must be message, text:TEXT or "
            f"any-text; found {carries!r}")


def test_stated_text_below_128() -> None:
    refused(echo('{ rsa = "server", padding = "per-character", carries = "text:mañana" }'), f"{STEP0}.carries",
            BELOW_128)
    loads(echo('{ rsa = "server", padding = "per-character", carries = "text:\\u007f ok" }'))  # U+007F: taken


@pytest.mark.parametrize("message", ["mañana", "\\u0080", "ok \\u20ac"])
def test_stated_message_below_128(message: str) -> None:
    refused(echo(message=message), "conversation[0].message", BELOW_128)


def test_stated_message_empty_or_ascii() -> None:
    refused(echo(message=""), "conversation[0].message",
            "per-character RSA carries 1 or more characters; the conversation's message is empty")
    desc = loads(echo(message="hello \\u007f"))
    assert desc.conversations[0].message == b"hello \x7f"
    client, srv = options(dianaxime_key())
    c, s, log = converse(desc, "echoed", client, srv)
    assert s.received["message"] == b"hello \x7f" and log[0][1] == cifrar("hello \x7f").encode("utf-8")


def test_per_character_takes_no_utf8_encoding() -> None:
    refused(echo('{ rsa = "server", padding = "per-character", encoding = "utf8" }'), f"{STEP0}.encoding",
            "encoding utf8 is for text payloads; rsa is binary: use base64, base64url or hex")


SERVER_FIRST = """
name = "server-first"
[transport]
kind = "tcp"
[[conversation]]
name = "c"
[[conversation.step]]
from = "FIRST"
send = { repeat = "received" }
[[conversation.step]]
from = "SECOND"
send = { text = "hi" }
"""


@pytest.mark.parametrize("first, second", [("server", "client"), ("client", "server")])
def test_repeat_with_nothing_received(first: str, second: str) -> None:
    refused(SERVER_FIRST.replace("FIRST", first).replace("SECOND", second), STEP0,
            f'repeat = "received" sends back the last message this side received; the {first} has received none '
            "before this step")


def test_repeat_after_only_sending() -> None:
    # The client sent, and the server answered with a repeat; the client's repeat then has the server's answer.
    text = variant(ECHO, ('then = "close"\n', '[[conversation.step]]\nfrom = "client"\nsend = { repeat = "received" }\n'))
    desc = loads(text)
    client, srv = options(dianaxime_key(), b"hi")
    c, s, log = converse(desc, "echoed", client, srv)
    assert [m for _, m in log] == [cifrar("hi").encode("utf-8")] * 3 and c.done and s.done
    # Two client steps in a row: the second has received nothing new, but the first still holds none.
    refused(variant(ECHO, ('from = "server"\nsend = { repeat = "received" }', 'from = "client"\nsend = { repeat = "received" }')),
            "conversation[0].step[1].send",
            'repeat = "received" sends back the last message this side received; the client has received none '
            "before this step")


@pytest.mark.parametrize("send, path", [
    ('{ concat = [ { text = "ok:" }, { repeat = "received" } ] }', "conversation[0].step[1].send.concat[1].repeat"),
    ('{ json = { echo = { repeat = "received" } } }', "conversation[0].step[1].send.json.echo.repeat"),
])
def test_repeat_is_a_whole_send(send: str, path: str) -> None:
    refused(variant(ECHO, ('send = { repeat = "received" }', f"send = {send}")), path,
            'repeat = "received" is the whole send of a tcp step (the last message this side received, sent back as '
            "it came): not a part of a concat, json or form")


def test_repeat_takes_only_received() -> None:
    refused(variant(ECHO, ('{ repeat = "received" }', '{ repeat = "other" }')), "conversation[0].step[1].send.repeat",
            "repeat must be one of \"received\"; found 'other'")
    refused(variant(ECHO, ('{ repeat = "received" }', '{ repeat = 1 }')), "conversation[0].step[1].send.repeat",
            "repeat must be a string; found an integer 1")
    refused(variant(ECHO, ('{ repeat = "received" }', '{ repeat = "received", encoding = "hex" }')),
            "conversation[0].step[1].send.encoding", "unknown key 'encoding'; allowed here: repeat")


HTTP_REPEAT = """
name = "http-repeat"
[transport]
kind = "http"
[[conversation]]
name = "c"
[[conversation.step]]
from = "client"
request = "POST /echo"
body = { text = "hi" }
[[conversation.step]]
from = "server"
body = { repeat = "received" }
"""


def test_repeat_is_tcp_only() -> None:
    refused(HTTP_REPEAT, "conversation[0].step[1].body.repeat",
            'repeat = "received" is the whole send of a tcp step; an http request or response is not one')


def test_repeat_is_no_error_value() -> None:
    text = variant(ECHO, ('name = "echoed"\n', 'name = "echoed"\nerror = { repeat = "received" }\n'))
    with pytest.raises(DescriptionError, match="an error value is fixed text"):
        loads(text)


# ---- toy keys ------------------------------------------------------------------------------------


@pytest.mark.parametrize("bits", list(range(8, 16)))
def test_toy_key_maker(bits: int) -> None:
    half = (bits + 1) // 2
    ascii_text = bytes(range(128))
    for _ in range(200):
        key = rsa_keys.generate_toy(bits)
        nums = key.private_numbers()
        p, q, d = nums.p, nums.q, nums.d
        n, e = nums.public_numbers.n, nums.public_numbers.e
        phi = (p - 1) * (q - 1)
        assert key.key_size == bits and n.bit_length() == bits and n == p * q
        assert 128 <= n <= 32767
        assert p != q and all(1 << (half - 1) <= r < 1 << half for r in (p, q))
        assert all(r % f for r in (p, q) for f in range(2, math.isqrt(r) + 1))  # prime
        assert e % 2 == 1 and 3 <= e < phi and math.gcd(e, phi) == 1
        assert (e * d) % phi == 1
        assert (nums.dmp1, nums.dmq1, nums.iqmp) == (d % (p - 1), d % (q - 1), pow(q, -1, p))
        ciphertext = v.per_character_encrypt(key.public_key(), ascii_text)
        assert len(set(ciphertext.decode("utf-8"))) == 128  # a substitution table: one character each
        assert v.per_character_decrypt(key, ciphertext) == ascii_text
        assert ciphertext.decode("utf-8") == "".join(chr(pow(c, e, n)) for c in ascii_text)
        # It travels as PEM, and loads back where a toy key is expected.
        loaded = rsa_keys.load_private(rsa_keys.export_private(key, "pkcs8-pem"), toy=True)
        assert loaded.private_numbers() == nums


def test_toy_key_maker_refuses_other_sizes() -> None:
    for bits in (7, 16, 1024):
        with pytest.raises(CryptoFailure, match="a toy key has 8 to 15 bits"):
            rsa_keys.generate_toy(bits)


def test_description_keys_are_made_toy() -> None:
    for bits in (8, 12, 15):
        desc = loads(variant(ECHO, ("bits = 10", f"bits = {bits}")))
        assert v.make_key(desc, "server").key_size == bits


def test_toy_keys_load_only_where_said(key1024: rsa.RSAPrivateKey) -> None:
    key = dianaxime_key()
    private_pem = rsa_keys.export_private(key, "pkcs8-pem")
    public_pem = rsa_keys.export_public(key.public_key(), "spki-pem")
    public_der = rsa_keys.export_public(key.public_key(), "pkcs1-der")
    assert rsa_keys.load_private(private_pem, toy=True).private_numbers().d == 431
    assert rsa_keys.load_public(public_pem, toy=True).public_numbers() == rsa.RSAPublicNumbers(431, 589)
    assert rsa_keys.load_public(public_der, toy=True).public_numbers().n == 589
    assert rsa_keys.load_public(private_pem, toy=True).public_numbers().n == 589
    for load, data in ((rsa_keys.load_private, private_pem), (rsa_keys.load_public, public_pem),
                       (rsa_keys.load_public, public_der)):
        with pytest.raises(CryptoFailure, match="the modulus has 10 bits: below the 1024 bits"):
            load(data)
    # A key of 16 bits, or of 1024, is no toy key.
    p, q = 251, 241
    d16 = pow(17, -1, (p - 1) * (q - 1))
    key16 = rsa.RSAPrivateNumbers(p, q, d16, d16 % (p - 1), d16 % (q - 1), pow(q, -1, p),
                                  rsa.RSAPublicNumbers(17, p * q)).private_key()
    for big in (key16, key1024):
        with pytest.raises(CryptoFailure, match="a toy key's has 8 to 15 \\(n from 128 to 32767"):
            rsa_keys.load_private(rsa_keys.export_private(big, "pkcs8-pem"), toy=True)
        with pytest.raises(CryptoFailure, match="a toy key's has 8 to 15"):
            rsa_keys.load_public(rsa_keys.export_public(big.public_key(), "spki-pem"), toy=True)
