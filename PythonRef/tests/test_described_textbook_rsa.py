"""Textbook RSA (`padding = "none"`: RFC 8017 §5.1.1 RSAEP, §5.1.2 RSADP, no padding, as PyCrypto 2.x's
`key.encrypt(m, K)` / `key.decrypt(c)`) and the `python2-tuple` encoding (Python 2's `str((data,))`)."""

from __future__ import annotations

from typing import Any, Optional

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from pythonref.described import DescriptionError, Party, Refused, loads
from pythonref.described import values as v
from pythonref.errors import CryptoFailure, ErrorKind

# A fixed 1024-bit key, made once with pyca (rsa.generate_private_key(65537, 1024)): its primes, the rest derived.
P = int("fea72cc8b1a34421f024a68f72718e43728fd08f1ac5ce1a4f342d58e08240750c201ca38b8f186295165d04e246ce2b77b6"
        "95acc5404fdc0e2a2fcd459ccb6b", 16)
Q = int("dc4f20b081d05a84ee8af03e486c6709293acaed0ad7d5221dcce8da42c42c8c85c1c77a48aa7c92efac66bdd134868061de3a"
        "d572c39b66d3fb4e301e8f886b", 16)
E = 65537
N = P * Q
D = pow(E, -1, (P - 1) * (Q - 1))
K = 128  # the modulus's bytes


def fixed_key() -> rsa.RSAPrivateKey:
    public = rsa.RSAPublicNumbers(E, N)
    return rsa.RSAPrivateNumbers(P, Q, D, rsa.rsa_crt_dmp1(D, P), rsa.rsa_crt_dmq1(D, Q), rsa.rsa_crt_iqmp(P, Q),
                                 public).private_key()


TEXTBOOK = """
name = "textbook"
[transport]
kind = "tcp"
[keys.server]
holder = "server"
bits = 1024
[secrets.s]
made_by = "client"
bytes = 16
[[conversation]]
name = "py2"
error = { text = "ERR" }
[[conversation.step]]
from = "client"
send = { text = "hello" }
[[conversation.step]]
from = "server"
send = { public_key = "server", format = "pem-spki" }
[[conversation.step]]
from = "client"
send = RSA_VALUE
[[conversation.step]]
from = "server"
send = { text = "ok" }
"""


RSA_PKCS1 = '{ rsa = "server", padding = "pkcs1", carries = "message" }'


def textbook(value: str = '{ rsa = "server", padding = "none", carries = "message", encoding = "python2-tuple" }',
             message: Optional[str] = None) -> str:
    text = TEXTBOOK.replace("RSA_VALUE", value)
    if message is not None:
        text = text.replace('name = "py2"\n', f'name = "py2"\nmessage = "{message}"\n')
    return text


def converse(desc: Any, key: rsa.RSAPrivateKey, message: bytes) -> tuple[Party, Party, list[Any]]:
    c = Party(desc, "py2", "client", message=message)
    s = Party(desc, None, "server", private_keys={"server": key})
    log: list[Any] = []
    for _ in range(10):
        for me, peer in ((c, s), (s, c)):
            msg = me.next_message()
            if msg is not None:
                log.append(msg)
                peer.receive(msg)
                break
        else:
            return c, s, log
    raise AssertionError("did not settle")


def server_before_ciphertext(desc: Any, key: rsa.RSAPrivateKey) -> Party:
    """A server party that has sent its key and now expects the RSA value."""
    s = Party(desc, None, "server", private_keys={"server": key})
    s.receive(b"hello")
    assert s.next_message() is not None
    return s


# ---- textbook RSA --------------------------------------------------------------------------------


def test_fixed_key_is_the_key() -> None:
    key = fixed_key()
    assert key.key_size == 1024 and key.public_key().public_numbers().n == N


@pytest.mark.parametrize("encoding", ["raw", "python2-tuple", "base64"])
def test_textbook_round_trip_known_answer(encoding: str) -> None:
    key = fixed_key()
    desc = loads(textbook(f'{{ rsa = "server", padding = "none", carries = "message", encoding = "{encoding}" }}'))
    message = b"Secret message from the Pi \x00\xff"
    c, s, log = converse(desc, key, message)
    assert c.done and s.done and c.refusal is None and s.refusal is None
    assert s.received["message"] == message
    expected = pow(int.from_bytes(message, "big"), E, N).to_bytes(K, "big")  # I2OSP(m^e mod n, k)
    assert log[2] == v.encode(expected, encoding)
    assert v.decode(log[2], encoding, "x") == expected
    # Deterministic: the same message gives the same ciphertext.
    assert converse(desc, key, message)[2][2] == log[2]


def test_textbook_round_trip_fresh_key(key1024: rsa.RSAPrivateKey) -> None:
    desc = loads(textbook())
    c, s, log = converse(desc, key1024, b"x" * 127)  # k-1 bytes: the longest
    assert s.received["message"] == b"x" * 127 and c.refusal is None
    nums = key1024.private_numbers()
    ct = v.decode(log[2], "python2-tuple", "x")
    assert len(ct) == 128 and pow(int.from_bytes(ct, "big"), nums.d, nums.public_numbers.n) == int.from_bytes(b"x" * 127, "big")
    assert log[2].startswith(b"('") or log[2].startswith(b'("')


def test_textbook_in_a_concat_has_no_known_length() -> None:
    key = fixed_key()
    desc = loads(textbook('{ concat = [ { text = "m=" }, { rsa = "server", padding = "none", carries = "message" }, '
                          '{ text = "\\n" } ] }'))
    s = server_before_ciphertext(desc, key)
    assert s.expected_length() is None
    m = b"hi"
    c = pow(int.from_bytes(m, "big"), E, N).to_bytes(K, "big").lstrip(b"\x00")
    s.receive(b"m=" + c + b"\n")
    assert s.received["message"] == m
    # Two parts of unknown length cannot be split.
    with pytest.raises(DescriptionError, match="at most one part"):
        loads(textbook('{ concat = [ { rsa = "server", padding = "none", carries = "message" }, '
                       '{ rsa = "server", padding = "pkcs1", carries = "message", encoding = "latin1" } ] }'))


def _leading_zero_ciphertext() -> tuple[bytes, bytes]:
    """A plaintext whose textbook ciphertext begins with 0x00, and that ciphertext (k bytes)."""
    for i in range(1, 200_000):
        m = b"m" + i.to_bytes(4, "big")
        ct = pow(int.from_bytes(m, "big"), E, N).to_bytes(K, "big")
        if ct[0] == 0:
            return m, ct
    raise AssertionError("no ciphertext with a leading zero byte")


def test_receiver_takes_a_ciphertext_without_its_leading_zero() -> None:
    key = fixed_key()
    m, ct = _leading_zero_ciphertext()
    assert v.textbook_decrypt(key, ct) == m
    assert v.textbook_decrypt(key, ct[1:]) == m  # PyCrypto's long_to_bytes(c)
    desc = loads(textbook('{ rsa = "server", padding = "none", carries = "message" }'))
    s = server_before_ciphertext(desc, key)
    s.receive(ct.lstrip(b"\x00"))
    assert s.received["message"] == m


def test_plaintext_is_minimal_bytes() -> None:
    key = fixed_key()
    assert v.textbook_decrypt(key, b"\x00") == b"\x00"  # m = 0: long_to_bytes(0)
    assert v.textbook_decrypt(key, b"\x01") == b"\x01"
    assert v.textbook_decrypt(key, bytes(K - 1) + b"\x01") == b"\x01"


@pytest.mark.parametrize("ciphertext, words", [
    (b"", "ciphertext is 0 bytes; textbook RSA with a 1024-bit key takes 1 to 128"),
    (bytes(K + 1), "ciphertext is 129 bytes; textbook RSA with a 1024-bit key takes 1 to 128"),
    (b"\x00" + (1).to_bytes(K, "big"), "ciphertext is 129 bytes"),
    (N.to_bytes(K, "big"), "the RSA ciphertext is not below the modulus (RFC 8017 §5.1.2 step 1)"),
    ((N + 1).to_bytes(K, "big"), "not below the modulus"),
    (b"\xff" * K, "not below the modulus"),
])
def test_receiver_refuses(ciphertext: bytes, words: str) -> None:
    key = fixed_key()
    with pytest.raises(Refused) as info:
        v.textbook_decrypt(key, ciphertext)
    assert words in info.value.reason
    desc = loads(textbook('{ rsa = "server", padding = "none", carries = "message" }'))
    s = server_before_ciphertext(desc, key)
    with pytest.raises(Refused) as info:
        s.receive(ciphertext)
    assert words in info.value.reason and info.value.kind is None  # as a wrong-length padded ciphertext
    assert s.refusal_message() == b"ERR"


@pytest.mark.parametrize("message, said", [
    (b"\x00abc", "plaintext is 4 bytes starting with 0x00"),
    (b"y" * K, "plaintext is 128 bytes"),
    (b"", "plaintext is 0 bytes"),
])
def test_sender_refuses_what_the_receiver_could_not_read(message: bytes, said: str) -> None:
    key = fixed_key()
    assert v.textbook_encrypt(key.public_key(), b"\x01") == pow(1, E, N).to_bytes(K, "big")
    with pytest.raises(CryptoFailure) as info:
        v.textbook_encrypt(key.public_key(), message)
    assert info.value.kind is ErrorKind.TOO_LONG  # as a padded plaintext over its limit
    assert "textbook RSA (padding none) carries 1 to k-1 bytes not starting with 0x00" in info.value.detail
    desc = loads(textbook())
    c = Party(desc, "py2", "client", message=message)
    s = Party(desc, None, "server", private_keys={"server": key})
    s.receive(c.next_message())
    c.receive(s.next_message())
    with pytest.raises(Refused) as refused:
        c.next_message()
    assert refused.value.reason.startswith(f"cannot encrypt to key 'server': {said}")
    assert "textbook RSA (padding none) carries 1 to k-1 bytes not starting with 0x00" in refused.value.reason


def test_textbook_is_reported_weak() -> None:
    weak = loads(textbook()).weaknesses()
    assert weak == ["key 'server' is 1024 bits",
                    "conversation[0].step[2].send: RSA to key server with no padding (textbook RSA, RFC 8017 §5.1.1): "
                    "deterministic, and malleable (c·sᵉ decrypts to m·s)"]
    assert not any("no padding" in w for w in loads(textbook(RSA_PKCS1)).weaknesses())


# ---- the description's checks --------------------------------------------------------------------


def test_raw_secret_under_textbook_rsa_is_taken_and_reported_weak() -> None:
    """A raw secret under textbook RSA is taken: its maker never draws one that begins with 0x00
    (tests/test_described_length_told.py has the draws), and the description is reported weak."""
    desc = loads(textbook('{ rsa = "server", padding = "none", carries = "secret:s" }'))
    assert desc.textbook_raw_secrets == frozenset({"s"})
    assert ("conversation[0].step[2].send: textbook RSA of raw secret s (RFC 8017 §4.2: one secret in 256 begins with "
            "0x00, which the receiver's integer drops; crosscheck's sender draws another)") in desc.weaknesses()
    for written in ('{ rsa = "server", padding = "none", carries = "secret:s", carries_as = "hex" }',
                    '{ rsa = "server", padding = "pkcs1", carries = "secret:s" }'):  # hex text; padded: taken raw
        other = loads(textbook(written))
        assert other.textbook_raw_secrets == frozenset() and not any("raw secret" in w for w in other.weaknesses())
    # A text secret (letters and digits) never begins with 0x00: nothing to draw again, nothing to report.
    text_secret = loads(textbook('{ rsa = "server", padding = "none", carries = "secret:s" }').replace(
        "bytes = 16", 'bytes = 16\nderive = "utf8-zeropad16"'))
    assert text_secret.textbook_raw_secrets == frozenset()
    assert not any("raw secret" in w for w in text_secret.weaknesses())


@pytest.mark.parametrize("message, said", [("", "is empty"), ("\\u0000abc", "starts with 0x00"),
                                           ("x" * 128, "has 128 bytes, and k is 128")])
def test_stated_message_textbook_cannot_carry_is_refused(message: str, said: str) -> None:
    with pytest.raises(DescriptionError) as info:
        loads(textbook(message=message))
    assert info.value.path == "conversation[0].step[2].send.padding"
    assert info.value.message.startswith("textbook RSA (padding none) carries 1 to k-1 bytes not starting with 0x00")
    assert said in info.value.message
    loads(textbook(message="a\\u0000"))  # a zero byte inside is fine
    loads(textbook(message="x" * 127))  # k - 1 bytes: always below n


def test_unknown_padding_lists_none() -> None:
    with pytest.raises(DescriptionError) as info:
        loads(textbook('{ rsa = "server", padding = "raw", carries = "message" }'))
    assert info.value.path == "conversation[0].step[2].send.padding"
    assert info.value.message == ('padding must be one of "pkcs1", "oaep-sha1", "oaep-sha256", "none", "per-character"; '
                                  "found 'raw'")


# ---- python2-tuple -------------------------------------------------------------------------------

# str((data,)) as python2.7 prints it.
PY2_EXAMPLES = [
    (b"\x00\x7f\x80\xff'\"\\\t\n\r a~", b"('\\x00\\x7f\\x80\\xff\\'\"\\\\\\t\\n\\r a~',)"),
    (b"it's", b"(\"it's\",)"),
    (b'a"b', b"('a\"b',)"),
    (b"", b"('',)"),
    (b"a\"b'", b"('a\"b\\'',)"),  # both quotes: ' and \'
]


@pytest.mark.parametrize("data, text", PY2_EXAMPLES)
def test_python2_tuple_as_python2_writes_it(data: bytes, text: bytes) -> None:
    assert v.encode(data, "python2-tuple") == text
    assert v.decode(text, "python2-tuple", "the value") == data
    assert v.encoded_length(len(data), "python2-tuple") is None


def test_python2_tuple_every_byte() -> None:
    data = bytes(range(256))
    text = v.encode(data, "python2-tuple")
    assert text.startswith(b"('\\x00\\x01") and b"\\t\\n\\x0b\\x0c\\r" in text and b" !\"#$%&\\'()" in text
    assert text.endswith(b"}~\\x7f\\x80" + b"".join(b"\\x%02x" % b for b in range(0x81, 0x100)) + b"',)")
    assert v.decode(text, "python2-tuple", "x") == data


@pytest.mark.parametrize("text", [
    b"('\\x41',)",  # a printable byte written as \x..
    b"('\\X00',)",  # \X is no escape
    b"('\\x0A',)",  # uppercase hex
    b"('\\x09',)",  # \t is what repr writes
    b"(b'a',)",  # Python 3's bytes repr
    b"('a')",  # no tuple
    b"\"a\",)",
    b"('a',) ",  # trailing space
    b" ('a',)",
    b"(\"a\",)",  # repr quotes with ' here
    b"('it\\'s',)",  # repr writes "it's"
    b"(\"a\\\"b'\",)",  # both quotes: repr quotes with ' and escapes it
    b"('a'b',)",  # the quote unescaped
    b"('\xc3\xa9',)",  # a raw byte outside 0x20..0x7e
    b"('\t',)",
    b"('\\',)",
    b"('\\q',)",
    b"('\\x4',)",
    b"('a',\n)",
    b"",
    b"(',)",
])
def test_python2_tuple_is_strict(text: bytes) -> None:
    with pytest.raises(Refused, match="is not valid python2-tuple"):
        v.decode(text, "python2-tuple", "the RSA ciphertext")


def test_python2_tuple_is_an_encoding_of_unknown_length() -> None:
    desc = loads(textbook('{ concat = [ { text = "c=" }, { rsa = "server", padding = "pkcs1", carries = "message", '
                          'encoding = "python2-tuple" } ] }'))
    key = fixed_key()
    s = server_before_ciphertext(desc, key)
    assert s.expected_length() is None
    c, s, log = converse(desc, key, b"padded")
    assert s.received["message"] == b"padded" and log[2].startswith(b"c=(")
    with pytest.raises(DescriptionError, match="at most one part"):
        loads(textbook('{ concat = [ { secret = "s", encoding = "python2-tuple" }, '
                       '{ rsa = "server", padding = "pkcs1", carries = "message", encoding = "python2-tuple" } ] }'))
