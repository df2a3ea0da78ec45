"""An agreement secret's `skip` and a `mac` with `of = "previous"` in a concat, as wenyupeng/securex has them:
its key_exchange.py derives HKDF(SHA256(), length=64, salt=None, info=b"SecureX-v1") of the P-256 ECDH shared
secret, the AES key the first 32 bytes and the HMAC key the last 32; secure_channel.py's encrypt sends
nonce + ct + tag, nonce = os.urandom(12), ct = AESGCM(aes_key).encrypt(nonce, plaintext, None) (ciphertext and
its 16-byte GCM tag) and tag = HMAC-SHA256(hmac_key, nonce + ct), and its decrypt verifies the HMAC (h.verify)
before AESGCM decrypts; message.py frames a payload as struct.pack("!BI", type, len(payload)) + payload.
Known answers from pyca (HKDF, AESGCM, HMAC) and that formula, the shared fixture
(Tests/Descriptions/ecdh-gcm-hmac-frames.toml) in memory and over loopback, refusals (a MAC that fails is the
refusal, and the sealed part is never opened), and the reader's rules by key path."""

from __future__ import annotations

import hashlib
import hmac as pyhmac
import json
import os
import socket
import struct
import threading
import time
import tomllib
from typing import Any, Optional

import pytest
from cryptography.hazmat.primitives import cmac, hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import algorithms
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF

from pythonref.described import DescriptionError, Party, Refused, loads
from pythonref.described import server as dserver
from pythonref.described import values as v
from pythonref.described.framing import Reader, frame

from test_described import _DELETE, _set, assert_refused_at, converse
from test_described_readings import fixture

FRAMES = fixture("ecdh-gcm-hmac-frames")  # Tests/Descriptions/ecdh-gcm-hmac-frames.toml
S0 = "conversation[0].step[0].send"
S1 = "conversation[0].step[1].send"
S2 = "conversation[0].step[2].send"
SEALED_PATH = f"{S2}.concat[2].concat[0]"
MAC_PATH = f"{S2}.concat[2].concat[1]"
MAC_FAILS = f"the hmac-sha256 after {SEALED_PATH} does not verify over it (wrong key or tampered)"
THIRD = ('{ concat = [{ text = "\\u0001" }, { length_of = "next" }, { concat = [{ sealed = "aes", cipher = "aes-gcm" }, '
         '{ mac = "hmac", algorithm = "hmac-sha256", of = "previous", encoding = "raw" }] }] }')
INFO = b"SecureX-v1"
MESSAGE = b"hello from wenyupeng's SecureX client"

# Fixed P-256 keys (SEC 1 v2 §3.2.1: d in [1, n-1]), so that the agreed keys are known answers.
CLIENT_D = 0x1F2E3D4C5B6A79880123456789ABCDEF0FEDCBA987654321C0FFEE00DECAF001
SERVER_D = 0x7A6B5C4D3E2F1009F8E7D6C5B4A3928170615243342516079ABCDEF012345678


def client_key() -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(CLIENT_D, ec.SECP256R1())


def server_key() -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(SERVER_D, ec.SECP256R1())


def shared() -> bytes:
    """The ECDH shared secret of the fixed keys (SEC 1 v2 §3.3.1), both ways."""
    one = client_key().exchange(ec.ECDH(), server_key().public_key())
    assert one == server_key().exchange(ec.ECDH(), client_key().public_key())
    return one


def securex_keys(shared_secret: bytes) -> tuple[bytes, bytes]:
    """key_exchange.py: HKDF(SHA256(), length=64, salt=None, info=b"SecureX-v1"), aes_key = [:32], hmac_key = [32:]."""
    okm = HKDF(hashes.SHA256(), 64, None, INFO).derive(shared_secret)
    return okm[:32], okm[32:]


def securex_payload(aes_key: bytes, hmac_key: bytes, plaintext: bytes, nonce: bytes) -> bytes:
    """secure_channel.py's encrypt: nonce + ct + HMAC-SHA256(hmac_key, nonce + ct), ct = AESGCM(...).encrypt(...)."""
    ct = AESGCM(aes_key).encrypt(nonce, plaintext, None)
    return nonce + ct + pyhmac.new(hmac_key, nonce + ct, hashlib.sha256).digest()


def securex_frame(payload: bytes, kind: int = 1) -> bytes:
    """message.py: struct.pack("!BI", type, len(payload)) + payload."""
    return struct.pack("!BI", kind, len(payload)) + payload


def variant(text: str, *changes: tuple[str, str]) -> str:
    for old, new in changes:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def third(value: str) -> str:
    """The fixture with the client's third message replaced."""
    return variant(FRAMES, (f"send = {THIRD}", f"send = {value}"))


def parties(desc: Any = None, message: bytes = MESSAGE) -> tuple[Party, Party]:
    """A client and a server party with the fixed keys, the two public keys exchanged (steps 0 and 1)."""
    desc = desc if desc is not None else loads(FRAMES)
    client = Party(desc, "data", "client", private_keys={"client": client_key()}, message=message)
    server = Party(desc, None, "server", private_keys={"server": server_key()})
    server.receive(client.next_message())
    client.receive(server.next_message())
    return client, server


def flipped(data: bytes, index: int) -> bytes:
    index %= len(data)
    return data[:index] + bytes([data[index] ^ 0x01]) + data[index + 1:]


# ---- skip: bytes skip..skip+bytes of the KDF's output ---------------------------------------------


def test_skip_takes_the_last_32_bytes_of_a_64_byte_hkdf() -> None:
    """RFC 5869 §2.3: the OKM is the first L octets of T(1) | T(2) | ...: skip = 32, bytes = 32 is [32:64] of one
    derive of 64, and skip = 0 its [:32] (HKDF of 32 is the same first 32)."""
    desc = loads(FRAMES)
    secret = bytes(range(32))  # a fixed shared secret
    okm = HKDF(hashes.SHA256(), 64, None, INFO).derive(secret)
    assert desc.secret("hmac").skip == 32 and desc.secret("aes").skip == 0
    assert v.derive_agreed(desc.secret("hmac"), secret) == okm[32:]
    assert v.derive_agreed(desc.secret("aes"), secret) == okm[:32] == HKDF(hashes.SHA256(), 32, None, INFO).derive(secret)
    assert okm[:32] != okm[32:]


def test_the_parties_agree_on_securex_s_two_keys() -> None:
    client, server = parties()
    aes_key, hmac_key = securex_keys(shared())
    assert client.secrets["aes"] == server.secrets["aes"] == aes_key
    assert client.secrets["hmac"] == server.secrets["hmac"] == hmac_key


@pytest.mark.parametrize("kdf, skip, size", [
    ("hkdf-sha256", 0, 16), ("hkdf-sha256", 16, 16), ("hkdf-sha256", 4096, 32), ("hkdf-sha384", 48, 24),
    ("x963-sha256", 32, 32), ("x963-sha256", 7, 16),
])
def test_skip_with_each_kdf(kdf: str, skip: int, size: int) -> None:
    desc = loads(variant(FRAMES, ('bytes = 32\nskip = 32', f'bytes = {size}\nskip = {skip}\nkdf = "{kdf}"\nsalt = "0102"'
                                  if kdf.startswith("hkdf") else f'bytes = {size}\nskip = {skip}\nkdf = "{kdf}"')))
    spec, secret = desc.secret("hmac"), bytes(range(100, 132))
    if kdf == "x963-sha256":  # SEC 1 v2 §3.6.1, SharedInfo = info
        whole = X963KDF(hashes.SHA256(), skip + size, INFO).derive(secret)
    else:
        whole = HKDF(hashes.SHA384() if kdf == "hkdf-sha384" else hashes.SHA256(), skip + size, b"\x01\x02",
                     INFO).derive(secret)
    assert spec.skip == skip and spec.bytes == size and spec.key_bytes == size
    assert v.derive_agreed(spec, secret) == whole[skip:] and len(whole[skip:]) == size


# ---- the fixture's third message: wenyupeng's formula byte for byte -------------------------------


def test_the_fixture_reads_as_securex() -> None:
    desc = loads(FRAMES)
    assert [(s.name, s.kdf, s.info, s.bytes, s.skip) for s in desc.secrets] == [
        ("aes", "hkdf-sha256", INFO, 32, 0), ("hmac", "hkdf-sha256", INFO, 32, 32)]
    frame_value = desc.conversations[0].steps[2].send
    assert frame_value is not None
    assert [(p.kind, p.arg) for p in frame_value.arg[:2]] == [("text", "\x01"), ("length_of", "next")]
    assert frame_value.arg[2].kind == "concat"
    sealed, mac = frame_value.arg[2].arg
    assert (sealed.kind, sealed.cipher, sealed.iv, sealed.tag, sealed.path) == (
        "sealed", "aes-gcm", "prefix", "appended", SEALED_PATH)
    assert (mac.kind, mac.arg, mac.algorithm, mac.of, mac.encoding, mac.path) == (
        "mac", "hmac", "hmac-sha256", "previous", "raw", MAC_PATH)
    assert desc.weaknesses() == []  # GCM under a fresh nonce, and an HMAC over it


def test_the_client_s_third_message_is_securex_s_frame_byte_for_byte() -> None:
    client, _ = parties()
    sent = client.next_message()
    assert isinstance(sent, bytes)
    aes_key, hmac_key = securex_keys(shared())
    kind, length = struct.unpack("!BI", sent[:5])
    payload = sent[5:]
    assert kind == 0x01 and length == len(payload) == 12 + len(MESSAGE) + 16 + 32
    nonce, ct, tag = payload[:12], payload[12:-32], payload[-32:]
    assert tag == pyhmac.new(hmac_key, nonce + ct, hashlib.sha256).digest()
    assert AESGCM(aes_key).decrypt(nonce, ct, None) == MESSAGE
    # The whole frame, from wenyupeng's own formula with the nonce the engine drew:
    assert sent == securex_frame(securex_payload(aes_key, hmac_key, MESSAGE, nonce))
    assert sent[:5] == b"\x01" + len(payload).to_bytes(4, "big")
    # The close frame: message.py's type 2 with the payload "close".
    assert client.next_message() == b"\x02\x00\x00\x00\x05close" == securex_frame(b"close", 2)
    assert client.done


def test_the_server_takes_a_frame_written_by_securex_s_formula() -> None:
    _, server = parties()
    aes_key, hmac_key = securex_keys(shared())
    server.receive(securex_frame(securex_payload(aes_key, hmac_key, b"from the formula", os.urandom(12))))
    server.receive(securex_frame(b"close", 2))
    assert server.done and server.refusal is None and server.received["message"] == b"from the formula"


def test_split_concat_gives_the_mac_its_fixed_length() -> None:
    client, server = parties()
    sent = client.next_message()
    assert isinstance(sent, bytes)
    ctx = server._ctx  # noqa: SLF001 -- the server's context, to cut without parsing
    assert ctx is not None
    outer = loads(FRAMES).conversations[0].steps[2].send
    assert outer is not None
    assert v.split_concat(outer, sent, ctx) == [b"\x01", sent[1:5], sent[5:]]
    assert v.split_concat(outer.arg[2], sent[5:], ctx) == [sent[5:-32], sent[-32:]]
    assert v.known_length(outer.arg[2].arg[1], ctx) == 32 and v.known_length(outer.arg[2], ctx) is None


# ---- both parties --------------------------------------------------------------------------------


def test_the_fixture_through_both_parties_in_memory() -> None:
    c, s, log = converse(loads(FRAMES), "data", client={"message": MESSAGE})
    assert [who for who, _ in log] == ["client", "server", "client", "client"]
    assert c.done and s.done and c.refusal is None and s.refusal is None
    assert s.received["message"] == MESSAGE
    assert c.secrets["aes"] == s.secrets["aes"] and c.secrets["hmac"] == s.secrets["hmac"]
    agreed = c.private_keys["client"].exchange(ec.ECDH(), s.private_keys["server"].public_key())
    aes_key, hmac_key = securex_keys(agreed)
    assert (c.secrets["aes"], c.secrets["hmac"]) == (aes_key, hmac_key)
    payload = log[2][1][5:]
    assert log[2][1] == securex_frame(securex_payload(aes_key, hmac_key, MESSAGE, payload[:12]))
    assert log[3][1] == securex_frame(b"close", 2)


def test_fresh_conversations_draw_fresh_nonces_and_keys() -> None:
    frames = [converse(loads(FRAMES), "data", client={"message": MESSAGE})[2][2][1] for _ in range(3)]
    assert len({f[5:17] for f in frames}) == 3 and len({f[-32:] for f in frames}) == 3


@pytest.mark.parametrize("algorithm, encoding, size", [
    ("hmac-sha256", "raw", 32), ("hmac-sha256", "hex", 64), ("hmac-sha256", "base64", 44),
    ("hmac-sha256", "base64url", 43), ("cmac-aes", "raw", 16), ("cmac-aes", "hex", 32), ("cmac-aes", "base64", 24),
    ("cmac-aes", "base64url", 22), ("hmac-sha256", "", 64),  # no encoding: hex, as a json mac's
])
def test_each_algorithm_and_encoding(algorithm: str, encoding: str, size: int) -> None:
    enc = f', encoding = "{encoding}"' if encoding else ""
    desc = loads(third('{ concat = [{ text = "\\u0001" }, { length_of = "next" }, { concat = [{ sealed = "aes", '
                       f'cipher = "aes-gcm" }}, {{ mac = "hmac", algorithm = "{algorithm}", of = "previous"{enc} }}] }}] }}'))
    client, server = parties(desc)
    sent = client.next_message()
    assert isinstance(sent, bytes)
    payload = sent[5:]
    covered, code = payload[:-size], payload[-size:]
    _, hmac_key = securex_keys(shared())
    if algorithm == "cmac-aes":  # RFC 4493
        c = cmac.CMAC(algorithms.AES(hmac_key))
        c.update(covered)
        expected = c.finalize()
    else:
        expected = pyhmac.new(hmac_key, covered, hashlib.sha256).digest()
    assert v.decode(code, encoding or "hex", "the code") == expected
    server.receive(sent)
    assert server.received["message"] == MESSAGE and server.refusal is None
    _, tampered = parties(desc)  # the same fixed keys: the same agreed secrets
    with pytest.raises(Refused) as info:
        tampered.receive(flipped(sent, 5 + 12))  # a ciphertext byte
    assert info.value.reason == f"the {algorithm} after {SEALED_PATH} does not verify over it (wrong key or tampered)"
    assert info.value.kind == "authentication"


def test_a_mac_over_a_part_whose_length_is_told() -> None:
    """[length, ciphertext, its MAC]: the mac covers the told part's bytes, not the length field."""
    desc = loads(third('{ concat = [{ text = "\\u0001" }, { length_of = "next", bytes = 2 }, { sealed = "aes", '
                       'cipher = "aes-gcm" }, { mac = "hmac", algorithm = "hmac-sha256", of = "previous", '
                       'encoding = "raw" }] }'))
    client, server = parties(desc)
    sent = client.next_message()
    assert isinstance(sent, bytes)
    (told,) = struct.unpack("!H", sent[1:3])
    sealed, code = sent[3:3 + told], sent[3 + told:]
    _, hmac_key = securex_keys(shared())
    assert len(code) == 32 and code == pyhmac.new(hmac_key, sealed, hashlib.sha256).digest()
    server.receive(sent)
    assert server.received["message"] == MESSAGE


def test_a_mac_over_a_concat_covers_its_bytes_as_sent() -> None:
    """The covered part may be a concat of its own: [nonce-and-ciphertext as one part, a text], then the MAC."""
    desc = loads(third('{ concat = [{ concat = [{ sealed = "aes", cipher = "aes-gcm" }, { text = "!" }] }, '
                       '{ mac = "hmac", algorithm = "hmac-sha256", of = "previous", encoding = "hex" }] }'))
    client, server = parties(desc)
    sent = client.next_message()
    assert isinstance(sent, bytes)
    _, hmac_key = securex_keys(shared())
    assert sent[-65:-64] == b"!"
    assert bytes.fromhex(sent[-64:].decode()) == pyhmac.new(hmac_key, sent[:-64], hashlib.sha256).digest()
    server.receive(sent)
    assert server.received["message"] == MESSAGE


def test_in_a_json_previous_is_still_a_sibling_field() -> None:
    desc = loads(third('{ json = { previous = { sealed = "aes", cipher = "aes-gcm", encoding = "base64" }, '
                       'm = { mac = "hmac", algorithm = "hmac-sha256", of = "previous" } } }'))
    client, server = parties(desc)
    sent = client.next_message()
    assert isinstance(sent, bytes)
    doc = json.loads(sent)
    _, hmac_key = securex_keys(shared())
    assert doc["m"] == pyhmac.new(hmac_key, doc["previous"].encode(), hashlib.sha256).hexdigest()
    server.receive(sent)
    assert server.received["message"] == MESSAGE


def test_an_unauthenticated_cipher_under_the_mac_is_not_reported() -> None:
    """Encrypt-then-MAC: an aes-cbc part with a mac of = "previous" after it is authenticated (as a json mac's)."""
    cbc = '{ sealed = "aes", cipher = "aes-cbc" }'
    with_mac = loads(third(f'{{ concat = [{cbc}, {{ mac = "hmac", algorithm = "hmac-sha256", of = "previous" }}] }}'))
    without = loads(third(f'{{ concat = [{cbc}, {{ text = "." }}] }}'))
    assert with_mac.weaknesses() == []
    assert without.weaknesses() == [f"{S2}.concat[0]: aes-cbc is not authenticated"]


# ---- over loopback -------------------------------------------------------------------------------


def _serve(desc: Any) -> tuple[dserver.TcpServer, threading.Thread, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    srv = dserver.make_server(desc, quiet_gap=0.2, log=events.append)
    assert isinstance(srv, dserver.TcpServer)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    return srv, thread, events


def _wait_for(events: list[dict[str, Any]], count: int = 1) -> None:
    deadline = time.monotonic() + 10
    while len(events) < count and time.monotonic() < deadline:
        time.sleep(0.02)


def test_over_loopback_to_the_first_frame() -> None:
    """The engine's own socket client to its server: the fixture up to the client's first frame."""
    desc = loads(variant(FRAMES, (f"send = {THIRD}", f'send = {THIRD}\nthen = "close"'),
                         ("\n[[conversation.step]]\nfrom = \"client\"\nsend = { concat = [{ text = \"\\u0002\" }, "
                          "{ length_of = \"next\" }, { text = \"close\" }] }\nthen = \"close\"\n", "")))
    assert len(desc.conversations[0].steps) == 3
    srv, thread, events = _serve(desc)
    try:
        out = dserver.run_client(desc, "data", "127.0.0.1", srv.port, timeout=10, quiet_gap=0.2,
                                 party_options={"message": MESSAGE})
        _wait_for(events)
    finally:
        srv.shutdown()
        thread.join(timeout=5)
    assert out["ok"], out["reason"]
    assert [e["from"] for e in out["log"]] == ["client", "server", "client"]
    assert events and events[0]["event"] == "done" and events[0]["message"] == MESSAGE, events


def test_the_whole_fixture_over_loopback_with_a_pause_between_the_client_s_frames() -> None:
    """Legacy framing: the client's two frames in a row, the first of no known length beforehand, are told apart
    by a pause (as `remote` pauses; the engines' socket drivers do not, so the Swift loopback pairing skips such
    a conversation: DescribedLoopback.cannotRun). The client here is a party on a socket, pausing."""
    desc = loads(FRAMES)
    srv, thread, events = _serve(desc)
    client = Party(desc, "data", "client", message=MESSAGE)
    sent: list[bytes] = []
    try:
        with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as sock:
            reader = Reader(desc.transport)
            while not client.done:
                out = client.next_message()
                if out is not None:
                    assert isinstance(out, bytes)
                    sock.sendall(frame(desc.transport, out))
                    sent.append(out)
                    time.sleep(0.6)  # three quiet gaps of the server's
                    continue
                message = dserver._read_message(sock, reader, client, time.monotonic() + 10, 0.2)  # noqa: SLF001
                assert isinstance(message, bytes), message
                client.receive(message)
            _wait_for(events)
    finally:
        srv.shutdown()
        thread.join(timeout=5)
    assert client.refusal is None and len(sent) == 3
    assert events and events[0]["event"] == "done" and events[0]["message"] == MESSAGE, events
    assert sent[1][:5] == b"\x01" + (len(sent[1]) - 5).to_bytes(4, "big") and sent[2] == securex_frame(b"close", 2)


# ---- refusals ------------------------------------------------------------------------------------


def _refused(server: Party, message: bytes) -> Refused:
    with pytest.raises(Refused) as info:
        server.receive(message)
    assert server.done and server.refusal is info.value and "message" not in server.received
    assert server.refusal_message() is None  # the fixture states no error: the server closes without a word
    return info.value


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every sealed value the engine opens (values.open_sealed), to show the MAC is checked first."""
    calls: list[Any] = []
    real = v.open_sealed

    def spy(*args: Any) -> bytes:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(v, "open_sealed", spy)
    return calls


def _sent() -> tuple[bytes, Party]:
    client, server = parties()
    sent = client.next_message()
    assert isinstance(sent, bytes)
    return sent, server


def test_the_untampered_frame_is_opened_once(opened: list[Any]) -> None:
    sent, server = _sent()
    server.receive(sent)
    assert server.received["message"] == MESSAGE and len(opened) == 1


@pytest.mark.parametrize("where", [
    -1, -32,  # the HMAC's last and first byte
    5, 16,  # the nonce's first and last
    17, -49,  # the ciphertext's first and last
    -48, -33,  # the GCM tag's first and last
])
def test_a_flipped_byte_is_the_mac_s_refusal_and_nothing_is_opened(where: int, opened: list[Any]) -> None:
    sent, server = _sent()
    refusal = _refused(server, flipped(sent, where))
    assert refusal.reason == MAC_FAILS and refusal.kind == "authentication"
    assert opened == []  # the sealed part was never opened: the refusal is the MAC's, not GCM's


def test_a_mac_under_another_key_is_refused(opened: list[Any]) -> None:
    sent, server = _sent()
    forged = sent[:-32] + pyhmac.new(b"\x00" * 32, sent[5:-32], hashlib.sha256).digest()
    refusal = _refused(server, forged)
    assert refusal.reason == MAC_FAILS and refusal.kind == "authentication" and opened == []


def test_with_the_mac_right_over_a_tampered_ciphertext_gcm_refuses(opened: list[Any]) -> None:
    """One who knows the HMAC key but not the AES key: the MAC verifies, then GCM's tag does not (the order is
    secure_channel.py's: h.verify, then AESGCM.decrypt)."""
    sent, server = _sent()
    _, hmac_key = securex_keys(shared())
    body = flipped(sent[5:-32], 20)
    refusal = _refused(server, sent[:5] + body + pyhmac.new(hmac_key, body, hashlib.sha256).digest())
    assert refusal.kind == "authentication" and refusal.reason.startswith("aes-gcm: ") and len(opened) == 1


@pytest.mark.parametrize("cut, reason", [
    (1, "the length field says {n} bytes; only {m} are left"),  # the frame one byte short
    (32, "the length field says {n} bytes; only {m} are left"),  # without its HMAC
])
def test_a_truncated_frame_is_refused(cut: int, reason: str, opened: list[Any]) -> None:
    sent, server = _sent()
    n = len(sent) - 5
    refusal = _refused(server, sent[:-cut])
    assert refusal.reason == reason.format(n=n, m=n - cut) and opened == []


def test_a_truncated_payload_with_its_length_field_fixed_is_the_mac_s_refusal(opened: list[Any]) -> None:
    sent, server = _sent()
    payload = sent[5:-33] + sent[-32:]  # a byte of the GCM tag gone, the HMAC kept
    refusal = _refused(server, securex_frame(payload))
    assert refusal.reason == MAC_FAILS and refusal.kind == "authentication" and opened == []


@pytest.mark.parametrize("payload, reason", [
    (b"", "message too short: 0 bytes"),
    (bytes(31), "message too short: 31 bytes"),  # less than the HMAC alone
    (bytes(32), MAC_FAILS),  # an HMAC and nothing before it
])
def test_a_payload_too_short(payload: bytes, reason: str, opened: list[Any]) -> None:
    _, server = _sent()
    assert _refused(server, securex_frame(payload)).reason == reason and opened == []


def test_another_frame_type_is_refused() -> None:
    sent, server = _sent()
    with pytest.raises(Refused) as info:
        server.receive(b"\x02" + sent[1:])
    assert info.value.reason == "expected '\\x01', got b'\\x02'"


def test_a_mac_that_is_not_its_encoding_is_refused() -> None:
    desc = loads(third('{ concat = [{ sealed = "aes", cipher = "aes-gcm" }, { mac = "hmac", algorithm = "hmac-sha256", '
                       'of = "previous" }] }'))
    client, server = parties(desc)
    sent = client.next_message()
    assert isinstance(sent, bytes) and sent[-64:].isalnum()
    with pytest.raises(Refused) as info:
        server.receive(sent[:-1] + b"g")
    assert info.value.reason == "the hmac-sha256 is not valid hex" and "message" not in server.received


# ---- the reader's rules ----------------------------------------------------------------------------


def _doc() -> dict[str, Any]:
    return tomllib.loads(FRAMES)


SEND2 = ["conversation", 0, "step", 2, "send"]
INNER = SEND2 + ["concat", 2, "concat"]
_ONE = {"text": "\u0001"}
_NEXT = {"length_of": "next"}
_GCM = {"sealed": "aes", "cipher": "aes-gcm"}
_MAC = {"mac": "hmac", "algorithm": "hmac-sha256", "of": "previous", "encoding": "raw"}
_MAC_HEX = {"mac": "hmac", "algorithm": "hmac-sha256", "of": "previous"}

SKIP_NONE = '`skip` drops the first bytes of a KDF\'s output; with kdf = "none" there is none; remove it'
NONE_TO_COVER = 'a `mac` with of = "previous" covers the part before it in its concat; this one has none to cover'
OUTSIDE = 'of = "previous" is a `mac` in a `concat`, after the part it covers'


def _secret(doc: dict[str, Any], name: str, table: dict[str, Any]) -> dict[str, Any]:
    return _set(doc, ["secrets", name], table)


def _no_kdf(doc: dict[str, Any]) -> dict[str, Any]:
    """Secret hmac with kdf = "none" (and no info, which that refuses first)."""
    return _set(_set(doc, ["secrets", "hmac", "kdf"], "none"), ["secrets", "hmac", "info"], _DELETE)


CASES = [
    (_doc(), None, None),
    # skip
    (_set(_doc(), ["secrets", "hmac", "skip"], 0), None, None),
    (_set(_doc(), ["secrets", "hmac", "skip"], 4096), None, None),
    (_set(_set(_doc(), ["secrets", "hmac", "kdf"], "x963-sha256"), ["secrets", "hmac", "info"], "x"), None, None),
    (_no_kdf(_doc()), "secrets.hmac.skip", SKIP_NONE),
    (_set(_no_kdf(_doc()), ["secrets", "hmac", "skip"], 0), "secrets.hmac.skip", SKIP_NONE),  # even a skip of 0
    (_set(_no_kdf(_doc()), ["secrets", "hmac", "skip"], _DELETE), None, None),
    (_set(_doc(), ["secrets", "hmac", "skip"], 4097), "secrets.hmac.skip", "skip must be in 0..4096; found 4097"),
    (_set(_doc(), ["secrets", "hmac", "skip"], -1), "secrets.hmac.skip", "skip must be in 0..4096; found -1"),
    (_set(_doc(), ["secrets", "hmac", "skip"], "32"), "secrets.hmac.skip", "skip must be an integer; found a string '32'"),
    (_set(_doc(), ["secrets", "hmac", "skip"], True), "secrets.hmac.skip", "skip must be an integer; found a boolean True"),
    (_secret(_doc(), "x", {"made_by": "client", "skip": 32}), "secrets.x.skip",
     'skip is for made_by = "agreement" secrets only (a key agreement and its KDF); this one is made by client: '
     "remove skip"),
    (_secret(_doc(), "x", {"made_by": "preshared", "skip": 0}), "secrets.x.skip",
     'skip is for made_by = "agreement" secrets only'),
    (_set(_doc(), ["secrets", "hmac", "skipp"], 32), "secrets.hmac.skipp", "did you mean 'skip'"),
    # mac of = "previous": where it may stand
    (_set(_doc(), SEND2, {"concat": [_GCM, _MAC]}), None, None),
    (_set(_doc(), SEND2, {"concat": [_GCM, _MAC_HEX, _ONE]}), None, None),  # fixed-length parts after it
    (_set(_doc(), SEND2, {"concat": [_NEXT, _GCM, _MAC, _ONE]}), None, None),
    (_set(_doc(), SEND2, {"concat": [_ONE, _GCM, _MAC, {"sealed": "aes", "cipher": "aes-gcm", "iv": "fixed:" + "00" * 12,
                                                       "carries": "text:x"}, _MAC_HEX]}),
     f"{S2}.concat", "at most one part may have an unknown length"),  # two ciphertexts of unknown length
    (_set(_doc(), SEND2, _MAC), f"{S2}.mac", OUTSIDE),
    (_set(_doc(), ["conversation", 0, "step", 0, "send"], _MAC), f"{S0}.mac", OUTSIDE),
    (_set(_doc(), ["conversation", 0, "error"], _MAC), "conversation[0].error.mac", OUTSIDE),
    (_set(_doc(), INNER, [_MAC, _GCM]), f"{S2}.concat[2].concat[0].mac", NONE_TO_COVER),
    (_set(_doc(), INNER, [_MAC]), f"{S2}.concat[2].concat[0].mac", NONE_TO_COVER),
    (_set(_doc(), SEND2, {"concat": [_GCM, _NEXT, _MAC]}), f"{S2}.concat[2].mac", NONE_TO_COVER),
    (_set(_doc(), SEND2, {"concat": [_ONE, _NEXT, _MAC, _GCM]}), f"{S2}.concat[2].mac", NONE_TO_COVER),
    (_set(_set(_doc(), ["conversation", 0, "message"], "hi"), SEND2,
          {"concat": [{"length_of": "message", "bytes": 2}, _MAC, _GCM]}), f"{S2}.concat[1].mac", NONE_TO_COVER),
    (_set(_doc(), SEND2, {"concat": [_GCM, _MAC, _MAC_HEX]}), f"{S2}.concat[2].mac", NONE_TO_COVER),
    (_set(_doc(), INNER, [_GCM, _MAC, _MAC]), f"{S2}.concat[2].concat[2].mac", NONE_TO_COVER),
    # in a json or form, "previous" is a sibling field's name
    (_set(_doc(), SEND2, {"json": {"previous": dict(_GCM, encoding="hex"), "m": _MAC_HEX}}), None, None),
    (_set(_doc(), SEND2, {"json": {"c": dict(_GCM, encoding="hex"), "m": _MAC_HEX}}), f"{S2}.json.m.of",
     "of = 'previous' names no sibling field that carries text"),
    (_set(_doc(), SEND2, {"form": {"c": dict(_GCM, encoding="hex"), "m": _MAC_HEX}}), f"{S2}.form.m.of",
     "of = 'previous' names no sibling field that carries text"),
    (_set(_doc(), SEND2, {"json": {"previous": dict(_GCM, encoding="hex"), "m": _MAC}}), f"{S2}.json.m.encoding",
     "a MAC is written as hex, base64 or base64url, not raw"),
    # in a concat, a mac covers the part before it
    (_set(_doc(), INNER + [1, "of"], "c"), f"{S2}.concat[2].concat[1].mac",
     'a mac is a field of a json or form value, next to the field it covers; in a concat, of = "previous" after the '
     "part it covers"),
    # its encoding: raw here too, and text encodings of no fixed length nowhere
    (_set(_doc(), INNER + [1, "encoding"], "hex"), None, None),
    (_set(_doc(), INNER + [1, "encoding"], "base64"), None, None),
    (_set(_doc(), INNER + [1, "encoding"], "base64url"), None, None),
    (_set(_doc(), INNER + [1, "encoding"], "latin1"), f"{S2}.concat[2].concat[1].encoding",
     "a MAC after the part it covers is written raw or as hex, base64 or base64url, not latin1"),
    (_set(_doc(), INNER + [1, "encoding"], "utf8"), f"{S2}.concat[2].concat[1].encoding",
     "a MAC after the part it covers is written raw or as hex, base64 or base64url, not utf8"),
    (_set(_doc(), INNER + [1, "encoding"], "python2-tuple"), f"{S2}.concat[2].concat[1].encoding", "not python2-tuple"),
    (_set(_doc(), INNER + [1, "algorithm"], "hmac-md5"), f"{S2}.concat[2].concat[1].algorithm",
     'algorithm must be one of "cmac-aes", "hmac-sha256"'),
    (_set(_doc(), INNER + [1, "algorithm"], "cmac-aes"), None, None),
    # its secret: as a json mac's
    (_set(_doc(), INNER + [1, "mac"], "nope"), f"{S2}.concat[2].concat[1].mac", "no secret 'nope': add [secrets.nope]"),
    (_set(_doc(), ["conversation", 0, "step", 0, "send"], {"concat": [{"public_key": "client", "format": "pem-spki"},
                                                                       _MAC]}),
     f"{S0}.concat[1].mac", "the client does not know secret 'hmac' here, so it cannot compute the MAC"),
    (_set(_secret(_doc(), "m", {"made_by": "client"}), INNER + [1, "mac"], "m"), f"{S2}.concat[2].concat[1].mac",
     "the server does not know secret 'm' here, so it cannot verify the MAC"),
    (_set(_set(_secret(_doc(), "n", {"made_by": "preshared", "bytes": 12}), INNER + [1, "mac"], "n"),
          INNER + [1, "algorithm"], "cmac-aes"), f"{S2}.concat[2].concat[1].mac",
     "cmac-aes needs a 16-, 24- or 32-byte key; secret 'n' gives 12 bytes"),
    (_set(_set(_secret(_doc(), "n", {"made_by": "preshared", "bytes": 12}), INNER + [1, "mac"], "n"),
          INNER + [1, "algorithm"], "hmac-sha256"), None, None),  # HMAC takes a key of any length
]


@pytest.mark.parametrize("doc, path, words", CASES, ids=[str(i) for i in range(len(CASES))])
def test_misuse_is_refused_by_key_path(doc: dict[str, Any], path: Optional[str], words: Optional[str]) -> None:
    assert_refused_at(doc, path, words)


@pytest.mark.parametrize("change, path, message, key", [
    (('info = "SecureX-v1"\nbytes = 32\nskip = 32', 'kdf = "none"\nbytes = 32\nskip = 32'), "secrets.hmac.skip",
     SKIP_NONE, "skip"),
    ((f"send = {THIRD}", 'send = { mac = "hmac", algorithm = "hmac-sha256", of = "previous" }'), f"{S2}.mac", OUTSIDE,
     "mac"),
    (('{ concat = [{ sealed = "aes", cipher = "aes-gcm" }, { mac = "hmac"',
      '{ concat = [{ mac = "hmac", algorithm = "hmac-sha256", of = "previous" }, { mac = "hmac"'),
     f"{S2}.concat[2].concat[0].mac", NONE_TO_COVER, "mac"),
])
def test_errors_from_text_name_the_line(change: tuple[str, str], path: str, message: str, key: str) -> None:
    text = variant(FRAMES, change)
    with pytest.raises(DescriptionError) as info:
        loads(text)
    assert info.value.path == path and info.value.message == message, str(info.value)
    assert info.value.line is not None and key in text.splitlines()[info.value.line - 1]
