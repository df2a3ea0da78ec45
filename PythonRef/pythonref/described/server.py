"""Thin shells around described parties: a threaded TCP server, an HTTP(S) server and a client
runner. Every read has a deadline and every size a bound; the parties decide everything else.

TCP: one thread and one server Party per connection; a refused message is answered with the
conversation's error value and the connection closed. HTTP: a conversation spans requests, and
the same connection (keep-alive) or a token the party issued (a client that reconnects per
request, as seed 001's does) leads a request to its party.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable, Mapping, Optional


from .. import aes_https, https_shell
from ..socket_shell import linger_close
from .description import Description
from .framing import FramingError, Reader, frame
from .party import Party
from .values import Refused, make_key

DEFAULT_TIMEOUT = 10.0  # seconds for a whole tcp conversation, and for each http read
DEFAULT_QUIET_GAP = 0.3  # seconds of silence that end a legacy message of unknown length
DEFAULT_MAX_CLIENTS = 64
KEEP_OPEN_ROUNDS = 100  # error_then = "keep-open": refusals one connection may get before the server closes it
MAX_PARTIES = 10_000  # http parties kept by token; the oldest is forgotten first
READ_SIZE = 65536
Log = Callable[[dict[str, object]], None]


def _quiet(_: dict[str, object]) -> None:
    pass


def server_keys(description: Description) -> dict[str, Any]:
    """The server's RSA and preshared key pairs, made once for a server's life (not per connection:
    2048-bit keys take a while; a preshared key is the one its clients were given). Its other EC and
    X25519 keys each party makes fresh, per conversation: an agreement key kept for the server's life
    has no forward secrecy (the audit docs/PROTOCOL-DESCRIPTIONS.md reports on a live server)."""
    return {k.name: make_key(description, k.name) for k in description.keys
            if k.holder == "server" and (k.type == "rsa" or k.preshared)}


# ---- tcp -----------------------------------------------------------------------------------------


def drive_tcp(sock: socket.socket, party: Party, *, timeout: float = DEFAULT_TIMEOUT,
              quiet_gap: float = DEFAULT_QUIET_GAP) -> dict[str, Any]:
    """Run one party on a connected socket until it is done, refuses, or the deadline.
    Returns {"outcome": "done" | "refused" | "eof" | "deadline" | "framing" | "io-error",
    "reason", "sent", "received", "log"} (`log`: [{"from": role, "message"}] in wire order).
    Never raises for anything the peer does."""
    t = party.description.transport
    deadline = time.monotonic() + timeout
    reader = Reader(t)
    sent: list[bytes] = []
    got: list[bytes] = []
    log: list[dict[str, Any]] = []
    peer = "server" if party.role == "client" else "client"

    def result(outcome: str, reason: str = "") -> dict[str, Any]:
        return {"outcome": outcome, "reason": reason, "sent": sent, "received": got, "log": log}

    def send(message: bytes) -> None:
        sock.settimeout(max(deadline - time.monotonic(), 0.05))
        sock.sendall(frame(t, message))
        if t.framing == "close":
            sock.shutdown(socket.SHUT_WR)  # the close ends the message
        sent.append(message)
        log.append({"from": party.role, "message": message})

    try:
        while not party.done:
            try:
                out = party.next_message()
            except Refused as exc:
                return result("refused", f"cannot build step: {exc.reason}")
            if out is not None:
                assert isinstance(out, bytes)
                send(out)
                continue
            message = _read_message(sock, reader, party, deadline, quiet_gap)
            if isinstance(message, str):
                return result(*message.split(":", 1)) if ":" in message else result(message)
            got.append(message)
            log.append({"from": peer, "message": message})
            try:
                party.receive(message)
            except Refused as exc:
                if party.role == "server":
                    answer = party.refusal_message()
                    if isinstance(answer, bytes):
                        send(answer)
                return result("refused", exc.reason)
        return result("done")
    except FramingError as exc:
        if party.role == "server":
            answer = party.refusal_message()
            try:
                if isinstance(answer, bytes):
                    sock.sendall(frame(t, answer))
            except (OSError, FramingError):
                pass
        return result("framing", str(exc))
    except OSError as exc:
        return result("io-error", f"{type(exc).__name__}: {exc}")


def _read_message(sock: socket.socket, reader: Reader, party: Party, deadline: float,
                  quiet_gap: float) -> bytes | str:
    """The next message, or an outcome string "eof:...", "deadline:..."."""
    legacy = party.description.transport.framing == "legacy"
    alternative = party.error_value()
    final = False
    while True:
        message = reader.next(party.expected_length(), final, alternative)
        if message is not None:
            return message
        if final and not legacy:
            return "eof:the peer closed the connection"
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return "deadline:no complete message before the deadline"
        sock.settimeout(min(remaining, quiet_gap) if legacy else remaining)
        try:
            data = sock.recv(READ_SIZE)
        except socket.timeout:
            final = legacy and reader.buffered > 0  # a quiet gap ends what arrived (legacy)
            continue
        if not data:
            message = reader.next(party.expected_length(), True, alternative)
            return message if message is not None else "eof:the peer closed the connection"
        reader.feed(data)
        final = False


class TcpServer:
    """A threaded TCP server: `serve_forever()` until `shutdown()`; `port` once bound."""

    def __init__(self, description: Description, host: str = "127.0.0.1", port: int = 0, *,
                 timeout: float = DEFAULT_TIMEOUT, quiet_gap: float = DEFAULT_QUIET_GAP,
                 max_clients: int = DEFAULT_MAX_CLIENTS, party_options: Optional[Mapping[str, Any]] = None,
                 log: Log = _quiet) -> None:
        self.description = description
        self.options = dict(party_options or {})
        self.options.setdefault("private_keys", server_keys(description))
        Party(description, None, "server", **self.options)  # refuse unusable options before binding
        self.timeout, self.quiet_gap, self.log = timeout, quiet_gap, log
        self._slots = threading.BoundedSemaphore(max_clients)
        self._stop = threading.Event()
        self._listener = socket.create_server((host, port), backlog=128)
        self._listener.settimeout(0.2)  # so that shutdown() is seen
        self.host, self.port = self._listener.getsockname()[:2]

    def serve_forever(self) -> None:
        try:
            while not self._stop.is_set():
                try:
                    conn, addr = self._listener.accept()
                except socket.timeout:
                    continue
                except OSError as exc:
                    if self._stop.is_set():
                        break
                    self.log({"event": "accept-failed", "reason": str(exc)})
                    self._stop.wait(0.05)
                    continue
                if not self._slots.acquire(blocking=False):
                    conn.close()
                    continue
                threading.Thread(target=self._serve_one, args=(conn, addr), daemon=True).start()
        finally:
            self._listener.close()

    def shutdown(self) -> None:
        self._stop.set()

    def _serve_one(self, conn: socket.socket, addr: Any) -> None:
        peer = f"{addr[0]}:{addr[1]}"
        try:
            for _ in range(KEEP_OPEN_ROUNDS):
                party = Party(self.description, None, "server", **self.options)
                outcome = drive_tcp(conn, party, timeout=self.timeout, quiet_gap=self.quiet_gap)
                self.log({"peer": peer, "event": outcome["outcome"], "reason": outcome["reason"],
                          "conversation": party.conversation.name if party.conversation else None,
                          **({"message": party.received["message"]} if "message" in party.received else {})})
                # error_then = "keep-open": after its error the server reads on, the next message a
                # conversation's first again (a `while True: recv()` loop) — only after a round that
                # read a message, so a peer that is gone or silent ends it.
                refused_in = party.conversation or self.description.conversations[0]
                if (outcome["outcome"] not in ("refused", "framing") or refused_in.error_then != "keep-open"
                        or not outcome["received"]):
                    break
        except Exception as exc:  # noqa: BLE001 -- one bad connection never takes the server down
            self.log({"peer": peer, "event": "internal-error", "reason": f"{type(exc).__name__}: {exc}"})
        finally:
            linger_close(conn)
            self._slots.release()


# ---- http ----------------------------------------------------------------------------------------


class _Parties:
    """HTTP server parties by the tokens they issued (bounded, oldest first out)."""

    def __init__(self) -> None:
        self._by_token: OrderedDict[str, Party] = OrderedDict()
        self._lock = threading.Lock()

    def find(self, headers: Mapping[str, str], body: bytes) -> Optional[Party]:
        with self._lock:
            for value in headers.values():
                for candidate in (value, value.split(" ", 1)[-1]):  # a bare token or "Bearer <token>"
                    if candidate in self._by_token:
                        return self._by_token[candidate]
        return None

    def remember(self, party: Party) -> None:
        with self._lock:
            for token in party.issued_tokens:
                self._by_token[token] = party
            while len(self._by_token) > MAX_PARTIES:
                self._by_token.popitem(last=False)

    def forget(self, party: Party) -> None:
        with self._lock:
            for token in party.issued_tokens:
                self._by_token.pop(token, None)


class _Handler(BaseHTTPRequestHandler):
    server: "HttpServer"
    server_version = "pythonref-described"
    protocol_version = "HTTP/1.1"
    party: Optional[Party] = None  # this connection's (keep-alive) party

    def version_string(self) -> str:
        return self.server_version

    def setup(self) -> None:
        self.timeout = self.server.read_timeout
        super().setup()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("do_"):
            return self._dispatch  # every method: the description decides which it wants
        raise AttributeError(name)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def send_error(self, code: int, message: Optional[str] = None, explain: Optional[str] = None) -> None:
        self._respond(aes_https.refusal(code), close=True)

    def _respond(self, response: Mapping[str, Any], close: bool) -> None:
        self.close_connection = close
        if self.request_version == "HTTP/0.9":
            self.request_version = "HTTP/1.0"
        body = response["body"]
        self.send_response(response["status"])
        for name, value in response["headers"].items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        if close:
            self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def _dispatch(self) -> None:
        raw_length = self.headers.get("content-length", "0")
        if not raw_length.strip().isdigit() or self.headers.get("transfer-encoding") is not None:
            self._respond(aes_https.refusal(400), close=True)
            return
        length = int(raw_length)
        if length > self.server.max_body:
            self._respond(aes_https.refusal(413), close=True)
            return
        self.connection.settimeout(self.server.read_timeout)
        try:
            body = self.rfile.read(length)
        except OSError:
            self.close_connection = True
            return
        if len(body) != length:
            self.close_connection = True
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = {"method": self.command, "path": self.path, "headers": headers, "body": body}
        parties = self.server.parties
        party = parties.find(headers, body) or self.party
        if party is None or party.done:
            party = Party(self.server.description, None, "server", **self.server.options)
        self.party = party
        try:
            party.receive(request)
            response = party.next_message()
        except Refused as exc:
            self.server.log({"event": "refused", "reason": exc.reason})
            parties.forget(party)
            answer = party.refusal_message()
            self._respond(answer if isinstance(answer, dict) else aes_https.refusal(400), close=True)
            return
        if not isinstance(response, dict):
            self._respond(aes_https.refusal(500), close=True)
            return
        if party.done:
            self.server.log({"event": "done", "conversation": party.conversation.name if party.conversation else None,
                             **({"message": party.received["message"]} if "message" in party.received else {})})
            parties.forget(party)
        else:
            parties.remember(party)
        self._respond(response, close=party.done)


class HttpServer(https_shell.AesHttpsHttpServer):
    """https_shell's threaded server (TLS in each connection's thread, bounded clients, lingering
    close) with a handler that hosts described parties."""

    def __init__(self, description: Description, host: str = "127.0.0.1", port: int = 0, *,
                 ssl_context: Optional[ssl.SSLContext] = None, timeout: float = DEFAULT_TIMEOUT,
                 max_clients: int = DEFAULT_MAX_CLIENTS, party_options: Optional[Mapping[str, Any]] = None,
                 log: Log = _quiet) -> None:
        self.description = description
        self.options = dict(party_options or {})
        self.options.setdefault("private_keys", server_keys(description))
        Party(description, None, "server", **self.options)
        self.parties = _Parties()
        self.max_body = description.transport.max_message
        super().__init__((host, port), None, ssl_context, timeout, max_clients, log)  # type: ignore[arg-type]
        self.RequestHandlerClass = _Handler  # type: ignore[assignment]
        self.host, self.port = self.server_name, self.server_port


def make_server(description: Description, host: str = "127.0.0.1", port: int = 0, *,
                ssl_context: Optional[ssl.SSLContext] = None, **kwargs: Any) -> TcpServer | HttpServer:
    if description.transport.is_http:
        if description.transport.kind == "https" and ssl_context is None:
            raise ValueError("an https description needs a certificate and key (--cert, --key)")
        kwargs.pop("quiet_gap", None)
        return HttpServer(description, host, port, ssl_context=ssl_context, **kwargs)
    return TcpServer(description, host, port, **kwargs)


# ---- the client ----------------------------------------------------------------------------------


def run_client(description: Description, conversation: str, host: str, port: int, *,
               timeout: float = DEFAULT_TIMEOUT, quiet_gap: float = DEFAULT_QUIET_GAP,
               pin: Optional[str] = None, server_name: Optional[str] = None,
               party_options: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
    """One conversation as the client. The transcript: {"conversation", "ok", "outcome", "reason",
    "sent", "received", "log", "values"} (`log`: both sides' messages in order; `values`: what the
    party received, e.g. "message")."""
    party = Party(description, conversation, "client", **dict(party_options or {}))
    if description.transport.is_http:
        out = _run_http(party, host, port, timeout=timeout, pin=pin, server_name=server_name)
    else:
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            out = {"outcome": "io-error", "reason": f"connect: {type(exc).__name__}: {exc}", "sent": [],
                   "received": [], "log": []}
        else:
            try:
                out = drive_tcp(sock, party, timeout=timeout, quiet_gap=quiet_gap)
            finally:
                sock.close()
    ok = out["outcome"] == "done" and party.done and party.refusal is None
    return {"conversation": conversation, "ok": ok, **out, "values": dict(party.received)}


def _run_http(party: Party, host: str, port: int, *, timeout: float, pin: Optional[str],
              server_name: Optional[str]) -> dict[str, Any]:
    out = _exchange_http(party, host, port, timeout=timeout, pin=pin, server_name=server_name)
    out["log"] = [entry for pair in zip(({"from": "client", "message": m} for m in out["sent"]),
                                        ({"from": "server", "message": m} for m in out["received"]))
                  for entry in pair] + ([{"from": "client", "message": out["sent"][-1]}]
                                        if len(out["sent"]) > len(out["received"]) else [])
    return out


def _exchange_http(party: Party, host: str, port: int, *, timeout: float, pin: Optional[str],
                   server_name: Optional[str]) -> dict[str, Any]:
    sent: list[dict[str, Any]] = []
    got: list[dict[str, Any]] = []
    conn: http.client.HTTPConnection
    if party.description.transport.kind == "https":
        if pin is None:
            return {"outcome": "io-error", "reason": "https needs --pin (the server's certificate)", "sent": sent,
                    "received": got}
        context = https_shell.pinned_client_context(pin)
        # https_shell's connection: the pinned certificate only, its name checked against server_name.
        conn = https_shell._PinnedHTTPSConnection(host, port, context=context,  # noqa: SLF001
                                                  server_name=server_name or host, timeout=timeout)
    else:
        conn = http.client.HTTPConnection(host, port, timeout=timeout)
    max_body = party.description.transport.max_message
    try:
        while not party.done:
            try:
                request = party.next_message()
            except Refused as exc:
                return {"outcome": "refused", "reason": f"cannot build step: {exc.reason}", "sent": sent,
                        "received": got}
            if not isinstance(request, dict):
                return {"outcome": "refused", "reason": "not the client's turn", "sent": sent, "received": got}
            sent.append(request)
            conn.request(request["method"], request["path"], body=request["body"], headers=request["headers"])
            resp = conn.getresponse()
            body = resp.read(max_body + 1)
            if len(body) > max_body:
                return {"outcome": "framing", "reason": f"response body over {max_body} bytes", "sent": sent,
                        "received": got}
            response = {"status": resp.status, "headers": {k.lower(): v for k, v in resp.getheaders()}, "body": body}
            got.append(response)
            if resp.will_close:
                conn.close()  # http.client opens a new connection for the next request
            try:
                party.receive(response)
            except Refused as exc:
                return {"outcome": "refused", "reason": exc.reason, "sent": sent, "received": got}
        return {"outcome": "done", "reason": "", "sent": sent, "received": got}
    except (OSError, ssl.SSLError, http.client.HTTPException) as exc:
        return {"outcome": "io-error", "reason": f"{type(exc).__name__}: {exc}", "sent": sent, "received": got}
    finally:
        conn.close()
