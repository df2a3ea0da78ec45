"""rsa-socket, BROKEN: accepts connections and never answers.

Plants: every connection is accepted and read (so the client's writes succeed), and nothing is
ever sent back; the connection stays open until the client gives up. A stalled server.

Expected verdict: fail, naming "liveness.initial".
"""

import os
import socket
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import zoolib  # noqa: E402


def swallow(conn):
    with conn:
        try:
            while conn.recv(65536):
                pass
        except OSError:
            pass


def main():
    args = zoolib.arguments(__doc__.splitlines()[0], rsa_key=True)
    server = socket.create_server((args.host, args.port))
    zoolib.announce(server.getsockname()[1])
    while True:
        conn, _ = server.accept()
        threading.Thread(target=swallow, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
