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
import re
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from . import aes_cbc, text_formats
from .checks import Fields, check_field, one_of, str_dict, typed
from .errors import CryptoFailure, ErrorKind, bad_input, unsupported

MAX_BODY = 1 << 20  # bodies over 1 MiB are refused with 413
MAX_TOKENS = 10_000  # issued tokens kept; the oldest is forgotten first
LOGIN_PATH = "/login"
SECURE_PATH = "/secure-data"
PATHS = (LOGIN_PATH, SECURE_PATH)

Request = dict[str, Any]
Response = dict[str, Any]


def _json(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


# Every refusal's status and its one fixed body text (the HTTPS shell's own refusals included).
ERROR_TEXT = {400: "bad request", 401: "unauthorized", 404: "not found", 405: "method not allowed",
              413: "too large", 414: "uri too long", 431: "headers too large", 501: "not implemented",
              505: "http version not supported"}


def json_answer(status: int, body: bytes, **extra_headers: str) -> Response:
    return {"status": status, "headers": {"content-type": "application/json", **extra_headers}, "body": body}


def refusal(status: int) -> Response:
    """`{"error": <text>}` for a status of ERROR_TEXT; 405 also says `allow: POST`."""
    extra = {"allow": "POST"} if status == 405 else {}
    return json_answer(status, _json({"error": ERROR_TEXT.get(status, "error")}), **extra)


def preflight(method: str, path: str, content_length: int) -> Optional[Response]:
    """The answers that need no body: 404, 405, 413. A shell calls this before reading a body,
    so an over-long one is refused without being read."""
    if path not in PATHS:
        return refusal(404)
    if method != "POST":
        return refusal(405)
    if content_length > MAX_BODY:
        return refusal(413)
    return None


# ---- requests and responses as dicts -------------------------------------------------------------


def _headers(value: object, what: str) -> dict[str, str]:
    headers = str_dict(f"{what} headers", value, f"{what} header names and values must be str")
    return {k.lower(): v for k, v in headers.items()}


def check_request(request: object) -> Request:
    """A request dict in canonical form (header names lowercased), or BadInput."""
    fields = Fields(request, ("method", "path", "headers", "body"), "request field")
    return {"method": fields.req("method", str), "path": fields.req("path", str),
            "headers": _headers(fields.opt("headers", dict, {}), "request"), "body": fields.opt("body", bytes, b"")}


def check_response(response: object) -> Response:
    """A response dict in canonical form (header names lowercased), or BadInput."""
    fields = Fields(response, ("status", "headers", "body"), "response field")
    return {"status": fields.req("status", int), "headers": _headers(fields.opt("headers", dict, {}), "response"),
            "body": fields.opt("body", bytes, b"")}


# ---- the login body: JSON or a form ---------------------------------------------------------------

FORM_CONTENT_TYPE = "application/x-www-form-urlencoded"
_JSON_WHITESPACE = b" \t\r\n"
_PERCENT_ESCAPE = re.compile(rb"%([0-9A-Fa-f]{2})")
_BROKEN_ESCAPE = re.compile(rb"%(?![0-9A-Fa-f]{2})")


def _form_unescape(part: bytes) -> str:
    """`+` is a space, `%HH` a byte; then the bytes must be UTF-8. A `%` without two hex digits
    after it is ValueError (a client that escapes `%` as it must never sends one)."""
    if _BROKEN_ESCAPE.search(part):
        raise ValueError("a % not followed by two hex digits")
    raw = _PERCENT_ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), part.replace(b"+", b" "))
    return raw.decode("utf-8")  # strict: invalid UTF-8 (surrogates and overlongs included) is ValueError


def parse_form(body: bytes) -> dict[str, str]:
    """An application/x-www-form-urlencoded body: `name=value` pairs joined by `&` (empty pairs
    skipped; no `=`: an empty value; a name given twice: the last one counts). ValueError for a
    broken escape or bytes that are not UTF-8."""
    fields: dict[str, str] = {}
    for pair in body.split(b"&"):
        if pair:
            name, _, value = pair.partition(b"=")
            fields[_form_unescape(name)] = _form_unescape(value)
    return fields


def read_credentials(body: bytes) -> Optional[tuple[str, str]]:
    """The username and password of a login body, or None (a 400). The body decides how it is read,
    whatever its Content-Type says: one that starts, after JSON whitespace, with `{` is JSON (a
    client that posts JSON); any other is a form (seed 001's AFHTTPRequestSerializer). Both need
    string `username` and `password`; other fields are ignored."""
    try:
        doc = (text_formats.loads_strict(body) if body.lstrip(_JSON_WHITESPACE).startswith(b"{")
               else parse_form(body))
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    username, password = doc.get("username"), doc.get("password")
    if not isinstance(username, str) or not isinstance(password, str):
        return None
    return username, password


# ---- the server ----------------------------------------------------------------------------------


def new_encryption_key(key_mode: str) -> str:
    """A fresh `encryptionKey` string for a mode: 12 random characters (utf8-zeropad16, a password
    really, short enough for the seed's 16-byte buffer) or base64 of 32 random bytes (base64-raw)."""
    if key_mode == "utf8-zeropad16":
        return secrets.token_urlsafe(9)
    if key_mode == "base64-raw":
        return base64.b64encode(os.urandom(32)).decode("ascii")
    raise unsupported("key mode", key_mode, aes_cbc.KEY_DERIVATION_MODES)


@dataclass(frozen=True)
class AesHttpsConfig:
    """A server's configuration, checked when made (BadInput / Unsupported)."""

    users: Mapping[str, str] = field(default_factory=dict)  # username -> password
    key_mode: str = "base64-raw"
    encryption_key: Optional[str] = None  # None: a fresh one for the mode

    def __post_init__(self) -> None:
        str_dict("users", self.users, "users must be a dict of str username -> str password")
        one_of("key_mode", self.key_mode, aes_cbc.KEY_DERIVATION_MODES)
        check_field(self, "encryption_key", str, optional=True)


class AesHttpsServer:
    """`handle(request) -> response`; its only state is the tokens it has issued (bounded)."""

    def __init__(self, config: AesHttpsConfig) -> None:
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
        credentials = read_credentials(body)
        if credentials is None:
            return refusal(400)
        user = credentials[0].encode("utf-8", "surrogatepass")
        given = credentials[1].encode("utf-8", "surrogatepass")
        expected = self._users.get(user)
        # Compare even for an unknown user, so both refusals take the same path.
        matches = hmac.compare_digest(given, expected if expected is not None else b"\x00" + given)
        if expected is None or not matches:
            return refusal(401)
        token = secrets.token_hex(16)
        with self._lock:
            self._tokens[token] = None
            while len(self._tokens) > MAX_TOKENS:
                self._tokens.popitem(last=False)
        return json_answer(200, _json({"token": token, "encryptionKey": self.encryption_key}))

    def _known(self, token: Optional[str]) -> bool:
        if not token:
            return False
        with self._lock:
            return token in self._tokens

    def _secure_data(self, token: Optional[str], body: bytes) -> Response:
        if not self._known(token):
            return refusal(401)
        try:
            params = text_formats.loads_strict(aes_cbc.open_envelope(self.key, body))
        except (CryptoFailure, ValueError):
            return refusal(400)  # one answer for every cause: no padding oracle by content
        if not isinstance(params, dict):
            return refusal(400)
        return json_answer(200, aes_cbc.seal_envelope(self.key, _json({"echo": params})))


# ---- the client ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Login:
    token: str
    encryption_key: str
    key: bytes  # derived from encryption_key by the key mode


LOGIN_ENCODINGS = ("json", "form")
# What AFNetworking's AFPercentEscapedStringFromString leaves unescaped: NSCharacterSet's
# URLQueryAllowedCharacterSet less the RFC 3986 delimiters `:#[]@` and `!$&'()*+,;=` (it keeps `?`
# and `/`, RFC 3986 section 3.4), i.e. ASCII letters and digits and `-._~/?`.
_AF_UNESCAPED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/?")


def af_percent_escape(text: str) -> str:
    """A form name or value as AFNetworking writes it: UTF-8, every other byte as `%HH` (upper case)."""
    return "".join(chr(b) if b in _AF_UNESCAPED else f"%{b:02X}" for b in text.encode("utf-8", "surrogatepass"))


def login_request(username: str, password: str, encoding: str = "json") -> Request:
    """POST /login: `json` as the reference client sends it, or `form` as seed 001's
    `AFHTTPSessionManager().post(..., parameters:)` does (AFHTTPRequestSerializer: the parameters
    sorted by name, `password=...&username=...`, percent-escaped, with its form Content-Type)."""
    one_of("encoding", encoding, LOGIN_ENCODINGS)
    if encoding == "form":
        body = f"password={af_percent_escape(password)}&username={af_percent_escape(username)}"
        return {"method": "POST", "path": LOGIN_PATH, "headers": {"content-type": FORM_CONTENT_TYPE},
                "body": body.encode("ascii")}
    return {"method": "POST", "path": LOGIN_PATH, "headers": {"content-type": "application/json"},
            "body": _json({"username": username, "password": password})}


def _ok_json(response: Response, what: str) -> object:
    resp = check_response(response)
    if resp["status"] != 200:
        raise bad_input(f"{what} answered status {resp['status']}, not 200")
    try:
        return text_formats.loads_strict(resp["body"])
    except ValueError:
        raise bad_input(f"{what} answered a body that is not JSON") from None


def parse_login(response: Response, key_mode: str) -> Login:
    """200 {"token","encryptionKey"} -> the token and the AES key the mode derives (KeyDerivation
    if it cannot); any other answer is BadInput."""
    doc = _ok_json(response, "login")
    if not isinstance(doc, dict) or not isinstance(doc.get("token"), str) or not isinstance(
        doc.get("encryptionKey"), str
    ):
        raise bad_input('login answered JSON without string "token" and "encryptionKey"')
    if not doc["token"]:
        raise bad_input("login answered an empty token")
    return Login(doc["token"], doc["encryptionKey"], aes_cbc.derive_key(key_mode, doc["encryptionKey"]))


def secure_request(token: str, key: bytes, params: Mapping[str, object], iv: Optional[bytes] = None) -> Request:
    """POST /secure-data with the bare token and the envelope of JSON(params), a fresh IV unless given."""
    params = typed("params", params, dict)
    try:
        plaintext = json.dumps(params, separators=(",", ":"), allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise bad_input(f"params are not JSON-serializable: {exc}") from None
    return {"method": "POST", "path": SECURE_PATH,
            "headers": {"authorization": token, "content-type": "application/json"},
            "body": aes_cbc.seal_envelope(key, plaintext, iv)}


def parse_secure(response: Response, key: bytes) -> dict[str, object]:
    """200 + envelope -> the JSON object inside (the reference server's is {"echo": params}).
    Envelope failures keep their kinds (BadEnvelope, BadLength, BadPadding, BadKey)."""
    resp = check_response(response)
    if resp["status"] != 200:
        raise bad_input(f"secure-data answered status {resp['status']}, not 200")
    plaintext = aes_cbc.open_envelope(key, resp["body"])
    try:
        doc = text_formats.loads_strict(plaintext)
    except ValueError:
        raise CryptoFailure(ErrorKind.BAD_ENVELOPE, "the envelope's plaintext is not JSON") from None
    if not isinstance(doc, dict):
        raise CryptoFailure(ErrorKind.BAD_ENVELOPE, "the envelope's plaintext is not a JSON object")
    return doc
