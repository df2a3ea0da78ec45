"""team_host: a team's own server loaded and served the way `crosscheck run --server` does it."""

from __future__ import annotations

import socket
import textwrap
import time

import pytest

from pythonref import team_host


def write(tmp_path, name: str, source: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def load(tmp_path, name: str, source: str, obj: str) -> dict:
    return team_host.load(f"{write(tmp_path, name, source)}:{obj}", "", "")


SERVERS = '''
    import socketserver

    COUNT = []

    class Echo(socketserver.BaseRequestHandler):
        def handle(self):
            COUNT.append(1)
            data = self.request.recv(100)
            self.request.sendall(b"echo:" + data + b":%d" % len(COUNT))

    def handle(conn, addr):
        conn.sendall(conn.recv(100).upper())

    def raising(conn, addr):
        conn.recv(100)
        raise RuntimeError("planted")

    def spinning(conn, addr):
        while True:
            conn.recv(100)  # b"" forever once the client is gone

    def app(environ, start_response):
        body = repr(sorted((k, v) for k, v in environ.items() if k.isupper())).encode()
        body += b"|" + environ["wsgi.input"].read()
        start_response("201 Created", [("Content-Type", "text/plain"), ("X-Two", "a"), ("X-Two", "b")])
        return [body]

    def broken_app(environ, start_response):
        raise ValueError("planted in the app")

    def slow_app(environ, start_response):
        import time
        while True:
            time.sleep(0.01)

    def something(a, b):
        return None

    NOT_CALLABLE = 3
'''


@pytest.fixture()
def servers(tmp_path):
    return lambda obj: load(tmp_path, "team_servers_under_test.py", SERVERS, obj)


def converse(server_id: int, request: bytes) -> bytes:
    ours, theirs = socket.socketpair()
    team_host.serve_connection(server_id, theirs.detach())
    ours.sendall(request)
    ours.settimeout(5)
    answer = b""
    while True:
        chunk = ours.recv(1000)
        if not chunk:
            break
        answer += chunk
    ours.close()
    return answer


def test_load_tells_the_shapes(servers):
    assert servers("Echo")["kind"] == "socket-handler-class"
    assert servers("handle")["kind"] == "socket-function"
    assert servers("app")["kind"] == "wsgi"
    assert servers("something")["kind"] == "callable"
    refused = servers("NOT_CALLABLE")
    assert refused["err"] == "bad-input" and "is a int" in refused["message"]


def test_load_errors_say_what_to_fix(tmp_path):
    assert team_host.load(str(tmp_path / "nope.py") + ":x", "", "")["err"] == "bad-input"
    wrong = load(tmp_path, "has_names.py", "handler = 1\nother = 2\n", "Handler")
    assert wrong["err"] == "bad-input" and "has no 'Handler'" in wrong["message"] and "handler, other" in wrong["message"]
    missing = load(tmp_path, "imports_missing.py", "import crosscheck_missing_module_cc20\n", "x")
    assert missing["err"] == "missing-module" and missing["module"] == "crosscheck_missing_module_cc20"
    assert "Traceback" in missing["traceback"]
    raising = load(tmp_path, "raises_at_import.py", "x = 1 / 0\n", "x")
    assert raising["err"] == "bad-input" and "ZeroDivisionError" in raising["message"]
    assert team_host.load("no_such_module_cc20:x", str(tmp_path), "")["err"] == "bad-input"


def test_main_guard_does_not_run(tmp_path):
    loaded = load(tmp_path, "guarded.py", "def handle(conn, addr): pass\nif __name__ == '__main__':\n    raise SystemExit('ran')\n", "handle")
    assert loaded["kind"] == "socket-function"


def test_socket_handlers_are_served_over_the_pair_and_keep_module_state(servers):
    echo = servers("Echo")["ok"]
    assert converse(echo, b"hi") == b"echo:hi:1"
    assert converse(echo, b"again") == b"echo:again:2"  # module globals persist
    assert team_host.check_ended(echo, 2) == {"ok": []}
    function = servers("handle")["ok"]
    assert converse(function, b"abc") == b"ABC"


def test_a_raising_handler_is_a_problem_with_its_traceback(servers):
    server = servers("raising")["ok"]
    converse(server, b"x")
    problems = team_host.check_ended(server, 2)["ok"]
    assert [p["kind"] for p in problems] == ["raised"]
    assert "RuntimeError: planted" in problems[0]["message"] and "Traceback" in problems[0]["details"]


def test_a_handler_that_never_ends_is_cut_off(servers):
    server = servers("spinning")["ok"]
    ours, theirs = socket.socketpair()
    team_host.serve_connection(server, theirs.detach())
    ours.sendall(b"x")
    ours.close()  # the client has gone; the handler keeps reading b""
    started = time.monotonic()
    problems = team_host.check_ended(server, 0.5)["ok"]
    assert [p["kind"] for p in problems] == ["blocked"]
    assert "cut off" in problems[0]["message"]
    assert time.monotonic() - started < 30  # a hang detector only
    assert team_host.check_ended(server, 0.5) == {"ok": []}


def test_wsgi_gets_a_real_environ(servers):
    app = servers("app")["ok"]
    reply = team_host.wsgi_request(app, "POST", "/secure%2Ddata?x=1", {"content-type": "application/x-www-form-urlencoded",
                                                                       "authorization": "tok", "content-length": "99"},
                                   b"body!", 5)["ok"]
    assert reply["status"] == 201
    assert ["X-Two", "a"] in reply["headers"] and ["X-Two", "b"] in reply["headers"]
    environ, body = reply["body"].split(b"|")
    assert body == b"body!"
    for pair in [("PATH_INFO", "/secure-data"), ("QUERY_STRING", "x=1"), ("REQUEST_METHOD", "POST"), ("CONTENT_LENGTH", "5"),
                 ("CONTENT_TYPE", "application/x-www-form-urlencoded"), ("HTTP_AUTHORIZATION", "tok")]:
        assert repr(pair).encode() in environ
    assert b"HTTP_CONTENT_TYPE" not in environ and b"HTTP_CONTENT_LENGTH" not in environ


def test_a_raising_app_answers_500_and_is_a_problem(servers):
    app = servers("broken_app")["ok"]
    assert team_host.wsgi_request(app, "GET", "/", {}, b"", 5)["ok"]["status"] == 500
    problems = team_host.check_ended(app, 1)["ok"]
    assert problems[0]["kind"] == "raised" and "planted in the app" in problems[0]["message"]


def test_a_slow_app_is_cut_off_at_the_timeout(servers):
    app = servers("slow_app")["ok"]
    assert team_host.wsgi_request(app, "GET", "/", {}, b"", 0.3) == {"err": "timeout"}
    assert team_host.check_ended(app, 1)["ok"][0]["kind"] == "blocked"


def test_the_private_key_is_found_when_the_module_holds_one(tmp_path):
    one = load(tmp_path, "with_key.py", """
        from cryptography.hazmat.primitives.asymmetric import rsa
        KEY = rsa.generate_private_key(public_exponent=65537, key_size=1024)
        def handle(conn, addr): pass
    """, "handle")["ok"]
    assert team_host.private_key_pem(one)["ok"].startswith(b"-----BEGIN PRIVATE KEY-----")
    none = load(tmp_path, "without_key.py", "def handle(conn, addr): pass\n", "handle")["ok"]
    assert team_host.private_key_pem(none) == {"err": "none"}
