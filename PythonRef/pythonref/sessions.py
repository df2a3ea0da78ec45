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
from typing import Any, Callable, Union

from . import aes_https, rsa_socket
from .checks import build
from .errors import bad_input

MAX_SESSIONS = 10_000
ROLES = ("rsa-socket.server", "rsa-socket.client", "aes-https.server")

Session = Union[rsa_socket.RsaSocketServer, rsa_socket.RsaSocketClient, aes_https.AesHttpsServer]


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


def close(sid: int) -> None:
    REGISTRY.remove(sid)
