"""The rsa-socket machines on real TCP sockets: a threaded server and a one-conversation client.

Only I/O lives here; every protocol decision is the machine's. Each read has a deadline: in legacy
framing a quiet gap (no bytes for `quiet_gap` seconds) is reported to the machine as `idle()`, which
is how it finds an incomplete message; every connection also has a whole-conversation deadline,
where the machine gets a last `idle()` and the connection is closed. Reads are at most 64 KiB at a
time and the machine refuses more than its message limit, so a 10 MB message is refused by size
without ever being held in memory.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Callable, Optional

from . import rsa_socket
from .rsa_socket import Action, Close, Event, Send

DEFAULT_TIMEOUT = 10.0  # seconds for a whole conversation
DEFAULT_QUIET_GAP = 0.3  # seconds of silence that end a legacy message
DEFAULT_MAX_CLIENTS = 64
LINGER = 1.0  # seconds to drain a peer that is still sending after we are done, so it reads our answer
READ_SIZE = 65536

EventSink = Callable[[Event], None]


def drive(sock: socket.socket, machine: rsa_socket.Machine, *, legacy: bool, timeout: float, quiet_gap: float,
          on_event: EventSink) -> str:
    """Run one machine on one connected socket until it closes, the peer closes, or the deadline.
    Returns what ended it: "closed" (the machine closed on its own), "eof" (the peer closed; the
    machine had a last `idle()`), "deadline" (the conversation deadline came; the same last
    `idle()`), or "io error: ...". Never raises for anything the peer does."""
    deadline = time.monotonic() + timeout

    def perform(actions: list[Action]) -> None:
        for action in actions:
            if isinstance(action, Send):
                sock.settimeout(max(deadline - time.monotonic(), 0.05))
                sock.sendall(action.data)
            elif isinstance(action, Event):
                on_event(action)
            elif isinstance(action, Close):
                pass  # the loop below sees machine.closed

    try:
        perform(machine.start())
        while not machine.closed:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                perform(machine.idle())
                return "deadline"
            sock.settimeout(min(remaining, quiet_gap) if legacy else remaining)
            try:
                data = sock.recv(READ_SIZE)
            except socket.timeout:  # a quiet gap (legacy), or the deadline
                perform(machine.idle())
                if time.monotonic() >= deadline:
                    return "deadline"
                continue
            if not data:
                perform(machine.idle())  # whatever is buffered is all there will be
                return "eof"
            perform(machine.receive(data))
        return "closed"
    except OSError as exc:
        return f"io error: {type(exc).__name__}: {exc}"


def linger_close(sock: socket.socket, seconds: float = LINGER) -> None:
    """Half-close, then drain (and discard) what the peer is still sending for a moment before
    closing: closing with unread bytes would send a reset that can destroy our last answer."""
    try:
        sock.shutdown(socket.SHUT_WR)
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            sock.settimeout(left)
            if not sock.recv(READ_SIZE):
                break
    except OSError:
        pass
    finally:
        sock.close()


def _peer(addr: object) -> str:
    try:
        host, port = addr[:2]  # type: ignore[index]
        return f"{host}:{port}"
    except Exception:  # noqa: BLE001
        return str(addr)


# ---- the server ----------------------------------------------------------------------------------


def serve(config: rsa_socket.ServerConfig, host: str, port: int, *, timeout: float = DEFAULT_TIMEOUT,
          quiet_gap: float = DEFAULT_QUIET_GAP, max_clients: int = DEFAULT_MAX_CLIENTS,
          ready: Callable[[str, int], None], log: Callable[[dict[str, object]], None]) -> None:
    """Accept connections forever, one thread and one fresh server machine each."""
    rsa_socket.RsaSocketServer(config)  # refuse a bad configuration before binding
    listener = socket.create_server((host, port), backlog=128)
    try:
        bound_host, bound_port = listener.getsockname()[:2]
        ready(bound_host, bound_port)
        slots = threading.BoundedSemaphore(max_clients)
        while True:
            try:
                conn, addr = listener.accept()
            except OSError as exc:  # e.g. out of file descriptors: back off a little and go on
                log({"event": "accept-failed", "reason": str(exc)})
                time.sleep(0.05)
                continue
            if not slots.acquire(blocking=False):
                log({"peer": _peer(addr), "event": "refused", "reason": f"{max_clients} clients already"})
                conn.close()
                continue
            thread = threading.Thread(target=_serve_one, args=(conn, addr, config, timeout, quiet_gap, slots, log),
                                      daemon=True)
            thread.start()
    finally:
        listener.close()


def _serve_one(conn: socket.socket, addr: object, config: rsa_socket.ServerConfig, timeout: float,
               quiet_gap: float, slots: threading.BoundedSemaphore,
               log: Callable[[dict[str, object]], None]) -> None:
    peer = _peer(addr)
    try:
        machine = rsa_socket.RsaSocketServer(config)
        log({"peer": peer, "event": "connected"})
        why = drive(conn, machine, legacy=config.framing == "legacy", timeout=timeout, quiet_gap=quiet_gap,
                    on_event=lambda e: log({"peer": peer, "event": e.name, **e.fields}))
        log({"peer": peer, "event": "disconnected", "why": why})
    except Exception as exc:  # noqa: BLE001 -- one bad connection never takes the server down
        log({"peer": peer, "event": "internal-error", "reason": f"{type(exc).__name__}: {exc}"})
    finally:
        linger_close(conn)
        slots.release()


# ---- the client ----------------------------------------------------------------------------------


def run_client(config: rsa_socket.ClientConfig, host: str, port: int, *, timeout: float = DEFAULT_TIMEOUT,
               quiet_gap: float = DEFAULT_QUIET_GAP, on_event: Optional[EventSink] = None) -> list[Event]:
    """One conversation as the client; returns its events. A conversation the machine did not
    finish (refused connection, peer closed early, deadline) ends with a `failed` event."""
    events: list[Event] = []

    def record(event: Event) -> None:
        events.append(event)
        if on_event is not None:
            on_event(event)

    machine = rsa_socket.RsaSocketClient(config)
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        record(Event("failed", {"reason": f"connect: {type(exc).__name__}: {exc}"}))
        return events
    try:
        why = drive(sock, machine, legacy=config.framing == "legacy", timeout=timeout, quiet_gap=quiet_gap,
                    on_event=record)
    finally:
        sock.close()
    if not machine.closed:
        record(Event("failed", {"reason": f"conversation ended unfinished: {why}"}))
    return events
