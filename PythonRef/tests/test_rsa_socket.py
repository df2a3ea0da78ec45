"""The rsa-socket state machines, driven directly (docs/PROTOCOL.md, "rsa-socket conversations as
implemented"): every conversation, the bytes of every message, legacy reading, and every malformed
input answered by exactly `Server: ERROR` and a close."""

from __future__ import annotations

import hashlib
import math
import random
import re

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from pythonref import rsa_cipher, rsa_keys
from pythonref import rsa_socket as rs
from pythonref.errors import CryptoFailure, ErrorKind
from pythonref.rsa_socket import Close, Event, Send

MESSAGE = rs.DEFAULT_MESSAGE
PLAINTEXT = b"Hello from the phone \x00\r\n\xff"


# ---- keys ----------------------------------------------------------------------------------------


def _probable_prime(n: int, rng: random.Random) -> bool:
    for p in (3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for _ in range(32):
        x = pow(rng.randrange(2, n - 1), d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _deterministic_key(seed: int, bits: int = 1024) -> rsa.RSAPrivateKey:
    """The same RSA key on every run, so the ciphertext searches below find the same seeds."""
    rng = random.Random(seed)
    e = 65537

    def prime() -> int:
        while True:
            candidate = rng.getrandbits(bits // 2) | (3 << (bits // 2 - 2)) | 1
            if _probable_prime(candidate, rng):
                return candidate

    while True:
        p, q = prime(), prime()
        if p != q and math.gcd(e, (p - 1) * (q - 1)) == 1:
            break
    d = pow(e, -1, (p - 1) * (q - 1))
    numbers = rsa.RSAPrivateNumbers(p, q, d, rsa.rsa_crt_dmp1(d, p), rsa.rsa_crt_dmq1(d, q),
                                    rsa.rsa_crt_iqmp(p, q), rsa.RSAPublicNumbers(e, p * q))
    return numbers.private_key()


@pytest.fixture(scope="module")
def fixed_key() -> rsa.RSAPrivateKey:
    key = _deterministic_key(20241130)
    assert key.key_size == 1024
    return key


def pem(key: rsa.RSAPrivateKey) -> bytes:
    return rsa_keys.export_private(key, "pkcs8-pem")


@pytest.fixture(scope="module")
def server_pem(key1024: rsa.RSAPrivateKey) -> bytes:
    return pem(key1024)


@pytest.fixture(scope="module")
def client_pem(other1024: rsa.RSAPrivateKey) -> bytes:
    return pem(other1024)


def server(private_key: bytes, framing: str = "legacy", padding: str = "oaep-sha256", **kw: object) -> rs.RsaSocketServer:
    return rs.RsaSocketServer(rs.ServerConfig(padding=padding, framing=framing, private_key=private_key, **kw))  # type: ignore[arg-type]


def client(direction: str, framing: str = "legacy", padding: str = "oaep-sha256", **kw: object) -> rs.RsaSocketClient:
    if direction == "phone-to-pi":
        kw.setdefault("plaintext", PLAINTEXT)
    return rs.RsaSocketClient(rs.ClientConfig(direction=direction, padding=padding, framing=framing, **kw))  # type: ignore[arg-type]


def f(payload: bytes, framing: str) -> bytes:
    return rs.frame(payload, framing)


def sends(actions: list[rs.Action]) -> list[bytes]:
    return [a.data for a in actions if isinstance(a, Send)]


def names(actions: list[rs.Action]) -> list[str]:
    return [a.name for a in actions if isinstance(a, Event)]


def feed(machine: rs.Machine, *chunks: bytes, idle: bool = False) -> list[rs.Action]:
    out: list[rs.Action] = []
    for chunk in chunks:
        out += machine.receive(chunk)
    if idle:
        out += machine.idle()
    return out


def ios_spki(key: rsa.RSAPrivateKey) -> bytes:
    return rsa_keys.export_public(key.public_key(), "spki-pem")


# ---- deterministic ciphertexts with chosen bytes -------------------------------------------------


def _stream(seed: int, n: int) -> bytes:
    return hashlib.shake_256(b"rsa-socket-test" + seed.to_bytes(8, "big")).digest(n)


def _mgf1(seed: bytes, length: int, h) -> bytes:  # type: ignore[no-untyped-def]
    out = b""
    counter = 0
    while len(out) < length:
        out += h(seed + counter.to_bytes(4, "big")).digest()
        counter += 1
    return out[:length]


def _encode(padding: str, k: int, msg: bytes, seed: int) -> bytes:
    """PKCS#1 v1.5 or OAEP encoding with padding bytes drawn from `seed` instead of a random source."""
    if padding == "pkcs1":
        ps = bytes(b or 1 for b in _stream(seed, k - 3 - len(msg)))
        return b"\x00\x02" + ps + b"\x00" + msg
    h = hashlib.sha1 if padding == "oaep-sha1" else hashlib.sha256
    hlen = h().digest_size
    db = h(b"").digest() + b"\x00" * (k - len(msg) - 2 * hlen - 2) + b"\x01" + msg
    oaep_seed = _stream(seed, hlen)
    masked_db = bytes(a ^ b for a, b in zip(db, _mgf1(oaep_seed, len(db), h)))
    masked_seed = bytes(a ^ b for a, b in zip(oaep_seed, _mgf1(masked_db, hlen, h)))
    return b"\x00" + masked_seed + masked_db


def crafted(key: rsa.RSAPrivateKey, padding: str, msg: bytes, want) -> tuple[int, bytes]:  # type: ignore[no-untyped-def]
    """The first seed (0, 1, 2, …) whose ciphertext satisfies `want`: the same on every run."""
    nums = key.public_key().public_numbers()
    k = rsa_cipher.modulus_bytes(key.key_size)
    for seed in range(200_000):
        em = int.from_bytes(_encode(padding, k, msg, seed), "big")
        ct = pow(em, nums.e, nums.n).to_bytes(k, "big")
        if want(ct):
            assert rsa_cipher.decrypt(key, padding, ct) == msg  # a real, valid ciphertext
            return seed, ct
    raise AssertionError("no such ciphertext in 200000 seeds")


HAS_CRLF = (lambda ct: b"\r\n" in ct)
HAS_LF_NOT_CRLF = (lambda ct: b"\n" in ct and b"\r\n" not in ct)
STARTS_CR_OR_LF = (lambda ct: ct[:1] in (b"\r", b"\n"))
ENDS_CRLF_OR_LF = (lambda ct: ct.endswith(b"\n"))


# ---- whole conversations -------------------------------------------------------------------------


@pytest.mark.parametrize("chunk", [None, 1], ids=["whole", "1-byte-chunks"])
@pytest.mark.parametrize("digest", [False, True], ids=["no-digest", "digest"])
@pytest.mark.parametrize("padding", rs.PADDINGS)
@pytest.mark.parametrize("framing", rs.FRAMINGS)
def test_phone_to_pi_conversation(server_pem: bytes, framing: str, padding: str, digest: bool, chunk: int | None) -> None:
    s = server(server_pem, framing, padding, digest=digest)
    c = client("phone-to-pi", framing, padding, digest=digest)
    t = rs.converse(c, s, chunk=chunk)
    assert [(e.name, dict(e.fields)) for e in t.server_events] == [("decrypted", {"plaintext": PLAINTEXT}), ("quit", {})]
    expected_ok = {"digest": hashlib.sha256(PLAINTEXT).hexdigest(), "verified": True} if digest else {}
    assert [(e.name, dict(e.fields)) for e in t.client_events] == [("server-ok", expected_ok), ("server-stopped", {})]
    assert s.closed and c.closed
    assert isinstance(t.server[-1], Close) and isinstance(t.client[-1], Close)
    assert rs.conversation_succeeded("phone-to-pi", t.client_events)


@pytest.mark.parametrize("chunk", [None, 1], ids=["whole", "1-byte-chunks"])
@pytest.mark.parametrize("key_format", rs.KEY_FORMATS)
@pytest.mark.parametrize("padding", rs.PADDINGS)
@pytest.mark.parametrize("framing", rs.FRAMINGS)
def test_pi_to_phone_conversation(server_pem: bytes, client_pem: bytes, framing: str, padding: str,
                                  key_format: str, chunk: int | None) -> None:
    s = server(server_pem, framing, padding)
    c = client("pi-to-phone", framing, padding, private_key=client_pem, key_format=key_format)
    t = rs.converse(c, s, chunk=chunk)
    assert names(t.server) == ["sent-ciphertext", "quit"]
    assert [(e.name, dict(e.fields)) for e in t.client_events] == [("decrypted", {"plaintext": MESSAGE}), ("server-stopped", {})]
    assert s.closed and c.closed
    assert rs.conversation_succeeded("pi-to-phone", t.client_events)


def test_pi_to_phone_sends_the_configured_message(server_pem: bytes, client_pem: bytes) -> None:
    s = server(server_pem, message=b"\x00binary\r\nmessage")
    t = rs.converse(client("pi-to-phone", private_key=client_pem), s)
    assert t.client_events[0] == Event("decrypted", {"plaintext": b"\x00binary\r\nmessage"})


# ---- the bytes of every message ------------------------------------------------------------------


@pytest.mark.parametrize("digest", [False, True])
@pytest.mark.parametrize("framing", rs.FRAMINGS)
def test_phone_to_pi_bytes_match_the_spec_table(key1024: rsa.RSAPrivateKey, server_pem: bytes, framing: str,
                                                digest: bool) -> None:
    t = rs.converse(client("phone-to-pi", framing, "pkcs1", digest=digest), server(server_pem, framing, "pkcs1", digest=digest))
    hello, encrypted, quit_ = t.client_sent
    server_key, ok, stopped = t.server_sent
    assert hello == f(b"Client: OK", framing)
    assert server_key == f(b"public_key=" + ios_spki(key1024) + b"\n", framing)
    assert quit_ == f(b"Quit", framing)
    ok_payload = b"Server: OK" + (b" sha256=" + hashlib.sha256(PLAINTEXT).hexdigest().encode() if digest else b"")
    assert ok == f(ok_payload, framing)
    assert stopped == f(b"Server stopped\n", framing)
    payload = encrypted[4:] if framing == "framed" else encrypted
    assert payload.startswith(b"encrypted_message=") and len(payload) == len(b"encrypted_message=") + 128
    assert rsa_cipher.decrypt(key1024, "pkcs1", payload[len(b"encrypted_message="):]) == PLAINTEXT
    if framing == "framed":
        for message in t.client_sent + t.server_sent:
            assert int.from_bytes(message[:4], "big") == len(message) - 4 > 0


def test_server_key_is_the_ios_spki_form(key1024: rsa.RSAPrivateKey, server_pem: bytes) -> None:
    out = feed(server(server_pem), b"Client: OK")
    (message,) = sends(out)
    text = message[len(b"public_key="):]
    assert re.fullmatch(rb"-----BEGIN PUBLIC KEY-----\n(?:[A-Za-z0-9+/]{64}\n)*[A-Za-z0-9+/=]{1,64}\n"
                        rb"-----END PUBLIC KEY-----\n", text)
    assert text.count(b"\n") == len(text.splitlines())  # exactly one newline after END


@pytest.mark.parametrize("key_format, expected", [
    ("spki-pem", lambda spki, p1: spki),
    ("spki-pem-newline", lambda spki, p1: spki + b"\n"),
    ("spki-pem-crlf", lambda spki, p1: spki.replace(b"\n", b"\r\n")),
    ("pkcs1-pem", lambda spki, p1: p1),
])
@pytest.mark.parametrize("framing", rs.FRAMINGS)
def test_pi_to_phone_bytes_match_the_spec_table(other1024: rsa.RSAPrivateKey, client_pem: bytes, server_pem: bytes,
                                                framing: str, key_format: str, expected) -> None:  # type: ignore[no-untyped-def]
    t = rs.converse(client("pi-to-phone", framing, "oaep-sha1", private_key=client_pem, key_format=key_format),
                    server(server_pem, framing, "oaep-sha1"))
    spki = ios_spki(other1024)
    p1 = rsa_keys.export_public(other1024.public_key(), "pkcs1-pem")
    assert p1.startswith(b"-----BEGIN RSA PUBLIC KEY-----\n") and p1.endswith(b"-----END RSA PUBLIC KEY-----")
    key_message, quit_ = t.client_sent
    ciphertext, stopped = t.server_sent
    assert key_message == f(b"public_key=" + expected(spki, p1), framing)
    assert quit_ == f(b"Quit", framing)
    assert stopped == f(b"Server stopped\n", framing)
    raw = ciphertext[4:] if framing == "framed" else ciphertext
    assert len(raw) == 128 and rsa_cipher.decrypt(other1024, "oaep-sha1", raw) == MESSAGE


def test_wrong_pem_header_quirk_sends_spki_under_the_pkcs1_label(other1024: rsa.RSAPrivateKey, client_pem: bytes) -> None:
    c = client("pi-to-phone", private_key=client_pem, quirk="wrong-pem-header")
    (message,) = sends(c.start())
    spki_body = ios_spki(other1024).split(b"-----")[2]
    assert message == b"public_key=-----BEGIN RSA PUBLIC KEY-----" + spki_body + b"-----END RSA PUBLIC KEY-----"


# ---- legacy reading ------------------------------------------------------------------------------


def test_legacy_server_handles_joined_messages(server_pem: bytes, fixed_key: rsa.RSAPrivateKey) -> None:
    s = server(pem(fixed_key), padding="pkcs1")
    ct = rsa_cipher.encrypt(fixed_key.public_key(), "pkcs1", b"joined")
    out = feed(s, b"Client: OK" + b"encrypted_message=" + ct + b"Quit")
    assert names(out) == ["decrypted", "quit"]
    assert sends(out)[1:] == [b"Server: OK", b"Server stopped\n"]
    assert isinstance(out[-1], Close)


def test_legacy_server_skips_line_ends_left_over_before_text(server_pem: bytes, fixed_key: rsa.RSAPrivateKey) -> None:
    s = server(pem(fixed_key), padding="pkcs1")
    ct = rsa_cipher.encrypt(fixed_key.public_key(), "pkcs1", b"x")
    out = feed(s, b"\r\nClient: OK\r\n", b"\n", b"encrypted_message=" + ct, b"\r\n", b"Quit\n")
    assert names(out) == ["decrypted", "quit"]


def test_legacy_server_takes_the_key_line_end_in_a_later_chunk(server_pem: bytes, client_pem: bytes) -> None:
    c = client("pi-to-phone", private_key=client_pem, key_format="spki-pem-crlf")
    (key_message,) = sends(c.start())
    assert key_message.endswith(b"-----END PUBLIC KEY-----") and b"\r\n-----END" in key_message
    s = server(server_pem)
    out = feed(s, key_message)  # complete at the END line: answered at once
    assert names(out) == ["sent-ciphertext"]
    out = feed(s, b"\r", b"\n", b"Quit")
    assert names(out) == ["quit"]


@pytest.mark.parametrize("ending", [b"\n", b"\r\n"])
@pytest.mark.parametrize("framing", rs.FRAMINGS)
def test_server_accepts_a_line_end_after_the_key_in_the_same_message(other1024: rsa.RSAPrivateKey, server_pem: bytes,
                                                                     framing: str, ending: bytes) -> None:
    for body in (ios_spki(other1024), ios_spki(other1024).replace(b"\n", b"\r\n")):
        s = server(server_pem, framing)
        out = feed(s, f(b"public_key=" + body + ending, framing), f(b"Quit", framing))
        assert names(out) == ["sent-ciphertext", "quit"], out


def test_legacy_client_handles_joined_answers(fixed_key: rsa.RSAPrivateKey) -> None:
    c = client("phone-to-pi", padding="pkcs1")
    c.start()
    out = feed(c, b"public_key=" + ios_spki(fixed_key) + b"\nServer: OK" + b"Server stopped\n")
    assert names(out) == ["server-ok", "server-stopped"]
    assert sends(out)[1] == b"Quit" and c.closed


def test_legacy_client_with_digest_joined_and_split(fixed_key: rsa.RSAPrivateKey) -> None:
    ok = b"Server: OK sha256=" + hashlib.sha256(PLAINTEXT).hexdigest().encode()
    stream = b"public_key=" + ios_spki(fixed_key) + b"\n" + ok + b"Server stopped\n"
    for chunks in ([stream], [bytes([b]) for b in stream]):
        c = client("phone-to-pi", padding="pkcs1", digest=True)
        c.start()
        out = feed(c, *chunks)
        assert [(e.name, dict(e.fields)) for e in out if isinstance(e, Event)] == [
            ("server-ok", {"digest": hashlib.sha256(PLAINTEXT).hexdigest(), "verified": True}), ("server-stopped", {})]


def test_legacy_client_with_digest_takes_a_quiet_gap_as_ok_unverified(server_pem: bytes) -> None:
    t = rs.converse(client("phone-to-pi", digest=True), server(server_pem, digest=False))
    assert [(e.name, dict(e.fields)) for e in t.client_events] == [("server-ok", {}), ("server-stopped", {})]
    assert rs.conversation_succeeded("phone-to-pi", t.client_events)


def test_client_reports_a_wrong_digest(fixed_key: rsa.RSAPrivateKey) -> None:
    for framing in rs.FRAMINGS:
        c = client("phone-to-pi", framing, "pkcs1", digest=True)
        c.start()
        feed(c, f(b"public_key=" + ios_spki(fixed_key) + b"\n", framing))
        out = feed(c, f(b"Server: OK sha256=" + hashlib.sha256(b"other").hexdigest().encode(), framing),
                   f(b"Server stopped\n", framing))
        events = [e for e in out if isinstance(e, Event)]
        assert events[0].fields["verified"] is False
        assert not rs.conversation_succeeded("phone-to-pi", events)


def test_legacy_limit_applies_across_one_byte_chunks(server_pem: bytes) -> None:
    s = server(server_pem, max_message=4096)
    out = feed(s, *[bytes([b]) for b in b"public_key=-----BEGIN PUBLIC KEY-----\n"])
    out += feed(s, *([b"A"] * 4100))
    assert sends(out) == [b"Server: ERROR"] and s.closed
    assert "more than 4096 bytes" in out[0].fields["reason"]  # type: ignore[union-attr]


# ---- ciphertexts containing line ends ------------------------------------------------------------


@pytest.mark.parametrize("want", [HAS_CRLF, HAS_LF_NOT_CRLF, STARTS_CR_OR_LF, ENDS_CRLF_OR_LF],
                         ids=["crlf-inside", "lf-inside", "starts-cr-or-lf", "ends-lf"])
@pytest.mark.parametrize("padding", rs.PADDINGS)
def test_ciphertexts_with_line_ends_pass_intact_phone_to_pi(fixed_key: rsa.RSAPrivateKey, padding: str, want) -> None:  # type: ignore[no-untyped-def]
    seed, ct = crafted(fixed_key, padding, PLAINTEXT, want)
    for chunks in ([b"encrypted_message=" + ct + b"Quit"], [bytes([b]) for b in b"encrypted_message=" + ct + b"Quit"]):
        s = server(pem(fixed_key), padding=padding)
        feed(s, b"Client: OK")
        out = feed(s, *chunks)
        assert names(out) == ["decrypted", "quit"], (seed, out)
        assert out[0] == Event("decrypted", {"plaintext": PLAINTEXT})


@pytest.mark.parametrize("want", [HAS_CRLF, HAS_LF_NOT_CRLF, STARTS_CR_OR_LF, ENDS_CRLF_OR_LF],
                         ids=["crlf-inside", "lf-inside", "starts-cr-or-lf", "ends-lf"])
@pytest.mark.parametrize("padding", rs.PADDINGS)
def test_ciphertexts_with_line_ends_pass_intact_pi_to_phone(fixed_key: rsa.RSAPrivateKey, padding: str, want) -> None:  # type: ignore[no-untyped-def]
    seed, ct = crafted(fixed_key, padding, MESSAGE, want)
    for chunks in ([ct + b"Server stopped\n"], [bytes([b]) for b in ct + b"Server stopped\n"]):
        c = client("pi-to-phone", padding=padding, private_key=pem(fixed_key))
        c.start()
        out = feed(c, *chunks)
        assert names(out) == ["decrypted", "server-stopped"], (seed, out)
        assert out[0] == Event("decrypted", {"plaintext": MESSAGE})


@pytest.mark.parametrize("padding", rs.PADDINGS)
def test_tutorial_strip_crlf_quirk_corrupts_a_crlf_ciphertext(fixed_key: rsa.RSAPrivateKey, padding: str) -> None:
    _, ct = crafted(fixed_key, padding, PLAINTEXT, HAS_CRLF)
    honest, quirky = server(pem(fixed_key), padding=padding), server(pem(fixed_key), padding=padding,
                                                                     quirk="tutorial-strip-crlf")
    for s in (honest, quirky):
        feed(s, b"Client: OK")
    assert names(feed(honest, b"encrypted_message=" + ct, idle=True)) == ["decrypted"]
    out = feed(quirky, b"encrypted_message=" + ct, idle=True)
    assert names(out) == ["error"] and sends(out) == [b"Server: ERROR"] and quirky.closed


def test_tutorial_strip_crlf_quirk_leaves_a_clean_ciphertext_alone(fixed_key: rsa.RSAPrivateKey) -> None:
    _, ct = crafted(fixed_key, "pkcs1", PLAINTEXT, lambda c: b"\r" not in c and b"\n" not in c)
    s = server(pem(fixed_key), padding="pkcs1", quirk="tutorial-strip-crlf")
    out = feed(s, b"Client: OK\r\n", b"encrypted_message=" + ct)
    assert names(out) == ["decrypted"]


def test_pkcs1_despite_oaep_quirk_is_caught_by_the_client(server_pem: bytes, client_pem: bytes) -> None:
    t = rs.converse(client("pi-to-phone", padding="oaep-sha256", private_key=client_pem),
                    server(server_pem, padding="oaep-sha256", quirk="pkcs1-despite-oaep"))
    (failed,) = t.client_events
    assert failed.name == "failed" and "(it decrypts with pkcs1)" in str(failed.fields["reason"])
    assert not rs.conversation_succeeded("pi-to-phone", t.client_events)


def test_wrong_pem_header_quirk_is_refused_by_the_server(server_pem: bytes, client_pem: bytes) -> None:
    for framing in rs.FRAMINGS:
        t = rs.converse(client("pi-to-phone", framing, private_key=client_pem, quirk="wrong-pem-header"),
                        server(server_pem, framing))
        assert t.server_sent == [f(b"Server: ERROR", framing)]
        assert [e.name for e in t.client_events] == ["server-error"]


# ---- malformed input: exactly `Server: ERROR`, then close ----------------------------------------


def _robot_probes(key: rsa.RSAPrivateKey) -> dict[str, bytes]:
    """ROBOT / tlsfuzzer probe classes as raw RSA: each a ciphertext of exactly k bytes."""
    nums = key.public_key().public_numbers()
    k = rsa_cipher.modulus_bytes(key.key_size)

    def raw(em: bytes) -> bytes:
        return pow(int.from_bytes(em, "big"), nums.e, nums.n).to_bytes(k, "big")

    ps = b"\x11" * (k - 3 - 8)
    return {
        "wrong-first-bytes": raw(b"\x17\x02" + ps + b"\x00" + b"A" * 8),
        "no-zero-separator": raw(b"\x00\x02" + b"\x11" * (k - 2)),
        "separator-too-early": raw(b"\x00\x02" + b"\x11" * 4 + b"\x00" + b"A" * (k - 7)),
        "00-01-block-type": raw(b"\x00\x01" + b"\xff" * (k - 3 - 8) + b"\x00" + b"A" * 8),
        "ge-modulus": b"\xff" * k,
        "zero": b"\x00" * k,
        "pkcs1-for-oaep": rsa_cipher.encrypt(key.public_key(), "pkcs1", b"A" * 8),
        "oaep-sha1-for-oaep-sha256": rsa_cipher.encrypt(key.public_key(), "oaep-sha1", b"A" * 8),
    }


def _server_cases(key: rsa.RSAPrivateKey, other: rsa.RSAPrivateKey) -> list[tuple[str, str, list[bytes], list[bytes], bool]]:
    """(name, framing, good chunks first, then the bad chunks, then a quiet gap or not)."""
    k = 128
    spki = ios_spki(other)
    hello = [b"Client: OK"]
    good_ct = rsa_cipher.encrypt(key.public_key(), "oaep-sha256", b"x")
    fhello = [f(b"Client: OK", "framed")]
    cases: list[tuple[str, str, list[bytes], list[bytes], bool]] = [
        ("garbage", "legacy", [], [b"garbage"], False),
        ("lowercase-hello", "legacy", [], [b"client: ok"], False),
        ("hello-typo", "legacy", [], [b"Client: OX"], False),
        ("nul-byte", "legacy", [], [b"\x00"], False),
        ("half-hello-then-quiet", "legacy", [], [b"Client: O"], True),
        ("quit-first", "legacy", [], [b"Quit"], False),
        ("key-not-pem", "legacy", [], [b"public_key=MIIBIjANBg"], False),
        ("key-garbage-body", "legacy", [], [b"public_key=-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"], False),
        ("key-label-mismatch", "legacy", [], [b"public_key=" + spki.replace(b"END PUBLIC", b"END RSA PUBLIC")], False),
        ("key-is-private", "legacy", [], [b"public_key=" + pem(other)], False),
        ("key-is-pkcs1-private", "legacy", [], [b"public_key=" + rsa_keys.export_private(other, "pkcs1-pem")], False),
        ("key-spki-under-pkcs1-label", "legacy", [],
         [b"public_key=" + spki.replace(b"PUBLIC KEY-----", b"RSA PUBLIC KEY-----")], False),
        ("key-pkcs1-under-spki-label", "legacy", [],
         [b"public_key=" + rsa_keys.export_public(other.public_key(), "pkcs1-pem").replace(b"RSA PUBLIC", b"PUBLIC")],
         False),
        ("key-incomplete-then-quiet", "legacy", [], [b"public_key=" + spki[:100]], True),
        ("after-hello-garbage", "legacy", hello, [b"garbage"], False),
        ("after-hello-hello", "legacy", hello, [b"Client: OK"], False),
        ("after-hello-quit", "legacy", hello, [b"Quit"], False),
        ("encrypted-short-then-quiet", "legacy", hello, [b"encrypted_message=" + b"\x01" * (k - 1)], True),
        ("after-key-garbage", "legacy", [b"public_key=" + spki], [b"Quux"], False),
        ("after-ok-not-quit", "legacy", hello + [b"encrypted_message=" + good_ct], [b"Client: OK"], False),
        ("frame-length-zero", "framed", [], [b"\x00\x00\x00\x00"], False),
        ("frame-over-limit", "framed", [], [(65537).to_bytes(4, "big")], False),
        ("frame-huge", "framed", [], [b"\xff\xff\xff\xff"], False),
        ("frame-header-then-quiet", "framed", [], [b"\x00\x00"], True),
        ("frame-incomplete-then-quiet", "framed", [], [b"\x00\x00\x00\x0aClient"], True),
        ("frame-hello-with-newline", "framed", [], [f(b"Client: OK\n", "framed")], False),
        ("frame-unframed-hello", "framed", [], [b"Client: OK"], False),
        ("frame-key-trailing-bytes", "framed", [], [f(b"public_key=" + spki + b"\nextra", "framed")], False),
        ("frame-two-keys", "framed", [], [f(b"public_key=" + spki + spki, "framed")], False),
        ("frame-encrypted-k-minus-1", "framed", fhello, [f(b"encrypted_message=" + b"\x01" * (k - 1), "framed")], False),
        ("frame-encrypted-k-plus-1", "framed", fhello, [f(b"encrypted_message=" + b"\x01" * (k + 1), "framed")], False),
        ("frame-after-ok-zero-length", "framed", fhello + [f(b"encrypted_message=" + good_ct, "framed")],
         [b"\x00\x00\x00\x00"], False),
    ]
    for probe, ct in _robot_probes(key).items():
        for framing in rs.FRAMINGS:
            cases.append((f"robot-{probe}", framing, [f(b"Client: OK", framing)],
                          [f(b"encrypted_message=" + ct, framing)], False))
    return cases


def test_every_malformed_input_is_answered_by_exactly_server_error_and_close(
        key1024: rsa.RSAPrivateKey, other1024: rsa.RSAPrivateKey, server_pem: bytes) -> None:
    answers: set[bytes] = set()
    for name, framing, good, bad, idle in _server_cases(key1024, other1024):
        for split in (False, True):  # the chunks as given, and cut into single bytes
            s = server(server_pem, framing)
            cut = (lambda chunks: [bytes([b]) for c in chunks for b in c]) if split else (lambda chunks: chunks)
            before = feed(s, *cut(good))
            assert "error" not in names(before) and not s.closed, (name, split, before)
            out = feed(s, *cut(bad), idle=idle)
            assert sends(out) == [f(b"Server: ERROR", framing)], (name, split, out)
            assert names(out) == ["error"], (name, split, out)
            assert isinstance(out[-1], Close) and s.closed, (name, split, out)
            assert s.receive(b"Quit") == [] and s.idle() == []  # reads nothing more
            answers.add(sends(out)[0])
    assert answers == {b"Server: ERROR", f(b"Server: ERROR", "framed")}  # one answer per framing, every cause


def test_robot_probes_are_refused_with_the_same_answer_per_padding(key1024: rsa.RSAPrivateKey, server_pem: bytes) -> None:
    for padding in rs.PADDINGS:
        answers = set()
        for probe, ct in _robot_probes(key1024).items():
            if padding != "oaep-sha256" and probe in ("pkcs1-for-oaep", "oaep-sha1-for-oaep-sha256"):
                continue  # valid for this padding
            s = server(server_pem, padding=padding)
            out = feed(s, b"Client: OK", b"encrypted_message=" + ct)
            answers.add((tuple(sends(out)[1:]), isinstance(out[-1], Close), names(out)[0]))
        assert answers == {((b"Server: ERROR",), True, "error")}, padding


def test_server_never_raises_on_random_input(server_pem: bytes) -> None:
    rng = random.Random(4)
    alphabet = [b"Client: OK", b"public_key=", b"-----BEGIN PUBLIC KEY-----\n", b"-----END PUBLIC KEY-----",
                b"encrypted_message=", b"Quit", b"\r\n", b"\n", b"\x00\x00\x00\x0a", b"\xff"]
    for i in range(300):
        s = server(server_pem, rng.choice(rs.FRAMINGS), max_message=rng.choice([16, 200, 65536]),
                   quirk=rng.choice([None, "tutorial-strip-crlf"]))
        for _ in range(rng.randint(1, 8)):
            piece = rng.choice(alphabet) if rng.random() < 0.6 else rng.randbytes(rng.randint(0, 40))
            out = s.receive(piece) if rng.random() < 0.85 else s.idle()
            assert all(isinstance(a, (Send, Close, Event)) for a in out)
        if s.closed:
            assert names(s.receive(b"x")) == []


def test_client_never_raises_on_random_input(client_pem: bytes) -> None:
    rng = random.Random(5)
    for i in range(300):
        direction = rng.choice(rs.DIRECTIONS)
        c = client(direction, rng.choice(rs.FRAMINGS), digest=rng.random() < 0.5, private_key=client_pem)
        c.start()
        for _ in range(rng.randint(1, 6)):
            piece = rng.choice([b"Server: OK", b" sha256=", b"Server: ERROR", b"public_key=", b"\n"]) \
                if rng.random() < 0.5 else rng.randbytes(rng.randint(0, 200))
            out = c.receive(piece) if rng.random() < 0.8 else c.idle()
            assert all(isinstance(a, (Send, Close, Event)) for a in out)


def test_non_bytes_input_is_an_error_not_an_exception(server_pem: bytes) -> None:
    s = server(server_pem)
    out = s.receive("Client: OK")  # type: ignore[arg-type]
    assert sends(out) == [b"Server: ERROR"] and s.closed


# ---- the client's failures -----------------------------------------------------------------------


@pytest.mark.parametrize("framing", rs.FRAMINGS)
def test_client_reports_server_error_in_every_state(framing: str, fixed_key: rsa.RSAPrivateKey, client_pem: bytes) -> None:
    error = f(b"Server: ERROR", framing)
    key_message = f(b"public_key=" + ios_spki(fixed_key) + b"\n", framing)
    for direction, before in [("phone-to-pi", []), ("phone-to-pi", [key_message]), ("pi-to-phone", [])]:
        c = client(direction, framing, private_key=client_pem)
        c.start()
        out = feed(c, *before, error, idle=True)
        assert names(out) == ["server-error"] and c.closed, (direction, before, out)


@pytest.mark.parametrize("framing", rs.FRAMINGS)
def test_client_fails_on_bad_server_messages(framing: str, fixed_key: rsa.RSAPrivateKey, client_pem: bytes) -> None:
    spki = ios_spki(fixed_key)
    bad = [
        ("phone-to-pi", [b"garbage"]),
        ("phone-to-pi", [b"public_key=-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"]),
        ("phone-to-pi", [b"public_key=" + pem(fixed_key)]),  # a private key
        ("phone-to-pi", [b"public_key=" + spki[:50]]),  # incomplete, then quiet
        ("phone-to-pi", [b"public_key=" + spki + b"\n", b"Server: NO"]),
        ("phone-to-pi", [b"public_key=" + spki + b"\n", b"Server: OK", b"Server stoppe"]),
        ("pi-to-phone", [b"\x01" * 100]),  # short ciphertext, then quiet
        ("pi-to-phone", [b"\x01" * 128]),  # does not decrypt
    ]
    for direction, messages in bad:
        c = client(direction, framing, "pkcs1", private_key=client_pem)
        c.start()
        out = feed(c, *[f(m, framing) for m in messages], idle=True)
        assert names(out)[-1] == "failed" and isinstance(out[-1], Close) and c.closed, (direction, messages, out)
        assert not rs.conversation_succeeded(direction, [a for a in out if isinstance(a, Event)])


def test_client_refuses_a_plaintext_too_long_for_the_key(server_pem: bytes) -> None:
    t = rs.converse(client("phone-to-pi", plaintext=b"x" * 63), server(server_pem))
    (failed,) = t.client_events
    assert failed.name == "failed" and "TooLong" in str(failed.fields["reason"])


# ---- configuration -------------------------------------------------------------------------------


def test_configuration_errors_raise_at_construction(server_pem: bytes) -> None:
    cases = [
        (lambda: server(server_pem, padding="oaep"), ErrorKind.UNSUPPORTED),
        (lambda: server(server_pem, framing="lines"), ErrorKind.UNSUPPORTED),
        (lambda: server(server_pem, quirk="evil"), ErrorKind.UNSUPPORTED),
        (lambda: server(server_pem, max_message=0), ErrorKind.BAD_INPUT),
        (lambda: server(b"not a key"), ErrorKind.BAD_KEY),
        (lambda: client("sideways"), ErrorKind.UNSUPPORTED),
        (lambda: client("pi-to-phone"), ErrorKind.BAD_INPUT),
        (lambda: client("phone-to-pi", plaintext=None), ErrorKind.BAD_INPUT),
        (lambda: client("phone-to-pi", key_format="der"), ErrorKind.UNSUPPORTED),
        (lambda: client("phone-to-pi", quirk="tutorial-strip-crlf"), ErrorKind.UNSUPPORTED),
        (lambda: client("phone-to-pi", digest="yes"), ErrorKind.BAD_INPUT),
    ]
    for make, kind in cases:
        with pytest.raises(CryptoFailure) as info:
            make()
        assert info.value.kind == kind


def test_action_to_dict() -> None:
    assert rs.action_to_dict(Send(b"x")) == {"send": b"x"}
    assert rs.action_to_dict(Close()) == {"close": True}
    assert rs.action_to_dict(Event("server-ok", {"digest": "ab", "verified": True})) == {
        "event": "server-ok", "digest": "ab", "verified": True}
