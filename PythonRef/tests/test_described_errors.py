"""A tcp conversation's `errors` (docs/PROTOCOL-DESCRIPTIONS.md): a refusal's kind ("length",
"padding", "authentication") picks the server's answer, else `error`; what the reader refuses."""

from __future__ import annotations

import base64
import os
import socket
import threading
import time
from typing import Optional

import pytest
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305

from pythonref.described import DescriptionError, Party, Refused, loads
from pythonref.described import server as dserver

PSK16 = bytes(range(16))
PSK32 = bytes(range(32))
MESSAGE = b"hello, crosscheck"


def upload(sealed: str, *, errors: str = '{ length = { text = "len\\n" } }', key_bytes: int = 16,
           framing: str = "legacy") -> str:
    return f"""
name = "upload-errors"
[transport]
kind = "tcp"
framing = "{framing}"
[secrets.psk]
made_by = "preshared"
bytes = {key_bytes}
[[conversation]]
name = "upload"
error = {{ text = "bad\\n" }}
{"errors = " + errors if errors else ""}
[[conversation.step]]
from = "client"
send = {sealed}
[[conversation.step]]
from = "server"
send = {{ text = "kthx\\n" }}
then = "close"
"""


CBC = '{ sealed = "psk", cipher = "aes-cbc", padding = "pkcs7", iv = "prefix", carries = "message" }'
CBC_UPLOAD = upload(CBC)


def _cbc(key: bytes, iv: bytes, blocks: bytes) -> bytes:
    op = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    return op.update(blocks) + op.finalize()


def _pkcs7(data: bytes, block: int = 16) -> bytes:
    n = block - len(data) % block
    return data + bytes([n]) * n


def good_cbc() -> bytes:
    iv = os.urandom(16)
    return iv + _cbc(PSK16, iv, _pkcs7(MESSAGE))


def cut_cbc() -> bytes:
    return good_cbc()[:-1]  # IV || ciphertext one byte short of whole blocks


def bad_padding_cbc() -> bytes:
    iv = os.urandom(16)
    return iv + _cbc(PSK16, iv, MESSAGE[:15] + b"\x00")  # one whole block whose last byte pads nothing


def server(text: str, key: bytes = PSK16) -> Party:
    return Party(loads(text), None, "server", secrets={"psk": key})


def refuse(text: str, msg: bytes, key: bytes = PSK16) -> Party:
    s = server(text, key)
    with pytest.raises(Refused) as info:
        s.receive(msg)
    assert s.done and s.refusal is info.value
    return s


# ---- the reader ----------------------------------------------------------------------------------


def test_errors_are_read_by_kind() -> None:
    conv = loads(upload(CBC, errors='{ authentication = { text = "auth\\n" }, length = { text = "len\\n" } }')).conversations[0]
    assert [(kind, v.arg) for kind, v in conv.errors] == [("length", "len\n"), ("authentication", "auth\n")]
    assert conv.error_for("length").arg == "len\n"
    assert conv.error_for("padding").arg == "bad\n"  # not listed: `error`
    assert conv.error_for(None).arg == "bad\n"
    assert loads(upload(CBC, errors="")).conversations[0].errors == ()


def test_an_unknown_errors_key_is_refused() -> None:
    with pytest.raises(DescriptionError) as info:
        loads(upload(CBC, errors='{ length = { text = "len\\n" }, timeout = { text = "slow\\n" } }'))
    assert info.value.path == "conversation[0].errors.timeout"
    assert "unknown key 'timeout'" in info.value.message
    assert "length, padding, authentication" in info.value.message


def test_a_close_errors_key_is_named() -> None:
    with pytest.raises(DescriptionError) as info:
        loads(upload(CBC, errors='{ paddng = { text = "pad\\n" } }'))
    assert info.value.path == "conversation[0].errors.paddng"
    assert "did you mean 'padding'" in info.value.message


def test_errors_must_be_a_table_of_fixed_text() -> None:
    with pytest.raises(DescriptionError) as info:
        loads(upload(CBC, errors='"len"'))
    assert info.value.path == "conversation[0].errors"
    with pytest.raises(DescriptionError) as info:
        loads(upload(CBC, errors='{ length = { secret = "psk" } }'))
    assert info.value.path == "conversation[0].errors.length.secret"
    assert "fixed text" in info.value.message
    with pytest.raises(DescriptionError) as info:
        loads(upload(CBC, errors='{ length = "len" }'))
    assert info.value.path == "conversation[0].errors.length"


HTTP = """
name = "http-errors"
[transport]
kind = "http"
[[conversation]]
name = "hello"
{extra}
[[conversation.step]]
from = "client"
request = "POST /hello"
body = {{ text = "hi" }}
[[conversation.step]]
from = "server"
body = {{ text = "there" }}
"""


def test_an_http_conversations_errors_are_a_status_and_a_constant_body() -> None:
    loads(HTTP.format(extra=""))
    ok = loads(HTTP.format(extra='errors = { authentication = { status = 200, body = { json = { ok = { text = "no" } } } } }'))
    assert [(k, s, b.kind) for k, s, b in ok.conversations[0].http_errors] == [("authentication", 200, "json")]
    assert loads(HTTP.format(extra='errors = { padding = { status = 422 } }')).conversations[0].http_errors == (("padding", 422, None),)
    with pytest.raises(DescriptionError) as http_error:
        loads(HTTP.format(extra='error = { text = "bad" }'))
    assert "error_status" in http_error.value.message
    with pytest.raises(DescriptionError) as info:  # a tcp-style value: http says a status
        loads(HTTP.format(extra='errors = { length = { text = "len" } }'))
    assert info.value.path.startswith("conversation[0].errors.length")
    with pytest.raises(DescriptionError) as same:  # a 200 refusal with no body: nothing tells it from the answer
        loads(HTTP.format(extra='errors = { length = { status = 200 } }'))
    assert same.value.path == "conversation[0].errors.length.status" and "body" in same.value.message
    with pytest.raises(DescriptionError) as built:  # a body the server cannot always send
        loads(HTTP.format(extra='errors = { length = { status = 400, body = { config = "username" } } }'))
    assert built.value.path == "conversation[0].errors.length.body" and "constant" in built.value.message


# ---- the kinds of refusals and the answers they get ----------------------------------------------


def test_cbc_cut_by_one_byte_is_a_length_refusal() -> None:
    s = refuse(CBC_UPLOAD, cut_cbc())
    assert s.refusal is not None and s.refusal.kind == "length"
    assert "not a positive multiple of 16" in s.refusal.reason
    assert s.refusal_message() == b"len\n"


def test_an_empty_cbc_ciphertext_is_a_length_refusal() -> None:
    s = refuse(CBC_UPLOAD, os.urandom(16))  # the IV alone
    assert s.refusal is not None and s.refusal.kind == "length"
    assert s.refusal_message() == b"len\n"


def test_cbc_bad_padding_gets_the_error() -> None:
    s = refuse(CBC_UPLOAD, bad_padding_cbc())
    assert s.refusal is not None and s.refusal.kind == "padding"
    assert s.refusal_message() == b"bad\n"  # no errors.padding: `error`


def test_cbc_bad_padding_gets_its_own_answer_when_listed() -> None:
    text = upload(CBC, errors='{ length = { text = "len\\n" }, padding = { text = "pad\\n" } }')
    s = refuse(text, bad_padding_cbc())
    assert s.refusal is not None and s.refusal.kind == "padding"
    assert s.refusal_message() == b"pad\n"


def test_good_cbc_gets_kthx() -> None:
    s = server(CBC_UPLOAD)
    s.receive(good_cbc())
    assert s.refusal is None and s.received["message"] == MESSAGE
    assert s.next_message() == b"kthx\n"
    assert s.done


def test_a_client_party_and_the_server_converse() -> None:
    desc = loads(CBC_UPLOAD)
    c = Party(desc, "upload", "client", secrets={"psk": PSK16}, message=MESSAGE)
    s = Party(desc, None, "server", secrets={"psk": PSK16})
    s.receive(c.next_message())
    answer = s.next_message()
    assert answer == b"kthx\n"
    c.receive(answer)
    assert c.done and s.done and c.refusal is None and s.refusal is None


def test_a_refusal_of_no_kind_gets_the_error() -> None:
    s = refuse(CBC_UPLOAD, b"short")  # shorter than the IV
    assert s.refusal is not None and s.refusal.kind is None
    assert s.refusal_message() == b"bad\n"


def test_no_error_and_no_listed_kind_answers_nothing() -> None:
    text = CBC_UPLOAD.replace('error = { text = "bad\\n" }\n', "")
    s = refuse(text, bad_padding_cbc())
    assert s.refusal is not None and s.refusal.kind == "padding" and s.refusal_message() is None
    s = refuse(text, cut_cbc())
    assert s.refusal_message() == b"len\n"


def test_ecb_lengths_and_pkcs7_32_padding() -> None:
    text = upload('{ sealed = "psk", cipher = "aes-ecb", padding = "pkcs7-32", carries = "message" }',
                  errors='{ length = { text = "len\\n" }, padding = { text = "pad\\n" } }')
    s = refuse(text, os.urandom(33))
    assert s.refusal is not None and s.refusal.kind == "length" and s.refusal_message() == b"len\n"
    op = Cipher(algorithms.AES(PSK16), modes.ECB()).encryptor()
    s = refuse(text, op.update(MESSAGE[:15] + b"\x11" + bytes(16)) + op.finalize())  # 0x00 pads nothing
    assert s.refusal is not None and s.refusal.kind == "padding" and s.refusal_message() == b"pad\n"
    op = Cipher(algorithms.AES(PSK16), modes.ECB()).encryptor()
    s = server(text)
    s.receive(op.update(_pkcs7(MESSAGE, 32)) + op.finalize())
    assert s.received["message"] == MESSAGE and s.next_message() == b"kthx\n"


GCM = '{ sealed = "psk", cipher = "aes-gcm", iv = "prefix", tag = "appended", carries = "message" }'


def _gcm(flip: Optional[int] = None) -> bytes:
    nonce = os.urandom(12)
    sealed = bytearray(AESGCM(PSK16).encrypt(nonce, MESSAGE, None))
    if flip is not None:
        sealed[flip] ^= 0x01
    return nonce + bytes(sealed)


def test_gcm_tag_flip_is_an_authentication_refusal() -> None:
    s = refuse(upload(GCM), _gcm(flip=-1))
    assert s.refusal is not None and s.refusal.kind == "authentication"
    assert s.refusal_message() == b"bad\n"  # errors lists only length
    s = refuse(upload(GCM, errors='{ authentication = { text = "auth\\n" } }'), _gcm(flip=-1))
    assert s.refusal is not None and s.refusal.kind == "authentication"
    assert s.refusal_message() == b"auth\n"
    s = refuse(upload(GCM, errors='{ authentication = { text = "auth\\n" } }'), _gcm(flip=0))  # the ciphertext
    assert s.refusal_message() == b"auth\n"
    s = server(upload(GCM, errors='{ authentication = { text = "auth\\n" } }'))
    s.receive(_gcm())
    assert s.received["message"] == MESSAGE and s.next_message() == b"kthx\n"


def test_chacha20_poly1305_tag_flip_is_an_authentication_refusal() -> None:
    text = upload('{ sealed = "psk", cipher = "chacha20-poly1305", iv = "prefix", carries = "message" }',
                  errors='{ authentication = { text = "auth\\n" } }', key_bytes=32)
    nonce = os.urandom(12)
    sealed = bytearray(ChaCha20Poly1305(PSK32).encrypt(nonce, MESSAGE, None))
    sealed[-3] ^= 0x80
    s = refuse(text, nonce + bytes(sealed), PSK32)
    assert s.refusal is not None and s.refusal.kind == "authentication"
    assert s.refusal_message() == b"auth\n"


FERNET = '{ sealed = "psk", cipher = "fernet", carries = "message" }'


def test_a_fernet_token_that_does_not_verify_is_an_authentication_refusal() -> None:
    text = upload(FERNET, errors='{ authentication = { text = "auth\\n" } }', key_bytes=32)
    token = Fernet(base64.urlsafe_b64encode(PSK32)).encrypt(MESSAGE)
    raw = bytearray(base64.urlsafe_b64decode(token))
    raw[-1] ^= 0x01  # the HMAC
    s = refuse(text, base64.urlsafe_b64encode(bytes(raw)), PSK32)
    assert s.refusal is not None and s.refusal.kind == "authentication"
    assert s.refusal_message() == b"auth\n"
    s = refuse(text, Fernet(Fernet.generate_key()).encrypt(MESSAGE), PSK32)  # another key
    assert s.refusal is not None and s.refusal.kind == "authentication"
    s = server(text, PSK32)
    s.receive(token)
    assert s.received["message"] == MESSAGE


def test_fernet_format_refusals_have_no_kind() -> None:
    text = upload(FERNET, errors='{ authentication = { text = "auth\\n" } }', key_bytes=32)
    token = Fernet(base64.urlsafe_b64encode(PSK32)).encrypt(MESSAGE)
    for bad in (b"not*base64url", token.rstrip(b"=")):
        s = refuse(text, bad, PSK32)
        assert s.refusal is not None and s.refusal.kind is None, s.refusal.reason
        assert "not base64url" in s.refusal.reason or "not canonical" in s.refusal.reason
        assert s.refusal_message() == b"bad\n"


def test_a_refusal_elsewhere_has_no_kind() -> None:
    text = upload('{ concat = [ { text = "m=" }, { sealed = "psk", cipher = "aes-cbc", iv = "prefix", carries = "message" } ] }',
                  errors='{ length = { text = "len\\n" } }')
    s = refuse(text, b"x=" + good_cbc())
    assert s.refusal is not None and s.refusal.kind is None and s.refusal_message() == b"bad\n"
    s = refuse(text, b"m=" + cut_cbc())  # inside a concat: the kind is kept
    assert s.refusal is not None and s.refusal.kind == "length" and s.refusal_message() == b"len\n"


def test_a_client_knows_an_errors_answer_for_a_refusal() -> None:
    desc = loads(CBC_UPLOAD)
    c = Party(desc, "upload", "client", secrets={"psk": PSK16}, message=MESSAGE)
    c.next_message()
    with pytest.raises(Refused, match="the server refused"):
        c.receive(b"len\n")
    c = Party(desc, "upload", "client", secrets={"psk": PSK16}, message=MESSAGE)
    c.next_message()
    with pytest.raises(Refused, match="expected"):
        c.receive(b"what\n")


# ---- over a real socket --------------------------------------------------------------------------


def _ask(port: int, msg: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(msg)
        got = b""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            data = sock.recv(4096)
            if not data:
                break
            got += data
    return got


@pytest.mark.parametrize("framing", ["legacy", "length-prefix"])
def test_a_tcp_server_answers_each_kind(framing: str) -> None:
    desc = loads(upload(CBC, framing=framing))
    srv = dserver.make_server(desc, party_options={"secrets": {"psk": PSK16}}, quiet_gap=0.2)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()

    def framed(msg: bytes) -> bytes:
        return msg if framing == "legacy" else len(msg).to_bytes(4, "big") + msg

    try:
        assert _ask(srv.port, framed(cut_cbc())) == framed(b"len\n")
        assert _ask(srv.port, framed(bad_padding_cbc())) == framed(b"bad\n")
        assert _ask(srv.port, framed(good_cbc())) == framed(b"kthx\n")
    finally:
        srv.shutdown()
        thread.join(timeout=5)


def test_drive_tcp_sends_the_kinds_answer() -> None:
    desc = loads(upload(GCM, errors='{ authentication = { text = "auth\\n" } }'))
    ours, theirs = socket.socketpair()
    try:
        party = Party(desc, None, "server", secrets={"psk": PSK16})
        ours.sendall(_gcm(flip=-1))
        out = dserver.drive_tcp(theirs, party, timeout=5, quiet_gap=0.2)
        assert out["outcome"] == "refused" and party.refusal is not None
        assert party.refusal.kind == "authentication"
        assert out["sent"] == [b"auth\n"]
        ours.settimeout(5)
        assert ours.recv(100) == b"auth\n"
    finally:
        ours.close()
        theirs.close()


# error = { starts_with = … } and error_then = "keep-open" (quqiOnfree/rsa-encryption-server: an error whose
# text names the exception, after which the loop reads on).
KEEP_OPEN = upload(CBC, errors="").replace('error = { text = "bad\\n" }', "error = { starts_with = 'ERR ' }\nerror_then = \"keep-open\"") \
    .replace('then = "close"\n', "")


def test_starts_with_is_a_whole_error_value_and_keep_open_is_for_tcp() -> None:
    desc = loads(KEEP_OPEN)
    assert desc.conversations[0].error_then == "keep-open" and desc.conversations[0].error.kind == "starts_with"
    assert loads(upload(CBC)).conversations[0].error_then == "close"
    for text, path, words in [
        (KEEP_OPEN.replace("error = { starts_with = 'ERR ' }", "error = { concat = [{ starts_with = 'ERR ' }] }"),
         "conversation[0].error.concat[0]", "starts_with is a whole error value"),
        (KEEP_OPEN.replace('send = { text = "kthx\\n" }', "send = { starts_with = 'kthx' }"),
         "conversation[0].step[1].send", "starts_with is only a tcp conversation's error"),
        (KEEP_OPEN.replace('error_then = "keep-open"', 'error_then = "linger"'), "conversation[0].error_then", "keep-open"),
        (KEEP_OPEN.replace("starts_with = 'ERR '", "starts_with = ''"), "conversation[0].error.starts_with",
         "an empty beginning matches every answer"),
        (KEEP_OPEN.replace("starts_with = 'ERR '", "starts_with = 'kthx'"), "conversation[0].error.starts_with",
         "cannot be told apart"),
        (KEEP_OPEN.replace('framing = "legacy"', 'framing = "close"'), "conversation[0].error_then", 'framing = "close"'),
        (KEEP_OPEN.replace("[[conversation.step]]\nfrom = \"client\"", "[[conversation.step]]\nfrom = \"server\"\nsend = { text = \"hello\\n\" }\n[[conversation.step]]\nfrom = \"client\"", 1),
         "conversation[0].error_then", "must begin with the client's step"),
    ]:
        with pytest.raises(DescriptionError) as info:
            loads(text)
        assert info.value.path == path and words in info.value.message, (info.value.path, info.value.message)


def test_a_keep_open_server_reads_on_after_its_error_and_a_client_knows_the_error_by_its_beginning() -> None:
    desc = loads(KEEP_OPEN)
    srv = dserver.make_server(desc, party_options={"secrets": {"psk": PSK16}}, quiet_gap=0.2)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as sock:
            sock.sendall(bad_padding_cbc())
            assert sock.recv(100) == b"ERR "            # a server built from the description sends the beginning
            sock.sendall(good_cbc())                    # the same connection: a conversation again
            assert sock.recv(100) == b"kthx\n"
        closing = dserver.make_server(loads(upload(CBC)), party_options={"secrets": {"psk": PSK16}}, quiet_gap=0.2)
        other = threading.Thread(target=closing.serve_forever, daemon=True)
        other.start()
        try:
            with socket.create_connection(("127.0.0.1", closing.port), timeout=10) as sock:
                sock.sendall(bad_padding_cbc())
                assert sock.recv(100) == b"bad\n"
                assert sock.recv(100) == b""            # error_then = "close" (the default): it closed
        finally:
            closing.shutdown()
            other.join(timeout=5)
    finally:
        srv.shutdown()
        thread.join(timeout=5)
    # A client takes any answer that begins so as the server's refusal.
    client = Party(desc, "upload", "client", secrets={"psk": PSK16}, message=MESSAGE)
    client.next_message()
    with pytest.raises(Refused) as info:
        client.receive(b"ERR padding is wrong: ValueError('Invalid padding bytes.')")
    assert "refused (it sent the conversation's error value)" in info.value.reason
