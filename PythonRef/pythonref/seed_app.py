"""The seed apps as clients, as they ship (docs/PROTOCOL.md, "Client profiles", profile `seed-app`):
PythonRef's own implementation of the profile, written from that table, beside the Swift one in
Sources/WireProtocol/SeedAppClients.swift. Every refusal is a `SeedAppFailure` naming the quirk and
the seed line, so a test (or a report) says which line of the shipped app meets which server
behaviour. Pure: no I/O.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Mapping, Optional

from . import aes_cbc, aes_https, rsa_cipher, rsa_keys


@dataclass(frozen=True)
class Quirk:
    name: str
    seed_line: str


# The names and seed lines of docs/PROTOCOL.md's client-profile table (the Swift side uses the same;
# tests/test_seed_app.py checks each line's code is in the seed, as QuirkSeedLineTests does for Swift's).
ONE_200_BYTE_READ = Quirk("one-200-byte-read",
                          "seed 000: var buffer = [UInt8](count: 200, repeatedValue: 0); inStreamLength = inStream!.read(&buffer, maxLength: buffer.count)")
PKCS1_ONLY = Quirk("pkcs1-only", "seed 000: SecKeyDecrypt(privateKey!, SecPadding.PKCS1, &buffer, dataEncryptedSize, …)")
FORCED_UTF8 = Quirk("force-unwrapped-utf8",
                    "seed 000: NSString(bytes: &arrayDecrypted, length: arrayDecryptedSize, encoding: NSUTF8StringEncoding)!")
FORM_LOGIN = Quirk("form-encoded-login", 'seed 001: AFHTTPSessionManager().post("\\(baseURL)/login", parameters: parameters, …)')
JSON_RESPONSE_SERIALIZER = Quirk("login-answer-as-afjsonresponseserializer-reads-it",
                                 'seed 001: AFHTTPSessionManager().post(…; if let response = responseObject as? [String: Any], '
                                 'let token = response["token"] as? String, let encryptionKey = response["encryptionKey"] as? String')
GETCSTRING_KEY = Quirk("getcstring-16-byte-key",
                       "seed 001: let keyLength = kCCKeySizeAES128 … key.getCString(&keyBytes, maxLength: keyLength + 1, encoding: .utf8)")
ENVELOPE_WITHOUT_JSON_CONTENT_TYPE = Quirk("envelope-without-json-content-type",
                                           "seed 001: override func request(bySerializingRequest request: URLRequest, …) -> URLRequest { … "
                                           "mutableRequest.httpBody = encryptedJsonData")
UNVALIDATED_SECURE_ANSWER = Quirk("secure-answer-read-whatever-its-status",
                                  "seed 001: class EncryptedJSONResponseSerializer: AFHTTPResponseSerializer {… "
                                  "override func responseObject(for response: URLResponse, data: Data?, …)")

READ_BUFFER = 200  # seed 000's buffer
ACCEPTABLE_LOGIN_TYPES = ("application/json", "text/json", "text/javascript")  # AFJSONResponseSerializer
DEFAULT_POST_CONTENT_TYPE = "application/x-www-form-urlencoded"  # what iOS labels a typeless POST body
KEY_BYTES = 16  # kCCKeySizeAES128


class SeedAppFailure(Exception):
    """The shipped app could not go on; `quirk` is the behaviour of its code that met the server's."""

    def __init__(self, quirk: Quirk, what: str) -> None:
        super().__init__(f"{what} — seed app quirk {quirk.name} ({quirk.seed_line})")
        self.quirk = quirk


# ---- rsa-socket (seed 000, pi-to-phone) -----------------------------------------------------------

def last_read(deliveries: list[bytes]) -> bytes:
    """What the app's buffer holds after the socket delivered `deliveries`: each delivery is read
    in reads of at most 200 bytes, each read overwriting the buffer; the last read is what it decrypts."""
    last = b""
    for chunk in deliveries:
        for start in range(0, len(chunk), READ_BUFFER):
            last = chunk[start:start + READ_BUFFER]
    return last


def decrypt_message(private_key_pem: bytes, deliveries: list[bytes]) -> str:
    """The text the app shows for the server's ciphertext arriving as `deliveries`."""
    key = rsa_keys.load_private(private_key_pem, None)
    k = key.key_size // 8
    ciphertext = last_read(deliveries)
    if len(ciphertext) != k:
        raise SeedAppFailure(ONE_200_BYTE_READ, f"the app decrypted its last read, {len(ciphertext)} bytes, "
                                                f"but a ciphertext for its {k * 8}-bit key is {k} bytes")
    try:
        plaintext = rsa_cipher.decrypt(key, "pkcs1", ciphertext)
    except Exception:
        raise SeedAppFailure(PKCS1_ONLY, f"PKCS#1 v1.5 decryption refused the {k}-byte ciphertext (does the server use OAEP?)") from None
    try:
        return plaintext.decode("utf-8")
    except UnicodeDecodeError:
        raise SeedAppFailure(FORCED_UTF8, f"the app would crash: the {len(plaintext)}-byte plaintext is not UTF-8") from None


# ---- aes-https (seed 001) ---------------------------------------------------------------------------

def login_request(username: str, password: str) -> aes_https.Request:
    """The form-encoded login AFHTTPRequestSerializer sends."""
    return aes_https.login_request(username, password, encoding="form")


def _header(headers: Mapping[str, str], name: str) -> str:
    return next((value for key, value in headers.items() if key.lower() == name), "")


def parse_login(response: aes_https.Response) -> tuple[str, str]:
    """(token, encryptionKey) as the app takes them from the login answer."""
    status, body = response["status"], response["body"]
    if not 200 <= status < 300:
        raise SeedAppFailure(FORM_LOGIN, f"the server answered the app's form-encoded login with {status} {body[:120]!r}")
    content_type = _header(response.get("headers", {}), "content-type")
    if content_type.split(";")[0].strip().lower() not in ACCEPTABLE_LOGIN_TYPES:
        raise SeedAppFailure(JSON_RESPONSE_SERIALIZER, f"the login answer's Content-Type is {content_type!r}")
    try:
        doc = json.loads(body)
    except ValueError:
        doc = None
    if not isinstance(doc, dict) or not isinstance(doc.get("token"), str) or not isinstance(doc.get("encryptionKey"), str):
        raise SeedAppFailure(JSON_RESPONSE_SERIALIZER, "the login answer is not a JSON object with string token and encryptionKey")
    return doc["token"], doc["encryptionKey"]


def key_from(encryption_key: str) -> bytes:
    """getCString into 16 bytes: 1–15 UTF-8 bytes zero-padded; 16 or more make it fail."""
    raw = encryption_key.encode("utf-8")
    if len(raw) >= KEY_BYTES:
        raise SeedAppFailure(GETCSTRING_KEY, f"encryptionKey is {len(raw)} UTF-8 bytes, so getCString fails")
    return raw + bytes(KEY_BYTES - len(raw))


def secure_request(token: str, key: bytes, params: Mapping[str, object], iv: Optional[bytes] = None) -> aes_https.Request:
    """The envelope with the bare token, labelled as iOS labels a POST body the app gave no type."""
    plaintext = json.dumps(dict(params), separators=(",", ":")).encode("utf-8")
    return {"method": "POST", "path": aes_https.SECURE_PATH,
            "headers": {"authorization": token, "content-type": DEFAULT_POST_CONTENT_TYPE},
            "body": aes_cbc.seal_envelope(key, plaintext, iv)}


def parse_secure(response: aes_https.Response, key: bytes) -> dict[str, object]:
    """The JSON object the app reads from the answer: status and Content-Type are not checked."""
    status, body = response["status"], response["body"]
    try:
        doc = json.loads(body)
        ciphertext = base64.b64decode(doc["data"], validate=True)
        iv = base64.b64decode(doc["iv"], validate=True)
    except (ValueError, TypeError, KeyError, binascii.Error):
        if not 200 <= status < 300:
            raise SeedAppFailure(ENVELOPE_WITHOUT_JSON_CONTENT_TYPE,
                                 f"the server answered {status} {body[:120]!r} to the app's envelope, which goes out as "
                                 f"{DEFAULT_POST_CONTENT_TYPE}, not application/json") from None
        raise SeedAppFailure(UNVALIDATED_SECURE_ANSWER, f"the answer (status {status}) is not a data/iv envelope") from None
    try:
        plaintext = aes_cbc.cbc_decrypt(key, iv, ciphertext)
        answer = json.loads(plaintext)
    except Exception:
        raise SeedAppFailure(UNVALIDATED_SECURE_ANSWER, "the answer does not decrypt to JSON under the app's key") from None
    if not isinstance(answer, dict):
        raise SeedAppFailure(UNVALIDATED_SECURE_ANSWER, "the decrypted answer is not a JSON object")
    return answer
