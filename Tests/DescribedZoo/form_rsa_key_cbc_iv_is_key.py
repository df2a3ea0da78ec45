"""form-rsa-key-cbc-iv-is-key (examples/protocols/form-rsa-key-cbc-iv-is-key.toml), from the description alone.

HTTP. The server's RSA key is preshared: the client has its public half before the conversation (the
app bundles it); nothing here ever sends it. One conversation:
  POST /   Content-Type: application/x-www-form-urlencoded, two fields (read as a form reader reads
           them: `+` a space, `%XX` a byte, UTF-8; each of the two names once):
      key    base64 of RSA PKCS#1 v1.5, to the server's key, of a fresh 16-byte AES-128 key k
      value  base64 of AES-128-CBC under k with the IV = k itself, PKCS#7 padding, of a JSON object
             (the client's is {"message": "hello pi", "__meta__": {"SignatureIndex": false, "Signature": null}})
  answer   200, application/json: {"data": base64 of AES-128-CBC under k, IV = k, PKCS#7, of a JSON
           object: the request's members, its "message" a string, with the server's own "__meta__"}
Every refusal — not a form, a field missing or given twice, not base64, an RSA block that does not
decrypt, an unwrapped key that is not 16 bytes, a ciphertext that is not whole blocks, a PKCS#7 padding
that does not check (every pad byte), a plaintext that is not UTF-8 JSON, not an object, or whose
"message" is not a string — is answered 500 (the description's error_status) with {"error": "bad request"},
the same for every reason. Other paths: 404; other methods on /: 405.

Two ways to run it:
  standalone  --host 127.0.0.1 --port 0 --key PEM [--plant NAME]: the key is preshared, so --key is
              required; prints LISTENING <port> and serves `app` over HTTP/1.1 (dzoolib's server)
  imported    a harness that serves a WSGI app in its own process imports this file and serves `app`
              (PEP 3333); `KEY` is the server's private key, made at import (2048 bits), whose public
              half the harness gives its client as the bundled key; DZOO_PLANT=NAME, read at import,
              plants a flaw

Plants (--plant, or DZOO_PLANT when imported):
  padding-oracle   a PKCS#7 padding that does not check is answered 400 {"error": "Invalid padding bytes."}
                   where every other refusal gets 500 {"error": "bad request"}: a CBC padding oracle
                   (Vaudenay 2002); a correct server answers every refusal the same
  ignores-padding  the padding is never checked: every trailing byte 0x00-0x10 is stripped, whatever the
                   pad bytes are, so a message whose padding is wrong (or zero bytes) is answered 200 as
                   long as the JSON before it parses
  slices-padding   unpads as the tutorials do, data[:-data[-1]]: the last byte's count of bytes goes,
                   unchecked, so a padding whose last byte is right and whose other bytes are anything
                   is answered 200
  zero-key-wrong-length  a padding that does not check gets a random key (RFC 3218's random filling), but a
                   good padding around a key of the wrong length gets 16 zero bytes: a value sealed under the
                   zero key is then answered 200, which tells a conforming PKCS#1 padding from another
                   (Bleichenbacher 1998)
"""

import base64
import binascii
import io
import json
import os
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives import padding as sympadding  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding, rsa  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

PLANTS = ("padding-oracle", "ignores-padding", "slices-padding", "zero-key-wrong-length")
FORM_TYPE = "application/x-www-form-urlencoded"
REFUSAL = json.dumps({"error": "bad request"}).encode()
PADDING_ERROR = json.dumps({"error": "Invalid padding bytes."}).encode()
MAX_BODY = dzoolib.MAX_MESSAGE

# The server's key, made at import as the source makes it; a standalone run replaces it with --key's.
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
# The plant of an imported server: DZOO_PLANT, read once, here.
PLANT = os.environ.get("DZOO_PLANT") or None
if PLANT is not None and PLANT not in PLANTS:
    raise ValueError("DZOO_PLANT=%r: not one of %s" % (PLANT, ", ".join(PLANTS)))


class Refused(ValueError):
    pass


class BadPadding(Refused):
    pass


def form_fields(body, content_type):
    """The two fields of an application/x-www-form-urlencoded body, each given once."""
    if content_type.split(";", 1)[0].strip().lower() != FORM_TYPE:
        raise Refused("Content-Type %r is not a form" % content_type)
    try:
        text = body.decode("utf-8")
        pairs = urllib.parse.parse_qsl(text, keep_blank_values=True, encoding="utf-8", errors="strict",
                                       max_num_fields=64)
    except (UnicodeDecodeError, ValueError) as unreadable:
        raise Refused("not a form: %s" % unreadable)
    fields = {}
    for name, value in pairs:
        if name in ("key", "value"):
            if name in fields:
                raise Refused("%s given twice" % name)
            fields[name] = value
    for name in ("key", "value"):
        if name not in fields:
            raise Refused("no %s" % name)
    return fields


def unbase64(fields, name):
    try:
        return base64.b64decode(fields[name].encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise Refused("%s is not base64" % name)


def unwrap_key(block, plant=None):
    try:
        k = KEY.decrypt(block, padding.PKCS1v15())
    except ValueError:
        if plant == "zero-key-wrong-length":
            return os.urandom(16)
        raise Refused("the RSA block does not decrypt")
    if len(k) != 16:
        if plant == "zero-key-wrong-length":
            return bytes(16)
        raise Refused("an unwrapped key of %d bytes" % len(k))
    return k


def cbc(k, data, decrypt):
    cipher = Cipher(algorithms.AES(k), modes.CBC(k))          # the IV is the key, as the description says
    worker = cipher.decryptor() if decrypt else cipher.encryptor()
    return worker.update(data) + worker.finalize()


def unpad(padded, plant):
    if plant == "ignores-padding":
        return padded.rstrip(bytes(range(17)))
    if plant == "slices-padding":
        return padded[:-padded[-1]]
    unpadder = sympadding.PKCS7(128).unpadder()
    try:
        return unpadder.update(padded) + unpadder.finalize()
    except ValueError:
        raise BadPadding("the padding does not check")


def open_value(k, sealed, plant):
    if not sealed or len(sealed) % 16:
        raise Refused("a ciphertext of %d bytes" % len(sealed))
    plaintext = unpad(cbc(k, sealed, decrypt=True), plant)
    try:
        request = json.loads(plaintext.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Refused("the plaintext is not UTF-8 JSON")
    if not isinstance(request, dict):
        raise Refused("the plaintext is not a JSON object")
    if not isinstance(request.get("message"), str):
        raise Refused("no message string")
    return request


def seal_answer(k, request):
    answer = dict(request)
    answer["__meta__"] = {"Timestamp": int(time.time()), "SignatureIndex": False, "Signature": None}
    pad = sympadding.PKCS7(128).padder()
    padded = pad.update(json.dumps(answer).encode("utf-8")) + pad.finalize()
    return json.dumps({"data": base64.b64encode(cbc(k, padded, decrypt=False)).decode("ascii")}).encode()


def converse(body, content_type, plant):
    """(status, body) for one POST /."""
    try:
        fields = form_fields(body, content_type)
        k = unwrap_key(unbase64(fields, "key"), plant)
        request = open_value(k, unbase64(fields, "value"), plant)
    except BadPadding as refused:
        dzoolib.log("refused: %r" % refused)
        if plant == "padding-oracle":
            return "400 Bad Request", PADDING_ERROR
        return "500 Internal Server Error", REFUSAL
    except Refused as refused:
        dzoolib.log("refused: %r" % refused)
        return "500 Internal Server Error", REFUSAL
    dzoolib.log("message: %r" % request["message"])
    return "200 OK", seal_answer(k, request)


def app(environ, start_response):
    """The whole server as a WSGI application (PEP 3333)."""
    method = environ.get("REQUEST_METHOD", "GET").upper()
    path = environ.get("PATH_INFO", "") or "/"
    headers = [("Content-Type", "application/json")]
    if path != "/":
        status, body = "404 Not Found", json.dumps({"error": "not found"}).encode()
    elif method != "POST":
        status, body = "405 Method Not Allowed", json.dumps({"error": "method not allowed"}).encode()
        headers.append(("Allow", "POST"))
    else:
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = -1
        if length < 0:
            status, body = "500 Internal Server Error", REFUSAL
        elif length > MAX_BODY:
            status, body = "413 Payload Too Large", json.dumps({"error": "too large"}).encode()
        else:
            stream = environ.get("wsgi.input")
            data = stream.read(length) if (stream is not None and length) else b""
            status, body = converse(data, environ.get("CONTENT_TYPE", ""), PLANT)
    start_response(status, headers + [("Content-Length", str(len(body)))])
    return [body]


class Handler(dzoolib.HTTPHandler):
    """Serves `app` over dzoolib's threaded HTTP/1.1 server: one environ per request."""

    def run_app(self):
        chunked = "chunked" in (self.headers.get("Transfer-Encoding") or "").lower()
        try:
            if int(self.headers.get("Content-Length") or 0) < 0:
                raise ValueError("a negative Content-Length")
            data = self.body()
        except (dzoolib.PeerGone, ValueError) as unreadable:      # over the limit, or a Content-Length that is no length
            dzoolib.log("request refused: %s" % unreadable)
            self.close_connection = True
            return self.answer(413 if isinstance(unreadable, dzoolib.PeerGone) else 400, b"", "text/plain")
        if chunked:                            # a chunked body is not read: the connection cannot go on
            self.close_connection = True
        target = urllib.parse.urlsplit(self.path)
        environ = {
            "REQUEST_METHOD": self.command,
            "SCRIPT_NAME": "",
            "PATH_INFO": urllib.parse.unquote(target.path, encoding="latin-1"),
            "QUERY_STRING": target.query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(data)),
            "SERVER_NAME": self.server.server_address[0],
            "SERVER_PORT": str(self.server.server_address[1]),
            "SERVER_PROTOCOL": self.request_version,
            "REMOTE_ADDR": self.client_address[0],
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(data),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        for name, value in self.headers.items():
            key = "HTTP_" + name.upper().replace("-", "_")
            if key not in ("HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH"):
                environ[key] = value if key not in environ else environ[key] + "," + value
        started = {}

        def start_response(status, headers, exc_info=None):
            started["status"], started["headers"] = status, headers
            return lambda _data: None

        result = app(environ, start_response)
        try:
            body = b"".join(result)
        finally:
            if hasattr(result, "close"):
                result.close()
        self.send_response(int(started["status"].split(" ", 1)[0]))
        for name, value in started["headers"]:
            if name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = run_app


def main():
    global KEY, PLANT
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, key=True)
    if not args.key:
        sys.exit("--key is required: the key is preshared")
    KEY = dzoolib.rsa_private_key(args.key)
    PLANT = args.plant
    dzoolib.serve_http(args, Handler)


if __name__ == "__main__":
    dzoolib.main_guard(main)
