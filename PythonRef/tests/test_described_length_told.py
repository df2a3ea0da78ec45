"""A part's length told by the field before it (`length_of = "next"`) and textbook RSA of a raw secret,
as ProPorygon/TheOgreProtocol has them (Python 2, PyCrypto): its client.py sends "r", then
utils.send_message_with_length_prefix(s, da_pub_key.encrypt(aes_key, 0)[0]) -- struct.pack("!I",
len(ct)) + ct, ct PyCrypto's long_to_bytes(c) of a textbook RSA encryption of 32 random bytes -- and its
directory_authority.py answers send_message_with_length_prefix(clientsocket, blob), blob the AES-256-CBC
encryption (IV "0" * 16, utils.pad_message's PKCS#7-style padding) of its route under that key.
Known answers for 1-, 2- and 4-byte length fields built with Python's struct, a 127-byte ciphertext
(c < 256**127) taken by its told length, refusals, the reader's rules by key path, the secret maker's
draws, the shared fixture (Tests/Descriptions/length-told-textbook-secret.toml) in memory, over loopback
and through PEM sessions, and the weakness it reports."""

from __future__ import annotations

import struct
import threading
import tomllib
from typing import Any, Optional

import pytest
from cryptography.hazmat.primitives import padding as sympad
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.asymmetric import rsa

from pythonref import rsa_keys, sessions
from pythonref.described import DescriptionError, Party, Refused, loads
from pythonref.described import server as dserver
from pythonref.described import values as v

from test_described import _set, assert_refused_at, converse
from test_described_readings import DESCRIPTIONS, fixture
from test_described_textbook_rsa import E, K, N, fixed_key

LENGTH_TOLD = fixture("length-told-textbook-secret")  # Tests/Descriptions/length-told-textbook-secret.toml
CLIENT_VALUE = '{ rsa = "directory", padding = "none", carries = "secret:k" }'
LENGTH_FIELD = '{ length_of = "next" }'
STRUCT = {1: "!B", 2: "!H", 4: "!I"}  # struct's big-endian ("!", network order) unsigned 1, 2 and 4 bytes
IV = b"0" * 16  # AES.new(aes_key, AES.MODE_CBC, "0" * 16)
S0 = "conversation[0].step[0].send"
S1 = "conversation[0].step[1].send"

# A 32-byte secret and its textbook RSA ciphertext under test_described_textbook_rsa's fixed 1024-bit key:
# I2OSP(OS2IP(SECRET)^e mod n, 128), computed with Python's int pow.
SECRET = bytes(range(1, 33))
SECRET_CT = bytes.fromhex(
    "35c8162162096837eb8e3603231c1c6636495ac2ef51d47ea6fbbe4a3a4b7766038ac3dfac141596501a582cf8bd4893"
    "93ee71d7761d55903902f55c971e7eb66f5e34f1fd1aa7a8ad623fa0ab73f747fc779f42881d627cb5afd5af08a6c265"
    "bb75c4710f2bf239c2ca355279b36c0cce86c79a9b05aa320fc17fa11eabd11c")


def variant(text: str, *changes: tuple[str, str]) -> str:
    for old, new in changes:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def described(client: str = f'{{ concat = [{{ text = "r" }}, {LENGTH_FIELD}, {CLIENT_VALUE}] }}') -> str:
    """The fixture with the client's whole send replaced."""
    return variant(LENGTH_TOLD, (f'send = {{ concat = [{{ text = "r" }}, {LENGTH_FIELD}, {CLIENT_VALUE}] }}',
                                 f"send = {client}"))


def long_to_bytes(x: int) -> bytes:
    """PyCrypto's Crypto.Util.number.long_to_bytes(x): big-endian, no leading zero bytes."""
    return x.to_bytes(max(1, (x.bit_length() + 7) // 8), "big")


def pycrypto_encrypt(plaintext: bytes) -> bytes:
    """da_pub_key.encrypt(aes_key, 0)[0] under the fixed key: long_to_bytes(OS2IP(aes_key)^e mod n)."""
    return long_to_bytes(pow(int.from_bytes(plaintext, "big"), E, N))


def route_blob(key: bytes, route: bytes) -> bytes:
    """directory_authority.py's aes_obj.encrypt(utils.pad_message(route_message)), IV "0" * 16."""
    padder = sympad.PKCS7(128).padder()  # pad_message: chr(pad_size) * pad_size, 1 to 16
    enc = Cipher(algorithms.AES(key), modes.CBC(IV)).encryptor()
    return enc.update(padder.update(route) + padder.finalize()) + enc.finalize()


def route_plaintext(key: bytes, blob: bytes) -> bytes:
    dec = Cipher(algorithms.AES(key), modes.CBC(IV)).decryptor()
    unpadder = sympad.PKCS7(128).unpadder()
    return unpadder.update(dec.update(blob) + dec.finalize()) + unpadder.finalize()


def server_party(desc: Any, key: Optional[rsa.RSAPrivateKey] = None) -> Party:
    return Party(desc, None, "server", private_keys={"directory": key or fixed_key()})


def client_party(desc: Any, secret: bytes = SECRET) -> Party:
    return Party(desc, "route", "client", known_public_keys={"directory": fixed_key().public_key()},
                 secrets={"k": secret})


def secret_with_short_ciphertext() -> bytes:
    """A 32-byte secret (first byte 0x01) whose textbook ciphertext c is below 256**127: PyCrypto sends 127 bytes."""
    for i in range(1, 100_000):
        secret = b"\x01" + i.to_bytes(31, "big")
        if pow(int.from_bytes(secret, "big"), E, N) < 256 ** 127:
            return secret
    raise AssertionError("no ciphertext below 256**127")


# ---- building and parsing: known answers ---------------------------------------------------------


def test_secret_ciphertext_is_textbook_rsa() -> None:
    assert pow(int.from_bytes(SECRET_CT, "big"), fixed_key().private_numbers().d, N) == int.from_bytes(SECRET, "big")
    assert v.textbook_encrypt(fixed_key().public_key(), SECRET) == SECRET_CT == pycrypto_encrypt(SECRET)


@pytest.mark.parametrize("size", [1, 2, 4])
def test_client_message_known_answer(size: int) -> None:
    field = LENGTH_FIELD if size == 4 else f'{{ length_of = "next", bytes = {size} }}'
    desc = loads(described(f'{{ concat = [{{ text = "r" }}, {field}, {CLIENT_VALUE}] }}'))
    sent = client_party(desc).next_message()
    expected = b"r" + struct.pack(STRUCT[size], 128) + SECRET_CT  # s.send('r'); struct.pack("!I", len(ct)) + ct
    assert sent == expected and len(sent) == 1 + size + 128
    assert {1: b"r\x80", 2: b"r\x00\x80", 4: b"r\x00\x00\x00\x80"}[size] == sent[:1 + size]
    server = server_party(desc)
    assert server.expected_length() is None  # the ciphertext's length is told, not known beforehand
    server.receive(sent)
    assert server.received == {"secret:k": SECRET} and server.refusal is None


def test_server_answer_known_answer() -> None:
    desc = loads(LENGTH_TOLD)
    client = client_party(desc)
    client.next_message()
    route = b"127.0.0.1:5000 -> 127.0.0.1:5001 -> 127.0.0.1:6000"
    blob = route_blob(SECRET, route)
    answer = struct.pack("!I", len(blob)) + blob  # send_message_with_length_prefix(clientsocket, blob)
    assert answer[:4] == b"\x00\x00\x00\x40" and len(blob) == 64
    client.receive(answer)
    assert client.done and client.refusal is None and client.received["message"] == route


def test_server_builds_its_answer_as_the_directory_authority() -> None:
    desc = loads(LENGTH_TOLD)
    server = server_party(desc)
    server.receive(b"r" + struct.pack("!I", 128) + SECRET_CT)
    answer = server.next_message()
    assert isinstance(answer, bytes) and server.done
    (told,) = struct.unpack("!I", answer[:4])  # recv_message_with_length_prefix
    assert told == len(answer) - 4 and told % 16 == 0
    assert route_plaintext(SECRET, answer[4:]).startswith(b"crosscheck reading ")


def test_told_length_follows_the_encoding() -> None:
    """The field tells the next part's bytes as sent: hex doubles them."""
    value = '{ rsa = "directory", padding = "none", carries = "secret:k", encoding = "hex" }'
    desc = loads(described(f'{{ concat = [{{ text = "r" }}, {{ length_of = "next", bytes = 2 }}, {value}] }}'))
    sent = client_party(desc).next_message()
    assert sent == b"r\x01\x00" + SECRET_CT.hex().encode("ascii")
    server = server_party(desc)
    server.receive(sent)
    assert server.received == {"secret:k": SECRET}


def test_sender_cannot_build_a_part_its_field_cannot_hold() -> None:
    value = '{ rsa = "directory", padding = "none", carries = "secret:k", encoding = "hex" }'
    desc = loads(described(f'{{ concat = [{{ text = "r" }}, {{ length_of = "next", bytes = 1 }}, {value}] }}'))
    client = client_party(desc)
    with pytest.raises(Refused) as info:
        client.next_message()
    assert info.value.reason == f"{S0}.concat[2] has 256 bytes: more than a 1-byte length field holds"
    assert client.done and client.refusal is info.value


def test_a_127_byte_ciphertext_is_taken_by_its_told_length() -> None:
    """PyCrypto sends long_to_bytes(c): when c < 256**127, 127 bytes, and the length field says 127."""
    secret = secret_with_short_ciphertext()
    ct = pycrypto_encrypt(secret)
    assert len(ct) == 127 and v.textbook_encrypt(fixed_key().public_key(), secret) == b"\x00" + ct
    desc = loads(LENGTH_TOLD)
    server = server_party(desc)
    server.receive(b"r" + struct.pack("!I", 127) + ct)
    assert server.received == {"secret:k": secret}
    answer = server.next_message()
    assert isinstance(answer, bytes)
    client = client_party(desc, secret)
    client.next_message()
    client.receive(answer)
    assert client.done and client.refusal is None
    # The engine's own sender writes k bytes (I2OSP), the same c: the server takes either.
    sent = client_party(desc, secret).next_message()
    assert sent == b"r" + struct.pack("!I", 128) + b"\x00" + ct
    other = server_party(desc)
    other.receive(sent)
    assert other.received == {"secret:k": secret}


def test_told_parts_then_one_untold_part_then_fixed_parts() -> None:
    """A told part, a part of unknown length no field tells, then fixed parts: the untold part takes what
    the fixed parts after it leave."""
    desc = loads(described('{ concat = [{ text = "r" }, { length_of = "next", bytes = 2 }, ' + CLIENT_VALUE + ', '
                           '{ rsa = "directory", padding = "none", carries = "text:hello" }, { text = "\\n" }] }'))
    hello = pycrypto_encrypt(b"hello")
    for first in (SECRET_CT, pycrypto_encrypt(secret_with_short_ciphertext())):
        server = server_party(desc)
        server.receive(b"r" + struct.pack("!H", len(first)) + first + hello + b"\n")
        assert server.refusal is None and len(server.received["secret:k"]) == 32
    sent = client_party(desc).next_message()
    assert sent == b"r\x00\x80" + SECRET_CT + hello.rjust(K, b"\x00") + b"\n"
    server = server_party(desc)
    server.receive(sent)
    assert server.received == {"secret:k": SECRET}


def test_split_concat_cuts_as_the_receiver_does() -> None:
    desc = loads(LENGTH_TOLD)
    server = server_party(desc)
    ctx = server._ctx  # noqa: SLF001 -- the server's context, to cut without parsing
    assert ctx is not None
    step = desc.conversations[0].steps[0].send
    assert step is not None
    assert v.split_concat(step, b"r\x00\x00\x00\x03abc", ctx) == [b"r", b"\x00\x00\x00\x03", b"abc"]
    assert v.split_concat(step, b"r\x00\x00\x00\x00", ctx) == [b"r", b"\x00\x00\x00\x00", b""]


# ---- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize("message, reason", [
    (b"r" + struct.pack("!I", 129) + SECRET_CT, "the length field says 129 bytes; only 128 are left"),
    (b"r" + struct.pack("!I", 0xFFFFFFFF) + SECRET_CT, "the length field says 4294967295 bytes; only 128 are left"),
    (b"r" + struct.pack("!I", 1), "the length field says 1 bytes; only 0 are left"),
    (b"r" + struct.pack("!I", 127) + SECRET_CT, "1 unexpected bytes after the message"),
    (b"r" + struct.pack("!I", 0) + SECRET_CT, "128 unexpected bytes after the message"),
    (b"r\x00\x00", "message too short: 3 bytes"),
    (b"", "message too short: 0 bytes"),
    (b"R" + struct.pack("!I", 128) + SECRET_CT, "expected 'r', got b'R'"),
])
def test_server_refuses(message: bytes, reason: str) -> None:
    server = server_party(loads(LENGTH_TOLD))
    with pytest.raises(Refused) as info:
        server.receive(message)
    assert reason in info.value.reason, info.value.reason
    assert server.done and server.refusal is info.value and "secret:k" not in server.received
    assert server.refusal_message() is None  # the fixture states no error: the server closes without a word


def test_a_secret_that_begins_with_0x00_arrives_31_bytes_long() -> None:
    """A PyCrypto client that drew an aes_key beginning with 0x00 sends a plaintext the server reads as
    31 bytes (directory_authority.py's da_mykey.decrypt(aes_enc)): refused as any secret of the wrong length."""
    secret = b"\x00" + bytes(range(2, 33))
    ct = pycrypto_encrypt(secret)
    assert v.textbook_decrypt(fixed_key(), ct) == secret[1:]
    server = server_party(loads(LENGTH_TOLD))
    with pytest.raises(Refused) as info:
        server.receive(b"r" + struct.pack("!I", len(ct)) + ct)
    assert info.value.reason == "secret 'k' is 31 bytes; the description says 32"
    assert server.done and "secret:k" not in server.received
    # The engine's sender, given such a secret, cannot send it.
    with pytest.raises(Refused) as sent:
        client_party(loads(LENGTH_TOLD), secret).next_message()
    assert sent.value.reason.startswith("cannot encrypt to key 'directory': plaintext is 32 bytes starting with 0x00")


@pytest.mark.parametrize("answer, reason", [
    (struct.pack("!I", 65) + route_blob(SECRET, b"x" * 40), "the length field says 65 bytes; only 48 are left"),
    (struct.pack("!I", 32) + route_blob(SECRET, b"x" * 40), "16 unexpected bytes after the message"),
    (b"\x00\x00\x00", "message too short: 3 bytes"),
    (struct.pack("!I", 16) + route_blob(SECRET, b"\xff" * 8), "the plaintext is not UTF-8 text"),
])
def test_client_refuses(answer: bytes, reason: str) -> None:
    client = client_party(loads(LENGTH_TOLD))
    client.next_message()
    with pytest.raises(Refused) as info:
        client.receive(answer)
    assert info.value.reason == reason and client.done and "message" not in client.received


def test_a_told_part_of_known_length_must_have_it() -> None:
    desc = loads(described('{ concat = [{ length_of = "next", bytes = 1 }, { text = "r" }, ' + LENGTH_FIELD + ', '
                           + CLIENT_VALUE + "] }"))
    assert client_party(desc).next_message() == b"\x01r" + struct.pack("!I", 128) + SECRET_CT
    server = server_party(desc)
    with pytest.raises(Refused) as info:
        server.receive(b"\x02rr" + struct.pack("!I", 128) + SECRET_CT)
    assert info.value.reason == f"the length field says 2 bytes; {S0}.concat[1] is 1"


# ---- the shared fixture --------------------------------------------------------------------------


WEAKNESSES = [
    "key 'directory' is 1024 bits",
    f"{S0}.concat[2]: RSA to key directory with no padding (textbook RSA, RFC 8017 §5.1.1): deterministic, and "
    "malleable (c·sᵉ decrypts to m·s)",
    f"{S0}.concat[2]: textbook RSA of raw secret k (RFC 8017 §4.2: one secret in 256 begins with 0x00, which the "
    "receiver's integer drops; crosscheck's sender draws another)",
    f"{S1}.concat[1]: a fixed IV/nonce",
    f"{S1}.concat[1]: aes-cbc is not authenticated",
]


def test_fixture_reads_as_the_ogre_protocol() -> None:
    desc = loads(LENGTH_TOLD)
    assert desc.key("directory").bits == 1024 and desc.key("directory").preshared
    first, answer = (s.send for s in desc.conversations[0].steps)
    assert first is not None and answer is not None
    assert [(p.kind, p.arg) for p in first.arg] == [("text", "r"), ("length_of", "next"), ("rsa", "directory")]
    assert first.arg[1].length_bytes == 4 and first.arg[2].padding == "none" and first.arg[2].carries == "secret:k"
    assert [(p.kind, p.arg) for p in answer.arg] == [("length_of", "next"), ("sealed", "k")]
    assert answer.arg[1].iv == "fixed:" + IV.hex() and answer.arg[1].carries == "any-text"
    assert desc.textbook_raw_secrets == frozenset({"k"})
    assert desc.weaknesses() == WEAKNESSES


def test_fixture_conversation_ends_with_the_client_accepting_the_answer() -> None:
    key = fixed_key()
    c, s, log = converse(loads(LENGTH_TOLD), "route", {"known_public_keys": {"directory": key.public_key()}},
                         {"private_keys": {"directory": key}})
    assert [who for who, _ in log] == ["client", "server"]
    secret = c.secrets["k"]
    assert len(secret) == 32 and secret[0] != 0 and s.received == {"secret:k": secret}
    assert log[0][1] == b"r" + struct.pack("!I", 128) + v.textbook_encrypt(key.public_key(), secret)
    assert log[1][1][:4] == struct.pack("!I", len(log[1][1]) - 4)
    assert route_plaintext(secret, log[1][1][4:]) == c.received["message"]
    assert c.received["message"].startswith(b"crosscheck reading ")
    assert c.done and s.done and c.refusal is None and s.refusal is None


def test_fixture_with_a_fresh_key() -> None:
    server = Party(loads(LENGTH_TOLD), None, "server")  # makes the directory's 1024-bit key
    key = server.private_keys["directory"]
    c, s, log = converse(loads(LENGTH_TOLD), "route", {"known_public_keys": {"directory": key.public_key()}},
                         {"private_keys": {"directory": key}})
    assert c.done and c.refusal is None and s.received["secret:k"] == c.secrets["k"]


def test_fixture_over_loopback() -> None:
    key = fixed_key()
    desc = loads(LENGTH_TOLD)
    srv = dserver.make_server(desc, party_options={"private_keys": {"directory": key}}, quiet_gap=0.2)
    assert isinstance(srv, dserver.TcpServer)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        out = dserver.run_client(desc, "route", "127.0.0.1", srv.port, timeout=10, quiet_gap=0.2,
                                 party_options={"known_public_keys": {"directory": key.public_key()},
                                                "secrets": {"k": SECRET}})
    finally:
        srv.shutdown()
        thread.join(timeout=5)
    assert out["ok"], out["reason"]
    assert [e["from"] for e in out["log"]] == ["client", "server"]
    assert out["log"][0]["message"] == b"r" + struct.pack("!I", 128) + SECRET_CT
    assert out["values"]["message"].startswith(b"crosscheck reading ")


def test_fixture_through_pem_sessions() -> None:
    """The Swift side opens parties with PEM keys (sessions.open_described); the client makes k itself."""
    key = fixed_key()
    path = str(DESCRIPTIONS / "length-told-textbook-secret.toml")
    private_pem = rsa_keys.export_private(key, "pkcs8-pem").decode("ascii")
    public_pem = rsa_keys.export_public(key.public_key(), "spki-pem").decode("ascii")
    server_sid = sessions.open_described(path, None, "server", {"directory": private_pem}, {}, {}, None, {})
    client_sid = sessions.open_described(path, "route", "client", {}, {"directory": public_pem}, {}, None, {})
    try:
        sent = sessions.described(client_sid, lambda party: party.next_message())
        assert sent[:5] == b"r" + struct.pack("!I", 128) and len(sent) == 133
        assert sessions.described_receive(server_sid, sent) is None
        answer = sessions.described(server_sid, lambda party: party.next_message())
        assert sessions.described_receive(client_sid, answer) is None
        client_state = sessions.described(client_sid, sessions.described_state)
        server_state = sessions.described(server_sid, sessions.described_state)
        assert client_state["done"] and server_state["done"]
        secret = server_state["received"]["secret:k"]
        assert len(secret) == 32 and route_plaintext(secret, answer[4:]) == client_state["received"]["message"]
    finally:
        sessions.close(server_sid)
        sessions.close(client_sid)


# ---- the secret maker ----------------------------------------------------------------------------


def test_a_textbook_raw_secret_never_begins_with_0x00() -> None:
    desc = loads(LENGTH_TOLD)
    draws = [v.new_secret(desc, "k") for _ in range(2000)]
    assert all(len(d) == 32 and d[0] != 0 for d in draws)
    assert len(set(draws)) == 2000
    assert all(Party(desc, "route", "client", known_public_keys={"directory": fixed_key().public_key()})
               .secrets["k"][0] != 0 for _ in range(50))


def test_other_raw_secrets_still_begin_with_0x00_one_time_in_256() -> None:
    """Where textbook RSA does not carry the secret raw (hex text here), the maker draws any bytes: in 20000
    draws some begin with 0x00 (about 78; none with probability (255/256)^20000 < e^-78)."""
    desc = loads(described(f'{{ concat = [{{ text = "r" }}, {LENGTH_FIELD}, {{ rsa = "directory", padding = "none", '
                           'carries = "secret:k", carries_as = "hex" }] }'))
    assert desc.textbook_raw_secrets == frozenset()
    assert any(v.new_secret(desc, "k")[0] == 0 for _ in range(20000))


def test_the_maker_draws_again(monkeypatch: pytest.MonkeyPatch) -> None:
    draws = iter([b"\x00" * 32, b"\x00\xff" + bytes(30), b"\x07" * 32, b"\x09" * 32])
    monkeypatch.setattr(v.pysecrets, "token_bytes", lambda n: next(draws))
    assert v.new_secret(loads(LENGTH_TOLD), "k") == b"\x07" * 32  # the third draw: the first two began with 0x00
    draws = iter([b"\x00" * 32])
    hex_carried = loads(LENGTH_TOLD.replace('carries = "secret:k" }', 'carries = "secret:k", carries_as = "hex" }'))
    assert v.new_secret(hex_carried, "k") == b"\x00" * 32  # not carried raw: taken as drawn


# ---- the reader's rules ----------------------------------------------------------------------------


def _doc() -> dict[str, Any]:
    return tomllib.loads(LENGTH_TOLD)


SEND0 = ["conversation", 0, "step", 0, "send"]
SEND1 = ["conversation", 0, "step", 1, "send"]
_R = {"text": "r"}
_NEXT = {"length_of": "next"}
_RSA = {"rsa": "directory", "padding": "none", "carries": "secret:k"}
_HELLO = {"rsa": "directory", "padding": "none", "carries": "text:hello"}
_SEALED = {"sealed": "k", "cipher": "aes-cbc", "iv": "fixed:" + IV.hex(), "carries": "any-text"}

OUTSIDE = ('length_of = "next" is the byte length of the next part of a concat: put it in a concat, directly before '
           "the part whose length it tells")
LAST = ('length_of = "next" tells the byte length of the part after it, and it is the last part of its concat: put it '
        "directly before the part whose length it tells")
IN_JSON = 'length_of = "next" is raw bytes before the next part of a concat; it cannot be a JSON or form field'

CASES = [
    (_doc(), None, None),
    (_set(_doc(), SEND0 + ["concat", 1, "bytes"], 1), None, None),
    (_set(_doc(), SEND0 + ["concat", 1, "bytes"], 2), None, None),
    (_set(_doc(), SEND0, {"concat": [_NEXT, _R, _NEXT, _RSA]}), None, None),  # a told part of known length
    (_set(_doc(), SEND0, {"concat": [_R, _NEXT, _RSA, _HELLO]}), None, None),  # the untold part last
    (_set(_doc(), SEND0, {"concat": [_NEXT, _RSA, _HELLO, _R]}), None, None),  # fixed parts after it
    (_set(_doc(), SEND0, {"concat": [_NEXT, _RSA, _NEXT, _HELLO]}), None, None),  # every unknown part told
    # outside a concat
    (_set(_doc(), SEND0, _NEXT), f"{S0}.length_of", OUTSIDE),
    (_set(_doc(), SEND1, _NEXT), f"{S1}.length_of", OUTSIDE),
    (_set(_doc(), ["conversation", 0, "error"], _NEXT), "conversation[0].error.length_of", OUTSIDE),
    # last in its concat
    (_set(_doc(), SEND1, {"concat": [_SEALED, _NEXT]}), f"{S1}.concat[1].length_of", LAST),
    (_set(_doc(), SEND1, {"concat": [_NEXT]}), f"{S1}.concat[0].length_of", LAST),
    (_set(_doc(), SEND0, {"concat": [_R, {"concat": [_NEXT]}, _NEXT, _RSA]}), f"{S0}.concat[1].concat[0].length_of",
     LAST),  # last in its own concat, though a part follows in the outer one
    # followed by another length_of
    (_set(_doc(), SEND0, {"concat": [_R, _NEXT, _NEXT, _RSA]}), f"{S0}.concat[1].length_of",
     'length_of = "next" is followed by another length_of, whose length is fixed (4 bytes): put it directly before '
     "the part whose length it tells"),
    (_set(_doc(), SEND0, {"concat": [_R, _NEXT, {"length_of": "message", "bytes": 2}, _RSA]}),
     f"{S0}.concat[1].length_of", "is followed by another length_of, whose length is fixed (2 bytes)"),
    # inside json or form
    (_set(_doc(), SEND1, {"json": {"n": _NEXT, "r": {"text": "x"}}}), f"{S1}.json.n.length_of", IN_JSON),
    (_set(_doc(), SEND1, {"form": {"n": _NEXT, "r": {"text": "x"}}}), f"{S1}.form.n.length_of", IN_JSON),
    (_set(_doc(), SEND1, {"json": {"n": {"concat": [_NEXT, {"text": "x"}]}}}), f"{S1}.json.n.concat[0].length_of",
     IN_JSON),
    # what length_of takes
    (_set(_doc(), SEND0 + ["concat", 1, "length_of"], "previous"), f"{S0}.concat[1].length_of",
     'length_of must be "message" (its byte length) or "next" (the byte length of the next part of a concat); '
     "found 'previous'"),
    (_set(_doc(), SEND0 + ["concat", 1, "bytes"], 3), f"{S0}.concat[1].bytes", "bytes must be one of 1, 2, 4; found 3"),
    (_set(_doc(), SEND0 + ["concat", 1, "encoding"], "hex"), f"{S0}.concat[1].encoding", "unknown key 'encoding'"),
    # splitting: one untold part of unknown length, and no told part after it
    (_set(_doc(), SEND0, {"concat": [_R, _RSA, _HELLO]}), f"{S0}.concat",
     f"at most one part may have an unknown length that no length_of tells (a receiver could not split them); "
     f'{S0}.concat[1] and {S0}.concat[2] both do: put {{ length_of = "next" }} before one, a known-length part '
     "between them, or use another framing"),
    (_set(_doc(), SEND0, {"concat": [_R, _HELLO, _NEXT, _RSA]}), f"{S0}.concat[2].length_of",
     f"the part this length_of tells ({S0}.concat[3]) comes after {S0}.concat[1], a part of unknown length that no "
     "length_of tells: a receiver finds that part by the fixed lengths of the parts after it, so none of them may be "
     'told; put a { length_of = "next" } before that part too'),
    (_set(_doc(), SEND0, {"concat": [_RSA, _NEXT, _R]}), f"{S0}.concat[1].length_of",
     f"the part this length_of tells ({S0}.concat[2]) comes after {S0}.concat[0]"),  # even a part of known length
    # a length_of = "message" keeps its own rule; "next" needs no conversation message
    (_set(_doc(), SEND1 + ["concat", 0, "length_of"], "message"), f"{S1}.concat[0].length_of",
     "a length_of states the length of the conversation's message"),
]


@pytest.mark.parametrize("doc, path, words", CASES, ids=[str(i) for i in range(len(CASES))])
def test_misuse_is_refused_by_key_path(doc: dict[str, Any], path: Optional[str], words: Optional[str]) -> None:
    assert_refused_at(doc, path, words)


def test_errors_from_text_name_the_line() -> None:
    bad = described(f'{{ concat = [{{ text = "r" }}, {CLIENT_VALUE}, {LENGTH_FIELD}] }}')
    with pytest.raises(DescriptionError) as info:
        loads(bad)
    assert info.value.path == f"{S0}.concat[2].length_of" and info.value.message == LAST
    assert info.value.line is not None and "length_of" in bad.splitlines()[info.value.line - 1]


def test_textbook_rules_for_stated_plaintexts_stay() -> None:
    with pytest.raises(DescriptionError) as info:
        loads(described(f'{{ concat = [{{ text = "r" }}, {LENGTH_FIELD}, {{ rsa = "directory", padding = "none", '
                        'carries = "text:\\u0000abc" }] }'))
    assert info.value.path == f"{S0}.concat[2].padding"
    assert info.value.message == ("textbook RSA (padding none) carries 1 to k-1 bytes not starting with 0x00; the stated "
                                  "text starts with 0x00")
