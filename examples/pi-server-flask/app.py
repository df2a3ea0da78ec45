"""An aes-https server for the Raspberry Pi as a Flask app (Debian: apt-get install python3-flask).

Written from docs/PROTOCOL.md ("Profile aes-https", "What a server must accept", "aes-https as
implemented"):

  POST /login        {"username","password"} as JSON, or as a form (what the seed app's
                     AFNetworking sends) -> 200 {"token","encryptionKey"}; wrong -> 401
  POST /secure-data  Authorization: <token>, body {"data": b64(AES-CBC-PKCS7), "iv": b64(iv)}
                     whatever its Content-Type -> 200 envelope of {"echo": params} under a fresh IV;
                     missing/unknown token -> 401; any bad envelope -> 400, the same bytes always

encryptionKey is 15 random URL-safe characters, fresh for every login, used as the AES-128 key
zero-padded to 16 bytes (mode utf8-zeropad16): the app as shipped copies the key with getCString
into a 16-byte buffer, so a longer (base64-raw) key would break it. crosscheck's audit reports the
mode as weak; move app and server to base64-raw together. Tokens are 32 random hex characters. Every answer is JSON. TLS is not the app's business: on the Pi, serve it
with the pinned certificate (Flask's own threaded server below, with --cert/--key; or gunicorn --certfile).

Run it on the Pi:      python3 app.py --cert server.crt.pem --key server.key.pem [--port 8443]
Check it in-process:   crosscheck run --server examples/pi-server-flask/app.py:app --user user:password
Check it on the Pi:    crosscheck remote --host raspberrypi.local --profile aes-https --pin server.crt.pem
"""

import base64
import binascii
import json
import os
import secrets
from urllib.parse import parse_qsl

from cryptography.hazmat.primitives import padding as symmetric_padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from flask import Flask, jsonify, request

app = Flask(__name__)

USERS = {"user": "password"}
SESSIONS = {}  # token -> AES key (module state: lives as long as the server)


def unauthorized():
    return jsonify(error="unauthorized"), 401


def bad_request():
    return jsonify(error="bad request"), 400


def credentials(body):
    """JSON when the body starts with `{`, a form otherwise (the seed app sends a form)."""
    if body.lstrip(b" \t\r\n").startswith(b"{"):
        fields = json.loads(body)
        if not isinstance(fields, dict):
            raise ValueError("not an object")
    else:
        fields = dict(parse_qsl(body.decode("ascii"), keep_blank_values=True, strict_parsing=False,
                                encoding="utf-8", errors="strict"))
    username, password = fields.get("username"), fields.get("password")
    if not isinstance(username, str) or not isinstance(password, str):
        raise ValueError("username and password are required")
    return username, password


@app.post("/login")
def login():
    try:
        username, password = credentials(request.get_data())
    except (ValueError, UnicodeError):
        return bad_request()
    if not secrets.compare_digest(USERS.get(username, "").encode(), password.encode()) or username not in USERS:
        return unauthorized()
    token = secrets.token_hex(16)
    key_string = secrets.token_urlsafe(11)  # 15 characters: what the app's 16-byte buffer holds
    SESSIONS[token] = key_string.encode().ljust(16, b"\0")
    return jsonify(token=token, encryptionKey=key_string)


def open_envelope(body, key):
    envelope = json.loads(body)
    iv = base64.b64decode(envelope["iv"], validate=True)
    ciphertext = base64.b64decode(envelope["data"], validate=True)
    if len(iv) != 16 or not ciphertext or len(ciphertext) % 16:
        raise ValueError("bad sizes")
    decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    padded = decryptor.update(ciphertext) + decryptor.finalize()
    unpadder = symmetric_padding.PKCS7(128).unpadder()
    params = json.loads(unpadder.update(padded) + unpadder.finalize())
    if not isinstance(params, dict):
        raise ValueError("params are not an object")
    return params


def seal(params, key):
    iv = os.urandom(16)  # fresh for every answer
    padder = symmetric_padding.PKCS7(128).padder()
    padded = padder.update(json.dumps(params).encode()) + padder.finalize()
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    ciphertext = encryptor.update(padded) + encryptor.finalize()
    return {"data": base64.b64encode(ciphertext).decode(), "iv": base64.b64encode(iv).decode()}


@app.post("/secure-data")
def secure_data():
    key = SESSIONS.get(request.headers.get("Authorization", ""))
    if key is None:
        return unauthorized()
    try:
        params = open_envelope(request.get_data(), key)
    except (ValueError, KeyError, TypeError, binascii.Error):
        return bad_request()  # one answer for every cause: no padding oracle
    return jsonify(seal({"echo": params}, key))


@app.errorhandler(404)
def not_found(_):
    return jsonify(error="not found"), 404


@app.errorhandler(405)
def not_allowed(_):
    return jsonify(error="method not allowed"), 405


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=8443)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    arguments = parser.parse_args()
    from werkzeug.serving import make_server  # Flask's own server, threaded, with TLS
    server = make_server(arguments.host, arguments.port, app, threaded=True, ssl_context=(arguments.cert, arguments.key))
    print("LISTENING %d" % server.port, flush=True)
    server.serve_forever()
