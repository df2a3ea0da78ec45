"""Plumbing every described-zoo server shares: command line, LISTENING line, timeouts, keys, framing.

Only plumbing lives here, never protocol logic: each server in this directory speaks one
examples/protocols/*.toml description, written from that description alone (not from crosscheck's
engines). Debian's /usr/bin/python3 with python3-cryptography (pyca 38) and the standard library.

Every server: `--host 127.0.0.1 --port 0` binds only that address, picks a free port and prints
`LISTENING <port>` (flushed) once it accepts connections; `--plant NAME` plants one flaw (the
server's docstring lists them); a thread per connection; a deadline on every read.
"""

import argparse
import http.server
import os
import random
import socket
import socketserver
import struct
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

# Plumbing only: `make test`'s cache of generated RSA keys (CROSSCHECK_TEST_KEY_CACHE), PythonRef's
# module, so that a server started many times does not make a new key each time.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "PythonRef"))
from pythonref import test_key_cache  # noqa: E402

IDLE = 10.0      # seconds a peer may stay silent before a message starts
GAP = 0.25       # legacy framing: silence that ends a message of unknown length
MAX_MESSAGE = 65536


def arguments(description, plants=(), psk=False, key=False, bits=2048, passphrase=False, psk2=False, ec_public=False,
              delay=False, toy_key=False, argv=None):
    """--host/--port/--plant for every server; --psk HEX for preshared secrets (--psk2 HEX: a description's
    second preshared secret, in file order); --passphrase TEXT for a preshared passphrase (the text itself,
    as crosscheck's --secret NAME=TEXT); --key/--bits for RSA; --ec-public PEM for the public half of a
    preshared EC key the client holds (a SubjectPublicKeyInfo PEM file; crosscheck is given the private
    half as --private-key NAME=PEM). args.ec_public is then the loaded key, not the path. --delay S or
    LOW-HIGH (seconds): a correct but slow server, as a Pi Zero's RSA is; args.delay() draws the wait.
    --toy-key FILE: the private half of a preshared toy RSA key, two decimal lines d then n (a teaching
    server's servpriv.key; crosscheck is given e then n); args.toy_key is then (d, n)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port (0: a free one, printed as LISTENING <port>)")
    parser.add_argument("--plant", choices=sorted(plants), help="plant one flaw (default: a correct server)")
    if psk:
        parser.add_argument("--psk", required=True, help="the preshared secret, hex")
    if psk2:
        parser.add_argument("--psk2", required=True, help="the second preshared secret, hex")
    if passphrase:
        parser.add_argument("--passphrase", required=True, help="the preshared passphrase, text (UTF-8)")
    if key:
        parser.add_argument("--key", help="the server's RSA private key (PEM); default: generate one")
        parser.add_argument("--bits", type=int, default=bits, help="size of a generated key (default %d)" % bits)
    if ec_public:
        parser.add_argument("--ec-public", required=True, metavar="PEM_FILE",
                            help="the client's EC public key (PEM, SubjectPublicKeyInfo), preshared")
    if toy_key:
        parser.add_argument("--toy-key", required=True, metavar="FILE", help="the toy key's private half: two decimal lines, d then n")
    if delay:
        parser.add_argument("--delay", default="0", metavar="S[-S]",
                            help="seconds to wait before the slow step (a slow board): fixed, or drawn from LOW-HIGH each time")
    args = parser.parse_args(argv)
    if delay:
        try:
            low, _, high = args.delay.partition("-")
            bounds = (float(low), float(high or low))
        except ValueError:
            parser.error("--delay takes seconds, or LOW-HIGH")
        args.delay = lambda: random.uniform(*bounds)
    if psk:
        try:
            args.psk = bytes.fromhex(args.psk)
        except ValueError:
            parser.error("--psk takes hex")
    if psk2:
        try:
            args.psk2 = bytes.fromhex(args.psk2)
        except ValueError:
            parser.error("--psk2 takes hex")
    if toy_key:
        try:
            with open(args.toy_key, encoding="ascii") as handle:
                numbers = handle.read().split()
            if len(numbers) != 2 or not all(number.isdigit() for number in numbers):
                raise ValueError("not two decimal lines, d then n")
            args.toy_key = (int(numbers[0]), int(numbers[1]))
        except (OSError, ValueError) as unusable:
            parser.error("--toy-key: %s" % unusable)
    if ec_public:
        try:
            args.ec_public = ec_public_key(args.ec_public)
        except (OSError, ValueError, TypeError) as unusable:
            parser.error("--ec-public: %s" % unusable)
    return args


def announce(port):
    """Tells a runner the server is accepting connections (it waits for this line, not a sleep)."""
    print("LISTENING %d" % port, flush=True)


def log(text):
    print(text, file=sys.stderr, flush=True)


def rsa_private_key(path=None, bits=2048):
    """The key in `path` (PEM, unencrypted), or a fresh one of `bits`."""
    if path:
        with open(path, "rb") as handle:
            return serialization.load_pem_private_key(handle.read(), password=None)
    return test_key_cache.key(bits, lambda: rsa.generate_private_key(public_exponent=65537, key_size=bits))


def ec_public_key(path):
    """The EC public key in `path` (PEM, SubjectPublicKeyInfo); its curve is the server's to check."""
    with open(path, "rb") as handle:
        key = serialization.load_pem_public_key(handle.read())
    if not isinstance(key, ec.EllipticCurvePublicKey):
        raise TypeError("%s holds no EC public key" % path)
    return key


class PeerGone(Exception):
    """The peer closed, stayed silent too long, or sent a message the framing refuses."""


class Wire:
    """One TCP connection's messages in one of the format's framings (legacy, length-prefix, line)."""

    def __init__(self, sock, framing="legacy", length_bytes=4, line_end=b"\n", gap=GAP, idle=IDLE,
                 max_message=MAX_MESSAGE):
        self.sock, self.framing, self.length_bytes = sock, framing, length_bytes
        self.line_end, self.gap, self.idle, self.max_message = line_end, gap, idle, max_message
        self.buffer = b""
        sock.settimeout(idle)

    def _more(self, timeout):
        self.sock.settimeout(timeout)
        try:
            chunk = self.sock.recv(65536)
        finally:
            self.sock.settimeout(self.idle)
        if not chunk:
            raise PeerGone("peer closed")
        self.buffer += chunk
        if len(self.buffer) > self.max_message + 8:
            raise PeerGone("message over the limit")

    def _exactly(self, n):
        while len(self.buffer) < n:
            try:
                self._more(self.idle)
            except socket.timeout:
                raise PeerGone("silent peer")
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def recv(self, known=None):
        """The next message; `known`: its length when the protocol fixes it (legacy framing)."""
        if self.framing == "length-prefix":
            fmt = {2: ">H", 4: ">I"}[self.length_bytes]
            (n,) = struct.unpack(fmt, self._exactly(self.length_bytes))
            if n == 0 or n > self.max_message:
                raise PeerGone("length prefix %d refused" % n)
            return self._exactly(n)
        if self.framing == "line":
            while self.line_end not in self.buffer:
                try:
                    self._more(self.idle)
                except socket.timeout:
                    raise PeerGone("silent peer")
            line, self.buffer = self.buffer.split(self.line_end, 1)
            return line
        if known is not None:
            return self._exactly(known)
        if not self.buffer:
            try:
                self._more(self.idle)
            except socket.timeout:
                raise PeerGone("silent peer")
        while True:
            try:
                self._more(self.gap)
            except socket.timeout:
                break
        data, self.buffer = self.buffer, b""
        return data

    def recv_last(self):
        """Legacy framing: the last message of a sender that closes after it (its step says then = "close"),
        of unknown length: it ends at a quiet gap or at the sender's close, whichever comes first (recv()
        takes a close as the peer gone, and the bytes before it with it)."""
        while True:
            self.sock.settimeout(self.gap if self.buffer else self.idle)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                if self.buffer:
                    break
                raise PeerGone("silent peer")
            finally:
                self.sock.settimeout(self.idle)
            if not chunk:
                if self.buffer:
                    break
                raise PeerGone("peer closed")
            self.buffer += chunk
            if len(self.buffer) > self.max_message + 8:
                raise PeerGone("message over the limit")
        data, self.buffer = self.buffer, b""
        return data

    def frame(self, data):
        if self.framing == "length-prefix":
            fmt = {2: ">H", 4: ">I"}[self.length_bytes]
            return struct.pack(fmt, len(data)) + data
        if self.framing == "line":
            return data + self.line_end
        return data

    def send(self, data):
        self.sock.sendall(self.frame(data))


class _TCPServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve_tcp(args, converse):
    """Serves `converse(sock, address)` on a thread per connection until killed."""

    class Handler(socketserver.BaseRequestHandler):
        def handle(self):
            self.request.settimeout(IDLE)
            try:
                converse(self.request, self.client_address)
            except (PeerGone, OSError) as gone:
                log("connection ended: %s" % gone)

    server = _TCPServer((args.host, args.port), Handler)
    announce(server.server_address[1])
    try:
        server.serve_forever()
    finally:
        server.server_close()


class _HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class HTTPHandler(http.server.BaseHTTPRequestHandler):
    """HTTP/1.1 with Content-Length; a deadline on every read; `answer(status, body, type)`."""

    protocol_version = "HTTP/1.1"
    timeout = IDLE

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_MESSAGE:
            raise PeerGone("body over the limit")
        return self.rfile.read(length) if length else b""

    def answer(self, status, body=b"", content_type="application/octet-stream"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt, *values):
        log("http: " + fmt % values)


def serve_http(args, handler_class):
    server = _HTTPServer((args.host, args.port), handler_class)
    server.args = args
    announce(server.server_address[1])
    try:
        server.serve_forever()
    finally:
        server.server_close()


def exit_if_served_once(args, sock):
    """The serves-once plant: after its first connection the whole server exits (a source's one accept())."""
    if args.plant == "serves-once":
        log("served one connection: exiting")
        sock.close()
        os._exit(0)


def main_guard(run):
    """Runs `run()`; Ctrl-C and SIGTERM end the server quietly."""
    try:
        run()
    except KeyboardInterrupt:
        pass


HERE = os.path.dirname(os.path.abspath(__file__))
