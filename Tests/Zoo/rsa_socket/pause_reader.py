"""rsa-socket, CORRECT: a legacy server that reads by pauses, as the tutorials' servers do.

Written from docs/PROTOCOL.md ("Framing: legacy": a message ends where the sender stops). A message
is whatever arrives before the line goes quiet for PAUSE seconds (0.4 s: longer than crosscheck's
0.3 s quiet gap, as a Pi over Wi-Fi may be), so every answer — `Server stopped` after `Quit`
included — comes only after the server's own quiet gap. PKCS#1 v1.5 (the seed's), RSA-2048,
64 KiB per message, `Server: ERROR` and a close for anything else, a thread and a deadline per
client.

Expected verdict: pass, with --client both (the seed app waits for `Server stopped` without a
deadline of its own).
"""

import os
import re
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import zoolib  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding, rsa  # noqa: E402

PAUSE = 0.4            # silence that ends a message
FIRST_BYTE = 20.0      # how long a client may take to start its next message
LIMIT = 65536
MESSAGE = b"Secret message from RPi server"
PEM = re.compile(rb"-----BEGIN (PUBLIC KEY|RSA PUBLIC KEY)-----\r?\n[A-Za-z0-9+/=\r\n]+-----END \1-----\r?\n?\Z")


class Refused(Exception):
    pass


def read_until_pause(conn):
    """The next message: bytes up to PAUSE seconds of silence (or the peer's half-close)."""
    conn.settimeout(FIRST_BYTE)
    data = conn.recv(LIMIT + 1)
    if not data:
        raise Refused("closed before a message")
    conn.settimeout(PAUSE)
    while len(data) <= LIMIT:
        try:
            more = conn.recv(LIMIT + 1)
        except socket.timeout:
            return data
        if not more:
            return data
        data += more
    raise Refused("a message over %d bytes" % LIMIT)


def converse(conn, key):
    k = key.key_size // 8
    first = read_until_pause(conn)
    if first == b"Client: OK":
        conn.sendall(b"public_key=" + zoolib.spki_pem(key.public_key()))
        message = read_until_pause(conn)
        if not message.startswith(b"encrypted_message=") or len(message) != len(b"encrypted_message=") + k:
            raise Refused("not an encrypted_message of %d bytes" % k)
        try:
            key.decrypt(message[len(b"encrypted_message="):], padding.PKCS1v15())
        except ValueError:
            raise Refused("cannot decrypt")
        conn.sendall(b"Server: OK")
    elif first.startswith(b"public_key=") and PEM.match(first[len(b"public_key="):]):
        try:
            phone_key = serialization.load_pem_public_key(first[len(b"public_key="):])
        except ValueError:
            raise Refused("not a public key")
        if not isinstance(phone_key, rsa.RSAPublicKey):
            raise Refused("not an RSA key")
        conn.sendall(phone_key.encrypt(MESSAGE, padding.PKCS1v15()))
    else:
        raise Refused("no conversation starts with %r" % first[:20])
    if read_until_pause(conn) != b"Quit":
        raise Refused("expected Quit")
    conn.sendall(b"Server stopped\n")


def client_thread(conn, key):
    started = time.monotonic()
    try:
        converse(conn, key)
    except Refused as why:
        print("refused: %s" % why, file=sys.stderr)
        try:
            conn.sendall(b"Server: ERROR")
        except OSError:
            pass
    except OSError as error:
        print("client: %s" % error, file=sys.stderr)
    finally:
        conn.close()
        print("conversation over after %.1f s" % (time.monotonic() - started), file=sys.stderr)


def main():
    args = zoolib.arguments(__doc__.splitlines()[0], rsa_key=True)
    key = zoolib.rsa_private_key(args.key, args.bits)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((args.host, args.port))
    listener.listen(32)
    zoolib.announce(listener.getsockname()[1])
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=client_thread, args=(conn, key), daemon=True).start()


if __name__ == "__main__":
    main()
