"""Four extensions of the description format, in PythonRef's engine: `plain = "message"` (the
message in the clear), the passphrase derives (`passphrase-sha256`, `passphrase-sha256-128`),
`padding = "pkcs7-32"` and `carries_as` (a carried secret written as text). Client and server
parties converse in memory, refuse what is wrong, and the reader refuses misuse by key path."""

from __future__ import annotations

import base64
import hashlib
import os
import tomllib
from typing import Any, Optional

import pytest
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding as asympad
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from pythonref.described import DescriptionError, Party, Refused, loads
from pythonref.described import values as v

from test_described import _DELETE, _set, assert_refused_at, converse

KEY = b"TopSecretKey"
KEY_SHA256 = bytes.fromhex("3f4e66c86b716c64d01266f0f167709bb9d34300d1a8fe5339558024ee19942b")  # SHA-256 of KEY

# A server that answers the plaintext it decrypted, in the clear; the box under a passphrase's
# SHA-256, padded to 32 bytes (an AESCipher class with bs = 32).
CBC32_PLAIN = """
name = "passphrase-cbc32"
[transport]
kind = "tcp"
framing = "line"
[secrets.pw]
made_by = "preshared"
derive = "passphrase-sha256"
[[conversation]]
name = "clear-answer"
[[conversation.step]]
from = "client"
send = { sealed = "pw", cipher = "aes-cbc", padding = "pkcs7-32", carries = "message", encoding = "base64" }
[[conversation.step]]
from = "server"
send = { plain = "message", encoding = "base64" }
"""

# A client that sends its plaintext unencrypted, in a JSON field; the server echoes it in the clear.
PLAIN_JSON = """
name = "plain-json"
[transport]
kind = "tcp"
framing = "length-prefix"
[[conversation]]
name = "clear"
[[conversation.step]]
from = "client"
send = { json = { m = { plain = "message", encoding = "utf8" } } }
[[conversation.step]]
from = "server"
send = { concat = [ { text = "echo:" }, { plain = "message" } ] }
"""

# The server makes a 40-character passphrase and sends it in the clear; the client seals under its
# SHA-256's first 16 bytes (AES-128-GCM).
SERVER_PASSPHRASE = """
name = "server-passphrase"
[transport]
kind = "tcp"
framing = "line"
[secrets.pw]
made_by = "server"
derive = "passphrase-sha256-128"
chars = 40
[[conversation]]
name = "pw"
[[conversation.step]]
from = "client"
send = { text = "hello" }
[[conversation.step]]
from = "server"
send = { concat = [ { text = "pw=" }, { secret = "pw", encoding = "utf8" } ] }
[[conversation.step]]
from = "client"
send = { sealed = "pw", cipher = "aes-gcm", carries = "message", encoding = "hex" }
[[conversation.step]]
from = "server"
send = { plain = "message", encoding = "hex" }
"""

# A Fernet key as Fernet.generate_key() writes it, RSA-wrapped; then a server-made session key
# carried as hex under a preshared key.
CARRIED_AS = """
name = "carried-as"
[transport]
kind = "tcp"
framing = "length-prefix"
[keys.server]
holder = "server"
bits = 1024
preshared = true
[secrets.f]
made_by = "client"
[secrets.psk]
made_by = "preshared"
[secrets.sess]
made_by = "server"
bytes = 16
[[conversation]]
name = "fernet-key"
[[conversation.step]]
from = "client"
send = { rsa = "server", padding = "oaep-sha256", carries = "secret:f", carries_as = "base64url-padded", encoding = "base64" }
[[conversation.step]]
from = "client"
send = { sealed = "f", cipher = "fernet", carries = "message" }
[[conversation.step]]
from = "server"
send = { sealed = "psk", cipher = "aes-gcm", carries = "secret:sess", carries_as = "hex", encoding = "base64" }
[[conversation.step]]
from = "server"
send = { sealed = "sess", cipher = "aes-gcm", carries = "same", encoding = "base64" }
"""

PSK = bytes(range(32))
OAEP256 = asympad.OAEP(mgf=asympad.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)


def _cbc(key: bytes, iv: bytes, data: bytes, encrypt: bool) -> bytes:
    c = Cipher(algorithms.AES(key), modes.CBC(iv))
    op = c.encryptor() if encrypt else c.decryptor()
    return op.update(data) + op.finalize()


def _pw(secret: bytes) -> dict[str, Any]:
    return {"secrets": {"pw": secret}}


# ---- plain = "message" ---------------------------------------------------------------------------


def test_plain_server_answers_the_decrypted_message_in_the_clear() -> None:
    desc = loads(CBC32_PLAIN)
    c, s, log = converse(desc, "clear-answer", client={**_pw(KEY), "message": b"hello"}, server=_pw(KEY))
    assert c.done and s.done and c.refusal is None and s.refusal is None
    assert s.received["message"] == b"hello"
    assert log[1] == ("server", base64.b64encode(b"hello"))
    assert "message" not in c.received  # the client knew it: it checked, learned nothing


def test_plain_client_sends_its_message_unencrypted() -> None:
    desc = loads(PLAIN_JSON)
    c, s, log = converse(desc, "clear", client={"message": b"hi there"})
    assert c.done and s.done
    assert [m for _, m in log] == [b'{"m":"hi there"}', b"echo:hi there"]
    assert s.received["message"] == b"hi there"
    c, s, _ = converse(desc, "clear")  # no message given: a fresh one, as carries = "message" makes it
    assert s.received["message"].startswith(b"crosscheck ")


def test_plain_has_no_known_length() -> None:
    desc = loads(CBC32_PLAIN)
    c = Party(desc, "clear-answer", "client", **_pw(KEY), message=b"hello")
    assert c.next_message() is not None and c.expected_length() is None


def test_wrong_plain_message_is_refused() -> None:
    desc = loads(PLAIN_JSON)

    def other_echo(who: str, i: int, msg: Any) -> Any:
        return b"echo:hi therf" if i == 1 else msg

    with pytest.raises(Refused, match="the message in the clear is not the conversation's message"):
        converse(desc, "clear", client={"message": b"hi there"}, tamper=other_echo)
    stated = loads(PLAIN_JSON.replace('name = "clear"', 'name = "clear"\nmessage = "expected"'))
    converse(stated, "clear")  # the stated message both know
    with pytest.raises(Refused, match="the message in the clear is not the conversation's message"):
        converse(stated, "clear", client={"message": b"other"})


def test_plain_decodes_strictly() -> None:
    desc = loads(CBC32_PLAIN)

    def padded_wrong(who: str, i: int, msg: Any) -> Any:
        return msg + b"\n" if i == 1 else msg

    with pytest.raises(Refused, match="not valid base64"):
        converse(desc, "clear-answer", client=_pw(KEY), server=_pw(KEY), tamper=padded_wrong)


# ---- passphrase-sha256, passphrase-sha256-128 ----------------------------------------------------


@pytest.mark.parametrize("derive, key", [("passphrase-sha256", KEY_SHA256), ("passphrase-sha256-128", KEY_SHA256[:16])])
def test_passphrase_derives_hash_the_passphrase(derive: str, key: bytes) -> None:
    desc = loads(CBC32_PLAIN.replace("passphrase-sha256", derive))
    assert desc.secret("pw").key_bytes == len(key)
    ctx = v.Context(desc, desc.conversations[0], "client", {}, {}, {"pw": KEY}, {})
    assert v.cipher_key(ctx, "pw") == key == hashlib.sha256(b"TopSecretKey").digest()[:len(key)]
    for bad in (b"", b"p" * 1025):  # a given passphrase out of 1..1024 bytes makes no key
        ctx.secrets["pw"] = bad
        with pytest.raises(Refused, match="1 to 1024"):
            v.cipher_key(ctx, "pw")


def test_passphrase_box_opens_with_sha256_of_the_passphrase() -> None:
    desc = loads(CBC32_PLAIN)
    _, _, log = converse(desc, "clear-answer", client={**_pw(KEY), "message": b"hello"}, server=_pw(KEY))
    box = base64.b64decode(log[0][1])
    assert len(box) == 16 + 32
    assert _cbc(KEY_SHA256, box[:16], box[16:], False) == b"hello" + bytes([27]) * 27


def test_server_made_passphrase_is_letters_and_digits_and_keys_aes_128() -> None:
    desc = loads(SERVER_PASSPHRASE)
    c, s, log = converse(desc, "pw", client={"message": b"m"})
    assert c.done and s.done and s.received["message"] == b"m"
    pw = s.secrets["pw"]
    assert len(pw) == 40 and pw.isalnum() and pw.isascii()
    assert log[1][1] == b"pw=" + pw and c.received["secret:pw"] == pw
    box = bytes.fromhex(log[2][1].decode())
    assert AESGCM(hashlib.sha256(pw).digest()[:16]).decrypt(box[:12], box[12:], None) == b"m"
    assert log[3][1] == b"m".hex().encode()


def test_passphrase_of_any_length_from_1_to_1024() -> None:
    desc = loads(SERVER_PASSPHRASE)
    for pw in (b"x", KEY, b"p" * 1024):
        c, s, _ = converse(desc, "pw", server=_pw(pw))
        assert c.secrets["pw"] == pw and c.refusal is None
    with pytest.raises(Refused, match="1 to 1024"):
        converse(desc, "pw", server=_pw(b"p" * 1025))
    c = Party(desc, "pw", "client")
    c.next_message()
    assert c.expected_length() is None  # a concat around a passphrase: unknown length


def test_wrong_passphrase_box_is_refused() -> None:
    desc = loads(CBC32_PLAIN.replace('cipher = "aes-cbc", padding = "pkcs7-32"', 'cipher = "aes-gcm"')
                 .replace("passphrase-sha256", "passphrase-sha256-128"))
    c, s, _ = converse(desc, "clear-answer", client=_pw(KEY), server=_pw(KEY))
    assert s.refusal is None
    with pytest.raises(Refused):
        converse(desc, "clear-answer", client=_pw(KEY), server=_pw(b"TopSecretKey!"))
    fernet = loads(CBC32_PLAIN.replace('cipher = "aes-cbc", padding = "pkcs7-32", carries = "message", encoding = '
                                       '"base64"', 'cipher = "fernet", carries = "message"'))
    converse(fernet, "clear-answer", client=_pw(KEY), server=_pw(KEY))
    with pytest.raises(Refused, match="does not verify"):
        converse(fernet, "clear-answer", client=_pw(KEY), server=_pw(b"topSecretKey"))


def test_passphrase_weakness_is_reported() -> None:
    for derive in ("passphrase-sha256", "passphrase-sha256-128"):
        weak = loads(CBC32_PLAIN.replace("passphrase-sha256", derive)).weaknesses()
        assert f"secret 'pw' is a passphrase hashed to a key ({derive}): no salt, no work factor" in weak


# ---- padding = "pkcs7-32" ------------------------------------------------------------------------


@pytest.mark.parametrize("n, padded", [(0, 32), (5, 32), (16, 32), (31, 32), (32, 64), (33, 64), (64, 96)])
def test_pkcs7_32_pads_to_32_bytes(n: int, padded: int) -> None:
    desc = loads(CBC32_PLAIN)
    message = bytes(range(65, 65 + n))
    _, s, log = converse(desc, "clear-answer", client={**_pw(KEY), "message": message}, server=_pw(KEY))
    assert s.received["message"] == message
    box = base64.b64decode(log[0][1])
    assert len(box) == 16 + padded
    plain = _cbc(KEY_SHA256, box[:16], box[16:], False)
    pad = padded - n
    assert plain == message + bytes([pad]) * pad
    if n % 32 == 0:
        assert plain[-32:] == b"\x20" * 32


@pytest.mark.parametrize("padded", [
    b"hello" + bytes([27]) * 26 + b"\x1a",      # the last byte says 26; the 27th from the end is no 26
    b"hello" + bytes(26) + b"\x00",             # 0
    b"x" * 31 + b"\x21",                        # 33: over 32
    b"hello" + bytes([20]) * 26 + b"\x1b",      # 27, but the other pad bytes are 20
    b"x" * 15 + b"\x11",                        # 17 in a 16-byte plaintext: longer than it
    b"x" * 16 + bytes([16]) * 15 + b"\x01" + b"y" * 31 + b"\x02",  # 2 after a 1
])
def test_bad_pkcs7_32_padding_is_refused(padded: bytes) -> None:
    desc = loads(CBC32_PLAIN)
    iv = os.urandom(16)

    def crafted(who: str, i: int, msg: Any) -> Any:
        return base64.b64encode(iv + _cbc(KEY_SHA256, iv, padded, True)) if i == 0 else msg

    with pytest.raises(Refused, match="PKCS#7-32 padding is invalid"):
        converse(desc, "clear-answer", client=_pw(KEY), server=_pw(KEY), tamper=crafted)


@pytest.mark.parametrize("padded, message", [
    (b"x" * 16 + bytes([16]) * 16, b"x" * 16),   # a 16-byte pad is a 32-byte one too
    (b"x" * 15 + b"\x01", b"x" * 15),            # one block: the receiver takes any positive multiple of 16
    (bytes([32]) * 32, b""),
])
def test_good_pkcs7_32_padding_is_taken(padded: bytes, message: bytes) -> None:
    desc = loads(CBC32_PLAIN)
    iv = os.urandom(16)

    def crafted(who: str, i: int, msg: Any) -> Any:
        return base64.b64encode(iv + _cbc(KEY_SHA256, iv, padded, True)) if i == 0 else msg

    c, s, _ = converse(desc, "clear-answer", client={**_pw(KEY), "message": message}, server=_pw(KEY), tamper=crafted)
    assert s.received["message"] == message and c.refusal is None


def test_pkcs7_32_over_ecb_round_trips() -> None:
    value = v.Value("sealed", "s", "x", cipher="aes-ecb", padding="pkcs7-32", carries="message", iv="none")
    ct, _ = v.seal(value, KEY_SHA256, b"twenty bytes of it..", b"")
    assert len(ct) == 32 and v.open_sealed(value, KEY_SHA256, ct, b"", b"") == b"twenty bytes of it.."
    with pytest.raises(Refused, match="not a positive multiple of 16"):
        v.open_sealed(value, KEY_SHA256, ct[:-1], b"", b"")


# ---- carries_as ----------------------------------------------------------------------------------


def _carried_options(key: rsa.RSAPrivateKey) -> tuple[dict[str, Any], dict[str, Any]]:
    return ({"known_public_keys": {"server": key.public_key()}, "secrets": {"psk": PSK}, "message": b"hi"},
            {"private_keys": {"server": key}, "secrets": {"psk": PSK}})


def test_carries_as_base64url_padded_is_a_fernet_key(key1024: rsa.RSAPrivateKey) -> None:
    desc = loads(CARRIED_AS)
    client, server = _carried_options(key1024)
    s = Party(desc, None, "server", **server)
    assert s.expected_length() == v.encoded_length(128, "base64")  # the RSA ciphertext, as before
    c, s, log = converse(desc, "fernet-key", client=client, server=server)
    assert c.done and s.done and c.refusal is None and s.refusal is None
    fkey = key1024.decrypt(base64.b64decode(log[0][1]), OAEP256)
    assert len(fkey) == 44 and fkey.endswith(b"=") and fkey == base64.urlsafe_b64encode(c.secrets["f"])
    assert Fernet(fkey).decrypt(log[1][1]) == b"hi"  # pyca's own Fernet takes the carried text as its key
    assert s.secrets["f"] == c.secrets["f"] and s.received["secret:f"] == c.secrets["f"]
    box = base64.b64decode(log[2][1])
    assert AESGCM(PSK).decrypt(box[:12], box[12:], None) == s.secrets["sess"].hex().encode()
    assert c.secrets["sess"] == s.secrets["sess"] and len(c.secrets["sess"]) == 16


@pytest.mark.parametrize("text, words", [
    (None, "not canonical base64url-padded"),  # the last character's unused bits set
    (b"unpadded", "not base64url-padded"),
    (b"raw", "not canonical base64url-padded"),  # the 32 raw bytes, not their text
    (b"std", "not canonical base64url-padded"),  # standard base64's alphabet
])
def test_non_canonical_carried_secret_is_refused(key1024: rsa.RSAPrivateKey, text: Optional[bytes],
                                                  words: str) -> None:
    desc = loads(CARRIED_AS)
    client, server = _carried_options(key1024)
    secret = bytes([0xfb]) * 31 + b"\xff"  # base64url of it has '-' and '_'; base64 has '+' and '/'
    good = base64.urlsafe_b64encode(secret)
    assert good.endswith(b"-_8=")  # '8' is 111100: its last two bits are unused, and zero
    bad = {None: good[:-2] + b"9=",  # 111101: the same bytes, not canonically
           b"unpadded": good.rstrip(b"="), b"raw": secret, b"std": base64.b64encode(secret)}[text]
    assert v.uncarried_text(good, "base64url-padded") == secret
    assert v.uncarried_text(good.rstrip(b"="), "base64url") == secret  # the unpadded form has its own name

    def rewrapped(who: str, i: int, msg: Any) -> Any:
        return base64.b64encode(key1024.public_key().encrypt(bad, OAEP256)) if i == 0 else msg

    with pytest.raises(Refused, match=words):
        converse(desc, "fernet-key", client=client, server=server, tamper=rewrapped)


def test_carries_as_hex_is_strict(key1024: rsa.RSAPrivateKey) -> None:
    desc = loads(CARRIED_AS)
    client, server = _carried_options(key1024)

    def upper(who: str, i: int, msg: Any) -> Any:
        if i != 2:
            return msg
        nonce = os.urandom(12)
        return base64.b64encode(nonce + AESGCM(PSK).encrypt(nonce, b"00112233445566778899AABBCCDDEEFF", None))

    with pytest.raises(Refused, match="not canonical hex"):
        converse(desc, "fernet-key", client=client, server=server, tamper=upper)
    assert v.uncarried_text(b"00ff", "hex") == b"\x00\xff" and v.carried_text(b"\x00\xff", "base64") == b"AP8="
    with pytest.raises(Refused, match="not base64"):
        v.uncarried_text(b"AP8", "base64")


# ---- what the reader refuses ---------------------------------------------------------------------


def _doc(text: str = CBC32_PLAIN) -> dict[str, Any]:
    return tomllib.loads(text)


SEND0 = ["conversation", 0, "step", 0, "send"]
SEND1 = ["conversation", 0, "step", 1, "send"]
P0 = "conversation[0].step[0].send"
P1 = "conversation[0].step[1].send"
_CARRY = {"sealed": "pw", "cipher": "aes-gcm", "carries": "message", "encoding": "base64"}

CASES = [
    # plain
    (_set(_doc(), SEND1 + ["plain"], "secret"), f"{P1}.plain", 'plain must be "message"'),
    (_set(_doc(), SEND1 + ["cipher"], "aes-cbc"), f"{P1}.cipher", "allowed here: plain, encoding"),
    (_set(_doc(), SEND1, {"json": {"m": {"plain": "message"}}}), f"{P1}.json.m.encoding", "add encoding"),
    (_set(_doc(), SEND1, {"json": {"m": {"plain": "message", "encoding": "utf8"}}}), None, None),
    (_set(_doc(), SEND1, {"plain": "message", "encoding": "utf8"}), None, None),
    (_set(_doc(), SEND1, {"plain": "message", "encoding": "base32"}), f"{P1}.encoding", "must be one of"),
    (_set(_doc(), SEND1, {"concat": [{"plain": "message"}, {"secret": "pw", "encoding": "utf8"}]}),
     f"{P1}.concat", "at most one part may have an unknown length"),
    (_set(_doc(), SEND1, {"concat": [{"plain": "message"}, {"digest": "sha256"}]}), None, None),
    # passphrases
    (_set(_doc(), ["secrets", "pw", "bytes"], 32), "secrets.pw.bytes", "key size follows the derive"),
    (_set(_doc(), ["secrets", "pw"], {"made_by": "client", "derive": "passphrase-sha256-128", "bytes": 16}),
     "secrets.pw.bytes", "remove bytes"),
    (_set(_doc(), ["secrets", "pw", "chars"], 65), "secrets.pw.chars", "1..64"),
    (_set(_doc(), ["secrets", "pw", "chars"], 0), "secrets.pw.chars", "1..64"),
    (_set(_doc(), ["secrets", "pw", "chars"], 64), None, None),
    (_set(_doc(), ["secrets", "pw"], {"made_by": "client", "derive": "utf8-zeropad16", "bytes": 16, "chars": 16}),
     "secrets.pw.chars", "1..15"),
    (_set(_doc(), ["secrets", "pw"], {"made_by": "client", "derive": "sha256", "chars": 12}),
     "secrets.pw.chars", "text secrets only"),
    (_set(_doc(), ["secrets", "pw", "derive"], "passphrase-sha512"), "secrets.pw.derive", '"passphrase-sha256-128"'),
    (_set(_set(_doc(), ["secrets", "pw", "derive"], "passphrase-sha256-128"), SEND0,
          {**_CARRY, "cipher": "chacha20-poly1305"}), f"{P0}.cipher", "needs a 32-byte key"),
    (_set(_set(_doc(), ["secrets", "pw", "derive"], "passphrase-sha256-128"), SEND0,
          {"sealed": "pw", "cipher": "fernet", "carries": "message"}), f"{P0}.cipher", "needs a 32-byte key"),
    (_set(_doc(), SEND0, {**_CARRY, "cipher": "chacha20-poly1305"}), None, None),
    (_set(_doc(), SEND0, {"sealed": "pw", "cipher": "fernet", "carries": "message"}), None, None),
    (_set(_set(_doc(), ["secrets", "pw", "derive"], "passphrase-sha256-128"), SEND0, _CARRY), None, None),
    (_set(_doc(), SEND0, {"secret": "pw", "encoding": "utf8"}), None, None),
    (_set(_set(_doc(), ["secrets", "pw", "derive"], "sha256"), SEND0, {"secret": "pw", "encoding": "utf8"}),
     f"{P0}.encoding", "only for text secrets"),
    (_set(_doc(), SEND1, {"concat": [{"secret": "pw", "encoding": "utf8"}, {"text": "!"}]}), None, None),
    # pkcs7-32
    (_set(_doc(), SEND0 + ["padding"], "pkcs7-64"), f"{P0}.padding", '"pkcs7", "zero", "pkcs7-32"'),
    (_set(_doc(), SEND0, {**_CARRY, "padding": "pkcs7-32"}), f"{P0}.padding", "aes-cbc and aes-ecb only"),
    (_set(_doc(), SEND0, {**_CARRY, "cipher": "aes-ecb", "padding": "pkcs7-32"}), None, None),
    # carries_as
    (_set(_doc(), SEND0 + ["carries_as"], "base64url"), f"{P0}.carries_as", 'carries = "secret:NAME" only'),
    (_set(_doc(CARRIED_AS), SEND0 + ["carries_as"], "base32"), f"{P0}.carries_as",
     '"raw", "base64", "base64url", "base64url-padded", "hex"'),
    (_set(_doc(CARRIED_AS), SEND0 + ["carries_as"], _DELETE), None, None),
    (_set(_doc(CARRIED_AS), ["conversation", 0, "step", 3, "send", "carries_as"], "hex"),
     "conversation[0].step[3].send.carries_as", "remove it"),
    (_set(_doc(CARRIED_AS), SEND0, {"secret": "f", "encoding": "hex", "carries_as": "hex"}), f"{P0}.carries_as",
     "unknown key 'carries_as'"),
    (_set(_doc(CARRIED_AS), SEND1 + ["carries_as"], "raw"), f"{P1}.carries_as", "secret:NAME"),
]


@pytest.mark.parametrize("doc, path, words", CASES, ids=[str(i) for i in range(len(CASES))])
def test_misuse_is_refused_by_key_path(doc: dict[str, Any], path: Optional[str], words: Optional[str]) -> None:
    assert_refused_at(doc, path, words)


def test_errors_from_text_name_the_line() -> None:
    bad = CBC32_PLAIN.replace('{ plain = "message"', '{ plain = "secret"')
    with pytest.raises(DescriptionError) as info:
        loads(bad)
    assert info.value.path == "conversation[0].step[1].send.plain"
    assert info.value.line is not None and "plain = " in bad.splitlines()[info.value.line - 1]
    bad = CBC32_PLAIN.replace('derive = "passphrase-sha256"', 'derive = "passphrase-sha256"\nbytes = 32')
    with pytest.raises(DescriptionError) as info:
        loads(bad)
    assert info.value.line is not None and bad.splitlines()[info.value.line - 1] == "bytes = 32"


def test_hex_is_read_in_either_case() -> None:
    """Base16 is case-insensitive (RFC 4648 §8): capitals, as `%02X` writes them, are read; engines write lowercase."""
    assert v.decode(b"0A0b", "hex", "x") == b"\x0a\x0b"
    assert v.encode(b"\xab", "hex") == b"ab"
    for bad in (b"0g", b"abc", b"0x0a"):
        with pytest.raises(Refused):
            v.decode(bad, "hex", "x")
