"""`python3 -m pythonref`: the reference servers, the Python client roles, and certificates.

    serve rsa-socket    the Raspberry Pi server (TCP)
    serve aes-https     the AES-CBC JSON API over HTTPS
    client rsa-socket   one conversation as the phone, against any rsa-socket server
    client aes-https    login + one secure-data round trip against any aes-https server, pinned
    server-cert         make the Pi's own certificate and key for its host name
    certs               write the self-signed test certificates (test-only keys)
    ios-certs           write the test certificates iOS accepts: a CA, its leaf, a pinned and an impostor leaf
    described-server    serve a protocol description (docs/PROTOCOL-DESCRIPTIONS.md); prints `LISTENING <port>`
    described-client    one conversation of a protocol description as the client

Exit status: 0 success, 1 a conversation or check failed, 64 usage error (also an unusable key or
certificate file). Servers print one line `listening on HOST:PORT` to stdout once bound (`--port 0`
picks a free port), then log one JSON line per event to stderr (`--quiet`: none). Clients print
their events as JSON lines to stdout.
"""

from __future__ import annotations

import argparse
import datetime
import json
import signal
import sys
from pathlib import Path
from typing import Any, NoReturn, Optional, Sequence

from . import aes_cbc, aes_https, certs, https_shell, rsa_cipher, rsa_keys, rsa_socket, socket_shell, text_formats
from .errors import CryptoFailure

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 64
DEFAULT_USER = "user:password"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


class _UsageError(Exception):
    pass


def jsonable(value: Any) -> Any:
    """Event fields for JSON lines: bytes as text when they are UTF-8, else {"hex": ...}."""
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return {"hex": bytes(value).hex()}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def _stdout_line(doc: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(jsonable(doc)) + "\n")
    sys.stdout.flush()


def _stderr_logger(quiet: bool):  # type: ignore[no-untyped-def]
    def log(doc: dict[str, object]) -> None:
        if not quiet:
            try:
                sys.stderr.write(json.dumps(jsonable(doc)) + "\n")
                sys.stderr.flush()
            except (OSError, ValueError):
                pass

    return log


def _ready(host: str, port: int) -> None:
    sys.stdout.write(f"listening on {host}:{port}\n")
    sys.stdout.flush()


def _positive(kind: type):  # type: ignore[no-untyped-def]
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        return value

    parse.__name__ = kind.__name__
    return parse


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port out of range: {text!r}")
    return value


def _user(text: str) -> tuple[str, str]:
    name, sep, password = text.partition(":")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME:PASSWORD, got {text!r}")
    return name, password


def _users_file(path: str) -> list[tuple[str, str]]:
    try:
        text = _read(path, "users file").decode("utf-8")
    except UnicodeDecodeError:
        raise _UsageError(f"users file {path!r} is not UTF-8") from None
    accounts = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.startswith("#"):
            try:
                accounts.append(_user(line))
            except argparse.ArgumentTypeError:
                raise _UsageError(f"users file {path!r}, line {number}: expected NAME:PASSWORD") from None
    return accounts


def _read(path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise _UsageError(f"cannot read {what} {path!r}: {exc.strerror or exc}") from None


def _rsa_key(args: argparse.Namespace) -> bytes:
    if args.key is not None:
        pem = _read(args.key, "key file")
        rsa_keys.load_private(pem)  # refuse a bad key now, not at the first client
        return pem
    return rsa_keys.export_private(rsa_keys.generate(args.key_bits), "pkcs8-pem")


# ---- the parser ----------------------------------------------------------------------------------


def _add_rsa_common(p: argparse.ArgumentParser, default_port: int) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address (default: 127.0.0.1)")
    p.add_argument("--port", type=_port, default=default_port, help=f"TCP port (default: {default_port}; 0: any free)")
    p.add_argument("--framing", choices=rsa_socket.FRAMINGS, default="legacy",
                   help="legacy: unframed, as the tutorials; framed: 4-byte big-endian length (default: legacy)")
    p.add_argument("--padding", choices=rsa_socket.PADDINGS, default="pkcs1",
                   help="RSA padding, configured on both sides, never negotiated (default: pkcs1, the seed's)")
    keys = p.add_mutually_exclusive_group()
    keys.add_argument("--key", metavar="FILE", help="RSA private key (PEM or DER, PKCS#8 or PKCS#1)")
    keys.add_argument("--key-bits", type=int, default=2048, metavar="N",
                      help="generate a fresh RSA key of N bits instead (default: 2048)")
    p.add_argument("--digest", action="store_true",
                   help="the digest extension: `Server: OK sha256=<hex>` proves the plaintext")
    p.add_argument("--max-message", type=_positive(int), default=rsa_socket.DEFAULT_MAX_MESSAGE, metavar="N",
                   help="largest message accepted, in bytes (default: 65536)")
    p.add_argument("--timeout", type=_positive(float), default=socket_shell.DEFAULT_TIMEOUT, metavar="S",
                   help="deadline for a whole conversation, in seconds (default: %(default)s)")
    p.add_argument("--quiet-gap", type=_positive(float), default=socket_shell.DEFAULT_QUIET_GAP, metavar="S",
                   help="legacy framing: silence that ends a message, in seconds (default: %(default)s)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python3 -m pythonref", description=__doc__,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True, metavar="{serve,client,server-cert,certs,ios-certs,described-server,described-client}")

    serve = commands.add_parser("serve", help="run a reference server", description="Run a reference server.")
    serve_kinds = serve.add_subparsers(dest="profile", required=True, metavar="{rsa-socket,aes-https}")
    s = serve_kinds.add_parser("rsa-socket", help="the Raspberry Pi RSA socket server",
                               description="The rsa-socket server: one thread and one state machine per client.")
    _add_rsa_common(s, 9876)
    s.add_argument("--message", default=rsa_socket.DEFAULT_MESSAGE.decode(),
                   help="what pi-to-phone encrypts (default: %(default)r)")
    s.add_argument("--rsa-rejection", choices=rsa_cipher.REJECTIONS, default="explicit",
                   help="what a bad PKCS#1 v1.5 padding gets, whatever OpenSSL this Python links: explicit: "
                        "an error, `Server: ERROR` (a Pi on Debian 12, OpenSSL 3.0); implicit: a synthetic "
                        "plaintext, `Server: OK` (a Pi on OpenSSL >= 3.2, e.g. Debian 13) (default: explicit)")
    s.add_argument("--quirk", choices=rsa_socket.SERVER_QUIRKS,
                   help="TEST ONLY: behave like a known-broken server")
    s.add_argument("--max-clients", type=_positive(int), default=socket_shell.DEFAULT_MAX_CLIENTS, metavar="N",
                   help="connections served at once; more are closed at once (default: %(default)s)")
    s.add_argument("--quiet", action="store_true", help="no event log on stderr")

    h = serve_kinds.add_parser("aes-https", help="the AES-CBC JSON API over HTTPS",
                               description="The aes-https server: POST /login, POST /secure-data (echo).")
    h.add_argument("--host", default="127.0.0.1", help="address (default: 127.0.0.1)")
    h.add_argument("--port", type=_port, default=8443, help="TCP port (default: 8443; 0: any free)")
    h.add_argument("--cert", metavar="FILE", help="server certificate (PEM); required unless --plain-http-for-tests")
    h.add_argument("--key", metavar="FILE", help="its private key (PEM); required unless --plain-http-for-tests")
    h.add_argument("--key-mode", choices=aes_cbc.KEY_DERIVATION_MODES, default="base64-raw",
                   help="how encryptionKey becomes the AES key (default: base64-raw)")
    h.add_argument("--encryption-key", metavar="S", help="the encryptionKey string (default: a fresh one)")
    h.add_argument("--user", type=_user, action="append", metavar="NAME:PASSWORD",
                   help=f"an account; repeatable (default, with no --users-file either: {DEFAULT_USER})")
    h.add_argument("--users-file", metavar="FILE",
                   help="accounts, one NAME:PASSWORD a line (blank lines and lines starting with # skipped); "
                        "under systemd, a credential: --users-file ${CREDENTIALS_DIRECTORY}/users")
    h.add_argument("--plain-http-for-tests", action="store_true",
                   help="TEST ONLY: serve plain HTTP, so a client's refusal of it can be checked")
    h.add_argument("--timeout", type=_positive(float), default=https_shell.DEFAULT_TIMEOUT, metavar="S",
                   help="deadline for the handshake and for each read, in seconds (default: %(default)s)")
    h.add_argument("--max-clients", type=_positive(int), default=https_shell.DEFAULT_MAX_CLIENTS, metavar="N",
                   help="connections served at once (default: %(default)s)")
    h.add_argument("--quiet", action="store_true", help="no request log on stderr")

    client = commands.add_parser("client", help="run a Python client role",
                                 description="Run one conversation as a client; exit 0 when it succeeded.")
    client_kinds = client.add_subparsers(dest="profile", required=True, metavar="{rsa-socket,aes-https}")
    c = client_kinds.add_parser("rsa-socket", help="one rsa-socket conversation as the phone",
                                description="One rsa-socket conversation as the phone; events as JSON lines.")
    _add_rsa_common(c, 9876)
    c.add_argument("--direction", choices=rsa_socket.DIRECTIONS, default="phone-to-pi",
                   help="phone-to-pi: the client encrypts; pi-to-phone: the server does (default: phone-to-pi)")
    c.add_argument("--plaintext", default="Secret message from the phone", help="what phone-to-pi encrypts")
    c.add_argument("--key-format", choices=rsa_socket.KEY_FORMATS, default="spki-pem",
                   help="how pi-to-phone sends the client's public key (default: spki-pem, the iOS form)")
    c.add_argument("--quirk", choices=rsa_socket.CLIENT_QUIRKS, help="TEST ONLY: behave like a known-broken client")

    a = client_kinds.add_parser("aes-https", help="login and one secure-data round trip, pinned",
                                description="Login, one secure-data round trip, check the echo. Trusts only --pin.")
    a.add_argument("--url", required=True, help="https://HOST:PORT of the server (plain http:// is refused)")
    a.add_argument("--pin", required=True, metavar="CERTFILE", help="the one certificate (PEM) to trust")
    a.add_argument("--server-name", metavar="NAME", help="name to verify the certificate for (default: the URL's host)")
    a.add_argument("--user", type=_user, default=_user(DEFAULT_USER), metavar="NAME:PASSWORD",
                   help=f"credentials (default: {DEFAULT_USER})")
    a.add_argument("--key-mode", choices=aes_cbc.KEY_DERIVATION_MODES, default="base64-raw",
                   help="how encryptionKey becomes the AES key (default: base64-raw)")
    a.add_argument("--params", default='{"message":"hello from python"}', metavar="JSON",
                   help="the JSON object to send (default: %(default)s)")
    a.add_argument("--timeout", type=_positive(float), default=https_shell.DEFAULT_TIMEOUT, metavar="S",
                   help="deadline for each connection, in seconds (default: %(default)s)")

    sc = commands.add_parser("server-cert", help="make the Pi's certificate and key for its host name",
                             description="Make a fresh RSA-2048 key and a self-signed certificate for the server's "
                                         "host name(s), as iOS accepts TLS server certificates (SHA-256, the names "
                                         "in subjectAltName, serverAuth, at most 825 days). Writes server.crt.pem "
                                         "(for the server and `crosscheck remote --pin`), server.crt.der (what the "
                                         "app bundles) and server.key.pem (mode 0600), and prints the "
                                         "certificate's SHA-256 fingerprint.")
    sc.add_argument("--host", required=True, action="append", metavar="NAME",
                    help="a name clients use for the server: a host name (raspberrypi.local) or an IP address; "
                         "repeatable, the first is the CN")
    sc.add_argument("--out", required=True, metavar="DIR", help="directory to write into (created if needed)")
    sc.add_argument("--days", type=_positive(int), default=certs.MAX_SERVER_DAYS, metavar="N",
                    help=f"validity in days, at most {certs.MAX_SERVER_DAYS} (default: %(default)s)")
    sc.add_argument("--force", action="store_true",
                    help="replace existing files (the app must then bundle the new certificate)")

    cert = commands.add_parser("certs", help="write the self-signed test certificates",
                               description="Write pinned/impostor/expired .crt.pem and .key.pem (test-only keys).")
    cert.add_argument("--out", required=True, metavar="DIR", help="directory to write into (created if needed)")

    ios = commands.add_parser("ios-certs", help="write the test certificates iOS accepts",
                              description="Write ios-ca, ios-server (signed by ios-ca), ios-pinned (self-signed) and "
                                          "ios-impostor .crt.pem and .key.pem (test-only keys): leaves valid for "
                                          f"exactly {certs.MAX_SERVER_DAYS} days with serverAuth, as iOS requires of "
                                          "chains an app anchors itself.")
    ios.add_argument("--out", required=True, metavar="DIR", help="directory to write into (created if needed)")
    ios.add_argument("--not-before", type=_utc_date, default=certs.IOS_NOT_BEFORE, metavar="YYYY-MM-DD",
                     help=f"the first day of validity, UTC (default: {certs.IOS_NOT_BEFORE.date().isoformat()}; "
                          "a later one renews them)")
    _add_described(commands)
    return parser


def _add_described(commands: Any) -> None:
    ds = commands.add_parser("described-server", help="serve a protocol description",
                             description="Serve every conversation of a protocol description (a server party per "
                                         "connection, the conversation told by the client's first message). Prints "
                                         "`LISTENING <port>` once bound, then one JSON line per conversation to "
                                         "stderr (--quiet: none).")
    dc = commands.add_parser("described-client", help="one conversation of a protocol description as the client",
                             description="Run one conversation as the client; prints the transcript as JSON lines. "
                                         "Exit 0: completed; 1: refused or a mismatch (the reason on stderr).")
    for p in (ds, dc):
        p.add_argument("--protocol", required=True, metavar="FILE", help="the description (.toml)")
        p.add_argument("--host", default="127.0.0.1", help="address (default: %(default)s)")
        p.add_argument("--timeout", type=_positive(float), default=10.0, metavar="S",
                       help="deadline for a conversation (tcp) or each read (http), seconds (default: %(default)s)")
        p.add_argument("--quiet-gap", type=_positive(float), default=0.3, metavar="S",
                       help="silence that ends a legacy message of unknown length (default: %(default)s)")
        p.add_argument("--secret", action="append", default=[], metavar="NAME=HEX",
                       help="a preshared secret's bytes (repeatable)")
        p.add_argument("--username", default="user", help="the run's username setting (default: %(default)s)")
        p.add_argument("--password", default="password", help="the run's password setting (default: %(default)s)")
    ds.add_argument("--port", type=_port, default=0, help="port, 0 for a free one (default: 0)")
    ds.add_argument("--cert", metavar="PEM", help="https: the server's certificate")
    ds.add_argument("--key", metavar="PEM", help="https: the server's private key")
    ds.add_argument("--quiet", action="store_true", help="log nothing to stderr")
    dc.add_argument("--port", type=_port, help="the server's port (default: the description's transport.port)")
    dc.add_argument("--conversation", metavar="NAME", help="which conversation (default: the first)")
    for p in (ds, dc):
        p.add_argument("--message", metavar="TEXT", help="the message to carry (default: the description's, or fresh)")
    dc.add_argument("--pin", metavar="PEM", help="https: the one certificate trusted")
    dc.add_argument("--server-name", metavar="NAME", help="https: the name checked in the certificate (default: host)")


def _described_options(args: argparse.Namespace) -> dict[str, Any]:
    secrets: dict[str, bytes] = {}
    for item in args.secret:
        name, sep, hex_value = item.partition("=")
        try:
            secrets[name] = bytes.fromhex(hex_value)
        except ValueError:
            raise _UsageError(f"--secret {item!r} is not NAME=HEX") from None
        if not sep or not name:
            raise _UsageError(f"--secret {item!r} is not NAME=HEX")
    return {"secrets": secrets, "config": {"username": args.username, "password": args.password}}


def _load_description(path: str) -> Any:
    from .described import DescriptionError, load  # imported here: the other commands do not need it
    try:
        return load(path)
    except DescriptionError as exc:
        raise _UsageError(f"{path}: {exc}") from None


def _described_server(args: argparse.Namespace) -> int:
    from .described import server
    description = _load_description(args.protocol)
    options = _described_options(args)
    if args.message is not None:
        options["message"] = args.message.encode("utf-8")
    context = None
    if description.transport.kind == "https":
        if not args.cert or not args.key:
            raise _UsageError("an https description needs --cert and --key")
        try:
            context = https_shell.server_ssl_context(args.cert, args.key)
        except (OSError, ValueError) as exc:
            raise _UsageError(f"cannot load --cert/--key: {exc}") from None
    try:
        srv = server.make_server(description, args.host, args.port, ssl_context=context, timeout=args.timeout,
                                 quiet_gap=args.quiet_gap, party_options=options,
                                 log=_stderr_logger(args.quiet))
    except ValueError as exc:
        raise _UsageError(str(exc)) from None
    sys.stdout.write(f"LISTENING {srv.port}\n")
    sys.stdout.flush()
    try:
        srv.serve_forever()
    finally:
        if hasattr(srv, "server_close"):
            srv.server_close()
    return EXIT_OK


def _described_client(args: argparse.Namespace) -> int:
    from .described import DescriptionError, server
    description = _load_description(args.protocol)
    options = _described_options(args)
    if args.message is not None:
        options["message"] = args.message.encode("utf-8")
    conversation = args.conversation or description.conversations[0].name
    port = args.port if args.port is not None else description.transport.port
    if port is None:
        raise _UsageError("--port is required: the description names no transport.port")
    if description.transport.kind == "https" and not args.pin:
        raise _UsageError("an https description needs --pin (the server's certificate, the one trusted)")
    try:
        transcript = server.run_client(description, conversation, args.host, port, timeout=args.timeout,
                                       quiet_gap=args.quiet_gap, pin=args.pin, server_name=args.server_name,
                                       party_options=options)
    except (DescriptionError, ValueError) as exc:
        raise _UsageError(str(exc)) from None
    for entry in transcript["log"]:
        _stdout_line(entry)
    _stdout_line({"conversation": conversation, "ok": transcript["ok"], "outcome": transcript["outcome"],
                  "values": transcript["values"], "weak": description.weaknesses()})
    if not transcript["ok"]:
        print(f"pythonref: {conversation}: {transcript['outcome']}: {transcript['reason']}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _utc_date(text: str) -> datetime.datetime:
    try:
        return datetime.datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date YYYY-MM-DD") from None


# ---- the commands --------------------------------------------------------------------------------


def _serve_rsa_socket(args: argparse.Namespace) -> int:
    config = rsa_socket.ServerConfig(
        padding=args.padding, framing=args.framing, private_key=_rsa_key(args), max_message=args.max_message,
        digest=args.digest, message=args.message.encode("utf-8"), quirk=args.quirk, rejection=args.rsa_rejection)
    socket_shell.serve(config, args.host, args.port, timeout=args.timeout, quiet_gap=args.quiet_gap,
                       max_clients=args.max_clients, ready=_ready, log=_stderr_logger(args.quiet))
    return EXIT_OK


def _serve_aes_https(args: argparse.Namespace) -> int:
    context = None
    if not args.plain_http_for_tests:
        if not args.cert or not args.key:
            raise _UsageError("--cert and --key are required (or --plain-http-for-tests)")
        try:
            context = https_shell.server_ssl_context(args.cert, args.key)
        except (OSError, ValueError) as exc:
            raise _UsageError(f"cannot load --cert/--key: {exc}") from None
    accounts = (args.user or []) + (_users_file(args.users_file) if args.users_file else [])
    users = dict(accounts or [_user(DEFAULT_USER)])
    app = aes_https.AesHttpsServer(aes_https.AesHttpsConfig(users, args.key_mode, args.encryption_key))
    https_shell.serve(app, args.host, args.port, ssl_context=context, timeout=args.timeout,
                      max_clients=args.max_clients, ready=_ready, log=_stderr_logger(args.quiet))
    return EXIT_OK


def _client_rsa_socket(args: argparse.Namespace) -> int:
    private_key = _rsa_key(args) if args.direction == "pi-to-phone" else None
    config = rsa_socket.ClientConfig(
        direction=args.direction, padding=args.padding, framing=args.framing, max_message=args.max_message,
        digest=args.digest, private_key=private_key, plaintext=args.plaintext.encode("utf-8"),
        key_format=args.key_format, quirk=args.quirk)
    events = socket_shell.run_client(config, args.host, args.port, timeout=args.timeout, quiet_gap=args.quiet_gap,
                                     on_event=lambda e: _stdout_line({"event": e.name, **e.fields}))
    return EXIT_OK if rsa_socket.conversation_succeeded(args.direction, events) else EXIT_FAILED


def _client_aes_https(args: argparse.Namespace) -> int:
    try:
        params = text_formats.loads_strict(args.params.encode("utf-8"))
    except ValueError:
        raise _UsageError("--params is not JSON") from None
    if not isinstance(params, dict):
        raise _UsageError("--params must be a JSON object")
    ok = https_shell.run_client(args.url, args.pin, server_name=args.server_name, username=args.user[0],
                                password=args.user[1], key_mode=args.key_mode, params=params,
                                timeout=args.timeout, on_event=_stdout_line)
    return EXIT_OK if ok else EXIT_FAILED


def _server_cert(args: argparse.Namespace) -> int:
    try:
        paths, fingerprint = certs.write_server_cert(Path(args.out), args.host, args.days, args.force)
    except (ValueError, FileExistsError) as exc:
        raise _UsageError(str(exc)) from None
    for path in paths:
        print(f"wrote {path}")
    print(f"SHA-256 fingerprint {fingerprint}")
    return EXIT_OK


def _certs(args: argparse.Namespace) -> int:
    for path in certs.write_test_certs(Path(args.out)):
        print(f"wrote {path}")
    return EXIT_OK


def _ios_certs(args: argparse.Namespace) -> int:
    for path in certs.write_ios_test_certs(Path(args.out), args.not_before):
        print(f"wrote {path}")
    return EXIT_OK


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(EXIT_OK)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command in ("serve", "described-server"):
        signal.signal(signal.SIGTERM, _terminate)  # systemctl stop: a clean exit 0
    command = {
        ("serve", "rsa-socket"): _serve_rsa_socket,
        ("serve", "aes-https"): _serve_aes_https,
        ("client", "rsa-socket"): _client_rsa_socket,
        ("client", "aes-https"): _client_aes_https,
        ("server-cert", None): _server_cert,
        ("certs", None): _certs,
        ("ios-certs", None): _ios_certs,
        ("described-server", None): _described_server,
        ("described-client", None): _described_client,
    }[(args.command, getattr(args, "profile", None))]
    try:
        return command(args)
    except _UsageError as exc:
        print(f"pythonref: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except CryptoFailure as exc:  # a bad key file or configuration
        print(f"pythonref: {exc.kind.value}: {exc.detail}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # e.g. the address is in use
        print(f"pythonref: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130
