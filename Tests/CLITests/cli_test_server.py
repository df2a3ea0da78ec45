"""Plumbing the servers DescribedProtocolCLITests writes share: a listener, the LISTENING line,
a thread per connection, and 4-byte length-prefixed messages. A test's script keeps only its
protocol and the flaw it plants. (The described zoo's servers have their own, fuller plumbing:
Tests/DescribedZoo/dzoolib.py.)

TestServers.start puts this folder on PYTHONPATH. Standard library only.
"""

import socket
import struct
import threading
from typing import Callable

IDLE = 10.0  # seconds a peer may stay silent on any read


def exactly(conn: socket.socket, n: int) -> bytes:
    """`n` bytes, or EOFError when the peer closes first."""
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def recv_framed(conn: socket.socket) -> bytes:
    """One message after its 4-byte big-endian length."""
    return exactly(conn, struct.unpack(">I", exactly(conn, 4))[0])


def send_framed(conn: socket.socket, data: bytes) -> None:
    conn.sendall(struct.pack(">I", len(data)) + data)


def serve(handle: Callable[[socket.socket], None], half_close: bool = False) -> None:
    """Listens on 127.0.0.1 on a free port, prints `LISTENING <port>` (what TestServers waits for),
    and runs `handle(conn)` on a thread per connection until killed. The peer closing (EOFError) or
    a socket error ends the conversation quietly; then the connection is closed: at once (with
    bytes unread, the kernel answers with a reset), or after a half-close when `half_close`."""

    def conversation(conn: socket.socket) -> None:
        conn.settimeout(IDLE)
        try:
            handle(conn)
        except (EOFError, OSError):
            pass
        finally:
            if half_close:
                try:
                    conn.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
            conn.close()

    listener = socket.create_server(("127.0.0.1", 0))
    print("LISTENING %d" % listener.getsockname()[1], flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=conversation, args=(conn,), daemon=True).start()
