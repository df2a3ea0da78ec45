"""aes-https, CORRECT: a hand-written HTTP/1.1 handler on asyncio + ssl, key mode utf8-zeropad16.

Written from docs/PROTOCOL.md ("Profile aes-https", "aes-https as implemented"), independently of
threaded_httpserver.py: asyncio streams with TLS, one request per connection (`Connection:
close`), its own request parser with size limits and deadlines. Each login gets a fresh token and
a fresh `encryptionKey` of 12 random letters and digits — mode utf8-zeropad16: the key is those
bytes zero-padded to 16 (AES-128), as the seed's CommonCrypto code derives it. Responses are
sealed under a fresh random IV; every bad envelope gets one and the same 400 body.

Expected verdict: pass (audit: the utf8-zeropad16 key mode, CBC without a MAC).
"""

import asyncio
import base64
import json
import os
import secrets
import ssl
import string
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import zoolib  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

HEADER_LIMIT = 16 * 1024
BODY_LIMIT = 1 << 20
DEADLINE = 10.0
KEY_ALPHABET = string.ascii_letters + string.digits
REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed",
           411: "Length Required", 413: "Payload Too Large"}
BAD_REQUEST = (400, {"error": "bad request"})


def pkcs7_pad(data):
    count = 16 - len(data) % 16
    return data + bytes([count]) * count


def pkcs7_unpad(data):
    count = data[-1] if data else 0
    if not 1 <= count <= 16 or data[-count:] != bytes([count]) * count:
        return None
    return data[:-count]


def strict_b64(value):
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value, validate=True)
    except ValueError:
        return None


class API:
    def __init__(self, username, password):
        self.username, self.password = username, password
        self.keys = {}  # token -> AES key bytes

    def login(self, body):
        try:
            fields = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return BAD_REQUEST
        if not isinstance(fields, dict) or not isinstance(fields.get("username"), str) or not isinstance(fields.get("password"), str):
            return BAD_REQUEST
        if (fields["username"], fields["password"]) != (self.username, self.password):
            return 401, {"error": "unauthorized"}
        encryption_key = "".join(secrets.choice(KEY_ALPHABET) for _ in range(12))
        token = secrets.token_urlsafe(24)
        self.keys[token] = encryption_key.encode("utf-8").ljust(16, b"\0")
        return 200, {"token": token, "encryptionKey": encryption_key}

    def secure_data(self, body, token):
        key = self.keys.get(token)
        if key is None:
            return 401, {"error": "unauthorized"}
        params = self.decrypt(body, key)
        if params is None:
            return BAD_REQUEST
        iv = secrets.token_bytes(16)
        encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
        plaintext = json.dumps({"echo": params}, separators=(",", ":")).encode("utf-8")
        ciphertext = encryptor.update(pkcs7_pad(plaintext)) + encryptor.finalize()
        return 200, {"data": base64.b64encode(ciphertext).decode(), "iv": base64.b64encode(iv).decode()}

    @staticmethod
    def decrypt(body, key):
        """The request's params, or None for every kind of bad envelope alike."""
        try:
            envelope = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None
        if not isinstance(envelope, dict):
            return None
        iv, ciphertext = strict_b64(envelope.get("iv")), strict_b64(envelope.get("data"))
        if iv is None or ciphertext is None or len(iv) != 16 or not ciphertext or len(ciphertext) % 16:
            return None
        decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
        plaintext = pkcs7_unpad(decryptor.update(ciphertext) + decryptor.finalize())
        if plaintext is None:
            return None
        try:
            params = json.loads(plaintext.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None
        return params if isinstance(params, dict) else None

    def route(self, method, path, headers, body):
        if path not in ("/login", "/secure-data"):
            return 404, {"error": "not found"}
        if method != "POST":
            return 405, {"error": "method not allowed"}
        if path == "/login":
            return self.login(body)
        return self.secure_data(body, headers.get("authorization"))


async def read_request(reader, writer):
    """(method, path, lowercase headers, body), or (status, document) for a request we refuse."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        return 413, {"error": "too large"}
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        return BAD_REQUEST
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    if "transfer-encoding" in headers:
        return 411, {"error": "length required"}
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError:
        return BAD_REQUEST
    if length < 0:
        return BAD_REQUEST
    if length > BODY_LIMIT:
        return 413, {"error": "too large"}
    if headers.get("expect", "").lower() == "100-continue":
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        await writer.drain()
    body = await reader.readexactly(length)
    return parts[0], parts[1], headers, body


def make_handler(api):
    async def connection(reader, writer):
        try:
            request = await asyncio.wait_for(read_request(reader, writer), DEADLINE)
            status, document = api.route(*request) if len(request) == 4 else request
            body = json.dumps(document, separators=(",", ":")).encode()
            writer.write(("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                          "Connection: close\r\n\r\n" % (status, REASONS[status], len(body))).encode() + body)
            await asyncio.wait_for(writer.drain(), DEADLINE)
        except (asyncio.TimeoutError, asyncio.IncompleteReadError, ConnectionError, ssl.SSLError) as error:
            print("connection: %r" % error, file=sys.stderr)
        finally:
            writer.close()
            try:
                await asyncio.wait_for(writer.wait_closed(), DEADLINE)
            except (asyncio.TimeoutError, ConnectionError, ssl.SSLError):
                pass

    return connection


async def serve(args):
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(args.cert, args.key)
    server = await asyncio.start_server(make_handler(API(args.username, args.password)), args.host, args.port,
                                        ssl=context, ssl_handshake_timeout=DEADLINE, limit=HEADER_LIMIT)
    zoolib.announce(server.sockets[0].getsockname()[1])
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(serve(zoolib.arguments(__doc__.splitlines()[0], tls=True)))
