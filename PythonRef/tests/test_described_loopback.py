"""`python -m pythonref described-server` and `described-client` over loopback, as processes,
for both seeds; plus the in-thread servers against the built-in seed clients' shells."""

from __future__ import annotations

import contextlib
import os
import selectors
import subprocess
import sys
import threading
import tomllib
from pathlib import Path
from typing import Iterator

import pytest

from pythonref import certs, https_shell, rsa_keys, socket_shell
from pythonref import rsa_socket as rs
from pythonref.described import load
from pythonref.described import server as dserver

ROOT = Path(__file__).resolve().parents[1]
PROTOCOLS = ROOT.parent / "protocols"
RSA_SOCKET = PROTOCOLS / "rsa-socket.toml"
AES_HTTPS = PROTOCOLS / "aes-https.toml"
START_TIMEOUT = 30.0
RUN_TIMEOUT = 60.0


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _wait_listening(proc: subprocess.Popen[str]) -> int:
    """The port from the server's `LISTENING <port>` line, waiting at most START_TIMEOUT."""
    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(START_TIMEOUT):
            raise AssertionError("the server did not print LISTENING in time")
    line = proc.stdout.readline()
    assert line.startswith("LISTENING "), (line, proc.stderr.read() if proc.poll() is not None else "")
    return int(line.split()[1])


@contextlib.contextmanager
def _server(protocol: Path, *extra: str) -> Iterator[tuple[subprocess.Popen[str], int]]:
    proc = subprocess.Popen([sys.executable, "-m", "pythonref", "described-server", "--protocol", str(protocol),
                             "--port", "0", "--quiet", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=_env(), cwd=ROOT)
    try:
        yield proc, _wait_listening(proc)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def _client(protocol: Path, port: int, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pythonref", "described-client", "--protocol", str(protocol),
                           "--port", str(port), *extra], capture_output=True, text=True, env=_env(), cwd=ROOT,
                          timeout=RUN_TIMEOUT)


@pytest.fixture(scope="module")
def rsa_socket_server() -> Iterator[int]:
    with _server(RSA_SOCKET) as (_, port):
        yield port


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("certs")
    certs.write_test_certs(out)
    return out


@pytest.mark.parametrize("conversation", ["phone-to-pi", "pi-to-phone"])
def test_rsa_socket_over_loopback(rsa_socket_server: int, conversation: str) -> None:
    done = _client(RSA_SOCKET, rsa_socket_server, "--conversation", conversation)
    assert done.returncode == 0, done.stderr
    assert '"ok": true' in done.stdout.splitlines()[-1]


def test_aes_https_over_loopback(tls: Path) -> None:
    with _server(AES_HTTPS, "--cert", str(tls / "pinned.crt.pem"), "--key", str(tls / "pinned.key.pem")) as (_, port):
        done = _client(AES_HTTPS, port, "--pin", str(tls / "pinned.crt.pem"), "--server-name", "localhost",
                       "--message", "over TLS")
        assert done.returncode == 0, done.stderr
        assert '"echo": {"message": "over TLS"}' in done.stdout
        impostor = _client(AES_HTTPS, port, "--pin", str(tls / "impostor.crt.pem"), "--server-name", "localhost")
        assert impostor.returncode == 1 and "io-error" in impostor.stderr


def test_a_refusal_exits_1_with_the_reason(rsa_socket_server: int, tmp_path: Path) -> None:
    doc = RSA_SOCKET.read_text().replace('padding = "pkcs1", carries = "message" } ] }',
                                         'padding = "oaep-sha1", carries = "message" } ] }')
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(doc)
    assert tomllib.loads(doc)["conversation"][0]["step"][2]["send"]["concat"][1]["padding"] == "oaep-sha1"
    done = _client(wrong, rsa_socket_server, "--conversation", "phone-to-pi")
    assert done.returncode == 1
    assert "refused" in done.stderr and "error value" in done.stderr


def test_a_bad_description_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(RSA_SOCKET.read_text().replace("bits = 2048", "bits = 1000", 1))
    done = _client(bad, 9)
    assert done.returncode == 64 and "keys.server.bits" in done.stderr


# ---- in-thread servers against the built-in seed clients' own shells ------------------------------


def _thread(srv: object) -> threading.Thread:
    thread = threading.Thread(target=srv.serve_forever, daemon=True)  # type: ignore[attr-defined]
    thread.start()
    return thread


@pytest.mark.parametrize("direction", ["phone-to-pi", "pi-to-phone"])
def test_builtin_socket_client_against_described_tcp_server(direction: str, key2048: object) -> None:
    srv = dserver.make_server(load(RSA_SOCKET))
    thread = _thread(srv)
    try:
        config = rs.ClientConfig(direction=direction, padding="pkcs1", framing="legacy", plaintext=b"hi",
                                 private_key=rsa_keys.export_private(key2048, "pkcs8-pem"))  # type: ignore[arg-type]
        events = socket_shell.run_client(config, "127.0.0.1", srv.port, timeout=10)
        assert rs.conversation_succeeded(direction, events), events
    finally:
        srv.shutdown()
        thread.join(timeout=5)


def test_builtin_https_client_against_described_https_server(tls: Path) -> None:
    ctx = https_shell.server_ssl_context(str(tls / "pinned.crt.pem"), str(tls / "pinned.key.pem"))
    srv = dserver.make_server(load(AES_HTTPS), ssl_context=ctx)
    thread = _thread(srv)
    events: list[dict[str, object]] = []
    try:
        ok = https_shell.run_client(f"https://127.0.0.1:{srv.port}", str(tls / "pinned.crt.pem"),
                                    server_name="localhost", username="user", password="password",
                                    key_mode="utf8-zeropad16", params={"message": "seed client"}, timeout=10,
                                    on_event=events.append)
        assert ok, events
    finally:
        srv.shutdown()  # type: ignore[union-attr]
        srv.server_close()  # type: ignore[union-attr]
        thread.join(timeout=5)


def test_described_client_against_builtin_https_server(tls: Path) -> None:
    from pythonref import aes_https
    app = aes_https.AesHttpsServer(aes_https.AesHttpsConfig({"user": "password"}, "utf8-zeropad16"))
    ctx = https_shell.server_ssl_context(str(tls / "pinned.crt.pem"), str(tls / "pinned.key.pem"))
    srv = https_shell.AesHttpsHttpServer(("127.0.0.1", 0), app, ctx, 10.0, 8, lambda _: None)
    thread = _thread(srv)
    try:
        out = dserver.run_client(load(AES_HTTPS), "secure-data", "127.0.0.1", srv.server_port,
                                 pin=str(tls / "pinned.crt.pem"), server_name="localhost", timeout=10)
        assert out["ok"], out["reason"]
        assert out["values"]["secret:session"] == app.encryption_key.encode()
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=5)


def test_described_client_against_builtin_socket_server() -> None:
    # The built-in server as a process: socket_shell.serve has no stop, and a thread left serving
    # would disturb other test files that watch the process's threads.
    proc = subprocess.Popen([sys.executable, "-m", "pythonref", "serve", "rsa-socket", "--port", "0", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(), cwd=ROOT)
    try:
        assert proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            assert sel.select(START_TIMEOUT), "the built-in server did not listen in time"
        line = proc.stdout.readline()
        assert line.startswith("listening on "), line
        port = int(line.rsplit(":", 1)[1])
        for conversation in ("phone-to-pi", "pi-to-phone"):
            out = dserver.run_client(load(RSA_SOCKET), conversation, "127.0.0.1", port, timeout=10)
            assert out["ok"], (conversation, out["reason"])
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


# ---- the small descriptions' framings and keep-alive HTTP on real sockets -------------------------


@pytest.mark.parametrize("name", ["gcm-tag-field", "chacha-line", "ctr-digest", "ecb-json-ne", "cbc-der",
                                  "fernet-http"])
def test_small_descriptions_over_loopback(name: str) -> None:
    from test_described import PSK, SMALL
    from pythonref.described import loads
    desc = loads(SMALL[name])
    options = PSK if name == "chacha-line" else {}
    srv = dserver.make_server(desc, party_options=options, quiet_gap=0.2)
    thread = _thread(srv)
    try:
        out = dserver.run_client(desc, desc.conversations[0].name, "127.0.0.1", srv.port, timeout=10,
                                 quiet_gap=0.2, party_options=options)
        assert out["ok"], out["reason"]
        assert [entry["from"] for entry in out["log"]] == [s.sender for s in desc.conversations[0].steps]
    finally:
        srv.shutdown()
        if hasattr(srv, "server_close"):
            srv.server_close()
        thread.join(timeout=5)
