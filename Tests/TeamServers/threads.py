"""The accept loop on a thread of its own, a thread per connection; the main thread only waits."""
import os
import socket
import threading


def serve_client(conn):
    conn.settimeout(2)
    try:
        conn.recv(4096)
        conn.sendall(b"Server: ERROR\n")
    except OSError:
        pass
    conn.close()


def accept_loop(listener):
    while True:
        conn, addr = listener.accept()
        print("accepted", addr, flush=True)
        threading.Thread(target=serve_client, args=(conn,)).start()


print("PGID %d" % os.getpgid(0), flush=True)
listener = socket.create_server(("127.0.0.1", 0))
acceptor = threading.Thread(target=accept_loop, args=(listener,))
acceptor.start()
acceptor.join()
