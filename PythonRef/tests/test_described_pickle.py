"""The `pickle = [item, ...]` value and per-character RSA's `offset`, as NithinYesudas/Networking_Lab_Python
has them: its rsa_client.py sends `pickle.dumps((e, n, msg))`, its own toy RSA public key and its message in
the clear; its rsa_server.py does `e,n,msg=pickle.loads(key)` and answers
`"".join(chr(pow(ord(c)-ord('A'), e, n)) for c in msg).encode()`, which the client decrypts as
`chr(pow(ord(c), d, n) + 65)`. The writer against CPython's pickle.dumps byte for byte, the strict reader
(which never unpickles), known answers from that formula, the shared fixture (Tests/Descriptions/
pickled-key-per-character.toml) in memory and over loopback, refusals, and the reader's rules by key path."""

from __future__ import annotations

import collections
import os
import pickle
import random
import threading
from typing import Any, Optional, Union

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from pythonref import rsa_keys, sessions
from pythonref.described import DescriptionError, Party, Refused, loads
from pythonref.described import server as dserver
from pythonref.described import values as v
from pythonref.errors import CryptoFailure

from test_described import converse
from test_described_per_character import refused
from test_described_readings import DESCRIPTIONS, fixture

PICKLED = fixture("pickled-key-per-character")  # Tests/Descriptions/pickled-key-per-character.toml
STEP0 = "conversation[0].step[0].send"
STEP1 = "conversation[0].step[1].send"
ITEMS = '[{ public_key = "client", format = "e" }, { public_key = "client", format = "n" }, { plain = "message" }]'
ANSWER = '{ rsa = "client", padding = "per-character", offset = 65, carries = "message" }'

# A toy key for Nithin's formula: p = 11, q = 13, n = 143, φ = 120, e = 7, d = 103 (7 · 103 = 721 = 6 · 120 + 1).
# (Nithin's own example key, e = 7, n = 77 = 11 · 7, d = 43, is below the 128 a toy key's n starts at.)
P, Q, E, D = 11, 13, 7, 103
N = P * Q


def toy_key(p: int = P, q: int = Q, e: int = E) -> rsa.RSAPrivateKey:
    d = pow(e, -1, (p - 1) * (q - 1))
    return rsa.RSAPrivateNumbers(p, q, d, d % (p - 1), d % (q - 1), pow(q, -1, p),
                                 rsa.RSAPublicNumbers(e, p * q)).private_key()


def server_encrypts(msg: str, e: int = E, n: int = N) -> bytes:
    """rsa_server.py's answer, as written there."""
    return "".join(chr(pow(ord(c) - ord('A'), e, n)) for c in msg).encode()


def client_decrypts(answer: bytes, d: int = D, n: int = N) -> str:
    """rsa_client.py's decryption, as written there."""
    return "".join(chr(pow(ord(c), d, n) + 65) for c in answer.decode())


def variant(text: str, *changes: tuple[str, str]) -> str:
    for old, new in changes:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def described(items: str = ITEMS, answer: str = ANSWER, message: Optional[str] = "HELLOPI", bits: int = 8) -> str:
    """The fixture with the pickle's items, the server's answer, the message and the key's bits replaced."""
    text = variant(PICKLED, (f"pickle = {ITEMS}", f"pickle = {items}"), (f"send = {ANSWER}", f"send = {answer}"),
                   ("bits = 8", f"bits = {bits}"))
    if message is None:
        return variant(text, ('message = "HELLOPI"\n', ""))
    return variant(text, ('message = "HELLOPI"', f'message = "{message}"'))


def client_party(desc: Any, key: rsa.RSAPrivateKey, message: Optional[bytes] = None) -> Party:
    return Party(desc, "encrypt-for-me", "client", private_keys={"client": key}, message=message)


# ---- the writer: pickle.dumps(protocol=4), byte for byte -------------------------------------------


N2048 = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key().public_numbers().n
INTS = [0, 1, 255, 256, 65535, 65536, 2**31 - 1, 2**31, 2**32, 2**63, 2**64, N2048, 2**2039, 2**2047 - 1,
        -1, -128, -129, -255, -256, -257, -2**31, -2**31 - 1, -2**63, -N2048]
STRS = ["", "A", "HELLOPI", "x" * 255, "x" * 256, "é" * 127, "é" * 128, "ñandú", "\u20ac" * 85, "\U0001F600" * 64,
        "\x00\n\r\t'\"\\", "x" * 65000]


@pytest.mark.parametrize("item", INTS + STRS)
def test_writer_one_item(item: Union[int, str]) -> None:
    assert v.pickle_tuple((item,)) == pickle.dumps((item,), protocol=4)
    assert v.pickle_tuple((item,), 5) == pickle.dumps((item,), protocol=5)


@pytest.mark.parametrize("count", range(1, 9))
def test_writer_tuples_of_each_length(count: int) -> None:
    # TUPLE1..3 for one to three items; MARK ... TUPLE from four.
    items = tuple((i * 1000003 if i % 2 else f"item {i}") for i in range(count))
    dumped = pickle.dumps(items, protocol=4)
    assert v.pickle_tuple(items) == dumped
    if count > 3:
        assert dumped[11:12] == b"(" and dumped[-3:-2] == b"t"  # MARK, TUPLE
    else:
        assert dumped[-3:-2] == bytes([0x84 + count])  # TUPLE1, TUPLE2, TUPLE3


def test_writer_nithin_s_tuple() -> None:
    dumped = v.pickle_tuple((7, 143, "HELLO"))
    assert dumped == pickle.dumps((7, 143, "HELLO")) == pickle.dumps((7, 143, "HELLO"), protocol=4)
    # PROTO 4, FRAME of 15 bytes, BININT1 7, BININT1 143, SHORT_BINUNICODE "HELLO", MEMOIZE, TUPLE3, MEMOIZE, STOP
    assert dumped == b"\x80\x04\x95\x0f\x00\x00\x00\x00\x00\x00\x00K\x07K\x8f\x8c\x05HELLO\x94\x87\x94."


def _random_item(rng: random.Random, used_short: set[str]) -> Union[int, str]:
    if rng.random() < 0.5:
        bits = rng.choice([1, 8, 9, 16, 17, 31, 32, 33, 63, 64, 65, 200, 1024, 2048, 2100])
        x = rng.getrandbits(bits)
        return -x if rng.random() < 0.2 else x
    while True:
        size = rng.choice([0, 1, 2, 5, 100, 255, 256, 300, 1000])
        text = "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(0xA0, 0x800), rng.randrange(0x800, 0xD800),
                                       rng.randrange(0x10000, 0x110000)])) for _ in range(size))
        # CPython writes BINGET for a str object pickled again: one-character and empty strs are shared objects.
        if len(text) > 1 or text not in used_short:
            used_short.add(text)
            return text


def test_writer_random_tuples() -> None:
    rng = random.Random(20261208)
    for _ in range(2000):
        used: set[str] = set()
        items = tuple(_random_item(rng, used) for _ in range(rng.randint(1, 8)))
        dumped = pickle.dumps(items, protocol=4)
        assert v.pickle_tuple(items) == dumped, items
        assert v._from_pickle_tuple(dumped) == items
        assert v._from_pickle_tuple(pickle.dumps(items, protocol=5)) == items


def test_writer_refuses_a_payload_of_64_kib() -> None:
    # The payload is 9 bytes besides the str: BINUNICODE and its length, MEMOIZE, TUPLE1, MEMOIZE, STOP.
    largest = ("x" * 65526,)
    assert v.pickle_tuple(largest) == pickle.dumps(largest, protocol=4)
    assert int.from_bytes(v.pickle_tuple(largest)[3:11], "little") == 65535
    with pytest.raises(ValueError) as info:
        v.pickle_tuple(("x" * 65527,))
    assert str(info.value) == ("it would be 65536 bytes after its frame header: 65536 or more, which CPython may write "
                               "in more than one frame")


def test_cpython_writes_binget_for_a_repeated_str() -> None:
    # Why the writer is not pickle.dumps: a str object twice is written once and referred back to.
    a = "A"
    assert pickle.dumps((a, a), protocol=4) != v.pickle_tuple((a, a))
    assert b"h\x00" in pickle.dumps((a, a), protocol=4)  # BINGET 0
    with pytest.raises(ValueError):
        v._from_pickle_tuple(pickle.dumps((a, a), protocol=4))
    assert v._from_pickle_tuple(v.pickle_tuple((a, a))) == (a, a)


# ---- the reader: only what pickle.dumps writes, never unpickled ------------------------------------


@pytest.mark.parametrize("protocol", [4, 5])
def test_reader_takes_protocols_4_and_5(protocol: int) -> None:
    items = (65537, N2048, "héllo", "", 0, -5)
    assert v._from_pickle_tuple(pickle.dumps(items, protocol=protocol)) == items


@pytest.mark.parametrize("protocol", [0, 1, 2, 3])
def test_reader_refuses_protocols_0_to_3(protocol: int) -> None:
    with pytest.raises(ValueError):
        v._from_pickle_tuple(pickle.dumps((7, 143, "HELLO"), protocol=protocol))


def _bad_pickles() -> dict[str, bytes]:
    good = pickle.dumps((7, 143, "HELLO"), protocol=4)
    frame = int.from_bytes(good[3:11], "little")
    return {
        "trailing byte": good + b".",
        "trailing newline": good + b"\n",
        "frame too long": good[:3] + (frame + 1).to_bytes(8, "little") + good[11:],
        "frame too short": good[:3] + (frame - 1).to_bytes(8, "little") + good[11:],
        "no frame": b"\x80\x04" + good[11:],
        "protocol 6": b"\x80\x06" + good[2:],
        "an ordered dict": pickle.dumps((7, 143, collections.OrderedDict()), protocol=4),  # GLOBAL/REDUCE
        "os.system": pickle.dumps((7, 143, os.system), protocol=4),  # a reference to a callable (STACK_GLOBAL)
        "bytes for a str": pickle.dumps((7, 143, b"HELLO"), protocol=4),
        "a float": pickle.dumps((7.0, 143, "HELLO"), protocol=4),
        "a list": pickle.dumps([7, 143, "HELLO"], protocol=4),
        "a bool": pickle.dumps((True, 143, "HELLO"), protocol=4),
        "nested": pickle.dumps(((7, 143), "HELLO"), protocol=4),
        "empty tuple": pickle.dumps((), protocol=4),
        "not utf-8": good.replace(b"HELLO", b"HELL\xff"),
        "a surrogate": good.replace(b"\x05HELLO", b"\x05HE\xed\xa0\x80"),  # U+D800, as CPython's surrogatepass writes it
        "BININT for a small int": good.replace(b"K\x07", b"J\x07\x00\x00\x00").replace(
            good[3:11], (frame + 3).to_bytes(8, "little")),
        "no MEMOIZE after the str": good.replace(b"HELLO\x94", b"HELLO").replace(good[3:11], (frame - 1).to_bytes(8, "little")),
        "BINUNICODE for a short str": good.replace(b"\x8c\x05HELLO", b"X\x05\x00\x00\x00HELLO").replace(
            good[3:11], (frame + 3).to_bytes(8, "little")),
        "MARK and TUPLE for three": good.replace(b"K\x07", b"(K\x07").replace(b"\x87", b"t").replace(
            good[3:11], (frame + 1).to_bytes(8, "little")),
        "empty": b"",
    }


@pytest.mark.parametrize("name", sorted(_bad_pickles()))
def test_reader_refuses(name: str) -> None:
    with pytest.raises((ValueError, UnicodeDecodeError)):
        v._from_pickle_tuple(_bad_pickles()[name])


def test_reader_refuses_every_truncation() -> None:
    good = pickle.dumps((65537, N2048, "HELLO" * 60, "x" * 300), protocol=4)
    for end in range(len(good)):
        with pytest.raises(ValueError):
            v._from_pickle_tuple(good[:end])


def test_reader_refuses_huge_lengths_without_reading_them() -> None:
    for op in (b"X", b"\x8b"):  # BINUNICODE, LONG4 with a length past the end
        data = b"\x80\x04\x95\x0a\x00\x00\x00\x00\x00\x00\x00" + op + b"\xff\xff\xff\x7f" + b"\x85\x94."
        with pytest.raises(ValueError):
            v._from_pickle_tuple(data)


# ---- offset: Nithin's formula's known answers ----------------------------------------------------


def test_offset_known_answers() -> None:
    key = toy_key()
    assert (E * D) % ((P - 1) * (Q - 1)) == 1 and 7 * 103 == 721 == 6 * 120 + 1
    expected = "".join(chr(pow(ord(c) - 65, 7, 143)) for c in "HELLO")
    assert [ord(c) for c in expected] == [6, 82, 132, 132, 53]
    ciphertext = v.per_character_encrypt(key.public_key(), b"HELLO", 65)
    assert ciphertext == expected.encode("utf-8") == server_encrypts("HELLO") == b"\x06R\xc2\x84\xc2\x845"
    assert v.per_character_decrypt(key, ciphertext, 65) == b"HELLO"
    assert client_decrypts(ciphertext) == "HELLO"
    # Nithin's own key (n = 77) for the record: the same formula, which the engine's toy keys start above.
    assert [pow(ord(c) - 65, 7, 77) for c in "HELLO"] == [28, 60, 11, 11, 42]
    assert "".join(chr(pow(c, 43, 77) + 65) for c in [28, 60, 11, 11, 42]) == "HELLO"


@pytest.mark.parametrize("offset", [0, 1, 65, 0x3000, 0xD800 - 143, 0xE000, 0x10FFFF - 142])
def test_offset_round_trips_every_character_it_carries(offset: int) -> None:
    key = toy_key()
    text = "".join(chr(offset + m) for m in range(N))
    ciphertext = v.per_character_encrypt(key.public_key(), text.encode("utf-8"), offset)
    assert ciphertext.decode("utf-8") == "".join(chr(pow(ord(c) - offset, E, N)) for c in text)
    assert v.per_character_decrypt(key, ciphertext, offset) == text.encode("utf-8")


@pytest.mark.parametrize("offset, text, words", [
    (65, "@", "per-character RSA with offset 65 carries characters from U+0041 (65) to below 65 + n = 208"),
    (65, "HELLO world", "per-character RSA with offset 65 carries characters from U+0041 (65) to below 65 + n = 208"),
    (65, "\u00d0", "per-character RSA with offset 65 carries characters from U+0041 (65) to below 65 + n = 208"),
    (0x3000, "\u2fff", "per-character RSA with offset 12288 carries characters from U+3000 (12288) to below 12288 + n "
                       "= 12431"),
    (0, "\u008f", "per-character RSA carries only characters below n = 143"),
])
def test_sender_cannot_carry_outside_the_offset(offset: int, text: str, words: str) -> None:
    with pytest.raises(CryptoFailure) as failure:
        v.per_character_encrypt(toy_key().public_key(), text.encode("utf-8"), offset)
    assert failure.value.detail == words


@pytest.mark.parametrize("offset, m", [(0xD800 - 5, 5), (0xD800, 0), (0xDFFF - 142, 142), (0x10FFFF, 1),
                                       (0x10FFFF - 10, 11)])
def test_receiver_refuses_a_sum_that_is_no_character(offset: int, m: int) -> None:
    key = toy_key()
    ciphertext = chr(pow(m, E, N)).encode("utf-8")  # decrypts to m
    with pytest.raises(Refused) as info:
        v.per_character_decrypt(key, ciphertext, offset)
    assert info.value.reason == f"the per-character RSA ciphertext decrypts to no character (U+{m + offset:04X})"


# ---- the shared fixture: Nithin's client and server ------------------------------------------------


def test_fixture_reads_as_nithin_s_protocol() -> None:
    desc = loads(PICKLED)
    assert desc.key("client").bits == 8 and not desc.key("client").preshared
    first, answer = (s.send for s in desc.conversations[0].steps)
    assert first is not None and answer is not None
    assert first.kind == "pickle" and [(i.kind, i.arg, i.format if i.kind == "public_key" else "") for i in first.arg] == [
        ("public_key", "client", "e"), ("public_key", "client", "n"), ("plain", "message", "")]
    assert answer.kind == "rsa" and answer.padding == "per-character" and answer.offset == 65
    assert desc.conversations[0].message == b"HELLOPI"
    assert desc.weaknesses() == [
        "conversation[0].step[0].send: a Python pickle (a server that reads it with pickle.loads runs whatever "
        "code a client sends)",
        "conversation[0].step[1].send: RSA to key client per character with a toy key of 8 bits (each character "
        "encrypted alone: a substitution table, read by factoring n or trying each character)"]


def test_fixture_end_to_end() -> None:
    key = toy_key()
    c, s, log = converse(loads(PICKLED), "encrypt-for-me", {"private_keys": {"client": key}})
    assert [who for who, _ in log] == ["client", "server"]
    assert log[0][1] == pickle.dumps((E, N, "HELLOPI"), protocol=4)  # rsa_client.py: pickle.dumps((e, n, msg))
    assert log[1][1] == server_encrypts("HELLOPI")
    assert client_decrypts(log[1][1]) == "HELLOPI"
    assert s.received == {"public_key:client": True} and c.received["message"] == b"HELLOPI"
    assert c.done and s.done and c.refusal is None and s.refusal is None


def test_fixture_with_a_fresh_toy_key() -> None:
    # An 8-bit toy key has p, q from {11, 13}: n = 143, and e any odd number coprime to 120.
    c, s, log = converse(loads(PICKLED), "encrypt-for-me")
    nums = c.private_keys["client"].private_numbers()
    e, n, d = nums.public_numbers.e, nums.public_numbers.n, nums.d
    assert n == 143 and log[0][1] == pickle.dumps((e, n, "HELLOPI"), protocol=4)
    assert log[1][1] == server_encrypts("HELLOPI", e, n) and client_decrypts(log[1][1], d, n) == "HELLOPI"
    assert c.done and s.done and c.refusal is None and s.refusal is None


@pytest.mark.parametrize("protocol", [4, 5])
def test_nithin_client_to_engine_server(protocol: int) -> None:
    server = Party(loads(PICKLED), None, "server")
    server.receive(pickle.dumps((E, N, "HELLOPI"), protocol=protocol))  # CPython's own bytes (3.14: protocol 5)
    assert server.next_message() == server_encrypts("HELLOPI")
    assert server.done and server.refusal is None


def test_engine_client_takes_nithin_s_answer() -> None:
    client = client_party(loads(PICKLED), toy_key())
    assert client.next_message() == pickle.dumps((7, 143, "HELLOPI"))
    client.receive(server_encrypts("HELLOPI"))
    assert client.done and client.refusal is None and client.received["message"] == b"HELLOPI"


def test_a_message_that_is_not_stated_is_learned() -> None:
    desc = loads(described(message=None))
    server = Party(desc, None, "server")
    server.receive(pickle.dumps((E, N, "ABCXYZ"), protocol=4))
    assert server.received["message"] == b"ABCXYZ"
    assert server.next_message() == server_encrypts("ABCXYZ")


def test_fixture_over_loopback() -> None:
    key = toy_key()
    desc = loads(PICKLED)
    srv = dserver.make_server(desc, party_options={}, quiet_gap=0.2)
    assert isinstance(srv, dserver.TcpServer)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        out = dserver.run_client(desc, "encrypt-for-me", "127.0.0.1", srv.port, timeout=10, quiet_gap=0.2,
                                 party_options={"private_keys": {"client": key}})
    finally:
        srv.shutdown()
        thread.join(timeout=5)
    assert out["ok"], out["reason"]
    assert [e["from"] for e in out["log"]] == ["client", "server"]
    assert out["log"][0]["message"] == pickle.dumps((E, N, "HELLOPI"), protocol=4)
    assert out["log"][1]["message"] == server_encrypts("HELLOPI")
    assert out["values"]["message"] == b"HELLOPI"


def test_fixture_through_pem_sessions() -> None:
    """The Swift side opens parties with PEM keys (sessions.open_described): the client's toy key loads as one."""
    key = toy_key()
    path = str(DESCRIPTIONS / "pickled-key-per-character.toml")
    private_pem = rsa_keys.export_private(key, "pkcs8-pem").decode("ascii")
    client_sid = sessions.open_described(path, "encrypt-for-me", "client", {"client": private_pem}, {}, {}, None, {})
    server_sid = sessions.open_described(path, None, "server", {}, {}, {}, None, {})
    try:
        sent = sessions.described(client_sid, lambda party: party.next_message())
        assert sent == pickle.dumps((E, N, "HELLOPI"), protocol=4)
        assert sessions.described_receive(server_sid, sent) is None
        answer = sessions.described(server_sid, lambda party: party.next_message())
        assert answer == server_encrypts("HELLOPI")
        assert sessions.described_receive(client_sid, answer) is None
        assert sessions.described(client_sid, sessions.described_state) == {"done": True,
                                                                             "received": {"message": b"HELLOPI"}}
        assert sessions.described(server_sid, sessions.described_state) == {"done": True, "received": {}}  # bytes only
    finally:
        sessions.close(server_sid)
        sessions.close(client_sid)


def test_a_big_key_in_a_pickle(key1024: rsa.RSAPrivateKey) -> None:
    """Any RSA key's e and n: a 1024-bit key is learned by the usual rules, and encrypted to with OAEP."""
    desc = loads(described(answer='{ rsa = "client", padding = "oaep-sha256", carries = "message" }',
                           message="hello, server", bits=1024))
    assert desc.weaknesses()[0] == "key 'client' is 1024 bits"
    c, s, log = converse(desc, "encrypt-for-me", {"private_keys": {"client": key1024}})
    nums = key1024.public_key().public_numbers()
    assert log[0][1] == pickle.dumps((nums.e, nums.n, "hello, server"), protocol=4)
    assert b"\x8a\x81" + nums.n.to_bytes(129, "little") in log[0][1]  # LONG1 of 129 bytes: 1024 bits and a sign bit
    assert c.done and s.done and c.received["message"] == b"hello, server"


@pytest.mark.parametrize("items, built", [
    ('[{ text = "v1" }, { public_key = "client", format = "n" }, { config = "username" }, '
     '{ public_key = "client", format = "e" }, { plain = "message", encoding = "utf8" }]',
     lambda e, n: ("v1", n, "user", e, "HELLOPI")),
    ('[{ plain = "message" }, { public_key = "client", format = "n" }, { public_key = "client", format = "e" }]',
     lambda e, n: ("HELLOPI", n, e)),
])
def test_items_in_any_order(items: str, built: Any) -> None:
    desc = loads(described(items=items))
    c, s, log = converse(desc, "encrypt-for-me", {"private_keys": {"client": toy_key()}})
    assert log[0][1] == pickle.dumps(built(E, N), protocol=4)
    assert log[1][1] == server_encrypts("HELLOPI") and c.done and s.done


def test_a_pickle_in_a_concat() -> None:
    desc = loads(described(items=ITEMS).replace(f"send = {{ pickle = {ITEMS} }}",
                                               f'send = {{ concat = [ {{ text = "K" }}, {{ pickle = {ITEMS} }} ] }}'))
    server = Party(desc, None, "server")
    assert server.expected_length() is None
    server.receive(b"K" + pickle.dumps((E, N, "HELLOPI"), protocol=4))
    assert server.next_message() == server_encrypts("HELLOPI")
    with pytest.raises(DescriptionError, match="at most one part"):
        loads(described(items=ITEMS).replace(f"send = {{ pickle = {ITEMS} }}",
                                             f"send = {{ concat = [ {{ pickle = {ITEMS} }}, {{ pickle = {ITEMS} }} ] }}"))


# ---- refusals ------------------------------------------------------------------------------------


SHAPE = "the message is not a pickle of 3 items (int, int, str) as pickle.dumps writes one"


@pytest.mark.parametrize("name", sorted(_bad_pickles()))
def test_server_refuses_what_is_not_the_pickle(name: str) -> None:
    server = Party(loads(PICKLED), None, "server")
    with pytest.raises(Refused) as info:
        server.receive(_bad_pickles()[name])
    assert info.value.reason == SHAPE
    assert server.done and "public_key:client" not in server.received


@pytest.mark.parametrize("items", [(7, 143), (7, 143, "HELLOPI", "x"), (7, "143", "HELLOPI"), ("7", 143, "HELLOPI"),
                                   (7, 143, 5), ("HELLOPI",)])
def test_server_refuses_other_tuples(items: tuple[Any, ...]) -> None:
    desc = loads(PICKLED)
    server = Party(desc, "encrypt-for-me", "server")
    with pytest.raises(Refused) as info:
        server.receive(pickle.dumps(items, protocol=4))
    assert info.value.reason == SHAPE


def test_shape_of_one_item() -> None:
    desc = loads(described(items='[{ text = "hi" }]', answer='{ text = "ok" }', message=None))
    server = Party(desc, "encrypt-for-me", "server")
    with pytest.raises(Refused) as info:
        server.receive(pickle.dumps((1,), protocol=4))
    assert info.value.reason == "the message is not a pickle of 1 items (str) as pickle.dumps writes one"
    server = Party(desc, "encrypt-for-me", "server")
    with pytest.raises(Refused) as info:
        server.receive(pickle.dumps(("ho",), protocol=4))
    assert info.value.reason == "expected 'hi', got b'ho'"


@pytest.mark.parametrize("e, n, reason", [
    (7, 144, "bad public key: the modulus n is even: no RSA key (RFC 8017 §3.1: n is a product of odd primes)"),
    (8, 143, "bad public key: e = 8 is even: no RSA key (RFC 8017 §3.1 needs an odd e with 3 ≤ e < n)"),
    (1, 143, "bad public key: e = 1: no RSA key (encrypting to it sends the message in the clear; RFC 8017 §3.1 "
             "needs an odd e with 3 ≤ e < n)"),
    (145, 143, "bad public key: e is not below n: no RSA key (RFC 8017 §3.1 needs an odd e with 3 ≤ e < n)"),
    (7, 77, "bad public key: the modulus has 7 bits: a toy key's has 8 to 15 (n from 128 to 32767, for padding = "
            '"per-character" only)'),
    (7, 32769, "bad public key: the modulus has 16 bits: a toy key's has 8 to 15 (n from 128 to 32767, for padding = "
               '"per-character" only)'),
])
def test_server_refuses_a_number_that_is_no_toy_key(e: int, n: int, reason: str) -> None:
    server = Party(loads(PICKLED), "encrypt-for-me", "server")
    with pytest.raises(Refused) as info:
        server.receive(pickle.dumps((e, n, "HELLOPI"), protocol=4))
    assert info.value.reason == reason and server.done


@pytest.mark.parametrize("p, q, e", [(11, 13, 7), (11, 13, 119), (127, 251, 11), (2, 67, 3)])
def test_toy_key_is_any_from_128_to_32767(p: int, q: int, e: int) -> None:
    # Whatever the description's bits (8 here): n from 128 (2 · 67 = 134, an even n is refused) to 32767.
    nums = rsa.RSAPublicNumbers(e, p * q)
    server = Party(loads(described(message="HELLO")), "encrypt-for-me", "server")
    if p == 2:
        with pytest.raises(Refused, match="the modulus n is even"):
            server.receive(pickle.dumps((nums.e, nums.n, "HELLO"), protocol=4))
    else:
        server.receive(pickle.dumps((nums.e, nums.n, "HELLO"), protocol=4))
        assert server.next_message() == server_encrypts("HELLO", nums.e, nums.n)


def test_a_big_key_must_be_big(key1024: rsa.RSAPrivateKey) -> None:
    desc = loads(described(answer='{ rsa = "client", padding = "oaep-sha256", carries = "message" }', bits=2048))
    server = Party(desc, "encrypt-for-me", "server")
    with pytest.raises(Refused) as info:
        server.receive(pickle.dumps((E, N, "HELLOPI"), protocol=4))
    assert info.value.reason == ("bad public key: the modulus has 8 bits: below the 1024 bits the protocol requires "
                                 "(docs/PROTOCOL.md)")
    nums = key1024.public_key().public_numbers()
    server = Party(desc, "encrypt-for-me", "server")
    server.receive(pickle.dumps((nums.e, nums.n, "HELLOPI"), protocol=4))  # a live peer's key of any size from 1024
    assert server.received["public_key:client"]


def test_the_message_in_the_clear_is_checked() -> None:
    server = Party(loads(PICKLED), "encrypt-for-me", "server")
    with pytest.raises(Refused) as info:
        server.receive(pickle.dumps((E, N, "HELLOPO"), protocol=4))
    assert info.value.reason == "the message in the clear is not the conversation's message"


@pytest.mark.parametrize("answer, reason", [
    (server_encrypts("HELLOPO"), "the message received is not the conversation's message"),
    (b"\xff", "the per-character RSA ciphertext is not UTF-8 text"),
    (b"", "the per-character RSA ciphertext is empty"),
    (chr(143).encode("utf-8"), "the per-character RSA ciphertext has a character not below n = 143 (U+008F)"),
])
def test_client_refuses_a_wrong_answer(answer: bytes, reason: str) -> None:
    client = client_party(loads(PICKLED), toy_key())
    client.next_message()
    with pytest.raises(Refused) as info:
        client.receive(answer)
    assert info.value.reason == reason


@pytest.mark.parametrize("message", [b"@home", b"HELLO PI", "HELLO\u00d0".encode("utf-8")])
def test_server_cannot_answer_outside_the_offset(message: bytes) -> None:
    desc = loads(described(message=None))
    server = Party(desc, None, "server")
    server.receive(pickle.dumps((E, N, message.decode("utf-8")), protocol=4))
    with pytest.raises(Refused) as info:
        server.next_message()
    assert info.value.reason == ("cannot encrypt to key 'client': per-character RSA with offset 65 carries characters "
                                 "from U+0041 (65) to below 65 + n = 208")


def test_sender_cannot_build_a_pickle_of_64_kib() -> None:
    client = client_party(loads(described(message=None)), toy_key(), message=b"A" * 65600)
    with pytest.raises(Refused) as info:
        client.next_message()
    assert info.value.reason == ("cannot build the pickle: it would be 65613 bytes after its frame header: 65536 or "
                                 "more, which CPython may write in more than one frame")
    client = client_party(loads(described(message=None)), toy_key(), message=b"\xff")
    with pytest.raises(Refused) as info:
        client.next_message()
    assert info.value.reason == ("cannot build the pickle: conversation[0].step[0].send.pickle[2] is not UTF-8 text "
                                 "(a Python str)")


# ---- the description's rules ---------------------------------------------------------------------


ITEM_USE = "a pickle item is a key's e or n, or text: text, plain, config, token"


@pytest.mark.parametrize("padding", ["pkcs1", "oaep-sha256", "none"])
def test_offset_is_per_character_only(padding: str) -> None:
    refused(described(answer=f'{{ rsa = "client", padding = "{padding}", offset = 65 }}', bits=2048),
            f"{STEP1}.offset", 'offset is for padding = "per-character" only')


@pytest.mark.parametrize("offset, words", [
    ("-1", "offset must be in 0..1114111; found -1"),
    ("1114112", "offset must be in 0..1114111; found 1114112"),
    ('"65"', "offset must be an integer; found a string '65'"),
    ("65.0", "offset must be an integer; found a float 65.0"),
    ("true", "offset must be an integer; found a boolean True"),
])
def test_offset_range(offset: str, words: str) -> None:
    refused(described(answer=f'{{ rsa = "client", padding = "per-character", offset = {offset} }}'), f"{STEP1}.offset",
            words)


def test_offset_bounds_are_taken() -> None:
    for offset in (0, 1114111):
        answer = f'{{ rsa = "client", padding = "per-character", offset = {offset}, carries = "any-text" }}'
        assert loads(described(answer=answer, message=None)).conversations[0].steps[1].send.offset == offset


def test_offset_0_is_the_default() -> None:
    desc = loads(described(answer='{ rsa = "client", padding = "per-character" }', message="hello"))
    assert desc.conversations[0].steps[1].send.offset == 0
    c, s, log = converse(desc, "encrypt-for-me", {"private_keys": {"client": toy_key()}})
    assert log[1][1] == "".join(chr(pow(ord(ch), E, N)) for ch in "hello").encode("utf-8")


@pytest.mark.parametrize("text", ["@", "HELLO world", "A\u00c1", "\u0100"])
def test_stated_text_within_the_offset(text: str) -> None:
    refused(described(answer=f'{{ rsa = "client", padding = "per-character", offset = 65, carries = "text:{text}" }}'),
            f"{STEP1}.carries",
            "per-character RSA with offset 65 carries characters from 65 to 192 (the smallest n of an 8-bit key)")


def test_stated_text_at_the_offset_s_ends() -> None:
    answer = '{ rsa = "client", padding = "per-character", offset = 65, carries = "text:A\\u00c0" }'  # 65 and 192
    desc = loads(described(answer=answer))
    c, s, log = converse(desc, "encrypt-for-me", {"private_keys": {"client": toy_key()}})
    assert log[1][1] == server_encrypts("A\u00c0") and c.done and s.done


@pytest.mark.parametrize("message", ["hi!", "HELLO PI", "HELLO\\u00c1", "@"])
def test_stated_message_within_the_offset(message: str) -> None:
    refused(described(message=message), "conversation[0].message",
            "per-character RSA with offset 65 carries characters from 65 to 192 (the smallest n of an 8-bit key)")


def test_offset_0_keeps_its_words() -> None:
    refused(described(answer='{ rsa = "client", padding = "per-character", offset = 0 }', message="ma\\u00f1ana"),
            "conversation[0].message",
            "per-character RSA with a toy key carries characters below 128 (the smallest n of an 8-bit key)")
    refused(described(answer='{ rsa = "client", padding = "per-character", offset = 0, carries = "text:\\u0080" }'),
            f"{STEP1}.carries",
            "per-character RSA with a toy key carries characters below 128 (the smallest n of an 8-bit key)")


@pytest.mark.parametrize("items, found", [("[]", 0), ("[" + ", ".join(['{ text = "a" }'] * 9) + "]", 9)])
def test_pickle_holds_1_to_8_items(items: str, found: int) -> None:
    refused(described(items=items, answer='{ text = "ok" }'), f"{STEP0}.pickle",
            f"a pickle holds 1 to 8 items; found {found}")
    assert loads(described(items="[" + ", ".join(['{ text = "a" }'] * 8) + "]", answer='{ text = "ok" }'))


def test_pickle_is_a_list() -> None:
    refused(described(items='"e, n, msg"', answer='{ text = "ok" }'), f"{STEP0}.pickle",
            "pickle must be an array; found a string 'e, n, msg'")


@pytest.mark.parametrize("item", [
    '{ rsa = "client", padding = "per-character" }', '{ json = { a = { text = "x" } } }', '{ secret = "s" }',
    '{ concat = [ { text = "x" } ] }', '{ pickle = [ { text = "x" } ] }', '{ length_of = "message" }',
    '{ digest = "sha256" }', '{ repeat = "received" }', '{ sealed = "s", cipher = "aes-gcm" }',
])
def test_pickle_item_kinds(item: str) -> None:
    items = f'[{{ public_key = "client", format = "e" }}, {{ public_key = "client", format = "n" }}, {item}]'
    refused(described(items=items), f"{STEP0}.pickle[2]", ITEM_USE)


@pytest.mark.parametrize("fmt", ["e", "n"])
def test_e_and_n_only_in_a_pickle(fmt: str) -> None:
    words = "public exponent" if fmt == "e" else "modulus"
    refused(described(items=ITEMS).replace(f"send = {{ pickle = {ITEMS} }}",
                                          f'send = {{ public_key = "client", format = "{fmt}" }}'),
            f"{STEP0}.format", f'format = "{fmt}" is a pickle item\'s (the key\'s {words} as a Python int): put it in a '
            "pickle value, with the other number")


@pytest.mark.parametrize("item, path, words", [
    ('{ public_key = "client" }', "format", "format is required; add it"),
    ('{ public_key = "client", format = "pem-spki" }', "format", "format must be one of \"e\", \"n\"; found 'pem-spki'"),
    ('{ public_key = "client", format = "jwk" }', "format", "format must be one of \"e\", \"n\"; found 'jwk'"),
    ('{ public_key = "client", format = "n", encoding = "hex" }', "encoding",
     "unknown key 'encoding'; allowed here: public_key, format"),
    ('{ public_key = "client", format = "n", also_accepts = ["e"] }', "also_accepts",
     "unknown key 'also_accepts'; allowed here: public_key, format"),
])
def test_public_key_items_are_e_or_n(item: str, path: str, words: str) -> None:
    items = f'[{{ public_key = "client", format = "e" }}, {item}, {{ plain = "message" }}]'
    refused(described(items=items), f"{STEP0}.pickle[1].{path}", words)


@pytest.mark.parametrize("items, holds", [
    ('[{ public_key = "client", format = "e" }, { plain = "message" }]', "e"),
    ('[{ public_key = "client", format = "n" }, { plain = "message" }]', "n"),
    ('[{ public_key = "client", format = "e" }, { public_key = "client", format = "e" }, { plain = "message" }]', "e, e"),
    ('[{ public_key = "client", format = "n" }, { public_key = "client", format = "e" }, '
     '{ public_key = "client", format = "n" }]', "n, e, n"),
])
def test_a_pickle_holds_e_and_n_once_each(items: str, holds: str) -> None:
    refused(described(items=items), f"{STEP0}.pickle", "a pickle holds key 'client''s e and n once each (its receiver "
            f"learns the key from them); this one holds {holds}")


@pytest.mark.parametrize("encoding", ["hex", "base64", "raw", "latin1"])
def test_plain_items_are_utf8(encoding: str) -> None:
    items = ITEMS.replace('{ plain = "message" }', f'{{ plain = "message", encoding = "{encoding}" }}')
    refused(described(items=items), f"{STEP0}.pickle[2].encoding",
            f"a pickle item is a Python str, the message's UTF-8: encoding must be \"utf8\" or absent; found {encoding!r}")
    ok = ITEMS.replace('{ plain = "message" }', '{ plain = "message", encoding = "utf8" }')
    assert loads(described(items=ok)).conversations[0].steps[0].send.arg[2].encoding == "utf8"


def test_a_pickle_is_no_json_field() -> None:
    refused(described(items=ITEMS).replace(f"send = {{ pickle = {ITEMS} }}", f"send = {{ json = {{ k = {{ pickle = {ITEMS} }} }} }}"),
            f"{STEP0}.json.k.pickle", "a pickle is binary; it cannot be a JSON or form field")


def test_the_holder_sends_the_key() -> None:
    text = variant(described(), ('holder = "client"', 'holder = "server"'))
    refused(text, f"{STEP0}.pickle[0].public_key", "the client sends key 'client''s public half but the server holds "
            "it: change holder or the step's from")


def test_the_key_is_known_after_the_pickle_only() -> None:
    # The server encrypts to the client's key before the pickle brings it.
    text = variant(described(), ('from = "client"\nsend = { pickle', 'from = "server"\nsend = { rsa = "client", '
                                 'padding = "per-character", offset = 65 }\n\n[[conversation.step]]\nfrom = "client"\n'
                                 'send = { pickle'))
    refused(text, f"{STEP0}.rsa", "the server encrypts to key 'client' but never learns its public half: send it first "
            "in a public_key value from the client, or set preshared = true")


def test_e_and_n_of_an_ec_key() -> None:
    text = variant(described(), ('holder = "client"', 'holder = "client"\ntype = "ec-p256"'), ("bits = 8\n", ""))
    refused(text, f"{STEP0}.pickle[0].format", "key 'client' is an ec-p256 key: its public half is pem-spki, "
            "pem-spki-newline, der-spki, x962, x962-compressed, raw, not e")


def test_a_toy_key_s_public_half_goes_only_in_a_pickle() -> None:
    text = described(items=ITEMS).replace(f"send = {{ pickle = {ITEMS} }}", 'send = { public_key = "client" }')
    refused(text, "keys.client.bits", 'bits 8 to 15 make a toy key, which only padding = "per-character" values use; '
            f"{STEP0} uses key 'client' as a public_key value")


def test_a_pickle_is_no_error_value() -> None:
    text = variant(PICKLED, ('message = "HELLOPI"', f'message = "HELLOPI"\nerror = {{ pickle = [{{ text = "no" }}] }}'))
    refused(text, "conversation[0].error.pickle", 'an error value is fixed text: use { text = "..." } (or '
            '{ starts_with = "..." } for a text that varies after its beginning)')


def test_weakness_wording() -> None:
    desc = loads(described(items='[{ text = "a" }]', answer='{ text = "ok" }', message=None))
    assert desc.weaknesses() == ["conversation[0].step[0].send: a Python pickle (a server that reads it with "
                                 "pickle.loads runs whatever code a client sends)"]


def test_toy_key_numbers_load_by_the_toy_rules() -> None:
    assert rsa_keys.public_from_numbers(143, 7, toy=True).public_numbers() == rsa.RSAPublicNumbers(7, 143)
    with pytest.raises(CryptoFailure, match="below the 1024 bits"):
        rsa_keys.public_from_numbers(143, 7)
    with pytest.raises(CryptoFailure, match="a toy key's has 8 to 15"):
        rsa_keys.public_from_numbers(N2048, 65537, toy=True)
    assert rsa_keys.public_from_numbers(N2048, 65537).key_size == 2048

