"""rsa-socket, CORRECT: an asyncio server with read limits and timeouts (legacy framing).

Written from docs/PROTOCOL.md ("Framing", "Server rules"): coroutines per client, a message may
not exceed 16 KiB (a public-key PEM of 4096 bits is under 1 KiB), each message must be whole within
5 s of its first byte, and the connection is dropped after 20 s without any byte. Every failure —
over the limit, incomplete at the deadline, a bad key, a decryption failure — is answered with
exactly `Server: ERROR` and a close. OAEP-SHA256 both ways, and the `digest` extension
(`Server: OK sha256=<hex>`).

Expected verdict: pass (legacy framing is an audit weakness only).
"""

import asyncio
import hashlib
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import zoolib  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding, rsa  # noqa: E402

MESSAGE_LIMIT = 16 * 1024
MESSAGE_DEADLINE = 5.0
IDLE_DEADLINE = 20.0
OAEP = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
PEM_END = re.compile(rb"-----END [A-Z ]+-----(\r?\n)?")


class Refused(Exception):
    pass


class Legacy:
    """Reads one legacy message at a time from a StreamReader, keeping what follows it."""

    def __init__(self, reader, k):
        self.reader, self.k, self.pending = reader, k, b""

    async def _fill(self, deadline):
        loop = asyncio.get_running_loop()
        wait = IDLE_DEADLINE if not self.pending else deadline - loop.time()
        if wait <= 0:
            raise Refused("message incomplete after %.0f s" % MESSAGE_DEADLINE)
        try:
            chunk = await asyncio.wait_for(self.reader.read(4096), wait)
        except asyncio.TimeoutError:
            raise Refused("timed out")
        if not chunk:
            raise Refused("peer closed mid-message" if self.pending else "peer closed")
        self.pending += chunk
        if len(self.pending) > MESSAGE_LIMIT:
            raise Refused("message over %d bytes" % MESSAGE_LIMIT)

    def _complete(self):
        """(kind, payload, length) when a whole message is pending, None when more is needed."""
        data = self.pending
        for literal, kind in ((b"Client: OK", "hello"), (b"Quit", "quit")):
            if data.startswith(literal):
                return kind, b"", len(literal)
            if literal.startswith(data):
                return None
        if data.startswith(b"public_key="):
            end = PEM_END.search(data)
            if end is None:
                return None  # a line end that arrives later is skipped before the next message
            return "key", data[len(b"public_key="):end.end()], end.end()
        if data.startswith(b"encrypted_message="):
            size = len(b"encrypted_message=") + self.k
            return ("ciphertext", data[len(b"encrypted_message="):size], size) if len(data) >= size else None
        if b"public_key=".startswith(data) or b"encrypted_message=".startswith(data):
            return None
        raise Refused("bytes that begin no message: %r" % data[:20])

    async def message(self):
        loop = asyncio.get_running_loop()
        self.pending = self.pending.lstrip(b"\r\n")
        deadline = None
        while True:
            if self.pending:
                found = self._complete()
                if found:
                    kind, payload, length = found
                    self.pending = self.pending[length:]
                    return kind, payload
            if deadline is None and self.pending:
                deadline = loop.time() + MESSAGE_DEADLINE
            await self._fill(deadline)
            self.pending = self.pending.lstrip(b"\r\n")


def make_handler(private_key):
    k = private_key.key_size // 8
    public_pem = zoolib.spki_pem(private_key.public_key())

    async def conversation(reader, writer):
        wire = Legacy(reader, k)
        try:
            kind, payload = await wire.message()
            if kind == "hello":
                writer.write(b"public_key=" + public_pem)
                await writer.drain()
                kind, payload = await wire.message()
                if kind != "ciphertext":
                    raise Refused("expected encrypted_message=, got %s" % kind)
                try:
                    plaintext = private_key.decrypt(payload, OAEP)
                except ValueError:
                    raise Refused("decryption failed")
                writer.write(b"Server: OK sha256=" + hashlib.sha256(plaintext).hexdigest().encode())
            elif kind == "key":
                try:
                    phone_key = serialization.load_pem_public_key(payload)
                except ValueError:
                    raise Refused("not a public key")
                if not isinstance(phone_key, rsa.RSAPublicKey):
                    raise Refused("not an RSA key")
                writer.write(phone_key.encrypt(b"Secret message from RPi server", OAEP))
            else:
                raise Refused("unexpected first message %s" % kind)
            await writer.drain()
            kind, _ = await wire.message()
            if kind != "quit":
                raise Refused("expected Quit, got %s" % kind)
            writer.write(b"Server stopped\n")
        except Refused as why:
            print("refused: %s" % why, file=sys.stderr)
            writer.write(b"Server: ERROR")
        except OSError as error:
            print("client: %s" % error, file=sys.stderr)
        finally:
            try:
                await asyncio.wait_for(writer.drain(), IDLE_DEADLINE)
                writer.close()
                await asyncio.wait_for(writer.wait_closed(), IDLE_DEADLINE)
            except (OSError, asyncio.TimeoutError):
                pass

    return conversation


async def serve(args):
    private_key = zoolib.rsa_private_key(args.key, args.bits)
    server = await asyncio.start_server(make_handler(private_key), args.host, args.port, limit=MESSAGE_LIMIT)
    zoolib.announce(server.sockets[0].getsockname()[1])
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(serve(zoolib.arguments(__doc__.splitlines()[0], rsa_key=True)))
