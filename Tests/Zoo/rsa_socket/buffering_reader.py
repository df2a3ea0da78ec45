"""rsa-socket, CORRECT: a buffering legacy reader with no size bound (socketserver, threads).

Written from docs/PROTOCOL.md ("Framing": "A robust legacy reader reads exactly k bytes after
`encrypted_message=`, and for text reads until ... the expected literal"): it keeps reading until a
message is whole — the `Client: OK` or `Quit` literal, a PEM up to its `-----END …-----` line,
`encrypted_message=` plus exactly k bytes — under its own deadline (30 s of silence), and only then
acts. Legacy framing defines no size limit and this reader sets none: it buffers a never-ending
PEM until its deadline. That is a weakness (memory an attacker controls), not a protocol error.
At its deadline, or when the peer half-closes mid-message, it answers `Server: ERROR` and closes.
OAEP-SHA1 (OpenSSL's default OAEP) both ways, no digest extension.

Expected verdict: pass, with the audit finding "buffers without bound" (plus legacy framing).
"""

import os
import re
import socketserver
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import zoolib  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding, rsa  # noqa: E402

SILENCE_DEADLINE = 30.0
END_LINE = re.compile(rb"-----END [A-Z ]+-----")
OAEP_SHA1 = padding.OAEP(mgf=padding.MGF1(hashes.SHA1()), algorithm=hashes.SHA1(), label=None)


class Incomplete(Exception):
    """The peer went quiet (our deadline) or half-closed before a message was whole."""


class Conversation(socketserver.BaseRequestHandler):
    private_key = None  # set by main()

    def setup(self):
        self.buffer = b""
        self.request.settimeout(SILENCE_DEADLINE)

    def more(self):
        try:
            chunk = self.request.recv(65536)
        except TimeoutError:
            raise Incomplete("silent for %.0f s" % SILENCE_DEADLINE)
        if not chunk:
            raise Incomplete("peer closed")
        self.buffer += chunk

    def take(self, count):
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def next_message(self, k):
        """Returns ('hello'|'quit'|'key'|'ciphertext', payload) or ('bad', None); blocks until whole."""
        while True:
            self.buffer = self.buffer.lstrip(b"\r\n")
            for literal, name in ((b"Client: OK", "hello"), (b"Quit", "quit")):
                if self.buffer.startswith(literal):
                    self.take(len(literal))
                    return name, None
            if self.buffer.startswith(b"public_key="):
                end = END_LINE.search(self.buffer)
                if end:
                    pem = self.take(end.end())[len(b"public_key="):]
                    if self.buffer.startswith(b"\r\n"):
                        self.take(2)
                    elif self.buffer.startswith(b"\n"):
                        self.take(1)
                    return "key", pem
            elif self.buffer.startswith(b"encrypted_message="):
                if len(self.buffer) >= len(b"encrypted_message=") + k:
                    return "ciphertext", self.take(len(b"encrypted_message=") + k)[len(b"encrypted_message="):]
            elif self.buffer and not any(word.startswith(self.buffer) for word in
                                         (b"Client: OK", b"Quit", b"public_key=", b"encrypted_message=")):
                return "bad", None
            self.more()

    def handle(self):
        key = self.private_key
        try:
            self.converse(key)
        except Incomplete as why:
            print("incomplete message: %s" % why, file=sys.stderr)
            self.send(b"Server: ERROR")
        except OSError as error:
            print("client: %s" % error, file=sys.stderr)

    def send(self, data):
        try:
            self.request.sendall(data)
        except OSError:
            pass

    def converse(self, key):
        kind, payload = self.next_message(key.key_size // 8)
        if kind == "hello":
            self.send(b"public_key=" + zoolib.spki_pem(key.public_key()))
            kind, payload = self.next_message(key.key_size // 8)
            if kind != "ciphertext":
                return self.send(b"Server: ERROR")
            try:
                plaintext = key.decrypt(payload, OAEP_SHA1)
            except ValueError:
                return self.send(b"Server: ERROR")
            print("decrypted %d bytes" % len(plaintext), file=sys.stderr)
            self.send(b"Server: OK")
        elif kind == "key":
            try:
                phone_key = serialization.load_pem_public_key(payload)
            except ValueError:
                return self.send(b"Server: ERROR")
            if not isinstance(phone_key, rsa.RSAPublicKey):
                return self.send(b"Server: ERROR")
            self.send(phone_key.encrypt(b"Secret message from RPi server", OAEP_SHA1))
        else:
            return self.send(b"Server: ERROR")
        kind, _ = self.next_message(key.key_size // 8)
        self.send(b"Server stopped\n" if kind == "quit" else b"Server: ERROR")


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    args = zoolib.arguments(__doc__.splitlines()[0], rsa_key=True)
    Conversation.private_key = zoolib.rsa_private_key(args.key, args.bits)
    with Server((args.host, args.port), Conversation) as server:
        zoolib.announce(server.server_address[1])
        server.serve_forever()


if __name__ == "__main__":
    main()
