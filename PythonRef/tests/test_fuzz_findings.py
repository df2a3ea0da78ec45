"""Disagreements `crosscheck fuzz` found between PythonRef and the Swift side, fixed on this side:
each test pins the behaviour both implementations now share (docs/PROTOCOL.md where it says)."""

from __future__ import annotations

import base64
import json

import pytest
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric import rsa

from pythonref import aead, aes_cbc, aes_https, rsa_cipher, rsa_keys, text_formats
from pythonref.errors import CryptoFailure, ErrorKind


def _expect(kind: ErrorKind, fn, *args):  # type: ignore[no-untyped-def]
    with pytest.raises(CryptoFailure) as info:
        fn(*args)
    assert info.value.kind == kind, info.value.detail
    return info.value


def _tlv(tag: int, content: bytes) -> bytes:
    n = len(content)
    length = bytes([n]) if n < 0x80 else bytes([0x80 | ((n.bit_length() + 7) // 8)]) + n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag]) + length + content


def _int(value: int) -> bytes:
    return _tlv(2, value.to_bytes(max(1, (value.bit_length() + 8) // 8), "big"))


def _spki(n: int, e: int, algorithm: bytes = bytes.fromhex("300d06092a864886f70d0101010500")) -> bytes:
    return _tlv(0x30, algorithm + _tlv(3, b"\x00" + _tlv(0x30, _int(n) + _int(e))))


def _pem(label: str, der: bytes) -> bytes:
    b64 = base64.b64encode(der).decode()
    return (f"-----BEGIN {label}-----\n" + "".join(b64[i : i + 64] + "\n" for i in range(0, len(b64), 64))
            + f"-----END {label}-----").encode()


# ---- keys ----------------------------------------------------------------------------------------


def test_der_withTrailingBytes_isRefusedLikeWireCrypto(key1024: rsa.RSAPrivateKey) -> None:
    spki = key1024.public_key().public_bytes(ser.Encoding.DER, ser.PublicFormat.SubjectPublicKeyInfo)
    private = key1024.private_bytes(ser.Encoding.DER, ser.PrivateFormat.PKCS8, ser.NoEncryption())
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, spki + b"\x00")
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, _pem("PUBLIC KEY", spki + b"\x00\x00"))
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_private, private + b"\x01")
    assert rsa_keys.load_public(spki).public_numbers() == key1024.public_key().public_numbers()


def test_berIndefiniteLength_isNotDer(key1024: rsa.RSAPrivateKey) -> None:
    # docs/PROTOCOL.md "Padding and keys": DER as DER (X.690 §10); BER's indefinite length is refused.
    spki = key1024.public_key().public_bytes(ser.Encoding.DER, ser.PublicFormat.SubjectPublicKeyInfo)
    assert spki[:3] == b"\x30\x81\x9f"
    indefinite = b"\x30\x80" + spki[3:] + b"\x00\x00"
    failure = _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, _pem("PUBLIC KEY", indefinite))
    assert "not DER" in failure.detail or "cannot load" in failure.detail
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, _pem("PUBLIC KEY", indefinite + b"\x05"))


def _signed_int(value: int) -> bytes:
    return _tlv(2, value.to_bytes(max(1, (value.bit_length() + 8) // 8), "big", signed=True))


def _long_length(der: bytes) -> bytes:
    """The outer length with one more length byte than it needs (BER, not DER)."""
    header = 2 if der[1] < 0x80 else 2 + (der[1] & 0x7F)
    size = len(der) - header
    body = size.to_bytes((size.bit_length() + 7) // 8, "big")
    return der[:1] + bytes([0x80 | (len(body) + 1), 0]) + body + der[header:]


# Issue 37 / docs/PROTOCOL.md "Padding and keys": a key that is not a valid RSA key, or not DER, is
# refused at load, before anything is encrypted to it. Each (name, make, words in the message).
_NOT_KEYS = [
    ("e=1", lambda n: _spki(n, 1), "e = 1"),
    ("e=0", lambda n: _spki(n, 0), "e = 0"),
    ("e=2", lambda n: _spki(n, 2), "is even"),
    ("e=65536", lambda n: _spki(n, 65536), "is even"),
    ("e=-65537", lambda n: _tlv(0x30, bytes.fromhex("300d06092a864886f70d0101010500")
                                + _tlv(3, b"\x00" + _tlv(0x30, _int(n) + _signed_int(-65537)))), "negative INTEGER"),
    ("n even", lambda n: _spki(n ^ 1, 65537), "n is even"),
    ("n of 1023 bits", lambda n: _spki(n >> 1 | 1, 65537), "bits"),
    ("e=n", lambda n: _spki(n, n), "not below n"),
    ("n negative", lambda n: _tlv(0x30, bytes.fromhex("300d06092a864886f70d0101010500")
                                  + _tlv(3, b"\x00" + _tlv(0x30, _signed_int(-n) + _int(65537)))), "negative INTEGER"),
    ("n with leading zeros", lambda n: _tlv(0x30, bytes.fromhex("300d06092a864886f70d0101010500")
                                            + _tlv(3, b"\x00" + _tlv(0x30, _tlv(2, b"\x00\x00" + n.to_bytes(128, "big")) + _int(65537)))), "redundant leading byte"),
    ("non-minimal length", lambda n: _long_length(_spki(n, 65537)), "more bytes than it needs"),
    ("bit string with unused bits", lambda n: _tlv(0x30, bytes.fromhex("300d06092a864886f70d0101010500")
                                                   + _tlv(3, b"\x01" + _tlv(0x30, _int(n) + _int(65537)))), "1 unused bits"),
    ("algorithm parameters absent", lambda n: _spki(n, 65537, algorithm=bytes.fromhex("300b06092a864886f70d010101")), "not DER"),
    ("pkcs1 e=1", lambda n: _tlv(0x30, _int(n) + _int(1)), "e = 1"),
]


@pytest.mark.parametrize("name,make,words", _NOT_KEYS, ids=[case[0] for case in _NOT_KEYS])
def test_notAValidRsaKey_isRefusedAtLoad(key1024: rsa.RSAPrivateKey, name: str, make, words: str) -> None:  # type: ignore[no-untyped-def]
    der = make(key1024.public_key().public_numbers().n)
    for data in (der, _pem("PUBLIC KEY" if der[2:3] != b"\x02" and der[3:4] != b"\x02" else "RSA PUBLIC KEY", der)):
        failure = _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, data)
        assert words in failure.detail, failure.detail


def test_privateKeyVersions_otherThan0or1_areRefused(key1024: rsa.RSAPrivateKey) -> None:
    pkcs1 = key1024.private_bytes(ser.Encoding.DER, ser.PrivateFormat.TraditionalOpenSSL, ser.NoEncryption())
    pkcs8 = key1024.private_bytes(ser.Encoding.DER, ser.PrivateFormat.PKCS8, ser.NoEncryption())
    header = 2 + (pkcs1[1] & 0x7F)
    assert pkcs1[header : header + 3] == b"\x02\x01\x00"
    version5 = pkcs1[: header + 2] + b"\x05" + pkcs1[header + 3 :]
    assert "version is 5" in _expect(ErrorKind.BAD_KEY, rsa_keys.load_private, version5).detail
    assert "version is 5" in _expect(ErrorKind.BAD_KEY, rsa_keys.load_private, _pem("RSA PRIVATE KEY", version5)).detail
    outer = 2 + (pkcs8[1] & 0x7F)
    assert pkcs8[outer : outer + 3] == b"\x02\x01\x00"
    version16 = pkcs8[: outer + 2] + b"\x10" + pkcs8[outer + 3 :]
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_private, version16)
    assert rsa_keys.load_private(pkcs8).private_numbers() == key1024.private_numbers()


def test_rsaPssSubjectPublicKeyInfo_isNotAnEncryptionKey(key1024: rsa.RSAPrivateKey) -> None:
    pkcs1 = key1024.public_key().public_bytes(ser.Encoding.DER, ser.PublicFormat.PKCS1)
    pss = _tlv(0x30, bytes.fromhex("300b06092a864886f70d01010a") + _tlv(3, b"\x00" + pkcs1))
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, _pem("PUBLIC KEY", pss))
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, pss)


def test_publicPemBody_isReadAsWireCryptoReadsIt(key1024: rsa.RSAPrivateKey) -> None:
    spki = key1024.public_key().public_bytes(ser.Encoding.DER, ser.PublicFormat.SubjectPublicKeyInfo)
    pem = _pem("PUBLIC KEY", spki).decode()
    lines = pem.split("\n")
    body = "".join(lines[1:-1])
    # Any line layout and blank lines are fine (only \r and \n are dropped) ...
    for text in (f"{lines[0]}\n{body}\n{lines[-1]}", pem.replace("\n", "\n\n", 1), pem.replace("\n", "\r\n")):
        assert rsa_keys.load_public(text.encode()).public_numbers() == key1024.public_key().public_numbers()
    # ... other whitespace and superfluous padding are not.
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, pem.replace("\n", " \n", 2).encode())
    assert not body.endswith("=") and len(body) % 4 == 0
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, f"{lines[0]}\n{body}=\n{lines[-1]}".encode())


def test_publicInfo_keepsAnExponentOver63BitsExactlyInHex(key1024: rsa.RSAPrivateKey) -> None:
    n = key1024.public_key().public_numbers().n
    for e in ((1 << 100) + 1, (1 << 100) + 3):  # two such exponents never compare equal
        info = rsa_keys.public_info(rsa_keys.load_public(_spki(n, e)))
        assert info["e"] == 0 and info["e_hex"] == format(e, "x") and info["n"] == format(n, "x")
    assert rsa_keys.public_info(key1024.public_key())["e"] == 65537
    assert rsa_keys.public_info(key1024.public_key())["e_hex"] == "10001"


def test_keyOpenSslWouldRefuseAtEncryption_isRefusedAtLoad(key1024: rsa.RSAPrivateKey) -> None:
    n = key1024.public_key().public_numbers().n
    for e in (n, n + 2):  # e >= n
        assert "e is not below n" in _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, _spki(n, e)).detail
    assert "n is even" in _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, _spki(n ^ 1, 65537)).detail


# ---- AES-CBC, sealed boxes: which fault is named first ---------------------------------------------


def test_cbc_wrongIvUnderAWrongSizeKey_isBadLength() -> None:
    _expect(ErrorKind.BAD_LENGTH, aes_cbc.cbc_decrypt, bytes(15), bytes(8), bytes(16))
    _expect(ErrorKind.BAD_LENGTH, aes_cbc.cbc_encrypt, bytes(17), bytes(15), b"x")


def test_aead_shortBoxUnderAWrongSizeKey_isBadLength() -> None:
    for alg in aead.ALGS:
        _expect(ErrorKind.BAD_LENGTH, aead.open_combined, alg, bytes(31), bytes(17))


# ---- base64 and JSON ------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["YWJj=", "YWJj==", "YWJj====", "YQ===", "YQ=a", "YQ", "Y"])
def test_strictBase64_refusesWhatStandardBase64DoesNot(text: str) -> None:
    with pytest.raises(ValueError):
        text_formats.strict_b64decode(text)


@pytest.mark.parametrize("text, value", [("YQ==", b"a"), ("YWI=", b"ab"), ("YWJj", b"abc"), ("", b""), ("YR==", b"a")])
def test_strictBase64_takesStandardBase64(text: str, value: bytes) -> None:
    assert text_formats.strict_b64decode(text) == value


def test_json_nestingLimitIsFoundations512() -> None:
    assert text_formats.loads_strict(b'{"a":' + b"[" * 511 + b"]" * 511 + b"}")
    with pytest.raises(ValueError):
        text_formats.loads_strict(b'{"a":' + b"[" * 512 + b"]" * 512 + b"}")
    with pytest.raises(ValueError):
        text_formats.loads_strict(b"[" * 100_000 + b"]" * 100_000)


@pytest.mark.parametrize("body", [b'{"s":"\\ud800"}', b'{"\\udc00":1}', b'{"n":1e400}', b'{"n":-1e999}', b'{"n":NaN}',
                                  b'{"n":Infinity}', b"\xef\xbb\xbf{}", '{"a":1}'.encode("utf-16"), b'{"a":1,}',
                                  b'{"n":1' + b"0" * 309 + b"}", b'{"n":-1' + b"0" * 309 + b"}", b'{"n":1' + b"0" * 4300 + b"}"])
def test_json_refusesWhatFoundationRefuses(body: bytes) -> None:
    with pytest.raises(ValueError):
        text_formats.loads_strict(body)
    server = aes_https.AesHttpsServer(aes_https.AesHttpsConfig({"a": "b"}))
    login = server.handle({"method": "POST", "path": "/login", "headers": {}, "body": body})
    assert login["status"] == 400  # the login body is read by the same strict reader


def test_json_theLargestFiniteIntegerIsJson() -> None:
    dbl_max = (2**53 - 1) * 2**971  # 309 digits: Foundation reads it as DBL_MAX, finite
    assert text_formats.loads_strict(b'{"n":%d}' % dbl_max) == {"n": dbl_max}
    assert text_formats.loads_strict(b'{"n":1' + b"0" * 308 + b"}") == {"n": 10**308}


def test_envelope_withAnInfiniteOrNanField_isBadEnvelope() -> None:
    key, iv = bytes(16), bytes(16)
    envelope = json.loads(aes_cbc.seal_envelope(key, b"{}", iv))
    for extra in ("NaN", "1e400", "Infinity"):
        body = json.dumps(envelope)[:-1].encode() + f',"x":{extra}}}'.encode()
        _expect(ErrorKind.BAD_ENVELOPE, aes_cbc.open_envelope, key, body)
    assert aes_cbc.open_envelope(key, json.dumps(envelope).encode()) == b"{}"


def test_secureData_withAnUnrepresentableNumber_is400NotInvalidJson() -> None:
    server = aes_https.AesHttpsServer(aes_https.AesHttpsConfig({"alice": "pw"}, "base64-raw", base64.b64encode(bytes(32)).decode()))
    token = json.loads(server.handle(aes_https.login_request("alice", "pw"))["body"])["token"]
    request = {"method": "POST", "path": "/secure-data", "headers": {"authorization": token},
               "body": aes_cbc.seal_envelope(bytes(32), b'{"n":1e400}')}
    assert server.handle(request)["status"] == 400


def test_privatePem_isReadFromItsFirstBlockOnly(key1024: rsa.RSAPrivateKey, key2048: rsa.RSAPrivateKey) -> None:
    first = key1024.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.PKCS8, ser.NoEncryption())
    second = key2048.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.PKCS8, ser.NoEncryption())
    assert rsa_keys.load_private(first + second).key_size == 1024
    broken = first.replace(b"MII", b"MI!", 1)
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_private, broken + second)  # not the second key instead
    no_end = first.replace(b"-----END PRIVATE KEY-----", b"-----END PRIVATE KEX-----")
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_private, no_end + second)


def test_json_stringStartingWithARawByteOrderMark_isRefused() -> None:
    # Foundation drops a raw U+FEFF at the start of a string; escaped, it keeps it.
    for body in ('{"data":"\ufeffQQ=="}', '{"\ufeffk":1}', '["\ufeff"]'):
        with pytest.raises(ValueError):
            text_formats.loads_strict(body.encode("utf-8"))
    assert text_formats.loads_strict(rb'{"a":"\ufeffx","b":"x' + "\ufeff".encode() + b'"}') == {"a": "\ufeffx", "b": "x\ufeff"}


def test_json_stringScanOfAOneMegabyteBody_staysSmall() -> None:
    import tracemalloc

    body = b'{"data":"' + b"A" * 1_400_000 + b'","iv":"x"}'
    tracemalloc.start()
    try:
        assert text_formats.loads_strict(body)["iv"] == "x"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 1024 * 1024, f"{peak} bytes to read a 1.4 MB body"


# ---- PEM line ends and overridden JSON members (issue 14; docs/PROTOCOL.md) ----------------------


def _server_answer(key: rsa.RSAPrivateKey, framing: str, client_message: bytes) -> list[object]:
    from pythonref import rsa_socket as rs

    private = key.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.PKCS8, ser.NoEncryption())
    server = rs.RsaSocketServer(rs.ServerConfig(padding="oaep-sha256", framing=framing, private_key=private))
    actions = server.receive(rs.frame(rs.KEY_PREFIX + client_message, framing))
    return [a.name for a in actions if isinstance(a, rs.Event)] + [type(a).__name__ for a in actions if not isinstance(a, rs.Event)]


def test_pemLineEnds_areLfCrlfOrALoneCr_andTheBeginLineMustEndInOne(key1024: rsa.RSAPrivateKey) -> None:
    """Seed 4242, rsa-socket.client-key #11297: a BEGIN line ending in a lone CR. RFC 7468's eol is
    CRLF, CR or LF; the BEGIN line must end in one; on the wire one may follow the END line."""
    spki = key1024.public_key().public_bytes(ser.Encoding.DER, ser.PublicFormat.SubjectPublicKeyInfo)
    pem = _pem("PUBLIC KEY", spki)
    numbers = key1024.public_key().public_numbers()
    lone_cr_begin = pem.replace(b"-----\n", b"-----\r", 1)
    for text in (lone_cr_begin, pem.replace(b"\n", b"\r"), pem.replace(b"\n", b"\r\n")):
        assert rsa_keys.load_public(text).public_numbers() == numbers
        assert rs_import(text).public_numbers() == numbers
        assert _server_answer(key1024, "framed", text) == ["sent-ciphertext", "Send"]
    glued = pem.replace(b"-----\n", b"-----", 1)
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_public, glued)
    _expect(ErrorKind.BAD_KEY, rs_import, glued)
    assert _server_answer(key1024, "legacy", glued) == ["error", "Send", "Close"]
    # One line end after the END line belongs to the key message, a lone CR too; a second does not.
    assert _server_answer(key1024, "framed", pem + b"\r") == ["sent-ciphertext", "Send"]
    assert _server_answer(key1024, "framed", pem + b"\r\n") == ["sent-ciphertext", "Send"]
    assert _server_answer(key1024, "framed", pem + b"\n\r") == ["error", "Send", "Close"]
    private = key1024.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.PKCS8, ser.NoEncryption())
    assert rsa_keys.load_private(private.replace(b"\n", b"\r")).key_size == 1024
    _expect(ErrorKind.BAD_KEY, rsa_keys.load_private, private.replace(b"-----\n", b"-----", 1))


def rs_import(pem: bytes):  # type: ignore[no-untyped-def]
    from pythonref import rsa_socket as rs

    return rs.import_wire_public_key(pem)


@pytest.mark.parametrize("body", [b'{"iv":"\\ud800","iv":"AAAAAAAAAAAAAAAAAAAAAA=="}', b'{"a":{"b":"\\udc00","b":1},"a":2}',
                                  b'{"a":' + b"[" * 600 + b"]" * 600 + b',"a":1}', b'{"\\ud800":1,"\\ud800":2}'],
                         ids=["overridden-iv-lone-surrogate", "nested-overridden-lone-surrogate", "overridden-600-deep", "duplicate-lone-surrogate-names"])
def test_json_anOverriddenDuplicateMember_mustBeValidToo(body: bytes) -> None:
    """Seed 90001, aes-https.server #19905: the first of two "iv" members held a lone surrogate."""
    with pytest.raises(ValueError):
        text_formats.loads_strict(body)


def test_json_duplicateNames_theLastOneCounts() -> None:
    assert text_formats.loads_strict(b'{"a":"\\ud83d\\ude00","a":{"b":1,"b":[2]}}') == {"a": {"b": [2]}}
