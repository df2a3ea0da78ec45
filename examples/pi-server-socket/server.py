"""An rsa-socket server for the Raspberry Pi, tutorial style: socketserver, one handler class.

Written from docs/PROTOCOL.md ("Profile rsa-socket", "rsa-socket conversations as implemented",
"Legacy reading"), the way the seed tutorial's server would look written today: Python 3 with
pyca/cryptography, a thread per client, legacy framing (no length prefixes), and both directions:

  phone-to-pi:  Client: OK -> public_key=<PEM>\\n -> encrypted_message=<k bytes> -> Server: OK ... -> Quit
  pi-to-phone:  public_key=<PEM> -> <k ciphertext bytes> -> Quit -> Server stopped\\n

What it does better than the tutorial: OAEP-SHA256 for what the Pi decrypts (phone-to-pi: no
PKCS#1 v1.5 padding oracle to probe), a 2048-bit key, reads a
message until it is whole (never strips \\r\\n out of ciphertext), a bound on every message and a
deadline on every read, one answer (`Server: ERROR`, then close) for every failure, and the
`digest` extension (`Server: OK sha256=<hex>`) so a client can prove what was decrypted. What the
phone decrypts (pi-to-phone) stays PKCS#1 v1.5, because the app as shipped decrypts with
SecPadding.PKCS1 only (crosscheck's audit reports it as weak); move both sides to OAEP together.

Run it on the Pi:        python3 server.py [--port 9876]
Check it in-process:     crosscheck run --server examples/pi-server-socket/server.py:Handler
Check it on the Pi:      crosscheck remote --host raspberrypi.local --port 9876 --profile rsa-socket
"""

import argparse
import base64
import binascii
import hashlib
import re
import socket
import socketserver

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

MESSAGE = b"Secret message from RPi server"
QUIET_GAP = 1.0   # seconds of silence that end a message that is not whole yet: refused
IDLE = 20.0       # seconds a client may stay silent before a message starts
LIMIT = 65536     # bytes one message may take

OAEP = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
FOR_THE_APP = padding.PKCS1v15()  # what the shipped app's SecKeyDecrypt(.PKCS1) can decrypt
# A PEM message ends at its first END line (docs/PROTOCOL.md, "Legacy reading"); a label that
# differs from BEGIN's is then refused, not skipped over to a later END line.
PEM_BLOCK = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END ([A-Z0-9 ]{1,80})-----", re.S)

# One key for the server's life (module state, as on the Pi).
PRIVATE_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PUBLIC_PEM = PRIVATE_KEY.public_key().public_bytes(serialization.Encoding.PEM,
                                                   serialization.PublicFormat.SubjectPublicKeyInfo)


RSA_ENCRYPTION = bytes.fromhex("06092a864886f70d010101")  # the OID rsaEncryption, as DER


def public_key_from_pem(pem):
    """An RSA public key from SPKI (`PUBLIC KEY`, algorithm rsaEncryption) or PKCS#1 (`RSA PUBLIC
    KEY`) PEM, read strictly: any line ends, strict base64, exactly one DER structure (OpenSSL's
    PEM reader would ignore bytes after it, and take RSA-PSS keys for encryption keys)."""
    match = PEM_BLOCK.match(pem)
    label, body = match.group(1), match.group(2)
    if match.group(3) != label:
        raise Refused("BEGIN and END labels differ")
    if body[:1] not in (b"\r", b"\n"):
        raise Refused("no line end after the BEGIN line")
    body = body.replace(b"\r", b"").replace(b"\n", b"")  # line ends only: any other byte is not base64
    # Standard base64: a multiple of 4, at most two `=` and only at the end (b64decode alone
    # would take `YWJj=` and ignore what follows padding).
    if len(body) % 4:
        raise Refused("base64 whose length is not a multiple of 4")
    der = binascii.a2b_base64(body, strict_mode=True)
    if not one_der_structure(der):
        raise Refused("bytes after the key's DER structure")
    if label == b"PUBLIC KEY":
        if RSA_ENCRYPTION not in der[:24]:
            raise Refused("not an rsaEncryption key")
        key = serialization.load_der_public_key(der)
    elif label == b"RSA PUBLIC KEY":
        if RSA_ENCRYPTION in der[:24]:
            raise Refused("an SPKI key under the PKCS#1 label")
        key = serialization.load_pem_public_key(b"-----BEGIN RSA PUBLIC KEY-----\n" + base64.encodebytes(der) + b"-----END RSA PUBLIC KEY-----\n")
    else:
        raise Refused("not a public key PEM")
    if not isinstance(key, rsa.RSAPublicKey):
        raise Refused("not an RSA public key")
    require_valid_rsa_key(key, der, spki=label == b"PUBLIC KEY")
    return key


def require_valid_rsa_key(key, der, spki):
    """docs/PROTOCOL.md "Padding and keys": DER as DER (what loaded must re-encode to exactly the
    bytes given, X.690 §10) and a real RSA key (RFC 8017 §3.1: n odd, at least 1024 bits, 3 <= e < n,
    e odd). A cryptography on OpenSSL 3.0 loads e = 1, to which "encrypting" sends the message in
    the clear."""
    form = serialization.PublicFormat.SubjectPublicKeyInfo if spki else serialization.PublicFormat.PKCS1
    if key.public_bytes(serialization.Encoding.DER, form) != der:
        raise Refused("not DER (a non-minimal length, a padded INTEGER, ...)")
    numbers = key.public_numbers()
    n, e = numbers.n, numbers.e
    if n % 2 == 0 or n.bit_length() < 1024 or not 3 <= e < n or e % 2 == 0:
        raise Refused("not a valid RSA key (n odd and >= 1024 bits, 3 <= e < n, e odd)")


def one_der_structure(der):
    """True when `der` is one SEQUENCE and nothing after it (BER's lengths are let through here
    and refused by `require_valid_rsa_key`, which compares the key with its DER)."""
    if len(der) < 2 or der[0] != 0x30:
        return False
    try:
        return element_end(der, 0) == len(der)
    except IndexError:
        return False


def element_end(der, offset, depth=0):
    """Where the element starting at `offset` ends (IndexError: it does not, within `der`)."""
    if depth > 16 or offset + 2 > len(der) or der[offset] & 0x1F == 0x1F:
        raise IndexError("malformed element")
    length, position = der[offset + 1], offset + 2
    if length == 0x80:  # indefinite: elements up to 00 00
        while der[position:position + 2] != b"\x00\x00":
            if position >= len(der):
                raise IndexError("no end-of-contents")
            position = element_end(der, position, depth + 1)
        return position + 2
    if length & 0x80:
        count = length & 0x7F
        if not 1 <= count <= 4 or position + count > len(der):
            raise IndexError("malformed length")
        length, position = int.from_bytes(der[position:position + count], "big"), position + count
    if position + length > len(der):
        raise IndexError("element longer than the data")
    return position + length


class Refused(Exception):
    """Anything the client sent that cannot be served: one answer for all of them."""


class PeerGone(Exception):
    """The client closed, or said nothing at all."""


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        self.buffer = b""
        try:
            self.converse()
        except Refused as why:
            print("refused:", why)
            self.send(b"Server: ERROR")
        except (PeerGone, OSError) as why:
            print("client gone:", why)

    # ---- reading whole messages ----

    def send(self, data):
        try:
            self.request.sendall(data)
        except OSError:
            pass

    def more(self, within=False):
        """Reads more bytes: up to IDLE seconds before a message starts, QUIET_GAP within one
        (`within`: its first part, e.g. `encrypted_message=`, is already consumed)."""
        within = within or bool(self.buffer)
        self.request.settimeout(QUIET_GAP if within else IDLE)
        try:
            data = self.request.recv(4096)
        except socket.timeout:
            if within:
                raise Refused("incomplete message at a quiet gap")
            raise PeerGone("silent")
        if not data:
            if within:
                raise Refused("closed in the middle of a message")
            raise PeerGone("closed")
        self.buffer += data
        if len(self.buffer) > LIMIT:
            raise Refused("message over %d bytes" % LIMIT)

    def skip_line_ends(self):
        self.buffer = self.buffer.lstrip(b"\r\n")

    def expect_literal(self, literal):
        while True:
            self.skip_line_ends()
            if self.buffer.startswith(literal):
                self.buffer = self.buffer[len(literal):]
                return
            if self.buffer and not literal.startswith(self.buffer):
                raise Refused("expected %r" % literal)
            self.more()

    def first_message(self):
        """`Client: OK` (phone-to-pi) or `public_key=` (pi-to-phone)."""
        while True:
            self.skip_line_ends()
            for literal in (b"Client: OK", b"public_key="):
                if self.buffer.startswith(literal):
                    self.buffer = self.buffer[len(literal):]
                    return literal
            if self.buffer and not any(literal.startswith(self.buffer) for literal in (b"Client: OK", b"public_key=")):
                raise Refused("not a first message")
            self.more()

    def pem_message(self):
        """The client's PEM, whole at its END line (a following line end is consumed)."""
        while True:
            match = PEM_BLOCK.match(self.buffer)
            if match:
                pem = match.group(0)
                rest = self.buffer[match.end():]
                self.buffer = rest[2:] if rest.startswith(b"\r\n") else rest[1:] if rest[:1] in (b"\n", b"\r") else rest
                return pem
            if self.buffer and not b"-----BEGIN ".startswith(self.buffer[:11]):
                raise Refused("not a PEM block")
            self.more(within=True)

    def exactly(self, count):
        while len(self.buffer) < count:
            self.more(within=True)
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    # ---- the conversation ----

    def converse(self):
        first = self.first_message()
        if first == b"Client: OK":
            self.send(b"public_key=" + PUBLIC_PEM)
            self.expect_literal(b"encrypted_message=")
            ciphertext = self.exactly(PRIVATE_KEY.key_size // 8)
            try:
                plaintext = PRIVATE_KEY.decrypt(ciphertext, OAEP)
            except ValueError:
                raise Refused("does not decrypt")
            self.send(b"Server: OK sha256=" + hashlib.sha256(plaintext).hexdigest().encode())
        else:
            pem = self.pem_message()
            try:
                key = public_key_from_pem(pem)
                ciphertext = key.encrypt(MESSAGE, FOR_THE_APP)
            except Refused:
                raise
            except Exception as why:  # cryptography raises more than ValueError for odd keys (InternalError)
                raise Refused("unusable public key: %s" % why)
            self.send(ciphertext)
        self.expect_literal(b"Quit")
        self.send(b"Server stopped\n")


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=9876)
    arguments = parser.parse_args()
    with Server((arguments.host, arguments.port), Handler) as server:
        print("LISTENING %d" % server.server_address[1], flush=True)
        server.serve_forever()
