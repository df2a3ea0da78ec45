"""An rsa-socket server for the Raspberry Pi on asyncio: one class that owns its key and its own
accept loop (`asyncio.start_server`), one coroutine per client.

Written from docs/PROTOCOL.md ("Profile rsa-socket", "rsa-socket conversations as implemented",
"Legacy reading"): legacy framing, both directions, OAEP-SHA256 for what the Pi decrypts with the
`digest` extension, PKCS#1 v1.5 for what the shipped app decrypts (it calls SecKeyDecrypt with
.PKCS1 only), client keys read strictly (SPKI or PKCS#1 PEM, strict base64, one DER structure with
DER as DER, valid RSA keys only), `Server: ERROR` and a close for every failure, a bound on every message and a
quiet gap that ends an incomplete one.

Its shape is not one crosscheck takes as is (the class runs its own loop), so `adapter.py` next to
it hands crosscheck the per-client coroutine:

Run it on the Pi:        python3 server.py [--port 9876]
Check it in-process:     crosscheck run --server examples/pi-server-asyncio/adapter.py:make_server
Check it on the Pi:      crosscheck remote --host raspberrypi.local --port 9876 --profile rsa-socket
"""

import argparse
import asyncio
import binascii
import hashlib
import re

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

GREETING = b"Secret message from RPi server"
QUIET_GAP = 1.0    # seconds of silence that make an incomplete message an error
IDLE = 20.0        # seconds a client may wait before it starts a message
MAX_MESSAGE = 65536
PEM = re.compile(rb"-----BEGIN (PUBLIC KEY|RSA PUBLIC KEY)-----(\r\n|\r|\n)(.*?)-----END \1-----", re.S)
RSA_ENCRYPTION_OID = bytes.fromhex("06092a864886f70d010101")


class Refusal(Exception):
    """What the client sent cannot be served: answered by `Server: ERROR`, whatever the cause."""


class Gone(Exception):
    """The client closed, or never spoke."""


def der_end(der, at, depth=0):
    """The end of the BER/DER element at `at`; Refusal when it is malformed or runs past the data."""
    if depth > 16 or at + 2 > len(der) or der[at] & 0x1F == 0x1F:
        raise Refusal("malformed DER")
    first, at = der[at + 1], at + 2
    if first == 0x80:  # indefinite length: elements until 00 00
        while der[at:at + 2] != b"\x00\x00":
            if at >= len(der):
                raise Refusal("indefinite length without its end")
            at = der_end(der, at, depth + 1)
        return at + 2
    length = first
    if first & 0x80:
        size = first & 0x7F
        if size == 0 or size > 4 or at + size > len(der):
            raise Refusal("malformed DER length")
        length, at = int.from_bytes(der[at:at + size], "big"), at + size
    if at + length > len(der):
        raise Refusal("DER longer than the data")
    return at + length


def read_client_key(pem):
    match = PEM.fullmatch(pem)
    if match is None:
        raise Refusal("not a public key PEM")
    label, body = match.group(1), match.group(3).replace(b"\r", b"").replace(b"\n", b"")
    if len(body) % 4:
        raise Refusal("base64 length not a multiple of 4")
    try:
        der = binascii.a2b_base64(body, strict_mode=True)
    except binascii.Error as why:
        raise Refusal("bad base64: %s" % why)
    if not der or der[0] != 0x30 or der_end(der, 0) != len(der):
        raise Refusal("not exactly one DER structure")
    spki = RSA_ENCRYPTION_OID in der[:24]
    if (label == b"PUBLIC KEY") != spki:
        raise Refusal("the label does not match the key's structure")
    try:
        if spki:
            key = serialization.load_der_public_key(der)
        else:
            key = serialization.load_pem_public_key(b"-----BEGIN RSA PUBLIC KEY-----\n" + binascii.b2a_base64(der)
                                                    + b"-----END RSA PUBLIC KEY-----\n")
    except Exception as why:  # ValueError, and cryptography's other errors for odd keys
        raise Refusal("key does not load: %s" % why)
    if not isinstance(key, rsa.RSAPublicKey):
        raise Refusal("not an RSA key")
    # docs/PROTOCOL.md "Padding and keys": DER as DER (re-encoding gives the bytes given, X.690 §10)
    # and a real RSA key (RFC 8017 §3.1), before anything is encrypted to it: e = 1 would send the
    # message in the clear.
    form = serialization.PublicFormat.SubjectPublicKeyInfo if spki else serialization.PublicFormat.PKCS1
    if key.public_bytes(serialization.Encoding.DER, form) != der:
        raise Refusal("not DER")
    n, e = key.public_numbers().n, key.public_numbers().e
    if n % 2 == 0 or n.bit_length() < 1024 or not 3 <= e < n or e % 2 == 0:
        raise Refusal("not a valid RSA key (n odd and >= 1024 bits, 3 <= e < n, e odd)")
    return key


class Reader:
    """Whole legacy messages out of an asyncio stream."""

    def __init__(self, stream):
        self.stream = stream
        self.pending = b""

    async def more(self, inside=False):
        """More bytes; `inside`: the message has begun (e.g. `encrypted_message=` is consumed)."""
        started = inside or bool(self.pending)
        try:
            chunk = await asyncio.wait_for(self.stream.read(4096), QUIET_GAP if started else IDLE)
        except asyncio.TimeoutError:
            if started:
                raise Refusal("incomplete message at a quiet gap")
            raise Gone("silent")
        if not chunk:
            if started:
                raise Refusal("closed inside a message")
            raise Gone("closed")
        self.pending += chunk
        if len(self.pending) > MAX_MESSAGE:
            raise Refusal("message too long")

    async def literal(self, *choices):
        """One of `choices`, after any line ends left over from the previous message."""
        while True:
            self.pending = self.pending.lstrip(b"\r\n")
            for choice in choices:
                if self.pending.startswith(choice):
                    self.pending = self.pending[len(choice):]
                    return choice
            if self.pending and not any(choice.startswith(self.pending) for choice in choices):
                raise Refusal("unexpected message")
            await self.more()

    async def pem(self):
        """A PEM block, whole at its END line; one line end after it belongs to it."""
        while True:
            if self.pending and not b"-----BEGIN ".startswith(self.pending[:11]):
                raise Refusal("not a PEM block")
            end = re.search(rb"-----END [A-Z0-9 ]{1,80}-----", self.pending)
            if end:
                pem, rest = self.pending[:end.end()], self.pending[end.end():]
                for line_end in (b"\r\n", b"\n", b"\r"):
                    if rest.startswith(line_end):
                        rest = rest[len(line_end):]
                        break
                self.pending = rest
                return pem
            await self.more(inside=True)

    async def exactly(self, count):
        while len(self.pending) < count:
            await self.more(inside=True)
        data, self.pending = self.pending[:count], self.pending[count:]
        return data


class PiServer:
    def __init__(self, bits=2048):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
        self.public_pem = self.key.public_key().public_bytes(serialization.Encoding.PEM,
                                                             serialization.PublicFormat.SubjectPublicKeyInfo)
        self.oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)

    async def client(self, stream_in, stream_out):
        """One client's whole conversation (the callback asyncio.start_server takes)."""
        try:
            await self.converse(Reader(stream_in), stream_out)
        except Refusal as why:
            print("refused:", why)
            stream_out.write(b"Server: ERROR")
        except (Gone, ConnectionError) as why:
            print("client gone:", why)
        try:
            await stream_out.drain()
        except ConnectionError:
            pass
        stream_out.close()

    async def converse(self, reader, out):
        first = await reader.literal(b"Client: OK", b"public_key=")
        if first == b"Client: OK":
            out.write(b"public_key=" + self.public_pem)
            await out.drain()
            await reader.literal(b"encrypted_message=")
            ciphertext = await reader.exactly(self.key.key_size // 8)
            try:
                plaintext = self.key.decrypt(ciphertext, self.oaep)
            except ValueError:
                raise Refusal("does not decrypt")
            out.write(b"Server: OK sha256=" + hashlib.sha256(plaintext).hexdigest().encode())
        else:
            key = read_client_key(await reader.pem())
            try:
                out.write(key.encrypt(GREETING, padding.PKCS1v15()))
            except Exception as why:
                raise Refusal("cannot encrypt to this key: %s" % why)
        await out.drain()
        await reader.literal(b"Quit")
        out.write(b"Server stopped\n")

    async def serve(self, host, port):
        server = await asyncio.start_server(self.client, host, port)
        print("LISTENING %d" % server.sockets[0].getsockname()[1], flush=True)
        async with server:
            await server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=9876)
    arguments = parser.parse_args()
    asyncio.run(PiServer().serve(arguments.host, arguments.port))
