"""The seed-app client profile as PythonRef implements it (pythonref/seed_app.py): each quirk of the
shipped apps planted in this Python client, against the reference server (which must serve what the
app does) and against planted Python servers (which cannot), each failure naming the quirk and its
seed line (docs/PROTOCOL.md, "Client profiles")."""

from __future__ import annotations

import json
import pathlib
from typing import Callable

import pytest

from pythonref import aes_https, rsa_cipher, rsa_keys, seed_app
from pythonref.seed_app import SeedAppFailure

USERS = {"alice": "wonderland"}
PARAMS = {"command": "status", "lights": ["hall"]}
Handler = Callable[[aes_https.Request], aes_https.Response]


def reference(encryption_key: str = "pi-secret") -> Handler:
    return aes_https.AesHttpsServer(aes_https.AesHttpsConfig(USERS, "utf8-zeropad16", encryption_key)).handle


def converse(handler: Handler) -> dict[str, object]:
    token, encryption_key = seed_app.parse_login(handler(seed_app.login_request("alice", "wonderland")))
    key = seed_app.key_from(encryption_key)
    return seed_app.parse_secure(handler(seed_app.secure_request(token, key, PARAMS)), key)


def failure(handler: Handler) -> SeedAppFailure:
    with pytest.raises(SeedAppFailure) as caught:
        converse(handler)
    return caught.value


def test_reference_server_serves_the_seed_app_as_it_ships() -> None:
    assert converse(reference()) == {"echo": PARAMS}
    request = seed_app.secure_request("t", bytes(16), {})
    assert request["headers"] == {"authorization": "t", "content-type": "application/x-www-form-urlencoded"}


def test_json_only_login_server_fails_naming_the_form_login() -> None:
    server = reference()

    def json_only(request: aes_https.Request) -> aes_https.Response:
        if request["path"] == aes_https.LOGIN_PATH and request["headers"].get("content-type") != "application/json":
            return aes_https.refusal(400)
        return server(request)

    problem = failure(json_only)
    assert problem.quirk == seed_app.FORM_LOGIN
    assert "form-encoded-login" in str(problem) and "seed 001: AFHTTPSessionManager().post" in str(problem)


def test_login_answered_as_html_fails_naming_the_response_serializer() -> None:
    server = reference()

    def html(request: aes_https.Request) -> aes_https.Response:
        answer = server(request)
        return {**answer, "headers": {**answer["headers"], "content-type": "text/html"}} if request["path"] == aes_https.LOGIN_PATH else answer

    problem = failure(html)
    assert problem.quirk == seed_app.JSON_RESPONSE_SERIALIZER and "'text/html'" in str(problem)


def test_server_that_wants_a_json_content_type_fails_naming_the_envelopes_label() -> None:
    server = reference()

    def strict(request: aes_https.Request) -> aes_https.Response:
        if request["path"] == aes_https.SECURE_PATH and request["headers"].get("content-type") != "application/json":
            return {"status": 415, "headers": {"content-type": "application/json"}, "body": b'{"error":"unsupported media type"}'}
        return server(request)

    problem = failure(strict)
    assert problem.quirk == seed_app.ENVELOPE_WITHOUT_JSON_CONTENT_TYPE and "415" in str(problem)


def test_key_of_16_bytes_fails_naming_getcstring() -> None:
    server = reference()  # the reference refuses to issue such a key; this planted server does

    def long_key(request: aes_https.Request) -> aes_https.Response:
        answer = server(request)
        if request["path"] != aes_https.LOGIN_PATH:
            return answer
        doc = json.loads(answer["body"])
        return {**answer, "body": json.dumps({**doc, "encryptionKey": "0123456789abcdef"}).encode()}

    problem = failure(long_key)
    assert problem.quirk == seed_app.GETCSTRING_KEY and "kCCKeySizeAES128" in str(problem)


# ---- rsa-socket: the 200-byte read ------------------------------------------------------------------

@pytest.fixture(scope="module")
def key1024() -> bytes:
    return rsa_keys.export_private(rsa_keys.generate(1024), "pkcs8-pem")


def ciphertext_for(private_pem: bytes, padding: str = "pkcs1", message: bytes = b"Secret message from RPi server") -> bytes:
    public = rsa_keys.load_private(private_pem).public_key()
    return rsa_cipher.encrypt(public, padding, message)


def test_whole_ciphertext_in_one_delivery_decrypts(key1024: bytes) -> None:
    assert seed_app.decrypt_message(key1024, [ciphertext_for(key1024)]) == "Secret message from RPi server"


def test_split_ciphertext_fails_naming_the_one_read(key1024: bytes) -> None:
    ciphertext = ciphertext_for(key1024)
    with pytest.raises(SeedAppFailure) as caught:
        seed_app.decrypt_message(key1024, [ciphertext[:64], ciphertext[64:]])
    assert caught.value.quirk == seed_app.ONE_200_BYTE_READ and "last read, 64 bytes" in str(caught.value)


def test_2048_bit_key_never_fits_the_200_byte_buffer() -> None:
    key2048 = rsa_keys.export_private(rsa_keys.generate(2048), "pkcs8-pem")
    with pytest.raises(SeedAppFailure) as caught:
        seed_app.decrypt_message(key2048, [ciphertext_for(key2048)])
    assert caught.value.quirk == seed_app.ONE_200_BYTE_READ and "56 bytes" in str(caught.value)


def test_oaep_server_fails_naming_pkcs1_only(key1024: bytes) -> None:
    with pytest.raises(SeedAppFailure) as caught:
        seed_app.decrypt_message(key1024, [ciphertext_for(key1024, "oaep-sha256")])
    assert caught.value.quirk == seed_app.PKCS1_ONLY


def test_non_utf8_message_is_the_crash_the_app_would_have(key1024: bytes) -> None:
    with pytest.raises(SeedAppFailure) as caught:
        seed_app.decrypt_message(key1024, [ciphertext_for(key1024, message=b"\xff\xfe")])
    assert caught.value.quirk == seed_app.FORCED_UTF8


# ---- every quirk names code the seed has ---------------------------------------------------------

EXTRACTS = pathlib.Path(__file__).resolve().parents[2] / "Tests" / "SeedAppsTests" / "Extracts"


def seed_code(seed: str) -> str:
    """The seed's code (every extract cut from its document), without whitespace."""
    files = sorted(EXTRACTS.glob(f"seed{seed}-*"))
    assert files, f"no extracts of seed {seed} in {EXTRACTS}"
    return "".join("".join(f.read_text(encoding="utf-8").split()) for f in files)


def code_fragments(seed_line: str) -> tuple[str, list[str]]:
    """`seed NNN: code … code; code` → ("NNN", the code pieces without whitespace)."""
    head, _, code = seed_line.partition(": ")
    assert head.startswith("seed ") and len(head) == len("seed 000"), seed_line
    pieces = [p for part in code.split("…") for p in part.split("; ")]
    return head[len("seed "):], ["".join(p.split()) for p in pieces if len("".join(p.split())) > 2]


def test_every_quirk_names_code_the_seed_has() -> None:
    quirks = [value for value in vars(seed_app).values() if isinstance(value, seed_app.Quirk)]
    assert len(quirks) >= 8
    for quirk in quirks:
        seed, fragments = code_fragments(quirk.seed_line)
        code = seed_code(seed)
        assert fragments, quirk
        for fragment in fragments:
            assert fragment in code, f"{quirk.name}: `{fragment}` is not in seed {seed}'s code"


def test_a_fragment_the_seed_lacks_is_noticed() -> None:
    seed, fragments = code_fragments("seed 000: SecKeyDecrypt(privateKey!, SecPadding.OAEP, …)")
    assert fragments[0] not in seed_code(seed)
