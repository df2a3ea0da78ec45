"""The rsa-socket profile as sans-I/O state machines: server and client roles, both directions.

docs/PROTOCOL.md, "rsa-socket conversations as implemented", is the specification. A machine is
given bytes (`receive`), told that the line has been quiet for a while (`idle`), and answers with
actions: `Send` (bytes already framed), `Close`, `Event`. It never raises: whatever arrives, the
answer is the spec'd behaviour (the server: `Server: ERROR` and close, one answer for every cause;
the client: a `failed` event and close). The socket shells, the in-process sessions and the tests
all drive these same machines.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Union

from . import rsa_cipher, rsa_keys
from .checks import check_field, one_of, typed
from .errors import CryptoFailure, ErrorKind, bad_input

PADDINGS = ("pkcs1", "oaep-sha1", "oaep-sha256")
FRAMINGS = ("legacy", "framed")
DIRECTIONS = ("phone-to-pi", "pi-to-phone")
# How a client writes its public key after `public_key=`: the iOS form (SPKI, 64-column lines, no
# final newline), the same plus `\n`, the same with `\r\n` line ends (still none after END), and
# bare PKCS#1 under `BEGIN RSA PUBLIC KEY` (iOS form otherwise).
KEY_FORMATS = ("spki-pem", "spki-pem-newline", "spki-pem-crlf", "pkcs1-pem")
SERVER_QUIRKS = ("tutorial-strip-crlf", "pkcs1-despite-oaep")
CLIENT_QUIRKS = ("wrong-pem-header",)
DEFAULT_MAX_MESSAGE = 65536
DEFAULT_MESSAGE = b"Secret message from RPi server"

HELLO = b"Client: OK"
KEY_PREFIX = b"public_key="
ENCRYPTED_PREFIX = b"encrypted_message="
OK = b"Server: OK"
DIGEST_PREFIX = b" sha256="
ERROR = b"Server: ERROR"
QUIT = b"Quit"
STOPPED = b"Server stopped\n"
FRAME_HEADER = 4
DIGEST_HEX = 64


# ---- actions -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Send:
    """Write these bytes (already framed) to the peer."""

    data: bytes


@dataclass(frozen=True)
class Close:
    """Close the connection; the machine reads nothing more."""


@dataclass(frozen=True)
class Event:
    """Something the harness should know; never on the wire."""

    name: str
    fields: Mapping[str, object] = field(default_factory=dict)


Action = Union[Send, Close, Event]


def action_to_dict(action: Action) -> dict[str, object]:
    """The boundary form: {"send": bytes} | {"close": True} | {"event": name, **fields}."""
    if isinstance(action, Send):
        return {"send": action.data}
    if isinstance(action, Close):
        return {"close": True}
    return {"event": action.name, **action.fields}


# ---- configuration -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServerConfig:
    """A server's configuration, checked when made (BadInput / Unsupported)."""

    padding: str
    framing: str
    private_key: bytes  # PEM (or DER) of the server's RSA private key
    max_message: int = DEFAULT_MAX_MESSAGE
    digest: bool = False
    message: bytes = DEFAULT_MESSAGE  # what the server encrypts for pi-to-phone
    quirk: Optional[str] = None  # test-only broken behaviour, one of SERVER_QUIRKS
    # A bad PKCS#1 v1.5 padding: "explicit" error (a Debian 12 / OpenSSL 3.0 Pi) or "implicit"
    # synthetic plaintext, answered `Server: OK` (an OpenSSL >= 3.2 Pi). See rsa_cipher.
    rejection: str = "explicit"

    def __post_init__(self) -> None:
        _check_common(self)
        check_field(self, "private_key", bytes)
        check_field(self, "message", bytes)
        one_of("rejection", self.rejection, rsa_cipher.REJECTIONS)
        if self.quirk is not None:
            one_of("quirk", self.quirk, SERVER_QUIRKS)


@dataclass(frozen=True)
class ClientConfig:
    """A client's configuration, checked when made: pi-to-phone needs `private_key`, phone-to-pi
    needs `plaintext`."""

    direction: str
    padding: str
    framing: str
    max_message: int = DEFAULT_MAX_MESSAGE
    digest: bool = False
    private_key: Optional[bytes] = None  # the client's key, for pi-to-phone
    plaintext: Optional[bytes] = None  # what the client encrypts, for phone-to-pi
    key_format: str = "spki-pem"
    quirk: Optional[str] = None  # test-only broken behaviour, one of CLIENT_QUIRKS

    def __post_init__(self) -> None:
        one_of("direction", self.direction, DIRECTIONS)
        _check_common(self)
        one_of("key_format", self.key_format, KEY_FORMATS)
        if self.quirk is not None:
            one_of("quirk", self.quirk, CLIENT_QUIRKS)
        check_field(self, "private_key", bytes, optional=True)
        check_field(self, "plaintext", bytes, optional=True)
        if self.direction == "pi-to-phone" and self.private_key is None:
            raise bad_input("a pi-to-phone client needs private_key")
        if self.direction == "phone-to-pi" and self.plaintext is None:
            raise bad_input("a phone-to-pi client needs plaintext")


def _check_common(config: Union[ServerConfig, ClientConfig]) -> None:
    one_of("padding", config.padding, PADDINGS)
    one_of("framing", config.framing, FRAMINGS)
    if not 1 <= typed("max_message", config.max_message, int) <= 1 << 30:
        raise bad_input(f"max_message must be in 1..2^30, got {config.max_message}")
    typed("digest", config.digest, bool)


def frame(payload: bytes, framing: str) -> bytes:
    """A message as it goes on the wire: as is (legacy) or behind a 4-byte big-endian length."""
    return len(payload).to_bytes(FRAME_HEADER, "big") + payload if framing == "framed" else payload


def ok_message(plaintext: bytes, digest: bool) -> bytes:
    if not digest:
        return OK
    return OK + DIGEST_PREFIX + hashlib.sha256(plaintext).hexdigest().encode("ascii")


# ---- public keys on the wire ---------------------------------------------------------------------

# Line ends are LF, CRLF or a lone CR (docs/PROTOCOL.md, "PEM line ends").
_PEM_BLOCK = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----(?:\r\n|\r|\n)(.*)-----END ([A-Z0-9 ]+)-----(?:\r\n|\r|\n)?\Z", re.S)


def import_wire_public_key(pem: bytes) -> rsa_keys.PublicKey:
    """A public key as sent after `public_key=`: one PEM block of a public-key label only
    (`PUBLIC KEY` = SPKI, `RSA PUBLIC KEY` = PKCS#1, each with its own structure), `\\n`, `\\r\\n`
    or `\\r` line ends, final line end optional."""
    m = _PEM_BLOCK.match(pem)
    if m is None:
        raise CryptoFailure(ErrorKind.BAD_KEY, "not a single PEM block")
    if m.group(1) != m.group(3):
        raise CryptoFailure(ErrorKind.BAD_KEY, "PEM BEGIN and END labels differ")
    if m.group(1) not in rsa_keys.PUBLIC_PEM_LABELS:
        raise CryptoFailure(ErrorKind.BAD_KEY, f"PEM label {m.group(1).decode()!r} is not a public key label")
    return rsa_keys.load_public(pem)  # which also refuses a body that is not what the label says


def wire_public_key(key: rsa_keys.PublicKey, key_format: str, wrong_pem_header: bool = False) -> bytes:
    """The PEM a client sends after `public_key=`, in one of KEY_FORMATS."""
    if wrong_pem_header:  # the quirk: an SPKI body under the PKCS#1 label
        return rsa_keys.ios_pem("RSA PUBLIC KEY", rsa_keys.export_public(key, "spki-der"))
    if key_format == "pkcs1-pem":
        return rsa_keys.export_public(key, "pkcs1-pem")
    spki = rsa_keys.export_public(key, "spki-pem")
    if key_format == "spki-pem-newline":
        return spki + b"\n"
    if key_format == "spki-pem-crlf":
        return spki.replace(b"\n", b"\r\n")
    return spki


# ---- reading messages ----------------------------------------------------------------------------
#
# A matcher looks at the start of the buffer and says: `_Done` (a complete message of `end` bytes),
# `_NEED` (could still become one), or None (these bytes cannot begin it). `final` means no more bytes
# are coming for this message: a quiet gap (legacy) or the end of a frame (framed).


@dataclass(frozen=True)
class _Done:
    end: int
    kind: str
    value: object = None


@dataclass(frozen=True)
class _Bad:
    reason: str


class _Need:
    pass


_NEED = _Need()
_Result = Union[_Done, _Need, None]
_CR_LF = (0x0D, 0x0A)
_END_LINE = re.compile(rb"-----END [A-Z0-9 ]{1,80}-----")
_END_SCAN_MARGIN = 96  # > the longest END line the pattern matches, for incremental scanning


@dataclass(frozen=True)
class _Matcher:
    kind: str  # what the message is called in reasons and by the state machine
    match: Callable[[bytearray, bool, int], _Result]  # (buffer, final, bytes already scanned)


def _prefix_state(buf: bytearray, start: int, literal: bytes) -> Optional[bool]:
    """True: `literal` is at `start`; False: a proper prefix of it is; None: something else is."""
    have = buf[start : start + len(literal)]
    if have != literal[: len(have)]:
        return None
    return len(have) == len(literal)


def _literal(kind: str, literal: bytes, optional_tail: bytes = b"") -> _Matcher:
    def match(buf: bytearray, final: bool, scanned: int) -> _Result:
        state = _prefix_state(buf, 0, literal)
        if state is None:
            return None
        if not state:
            return _NEED
        end = len(literal)
        if optional_tail and buf[end : end + len(optional_tail)] == optional_tail:
            end += len(optional_tail)
        return _Done(end, kind)

    return _Matcher(kind, match)


def _pem_after(kind: str, prefix: bytes) -> _Matcher:
    begin = b"-----BEGIN "

    def match(buf: bytearray, final: bool, scanned: int) -> _Result:
        state = _prefix_state(buf, 0, prefix)
        if not state:
            return None if state is None else _NEED
        body = len(prefix)
        state = _prefix_state(buf, body, begin)
        if not state:
            return None if state is None else _NEED
        m = _END_LINE.search(buf, max(body + len(begin), scanned - _END_SCAN_MARGIN))
        if m is None:
            return _NEED
        end = m.end()
        if buf[end : end + 2] == b"\r\n":
            end += 2
        elif buf[end : end + 1] in (b"\n", b"\r"):  # a lone CR is a line end too
            end += 1
        return _Done(end, kind, bytes(buf[body:end]))

    return _Matcher(kind, match)


def _fixed_after(kind: str, prefix: bytes, k: int) -> _Matcher:
    def match(buf: bytearray, final: bool, scanned: int) -> _Result:
        state = _prefix_state(buf, 0, prefix)
        if not state:
            return None if state is None else _NEED
        if len(buf) < len(prefix) + k:
            return _NEED
        return _Done(len(prefix) + k, kind, bytes(buf[len(prefix) : len(prefix) + k]))

    return _Matcher(kind, match)


def _raw(kind: str, k: int) -> _Matcher:
    def match(buf: bytearray, final: bool, scanned: int) -> _Result:
        return _Done(k, kind, bytes(buf[:k])) if len(buf) >= k else _NEED

    return _Matcher(kind, match)


def _error_at_gap() -> _Matcher:
    """`Server: ERROR` where raw bytes are expected: recognised only as a whole frame or as all
    that arrived before a quiet gap, since raw bytes are never searched for text."""

    def match(buf: bytearray, final: bool, scanned: int) -> _Result:
        return _Done(len(ERROR), "error") if final and buf == ERROR else None

    return _Matcher("error", match)


_HEX = frozenset(b"0123456789abcdef")


def _ok(want_digest: bool) -> _Matcher:
    def match(buf: bytearray, final: bool, scanned: int) -> _Result:
        state = _prefix_state(buf, 0, OK)
        if not state:
            return None if state is None else _NEED
        if not want_digest:
            return _Done(len(OK), "ok")
        start = len(OK)
        if len(buf) == start:  # nothing after `Server: OK` yet: a digest may follow, or nothing
            return _Done(start, "ok") if final else _NEED
        state = _prefix_state(buf, start, DIGEST_PREFIX)
        if not state:
            return None if state is None else _NEED
        hex_start = start + len(DIGEST_PREFIX)
        digits = buf[hex_start : hex_start + DIGEST_HEX]
        if not all(c in _HEX for c in digits):
            return None
        if len(digits) < DIGEST_HEX:
            return _NEED
        return _Done(hex_start + DIGEST_HEX, "ok", digits.decode("ascii"))

    return _Matcher("ok", match)


class _Reader:
    """Cuts the incoming byte stream into messages, by framing or by the legacy rules."""

    def __init__(self, framing: str, max_message: int) -> None:
        self._framed = framing == "framed"
        self._max = max_message
        self._buf = bytearray()
        self._scanned = 0  # bytes of the current (incomplete) message already searched

    def feed(self, data: bytes) -> None:
        self._buf += data

    def next(self, matchers: tuple[_Matcher, ...], text: bool, final: bool) -> Union[_Done, _Need, _Bad]:
        """One message off the front of the buffer; `text`: the message starts with text, so
        leftover `\\r`/`\\n` before it are skipped (legacy only)."""
        if self._framed:
            return self._next_framed(matchers, final)
        if text:
            skip = 0
            while skip < len(self._buf) and self._buf[skip] in _CR_LF:
                skip += 1
            if skip:
                del self._buf[:skip]
                self._scanned = 0
        if not self._buf:
            return _NEED
        result = _first(matchers, self._buf, final, self._scanned)
        if isinstance(result, _Done):
            del self._buf[: result.end]
            self._scanned = 0
            return result
        if isinstance(result, _Bad):
            return result
        if final:
            return _Bad(f"incomplete {_names(matchers)} at a quiet gap ({len(self._buf)} bytes)")
        if len(self._buf) > self._max:
            return _Bad(f"more than {self._max} bytes buffered without a complete message")
        self._scanned = len(self._buf)
        return _NEED

    def _next_framed(self, matchers: tuple[_Matcher, ...], final: bool) -> Union[_Done, _Need, _Bad]:
        if len(self._buf) < FRAME_HEADER:
            if final and self._buf:
                return _Bad("incomplete frame header at a quiet gap")
            return _NEED
        n = int.from_bytes(self._buf[:FRAME_HEADER], "big")
        if n == 0:
            return _Bad("frame of length 0")
        if n > self._max:
            return _Bad(f"frame of length {n} is over the limit {self._max}")
        if len(self._buf) < FRAME_HEADER + n:
            if final:
                return _Bad(f"incomplete frame at a quiet gap ({len(self._buf) - FRAME_HEADER} of {n} bytes)")
            return _NEED
        payload = bytearray(self._buf[FRAME_HEADER : FRAME_HEADER + n])
        result = _first(matchers, payload, True, 0)
        if isinstance(result, _Done) and result.end != n:
            return _Bad(f"{n - result.end} unexpected bytes after {result.kind} in a frame")
        if isinstance(result, _Done):
            del self._buf[: FRAME_HEADER + n]
        elif not isinstance(result, _Bad):
            result = _Bad(f"a frame of {n} bytes that is not a complete {_names(matchers)}")
        return result


def _names(matchers: tuple[_Matcher, ...]) -> str:
    return " or ".join(m.kind for m in matchers)


def _first(matchers: tuple[_Matcher, ...], buf: bytearray, final: bool, scanned: int) -> Union[_Done, _Need, _Bad]:
    need = False
    for m in matchers:
        result = m.match(buf, final, scanned)
        if isinstance(result, _Done):
            return result
        need = need or result is _NEED
    return _NEED if need else _Bad(f"bytes that cannot begin {_names(matchers)}")


def _reason(exc: BaseException) -> str:
    if isinstance(exc, CryptoFailure):
        return f"{exc.kind.value}: {exc.detail}"
    return f"Internal: {type(exc).__name__}: {exc}"


# ---- the server ----------------------------------------------------------------------------------


class _Party:
    """What the Pi's machine and the phone's share: a reader that cuts the incoming bytes into
    messages, and the rule that a machine never raises (any failure becomes its `_fail` actions)
    and reads nothing after closing. Each side says what it expects next (`_expect`), what a
    message does (`_on_message`), and how it fails (`_fail`)."""

    def __init__(self, framing: str, max_message: int) -> None:
        self._framing = framing
        self._reader = _Reader(framing, max_message)
        self._state = ""
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def receive(self, data: bytes) -> list[Action]:
        if self._closed:
            return []
        try:
            self._reader.feed(self._as_read(bytes(data)))
            return self._pump(final=False)
        except Exception as exc:  # noqa: BLE001 -- the machine never raises
            return self._fail(_reason(exc))

    def idle(self) -> list[Action]:
        if self._closed:
            return []
        try:
            return self._pump(final=True)
        except Exception as exc:  # noqa: BLE001
            return self._fail(_reason(exc))

    def _as_read(self, data: bytes) -> bytes:
        """The bytes as this side's reader takes them (the server's tutorial quirk changes them)."""
        return data

    def _send(self, payload: bytes) -> Send:
        return Send(frame(payload, self._framing))

    def _pump(self, final: bool) -> list[Action]:
        out: list[Action] = []
        while not self._closed:
            matchers, text = self._expect()
            result = self._reader.next(matchers, text, final)
            if isinstance(result, _Need):
                break
            if isinstance(result, _Bad):
                out += self._fail(self._unreadable(result.reason))
                break
            out += self._on_message(result)
        return out

    def _unreadable(self, reason: str) -> str:
        """The failure's reason for a message the reader refused."""
        return reason

    def _expect(self) -> tuple[tuple[_Matcher, ...], bool]:
        raise NotImplementedError

    def _on_message(self, msg: _Done) -> list[Action]:
        raise NotImplementedError

    def _fail(self, reason: str) -> list[Action]:
        raise NotImplementedError


class RsaSocketServer(_Party):
    """The Raspberry Pi side. States: first -> (phone-to-pi) encrypted -> quit, or
    (pi-to-phone) quit; any failure: `Server: ERROR`, close. Reads nothing after closing."""

    def __init__(self, config: ServerConfig) -> None:
        self._config = config
        self._key = rsa_keys.load_private(config.private_key)
        self._k = rsa_cipher.modulus_bytes(self._key.key_size)
        self._key_message = KEY_PREFIX + rsa_keys.export_public(self._key.public_key(), "spki-pem") + b"\n"
        super().__init__(config.framing, config.max_message)
        self._state = "first"

    def start(self) -> list[Action]:
        return []  # the client speaks first

    def _as_read(self, data: bytes) -> bytes:
        if self._config.quirk == "tutorial-strip-crlf":
            return data.replace(b"\r\n", b"")  # the tutorial's per-read data.replace("\r\n", "")
        return data

    def _fail(self, reason: str) -> list[Action]:
        if self._closed:
            return []
        self._closed = True
        self._state = "done"
        return [Event("error", {"reason": reason}), self._send(ERROR), Close()]

    def _expect(self) -> tuple[tuple[_Matcher, ...], bool]:
        if self._state == "first":
            return (_literal("hello", HELLO), _pem_after("client key", KEY_PREFIX)), True
        if self._state == "encrypted":
            return (_fixed_after("encrypted", ENCRYPTED_PREFIX, self._k),), True
        return (_literal("quit", QUIT),), True

    def _on_message(self, msg: _Done) -> list[Action]:
        if msg.kind == "hello":
            self._state = "encrypted"
            return [self._send(self._key_message)]
        if msg.kind == "client key":
            try:
                client_key = import_wire_public_key(msg.value)  # type: ignore[arg-type]
                padding = "pkcs1" if self._config.quirk == "pkcs1-despite-oaep" else self._config.padding
                ciphertext = rsa_cipher.encrypt(client_key, padding, self._config.message)
            except Exception as exc:  # noqa: BLE001
                return self._fail(f"client key: {_reason(exc)}")
            self._state = "quit"
            return [self._send(ciphertext), Event("sent-ciphertext")]
        if msg.kind == "encrypted":
            try:
                plaintext = rsa_cipher.decrypt(self._key, self._config.padding, msg.value,  # type: ignore[arg-type]
                                               rejection=self._config.rejection)
            except Exception as exc:  # noqa: BLE001
                return self._fail(_reason(exc))
            self._state = "quit"
            return [Event("decrypted", {"plaintext": plaintext}), self._send(ok_message(plaintext, self._config.digest))]
        # quit
        self._closed = True
        self._state = "done"
        return [Event("quit"), self._send(STOPPED), Close()]


# ---- the client ----------------------------------------------------------------------------------


class RsaSocketClient(_Party):
    """The phone side. phone-to-pi: hello, server key, encrypted, ok|error, quit, stopped.
    pi-to-phone: client key, ciphertext, quit, stopped. Failures: a `failed` event and close."""

    def __init__(self, config: ClientConfig) -> None:
        super().__init__(config.framing, config.max_message)
        self._config = config
        self._key: Optional[rsa_keys.PrivateKey] = None
        if config.direction == "pi-to-phone" and config.private_key is not None:
            self._key = rsa_keys.load_private(config.private_key)
            self._state = "ciphertext"
        else:
            self._state = "server key"
        self._started = False

    def start(self) -> list[Action]:
        if self._started or self._closed:
            return []
        self._started = True
        try:
            if self._key is None:
                return [self._send(HELLO)]
            pem = wire_public_key(
                self._key.public_key(), self._config.key_format, self._config.quirk == "wrong-pem-header"
            )
            return [self._send(KEY_PREFIX + pem)]
        except Exception as exc:  # noqa: BLE001
            return self._fail(_reason(exc))

    def _finish(self, *events: Event) -> list[Action]:
        self._closed = True
        self._state = "done"
        return [*events, Close()]

    def _fail(self, reason: str) -> list[Action]:
        if self._closed:
            return []
        return self._finish(Event("failed", {"reason": reason}))

    def _expect(self) -> tuple[tuple[_Matcher, ...], bool]:
        error = _literal("error", ERROR)
        if self._state == "server key":
            return (_pem_after("server key", KEY_PREFIX), error), True
        if self._state == "ok":
            return (_ok(self._config.digest), error), True
        if self._state == "ciphertext":
            assert self._key is not None
            return (_error_at_gap(), _raw("ciphertext", rsa_cipher.modulus_bytes(self._key.key_size))), False
        return (_literal("stopped", STOPPED[:-1], b"\n"), error), True

    def _unreadable(self, reason: str) -> str:
        return f"{self._state}: {reason}"

    def _on_message(self, msg: _Done) -> list[Action]:
        if msg.kind == "error":
            return self._finish(Event("server-error"))
        if msg.kind == "server key":
            try:
                server_key = import_wire_public_key(msg.value)  # type: ignore[arg-type]
            except Exception as exc:  # noqa: BLE001
                return self._fail(f"server key: {_reason(exc)}")
            try:
                assert self._config.plaintext is not None
                ciphertext = rsa_cipher.encrypt(server_key, self._config.padding, self._config.plaintext)
            except Exception as exc:  # noqa: BLE001
                return self._fail(f"encrypt: {_reason(exc)}")
            self._state = "ok"
            return [self._send(ENCRYPTED_PREFIX + ciphertext)]
        if msg.kind == "ok":
            fields: dict[str, object] = {}
            if msg.value is not None:
                assert self._config.plaintext is not None
                expected = hashlib.sha256(self._config.plaintext).hexdigest()
                fields = {"digest": msg.value, "verified": msg.value == expected}
            self._state = "stopped"
            return [Event("server-ok", fields), self._send(QUIT)]
        if msg.kind == "ciphertext":
            return self._on_ciphertext(msg.value)  # type: ignore[arg-type]
        # stopped
        return self._finish(Event("server-stopped"))

    def _on_ciphertext(self, ciphertext: bytes) -> list[Action]:
        assert self._key is not None
        try:
            plaintext = rsa_cipher.decrypt(self._key, self._config.padding, ciphertext)
        except CryptoFailure as exc:
            return self._fail(f"ciphertext: {exc.detail} with {self._config.padding}{self._which_padding(ciphertext)}")
        except Exception as exc:  # noqa: BLE001
            return self._fail(f"ciphertext: {_reason(exc)}")
        self._state = "stopped"
        return [Event("decrypted", {"plaintext": plaintext}), self._send(QUIT)]

    def _which_padding(self, ciphertext: bytes) -> str:
        """Which other padding the server used, for the failure reason (the spec's 'a client can
        find out which padding the server used by trying each')."""
        assert self._key is not None
        for padding in PADDINGS:
            if padding == self._config.padding:
                continue
            try:
                rsa_cipher.decrypt(self._key, padding, ciphertext)
            except Exception:  # noqa: BLE001
                continue
            return f" (it decrypts with {padding})"
        return ""


Machine = Union[RsaSocketServer, RsaSocketClient]


# ---- driving two machines in memory --------------------------------------------------------------


@dataclass
class Transcript:
    """What two machines did when driven against each other: every action in order, per side."""

    client: list[Action] = field(default_factory=list)
    server: list[Action] = field(default_factory=list)

    @staticmethod
    def _events(actions: list[Action]) -> list[Event]:
        return [a for a in actions if isinstance(a, Event)]

    @property
    def client_events(self) -> list[Event]:
        return self._events(self.client)

    @property
    def server_events(self) -> list[Event]:
        return self._events(self.server)

    @staticmethod
    def _sent(actions: list[Action]) -> list[bytes]:
        return [a.data for a in actions if isinstance(a, Send)]

    @property
    def client_sent(self) -> list[bytes]:
        return self._sent(self.client)

    @property
    def server_sent(self) -> list[bytes]:
        return self._sent(self.server)


def converse(client: Machine, server: Machine, chunk: Optional[int] = None, max_steps: int = 1_000_000) -> Transcript:
    """Run a conversation in memory. Each `Send` is delivered as one `receive` (or cut into
    `chunk`-byte pieces); when both directions are drained, both sides get `idle()` (the quiet
    gap); a side that closed stops receiving, and the other then sees only quiet gaps."""
    log = Transcript()
    inbox: dict[int, list[bytes]] = {0: [], 1: []}  # 0: to the client, 1: to the server
    machines = (client, server)
    logs = (log.client, log.server)

    def take(side: int, actions: list[Action]) -> None:
        logs[side].extend(actions)
        for a in actions:
            if isinstance(a, Send):
                data = a.data
                step = chunk or max(len(data), 1)
                inbox[1 - side].extend(data[i : i + step] for i in range(0, len(data), step))

    take(1, server.start())
    take(0, client.start())
    for _ in range(max_steps):
        for side in (0, 1):
            if inbox[side]:
                data = inbox[side].pop(0)
                take(side, machines[side].receive(data))
                break
        else:
            before = (len(log.client), len(log.server))
            take(0, client.idle())
            take(1, server.idle())
            if not inbox[0] and not inbox[1] and (len(log.client), len(log.server)) == before:
                return log
    raise RuntimeError("conversation did not settle")


def conversation_succeeded(direction: str, events: list[Event]) -> bool:
    """A client's whole conversation went right: the plaintext came through (pi-to-phone: decrypted;
    phone-to-pi: server-ok, its digest not wrong), the server stopped, and nothing failed."""
    names = [e.name for e in events]
    if "failed" in names or "server-error" in names or "server-stopped" not in names:
        return False
    if direction == "pi-to-phone":
        return "decrypted" in names
    oks = [e for e in events if e.name == "server-ok"]
    return bool(oks) and all(e.fields.get("verified") is not False for e in oks)
