"""rsa-socket, CORRECT: the threaded server every rsa-socket mutant plants its one flaw into.

Written from docs/PROTOCOL.md ("rsa-socket conversations", "Server rules", "Framing"). One class,
`Conversation`, with small methods a mutant overrides — `decrypt`, `ok_answer`, `on_quit`, … — so
that each mutant file shows its flaw and nothing else. Unmodified (as the `control-*` entries of
zoo.json run it) it is a correct server: legacy or framed, pkcs1 / oaep-sha1 / oaep-sha256, the
optional digest extension, a 64 KiB bound on a message, a 1 s quiet gap ending an incomplete legacy
message, one answer — `Server: ERROR` and a close — for every failure, and a client key that is no
valid RSA key (e = 1, an even n, …) refused before anything is encrypted to it.

Expected verdict (unmodified): pass. With pkcs1 on a cryptography whose OpenSSL is >= 3.2 (zoo
entry control-pkcs1-current-openssl) a bad padding gets `Server: OK` and a synthetic plaintext's
digest: pass, the audit naming implicit rejection.
"""

import argparse
import hashlib
import os
import re
import socket
import struct
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import zoolib  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding, rsa  # noqa: E402

MESSAGE = b"Secret message from RPi server"
ERROR = b"Server: ERROR"
PEM_BLOCK = re.compile(rb"-----BEGIN ([A-Z ]+)-----.*?-----END \1-----", re.S)


def padding_named(name):
    if name == "pkcs1":
        return padding.PKCS1v15()
    digest = {"oaep-sha1": hashes.SHA1, "oaep-sha256": hashes.SHA256}[name]
    return padding.OAEP(mgf=padding.MGF1(digest()), algorithm=digest(), label=None)


class Refusal(Exception):
    """Ends (or, with close=False, restarts) a conversation; `answer` None means a silent close."""

    def __init__(self, reason, answer=ERROR, close=True):
        super().__init__(reason)
        self.answer, self.close = answer, close


class PeerGone(Refusal):
    """The peer closed or stayed silent: the conversation ends whatever a mutant wants."""


class Conversation:
    quiet_gap = 1.0       # legacy: silence that ends an incomplete message (then: refused)
    idle = 20.0           # silence allowed before a message starts
    limit = 65536         # bytes one message may take, in either framing

    def __init__(self, sock, server):
        self.sock, self.server, self.buffer = sock, server, b""
        self.private_key = server.private_key
        self.k = server.private_key.key_size // 8
        self.padding = padding_named(server.options.padding)
        self.framed = server.options.framing == "framed"
        self.digest = server.options.digest

    # ---- the conversation (docs/PROTOCOL.md, "rsa-socket conversations as implemented") ----

    def run(self):
        try:
            while True:
                try:
                    self.converse()
                    return
                except Refusal as refusal:
                    print("refused: %s" % refusal, file=sys.stderr)
                    if refusal.answer is not None:
                        self.send(refusal.answer)
                    if refusal.close or isinstance(refusal, PeerGone):
                        return
        except OSError as error:
            print("client: %s" % error, file=sys.stderr)
        finally:
            self.sock.close()

    def converse(self):
        kind, payload = self.read_message()
        if kind == "hello":
            self.send(b"public_key=" + zoolib.spki_pem(self.private_key.public_key()))
            self.after_sending_key()
            kind, payload = self.read_message()
            if kind != "ciphertext":
                raise Refusal("expected encrypted_message=, got %s" % kind)
            plaintext = self.decrypt(payload)
            self.send(self.ok_answer(plaintext, payload))
        elif kind == "key":
            phone_key = self.import_key(payload)
            self.send(self.encrypt_for(phone_key, MESSAGE))
        else:
            raise Refusal("a conversation cannot start with %s" % kind)
        kind, _ = self.read_message()
        if kind != "quit":
            raise Refusal("expected Quit, got %s" % kind)
        self.on_quit()

    # ---- the steps a mutant may replace ----

    def after_sending_key(self):
        pass

    def decrypt(self, ciphertext):
        try:
            return self.private_key.decrypt(ciphertext, self.padding)
        except ValueError:
            raise Refusal("decryption failed")

    def ok_answer(self, plaintext, ciphertext):
        if self.digest:
            return b"Server: OK sha256=" + hashlib.sha256(plaintext).hexdigest().encode()
        return b"Server: OK"

    def import_key(self, pem):
        try:
            key = serialization.load_pem_public_key(pem)
        except ValueError:
            raise Refusal("not a public key PEM")
        if not isinstance(key, rsa.RSAPublicKey):
            raise Refusal("not an RSA public key")
        # docs/PROTOCOL.md "Padding and keys" (RFC 8017 §3.1): refused before anything is encrypted to
        # it. (A cryptography on OpenSSL 3.0 loads e = 1; one >= 42 already refuses it at load.)
        numbers = key.public_numbers()
        if numbers.n % 2 == 0 or numbers.n.bit_length() < 1024 or not 3 <= numbers.e < numbers.n or numbers.e % 2 == 0:
            raise Refusal("not a valid RSA key (n odd and >= 1024 bits, 3 <= e < n, e odd)")
        return key

    def encrypt_for(self, phone_key, message):
        return phone_key.encrypt(message, self.padding)

    def on_quit(self):
        self.send(b"Server stopped\n")

    def raw_rsa(self, ciphertext):
        """Textbook RSA decryption, c^d mod n as k bytes: for mutants that parse padding themselves."""
        numbers = self.private_key.private_numbers()
        c = int.from_bytes(ciphertext, "big")
        if len(ciphertext) != self.k or c >= numbers.public_numbers.n:
            raise Refusal("ciphertext out of range")
        return pow(c, numbers.d, numbers.public_numbers.n).to_bytes(self.k, "big")

    # ---- messages on the wire ----

    def send(self, payload):
        self.sock.sendall(struct.pack(">I", len(payload)) + payload if self.framed else payload)

    def read_message(self):
        """('hello'|'key'|'ciphertext'|'quit', payload); a Refusal for anything else."""
        return self.read_frame() if self.framed else self.read_legacy()

    def recv(self, timeout, why):
        self.sock.settimeout(timeout)
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            raise PeerGone(why)
        if not chunk:
            raise PeerGone("peer closed" + (" mid-message" if self.buffer else ""), answer=ERROR if self.buffer else None)
        return chunk

    def read_frame(self):
        while len(self.buffer) < 4:
            self.buffer += self.recv(self.idle if not self.buffer else 5.0, "partial frame header")
        (length,) = struct.unpack(">I", self.buffer[:4])
        if length == 0 or length > self.limit:
            raise Refusal("frame length %d" % length)
        while len(self.buffer) < 4 + length:
            self.buffer += self.recv(5.0, "partial frame")
        frame, self.buffer = self.buffer[4:4 + length], self.buffer[4 + length:]
        for literal, kind in ((b"Client: OK", "hello"), (b"Quit", "quit")):
            if frame == literal:
                return kind, b""
        if frame.startswith(b"public_key="):
            pem = frame[len(b"public_key="):]
            block = PEM_BLOCK.match(pem)
            if block and pem[block.end():] in (b"", b"\n", b"\r\n"):
                return "key", pem
        if frame.startswith(b"encrypted_message=") and len(frame) == len(b"encrypted_message=") + self.k:
            return "ciphertext", frame[len(b"encrypted_message="):]
        raise Refusal("a frame that is no expected message")

    def read_legacy(self):
        while True:
            self.buffer = self.buffer.lstrip(b"\r\n")
            found = self.whole_legacy_message()
            if found:
                kind, payload, used = found
                self.buffer = self.buffer[used:]
                return kind, payload
            if len(self.buffer) > self.limit:
                raise Refusal("a message over %d bytes" % self.limit)
            if self.buffer:
                self.buffer += self.recv(self.quiet_gap, "incomplete message at a quiet gap")
            else:
                self.buffer += self.recv(self.idle, "idle")

    def whole_legacy_message(self):
        data = self.buffer
        if not data:
            return None
        for literal, kind in ((b"Client: OK", "hello"), (b"Quit", "quit")):
            if data.startswith(literal):
                return kind, b"", len(literal)
        if data.startswith(b"public_key="):
            block = PEM_BLOCK.search(data, len(b"public_key="))
            return ("key", data[len(b"public_key="):block.end()], block.end()) if block else None
        if data.startswith(b"encrypted_message="):
            used = len(b"encrypted_message=") + self.k
            return ("ciphertext", data[len(b"encrypted_message="):used], used) if len(data) >= used else None
        if any(word.startswith(data) for word in (b"Client: OK", b"Quit", b"public_key=", b"encrypted_message=")):
            return None
        raise Refusal("bytes that begin no message")


class Server:
    def __init__(self, options, conversation_class):
        self.options, self.conversation_class = options, conversation_class
        self.private_key = zoolib.rsa_private_key(options.key, options.bits)

    def serve(self):
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.options.host, self.options.port))
        listener.listen(32)
        zoolib.announce(listener.getsockname()[1])
        while True:
            sock, _ = listener.accept()
            conversation = self.conversation_class(sock, self)
            threading.Thread(target=conversation.run, daemon=True).start()


def main(conversation_class=Conversation, description=__doc__, padding_default="oaep-sha256"):
    def options(parser: argparse.ArgumentParser):
        parser.add_argument("--padding", choices=["pkcs1", "oaep-sha1", "oaep-sha256"], default=padding_default)
        parser.add_argument("--framing", choices=["legacy", "framed"], default="legacy")
        parser.add_argument("--digest", action="store_true", help="answer Server: OK sha256=<hex>")

    Server(zoolib.arguments(description.strip().splitlines()[0], rsa_key=True, extra=options), conversation_class).serve()


if __name__ == "__main__":
    main()
