"""aes-https, CORRECT: http.server + ssl, a thread per connection, keep-alive, key mode base64-raw.

Written from docs/PROTOCOL.md ("Profile aes-https", "aes-https as implemented"): `POST /login`
gives a fresh random token and a fresh AES-256 key (`encryptionKey` = base64 of 32 random bytes)
per login; `POST /secure-data` with `Authorization: <token>` opens the `{"data","iv"}` envelope
(AES-CBC, PKCS#7) and answers `{"echo": <params>}` in an envelope under a fresh random IV. Every
envelope that does not parse, decrypt or hold a JSON object gets the same `400 {"error":"bad
request"}`; unknown or missing tokens 401; other paths 404, other methods 405, bodies over 1 MiB 413.

The aes-https mutants subclass `SecureAPI` and replace one of its small methods.

Expected verdict: pass (audit: CBC without a MAC).
"""

import base64
import binascii
import json
import os
import secrets
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import zoolib  # noqa: E402
from cryptography.hazmat.primitives import padding as symmetric_padding  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

MAX_BODY = 1 << 20


class BadEnvelope(Exception):
    """Why an envelope was refused: 'shape', 'padding' or 'json' (never told to the client)."""

    def __init__(self, why):
        super().__init__(why)
        self.why = why


def b64(data):
    return base64.b64encode(data).decode("ascii")


def unb64(text):
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise BadEnvelope("shape")


class SecureAPI(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10  # per-read deadline on the connection
    server_version = "zoo-threaded"

    # ---- the steps a mutant may replace ----

    def password_ok(self, username, password):
        return secrets.compare_digest(username.encode(), self.server.username.encode()) and \
            secrets.compare_digest(password.encode(), self.server.password.encode())

    def new_key(self):
        """(encryptionKey string, AES key bytes) for a new login."""
        key = os.urandom(32)
        return b64(key), key

    def new_token(self):
        return secrets.token_hex(16)

    def key_for(self, token):
        with self.server.lock:
            return self.server.sessions.get(token) if token else None

    def response_iv(self, request_iv):
        return os.urandom(16)

    def open_envelope(self, body, key):
        try:
            envelope = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            raise BadEnvelope("shape")
        if not isinstance(envelope, dict) or not isinstance(envelope.get("data"), str) or not isinstance(envelope.get("iv"), str):
            raise BadEnvelope("shape")
        iv, ciphertext = unb64(envelope["iv"]), unb64(envelope["data"])
        if len(iv) != 16 or not ciphertext or len(ciphertext) % 16:
            raise BadEnvelope("shape")
        decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
        padded = decryptor.update(ciphertext) + decryptor.finalize()
        unpadder = symmetric_padding.PKCS7(128).unpadder()
        try:
            plaintext = unpadder.update(padded) + unpadder.finalize()
        except ValueError:
            raise BadEnvelope("padding")
        try:
            params = json.loads(plaintext.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise BadEnvelope("json")
        if not self.params_ok(params):
            raise BadEnvelope("json")
        return params, iv

    def params_ok(self, params):
        """The JSON the server takes: an object (the one envelope shape this server serves)."""
        return isinstance(params, dict)

    def refuse_envelope(self, why):
        self.reply(400, {"error": "bad request"})

    # ---- HTTP ----

    def reply(self, status, document):
        body = json.dumps(document, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def seal(self, key, document, request_iv):
        iv = self.response_iv(request_iv)
        padder = symmetric_padding.PKCS7(128).padder()
        padded = padder.update(json.dumps(document, separators=(",", ":")).encode()) + padder.finalize()
        encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
        ciphertext = encryptor.update(padded) + encryptor.finalize()
        return {"data": b64(ciphertext), "iv": b64(iv)}

    def do_POST(self):
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY:
            self.close_connection = True
            return self.reply(413 if length > MAX_BODY else 400, {"error": "too large" if length > MAX_BODY else "bad request"})
        body = self.rfile.read(length)
        if self.path == "/login":
            self.login(body)
        elif self.path == "/secure-data":
            self.secure_data(body)
        else:
            self.reply(404, {"error": "not found"})

    def refuse_method(self):
        if self.path in ("/login", "/secure-data"):
            self.reply(405, {"error": "method not allowed"})
        else:
            self.reply(404, {"error": "not found"})

    do_GET = do_PUT = do_DELETE = do_PATCH = refuse_method

    def login(self, body):
        try:
            fields = json.loads(body)
            username, password = fields["username"], fields["password"]
            if not isinstance(username, str) or not isinstance(password, str):
                raise TypeError
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            return self.reply(400, {"error": "bad request"})
        if not self.password_ok(username, password):
            return self.reply(401, {"error": "unauthorized"})
        token = self.new_token()
        encryption_key, key = self.new_key()
        with self.server.lock:
            self.server.sessions[token] = key
        self.reply(200, {"token": token, "encryptionKey": encryption_key})

    def secure_data(self, body):
        key = self.key_for(self.headers.get("Authorization"))
        if key is None:
            return self.reply(401, {"error": "unauthorized"})
        try:
            params, request_iv = self.open_envelope(body, key)
        except BadEnvelope as refusal:
            return self.refuse_envelope(refusal.why)
        self.reply(200, self.seal(key, {"echo": params}, request_iv))

    def log_message(self, format, *args):
        sys.stderr.write("%s %s\n" % (self.address_string(), format % args))


class TLSServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, handler, context, username, password):
        super().__init__(address, handler)
        self.context, self.username, self.password = context, username, password
        self.sessions, self.lock = {}, threading.Lock()

    def finish_request(self, request, client_address):
        # The TLS handshake runs here, in the connection's own thread, under the read deadline.
        request.settimeout(SecureAPI.timeout)
        try:
            request = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError) as error:
            sys.stderr.write("TLS handshake: %s\n" % error)
            return
        try:
            super().finish_request(request, client_address)
        finally:
            request.close()


def main(handler=SecureAPI, description=__doc__):
    args = zoolib.arguments(description.strip().splitlines()[0], tls=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(args.cert, args.key)
    server = TLSServer((args.host, args.port), handler, context, args.username, args.password)
    zoolib.announce(server.server_address[1])
    server.serve_forever()


if __name__ == "__main__":
    main()
