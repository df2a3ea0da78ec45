"""Hosts a team's own server code in the embedded interpreter (`crosscheck run --server FILE.py:NAME`).

The team's module is imported once, with its own folder (and `--server-path`) on `sys.path`, under
its own name (never `__main__`, so an `if __name__ == "__main__": app.run()` does not start a
server). What it keeps in module globals (tokens, keys) lives for the whole run, as on the Pi.

Two standard shapes, no adapter:
- rsa-socket: a `socketserver.BaseRequestHandler` subclass, or a function `handle(conn, addr)`. Each
  connection is one end of a socket pair the harness made; the handler runs on its own thread with
  a blocking socket, so its `recv` sees exactly the splits and pauses the harness chooses.
- aes-https: a WSGI application (PEP 3333), called with a real environ on a thread of its own (one,
  kept from request to request; replaced when one was cut off). Plain
  HTTP: TLS and the pinned certificate are the live server's business.

Other shapes through a small adapter file, no harness code in it:
- an asyncio server: `async def handle(reader, writer)`, the callback `asyncio.start_server` takes.
  All its connections share one event loop (on its own thread), as under `start_server`;
- anything else (a class with its own accept loop): a function `NAME()` with no parameters that
  builds the server and returns one of the shapes above, e.g. a bound method taking
  `(conn, addr)`. It is called once, at load.

Nothing here raises across the C API: every function returns data ({"ok": ...} or {"err": ...}).
The team's prints, and everything it writes to stderr, go to the log file the harness names.
"""

from __future__ import annotations

import asyncio
import asyncio.base_events
import contextlib
import ctypes
import difflib
import importlib
import importlib.util
import inspect
import io
import math
import os
import queue
import socket
import socketserver
import struct
import sys
import threading
import time
import traceback
from typing import Any, Optional
from urllib.parse import unquote_to_bytes

# How long a handler may keep running after the harness closed its end, once cut off.
CUT_OFF_GRACE = 1.0


class CutOff(BaseException):
    """Raised inside a handler thread that outlived its connection (BaseException, so a handler's
    `except Exception` does not swallow it)."""


class _ServerSeat:
    """What a socketserver handler sees as `self.server`: the address the Pi would listen on, and
    `shutdown()` as a no-op (one connection ends; the harness decides when the run is over)."""

    def __init__(self) -> None:
        self.server_address = ("127.0.0.1", 9876)
        self.shutdown_requested = False

    def shutdown(self) -> None:
        self.shutdown_requested = True


# Reads that never block (MSG_DONTWAIT) or leave the bytes where they are (MSG_PEEK): not reported,
# and not counted.
_UNWATCHED_FLAGS = socket.MSG_PEEK | socket.MSG_DONTWAIT


def _team_threads_alive() -> bool:
    """Whether a thread the team's code started (at import or from a handler) is running: every
    thread but the interpreter's main one, threads entered from Swift, and the harness's own
    (`crosscheck-*`: handlers, the WSGI worker, the asyncio loop)."""
    for thread in threading.enumerate():
        if thread is threading.main_thread() or thread.name.startswith("crosscheck-") \
                or type(thread).__name__ == "_DummyThread":
            continue
        return True
    return False


class _ReadReports:
    """Where one connection's reads are reported to the harness (`TCPConnection.watchPeerReads`,
    Transport): a 24-byte record each, whether the server is blocked or has returned, the bytes it
    has read so far, and the moment (time.monotonic()) its read would give up on its own (inf:
    never). From these the harness knows at once when the server has said all it will say until
    the client writes, where over TCP only a quiet gap tells."""

    RECORD = struct.Struct("<B7xQd")

    def __init__(self, fd: int) -> None:
        self.fd = fd  # owned here; -1: reports go nowhere

    def write(self, blocked: bool, read: int, deadline: float) -> None:
        if self.fd < 0:
            return
        try:
            os.write(self.fd, self.RECORD.pack(1 if blocked else 0, read, deadline))
        except OSError:
            pass  # a full pipe (the harness is not reading now) or a closed one: a report less

    def close(self) -> None:
        fd, self.fd = self.fd, -1
        if fd >= 0:
            os.close(fd)


class _WatchedSocket(socket.socket):
    """The handler's end of the socket pair. Around every read it reports that it is about to block
    and when it has returned (`_ReadReports`), with the socket's timeout as the deadline. Reads
    another way (select, os.read, recvmsg) are not reported: the harness then waits as it would
    over TCP."""

    def watch(self, fd: int) -> None:
        """Reports this socket's reads to `fd` (-1: to nobody), which it then owns."""
        self._reports = _ReadReports(fd)
        self._read_so_far = 0

    def take_reports(self) -> _ReadReports:
        """Hands the reports over (an asyncio server's reader makes them): this socket's reads are
        no longer reported."""
        reports = getattr(self, "_reports", None) or _ReadReports(-1)
        self._reports = _ReadReports(-1)
        return reports

    def _report(self, blocked: bool) -> None:
        reports = getattr(self, "_reports", None)
        if reports is None or reports.fd < 0:
            return
        # Blocked, with another thread of the team's code alive, says nothing: it may be the one
        # about to write (a writer thread, a pool, a Timer). Reported as not blocked: wait as over TCP.
        blocked = blocked and not _team_threads_alive()
        timeout = self.gettimeout()
        reports.write(blocked, self._read_so_far, math.inf if timeout is None else time.monotonic() + timeout)

    def unwatch(self) -> None:
        self.take_reports().close()

    def recv(self, bufsize: int, flags: int = 0) -> bytes:  # type: ignore[override]
        buffer = bytearray(bufsize)  # one watched path: recv_into a buffer of its own
        return bytes(buffer[:self.recv_into(buffer, bufsize, flags)])

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:  # type: ignore[override]
        if flags & _UNWATCHED_FLAGS or self.gettimeout() == 0:
            return super().recv_into(buffer, nbytes, flags)
        self._report(True)
        count = 0
        try:
            count = super().recv_into(buffer, nbytes, flags)
            return count
        finally:
            self._read_so_far = getattr(self, "_read_so_far", 0) + count
            self._report(False)


class _WatchedStreamReader(asyncio.StreamReader):
    """An asyncio handler's reader: reports each wait for data as `_WatchedSocket` reports a
    thread's reads. The bytes read are all the transport has fed in (a handler that waits has
    looked at what is buffered and wants more). Blocked means the whole server can do nothing
    until the client writes: nothing is ready to run on the loop, no thread of the team's lives,
    none of its answer is still queued in the transport, and the loop watches no descriptor but the
    harness's connections; the deadline is the loop's next timer (a wait_for, a sleep), when it
    could act on its own. On a loop of another kind nothing is reported blocked."""

    def __init__(self, reports: _ReadReports, hosted: "_Hosted", loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=2 ** 16, loop=loop)  # asyncio.open_connection's default limit
        self._reports = reports
        self._hosted = hosted
        self._fed = 0

    def feed_data(self, data: bytes) -> None:
        self._fed += len(data)
        super().feed_data(data)

    async def _wait_for_data(self, func_name: str) -> None:
        loop = asyncio.get_running_loop()
        timers = [handle.when() for handle in getattr(loop, "_scheduled", ()) if not handle.cancelled()]
        self._reports.write(self._server_idle(loop), self._fed, min(timers, default=math.inf))
        try:
            await super()._wait_for_data(func_name)
        finally:
            self._reports.write(False, self._fed, math.inf)

    def _server_idle(self, loop: asyncio.AbstractEventLoop) -> bool:
        selector, wakeup = getattr(loop, "_selector", None), getattr(loop, "_ssock", None)
        # `_ready`: callbacks due now, among them every task that is ready to run (it may write).
        if selector is None or wakeup is None or getattr(loop, "_ready", True) or _team_threads_alive():
            return False
        transport = getattr(self, "_transport", None)
        if transport is None or transport.get_write_buffer_size() > 0:
            return False
        with self._hosted.lock:
            ours = {connection.sock.fileno() for connection in self._hosted.connections}
        return set(selector.get_map()) <= ours | {wakeup.fileno()}


class _Connection:
    """One connection being served: on its own thread, or (asyncio) as a task on the server's loop."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.thread: Optional[threading.Thread] = None
        self.task: Optional["asyncio.Task[None]"] = None
        self.finished = threading.Event()  # set when the handler has returned (or raised)

    def wait(self, seconds: float) -> bool:
        return self.finished.wait(seconds)


class _EventLoop:
    """The one asyncio loop an asyncio server's connections share, running on its own thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True, name="crosscheck-asyncio")
        self.thread.start()


class _Hosted:
    def __init__(self, obj: Any, kind: str, label: str, module: Any = None) -> None:
        self.obj = obj
        self.module = module  # the module `load` imported (a WSGI app object's own __module__ is its framework's)
        self.kind = kind  # "socket-handler-class", "socket-function", "asyncio-stream-handler", "wsgi", "callable"
        self.event_loop: Optional[_EventLoop] = None
        self.label = label
        self.seat = _ServerSeat()
        self.lock = threading.Lock()
        self.connections: list[_Connection] = []
        self.problems: list[dict] = []
        self.wsgi_worker: Optional["_WSGIWorker"] = None
        # Issue 33: once a handler was found still running after its client left, later checks do not
        # wait their whole timeout for it again (a spinning handler cost every check its timeout).
        self.spun = False

    def problem(self, kind: str, message: str, details: str) -> None:
        with self.lock:
            self.problems.append({"kind": kind, "message": message, "details": details})


_hosted: dict[int, _Hosted] = {}
_log: Optional[io.TextIOBase] = None


_HERE = os.path.dirname(os.path.abspath(__file__))


def _foreign(filename: str) -> bool:
    """A frame of crosscheck's host (PythonRef) or of Python and its packages, not the team's code."""
    path = os.path.abspath(filename)
    if path.startswith(_HERE + os.sep) or filename.startswith("<"):
        return True
    import sysconfig  # (here: only a traceback needs it)
    roots = {sysconfig.get_paths().get(key, "") for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    return any(root and path.startswith(os.path.abspath(root) + os.sep) for root in roots) \
        or "/dist-packages/" in path or "/site-packages/" in path


def _own_frame(tb) -> str:
    """Issue 33: the team's innermost frame, "server.py:42 in handle: line", or "" when none is the team's."""
    own = [frame for frame in traceback.extract_tb(tb) if not _foreign(frame.filename)]
    if not own:
        return ""
    frame = own[-1]
    return f"{frame.filename}:{frame.lineno} in {frame.name}" + (f": {frame.line.strip()}" if frame.line else "")


def _traceback_text() -> str:
    """The traceback, with the team's own innermost frame first (crosscheck's and the standard
    library's frames come before it in Python's order)."""
    kind, error, tb = sys.exc_info()
    own = _own_frame(tb)
    text = "".join(traceback.format_exception(kind, error, tb))
    return (f"your code: {own}\n" if own else "") + text


def _raised(what: str, error: BaseException) -> str:
    """"the server's handler raised ValueError: … at server.py:42 in handle: line" (where the team's code raised it)."""
    own = _own_frame(error.__traceback__)
    return f"{what} raised {type(error).__name__}: {error}" + (f" at {own}" if own else "")


def _open_log(path: str, spec: str = "") -> None:
    """Sends the interpreter's stdout and stderr to `path` (line-buffered), once."""
    global _log
    if _log is not None or not path:
        return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    _log = open(path, "a", buffering=1, encoding="utf-8", errors="backslashreplace")
    # Issue 33: the log grows across runs; each run's part starts with a line saying which run.
    _log.write(f"==== crosscheck --server {spec}, pid {os.getpid()}, {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}, "
               f"in {os.getcwd()} ====\n")
    sys.stdout = _log
    sys.stderr = _log


def _classify(obj: Any) -> Optional[str]:
    if inspect.isclass(obj):
        if issubclass(obj, socketserver.BaseRequestHandler):
            return "socket-handler-class"
        return None
    if hasattr(obj, "wsgi_app") and callable(obj):  # Flask, Quart-like objects
        return "wsgi"
    if not callable(obj):
        return None
    try:
        names = list(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        return "callable"
    if inspect.iscoroutinefunction(obj) or inspect.iscoroutinefunction(getattr(obj, "__call__", None)):
        if len(names) == 3 and names[0] == "scope":
            return "asgi"  # FastAPI, Starlette: refused at load with what to do instead
        return "asyncio-stream-handler" if len(names) == 2 else None
    if names[:1] == ["environ"] or names[1:2] == ["start_response"]:
        return "wsgi"
    if len(names) >= 2 and (names[0] in ("conn", "connection", "sock", "client", "client_socket", "request")
                            or "sock" in names[0] or "conn" in names[0]) and "addr" in names[1]:
        return "socket-function"
    return "callable"


def _is_factory(obj: Any) -> bool:
    """A plain function taking no arguments (an adapter's `make_server()`), not a shape itself."""
    if not inspect.isfunction(obj) or inspect.iscoroutinefunction(obj):
        return False
    parameters = inspect.signature(obj).parameters.values()
    return all(p.default is not inspect.Parameter.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters)


# How long importing the team's module (and calling its factory) may take.
LOAD_LIMIT = 15.0

# Serving, where only importing was asked for: the tutorials' servers run their accept loop at
# module level, which on the Pi is the program, and here would never return.
_SERVING_CALLS = [(socket.socket, "accept"), (socketserver.BaseServer, "serve_forever"),
                  (asyncio.base_events.BaseEventLoop, "run_forever")]


class ServesAtImport(Exception):
    """The module started serving while it was being imported."""


class LoadTimedOut(BaseException):
    """Raised in the importing thread when importing takes longer than LOAD_LIMIT."""


@contextlib.contextmanager
def _only_importing(what: str, factory: bool = False):
    """While `what` is imported (or its factory called): a server loop started then raises
    ServesAtImport at once, and anything else still running after LOAD_LIMIT seconds is
    interrupted with LoadTimedOut (when it next runs Python code)."""
    originals = [(owner, name, getattr(owner, name)) for owner, name in _SERVING_CALLS]

    def refuse(call: str):
        def refused(*args: Any, **kwargs: Any) -> Any:
            raise ServesAtImport(f"{what} calls {call}(): it runs the server's own loop, not a factory that returns a handler"
                                 if factory else f"{what} calls {call}() while it is imported: its server loop runs at module level")
        return refused

    for owner, name, _ in originals:
        setattr(owner, name, refuse(f"{owner.__name__}.{name}"))
    # Sockets bound meanwhile: closed when the import fails, so the same file run as its own
    # process (what a module-level loop gets instead) can bind its port again.
    bound: list = []
    original_bind = socket.socket.bind

    def recording_bind(self: socket.socket, address: Any) -> None:
        bound.append(self)
        original_bind(self, address)

    socket.socket.bind = recording_bind  # type: ignore[method-assign]
    importing = threading.get_ident()
    lock = threading.Lock()
    still = [True]  # importing: the watchdog may interrupt only then

    def interrupt() -> None:
        with lock:
            if still[0]:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(importing), ctypes.py_object(LoadTimedOut))

    watchdog = threading.Timer(LOAD_LIMIT, interrupt)
    watchdog.name = "crosscheck-load-watchdog"
    watchdog.daemon = True
    watchdog.start()
    try:
        yield
    except BaseException:
        for sock in bound:
            with contextlib.suppress(OSError):
                sock.close()
        raise
    finally:
        socket.socket.bind = original_bind  # type: ignore[method-assign]
        with lock:
            still[0] = False
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(importing), None)  # one not yet raised: dropped
        watchdog.cancel()
        for owner, name, original in originals:
            setattr(owner, name, original)


_AT_MODULE_LEVEL = ("put the loop under `if __name__ == \"__main__\":` (as a Pi runs it, `python3 server.py` still serves), "
                    "or give an adapter file whose make_server() returns the handler")


_OWN_LOOP = ("give the handler it serves each connection with (FILE.py:NAME), or an adapter file whose make_server() "
             "returns it")


def _load_failure(what: str, error: BaseException, factory: bool = False) -> str:
    if isinstance(error, ServesAtImport):
        return f"{error}: {_OWN_LOOP if factory else _AT_MODULE_LEVEL}"
    if isinstance(error, LoadTimedOut):
        return f"{what} did not return within {LOAD_LIMIT:g} s (see where it was, below): {_AT_MODULE_LEVEL}"
    if isinstance(error, FileNotFoundError):
        return (f"{what} raised {type(error).__name__}: {error} (relative paths resolve against {os.getcwd()}, "
                "the server file's folder, as `python3 server.py` run there would: put the file there, or give its path)")
    if isinstance(error, EOFError):
        return (f"{what} raised EOFError: {error}: it read its standard input, which crosscheck gives it as end-of-file "
                "(no one types at it here): pass what it asks for with --server-arg ARG or an environment variable")
    return f"{what} raised {type(error).__name__}: {error}"


def _own_loop(spec: str, what: str, error: BaseException) -> dict:
    """The module (or its factory) runs its own server loop: the harness runs the file as its own
    process instead (`crosscheck run --server FILE.py`)."""
    return {"err": "own-loop", "message": _load_failure(what, error), "traceback": _traceback_text()}


def _prepare(path: str, argv: Optional[list], python_path: str) -> None:
    """As `python3 FILE.py ARGS` run in the file's folder would see it: that folder as the working
    directory, `sys.argv`, PYTHONPATH's folders on `sys.path` (after the file's own folder), and a
    standard input that is at its end (nobody types at it here)."""
    folder = os.path.dirname(path)
    os.chdir(folder)
    sys.argv = [os.path.basename(path)] + [str(arg) for arg in (argv or [])]
    for entry in reversed([entry for entry in python_path.split(os.pathsep) if entry]):
        entry = os.path.abspath(entry)
        if entry not in sys.path:
            sys.path.insert(1, entry)
    with contextlib.suppress(OSError):
        sys.stdin = open(os.devnull, encoding="utf-8")


def load(spec: str, search_path: str, log_path: str, run_in_folder: bool = False, argv: Optional[list] = None,
         python_path: str = "") -> dict:
    """Imports the object `spec` names: `FILE.py:NAME` or `MODULE:NAME` (found on `search_path`).
    `run_in_folder` (FILE.py): first as `python3 FILE.py ARGS` run in its folder would (`_prepare`).
    Returns {"ok": id, "kind": ...} or {"err": "bad-input" | "missing-module" | "own-loop", "message", "traceback"}."""
    target, sep, name = spec.rpartition(":")
    if not sep or not target or not name:
        return {"err": "bad-input", "message": f"'{spec}' is not FILE.py:NAME or MODULE:NAME", "traceback": ""}
    _open_log(log_path, spec)
    if search_path:
        sys.path.insert(0, os.path.abspath(search_path))
    if target.endswith(".py"):
        path = os.path.abspath(target)
        if not os.path.isfile(path):
            folder = os.path.dirname(path)
            files = sorted(n for n in os.listdir(folder) if n.endswith(".py")) if os.path.isdir(folder) else []
            stems = {n[:-3]: n for n in files}
            near = [stems[m] for m in difflib.get_close_matches(os.path.basename(path)[:-3], list(stems), n=1, cutoff=0.75)]
            return {"err": "bad-input", "message": f"no file {target} (from {os.getcwd()})"
                    + (f" (did you mean {os.path.join(os.path.dirname(target), near[0])}?)" if near else
                       f"; the Python files in {folder}: {', '.join(files)}" if files else f"; {folder} has no .py files"),
                    "traceback": ""}
        module_name = os.path.splitext(os.path.basename(path))[0]
        folder = os.path.dirname(path)
        if folder not in sys.path:
            sys.path.insert(0, folder)  # its sibling modules import as they do on the Pi
        if run_in_folder:
            _prepare(path, argv, python_path)
        spec_object = importlib.util.spec_from_file_location(module_name, path)
        if spec_object is None or spec_object.loader is None:
            return {"err": "bad-input", "message": f"{target} cannot be loaded as a Python module", "traceback": ""}
        module = importlib.util.module_from_spec(spec_object)
        sys.modules[module_name] = module
        try:
            with _only_importing(f"importing {target}"):
                spec_object.loader.exec_module(module)
        except ModuleNotFoundError as error:
            sys.modules.pop(module_name, None)
            return {"err": "missing-module", "module": error.name or "", "message": f"importing {target}: {error}",
                    "traceback": _traceback_text()}
        except KeyboardInterrupt:
            sys.modules.pop(module_name, None)
            return {"err": "interrupted", "message": f"interrupted while importing {target}", "traceback": _traceback_text()}
        except (ServesAtImport, LoadTimedOut) as error:
            sys.modules.pop(module_name, None)
            return _own_loop(spec, f"importing {target}", error)
        except BaseException as error:  # SyntaxError, a raise at import time, even SystemExit
            sys.modules.pop(module_name, None)
            return {"err": "bad-input", "message": _load_failure(f"importing {target}", error), "traceback": _traceback_text()}
    else:
        module_name = target
        try:
            with _only_importing(f"importing {target}"):
                module = importlib.import_module(target)
        except ModuleNotFoundError as error:
            own = error.name is not None and (target == error.name or target.startswith(error.name + "."))
            # Issue 33: the module itself is missing: no traceback (it is all importlib), and the hint for
            # what was meant — a file (FILE.py:NAME, its path from here) or a module in another folder.
            hint = (f" (no {target.replace('.', '/')}.py in {os.getcwd()}: give the file as FILE.py:{name} with its path from here, "
                    f"or the folder that holds it with --server-path DIR)") if own else ""
            return {"err": "bad-input" if own else "missing-module", "module": error.name or "",
                    "message": f"importing {target}: {error}" + hint,
                    "traceback": "" if own else _traceback_text()}
        except KeyboardInterrupt:
            return {"err": "interrupted", "message": f"interrupted while importing {target}", "traceback": _traceback_text()}
        except BaseException as error:
            return {"err": "bad-input", "message": _load_failure(f"importing {target}", error), "traceback": _traceback_text()}
    obj: Any = module
    for part in name.split("."):
        if not hasattr(obj, part):
            public = sorted(n for n in dir(obj) if not n.startswith("_"))
            near = difflib.get_close_matches(part, public, n=1)
            return {"err": "bad-input", "message": f"{target} has no '{name}'"
                    + (f" (did you mean '{name.replace(part, near[0], 1) if name.count(part) == 1 else near[0]}'?)" if near else "")
                    + f" (it has: {', '.join(public)})", "traceback": ""}
        obj = getattr(obj, part)
    if _is_factory(obj):
        try:
            with _only_importing(f"{target}:{name}()", factory=True):
                obj = obj()
        except KeyboardInterrupt:
            return {"err": "interrupted", "message": f"interrupted while calling {target}:{name}()", "traceback": _traceback_text()}
        except (ServesAtImport, LoadTimedOut) as error:
            if target.endswith(".py"):
                return _own_loop(spec, f"{target}:{name}()", error)
            return {"err": "bad-input", "message": _load_failure(f"{target}:{name}()", error, factory=True), "traceback": _traceback_text()}
        except BaseException as error:
            return {"err": "bad-input", "message": _load_failure(f"{target}:{name}()", error, factory=True), "traceback": _traceback_text()}
        name += "()"
    kind = _classify(obj)
    if kind == "asgi":
        return {"err": "bad-input", "traceback": "",
                "message": f"{target}:{name} is an ASGI application (FastAPI, Starlette): it is not served in-process; "
                           "give an adapter file whose make_server() returns a WSGI wrapper of it (e.g. a2wsgi's ASGIMiddleware), "
                           "or check it live with `crosscheck remote`"}
    if kind is None:
        return {"err": "bad-input", "traceback": "",
                "message": f"{target}:{name} is a {type(obj).__name__}: give a socketserver.BaseRequestHandler subclass, "
                           "a function handle(conn, addr), an async def handle(reader, writer), a WSGI application, "
                           "or a function with no parameters that returns one of these"}
    if kind == "wsgi" and hasattr(obj, "config") and isinstance(getattr(obj, "config"), dict) \
            and obj.config.get("PROPAGATE_EXCEPTIONS") is None:
        # Flask turns an unhandled exception into a 500 and a log line; in-process it propagates
        # instead, so the harness can show the traceback with the failing check.
        obj.config["PROPAGATE_EXCEPTIONS"] = True
    server_id = len(_hosted) + 1
    _hosted[server_id] = _Hosted(obj, kind, f"{module_name}:{name}", module)
    return {"ok": server_id, "kind": kind}


# rsa-socket


def _report_raise(hosted: _Hosted, error: BaseException) -> None:
    text = _traceback_text()
    print(f"[crosscheck] {hosted.label} raised {type(error).__name__}: {error}\n{text}", file=sys.stderr)
    note = (" (it read its standard input, which crosscheck gives it as end-of-file: pass what it asks for with "
            "--server-arg ARG or an environment variable)") if isinstance(error, EOFError) else ""
    hosted.problem("raised", _raised("the server's handler", error) + note, text)


def _end_stream(sock: socket.socket) -> None:
    """As socketserver's shutdown_request: the client reads the end of the stream."""
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    sock.close()


def _serve(hosted: _Hosted, connection: _Connection, address: tuple) -> None:
    sock = connection.sock
    try:
        if hosted.kind == "socket-handler-class":
            hosted.obj(sock, address, hosted.seat)  # setup(), handle(), finish(), as socketserver does
        else:
            hosted.obj(sock, address)
    except CutOff:
        pass
    except BaseException as error:
        _report_raise(hosted, error)
    finally:
        _end_stream(sock)
        sock.unwatch()
        connection.finished.set()


async def _serve_streams(hosted: _Hosted, connection: _Connection, reports: _ReadReports) -> None:
    """An asyncio stream handler on the server's loop, with streams over the socket-pair end (made
    as asyncio.open_connection makes them, with a reader that reports its waits)."""
    connection.task = asyncio.current_task()
    writer = None
    try:
        loop = asyncio.get_running_loop()
        reader = _WatchedStreamReader(reports, hosted, loop)
        protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
        transport, _ = await loop.create_connection(lambda: protocol, sock=connection.sock)
        writer = asyncio.StreamWriter(transport, protocol, reader, loop)
        await hosted.obj(reader, writer)
    except asyncio.CancelledError:
        pass
    except BaseException as error:
        _report_raise(hosted, error)
    finally:
        if writer is None:
            connection.sock.close()
        else:
            try:
                if not writer.is_closing() and writer.can_write_eof():
                    writer.write_eof()  # the client reads the end of the stream
            except (OSError, RuntimeError):
                pass
            writer.close()
        reports.close()
        connection.finished.set()


def serve_connection(server_id: int, fd: int, watch_fd: int = -1) -> dict:
    """Serves the socket-pair end `fd` (now owned here) with the team's handler: on a new thread, or
    (asyncio) as a task on the server's event loop. `watch_fd` (owned here too; -1: none) is where
    the handler's reads are reported (`_ReadReports`)."""
    try:
        sock = _WatchedSocket(fileno=fd)
    except BaseException as error:  # nothing raises across the C API; what was handed over is closed here
        for owned in (fd, watch_fd):
            if owned >= 0:
                os.close(owned)
        return {"err": f"{type(error).__name__}: {error}"}
    sock.watch(watch_fd)  # the socket owns both descriptors from here
    try:
        return _serve_connection(_hosted[server_id], sock)
    except BaseException as error:
        sock.unwatch()
        sock.close()
        return {"err": f"{type(error).__name__}: {error}"}


def _serve_connection(hosted: _Hosted, sock: _WatchedSocket) -> dict:
    address = ("127.0.0.1", 50000 + len(hosted.connections) % 10000)
    connection = _Connection(sock)
    if hosted.kind == "asyncio-stream-handler":
        reports = sock.take_reports()  # the reader reports: the transport's own reads never block
        sock.setblocking(False)
        if hosted.event_loop is None:
            hosted.event_loop = _EventLoop()
        with hosted.lock:
            hosted.connections.append(connection)
        asyncio.run_coroutine_threadsafe(_serve_streams(hosted, connection, reports), hosted.event_loop.loop)
        return {"ok": True}
    sock.setblocking(True)
    connection.thread = threading.Thread(target=_serve, args=(hosted, connection, address), daemon=True,
                                         name=f"crosscheck-server-{len(hosted.connections)}")
    connection.thread.start()
    with hosted.lock:
        hosted.connections.append(connection)
    return {"ok": True}


def _cut_off(thread: threading.Thread) -> None:
    if thread.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(CutOff))


def _stack_of(thread: threading.Thread) -> str:
    """Where a thread that would not end is stuck ("" once it has ended)."""
    frame = sys._current_frames().get(thread.ident) if thread.is_alive() else None
    return "".join(traceback.format_stack(frame)) if frame is not None else ""


async def _stack_and_cancel(task: "asyncio.Task[None]") -> str:
    """On the loop: where an asyncio handler that would not end is waiting (the chain of awaits,
    which `Task.get_stack` stops short of); then cancels it."""
    frames = []
    awaited: Any = task.get_coro()
    while awaited is not None and getattr(awaited, "cr_frame", None) is not None:
        frames.append(awaited.cr_frame)
        awaited = awaited.cr_await
    task.cancel()
    return "".join(traceback.format_list(traceback.StackSummary.extract((frame, frame.f_lineno) for frame in frames)))


def check_ended(server_id: int, wait: float) -> dict:
    """After a check (the harness has closed its ends): waits up to `wait` seconds for every
    handler it started to return, cuts off the rest, and hands over what went wrong."""
    hosted = _hosted[server_id]
    with hosted.lock:
        connections, hosted.connections = hosted.connections, []
    spun_before = hosted.spun
    allowed = min(wait, CUT_OFF_GRACE) if spun_before else wait
    for connection in connections:
        if connection.wait(allowed):
            continue
        hosted.spun = True
        stack = ""
        if hosted.event_loop is not None:
            if connection.task is not None:
                try:
                    stack = asyncio.run_coroutine_threadsafe(_stack_and_cancel(connection.task), hosted.event_loop.loop).result(CUT_OFF_GRACE)
                except Exception:  # a loop the handler itself blocks (time.sleep in a coroutine): nothing to cancel with
                    stack = "the event loop itself is blocked (a blocking call inside a coroutine?)"
            connection.wait(CUT_OFF_GRACE)
        elif connection.thread is not None:
            stack = _stack_of(connection.thread)  # where it is stuck: gone once it is cut off
            try:
                connection.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            _cut_off(connection.thread)
            connection.thread.join(CUT_OFF_GRACE)
        hosted.problem("blocked",
                       (f"the server's handler was still running {allowed:g} s after the client had closed the connection "
                        "(one was found spinning before: not waited on again for the whole timeout): " if spun_before else
                        f"the server's handler was still running {wait:g} s after the client had closed the connection: ")
                       + "cut off (does it loop without ending on recv() == b''?)",
                       stack)
    with hosted.lock:
        problems, hosted.problems = hosted.problems, []
    return {"ok": problems}


# aes-https


def _environ(method: str, target: str, headers: dict, body: bytes) -> dict:
    path, _, query = target.partition("?")
    environ = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),
        "QUERY_STRING": query,
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "8443",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "https",  # what the app sees behind TLS on the Pi
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    for header, value in headers.items():
        key = header.upper().replace("-", "_")
        if key == "CONTENT_TYPE":
            environ["CONTENT_TYPE"] = value
        elif key != "CONTENT_LENGTH":
            environ["HTTP_" + key] = value
    return environ


def _call_wsgi(hosted: _Hosted, environ: dict, answer: dict) -> None:
    status: list = []
    headers: list = []
    written: list = []

    def start_response(status_line, response_headers, exc_info=None):
        if exc_info is not None and status:
            raise exc_info[1].with_traceback(exc_info[2])
        status[:] = [status_line]
        headers[:] = list(response_headers)
        return written.append

    try:
        result = hosted.obj(environ, start_response)
        try:
            chunks = written + [bytes(chunk) for chunk in result]
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        if not status:
            raise RuntimeError("the application returned without calling start_response")
        answer["status"] = int(str(status[0]).split(" ", 1)[0])
        answer["headers"] = [[str(k), str(v)] for k, v in headers]
        answer["body"] = b"".join(chunks)
    except CutOff:
        pass
    except BaseException as error:
        text = _traceback_text()
        print(f"[crosscheck] {hosted.label} raised {type(error).__name__}: {error}\n{text}", file=sys.stderr)
        hosted.problem("raised", _raised("the server's application", error), text)
        answer["status"] = 500
        answer["headers"] = [["Content-Type", "text/plain"]]
        answer["body"] = b"Internal Server Error"


class _WSGIWorker:
    """The application's own thread, serving one request after another, as a WSGI server's sync
    worker does (gunicorn's default; Flask's development server starts a thread per request
    instead, so per-thread state, `threading.local`, lives across requests here and not there):
    starting a thread per request cost more than a Flask request itself. One that had to be cut off
    is retired, and the next request gets a new one."""

    def __init__(self, hosted: _Hosted) -> None:
        self.requests: "queue.SimpleQueue[Optional[tuple[dict, dict, threading.Lock]]]" = queue.SimpleQueue()
        # The caller and this thread take turns, never run at once: on one core a request costs
        # what Flask does (~60 µs); handed across two, each wake-up lands on a cold core and a
        # request cost 150-180 µs (measured with examples/pi-server-flask, `make bench` section 5).
        # So this thread waits for a request on one core, and the caller joins that core for each
        # request (`_one_core`). The application itself runs with the process's own CPUs, so the
        # threads and processes it starts inherit no pinning, nor does a thread that is cut off.
        self.core: Optional[set] = None
        self.own_cpus: Optional[set] = None
        try:
            self.own_cpus = os.sched_getaffinity(0)
            self.core = {min(self.own_cpus)}
        except (OSError, AttributeError, ValueError):
            self.core = None  # no affinity here: the handoff is slower, not wrong
        self.thread = threading.Thread(target=self._serve, args=(hosted,), daemon=True, name="crosscheck-wsgi")
        self.thread.start()

    def _pin(self, cpus: Optional[set]) -> None:
        if cpus is not None and self.core is not None and not _affine(cpus):
            self.core = None  # a cpuset that changed under us: stop pinning

    def _serve(self, hosted: _Hosted) -> None:
        self._pin(self.core)
        while True:
            request = self.requests.get()
            self._pin(self.own_cpus)
            if request is None:
                return
            environ, answer, done = request
            _call_wsgi(hosted, environ, answer)
            # Back on the core before the caller is woken: from here to waiting again is short,
            # so the caller seldom finds the GIL still held (a second wake-up).
            self._pin(self.core)
            done.release()


def _affine(cpus: set) -> bool:
    """The calling thread on `cpus`; False when the system refuses (a cpuset without them)."""
    try:
        os.sched_setaffinity(0, cpus)
    except OSError:
        return False
    return True


@contextlib.contextmanager
def _one_core(core: Optional[set]):
    """The calling thread on `core` while the block runs, its own affinity back afterwards."""
    mask = None
    if core is not None:
        with contextlib.suppress(OSError):
            mask = os.sched_getaffinity(0)
    if mask is not None and not _affine(core):
        mask = None
    try:
        yield
    finally:
        if mask is not None:
            _affine(mask)


def wsgi_request(server_id: int, method: str, target: str, headers: dict, body: bytes, timeout: float) -> dict:
    """One request through the application on its thread, cut off after `timeout` seconds.
    Returns {"ok": {"status", "headers", "body"}} or {"err": "timeout"}."""
    hosted = _hosted[server_id]
    if hosted.wsgi_worker is None:
        hosted.wsgi_worker = _WSGIWorker(hosted)
    worker = hosted.wsgi_worker
    answer: dict = {}
    # Released by the worker when answered. A plain lock, not an Event: an Event builds a Condition,
    # which on a plain lock raises and catches three AttributeErrors, every request.
    done = threading.Lock()
    done.acquire()
    with _one_core(worker.core):
        worker.requests.put((_environ(method, target, headers, body), answer, done))
        answered = done.acquire(timeout=timeout)
    if not answered:
        hosted.wsgi_worker = None
        worker.requests.put(None)  # once cut off, it ends
        _cut_off(worker.thread)
        done.acquire(timeout=CUT_OFF_GRACE)
        hosted.problem("blocked", f"the server's application did not answer {method} {target} within {timeout:g} s: cut off", "")
        return {"err": "timeout"}
    if "status" not in answer:
        return {"err": "timeout"}
    return {"ok": answer}


# the fuzzer's expected answers need the server's key


def _held_values(hosted: _Hosted) -> list[tuple[str, Any]]:
    """(name, value) of what the server keeps: its module's globals, its handler class's attributes,
    and an adapter's bound method's object's."""
    modules = [hosted.module, sys.modules.get(getattr(hosted.obj, "__module__", "") or "")]
    places = [vars(module) for module in {id(m): m for m in modules if inspect.ismodule(m)}.values()]
    if inspect.isclass(hosted.obj):
        places.append(vars(hosted.obj))
    owner = getattr(hosted.obj, "__self__", None)
    if owner is not None and hasattr(owner, "__dict__"):
        places.append(vars(owner))
    return [(name, value) for place in places for name, value in list(place.items())]


def private_key_pem(server_id: int) -> dict:
    """The server's RSA private key as PKCS#8 PEM, when its module (or handler class) holds exactly
    one in a global or class attribute: {"ok": bytes} or {"err": "none" | "several"}."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    keys = {id(value): value for _, value in _held_values(_hosted[server_id]) if isinstance(value, rsa.RSAPrivateKey)}
    if len(keys) != 1:
        return {"err": "none" if not keys else "several"}
    key = next(iter(keys.values()))
    return {"ok": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())}


def _key_in(value: Any) -> tuple[Any, bool]:
    """(the pyca public key of a value a server keeps a key in, whether the value holds its private
    half), or (None, False): a pyca key, a PyCryptodome or pycryptodomex RSA/ECC key, or PEM text or
    bytes (a key file read at import). An encrypted private key, or anything else, is no key here."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa, x25519
    if isinstance(value, (rsa.RSAPublicKey, ec.EllipticCurvePublicKey, x25519.X25519PublicKey)):
        return value, False
    if isinstance(value, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey, x25519.X25519PrivateKey)):
        return value.public_key(), True
    if isinstance(value, str):
        value = value.encode("utf-8", "replace")
    if isinstance(value, (bytes, bytearray)):
        text = bytes(value)
        if b"-----BEGIN" not in text or b"KEY-----" not in text:
            return None, False
        with contextlib.suppress(Exception):
            return serialization.load_pem_private_key(text, password=None).public_key(), True
        with contextlib.suppress(Exception):
            return serialization.load_pem_public_key(text), False
        return None, False
    if type(value).__module__.startswith(("Crypto.", "Cryptodome.")):  # PyCryptodome, pycryptodomex
        with contextlib.suppress(Exception):
            public = value.public_key() if hasattr(value, "public_key") else value.publickey()
            return serialization.load_der_public_key(bytes(public.export_key(format="DER"))), bool(value.has_private())
    return None, False


def held_public_key(server_id: int, key_type: str) -> dict:
    """The public half of the one `key_type` key ("rsa", "ec-p256", "ec-p384", "x25519") whose private half the server
    keeps (`_held_values`): a key it makes at import and never sends, which only a run in its own
    process can learn. A public key alone is no evidence (it may be a client's); one that is the
    public half of the held key is named with it.
    {"ok": SPKI DER, "names": [...]} (every name that holds it) or {"err": "none" | "several", "names": [...]}."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa, x25519
    curves = {"ec-p256": "secp256r1", "ec-p384": "secp384r1"}
    private: dict[bytes, list[str]] = {}
    public: dict[bytes, list[str]] = {}
    for name, value in _held_values(_hosted[server_id]):
        if name.startswith("__") or inspect.ismodule(value) or callable(value):  # functions, classes, modules
            continue
        key, is_private = _key_in(value)
        if key_type == "rsa":
            wanted = isinstance(key, rsa.RSAPublicKey)
        elif key_type == "x25519":
            wanted = isinstance(key, x25519.X25519PublicKey)
        else:
            wanted = isinstance(key, ec.EllipticCurvePublicKey) and key.curve.name == curves.get(key_type)
        if wanted:
            der = key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
            (private if is_private else public).setdefault(der, []).append(name)
    if len(private) != 1:
        return {"err": "none" if not private else "several", "names": sorted(n for names in private.values() for n in names)}
    der, names = next(iter(private.items()))
    return {"ok": der, "names": names + public.get(der, [])}
