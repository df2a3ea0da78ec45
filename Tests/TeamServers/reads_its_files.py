"""Opens a file relative to its own folder at import, as `python3 reads_its_files.py` run there does."""
import sys

MESSAGE = open("keys/message.txt").read().strip()
ARGS = sys.argv[1:]


def handle(conn, addr):
    print("accepted", MESSAGE, ARGS, flush=True)
    conn.sendall(b"Server: ERROR\n")
