"""In-process sessions: rsa-socket machines and aes-https servers kept between `handle` calls.

The session ops in handlers.py call these functions. A session is opened from a role and a
configuration dict, then driven by id: rsa-socket machines with `receive`/`idle` (their actions come
back in the boundary form of `rsa_socket.action_to_dict`), aes-https servers with `request`.
The registry is bounded: at most MAX_SESSIONS are open, and opening one more forgets the oldest,
so a long harness run that forgets `session.close` cannot leak memory.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Optional, Union

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, x25519

from . import aes_https, described as described_engine, rsa_keys, rsa_socket
from .checks import build
from .errors import CryptoFailure, bad_input

MAX_SESSIONS = 10_000
ROLES = ("rsa-socket.server", "rsa-socket.client", "aes-https.server")

Session = Union[rsa_socket.RsaSocketServer, rsa_socket.RsaSocketClient, aes_https.AesHttpsServer, described_engine.Party]


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
            raise bad_input(f"no open session {sid} (closed, evicted, or never opened)")
        return entry

    def remove(self, sid: int) -> None:
        with self._lock:
            if self._sessions.pop(sid, None) is None:
                raise bad_input(f"no open session {sid} (closed, evicted, or never opened)")

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)


REGISTRY = _Registry(MAX_SESSIONS)


def _actions(actions: list[rsa_socket.Action]) -> list[dict[str, object]]:
    return [rsa_socket.action_to_dict(a) for a in actions]


def open_session(role: str, config: dict[str, Any]) -> tuple[int, list[dict[str, object]]]:
    """A new session of `role` (one of ROLES) from its configuration's fields (None: the default);
    its id and the actions its machine starts with."""
    what = f"{role} config field"
    if role == "rsa-socket.server":
        server = rsa_socket.RsaSocketServer(build(rsa_socket.ServerConfig, config, what))
        return REGISTRY.add(server), _actions(server.start())
    if role == "rsa-socket.client":
        client = rsa_socket.RsaSocketClient(build(rsa_socket.ClientConfig, config, what))
        return REGISTRY.add(client), _actions(client.start())
    return REGISTRY.add(aes_https.AesHttpsServer(build(aes_https.AesHttpsConfig, config, what))), []


def _step(sid: int, step: Callable[[rsa_socket.Machine], list[rsa_socket.Action]]) -> dict[str, object]:
    lock, session = REGISTRY.get(sid)
    if isinstance(session, aes_https.AesHttpsServer):
        raise bad_input("not an rsa-socket session (aes-https sessions take session.request)")
    with lock:
        actions = step(session)
        return {"actions": _actions(actions), "closed": session.closed}


def receive(sid: int, data: bytes) -> dict[str, object]:
    return _step(sid, lambda machine: machine.receive(data))


def idle(sid: int) -> dict[str, object]:
    return _step(sid, lambda machine: machine.idle())


def request(sid: int, request: dict[str, Any]) -> dict[str, object]:
    lock, session = REGISTRY.get(sid)
    if not isinstance(session, aes_https.AesHttpsServer):
        raise bad_input("not an aes-https.server session (rsa-socket sessions take session.receive/idle)")
    with lock:
        return session.handle(request)


# ---- described protocols -------------------------------------------------------------------------
# A description file is read once per (path, modification time): the Swift side opens a party per
# conversation, thousands in a run, and reading the TOML each time would be most of the cost.
_DESCRIPTIONS: dict[tuple[str, int], described_engine.Description] = {}
_DESCRIPTIONS_LOCK = threading.Lock()


def described_description(path: str) -> described_engine.Description:
    import os

    try:
        key = (path, os.stat(path).st_mtime_ns)
    except OSError as exc:
        raise bad_input(f"cannot read the description {path}: {exc.strerror}") from None
    with _DESCRIPTIONS_LOCK:
        found = _DESCRIPTIONS.get(key)
    if found is None:
        try:
            found = described_engine.load(path)
        except described_engine.DescriptionError as exc:
            raise bad_input(str(exc)) from None
        with _DESCRIPTIONS_LOCK:
            _DESCRIPTIONS[key] = found
    return found


# Keys loaded from PEM text, by that text: a harness opens thousands of parties with the same few
# keys, and loading (with its checks) costs more than a conversation's RSA. Bounded like the registry.
_KEYS: OrderedDict[tuple[str, bool], Any] = OrderedDict()
_KEYS_LIMIT = 256


def _loaded_key(pem: str, private: bool, toy: bool = False) -> Any:
    """`toy`: the description's key is a toy key (bits 8 to 15), and the RSA key must be one."""
    with _DESCRIPTIONS_LOCK:
        key = _KEYS.get((pem, toy))
    if key is None:
        raw = pem.encode("ascii")
        # An EC or X25519 key (an ec-p256/ec-p384/x25519 description key) as pyca loads it; an RSA key
        # through rsa_keys' strict rules.
        loaded = serialization.load_pem_private_key(raw, None) if private else serialization.load_pem_public_key(raw)
        if isinstance(loaded, (ec.EllipticCurvePrivateKey, ec.EllipticCurvePublicKey,
                               x25519.X25519PrivateKey, x25519.X25519PublicKey)):
            key = loaded
        else:
            key = (rsa_keys.load_private if private else rsa_keys.load_public)(raw, toy=toy)
        with _DESCRIPTIONS_LOCK:
            _KEYS[(pem, toy)] = key
            while len(_KEYS) > _KEYS_LIMIT:
                _KEYS.popitem(last=False)
    return key


def open_described(path: str, conversation: Optional[str], role: str, private_keys: dict[str, Any],
                   known_public_keys: dict[str, Any], secrets: dict[str, Any], message: Optional[bytes],
                   config: dict[str, Any]) -> int:
    """A party of `role` for the description at `path`; keys come as PEM text (private: PKCS#8)."""
    for what, table, kind in (("private_keys", private_keys, str), ("known_public_keys", known_public_keys, str),
                              ("secrets", secrets, bytes), ("config", config, str)):
        if not all(isinstance(k, str) and isinstance(v, kind) for k, v in table.items()):
            raise bad_input(f"{what} must map names to {kind.__name__}")
    try:
        description = described_description(path)
        toy = {k.name for k in description.keys if k.type == "rsa" and k.bits in rsa_keys.TOY_BITS}
        party = described_engine.Party(
            description, conversation, role,
            private_keys={name: _loaded_key(pem, True, name in toy) for name, pem in private_keys.items()},
            known_public_keys={name: _loaded_key(pem, False, name in toy) for name, pem in known_public_keys.items()},
            secrets={name: bytes(value) for name, value in secrets.items()}, message=message,
            config={str(k): str(v) for k, v in config.items()})
    except (ValueError, UnicodeError, described_engine.DescriptionError) as exc:
        raise bad_input(f"cannot open a {role} party: {exc}") from None
    except CryptoFailure as exc:
        raise bad_input(f"cannot open a {role} party: a key does not load: {exc.detail}") from None
    return REGISTRY.add(party)


def _party(sid: int) -> tuple[threading.Lock, described_engine.Party]:
    lock, session = REGISTRY.get(sid)
    if not isinstance(session, described_engine.Party):
        raise bad_input("not a described session (described.open makes one)")
    return lock, session


def described(sid: int, action: Callable[[described_engine.Party], Any]) -> Any:
    lock, party = _party(sid)
    with lock:
        return action(party)


def described_receive(sid: int, message: Any) -> Optional[str]:
    """None when the party took the message; the reason when it refused it."""
    lock, party = _party(sid)
    with lock:
        try:
            party.receive(message)
        except described_engine.Refused as exc:
            return str(exc) or "refused"
        return None


def described_state(party: described_engine.Party) -> dict[str, object]:
    """Whether it is done, and what it learned, as bytes (the Swift side compares bytes)."""
    learned = {name: value for name, value in party.received.items() if isinstance(value, bytes)}
    return {"done": party.done, "received": learned}


def close(sid: int) -> None:
    REGISTRY.remove(sid)
