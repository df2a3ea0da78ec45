"""The zoo's servers checked without crosscheck: a minimal client of this file's own, written from
docs/PROTOCOL.md, talks to each correct server (a whole good conversation must work, both ways)
and to the mutants (each planted flaw must really be there, e.g. the padding-oracle servers must
really answer differently per padding-error class). Run: /usr/bin/python3 -m pytest -q Tests/Zoo
"""

import base64
import functools
import hashlib
import http.client
import json
import os
import re
import secrets
import select
import signal
import socket
import ssl
import struct
import subprocess
import sys
import time

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives import padding as symmetric_padding
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

ZOO = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(ZOO))
REGISTRY = {entry["name"]: entry for entry in json.load(open(os.path.join(ZOO, "zoo.json")))["servers"]}
PINNED = os.path.join(REPO, "Vectors", "tls", "pinned.crt.pem")
MESSAGE = b"Secret message from RPi server"
DEADLINE = 5.0

PADDINGS = {
    "pkcs1": padding.PKCS1v15(),
    "oaep-sha1": padding.OAEP(mgf=padding.MGF1(hashes.SHA1()), algorithm=hashes.SHA1(), label=None),
    "oaep-sha256": padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None),
}


# ---- servers ------------------------------------------------------------------------------------

CURRENT_PYTHON = os.path.join(REPO, ".venv-current", "bin", "python")


# Whether this Python's cryptography (the one the Debian-python servers run on) decrypts PKCS#1 v1.5
# with implicit rejection: OpenSSL >= 3.2 answers a bad padding with a synthetic plaintext, not an
# error. Debian 12's python3-cryptography 38 uses OpenSSL 3.0 (explicit: an error); Debian 13's 43
# uses the system's OpenSSL 3.5 (implicit), as the .venv-current servers do.
def _implicit_rejection():
    from cryptography.hazmat.backends.openssl import backend
    return backend.openssl_version_number() >= 0x30200000


THIS_PYTHON_IMPLICIT = _implicit_rejection()


def python_for(name):
    """Debian's python3 (this one), or for "python": "current" the venv of `make venv-current`."""
    if REGISTRY[name].get("python") != "current":
        return sys.executable if sys.executable else "/usr/bin/python3"
    if not os.access(CURRENT_PYTHON, os.X_OK):
        pytest.skip("%s runs on %s, which is missing (make venv-current)" % (name, CURRENT_PYTHON))
    return CURRENT_PYTHON


class Running:
    def __init__(self, name):
        self.name = name
        argv = [python_for(name), "-u"] + REGISTRY[name]["server"] + ["--port", "0"]
        self.process = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        start_new_session=True)
        ready, _, _ = select.select([self.process.stdout], [], [], 30)
        line = self.process.stdout.readline() if ready else b""
        match = re.match(rb"LISTENING (\d+)$", line.strip())
        if not match:
            self.stop()
            raise AssertionError("%s did not print LISTENING within 30 s (got %r)" % (name, line))
        self.port = int(match.group(1))

    def stop(self):
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)


@pytest.fixture(scope="module")
def servers():
    """Starts each server once per module, on first use; stops them all at the end."""
    running = {}

    def get(name):
        if name not in running:
            running[name] = Running(name)
        return running[name]

    yield get
    for server in running.values():
        server.stop()


# ---- a minimal rsa-socket client ----------------------------------------------------------------

class Wire:
    def __init__(self, port, framed=False):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
        self.framed, self.buffer = framed, b""

    def close(self):
        self.sock.close()

    def send(self, payload):
        self.sock.sendall(struct.pack(">I", len(payload)) + payload if self.framed else payload)

    def _more(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("nothing more within the deadline; have %r" % self.buffer[:80])
        self.sock.settimeout(left)
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError("closed; have %r" % self.buffer[:80])
        self.buffer += chunk

    def read(self, complete, timeout=DEADLINE):
        """Legacy: bytes up to where complete(buffer) says a message ends; framed: one frame."""
        deadline = time.monotonic() + timeout
        if self.framed:
            while len(self.buffer) < 4 or len(self.buffer) < 4 + struct.unpack(">I", self.buffer[:4])[0]:
                self._more(deadline)
            length = struct.unpack(">I", self.buffer[:4])[0]
            frame, self.buffer = self.buffer[4:4 + length], self.buffer[4 + length:]
            return frame
        while True:
            end = complete(self.buffer)
            if end:
                message, self.buffer = self.buffer[:end], self.buffer[end:]
                return message
            self._more(deadline)

    def server_key(self):
        message = self.read(lambda b: b.index(b"-----END PUBLIC KEY-----\n") + 25 if b"-----END PUBLIC KEY-----\n" in b else 0)
        assert message.startswith(b"public_key=-----BEGIN PUBLIC KEY-----\n"), message[:60]
        return serialization.load_pem_public_key(message[len(b"public_key="):])

    def answer(self, digest=False):
        """`Server: OK` (with ` sha256=<64 hex>` when digest), or `Server: ERROR`."""
        def complete(b):
            if b.startswith(b"Server: ERROR"):
                return 13
            if b.startswith(b"Server: OK"):
                return 82 if digest and len(b) >= 82 else (10 if not digest else 0)
            return len(b) if len(b) >= 13 else 0
        return self.read(complete)

    def exactly(self, count):
        return self.read(lambda b: count if len(b) >= count else 0)

    def closed_after(self, timeout=DEADLINE):
        """(bytes that came, True when the server closed) within `timeout`."""
        deadline = time.monotonic() + timeout
        try:
            while True:
                self._more(deadline)
        except EOFError:
            return self.buffer, True
        except ConnectionResetError:
            return self.buffer, True
        except (TimeoutError, socket.timeout):
            return self.buffer, False


def raw_encrypt(public_key, block):
    numbers = public_key.public_numbers()
    k = (public_key.key_size + 7) // 8
    assert len(block) == k and int.from_bytes(block, "big") < numbers.n
    return pow(int.from_bytes(block, "big"), numbers.e, numbers.n).to_bytes(k, "big")


def undecryptable_block(public_key):
    """A block no padding accepts, whatever its random tail: it begins 00 00, where PKCS#1 v1.5
    needs 00 02 (RFC 8017 7.2.2 step 3) and OAEP's decoding fails on the label hash but for a
    2^-160 chance. A block of 00 and random bytes passed as PKCS#1 v1.5 once in ~260 tries: a
    correct server answered `Server: OK` and the test failed in CI."""
    return b"\x00\x00" + secrets.token_bytes((public_key.key_size + 7) // 8 - 2)


def nonzero(count):
    return bytes(secrets.choice(range(1, 256)) for _ in range(count))


def phone_to_pi(port, pad, framed=False, digest=False, plaintext=b"zoo probe"):
    wire = Wire(port, framed)
    try:
        wire.send(b"Client: OK")
        key = wire.server_key()
        wire.send(b"encrypted_message=" + key.encrypt(plaintext, PADDINGS[pad]))
        answer = wire.answer(digest)
        wire.send(b"Quit")
        stopped = wire.read(lambda b: 15 if len(b) >= 15 else 0)
        rest, closed = wire.closed_after()
        return answer, stopped, rest, closed
    finally:
        wire.close()


@functools.lru_cache(maxsize=1)
def phone_key():
    """One phone key for every pi-to-phone conversation: making a 2048-bit key per call was most
    of this file's time."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pi_to_phone(port, pad, framed=False, key_format="spki"):
    phone = phone_key()
    public = phone.public_key()
    pem = public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    pem = {"spki": pem.rstrip(b"\n"), "spki-newline": pem, "spki-crlf": pem.rstrip(b"\n").replace(b"\n", b"\r\n"),
           "pkcs1": public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.PKCS1)}[key_format]
    wire = Wire(port, framed)
    try:
        wire.send(b"public_key=" + pem)
        ciphertext = wire.exactly(256)
        plaintext = phone.decrypt(ciphertext, PADDINGS[pad])
        wire.send(b"Quit")
        stopped = wire.read(lambda b: 15 if len(b) >= 15 else 0)
        rest, closed = wire.closed_after()
        return plaintext, stopped, rest, closed
    finally:
        wire.close()


def refusal(port, chunks, framed=False):
    """Sends `chunks` (after `Client: OK` and reading the key when the first chunk is a callable
    taking the server's key), returns (answer bytes, closed)."""
    wire = Wire(port, framed)
    try:
        for chunk in chunks:
            if callable(chunk):
                wire.send(b"Client: OK")
                chunk = chunk(wire.server_key())
            wire.send(chunk)
        return wire.closed_after()
    finally:
        wire.close()


def ciphertext_containing(key, pad, needle, where="anywhere"):
    """A ciphertext (randomized padding: retry) holding `needle` anywhere, or ending in it."""
    for _ in range(200000):
        ciphertext = key.encrypt(b"binary safety", PADDINGS[pad])
        if (where == "end" and ciphertext.endswith(needle)) or (where == "anywhere" and needle in ciphertext[:-1]):
            return ciphertext
    raise AssertionError("no ciphertext with %r" % needle)


# ---- correct rsa-socket servers -----------------------------------------------------------------

CORRECT_RSA = [  # name, padding, framed, digest
    ("tutorial-recv1024", "pkcs1", False, False),
    ("buffering-reader", "oaep-sha1", False, False),
    ("asyncio-limits", "oaep-sha256", False, True),
    ("framed", "oaep-sha256", True, True),
    ("control-legacy-pkcs1", "pkcs1", False, False),
    ("control-framed-oaep", "oaep-sha256", True, True),
    ("split-ciphertext", "pkcs1", False, False),
    ("pause-reader", "pkcs1", False, False),
    ("pythonref-implicit-model", "pkcs1", False, True),
]
# Correct on an OpenSSL >= 3.2: a bad PKCS#1 v1.5 padding is acknowledged (implicit rejection).
CURRENT_OPENSSL = [
    ("pythonref-current-openssl", "pkcs1", False, True),
    ("tutorial-current-openssl", "pkcs1", False, False),
    ("control-pkcs1-current-openssl", "pkcs1", False, True),
    ("key-per-connection", "pkcs1", False, True),
]


@pytest.mark.parametrize("name,pad,framed,digest", CORRECT_RSA + CURRENT_OPENSSL)
def test_correct_rsa_server_completes_both_directions(servers, name, pad, framed, digest):
    port = servers(name).port
    plaintext = secrets.token_bytes(20)
    answer, stopped, rest, closed = phone_to_pi(port, pad, framed, digest, plaintext)
    expected = b"Server: OK" + (b" sha256=" + hashlib.sha256(plaintext).hexdigest().encode() if digest else b"")
    assert (answer, stopped, rest, closed) == (expected, b"Server stopped\n", b"", True)
    for key_format in ("spki", "spki-newline", "spki-crlf", "pkcs1"):
        assert pi_to_phone(port, pad, framed, key_format) == (MESSAGE, b"Server stopped\n", b"", True), key_format


@pytest.mark.parametrize("name,pad,framed,digest", [c for c in CORRECT_RSA if c[0] != "pythonref-implicit-model"])
def test_correct_rsa_server_refuses_undecryptable_and_is_binary_safe(servers, name, pad, framed, digest):
    port = servers(name).port
    garbage = lambda key: b"encrypted_message=" + raw_encrypt(key, undecryptable_block(key))
    if pad == "pkcs1" and THIS_PYTHON_IMPLICIT:
        # Implicit rejection: a bad padding is no error (test_implicit_rejection_servers_… checks that
        # answer); what every OpenSSL refuses is a ciphertext not below the modulus.
        garbage = lambda key: b"encrypted_message=" + over_the_modulus(key)
    error = b"\x00\x00\x00\x0dServer: ERROR" if framed else b"Server: ERROR"
    assert refusal(port, [garbage], framed) == (error, True)
    wire = Wire(port, framed)
    try:
        wire.send(b"Client: OK")
        key = wire.server_key()
        wire.send(b"encrypted_message=" + ciphertext_containing(key, pad, b"\r\n"))
        assert wire.answer(digest).startswith(b"Server: OK")
    finally:
        wire.close()


def test_buffering_reader_buffers_without_bound_and_asyncio_limits_refuses(servers):
    endless = b"public_key=-----BEGIN PUBLIC KEY-----\n" + b"A" * 200000
    wire = Wire(servers("buffering-reader").port)
    try:
        wire.send(endless)
        assert wire.closed_after(1.5) == (b"", False)  # still reading: waiting for the END line
        wire.sock.shutdown(socket.SHUT_WR)             # no more bytes are coming: now it must refuse
        assert wire.closed_after() == (b"Server: ERROR", True)
    finally:
        wire.close()
    assert refusal(servers("asyncio-limits").port, [endless]) == (b"Server: ERROR", True)


def test_framed_servers_refuse_a_frame_over_the_limit(servers):
    for name in ("framed", "control-framed-oaep"):
        wire = Wire(servers(name).port)
        try:
            wire.send(struct.pack(">I", 65537) + b"x" * 64)
            wire.framed = True
            assert wire.read(None) == b"Server: ERROR"
            assert wire.closed_after() == (b"", True)
        finally:
            wire.close()


# ---- rsa-socket mutants: the flaw is really there -----------------------------------------------

def pkcs1_block(k, header=b"\x00\x02", separator_at=None):
    """A PKCS#1 v1.5 encryption block; separator_at=None: no zero separator at all."""
    if separator_at is None:
        return header + nonzero(k - 2)
    return header + nonzero(separator_at - 2) + b"\x00" + secrets.token_bytes(k - separator_at - 1)


def test_oracle_error_text_tells_padding_classes_apart(servers):
    port = servers("oracle-error-text").port
    for header, separator_at, expected in ((b"\x00\x01", 20, b"Server: ERROR padding"), (b"\x01\x02", 20, b"Server: ERROR padding"),
                                           (b"\x00\x02", None, b"Server: ERROR length"), (b"\x00\x02", 5, b"Server: ERROR length")):
        block = lambda key: b"encrypted_message=" + raw_encrypt(key, pkcs1_block(key.key_size // 8, header, separator_at))
        assert refusal(port, [block]) == (expected, True), (header, separator_at)
    well_formed = lambda key: b"encrypted_message=" + raw_encrypt(key, pkcs1_block(key.key_size // 8, b"\x00\x02", 20))
    answer, closed = refusal(port, [well_formed, b"Quit"])
    assert (answer, closed) == (b"Server: OKServer stopped\n", True)


def test_oracle_silent_close_hangs_up_only_on_a_bad_header(servers):
    port = servers("oracle-silent-close").port
    bad_header = lambda key: b"encrypted_message=" + raw_encrypt(key, pkcs1_block(key.key_size // 8, b"\x00\x01", 20))
    no_separator = lambda key: b"encrypted_message=" + raw_encrypt(key, pkcs1_block(key.key_size // 8, b"\x00\x02", None))
    assert refusal(port, [bad_header]) == (b"", True)
    assert refusal(port, [no_separator]) == (b"Server: ERROR", True)


def test_oracle_utf8_close_hangs_up_only_when_the_padding_was_valid(servers):
    port = servers("oracle-utf8-close").port
    assert phone_to_pi(port, "pkcs1", plaintext=b"text works")[:2] == (b"Server: OK", b"Server stopped\n")
    def valid_padding_binary_plaintext(key):
        k = key.key_size // 8
        return b"encrypted_message=" + raw_encrypt(key, b"\x00\x02" + nonzero(20) + b"\x00\xff\xfe" + secrets.token_bytes(k - 25))
    no_separator = lambda key: b"encrypted_message=" + raw_encrypt(key, pkcs1_block(key.key_size // 8, b"\x00\x02", None))
    assert refusal(port, [valid_padding_binary_plaintext]) == (b"", True)
    if THIS_PYTHON_IMPLICIT:
        # On OpenSSL >= 3.2 the bad padding decrypts to a synthetic plaintext, so the oracle is gone:
        # whatever the server makes of it (almost always not UTF-8: a hang-up), never the padding error.
        answer, closed = refusal(port, [no_separator])
        assert answer != b"Server: ERROR" and closed, answer
    else:
        assert refusal(port, [no_separator]) == (b"Server: ERROR", True)


def test_oracle_manger_stays_open_only_when_the_first_byte_is_zero(servers):
    port = servers("oracle-manger").port
    first_byte_set = lambda key: b"encrypted_message=" + raw_encrypt(key, b"\x01" + secrets.token_bytes(key.key_size // 8 - 1))
    first_byte_zero = lambda key: b"encrypted_message=" + raw_encrypt(key, b"\x00" + secrets.token_bytes(key.key_size // 8 - 1))
    wire = Wire(port, framed=True)
    try:
        wire.send(b"Client: OK")
        wire.send(first_byte_set(wire.server_key()))
        assert wire.read(None) == b"Server: ERROR"
        assert wire.closed_after() == (b"", True)
    finally:
        wire.close()
    wire = Wire(port, framed=True)
    try:
        wire.send(b"Client: OK")
        wire.send(first_byte_zero(wire.server_key()))
        assert wire.read(None) == b"Server: ERROR"
        assert wire.closed_after(1.0) == (b"", False)
        wire.send(b"Client: OK")  # still listening on the same connection
        assert wire.server_key() is not None
    finally:
        wire.close()


def test_ok_on_garbage_acknowledges_what_it_cannot_decrypt(servers):
    garbage = lambda key: b"encrypted_message=" + raw_encrypt(key, undecryptable_block(key))
    assert refusal(servers("ok-on-garbage").port, [garbage]) == (b"Server: OK", False)


def test_wrong_mgf_hash_and_padding_mismatch_speak_no_standard_padding(servers):
    port = servers("wrong-mgf-hash").port
    for pad in PADDINGS:
        assert refusal(port, [lambda key: b"encrypted_message=" + key.encrypt(b"x", PADDINGS[pad])])[0] == b"Server: ERROR", pad
    mixed = padding.OAEP(mgf=padding.MGF1(hashes.SHA1()), algorithm=hashes.SHA256(), label=None)
    answer, _ = refusal(port, [lambda key: b"encrypted_message=" + key.encrypt(b"x", mixed), b"Quit"])
    assert answer == b"Server: OKServer stopped\n"
    with pytest.raises(ValueError):
        pi_to_phone(servers("padding-mismatch").port, "oaep-sha256")
    assert pi_to_phone(servers("padding-mismatch").port, "pkcs1")[0] == MESSAGE


def test_digest_wrong_hashes_the_ciphertext(servers):
    wire = Wire(servers("digest-wrong").port)
    try:
        wire.send(b"Client: OK")
        ciphertext = wire.server_key().encrypt(b"plaintext", PADDINGS["oaep-sha256"])
        wire.send(b"encrypted_message=" + ciphertext)
        answer = wire.answer(digest=True)
        assert answer == b"Server: OK sha256=" + hashlib.sha256(ciphertext).hexdigest().encode()
        assert answer != b"Server: OK sha256=" + hashlib.sha256(b"plaintext").hexdigest().encode()
    finally:
        wire.close()


def test_corrupting_servers_break_ciphertexts_with_line_end_bytes(servers):
    for name, needle, where in (("corrupting-crlf", b"\r\n", "anywhere"), ("corrupting-strip", b"\n", "end")):
        port = servers(name).port
        assert phone_to_pi(port, "pkcs1")[0] == b"Server: OK", name
        hit = lambda key: b"encrypted_message=" + ciphertext_containing(key, "pkcs1", needle, where)
        assert refusal(port, [hit]) == (b"Server: ERROR", True), name


def test_silent_never_answers(servers):
    wire = Wire(servers("silent").port)
    try:
        wire.send(b"Client: OK")
        assert wire.closed_after(1.0) == (b"", False)
    finally:
        wire.close()


def test_early_close_hangs_up_after_the_key(servers):
    wire = Wire(servers("early-close").port)
    try:
        wire.send(b"Client: OK")
        assert wire.server_key() is not None
        assert wire.closed_after() == (b"", True)
    finally:
        wire.close()


def test_quit_handling_mutants(servers):
    for name, after_quit in (("no-server-stopped", b""), ("keeps-answering-after-quit", b"Server stopped\n")):
        wire = Wire(servers(name).port)
        try:
            wire.send(b"Client: OK")
            wire.send(b"encrypted_message=" + wire.server_key().encrypt(b"x", PADDINGS["oaep-sha256"]))
            assert wire.answer() == b"Server: OK"
            wire.send(b"Quit")
            if after_quit:
                assert wire.exactly(len(after_quit)) == after_quit
                wire.send(b"Client: OK")
                assert wire.server_key() is not None, name  # answers again after Quit
            else:
                assert wire.closed_after() == (b"", True)
        finally:
            wire.close()


def test_error_mutants(servers):
    garbage = b"GET / HTTP/1.1\r\n\r\n"
    assert refusal(servers("wrong-error-text").port, [garbage]) == (b"ERROR", True)
    wire = Wire(servers("error-stays-open").port)
    try:
        wire.send(garbage)
        assert wire.closed_after(1.5) == (b"Server: ERROR", False)
    finally:
        wire.close()


def test_crash_on_bad_input_kills_the_process(servers):
    server = Running("crash-on-bad-input")  # its own instance: it is meant to die
    try:
        assert pi_to_phone(server.port, "pkcs1")[0] == MESSAGE
        refusal(server.port, [b"public_key=-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----"])
        assert server.process.wait(timeout=DEADLINE) != 0
    finally:
        server.stop()


# ---- a minimal aes-https client -----------------------------------------------------------------

class HTTPS:
    def __init__(self, port, cafile=PINNED):
        self.port = port
        self.context = ssl.create_default_context(cafile=cafile)

    def post(self, path, document=None, token=None, raw=None, content_type="application/json"):
        return self.exchange(path, document, token, raw, content_type)[:2]

    def exchange(self, path, document=None, token=None, raw=None, content_type="application/json"):
        """(status, body, headers with lowercase names)."""
        connection = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.context, timeout=DEADLINE)
        try:
            headers = {"Content-Type": content_type}
            if token is not None:
                headers["Authorization"] = token
            connection.request("POST", path, body=raw if raw is not None else json.dumps(document).encode(), headers=headers)
            response = connection.getresponse()
            return response.status, response.read(), {name.lower(): value for name, value in response.getheaders()}
        finally:
            connection.close()

    def login_headers(self, password="password"):
        return self.exchange("/login", {"username": "user", "password": password})[2]

    def login(self, password="password"):
        status, body = self.post("/login", {"username": "user", "password": password})
        assert status == 200, (status, body)
        fields = json.loads(body)
        return fields["token"], fields["encryptionKey"]


def derive(encryption_key):
    raw = base64.b64decode(encryption_key) if len(encryption_key) > 16 else b""
    if len(raw) in (16, 24, 32) and base64.b64encode(raw).decode() == encryption_key:
        return raw  # base64-raw
    return encryption_key.encode().ljust(16, b"\0")  # utf8-zeropad16


def seal(key, plaintext, iv=None):
    iv = iv or os.urandom(16)
    padder = symmetric_padding.PKCS7(128).padder()
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    data = encryptor.update(padder.update(plaintext) + padder.finalize()) + encryptor.finalize()
    return {"data": base64.b64encode(data).decode(), "iv": base64.b64encode(iv).decode()}


def open_sealed(key, envelope):
    iv, data = base64.b64decode(envelope["iv"]), base64.b64decode(envelope["data"])
    decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    unpadder = symmetric_padding.PKCS7(128).unpadder()
    return json.loads(unpadder.update(decryptor.update(data) + decryptor.finalize()) + unpadder.finalize()), iv


def echo(client, token, key, params, iv=None):
    status, body = client.post("/secure-data", seal(key, json.dumps(params).encode(), iv), token=token)
    assert status == 200, (status, body)
    return open_sealed(key, json.loads(body))


@pytest.mark.parametrize("name", ["https-threaded", "https-asyncio", "seed-app-friendly"])
def test_correct_https_server(servers, name):
    client = HTTPS(servers(name).port)
    token, encryption_key = client.login()
    key = derive(encryption_key)
    assert len(key) in (16, 32) and len(token) >= 32
    request_iv = os.urandom(16)
    (first, first_iv), (second, second_iv) = echo(client, token, key, {"n": 1}, request_iv), echo(client, token, key, {"n": 2})
    assert (first, second) == ({"echo": {"n": 1}}, {"echo": {"n": 2}})
    assert len({first_iv, second_iv, request_iv}) == 3  # fresh IVs, none echoed
    assert client.login()[1] != encryption_key           # a fresh key per login
    assert client.post("/login", {"username": "user", "password": "nope"})[0] == 401
    assert client.post("/secure-data", seal(key, b"{}"), token="0" * 32)[0] == 401
    assert client.post("/secure-data", seal(key, b"{}"))[0] == 401
    good = seal(key, b'{"a":1}')
    bad_padding = dict(good, iv=base64.b64encode(bytes([base64.b64decode(good["iv"])[0]]) + base64.b64decode(good["iv"])[1:15]
                                                 + bytes([base64.b64decode(good["iv"])[15] ^ 0x09])).decode())
    answers = {client.post("/secure-data", body, token=token) for body in (bad_padding, seal(key, b"not json"), seal(key, b"[1]"),
                                                                        {"data": good["data"], "iv": "AAAA"})}
    answers.add(client.post("/secure-data", token=token, raw=b"{"))
    assert answers == {(400, b'{"error":"bad request"}')}


def test_iv_mutants(servers):
    client = HTTPS(servers("static-iv").port)
    token, encryption_key = client.login()
    key = derive(encryption_key)
    assert echo(client, token, key, {"n": 1})[1] == echo(client, token, key, {"n": 2})[1]
    client = HTTPS(servers("iv-echo").port)
    token, encryption_key = client.login()
    request_iv = os.urandom(16)
    assert echo(client, token, derive(encryption_key), {"n": 1}, request_iv)[1] == request_iv


def test_key_reuse_hands_out_one_key(servers):
    client = HTTPS(servers("key-reuse").port)
    (token1, key1), (token2, key2) = client.login(), client.login()
    assert token1 != token2 and key1 == key2


def test_weak_token_counts(servers):
    client = HTTPS(servers("weak-token").port)
    (token1, key1), (token2, key2) = client.login(), client.login()
    assert int(token2) == int(token1) + 1 and key1 != key2
    assert echo(client, token2, derive(key2), {"n": 1})[0] == {"echo": {"n": 1}}


def test_cbc_oracles_answer_bad_padding_differently(servers):
    for name in ("cbc-padding-oracle", "cbc-oracle-reset"):
        client = HTTPS(servers(name).port)
        token, encryption_key = client.login()
        key = derive(encryption_key)
        good = seal(key, b'{"a":1,"b":"two blocks of plaintext"}')
        data = bytearray(base64.b64decode(good["data"]))
        data[-17] ^= 0x01  # last byte of the second-to-last block: the last plaintext byte, i.e. the padding
        bad_padding = dict(good, data=base64.b64encode(bytes(data)).decode())
        bad_json = client.post("/secure-data", seal(key, b"not json"), token=token)
        if name == "cbc-padding-oracle":
            assert client.post("/secure-data", bad_padding, token=token) == (400, b'{"error":"bad padding"}')
            assert bad_json == (400, b'{"error":"bad json"}')
        else:
            with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
                client.post("/secure-data", bad_padding, token=token)
            assert bad_json == (400, b'{"error":"bad request"}')


def test_token_and_password_mutants(servers):
    client = HTTPS(servers("accepts-bad-token").port)
    _, encryption_key = client.login()
    key = derive(encryption_key)
    status, body = client.post("/secure-data", seal(key, b'{"a":1}'), token="0" * 32)
    assert status == 200 and open_sealed(key, json.loads(body))[0] == {"echo": {"a": 1}}
    assert HTTPS(servers("accepts-any-password").port).post("/login", {"username": "user", "password": "nope"})[0] == 200
    assert len(HTTPS(servers("long-utf8-key").port).login()[1].encode()) == 24


@pytest.mark.parametrize("name,cafile,reason", [("wrong-certificate", PINNED, "self-signed certificate"),
                                                ("expired-certificate", os.path.join(REPO, "Vectors", "tls", "expired.crt.pem"), "expired")])
def test_certificate_mutants_fail_a_pinned_client(servers, name, cafile, reason):
    with pytest.raises(ssl.SSLCertVerificationError, match=reason):
        HTTPS(servers(name).port, cafile=cafile).login()


# ---- servers for the seed-app client profile ------------------------------------------------------

def form_login(client):
    """Seed 001's login: form-encoded, as AFHTTPRequestSerializer sends it."""
    return client.post("/login", raw=b"password=password&username=user", content_type="application/x-www-form-urlencoded")


def test_seed_app_friendly_takes_a_form_login_and_issues_short_keys(servers):
    client = HTTPS(servers("seed-app-friendly").port)
    status, body = form_login(client)
    assert status == 200, body
    key_text = json.loads(body)["encryptionKey"]
    assert 1 <= len(key_text.encode()) <= 15  # what getCString into 16 bytes can copy


def test_seed_app_mutants_break_exactly_what_they_say(servers):
    json_only = HTTPS(servers("seed-app-vs-json-only-login").port)
    assert form_login(json_only)[0] == 400
    html = HTTPS(servers("seed-app-vs-html-login-answer").port)
    assert html.login_headers()["content-type"].startswith("text/html")
    strict = HTTPS(servers("seed-app-vs-json-content-type-only").port)
    token, encryption_key = strict.login()
    assert strict.post("/secure-data", seal(derive(encryption_key), b"{}"), token=token, content_type="application/x-www-form-urlencoded")[0] == 415
    assert strict.post("/secure-data", seal(derive(encryption_key), b"{}"), token=token)[0] == 200



# ---- issue 18: the Pis teams really have -------------------------------------------------------

def bad_padding(key):
    """A k-byte ciphertext below n whose PKCS#1 v1.5 padding is wrong (block type 1)."""
    return raw_encrypt(key, pkcs1_block(key.key_size // 8, header=b"\x00\x01"))


def over_the_modulus(key):
    return key.public_numbers().n.to_bytes(key.key_size // 8, "big")


@pytest.mark.parametrize("name,pad,framed,digest", [c for c in CURRENT_OPENSSL + CORRECT_RSA if c[0] in
                                                    ("pythonref-implicit-model", "pythonref-current-openssl",
                                                     "tutorial-current-openssl", "control-pkcs1-current-openssl")
                                                    # key-per-connection: a new key each connection, so its
                                                    # answers cannot repeat (it has a test of its own below)
                                                    or (THIS_PYTHON_IMPLICIT and c[1] == "pkcs1" and c[0] != "key-per-connection")])
def test_implicit_rejection_servers_acknowledge_bad_padding_and_refuse_what_openssl_refuses(servers, name, pad, framed,
                                                                                          digest):
    port = servers(name).port
    answers = set()
    for _ in range(2):  # deterministic: the same ciphertext gets the same synthetic plaintext
        wire = Wire(port)
        try:
            wire.send(b"Client: OK")
            key = wire.server_key()
            if not answers:
                ciphertext = bad_padding(key)
            wire.send(b"encrypted_message=" + ciphertext)
            answers.add(wire.answer(digest))
        finally:
            wire.close()
    (answer,) = answers
    assert answer.startswith(b"Server: OK"), answer
    if digest:
        assert len(answer) == 82
    assert refusal(port, [lambda key: b"encrypted_message=" + over_the_modulus(key)]) == (b"Server: ERROR", True)


def test_ok_over_the_modulus_acknowledges_a_ciphertext_no_openssl_decrypts(servers):
    port = servers("ok-over-the-modulus").port
    answer, closed = refusal(port, [lambda key: b"encrypted_message=" + over_the_modulus(key)])
    assert answer.startswith(b"Server: OK sha256=") and not closed, answer


def acknowledge(port, make_ciphertext, digest=True):
    """Sends `make_ciphertext(server key)` after `Client: OK`; returns (answer, the key)."""
    wire = Wire(port)
    try:
        wire.send(b"Client: OK")
        key = wire.server_key()
        wire.send(b"encrypted_message=" + make_ciphertext(key))
        return wire.answer(digest), key
    finally:
        wire.close()


@pytest.mark.parametrize("name", ["sentinel-empty", "sentinel-fixed16"])
def test_sentinel_servers_digest_every_bad_padding_alike(servers, name):
    """The planted flaw (issue 29): distinct bad paddings get one digest — the empty string's for
    sentinel-empty — while a real plaintext gets its own."""
    port = servers(name).port
    first, _ = acknowledge(port, bad_padding)
    second, _ = acknowledge(port, lambda key: raw_encrypt(key, pkcs1_block(key.key_size // 8, header=b"\x00\x00")))
    assert first.startswith(b"Server: OK sha256=") and first == second, (first, second)
    if name == "sentinel-empty":
        assert first == b"Server: OK sha256=" + hashlib.sha256(b"").hexdigest().encode()
    real, _ = acknowledge(port, lambda key: key.encrypt(b"zoo probe", PADDINGS["pkcs1"]))
    assert real == b"Server: OK sha256=" + hashlib.sha256(b"zoo probe").hexdigest().encode()
    assert refusal(port, [lambda key: b"encrypted_message=" + over_the_modulus(key)]) == (b"Server: ERROR", True)


def test_key_per_connection_sends_a_new_key_each_time(servers):
    port = servers("key-per-connection").port
    keys = [acknowledge(port, lambda key: key.encrypt(b"zoo probe", PADDINGS["pkcs1"]))[1].public_numbers().n for _ in range(3)]
    assert len(set(keys)) == 3
    answer, _ = acknowledge(port, bad_padding)
    assert answer.startswith(b"Server: OK sha256="), answer  # implicit rejection (OpenSSL >= 3.2)


def test_implicit_utf8_refuses_plaintexts_that_are_not_utf8(servers):
    port = servers("implicit-utf8").port
    answer, _ = acknowledge(port, lambda key: key.encrypt("zoo probe ✓".encode(), PADDINGS["pkcs1"]))
    assert answer == b"Server: OK sha256=" + hashlib.sha256("zoo probe ✓".encode()).hexdigest().encode()
    assert refusal(port, [lambda key: b"encrypted_message=" + key.encrypt(b"\xff\xfe not text", PADDINGS["pkcs1"])]) == (b"Server: ERROR", True)
    assert pi_to_phone(port, "pkcs1") == (MESSAGE, b"Server stopped\n", b"", True)


def test_pause_reader_reads_a_message_up_to_a_pause(servers):
    port = servers("pause-reader").port
    wire = Wire(port)
    try:
        wire.send(b"Client: OK")
        key = wire.server_key()
        wire.send(b"encrypted_message=" + key.encrypt(b"pauses", PADDINGS["pkcs1"]))
        assert wire.answer() == b"Server: OK"
        wire.send(b"Qu")
        wire.send(b"it")  # a recv-per-message server would take "Qu" alone and refuse it
        assert wire.read(lambda b: 15 if len(b) >= 15 else 0) == b"Server stopped\n"
        assert wire.closed_after() == (b"", True)
    finally:
        wire.close()
    assert refusal(port, [b"Client: OKQuit"]) == (b"Server: ERROR", True)  # joined: one message, no such message


def test_echo_any_json_echoes_every_json_value_and_refuses_the_rest(servers):
    client = HTTPS(servers("https-echo-any-json").port)
    token, encryption_key = client.login()
    key = derive(encryption_key)
    for value in ({"a": 1}, [1, 2], "x", 3, None):
        assert echo(client, token, key, value)[0] == {"echo": value}
    for body in (seal(key, b"not json"), seal(key, b"\xff")):
        assert client.post("/secure-data", body, token=token) == (400, b'{"error":"bad request"}')


# ---- keys that are not RSA keys (docs/PROTOCOL.md "Padding and keys") -------------------------------

def exponent_one_pem(n):
    """SPKI PEM of (n, e = 1), built by hand: cryptography >= 42 will not make one."""
    def tlv(tag, content):
        size = len(content)
        if size < 0x80:
            return bytes([tag, size]) + content
        length = size.to_bytes((size.bit_length() + 7) // 8, "big")
        return bytes([tag, 0x80 | len(length)]) + length + content

    def integer(value):
        return tlv(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big"))

    der = tlv(0x30, bytes.fromhex("300d06092a864886f70d0101010500") + tlv(0x03, b"\x00" + tlv(0x30, integer(n) + integer(1))))
    text = base64.b64encode(der)
    return (b"-----BEGIN PUBLIC KEY-----\n" + b"".join(text[i:i + 64] + b"\n" for i in range(0, len(text), 64))
            + b"-----END PUBLIC KEY-----")


def test_control_refuses_a_client_key_with_exponent_1(servers):
    answer, closed = refusal(servers("control-legacy-pkcs1").port, [b"public_key=" + exponent_one_pem(phone_key().public_key().public_numbers().n)])
    assert (answer, closed) == (b"Server: ERROR", True)


def test_encrypts_to_exponent_1_sends_its_message_in_the_clear(servers):
    port = servers("encrypts-to-exponent-1").port
    wire = Wire(port)
    try:
        wire.send(b"public_key=" + exponent_one_pem(phone_key().public_key().public_numbers().n))
        block = wire.exactly(256)
        assert block[:2] == b"\x00\x02" and block.endswith(b"\x00" + MESSAGE)
    finally:
        wire.close()
    plaintext, stopped, _, closed = pi_to_phone(port, "pkcs1")  # to a real key it is a correct server
    assert (plaintext, stopped.strip(), closed) == (MESSAGE, b"Server stopped", True)


def test_offers_exponent_1_sends_its_modulus_with_e_1(servers):
    wire = Wire(servers("offers-exponent-1").port)
    try:
        wire.send(b"Client: OK")
        message = wire.read(lambda b: b.index(b"-----END PUBLIC KEY-----\n") + 25 if b"-----END PUBLIC KEY-----\n" in b else 0)
        body = b"".join(message[len(b"public_key="):].splitlines()[1:-1])
        der = base64.b64decode(body)
        assert der.endswith(b"\x02\x01\x01"), der[-8:].hex()  # the last INTEGER, e, is 1
    finally:
        wire.close()


# ---- issue 36: the CBC audit's own probes, whole responses, predictable IVs ---------------------

def with_last_block_after(key, good, want):
    """`good` with its second-to-last ciphertext block garbled until want(raw plaintext) holds."""
    iv, data = base64.b64decode(good["iv"]), bytearray(base64.b64decode(good["data"]))
    while True:
        data[-32:-16] = os.urandom(16)
        decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
        raw = decryptor.update(bytes(data)) + decryptor.finalize()
        if want(raw):
            return dict(good, data=base64.b64encode(bytes(data)).decode())


def valid_padding(raw):
    n = raw[-1]
    return 1 <= n <= 16 and raw[-n:] == bytes([n]) * n


def not_utf8(raw):
    try:
        raw.decode("utf-8")
        return False
    except UnicodeDecodeError:
        return True


def https_session(servers, name):
    client = HTTPS(servers(name).port)
    token, encryption_key = client.login()
    return client, token, derive(encryption_key)


def test_not_utf8_500_answers_a_random_plaintext_behind_a_valid_padding_with_500(servers):
    client, token, key = https_session(servers, "cbc-not-utf8-500")
    good = seal(key, b'{"oracle":"abcdefghijkl","pad":"abcdefghijkl"}')
    random_valid = with_last_block_after(key, good, lambda raw: valid_padding(raw) and not_utf8(raw))
    bad = with_last_block_after(key, good, lambda raw: not valid_padding(raw))
    assert client.post("/secure-data", random_valid, token=token)[0] == 500
    assert client.post("/secure-data", bad, token=token) == (400, b'{"error":"bad request"}')
    assert client.post("/secure-data", seal(key, b"not json"), token=token) == (400, b'{"error":"bad request"}')


def test_over_16_answers_only_a_last_byte_above_16_apart(servers):
    client, token, key = https_session(servers, "cbc-over-16")
    good = seal(key, b'{"oracle":"abcdefghijkl","pad":"abcdefghijkl"}')
    above = with_last_block_after(key, good, lambda raw: raw[-1] > 16)
    zero = with_last_block_after(key, good, lambda raw: raw[-1] == 0)
    assert client.post("/secure-data", above, token=token) == (400, b'{"error":"bad length"}')
    assert client.post("/secure-data", zero, token=token) == (400, b'{"error":"bad request"}')


def test_late_cause_bodies_are_equal_in_length_and_differ_past_byte_48(servers):
    client, token, key = https_session(servers, "cbc-late-cause")
    good = seal(key, b'{"oracle":"abcdefghijkl","pad":"abcdefghijkl"}')
    bad_padding = client.post("/secure-data", with_last_block_after(key, good, lambda raw: not valid_padding(raw)), token=token)[1]
    bad_json = client.post("/secure-data", seal(key, b"not json"), token=token)[1]
    assert len(bad_padding) == len(bad_json) and bad_padding != bad_json
    assert bad_padding[:48] == bad_json[:48] and b"padding" in bad_padding and b"content" in bad_json


def reason_of(port, key, token, envelope):
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=ssl.create_default_context(cafile=PINNED), timeout=DEADLINE)
    try:
        connection.request("POST", "/secure-data", body=json.dumps(envelope).encode(),
                           headers={"Content-Type": "application/json", "Authorization": token})
        response = connection.getresponse()
        return response.status, response.reason, response.read()
    finally:
        connection.close()


def test_reason_phrase_differs_only_in_the_status_line(servers):
    client, token, key = https_session(servers, "cbc-reason-phrase")
    good = seal(key, b'{"oracle":"abcdefghijkl","pad":"abcdefghijkl"}')
    port = servers("cbc-reason-phrase").port
    bad = reason_of(port, key, token, with_last_block_after(key, good, lambda raw: not valid_padding(raw)))
    text = reason_of(port, key, token, seal(key, b"not json"))
    assert bad == (400, "Bad Padding", b'{"error":"bad request"}') and text == (400, "Bad Request", b'{"error":"bad request"}')


def test_chained_iv_is_the_previous_responses_last_block(servers):
    client, token, key = https_session(servers, "chained-iv")
    status, body = client.post("/secure-data", seal(key, b'{"n":1}'), token=token)
    first = json.loads(body)
    (_, second_iv) = echo(client, token, key, {"n": 2})
    assert second_iv == base64.b64decode(first["data"])[-16:]


def test_request_id_refusals_differ_only_in_the_id_and_time(servers):
    client, token, key = https_session(servers, "https-request-id")
    answers = [client.exchange("/secure-data", seal(key, b"not json"), token=token) for _ in range(2)]
    assert answers[0][2]["x-request-id"] != answers[1][2]["x-request-id"]
    bodies = [json.loads(body) for _, body, _ in answers]
    assert bodies[0]["request_id"] != bodies[1]["request_id"]
    assert [{k: v for k, v in b.items() if k not in ("request_id", "time")} for b in bodies] == [{"error": "bad request"}] * 2
    assert echo(client, token, key, {"n": 1})[0] == {"echo": {"n": 1}}


def test_timing_answers_alike_but_later_after_a_valid_padding(servers):
    client, token, key = https_session(servers, "cbc-timing")
    good = seal(key, b'{"oracle":"abcdefghijkl","pad":"abcdefghijkl"}')
    bad = with_last_block_after(key, good, lambda raw: not valid_padding(raw))
    start = time.monotonic()
    assert client.post("/secure-data", seal(key, b"not json"), token=token) == (400, b'{"error":"bad request"}')
    assert time.monotonic() - start >= 0.15  # the planted sleep is a lower bound, not a measurement
    assert client.post("/secure-data", bad, token=token) == (400, b'{"error":"bad request"}')
