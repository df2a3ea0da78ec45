"""Reads its key's passphrase from stdin before it listens."""
import os
import socket

print("PGID %d" % os.getpgid(0), flush=True)
passphrase = input("key passphrase: ")
listener = socket.create_server(("127.0.0.1", 0))
while True:
    listener.accept()[0].close()
