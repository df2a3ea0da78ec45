"""crosscheck's adapter for server.py: `crosscheck run --server examples/pi-server-asyncio/adapter.py:make_server`.

An adapter is a function with no parameters that builds the team's server as the Pi would and
returns something crosscheck serves as is: here the per-client coroutine `async (reader, writer)`
that server.py hands to `asyncio.start_server`. It runs once, at load; the server object it builds
(its key) lives for the whole run. No crosscheck code is imported.
"""

from server import PiServer


def make_server():
    return PiServer().client
