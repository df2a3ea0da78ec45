"""rsa-socket, CORRECT: the tutorial's server in Python 3 — one recv(1024) per message.

Written from docs/PROTOCOL.md ("Profile rsa-socket", "Framing: legacy"): each message is one
send() and the server does one recv(1024) per message, as the seed's Raspberry Pi server did,
with PKCS#1 v1.5 both ways (the seed's padding) and a 1024-bit key when started with --bits 1024.
Unlike the tutorial it does NOT run data.replace("\\r\\n", "") on what it reads, answers every
failure with exactly `Server: ERROR` and a close, serves each client in a thread, and puts a
deadline on every read.

Expected verdict: pass (weaknesses for the audit only: PKCS#1 v1.5, a 1024-bit key, legacy framing).
On a cryptography whose OpenSSL is >= 3.2 (zoo entry tutorial-current-openssl) its decrypt answers a
bad padding with a synthetic plaintext, so it answers `Server: OK`: pass, the audit naming implicit
rejection.
"""

import os
import socket
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import zoolib  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding, rsa  # noqa: E402

MESSAGE = b"Secret message from RPi server"
READ_DEADLINE = 20  # seconds a client may keep us waiting for its next message


def recv_message(conn):
    """One message = one recv(1024), exactly as the tutorial reads."""
    return conn.recv(1024)


def handle(conn, private_key, read=recv_message):
    public_pem = zoolib.spki_pem(private_key.public_key())
    k = private_key.key_size // 8

    def refuse():
        conn.sendall(b"Server: ERROR")

    data = read(conn)
    if data == b"Client: OK":
        # phone-to-pi: our key, then the phone's ciphertext
        conn.sendall(b"public_key=" + public_pem)  # pyca's PEM already ends with "\n"
        data = read(conn)
        if not data.startswith(b"encrypted_message="):
            return refuse()
        ciphertext = data[len(b"encrypted_message="):]
        if len(ciphertext) != k:
            return refuse()
        try:
            plaintext = private_key.decrypt(ciphertext, padding.PKCS1v15())
        except ValueError:
            return refuse()
        print("received %r" % plaintext, file=sys.stderr)
        conn.sendall(b"Server: OK")
    elif data.startswith(b"public_key="):
        # pi-to-phone: the phone's key, then our ciphertext for it
        try:
            phone_key = serialization.load_pem_public_key(data[len(b"public_key="):])
        except ValueError:
            return refuse()
        if not isinstance(phone_key, rsa.RSAPublicKey):
            return refuse()
        conn.sendall(phone_key.encrypt(MESSAGE, padding.PKCS1v15()))
    else:
        return refuse()

    data = read(conn)
    if data == b"Quit":
        conn.sendall(b"Server stopped\n")
    else:
        refuse()


def client_thread(conn, private_key, read):
    try:
        conn.settimeout(READ_DEADLINE)
        handle(conn, private_key, read)
    except OSError as error:  # a timeout or a reset ends this client only
        print("client: %s" % error, file=sys.stderr)
    finally:
        conn.close()


def main(read=recv_message, description=__doc__):
    args = zoolib.arguments(description.splitlines()[0], rsa_key=True)
    private_key = zoolib.rsa_private_key(args.key, args.bits)
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((args.host, args.port))
    server.listen(16)
    zoolib.announce(server.getsockname()[1])
    while True:
        conn, _ = server.accept()
        threading.Thread(target=client_thread, args=(conn, private_key, read), daemon=True).start()


if __name__ == "__main__":
    main()
