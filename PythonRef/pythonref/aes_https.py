"""The aes-https profile without I/O: the server as a function of (issued tokens, request), and the
client as request builders and response parsers.

docs/PROTOCOL.md, "aes-https as implemented", is the specification. A request is
`{"method", "path", "headers", "body"}` and a response `{"status", "headers", "body"}`, header
names in lowercase, bodies bytes. The HTTPS shell (https_shell.py) only moves these dicts on and off
the wire.
"""

from __future__ import annotations

import base64
import hmac
import json
import os
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from . import aes_cbc
from .errors import CryptoFailure, ErrorKind

MAX_BODY = 1 << 20  # bodies over 1 MiB are refused with 413
MAX_TOKENS = 10_000  # issued tokens kept; the oldest is forgotten first
LOGIN_PATH = "/login"
SECURE_PATH = "/secure-data"
PATHS = (LOGIN_PATH, SECURE_PATH)
KEY_MODES = aes_cbc.KDF_MODES

Request = dict[str, Any]
Response = dict[str, Any]


def _json(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def _answer(status: int, doc: object, **extra_headers: str) -> Response:
    return {"status": status, "headers": {"content-type": "application/json", **extra_headers}, "body": _json(doc)}


def unauthorized() -> Response:
    return _answer(401, {"error": "unauthorized"})


def bad_request() -> Response:
    return _answer(400, {"error": "bad request"})


def not_found() -> Response:
    return _answer(404, {"error": "not found"})


def method_not_allowed() -> Response:
    return _answer(405, {"error": "method not allowed"}, allow="POST")


def too_large() -> Response:
    return _answer(413, {"error": "too large"})


def parse_json(body: bytes) -> object:
    """Strict JSON from UTF-8 bytes (aes_cbc.loads_strict); raises ValueError for anything else."""
    return aes_cbc.loads_strict(body)


def preflight(method: str, path: str, content_length: int) -> Optional[Response]:
    """The answers that need no body: 404, 405, 413. A shell calls this before reading a body,
    so an over-long one is refused without being read."""
    if path not in PATHS:
        return not_found()
    if method != "POST":
        return method_not_allowed()
    if content_length > MAX_BODY:
        return too_large()
    return None


# ---- requests and responses as dicts -------------------------------------------------------------


def _bad_input(detail: str) -> CryptoFailure:
    return CryptoFailure(ErrorKind.BAD_INPUT, detail)


def _headers(value: object, what: str) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise _bad_input(f"{what} headers must be a dict, got {type(value).__name__}")
    out: dict[str, str] = {}
    for k, v in value.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise _bad_input(f"{what} header names and values must be str")
        out[k.lower()] = v
    return out


def check_request(request: object) -> Request:
    """A request dict in canonical form (header names lowercased), or BadInput."""
    if not isinstance(request, Mapping):
        raise _bad_input(f"request must be a dict, got {type(request).__name__}")
    unknown = sorted(str(k) for k in request if k not in ("method", "path", "headers", "body"))
    if unknown:
        raise _bad_input(f"unknown request field(s) {unknown}")
    method, path, body = request.get("method"), request.get("path"), request.get("body", b"")
    if not isinstance(method, str) or not isinstance(path, str):
        raise _bad_input("request method and path must be str")
    if not isinstance(body, (bytes, bytearray)):
        raise _bad_input(f"request body must be bytes, got {type(body).__name__}")
    return {"method": method, "path": path, "headers": _headers(request.get("headers", {}), "request"),
            "body": bytes(body)}


def check_response(response: object) -> Response:
    """A response dict in canonical form (header names lowercased), or BadInput."""
    if not isinstance(response, Mapping):
        raise _bad_input(f"response must be a dict, got {type(response).__name__}")
    unknown = sorted(str(k) for k in response if k not in ("status", "headers", "body"))
    if unknown:
        raise _bad_input(f"unknown response field(s) {unknown}")
    status, body = response.get("status"), response.get("body", b"")
    if isinstance(status, bool) or not isinstance(status, int):
        raise _bad_input("response status must be an int")
    if not isinstance(body, (bytes, bytearray)):
        raise _bad_input(f"response body must be bytes, got {type(body).__name__}")
    return {"status": status, "headers": _headers(response.get("headers", {}), "response"), "body": bytes(body)}


# ---- the server ----------------------------------------------------------------------------------


def new_encryption_key(key_mode: str) -> str:
    """A fresh `encryptionKey` string for a mode: 12 random characters (utf8-zeropad16, a password
    really) or base64 of 32 random bytes (base64-raw)."""
    if key_mode == "utf8-zeropad16":
        return secrets.token_urlsafe(9)
    if key_mode == "base64-raw":
        return base64.b64encode(os.urandom(32)).decode("ascii")
    raise CryptoFailure(ErrorKind.UNSUPPORTED, f"unknown key mode {key_mode!r}; known: {', '.join(KEY_MODES)}")


@dataclass(frozen=True)
class AesHttpsConfig:
    users: Mapping[str, str] = field(default_factory=dict)  # username -> password
    key_mode: str = "base64-raw"
    encryption_key: Optional[str] = None  # None: a fresh one for the mode


class AesHttpsServer:
    """`handle(request) -> response`; its only state is the tokens it has issued (bounded)."""

    def __init__(self, config: AesHttpsConfig) -> None:
        if not isinstance(config.users, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in config.users.items()
        ):
            raise _bad_input("users must be a dict of str username -> str password")
        if not isinstance(config.key_mode, str):
            raise _bad_input("key_mode must be a str")
        if config.encryption_key is not None and not isinstance(config.encryption_key, str):
            raise _bad_input("encryption_key must be a str")
        self.encryption_key = (config.encryption_key if config.encryption_key is not None
                               else new_encryption_key(config.key_mode))
        self.key = aes_cbc.derive_key(config.key_mode, self.encryption_key)
        self._users = {u.encode("utf-8", "surrogatepass"): p.encode("utf-8", "surrogatepass")
                       for u, p in config.users.items()}
        self._tokens: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def handle(self, request: Request) -> Response:
        """One request to one response; never raises for anything a peer can send."""
        req = check_request(request)
        early = preflight(req["method"], req["path"], len(req["body"]))
        if early is not None:
            return early
        if req["path"] == LOGIN_PATH:
            return self._login(req["body"])
        return self._secure_data(req["headers"].get("authorization"), req["body"])

    def _login(self, body: bytes) -> Response:
        try:
            doc = parse_json(body)
        except ValueError:
            return bad_request()
        if not isinstance(doc, dict) or not isinstance(doc.get("username"), str) or not isinstance(
            doc.get("password"), str
        ):
            return bad_request()
        user = doc["username"].encode("utf-8", "surrogatepass")
        given = doc["password"].encode("utf-8", "surrogatepass")
        expected = self._users.get(user)
        # Compare even for an unknown user, so both refusals take the same path.
        matches = hmac.compare_digest(given, expected if expected is not None else b"\x00" + given)
        if expected is None or not matches:
            return unauthorized()
        token = secrets.token_hex(16)
        with self._lock:
            self._tokens[token] = None
            while len(self._tokens) > MAX_TOKENS:
                self._tokens.popitem(last=False)
        return _answer(200, {"token": token, "encryptionKey": self.encryption_key})

    def _known(self, token: Optional[str]) -> bool:
        if not token:
            return False
        with self._lock:
            return token in self._tokens

    def _secure_data(self, token: Optional[str], body: bytes) -> Response:
        if not self._known(token):
            return unauthorized()
        try:
            params = parse_json(aes_cbc.open_envelope(self.key, body))
        except (CryptoFailure, ValueError):
            return bad_request()  # one answer for every cause: no padding oracle by content
        if not isinstance(params, dict):
            return bad_request()
        return {"status": 200, "headers": {"content-type": "application/json"},
                "body": aes_cbc.seal_envelope(self.key, _json({"echo": params}))}


# ---- the client ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Login:
    token: str
    encryption_key: str
    key: bytes  # derived from encryption_key by the key mode


def login_request(username: str, password: str) -> Request:
    return {"method": "POST", "path": LOGIN_PATH, "headers": {"content-type": "application/json"},
            "body": _json({"username": username, "password": password})}


def _ok_json(response: Response, what: str) -> object:
    resp = check_response(response)
    if resp["status"] != 200:
        raise _bad_input(f"{what} answered status {resp['status']}, not 200")
    try:
        return parse_json(resp["body"])
    except ValueError:
        raise _bad_input(f"{what} answered a body that is not JSON") from None


def parse_login(response: Response, key_mode: str) -> Login:
    """200 {"token","encryptionKey"} -> the token and the AES key the mode derives (KeyDerivation
    if it cannot); any other answer is BadInput."""
    doc = _ok_json(response, "login")
    if not isinstance(doc, dict) or not isinstance(doc.get("token"), str) or not isinstance(
        doc.get("encryptionKey"), str
    ):
        raise _bad_input('login answered JSON without string "token" and "encryptionKey"')
    if not doc["token"]:
        raise _bad_input("login answered an empty token")
    return Login(doc["token"], doc["encryptionKey"], aes_cbc.derive_key(key_mode, doc["encryptionKey"]))


def secure_request(token: str, key: bytes, params: Mapping[str, object], iv: Optional[bytes] = None) -> Request:
    """POST /secure-data with the bare token and the envelope of JSON(params), a fresh IV unless given."""
    if not isinstance(params, Mapping):
        raise _bad_input(f"params must be a dict, got {type(params).__name__}")
    try:
        plaintext = json.dumps(dict(params), separators=(",", ":"), allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise _bad_input(f"params are not JSON-serializable: {exc}") from None
    return {"method": "POST", "path": SECURE_PATH,
            "headers": {"authorization": token, "content-type": "application/json"},
            "body": aes_cbc.seal_envelope(key, plaintext, iv)}


def parse_secure(response: Response, key: bytes) -> dict[str, object]:
    """200 + envelope -> the JSON object inside (the reference server's is {"echo": params}).
    Envelope failures keep their kinds (BadEnvelope, BadLength, BadPadding, BadKey)."""
    resp = check_response(response)
    if resp["status"] != 200:
        raise _bad_input(f"secure-data answered status {resp['status']}, not 200")
    plaintext = aes_cbc.open_envelope(key, resp["body"])
    try:
        doc = parse_json(plaintext)
    except ValueError:
        raise CryptoFailure(ErrorKind.BAD_ENVELOPE, "the envelope's plaintext is not JSON") from None
    if not isinstance(doc, dict):
        raise CryptoFailure(ErrorKind.BAD_ENVELOPE, "the envelope's plaintext is not a JSON object")
    return doc
