"""Ends with an uncaught error on its first connection, as a server with a bug in its loop does."""
import os
import socket

print("PGID %d" % os.getpgid(0), flush=True)
listener = socket.create_server(("127.0.0.1", 0))
conn, addr = listener.accept()
print("accepted", addr, flush=True)
raise RuntimeError("crashes on its first connection")
