"""The aes-https logic on real HTTP(S): a threaded server around `AesHttpsServer.handle`, and a
client that trusts exactly one pinned certificate.

Every answer is JSON from aes_https (parse errors of the HTTP layer included): never a traceback,
never an HTML error page. The TLS handshake runs in the connection's own thread under the read
deadline, so a client that stalls it holds up nobody else. Bodies over 1 MiB are refused from the
Content-Length alone, before anything is read.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import TCPServer
from typing import Any, Callable, Mapping, Optional
from urllib.parse import urlsplit

from . import aes_https
from .errors import CryptoFailure
from .socket_shell import linger_close

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_CLIENTS = 64
Log = Callable[[dict[str, object]], None]

class _Handler(BaseHTTPRequestHandler):
    server: "AesHttpsHttpServer"
    server_version = "pythonref"
    protocol_version = "HTTP/1.1"

    def version_string(self) -> str:
        return self.server_version

    def setup(self) -> None:
        self.timeout = self.server.read_timeout
        super().setup()

    def __getattr__(self, name: str) -> Any:
        # Every method reaches _dispatch (do_GET, do_PUT, do_FOO…), which answers 405 for all but POST.
        if name.startswith("do_"):
            return self._dispatch
        raise AttributeError(name)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 -- the base class's name
        self.server.log({"peer": f"{self.client_address[0]}:{self.client_address[1]}", "http": format % args})

    def send_error(self, code: int, message: Optional[str] = None, explain: Optional[str] = None) -> None:
        """The base class's errors (bad request line, headers too long…) as JSON like all others."""
        self._respond(aes_https.refusal(code))

    def _respond(self, response: Mapping[str, Any]) -> None:
        self.close_connection = True
        if self.request_version == "HTTP/0.9":  # also what the base class assumes for an unparseable line:
            self.request_version = "HTTP/1.0"  # answer with a status line and headers all the same
        body = response["body"]
        self.send_response(response["status"])
        for name, value in response["headers"].items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.send_header("connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _read_body(self, length: int) -> Optional[bytes]:
        deadline = time.monotonic() + self.server.read_timeout
        parts: list[bytes] = []
        got = 0
        while got < length:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.connection.settimeout(left)
            try:
                chunk = self.rfile.read1(min(65536, length - got))
            except OSError:
                return None
            if not chunk:
                return None
            parts.append(chunk)
            got += len(chunk)
        return b"".join(parts)

    def _dispatch(self) -> None:
        self.close_connection = True
        method, path = self.command, self.path
        raw_length = self.headers.get("content-length")
        try:
            length = int(raw_length) if raw_length is not None else 0
            length_ok = length >= 0 and (raw_length is None or raw_length.strip().isdigit())
        except ValueError:
            length, length_ok = 0, False
        early = aes_https.preflight(method, path, length if length_ok else 0)
        if early is None and (not length_ok or self.headers.get("transfer-encoding") is not None):
            early = aes_https.refusal(400)  # no chunked bodies: a Content-Length is required
        if early is not None:
            self._respond(early)
            return
        body = self._read_body(length)
        if body is None:
            self.server.log({"peer": f"{self.client_address[0]}:{self.client_address[1]}",
                             "event": "body-incomplete"})
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            response = self.server.app.handle({"method": method, "path": path, "headers": headers, "body": body})
        except CryptoFailure:
            response = aes_https.refusal(400)
        self._respond(response)


class AesHttpsHttpServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], app: aes_https.AesHttpsServer,
                 ssl_context: Optional[ssl.SSLContext], read_timeout: float, max_clients: int, log: Log) -> None:
        self.app = app
        self.ssl_context = ssl_context
        self.read_timeout = read_timeout
        self.log = log
        self._slots = threading.BoundedSemaphore(max_clients)
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        TCPServer.server_bind(self)  # not HTTPServer's, which does a reverse DNS lookup
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), int(port)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.log({"event": "refused", "reason": "too many clients"})
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def finish_request(self, request: Any, client_address: Any) -> None:
        """In the connection's thread: the TLS handshake (under the read deadline), one request,
        then a lingering close."""
        conn = request
        try:
            conn.settimeout(self.read_timeout)
            if self.ssl_context is not None:
                conn = self.ssl_context.wrap_socket(request, server_side=True)
            self.RequestHandlerClass(conn, client_address, self)
        except (OSError, ssl.SSLError) as exc:
            self.log({"peer": f"{client_address[0]}:{client_address[1]}", "event": "connection-failed",
                      "reason": f"{type(exc).__name__}: {exc}"})
        finally:
            linger_close(conn)

    def handle_error(self, request: Any, client_address: Any) -> None:
        self.log({"event": "internal-error", "peer": str(client_address)})


def server_ssl_context(cert: str, key: str) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(cert, key)
    return ctx


def serve(app: aes_https.AesHttpsServer, host: str, port: int, *, ssl_context: Optional[ssl.SSLContext],
          timeout: float = DEFAULT_TIMEOUT, max_clients: int = DEFAULT_MAX_CLIENTS,
          ready: Callable[[str, int], None], log: Log) -> None:
    server = AesHttpsHttpServer((host, port), app, ssl_context, timeout, max_clients, log)
    try:
        ready(server.server_name, server.server_port)
        server.serve_forever()
    finally:
        server.server_close()


# ---- the client ----------------------------------------------------------------------------------


def pinned_client_context(pin_file: str) -> ssl.SSLContext:
    """Trust exactly the pinned certificate (as the seed's SecTrustSetAnchorCertificates does), with
    the host name checked against it."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # CERT_REQUIRED and check_hostname by default
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_verify_locations(cafile=pin_file)
    return ctx


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, *, context: ssl.SSLContext, server_name: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=context)
        self._pinned_context = context
        self._server_name = server_name

    def connect(self) -> None:
        sock = socket.create_connection((self.host, self.port), self.timeout)
        self.sock = self._pinned_context.wrap_socket(sock, server_hostname=self._server_name)


def exchange(url: str, request: Mapping[str, Any], *, context: ssl.SSLContext, server_name: Optional[str] = None,
             timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
    """Send one request dict over HTTPS to the server at `url`; the response as a dict."""
    parts = urlsplit(url)
    if parts.scheme != "https":
        raise ValueError(f"refusing {parts.scheme or 'schemeless'} URL {url!r}: only https:// is trusted")
    host = parts.hostname or ""
    conn = _PinnedHTTPSConnection(host, parts.port or 443, context=context, server_name=server_name or host,
                                  timeout=timeout)
    try:
        conn.request(request["method"], request["path"], body=request["body"], headers=dict(request["headers"]))
        resp = conn.getresponse()
        body = resp.read(aes_https.MAX_BODY + 1)
        if len(body) > aes_https.MAX_BODY:
            raise ValueError("response body over 1 MiB")
        return {"status": resp.status, "headers": {k.lower(): v for k, v in resp.getheaders()}, "body": body}
    finally:
        conn.close()


def run_client(url: str, pin_file: str, *, server_name: Optional[str], username: str, password: str,
               key_mode: str, params: Mapping[str, object], timeout: float = DEFAULT_TIMEOUT,
               on_event: Callable[[dict[str, object]], None]) -> bool:
    """Login, one secure-data round trip, check the echo. True when it all went right."""
    try:
        context = pinned_client_context(pin_file)
        login_resp = exchange(url, aes_https.login_request(username, password), context=context,
                              server_name=server_name, timeout=timeout)
        on_event({"event": "login", "status": login_resp["status"]})
        login = aes_https.parse_login(login_resp, key_mode)
        resp = exchange(url, aes_https.secure_request(login.token, login.key, params), context=context,
                        server_name=server_name, timeout=timeout)
        doc = aes_https.parse_secure(resp, login.key)
        matches = doc == {"echo": dict(params)}
        on_event({"event": "secure-data", "status": resp["status"], "plaintext": doc, "echo-matches": matches})
        return matches
    except CryptoFailure as exc:
        on_event({"event": "failed", "reason": f"{exc.kind.value}: {exc.detail}"})
    except (OSError, ssl.SSLError, ValueError, http.client.HTTPException) as exc:
        on_event({"event": "failed", "reason": f"{type(exc).__name__}: {exc}"})
    return False
