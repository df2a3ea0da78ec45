"""A helper child started at once, and a child forked per connection that lingers after answering:
everything here must be gone when crosscheck is done."""
import os
import signal
import socket
import time

print("PGID %d" % os.getpgid(0), flush=True)
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are not waited for
if os.fork() == 0:
    while True:  # the helper: a child that never ends on its own
        time.sleep(3600)
listener = socket.create_server(("127.0.0.1", 0))
while True:
    conn, addr = listener.accept()
    if os.fork() == 0:
        listener.close()
        print("accepted in child %d" % os.getpid(), flush=True)
        conn.settimeout(2)
        try:
            conn.recv(4096)
            conn.sendall(b"Server: ERROR\n")
        except OSError:
            pass
        conn.close()
        time.sleep(3600)  # lingers
        os._exit(0)
    conn.close()
