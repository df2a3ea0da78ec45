"""team_host: a team's own server loaded and served the way `crosscheck run --server` does it."""

from __future__ import annotations

import math
import os
import socket
import struct
import sys
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

    import threading
    SERVED = threading.local()  # requests this thread has served

    def thread_app(environ, start_response):
        import time
        SERVED.count = getattr(SERVED, "count", 0) + 1
        while environ["PATH_INFO"] == "/slow":
            time.sleep(0.01)
        start_response("200 OK", [])
        if environ["PATH_INFO"] == "/affinity":  # what a thread the application starts may run on
            import os, threading
            seen = []
            started = threading.Thread(target=lambda: seen.append(sorted(os.sched_getaffinity(0))))
            started.start(); started.join()
            return [repr(seen[0]).encode()]
        return [str(SERVED.count).encode()]

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


def test_a_handler_found_spinning_once_is_not_waited_on_for_the_whole_timeout_again(servers):
    """Issue 33: a spinning handler cost every later check its whole timeout."""
    server = servers("spinning")["ok"]
    messages = []
    for _ in range(2):
        ours, theirs = socket.socketpair()
        team_host.serve_connection(server, theirs.detach())
        ours.sendall(b"x")
        ours.close()
        messages += [p["message"] for p in team_host.check_ended(server, 5)["ok"]]
    assert messages[0].startswith("the server's handler was still running 5 s after the client had closed the connection: cut off")
    assert messages[1].startswith(f"the server's handler was still running {team_host.CUT_OFF_GRACE:g} s after the client had closed "
                                  "the connection (one was found spinning before: not waited on again for the whole timeout)")


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


def test_requests_share_one_application_thread_until_one_is_cut_off(servers):
    app = servers("thread_app")["ok"]
    served = [team_host.wsgi_request(app, "GET", "/", {}, b"", 5)["ok"]["body"] for _ in range(2)]
    assert served == [b"1", b"2"]  # one worker serves request after request
    assert team_host.wsgi_request(app, "GET", "/slow", {}, b"", 0.3) == {"err": "timeout"}
    after = team_host.wsgi_request(app, "GET", "/", {}, b"", 5)["ok"]
    assert (after["status"], after["body"]) == (200, b"1")  # a new worker after the cut-off
    assert [p["kind"] for p in team_host.check_ended(app, 1)["ok"]] == ["blocked"]


def test_the_caller_shares_the_application_threads_core_only_for_the_request(servers):
    app = servers("thread_app")["ok"]
    before = os.sched_getaffinity(0)
    assert team_host.wsgi_request(app, "GET", "/", {}, b"", 5)["ok"]["status"] == 200
    assert os.sched_getaffinity(0) == before  # the caller's own mask is back, also after a cut-off:
    assert team_host.wsgi_request(app, "GET", "/slow", {}, b"", 0.3) == {"err": "timeout"}
    assert os.sched_getaffinity(0) == before
    assert team_host.wsgi_request(app, "GET", "/", {}, b"", 5)["ok"]["status"] == 200
    worker = team_host._hosted[app].wsgi_worker
    if len(before) > 1:
        assert worker.core == {min(before)}
        # The application runs with the process's CPUs: what it starts inherits no pinning.
        assert team_host.wsgi_request(app, "GET", "/affinity", {}, b"", 5)["ok"]["body"] == repr(sorted(before)).encode()
    team_host.check_ended(app, 1)


def test_the_private_key_is_found_when_the_module_holds_one(tmp_path):
    one = load(tmp_path, "with_key.py", """
        from cryptography.hazmat.primitives.asymmetric import rsa
        KEY = rsa.generate_private_key(public_exponent=65537, key_size=1024)
        def handle(conn, addr): pass
    """, "handle")["ok"]
    assert team_host.private_key_pem(one)["ok"].startswith(b"-----BEGIN PRIVATE KEY-----")
    none = load(tmp_path, "without_key.py", "def handle(conn, addr): pass\n", "handle")["ok"]
    assert team_host.private_key_pem(none) == {"err": "none"}


def test_a_key_the_server_makes_at_import_and_never_sends_is_found_by_its_public_half(tmp_path):
    # A WSGI app object's __module__ is its framework's: the key is looked for in the module loaded.
    held = load(tmp_path, "held_key.py", """
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec, rsa
        KEY = rsa.generate_private_key(public_exponent=65537, key_size=1024)
        PUBLIC_PEM = KEY.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
        SIGNER = ec.generate_private_key(ec.SECP256R1())
        class App:
            def __call__(self, environ, start_response):
                start_response("200 OK", [])
                return [b""]
        App.__module__ = "someframework.app"
        app = App()
    """, "app")["ok"]
    from cryptography.hazmat.primitives import serialization
    found = team_host.held_public_key(held, "rsa")
    module = sys.modules["held_key"]
    assert found["ok"] == module.KEY.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    assert found["names"] == ["KEY", "PUBLIC_PEM"]  # one key, wherever it is kept
    ec_found = team_host.held_public_key(held, "ec-p256")
    assert ec_found["ok"] == module.SIGNER.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    several = load(tmp_path, "two_keys.py", """
        from cryptography.hazmat.primitives.asymmetric import rsa
        A = rsa.generate_private_key(public_exponent=65537, key_size=1024)
        B = rsa.generate_private_key(public_exponent=65537, key_size=1024)
        NOT_A_KEY = "-----BEGIN PUBLIC KEY-----\\nnonsense\\n-----END PUBLIC KEY-----\\n"
        def handle(conn, addr): pass
    """, "handle")["ok"]
    assert team_host.held_public_key(several, "rsa") == {"err": "several", "names": ["A", "B"]}
    none = load(tmp_path, "no_key.py", "def handle(conn, addr): pass\n", "handle")["ok"]
    assert team_host.held_public_key(none, "rsa") == {"err": "none", "names": []}
    assert team_host.held_public_key(none, "ec-p256") == {"err": "none", "names": []}
    # A public key alone is no evidence: a server that keeps only a client's key holds none of its own.
    client_only = load(tmp_path, "client_only.py", """
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        CLIENT_PUBLIC_PEM = rsa.generate_private_key(public_exponent=65537, key_size=1024).public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        def handle(conn, addr): pass
    """, "handle")["ok"]
    assert team_host.held_public_key(client_only, "rsa") == {"err": "none", "names": []}
    # A PyCryptodome (or pycryptodomex) key object, by its API: publickey().export_key(format="DER"), has_private().
    cryptodome = load(tmp_path, "cryptodome_key.py", """
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        _KEY = rsa.generate_private_key(public_exponent=65537, key_size=1024)
        class RsaKey:
            def __init__(self, private): self.private = private
            def has_private(self): return self.private
            def publickey(self): return RsaKey(False)
            def export_key(self, format="PEM"):
                return _KEY.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        RsaKey.__module__ = "Cryptodome.PublicKey.RSA"
        SERVER_KEY = RsaKey(True)
        def handle(conn, addr): pass
    """, "handle")["ok"]
    held = team_host.held_public_key(cryptodome, "rsa")
    assert sorted(held["names"]) == ["SERVER_KEY", "_KEY"]  # the object read through its API, the same key
    assert held["ok"] == sys.modules["cryptodome_key"]._KEY.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


ADAPTED = '''
    import asyncio
    import socket

    SEEN = []

    async def upper(reader, writer):
        data = await reader.read(100)
        SEEN.append(data)
        writer.write(data.upper() + b":%d" % len(SEEN))
        await writer.drain()
        writer.close()

    async def raising(reader, writer):
        await reader.read(100)
        raise RuntimeError("planted in a coroutine")

    async def stuck(reader, writer):
        await reader.read(100)
        await asyncio.sleep(3600)

    class OwnLoop:
        """A server with its own accept loop; the adapter hands over its per-client method."""
        def __init__(self, greeting):
            self.greeting = greeting
        def serve_forever(self, port):
            listener = socket.create_server(("127.0.0.1", port))
            while True:
                self.client(*listener.accept())
        def client(self, conn, addr):
            conn.sendall(self.greeting + conn.recv(100))

    def make_server():
        return OwnLoop(b"hello ").client

    def make_asyncio_server():
        return upper

    def make_nothing():
        return 3

    def make_raising():
        raise OSError("port in use")
'''


@pytest.fixture()
def adapted(tmp_path):
    return lambda obj: load(tmp_path, "team_adapted_under_test.py", ADAPTED, obj)


def test_asyncio_stream_handlers_share_one_loop_and_keep_state(adapted):
    loaded = adapted("upper")
    assert loaded["kind"] == "asyncio-stream-handler"
    assert converse(loaded["ok"], b"ab") == b"AB:1"
    assert converse(loaded["ok"], b"cd") == b"CD:2"
    assert team_host.check_ended(loaded["ok"], 2) == {"ok": []}


def test_a_raising_coroutine_is_a_problem_with_its_traceback(adapted):
    server = adapted("raising")["ok"]
    assert converse(server, b"x") == b""  # the stream ends when the coroutine does
    problems = team_host.check_ended(server, 2)["ok"]
    assert [p["kind"] for p in problems] == ["raised"]
    assert "planted in a coroutine" in problems[0]["message"] and "Traceback" in problems[0]["details"]


def test_a_coroutine_that_never_ends_is_cancelled_and_reported_where_it_waits(adapted):
    server = adapted("stuck")["ok"]
    ours, theirs = socket.socketpair()
    team_host.serve_connection(server, theirs.detach())
    ours.sendall(b"x")
    ours.close()
    problems = team_host.check_ended(server, 0.5)["ok"]
    assert [p["kind"] for p in problems] == ["blocked"]
    assert "asyncio.sleep(3600)" in problems[0]["details"]
    assert team_host.check_ended(server, 0.5) == {"ok": []}


def test_an_adapter_function_without_parameters_returns_the_shape_to_serve(adapted):
    socket_shape = adapted("make_server")
    assert socket_shape["kind"] == "socket-function"
    assert converse(socket_shape["ok"], b"pi") == b"hello pi"
    asyncio_shape = adapted("make_asyncio_server")
    assert asyncio_shape["kind"] == "asyncio-stream-handler"
    nothing = adapted("make_nothing")
    assert nothing["err"] == "bad-input" and "make_nothing() is a int" in nothing["message"]
    raising = adapted("make_raising")
    assert raising["err"] == "bad-input" and "make_raising() raised OSError: port in use" in raising["message"]
    assert "Traceback" in raising["traceback"]


READERS = '''
    import socketserver

    class Lines(socketserver.StreamRequestHandler):
        def handle(self):
            self.connection.settimeout(7.0)
            self.wfile.write(self.rfile.readline().upper())
            self.rfile.readline()

    def two_reads(conn, addr):
        conn.sendall(conn.recv(3))
        conn.recv(3)

    def with_writer(conn, addr):
        import socket, threading
        try:
            conn.recv(3, socket.MSG_DONTWAIT)  # never blocks: not reported
        except BlockingIOError:
            pass
        data = conn.recv(3)
        done = threading.Event()
        writer = threading.Thread(target=lambda: (done.wait(5), conn.sendall(data)))
        writer.start()
        conn.recv(3)  # the writer may write meanwhile: not reported as blocked
        done.set()
        writer.join()
'''


def reports(fd: int) -> list[tuple[int, int, float]]:
    """Every record team_host wrote to the watch pipe until its handler closed it."""
    data = b""
    while chunk := os.read(fd, 4096):
        data += chunk
    os.close(fd)
    assert len(data) % 24 == 0
    return [struct.unpack_from("<B7xQd", data, offset) for offset in range(0, len(data), 24)]


def serve_watched(server_id: int, sent_before: bytes = b"") -> tuple[socket.socket, int]:
    """A connection the server serves with its reads watched (`sent_before` already waiting when
    it starts): our end (5 s timeout) and the read end of the watch pipe."""
    ours, theirs = socket.socketpair()
    ours.sendall(sent_before)
    watch_read, watch_write = os.pipe()
    team_host.serve_connection(server_id, theirs.detach(), watch_write)
    ours.settimeout(5)
    return ours, watch_read


def next_record(fd: int) -> tuple[int, int, float]:
    """The next record on the watch pipe, waited for."""
    return struct.unpack("<B7xQd", os.read(fd, 24))


def watched(server_id: int, request: bytes, from_first_wait: bool = False) -> tuple[bytes, list[tuple[int, int, float]]]:
    """`request` sent, the answer read, then the end of the stream (the handler's next read returns
    it): the answer and every record. `from_first_wait`: the request goes only once the handler
    waits for it (data already there when an asyncio handler first waits is ready to be fed in,
    and then the server is not idle)."""
    ours, watch_read = serve_watched(server_id)
    first = [next_record(watch_read)] if from_first_wait else []
    ours.sendall(request)
    answer = ours.recv(100)
    ours.shutdown(socket.SHUT_WR)
    records = first + reports(watch_read)
    ours.close()
    return answer, records


def test_every_read_is_reported_blocked_then_returned_with_the_bytes_read_so_far(tmp_path):
    server = load(tmp_path, "readers.py", READERS, "two_reads")["ok"]
    answer, records = watched(server, b"abc")
    assert answer == b"abc"
    assert [(blocked, read) for blocked, read, _ in records] == [(1, 0), (0, 3), (1, 3), (0, 3)]
    assert all(math.isinf(deadline) for _, _, deadline in records)  # a blocking socket: no deadline


def test_buffered_reads_are_reported_with_the_socket_timeout_as_deadline(tmp_path):
    server = load(tmp_path, "readers.py", READERS, "Lines")["ok"]
    before = time.monotonic()
    answer, records = watched(server, b"one\n")
    assert answer == b"ONE\n"
    # rfile reads through recv_into; the second readline blocks until the end of the stream.
    assert [(blocked, read) for blocked, read, _ in records][:3] == [(1, 0), (0, 4), (1, 4)]
    assert all(before + 7.0 <= deadline <= time.monotonic() + 7.0 for _, _, deadline in records)


def test_reads_while_a_thread_of_the_team_lives_are_not_reported_blocked(tmp_path):
    server = load(tmp_path, "readers.py", READERS, "with_writer")["ok"]
    ours, watch_read = serve_watched(server)
    first = next_record(watch_read)  # the handler is in its first reported read: past the MSG_DONTWAIT one
    ours.sendall(b"abc")
    ours.shutdown(socket.SHUT_WR)  # the second read returns the end of the stream; then the writer writes
    assert ours.recv(100) == b"abc"
    records = [first] + reports(watch_read)
    ours.close()
    # The MSG_DONTWAIT read left no record; the read while the writer thread lived is not "blocked".
    assert [(blocked, read) for blocked, read, _ in records] == [(1, 0), (0, 3), (0, 3), (0, 3)]


ASYNC_READERS = '''
    import asyncio

    async def echo_then_read(reader, writer):
        writer.write(await asyncio.wait_for(reader.read(3), 7.0))
        await writer.drain()
        await reader.read(3)

    async def plain_reads(reader, writer):
        writer.write(await reader.readexactly(3))
        await reader.read(3)

    async def writer_task_ready(reader, writer):
        async def later():
            writer.write(b"late")
        asyncio.get_running_loop().create_task(later())  # ready to run when the read below waits
        await reader.read(3)
        await reader.read(3)

    async def writer_task_sleeping(reader, writer):
        async def later():
            await asyncio.sleep(0.5)
            writer.write(b"late")
        task = asyncio.get_running_loop().create_task(later())
        await asyncio.sleep(0)  # the task starts and sleeps: the loop's next timer is its wake-up
        await reader.read(3)
        await task

    async def answer_still_queued(reader, writer):
        writer.write(b"x" * 4_000_000)  # more than a socket pair holds: the transport keeps the rest
        await reader.read(3)

    async def other_io(reader, writer):
        import socket
        mine, other = socket.socketpair()  # e.g. a connection to a database
        loop = asyncio.get_running_loop()
        loop.add_reader(mine.fileno(), lambda: None)
        writer.write(b"ok")
        await reader.read(3)
        loop.remove_reader(mine.fileno())
        mine.close(), other.close()
'''


def test_asyncio_reads_are_reported_with_the_loops_next_timer_as_deadline(tmp_path):
    server = load(tmp_path, "async_readers.py", ASYNC_READERS, "echo_then_read")["ok"]
    before = time.monotonic()
    answer, records = watched(server, b"abc", from_first_wait=True)
    assert answer == b"abc"
    # The transport fed the three bytes in; the handler answered and waits again (the end of the
    # stream ends that wait). wait_for's timer is the first wait's deadline; the second has none.
    assert [(blocked, read) for blocked, read, _ in records] == [(1, 0), (0, 3), (1, 3), (0, 3)]
    assert before + 7.0 <= records[0][2] <= time.monotonic() + 7.0
    assert math.isinf(records[2][2])
    assert team_host.check_ended(server, 2) == {"ok": []}


def test_asyncio_plain_reads_are_reported_without_a_deadline(tmp_path):
    server = load(tmp_path, "async_readers.py", ASYNC_READERS, "plain_reads")["ok"]
    answer, records = watched(server, b"abc", from_first_wait=True)
    assert answer == b"abc"
    assert [(blocked, read) for blocked, read, _ in records] == [(1, 0), (0, 3), (1, 3), (0, 3)]
    assert all(math.isinf(deadline) for blocked, _, deadline in records if blocked)


def test_asyncio_bytes_already_there_when_it_waits_are_not_a_blocked_wait(tmp_path):
    server = load(tmp_path, "async_readers.py", ASYNC_READERS, "plain_reads")["ok"]
    ours, watch_read = serve_watched(server, sent_before=b"abc")
    assert ours.recv(100) == b"abc"
    ours.shutdown(socket.SHUT_WR)
    records = reports(watch_read)
    ours.close()
    # Whatever the loop had done when the handler first waited, it was never idle before all three
    # bytes were fed in: no record says blocked with fewer read.
    assert not [record for record in records if record[0] == 1 and record[1] < 3], records


def test_asyncio_a_task_ready_to_write_is_not_reported_blocked(tmp_path):
    server = load(tmp_path, "async_readers.py", ASYNC_READERS, "writer_task_ready")["ok"]
    answer, records = watched(server, b"abc", from_first_wait=True)
    assert answer == b"late"
    assert [(blocked, read) for blocked, read, _ in records][0] == (0, 0)  # nothing sent yet: the task is why


def test_asyncio_an_answer_still_queued_in_the_transport_is_not_a_blocked_wait(tmp_path):
    server = load(tmp_path, "async_readers.py", ASYNC_READERS, "answer_still_queued")["ok"]
    ours, watch_read = serve_watched(server)
    assert next_record(watch_read)[:2] == (0, 0)
    received = 0
    while received < 4_000_000:
        received += len(ours.recv(1 << 20))
    ours.sendall(b"abc")
    reports(watch_read)
    ours.close()


def test_asyncio_a_loop_watching_other_descriptors_is_not_a_blocked_wait(tmp_path):
    server = load(tmp_path, "async_readers.py", ASYNC_READERS, "other_io")["ok"]
    answer, records = watched(server, b"abc", from_first_wait=True)
    assert answer == b"ok"
    assert [(blocked, read) for blocked, read, _ in records][0] == (0, 0)  # the other socket may wake it


def test_asyncio_a_sleeping_task_makes_its_wake_up_the_deadline(tmp_path):
    server = load(tmp_path, "async_readers.py", ASYNC_READERS, "writer_task_sleeping")["ok"]
    before = time.monotonic()
    ours, watch_read = serve_watched(server)
    blocked, read, deadline = next_record(watch_read)
    # Blocked until the client writes or the sleep ends: the harness waits that long, then reads on.
    assert (blocked, read) == (1, 0) and before < deadline <= time.monotonic() + 0.5
    assert ours.recv(100) == b"late"
    ours.sendall(b"abc")
    reports(watch_read)
    ours.close()
    assert team_host.check_ended(server, 2) == {"ok": []}


def test_a_server_loop_at_module_level_is_refused_at_once_with_what_to_do(tmp_path):
    accepting = load(tmp_path, "tutorial_loop.py", """
        import socket
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        while True:
            conn, addr = server.accept()
    """, "conn")
    assert accepting["err"] == "own-loop"  # crosscheck run then runs the file as its own process
    assert "calls socket.accept() while it is imported" in accepting["message"]
    assert 'if __name__ == "__main__":' in accepting["message"] and "adapter" in accepting["message"]
    serving = load(tmp_path, "serves_forever.py", """
        import socketserver
        class Handler(socketserver.BaseRequestHandler):
            def handle(self): pass
        socketserver.TCPServer(("127.0.0.1", 0), Handler).serve_forever()
    """, "Handler")
    assert serving["err"] == "own-loop" and "serve_forever() while it is imported" in serving["message"]
    # Restored afterwards: serving works again.
    assert socket.socket.accept.__name__ == "accept"


def test_an_import_that_never_returns_is_interrupted_at_the_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(team_host, "LOAD_LIMIT", 0.3)
    spinning = load(tmp_path, "spins_at_import.py", """
        import time
        while True:
            time.sleep(0.01)
    """, "x")
    assert spinning["err"] == "own-loop" and "did not return within 0.3 s" in spinning["message"]
    assert "spins_at_import.py" in spinning["traceback"]  # where it was


def test_asgi_apps_are_refused_saying_what_to_do_and_socket_functions_are_told_by_their_parameters(tmp_path):
    asgi = load(tmp_path, "asgi_app.py", "async def app(scope, receive, send):\n    pass\n", "app")
    assert asgi["err"] == "bad-input" and "ASGI application" in asgi["message"] and "crosscheck remote" in asgi["message"]
    function = load(tmp_path, "ssock.py", "def handle_incoming_conn(ssock, addr):\n    pass\n", "handle_incoming_conn")
    assert function["kind"] == "socket-function"


def test_a_main_that_serves_is_not_taken_for_a_factory(tmp_path):
    main = load(tmp_path, "has_main.py", """
        import socket
        def main():
            server = socket.socket()
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            server.accept()
    """, "main")
    assert main["err"] == "own-loop"
    assert "main() calls socket.accept(): it runs the server's own loop, not a factory" in main["message"]


def test_a_refused_module_level_loop_leaves_its_port_free_for_its_own_process(tmp_path):
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    refused = load(tmp_path, "binds_then_accepts.py", f"""
        import socket
        server = socket.socket()
        server.bind(("127.0.0.1", {port}))
        server.listen(1)
        conn, addr = server.accept()
    """, "conn")
    assert refused["err"] == "own-loop"
    again = socket.socket()
    again.bind(("127.0.0.1", port))  # raises EADDRINUSE if the refused import's socket were still open
    again.close()


def test_run_in_folder_is_python3_file_py_run_in_the_files_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(os.path.dirname(os.path.abspath(__file__)))
    monkeypatch.setattr("sys.argv", list(__import__("sys").argv))
    monkeypatch.setattr("sys.stdin", __import__("sys").stdin)
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    folder = tmp_path / "pi"
    (folder / "keys").mkdir(parents=True)
    (folder / "keys" / "secret.txt").write_text("from-the-servers-folder")
    (tmp_path / "libs").mkdir()
    (tmp_path / "libs" / "team_helper_cc32.py").write_text("VALUE = 'on PYTHONPATH'\n")
    (folder / "files_server.py").write_text(textwrap.dedent("""
        import sys
        import team_helper_cc32
        SECRET = open("keys/secret.txt").read()
        ARGS = sys.argv[1:]
        try:
            PASSPHRASE = input("passphrase: ")
        except EOFError:
            PASSPHRASE = None
        def handle(conn, addr):
            conn.sendall(SECRET.encode())
    """))
    loaded = team_host.load(str(folder / "files_server.py") + ":handle", "", str(tmp_path / "log.txt"), True,
                            ["--port", "9999"], str(tmp_path / "libs"))
    assert loaded.get("kind") == "socket-function", loaded
    module = __import__("sys").modules["files_server"]
    assert module.SECRET == "from-the-servers-folder" and os.getcwd() == str(folder)
    assert module.ARGS == ["--port", "9999"] and module.PASSPHRASE is None
    assert module.team_helper_cc32.VALUE == "on PYTHONPATH"


def test_a_server_ended_by_its_empty_stdin_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(os.path.dirname(os.path.abspath(__file__)))
    monkeypatch.setattr("sys.argv", list(__import__("sys").argv))
    monkeypatch.setattr("sys.stdin", __import__("sys").stdin)
    path = write(tmp_path, "asks_passphrase.py", "PASSPHRASE = input('passphrase: ')\ndef handle(conn, addr):\n    pass\n")
    refused = team_host.load(path + ":handle", "", str(tmp_path / "log.txt"), True, [], "")
    assert refused["err"] == "bad-input"
    assert "EOFError" in refused["message"] and "standard input" in refused["message"] and "--server-arg" in refused["message"]
