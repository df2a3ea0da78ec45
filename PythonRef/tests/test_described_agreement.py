"""`made_by = "agreement"` secrets (ECDH on P-256/P-384, X25519, then HKDF, X9.63 or nothing) and the
EC/X25519 public key formats, in PythonRef's engine. Every agreed key is checked against an
independent computation with pyca from the two parties' keys, and used to open the wire's ciphertext
outside the engine."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from pathlib import Path
from typing import Any, Optional

import pytest
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, x25519
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF

from pythonref.described import DescriptionError, Party, Refused, load, loads
from pythonref.described import server as dserver
from test_described import converse

EXAMPLE = Path(__file__).resolve().parents[2] / "examples/protocols/ecdh-p384-hkdf-fernet.toml"
RSA_SOCKET = (Path(__file__).resolve().parents[2] / "protocols/rsa-socket.toml").read_text()
P256_P = 2**256 - 2**224 + 2**192 + 2**96 - 1  # SEC 2 §2.4.2


def described(key_type: str = "ec-p256", fmt: str = "pem-spki", *, encoding: str = "", secret: str = "",
              sealed: str = 'cipher = "fernet"', in_json: bool = False) -> str:
    """Client key, server key, a sealed message under the agreed secret `k` and the same plaintext back."""
    enc = f', encoding = "{encoding}"' if encoding else ""

    def key(who: str) -> str:
        value = f'{{ public_key = "{who}", format = "{fmt}"{enc} }}'
        return f"{{ json = {{ key = {value} }} }}" if in_json else value

    return f"""
name = "agreement-test"

[transport]
kind = "tcp"
framing = "length-prefix"

[keys.c]
type = "{key_type}"
holder = "client"

[keys.s]
type = "{key_type}"
holder = "server"

[secrets.k]
made_by = "agreement"
keys = ["c", "s"]
{secret}

[[conversation]]
name = "talk"

[[conversation.step]]
from = "client"
send = {key("c")}

[[conversation.step]]
from = "server"
send = {key("s")}

[[conversation.step]]
from = "client"
send = {{ sealed = "k", {sealed}, carries = "message" }}

[[conversation.step]]
from = "server"
send = {{ sealed = "k", {sealed}, carries = "same" }}
then = "close"
"""


def shared_secret(client: Party, server: Party, client_key: str = "c", server_key: str = "s") -> bytes:
    """ECDH / X25519 of the two parties' own keys, by pyca directly; both directions must agree."""
    c, s = client.private_keys[client_key], server.private_keys[server_key]
    if isinstance(c, x25519.X25519PrivateKey):
        one, two = c.exchange(s.public_key()), s.exchange(c.public_key())
    else:
        one, two = c.exchange(ec.ECDH(), s.public_key()), s.exchange(ec.ECDH(), c.public_key())
    assert one == two
    return one


def completed(text: str, message: bytes = b"agreed hello") -> tuple[Party, Party, list[Any]]:
    c, s, log = converse(loads(text), "talk", client={"message": message})
    assert c.done and s.done and c.refusal is None and s.refusal is None
    assert s.received["message"] == message and c.received["same"] == message
    assert c.secrets["k"] == s.secrets["k"]
    return c, s, log


# ---- the example ---------------------------------------------------------------------------------


def test_the_p384_hkdf_fernet_example_converses_and_agrees_on_an_independent_key() -> None:
    desc = load(EXAMPLE)
    c, s, log = converse(desc, "handshake-echo", client={"message": b"over ECDH"})
    assert c.done and s.done and c.refusal is None and s.refusal is None
    assert s.received["message"] == b"over ECDH"
    for i, who in ((0, "client"), (1, "server")):  # SPKI PEM of a P-384 key, as the source sends it
        key = serialization.load_pem_public_key(log[i][1])
        assert log[i][0] == who and isinstance(key, ec.EllipticCurvePublicKey) and key.curve.name == "secp384r1"
    # The source's own derivation: HKDF(SHA256(), length=32, salt=None, info=b'handshake data').
    shared = shared_secret(c, s, "client", "server")
    assert len(shared) == 48
    key = HKDF(hashes.SHA256(), 32, None, b"handshake data").derive(shared)
    assert c.secrets["session"] == s.secrets["session"] == key
    fernet = Fernet(base64.urlsafe_b64encode(key))
    assert fernet.decrypt(log[2][1]) == fernet.decrypt(log[3][1]) == b"over ECDH"


def test_the_example_over_loopback_sockets_with_fresh_server_keys() -> None:
    desc = load(EXAMPLE)
    assert dserver.server_keys(desc) == {}  # agreement keys are each conversation's own (forward secrecy)
    srv = dserver.make_server(desc, quiet_gap=0.05)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        runs = [dserver.run_client(desc, "handshake-echo", srv.host, srv.port, quiet_gap=0.05) for _ in range(2)]
    finally:
        srv.shutdown()
        thread.join(timeout=5)
    assert all(r["ok"] for r in runs), [r["reason"] for r in runs]
    assert runs[0]["received"][0] != runs[1]["received"][0]  # the server's key differs per conversation


# ---- formats, KDFs and ciphers -------------------------------------------------------------------


@pytest.mark.parametrize("fmt, encoding, in_json, size, first", [
    ("x962", "", False, 65, (4,)),
    ("x962", "hex", False, 130, None),
    ("x962-compressed", "", False, 33, (2, 3)),
    ("raw", "", False, 64, None),
    ("raw", "base64", True, None, None),
    ("der-spki", "", False, None, None),
    ("der-spki", "base64", True, None, None),
    ("pem-spki-newline", "", False, None, None),
])
def test_p256_public_key_formats_agree(fmt: str, encoding: str, in_json: bool, size: Optional[int],
                                       first: Optional[tuple[int, ...]]) -> None:
    c, s, log = completed(described("ec-p256", fmt, encoding=encoding, in_json=in_json))
    wire = log[0][1]
    if size is not None:
        assert len(wire) == size
    if first is not None:
        assert wire[0] in first
    point = c.private_keys["c"].public_key().public_bytes(serialization.Encoding.X962,
                                                          serialization.PublicFormat.UncompressedPoint)
    if fmt == "raw" and not in_json:
        assert wire == point[1:]  # X || Y: CryptoKit's rawRepresentation
    if fmt == "x962" and encoding == "hex":
        assert wire == point.hex().encode()
    if in_json:
        sent = base64.b64decode(json.loads(wire)["key"])
        assert sent == (point[1:] if fmt == "raw" else serialization.load_der_public_key(sent).public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo))
    key = HKDF(hashes.SHA256(), 32, None, b"").derive(shared_secret(c, s))
    assert c.secrets["k"] == key
    assert Fernet(base64.urlsafe_b64encode(key)).decrypt(log[2][1]) == b"agreed hello"


@pytest.mark.parametrize("fmt, size", [("raw", 32), ("der-spki", None), ("pem-spki", None)])
def test_x25519_agrees(fmt: str, size: Optional[int]) -> None:
    c, s, log = completed(described("x25519", fmt))
    if size is not None:
        assert log[0][1] == c.private_keys["c"].public_key().public_bytes(serialization.Encoding.Raw,
                                                                         serialization.PublicFormat.Raw)
    assert c.secrets["k"] == HKDF(hashes.SHA256(), 32, None, b"").derive(shared_secret(c, s))


def test_hkdf_sha384_with_salt_and_info() -> None:
    c, s, _ = completed(described("ec-p384", "x962", secret='kdf = "hkdf-sha384"\nsalt = "00ff10"\ninfo = "ctx"\nbytes = 24',
                                  sealed='cipher = "aes-gcm"'))
    assert c.secrets["k"] == HKDF(hashes.SHA384(), 24, bytes.fromhex("00ff10"), b"ctx").derive(shared_secret(c, s))


def test_an_empty_salt_is_no_salt() -> None:  # RFC 5869 §2.2
    c, s, _ = completed(described(secret='salt = ""'))
    assert c.secrets["k"] == HKDF(hashes.SHA256(), 32, b"\x00" * 32, b"").derive(shared_secret(c, s))


def test_x963_sha256_with_shared_info() -> None:
    c, s, _ = completed(described("ec-p256", "raw", secret='kdf = "x963-sha256"\ninfo = "ansi"'))
    assert c.secrets["k"] == X963KDF(hashes.SHA256(), 32, b"ansi").derive(shared_secret(c, s))


@pytest.mark.parametrize("key_type, fmt", [("ec-p384", "x962-compressed"), ("x25519", "raw"), ("ec-p256", "raw")])
def test_no_kdf_with_sha256_derive_keys_the_cipher_with_the_hash_of_the_shared_secret(key_type: str, fmt: str) -> None:
    c, s, log = completed(described(key_type, fmt, secret='kdf = "none"\nderive = "sha256"',
                                    sealed='cipher = "aes-gcm"'))
    shared = shared_secret(c, s)
    assert c.secrets["k"] == shared and len(shared) == (48 if key_type == "ec-p384" else 32)
    sealed = log[2][1]  # nonce || ciphertext || tag
    assert AESGCM(hashlib.sha256(shared).digest()).decrypt(sealed[:12], sealed[12:], None) == b"agreed hello"


@pytest.mark.parametrize("cipher, aead", [("aes-gcm", AESGCM), ("chacha20-poly1305", ChaCha20Poly1305)])
def test_aead_values_under_the_agreed_key(cipher: str, aead: Any) -> None:
    c, s, log = completed(described("x25519", "raw", sealed=f'cipher = "{cipher}"'))
    key = HKDF(hashes.SHA256(), 32, None, b"").derive(shared_secret(c, s))
    for sealed in (log[2][1], log[3][1]):
        assert aead(key).decrypt(sealed[:12], sealed[12:], None) == b"agreed hello"


def test_a_key_and_its_ciphertext_in_one_message_to_a_preshared_server_key() -> None:
    """ECIES-like: the server's key is bundled with the client, which sends its own key and the box at once."""
    text = """
name = "one-shot"
[transport]
kind = "tcp"
[keys.c]
type = "x25519"
holder = "client"
[keys.s]
type = "x25519"
holder = "server"
preshared = true
[secrets.k]
made_by = "agreement"
keys = ["s", "c"]
kdf = "hkdf-sha256"
info = "one-shot"
[[conversation]]
name = "talk"
[[conversation.step]]
from = "client"
send = { json = { key = { public_key = "c", format = "raw", encoding = "base64" }, box = { sealed = "k", cipher = "aes-gcm", encoding = "base64" } } }
then = "close"
"""
    server_key = x25519.X25519PrivateKey.generate()
    c, s, log = converse(loads(text), "talk", client={"known_public_keys": {"s": server_key.public_key()},
                                                      "message": b"sealed at once"},
                         server={"private_keys": {"s": server_key}})
    assert s.refusal is None and s.received["message"] == b"sealed at once"
    sent = json.loads(log[0][1])
    shared = server_key.exchange(x25519.X25519PublicKey.from_public_bytes(base64.b64decode(sent["key"])))
    assert c.secrets["k"] == s.secrets["k"] == HKDF(hashes.SHA256(), 32, None, b"one-shot").derive(shared)


# ---- refusals ------------------------------------------------------------------------------------


def _off_curve(point: bytes) -> bytes:
    """An uncompressed P-256 point (04 || X || Y) as (X, Y + 1): not on the curve."""
    y = int.from_bytes(point[33:], "big")
    assert y + 1 < P256_P
    return point[:33] + (y + 1).to_bytes(32, "big")


def _refused_first(text: str, change: Any) -> Refused:
    """The server's refusal of the client's first message, changed by `change`."""
    desc = loads(text)
    client = Party(desc, "talk", "client")
    server = Party(desc, None, "server")
    with pytest.raises(Refused) as refused:
        server.receive(change(client.next_message()))
    assert server.refusal is refused.value and refused.value.reason
    return refused.value


def test_an_off_curve_x962_point_is_refused() -> None:
    reason = _refused_first(described("ec-p256", "x962"), _off_curve).reason
    assert "not a valid ec-p256 key" in reason


def test_an_off_curve_point_in_a_pem_spki_key_is_refused() -> None:
    def change(pem: bytes) -> bytes:
        der = serialization.load_pem_public_key(pem).public_bytes(serialization.Encoding.DER,
                                                                  serialization.PublicFormat.SubjectPublicKeyInfo)
        bad = der[:-65] + _off_curve(der[-65:])  # the SPKI's BIT STRING ends in the point
        body = base64.encodebytes(bad).replace(b"\n", b"")
        lines = b"\n".join(body[i:i + 64] for i in range(0, len(body), 64))
        return b"-----BEGIN PUBLIC KEY-----\n" + lines + b"\n-----END PUBLIC KEY-----"
    assert "not a valid ec-p256 key" in _refused_first(described("ec-p256", "pem-spki"), change).reason


def test_an_all_zero_x25519_public_key_is_refused() -> None:  # RFC 7748 §6.1
    reason = _refused_first(described("x25519", "raw"), lambda _: bytes(32)).reason
    assert "all zero" in reason


def test_an_all_zero_x25519_key_from_the_server_is_refused_by_the_client() -> None:
    desc = loads(described("x25519", "raw"))
    client, server = Party(desc, "talk", "client"), Party(desc, None, "server")
    server.receive(client.next_message())
    server.next_message()
    with pytest.raises(Refused) as refused:
        client.receive(bytes(32))
    assert "all zero" in refused.value.reason


@pytest.mark.parametrize("fmt", ["pem-spki", "der-spki", "x962", "raw"])
def test_a_p384_key_where_p256_is_described_is_refused(fmt: str) -> None:
    p384 = Party(loads(described("ec-p384", fmt)), "talk", "client")
    reason = _refused_first(described("ec-p256", fmt), lambda _: p384.next_message()).reason
    assert "P-256" in reason or "secp256r1" in reason, reason


@pytest.mark.parametrize("fmt, change", [
    ("x962", lambda m: m[1:]),  # X || Y where 04 || X || Y is described
    ("x962", lambda m: b"\x02" + m[1:33]),  # a compressed point
    ("x962-compressed", lambda m: b"\x04" + m[1:]),
    ("raw", lambda m: m + b"\x00"),
])
def test_a_point_of_the_wrong_shape_is_refused(fmt: str, change: Any) -> None:
    assert "point on secp256r1" in _refused_first(described("ec-p256", fmt), change).reason


def test_a_p256_key_where_x25519_is_described_is_refused() -> None:
    p256 = Party(loads(described("ec-p256", "der-spki")), "talk", "client")
    reason = _refused_first(described("x25519", "der-spki"), lambda _: p256.next_message()).reason
    assert "not an X25519 key" in reason


def test_a_preshared_all_zero_x25519_key_is_refused_at_once() -> None:
    text = described("x25519", "raw").replace('holder = "server"', 'holder = "server"\npreshared = true')
    with pytest.raises(ValueError, match="all zero"):
        Party(loads(text), "talk", "client", known_public_keys={"s": x25519.X25519PublicKey.from_public_bytes(bytes(32))})


# ---- description errors --------------------------------------------------------------------------


def _error(text: str) -> DescriptionError:
    with pytest.raises(DescriptionError) as info:
        loads(text)
    assert info.value.line is not None, info.value
    return info.value


FORMAT = "conversation[0].step[0].send.format"
ERRORS = {  # id: (description, the error's key path, words of what is allowed)
    "kdf-md5": (described(secret='kdf = "md5"'), "secrets.k.kdf", '"hkdf-sha256", "hkdf-sha384", "x963-sha256", "none"'),
    "keys-one-name": (described().replace('keys = ["c", "s"]', 'keys = ["c"]'), "secrets.k.keys", 'keys = ["A", "B"]'),
    "keys-missing": (described().replace('keys = ["c", "s"]', ""), "secrets.k.keys",
                     "one held by the client and one by the server"),
    "keys-unknown": (described().replace('keys = ["c", "s"]', 'keys = ["c", "nope"]'), "secrets.k.keys", "no key 'nope'"),
    "keys-of-two-types": (described().replace('type = "ec-p256"\nholder = "server"', 'type = "ec-p384"\nholder = "server"'),
                          "secrets.k.keys", "two keys of one type (ec-p256, ec-p384, x25519)"),
    "keys-one-holder": (described().replace('holder = "server"', 'holder = "client"'), "secrets.k.keys",
                        "one key held by the client and one by the server"),
    "salt-with-kdf-none": (described(secret='kdf = "none"\nsalt = "00"'), "secrets.k.salt", "hkdf-sha256 or hkdf-sha384 only"),
    "salt-not-hex": (described(secret='salt = "0g"'), "secrets.k.salt", "hex text"),
    "info-with-kdf-none": (described(secret='kdf = "none"\ninfo = "x"'), "secrets.k.info",
                           "hkdf-sha256, hkdf-sha384 or x963-sha256 only"),
    "bytes-48-with-hkdf": (described(secret="bytes = 48"), "secrets.k.bytes", "16, 24, 32"),
    "bytes-32-without-kdf-on-p384": (described("ec-p384", "x962", secret='kdf = "none"\nbytes = 32'), "secrets.k.bytes",
                                     "must be 48"),
    "derive-text": (described(secret='derive = "utf8-zeropad16"'), "secrets.k.derive", '"raw", "sha256"'),
    "chars": (described(secret="chars = 4"), "secrets.k.chars", "text secrets only"),
    "x962-for-x25519": (described("x25519", "x962"), FORMAT, "pem-spki, pem-spki-newline, der-spki, raw"),
    "jwk-for-ec": (described("ec-p384", "jwk"), FORMAT, "der-spki, x962, x962-compressed, raw"),
    "x962-for-rsa": (RSA_SOCKET.replace('{ public_key = "server", format = "pem-spki" }',
                                        '{ public_key = "server", format = "x962" }'),
                     "conversation[0].step[1].send.concat[1].format", "an RSA key: its public half is pem-spki"),
    "48-byte-key-for-aes-gcm": (described(secret='kdf = "none"', sealed='cipher = "aes-gcm"').replace("ec-p256", "ec-p384"),
                                "conversation[0].step[2].send.cipher", 'derive = "sha256"'),
}


@pytest.mark.parametrize("text, path, words", list(ERRORS.values()), ids=list(ERRORS))
def test_agreement_description_errors_name_the_key_and_what_is_allowed(text: str, path: str, words: str) -> None:
    error = _error(text)
    assert error.path == path and words in error.message, (error.path, error.message)


def test_an_rsa_key_in_an_agreement_is_refused() -> None:
    error = _error(described().replace('type = "ec-p256"\nholder = "client"', 'holder = "client"'))
    assert error.path == "secrets.k.keys" and "RSA key" in error.message and "ec-p256, ec-p384, x25519" in error.message


@pytest.mark.parametrize("key", ["salt", "info", "kdf", "keys"])
def test_agreement_keys_on_another_secret_are_refused(key: str) -> None:
    text = described().replace('made_by = "agreement"\nkeys = ["c", "s"]', f'made_by = "client"\n{key} = "00"')
    error = _error(text)
    assert error.path == f"secrets.k.{key}" and 'made_by = "agreement" secrets only' in error.message


def test_a_value_under_the_agreed_secret_before_the_peers_key_arrived_is_refused() -> None:
    steps = described().split("[[conversation.step]]")
    # The client's sealed message before the server's key.
    reordered = "[[conversation.step]]".join([steps[0], steps[1], steps[3], steps[2], steps[4]])
    error = _error(reordered)
    assert error.path == "conversation[0].step[1].send.sealed"
    assert "the client does not know secret 'k'" in error.message and "key 's''s public half" in error.message


def test_a_value_the_receiver_cannot_open_yet_is_refused() -> None:
    """The client knows the server's preshared key, but the server has not had the client's yet."""
    steps = described().replace('holder = "server"', 'holder = "server"\npreshared = true').split("[[conversation.step]]")
    text = "[[conversation.step]]".join([steps[0], steps[3], steps[1]])  # the sealed message, then the client's key
    error = _error(text)
    assert error.path == "conversation[0].step[0].send.sealed"
    assert "the server cannot open this" in error.message and "key 'c''s public half" in error.message


def test_sending_an_agreed_secret_is_refused() -> None:
    error = _error(described().replace('send = { sealed = "k", cipher = "fernet", carries = "same" }',
                                       'send = { secret = "k", encoding = "hex" }'))
    assert error.path == "conversation[0].step[3].send.secret" and "nobody sends it" in error.message
    error = _error(described().replace('[secrets.k]', '[secrets.wrap]\nmade_by = "preshared"\n\n[secrets.k]').replace(
        'send = { sealed = "k", cipher = "fernet", carries = "message" }',
        'send = { sealed = "wrap", cipher = "fernet", carries = "secret:k" }'))
    assert error.path == "conversation[0].step[2].send.carries" and "nobody sends it" in error.message
