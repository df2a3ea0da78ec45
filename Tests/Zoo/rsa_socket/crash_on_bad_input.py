"""rsa-socket, BROKEN: a malformed public-key PEM kills the whole server process.

Plants: the tutorial's shape — one accept() loop, one client at a time, one recv(1024) per
message — with no exception handling around the key import: a `public_key=` message whose PEM
does not load raises out of the accept loop and the process exits. Correct input works (pkcs1,
as the seed).

Expected verdict: fail, naming "liveness.after-" (the known-good conversation after a malformed
input class finds nobody listening).
"""

import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import zoolib  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding  # noqa: E402


def main():
    args = zoolib.arguments(__doc__.splitlines()[0], rsa_key=True)
    key = zoolib.rsa_private_key(args.key, args.bits)
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((args.host, args.port))
    server.listen(5)
    zoolib.announce(server.getsockname()[1])
    while True:
        conn, _ = server.accept()
        conn.settimeout(20)
        try:
            data = conn.recv(1024)
            if data == b"Client: OK":
                conn.sendall(b"public_key=" + zoolib.spki_pem(key.public_key()))
                data = conn.recv(1024)
                try:
                    key.decrypt(data[len(b"encrypted_message="):], padding.PKCS1v15())
                    conn.sendall(b"Server: OK")
                except ValueError:
                    conn.sendall(b"Server: ERROR")
                    conn.close()
                    continue
            elif data.startswith(b"public_key="):
                phone_key = serialization.load_pem_public_key(data[len(b"public_key="):])  # THE FLAW: no try
                conn.sendall(phone_key.encrypt(b"Secret message from RPi server", padding.PKCS1v15()))
            else:
                conn.sendall(b"Server: ERROR")
                conn.close()
                continue
            if conn.recv(1024) == b"Quit":
                conn.sendall(b"Server stopped\n")
            else:
                conn.sendall(b"Server: ERROR")
        except OSError as error:
            print("client: %s" % error, file=sys.stderr)
        conn.close()


if __name__ == "__main__":
    main()
