"""The accept loop at module level, on another loopback address (127.0.0.7), as a server bound to its own address is.
An argument: the port (default: any free one)."""
import os
import socket
import sys

print("PGID %d" % os.getpgid(0), flush=True)
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.7", int(sys.argv[1]) if len(sys.argv) > 1 else 0))
s.listen(5)
while True:
    conn, addr = s.accept()
    print("accepted", addr, flush=True)
    conn.settimeout(2)
    try:
        conn.recv(4096)
        conn.sendall(b"Server: ERROR\n")
    except OSError:
        pass
    conn.close()
