"""In-process sessions: rsa-socket machines and aes-https servers held between `handle` calls, and
the aes-https client's pure steps, as ops for the op table in handlers.py.

Each op is `fn(args) -> value`, where `args` holds exactly the op's declared argument names (None
when absent); failures raise CryptoFailure, which `handlers.handle` turns into `{"err": ...}`.
The registry is bounded: at most MAX_SESSIONS are open, and opening one more forgets the oldest,
so a long harness run that forgets `session.close` cannot leak memory.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Mapping, Union

from . import aes_https, rsa_socket
from .errors import CryptoFailure, ErrorKind

MAX_SESSIONS = 10_000
ROLES = ("rsa-socket.server", "rsa-socket.client", "aes-https.server")

Session = Union[rsa_socket.RsaSocketServer, rsa_socket.RsaSocketClient, aes_https.AesHttpsServer]


def _bad_input(detail: str) -> CryptoFailure:
    return CryptoFailure(ErrorKind.BAD_INPUT, detail)


class _Registry:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._next = 1
        self._sessions: OrderedDict[int, tuple[threading.Lock, Session]] = OrderedDict()

    def add(self, session: Session) -> int:
        with self._lock:
            sid = self._next
            self._next += 1
            self._sessions[sid] = (threading.Lock(), session)
            while len(self._sessions) > self.limit:
                self._sessions.popitem(last=False)
            return sid

    def get(self, sid: int) -> tuple[threading.Lock, Session]:
        with self._lock:
            entry = self._sessions.get(sid)
        if entry is None:
            raise _bad_input(f"no open session {sid} (closed, evicted, or never opened)")
        return entry

    def remove(self, sid: int) -> None:
        with self._lock:
            if self._sessions.pop(sid, None) is None:
                raise _bad_input(f"no open session {sid} (closed, evicted, or never opened)")

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)


REGISTRY = _Registry(MAX_SESSIONS)


# ---- argument checks -----------------------------------------------------------------------------


def _req(args: Mapping[str, Any], name: str, kind: type | tuple[type, ...], what: str) -> Any:
    value = args.get(name)
    if value is None:
        raise _bad_input(f"missing argument {name!r}")
    if isinstance(value, bool) and kind is int or not isinstance(value, kind):
        raise _bad_input(f"argument {name!r} must be {what}, got {type(value).__name__}")
    return value


def _opt(args: Mapping[str, Any], name: str, kind: type | tuple[type, ...], what: str) -> Any:
    return None if args.get(name) is None else _req(args, name, kind, what)


def _session_id(args: Mapping[str, Any]) -> int:
    return int(_req(args, "session", int, "an int"))


_SERVER_FIELDS = ("padding", "framing", "max_message", "digest", "private_key", "message", "quirk")
_CLIENT_FIELDS = ("direction", "padding", "framing", "max_message", "digest", "private_key", "plaintext",
                  "key_format", "quirk")
_AES_FIELDS = ("users", "key_mode", "encryption_key")


def _fields(config: Mapping[str, Any], allowed: tuple[str, ...], role: str) -> dict[str, Any]:
    unknown = sorted(str(k) for k in config if k not in allowed)
    if unknown:
        raise _bad_input(f"unknown {role} config field(s) {unknown}; allowed: {list(allowed)}")
    # None means "the default", as for op arguments.
    return {k: (bytes(v) if isinstance(v, bytearray) else v) for k, v in config.items() if v is not None}


def _open_session(role: str, config: Mapping[str, Any]) -> tuple[Session, list[rsa_socket.Action]]:
    try:
        if role == "rsa-socket.server":
            server = rsa_socket.RsaSocketServer(rsa_socket.ServerConfig(**_fields(config, _SERVER_FIELDS, role)))
            return server, server.start()
        if role == "rsa-socket.client":
            client = rsa_socket.RsaSocketClient(rsa_socket.ClientConfig(**_fields(config, _CLIENT_FIELDS, role)))
            return client, client.start()
        return aes_https.AesHttpsServer(aes_https.AesHttpsConfig(**_fields(config, _AES_FIELDS, role))), []
    except TypeError as exc:  # a required config field is missing
        raise _bad_input(f"{role} config: {exc}") from None


def _actions(actions: list[rsa_socket.Action]) -> list[dict[str, object]]:
    return [rsa_socket.action_to_dict(a) for a in actions]


# ---- the ops -------------------------------------------------------------------------------------


def session_open(args: Mapping[str, Any]) -> dict[str, object]:
    role = _req(args, "role", str, "a str")
    if role not in ROLES:
        raise CryptoFailure(ErrorKind.UNSUPPORTED, f"unknown role {role!r}; known: {', '.join(ROLES)}")
    config = _req(args, "config", dict, "a dict")
    session, actions = _open_session(role, config)
    return {"session": REGISTRY.add(session), "actions": _actions(actions)}


def _machine_step(args: Mapping[str, Any], step: Callable[[rsa_socket.Machine], list[rsa_socket.Action]]) -> dict[str, object]:
    lock, session = REGISTRY.get(_session_id(args))
    if not isinstance(session, (rsa_socket.RsaSocketServer, rsa_socket.RsaSocketClient)):
        raise _bad_input("not an rsa-socket session (aes-https sessions take session.request)")
    with lock:
        actions = step(session)
        return {"actions": _actions(actions), "closed": session.closed}


def session_receive(args: Mapping[str, Any]) -> dict[str, object]:
    data = bytes(_req(args, "data", (bytes, bytearray), "bytes"))
    return _machine_step(args, lambda m: m.receive(data))


def session_idle(args: Mapping[str, Any]) -> dict[str, object]:
    return _machine_step(args, lambda m: m.idle())


def session_request(args: Mapping[str, Any]) -> dict[str, object]:
    lock, session = REGISTRY.get(_session_id(args))
    if not isinstance(session, aes_https.AesHttpsServer):
        raise _bad_input("not an aes-https.server session (rsa-socket sessions take session.receive/idle)")
    request = _req(args, "request", dict, "a dict")
    with lock:
        return session.handle(request)


def session_close(args: Mapping[str, Any]) -> None:
    REGISTRY.remove(_session_id(args))


def client_login_request(args: Mapping[str, Any]) -> dict[str, object]:
    return aes_https.login_request(_req(args, "username", str, "a str"), _req(args, "password", str, "a str"))


def client_parse_login(args: Mapping[str, Any]) -> dict[str, object]:
    login = aes_https.parse_login(_req(args, "response", dict, "a dict"), _req(args, "key_mode", str, "a str"))
    return {"token": login.token, "encryption_key": login.encryption_key, "key": login.key}


def client_secure_request(args: Mapping[str, Any]) -> dict[str, object]:
    iv = _opt(args, "iv", (bytes, bytearray), "bytes")
    return aes_https.secure_request(
        _req(args, "token", str, "a str"),
        bytes(_req(args, "key", (bytes, bytearray), "bytes")),
        _req(args, "params", dict, "a dict"),
        None if iv is None else bytes(iv),
    )


def client_parse_secure(args: Mapping[str, Any]) -> dict[str, object]:
    return aes_https.parse_secure(
        _req(args, "response", dict, "a dict"), bytes(_req(args, "key", (bytes, bytearray), "bytes"))
    )


# Op name -> (function, declared argument names). handlers.py registers these.
OPS: dict[str, tuple[Callable[[Mapping[str, Any]], Any], tuple[str, ...]]] = {
    "session.open": (session_open, ("role", "config")),
    "session.receive": (session_receive, ("session", "data")),
    "session.idle": (session_idle, ("session",)),
    "session.request": (session_request, ("session", "request")),
    "session.close": (session_close, ("session",)),
    "aes-https.client.login_request": (client_login_request, ("username", "password")),
    "aes-https.client.parse_login": (client_parse_login, ("response", "key_mode")),
    "aes-https.client.secure_request": (client_secure_request, ("token", "key", "params", "iv")),
    "aes-https.client.parse_secure": (client_parse_secure, ("response", "key")),
}
