"""The one entry point the Swift side calls: `handle(op, args) -> dict`, and the op table.

Results and failures are data: `{"ok": value}` or `{"err": kind, "detail": text}`.
Nothing raises across the embedding boundary, and values are only bytes, str,
int, bool, None, list and str-keyed dict. Every op is registered the same way: `@_op(name,
*argument names)` on a handler that reads its arguments through `checks.Fields`.
"""

from __future__ import annotations

import platform
import traceback
from typing import Any, Callable

import cryptography
from cryptography.hazmat.backends import default_backend

from . import aead, aes_cbc, aes_https, key_agreement, primitives, rsa_cipher, rsa_keys, sessions, signatures
from .checks import Fields
from .errors import CryptoFailure, ErrorKind

Handler = Callable[[Fields], Any]
_OPS: dict[str, tuple[Handler, tuple[str, ...]]] = {}


def _op(name: str, *params: str) -> Callable[[Handler], Handler]:
    """Register a handler under an op name with the argument names it declares."""

    def register(fn: Handler) -> Handler:
        _OPS[name] = (fn, params)
        return fn

    return register


def op_table() -> dict[str, list[str]]:
    """Op name -> the argument names it accepts (for docs and the Swift side's tests)."""
    return {name: list(params) for name, (_, params) in _OPS.items()}


# ---- version -------------------------------------------------------------------------------------


@_op("version")
def _version(a: Fields) -> dict[str, str]:
    return {
        "python": platform.python_version(),
        "cryptography": cryptography.__version__,
        "openssl": default_backend().openssl_version_text(),
    }


# ---- RSA keys ------------------------------------------------------------------------------------


@_op("rsa.generate", "bits", "e")
def _rsa_generate(a: Fields) -> dict[str, bytes]:
    key = rsa_keys.generate(a.req("bits", int), a.opt("e", int, 65537))
    return {
        "private_pkcs8_pem": rsa_keys.export_private(key, "pkcs8-pem"),
        "public_spki_pem": rsa_keys.export_public(key.public_key(), "spki-pem"),
    }


@_op("rsa.public_info", "key", "passphrase")
def _rsa_public_info(a: Fields) -> dict[str, object]:
    return rsa_keys.public_info(rsa_keys.load_public(a.req("key", bytes), a.opt("passphrase", bytes)))


@_op("rsa.private_info", "key", "passphrase")
def _rsa_private_info(a: Fields) -> dict[str, object]:
    key = rsa_keys.load_private(a.req("key", bytes), a.opt("passphrase", bytes))
    return rsa_keys.public_info(key.public_key())


@_op("rsa.export_public", "key", "passphrase", "format")
def _rsa_export_public(a: Fields) -> bytes:
    fmt = a.req("format", str)
    key = rsa_keys.load_public(a.req("key", bytes), a.opt("passphrase", bytes))
    return rsa_keys.export_public(key, fmt)


@_op("rsa.export_private", "key", "passphrase", "format", "export_passphrase")
def _rsa_export_private(a: Fields) -> bytes:
    fmt = a.req("format", str)
    key = rsa_keys.load_private(a.req("key", bytes), a.opt("passphrase", bytes))
    return rsa_keys.export_private(key, fmt, a.opt("export_passphrase", bytes))


# ---- RSA encryption ------------------------------------------------------------------------------


# `hash` and `mgf1_hash` (OpenSSL digest names) go with padding "oaep" only.
@_op("rsa.max_plaintext", "bits", "padding", "hash", "mgf1_hash")
def _rsa_max_plaintext(a: Fields) -> int:
    return rsa_cipher.max_plaintext(a.req("bits", int), a.req("padding", str), a.opt("hash", str), a.opt("mgf1_hash", str))


@_op("rsa.encrypt", "key", "passphrase", "padding", "plaintext", "label", "hash", "mgf1_hash")
def _rsa_encrypt(a: Fields) -> bytes:
    padding, plaintext, label = a.req("padding", str), a.req("plaintext", bytes), a.opt("label", bytes)
    hash_name, mgf1_hash = a.opt("hash", str), a.opt("mgf1_hash", str)
    key = rsa_keys.load_public(a.req("key", bytes), a.opt("passphrase", bytes))
    return rsa_cipher.encrypt(key, padding, plaintext, label, hash_name, mgf1_hash)


# `rejection`: what a bad PKCS#1 v1.5 padding gives, "explicit" (an error: OpenSSL 3.0, iOS; the
# default) or "implicit" (a synthetic message: OpenSSL >= 3.2), whatever OpenSSL pyca links.
@_op("rsa.decrypt", "key", "passphrase", "padding", "ciphertext", "label", "hash", "mgf1_hash", "rejection")
def _rsa_decrypt(a: Fields) -> bytes:
    padding, ciphertext, label = a.req("padding", str), a.req("ciphertext", bytes), a.opt("label", bytes)
    hash_name, mgf1_hash = a.opt("hash", str), a.opt("mgf1_hash", str)
    rejection = a.opt_choice("rejection", rsa_cipher.REJECTIONS, "explicit")
    key = rsa_keys.load_private(a.req("key", bytes), a.opt("passphrase", bytes))
    return rsa_cipher.decrypt(key, padding, ciphertext, label, hash_name, mgf1_hash, rejection)


# ---- AES-CBC and the JSON envelope ---------------------------------------------------------------


@_op("cbc.encrypt", "key", "iv", "plaintext")
def _cbc_encrypt(a: Fields) -> bytes:
    return aes_cbc.cbc_encrypt(a.req("key", bytes), a.req("iv", bytes), a.req("plaintext", bytes))


@_op("cbc.decrypt", "key", "iv", "ciphertext")
def _cbc_decrypt(a: Fields) -> bytes:
    return aes_cbc.cbc_decrypt(a.req("key", bytes), a.req("iv", bytes), a.req("ciphertext", bytes))


@_op("envelope.seal", "key", "plaintext", "iv")
def _envelope_seal(a: Fields) -> bytes:
    return aes_cbc.seal_envelope(a.req("key", bytes), a.req("plaintext", bytes), a.opt("iv", bytes))


@_op("envelope.open", "key", "envelope")
def _envelope_open(a: Fields) -> bytes:
    return aes_cbc.open_envelope(a.req("key", bytes), a.req("envelope", bytes))


@_op("kdf.derive", "mode", "encryption_key")
def _kdf_derive(a: Fields) -> bytes:
    return aes_cbc.derive_key(a.req("mode", str), a.req("encryption_key", str))


# ---- AEAD and symmetric keys ---------------------------------------------------------------------


@_op("aead.seal", "alg", "key", "plaintext", "nonce", "aad")
def _aead_seal(a: Fields) -> bytes:
    return aead.seal(
        a.req("alg", str), a.req("key", bytes), a.req("plaintext", bytes), a.opt("nonce", bytes), a.opt("aad", bytes)
    )


@_op("aead.open", "alg", "key", "combined", "aad")
def _aead_open(a: Fields) -> bytes:
    return aead.open_combined(a.req("alg", str), a.req("key", bytes), a.req("combined", bytes), a.opt("aad", bytes))


@_op("aead.seal_parts", "alg", "key", "nonce", "plaintext", "aad")
def _aead_seal_parts(a: Fields) -> dict[str, bytes]:
    ciphertext, tag = aead.seal_parts(
        a.req("alg", str), a.req("key", bytes), a.req("nonce", bytes), a.req("plaintext", bytes), a.opt("aad", bytes)
    )
    return {"ciphertext": ciphertext, "tag": tag}


@_op("aead.open_parts", "alg", "key", "nonce", "ciphertext", "tag", "aad")
def _aead_open_parts(a: Fields) -> bytes:
    return aead.open_parts(
        a.req("alg", str), a.req("key", bytes), a.req("nonce", bytes), a.req("ciphertext", bytes), a.req("tag", bytes),
        a.opt("aad", bytes),
    )


@_op("symkey.generate", "bits")
def _symkey_generate(a: Fields) -> bytes:
    return aead.generate_symkey(a.req("bits", int))


@_op("symkey.serialize", "key")
def _symkey_serialize(a: Fields) -> str:
    return aead.serialize_symkey(a.req("key", bytes))


@_op("symkey.parse", "text")
def _symkey_parse(a: Fields) -> bytes:
    return aead.parse_symkey(a.req("text", str))


# ---- signature verification, key agreement, HKDF (primitives.py; the Wycheproof families) --------


# `key`: SPKI DER. `hash`, `mgf1_hash`: OpenSSL digest names; `salt_length` for rsa-pss only.
@_op("sig.verify", "scheme", "key", "message", "signature", "hash", "mgf1_hash", "salt_length")
def _sig_verify(a: Fields) -> bool:
    return primitives.verify(a.req("scheme", str), a.req("key", bytes), a.req("message", bytes), a.req("signature", bytes),
                             a.opt("hash", str), a.opt("mgf1_hash", str), a.opt("salt_length", int))


# An app's request signature with a shared secret (RFC 2104); `hash`: an OpenSSL digest name.
@_op("hmac.compute", "hash", "key", "message")
def _hmac_compute(a: Fields) -> bytes:
    return primitives.hmac(a.req("hash", str), a.req("key", bytes), a.req("message", bytes))


@_op("kex.agree", "curve", "private", "public", "encoding")
def _kex_agree(a: Fields) -> bytes:
    return primitives.agree(a.req("curve", str), a.req("private", bytes), a.req("public", bytes), a.req("encoding", str))


@_op("hkdf.derive", "hash", "ikm", "salt", "info", "length")
def _hkdf_derive(a: Fields) -> bytes:
    return primitives.hkdf(a.req("hash", str), a.req("ikm", bytes), a.opt("salt", bytes), a.opt("info", bytes),
                           a.req("length", int))


# ---- what an app under test signs and agrees (signatures.py, key_agreement.py: their argument
# shapes, on primitives.py's verification, agreement and KDFs) ------------------------------------


@_op("signature.verify", "alg", "public_key", "message", "signature")
def _signature_verify(a: Fields) -> bool:
    return signatures.verify(a.req("alg", str), a.req("public_key", bytes), a.req("message", bytes), a.req("signature", bytes))


@_op("signature.openssl_inputs", "alg", "public_key", "signature")
def _signature_openssl_inputs(a: Fields) -> dict[str, bytes]:
    alg = a.req("alg", str)
    curve = alg.split("-")[1] if alg.startswith("ecdsa-") else None
    return {"public_pem": signatures.public_pem(a.req("public_key", bytes), curve),
            "signature_der": signatures.der_signature(alg, a.req("signature", bytes))}


@_op("agreement.generate", "curve", "format")
def _agreement_generate(a: Fields) -> dict[str, bytes]:
    return key_agreement.generate(a.req("curve", str), a.req("format", str))


@_op("agreement.derive", "curve", "private_key", "peer_public_key", "kdf", "salt", "info", "length")
def _agreement_derive(a: Fields) -> bytes:
    return key_agreement.derive(a.req("curve", str), a.req("private_key", bytes), a.req("peer_public_key", bytes), a.req("kdf", str),
                                a.opt("salt", bytes, b""), a.opt("info", bytes, b""), a.req("length", int))


# ---- sessions: rsa-socket machines and aes-https servers kept between calls (sessions.py) ------------


@_op("session.open", "role", "config")
def _session_open(a: Fields) -> dict[str, object]:
    session, actions = sessions.open_session(a.choice("role", sessions.ROLES), a.req("config", dict))
    return {"session": session, "actions": actions}


@_op("session.receive", "session", "data")
def _session_receive(a: Fields) -> dict[str, object]:
    return sessions.receive(a.req("session", int), a.req("data", bytes))


@_op("session.idle", "session")
def _session_idle(a: Fields) -> dict[str, object]:
    return sessions.idle(a.req("session", int))


@_op("session.request", "session", "request")
def _session_request(a: Fields) -> dict[str, object]:
    return sessions.request(a.req("session", int), a.req("request", dict))


@_op("session.close", "session")
def _session_close(a: Fields) -> None:
    sessions.close(a.req("session", int))


# ---- the aes-https client's steps (aes_https.py) -----------------------------------------------------


@_op("aes-https.client.login_request", "username", "password", "encoding")
def _login_request(a: Fields) -> dict[str, object]:
    return aes_https.login_request(a.req("username", str), a.req("password", str), a.opt("encoding", str, "json"))


@_op("aes-https.client.parse_login", "response", "key_mode")
def _parse_login(a: Fields) -> dict[str, object]:
    login = aes_https.parse_login(a.req("response", dict), a.req("key_mode", str))
    return {"token": login.token, "encryption_key": login.encryption_key, "key": login.key}


@_op("aes-https.client.secure_request", "token", "key", "params", "iv")
def _secure_request(a: Fields) -> dict[str, object]:
    return aes_https.secure_request(a.req("token", str), a.req("key", bytes), a.req("params", dict),
                                    a.opt("iv", bytes))


@_op("aes-https.client.parse_secure", "response", "key")
def _parse_secure(a: Fields) -> dict[str, object]:
    return aes_https.parse_secure(a.req("response", dict), a.req("key", bytes))


# ---- the entry point -----------------------------------------------------------------------------


def _err(kind: ErrorKind, detail: str) -> dict[str, str]:
    return {"err": kind.value, "detail": detail}


def _describe(exc: BaseException) -> str:
    try:
        head = f"{type(exc).__name__}: {exc}".replace("\n", " ")
        return head + "\n" + "".join(traceback.format_exception(exc))
    except BaseException:  # an exception whose str() itself fails
        return type(exc).__name__


def handle(op: object, args: object) -> dict[str, Any]:
    """Run one op. Never raises: every outcome, a bug included, comes back as a dict."""
    try:
        if not isinstance(op, str):
            return _err(ErrorKind.BAD_INPUT, f"op must be a str, got {type(op).__name__}")
        entry = _OPS.get(op)
        if entry is None:
            return _err(ErrorKind.UNKNOWN_OP, f"unknown op {op[:80]!r}")
        fn, params = entry
        return {"ok": fn(Fields(args, params))}
    except CryptoFailure as failure:
        return _err(failure.kind, failure.detail)
    except BaseException as exc:  # noqa: BLE001 -- the contract: nothing escapes
        return _err(ErrorKind.INTERNAL, _describe(exc))


# ---- described protocols: one Party of pythonref.described per session (sessions.py) -----------------


@_op("described.open", "path", "conversation", "role", "private_keys", "known_public_keys", "secrets", "message", "config")
def _described_open(a: Fields) -> dict[str, object]:
    return {"session": sessions.open_described(
        a.req("path", str), a.opt("conversation", str), a.choice("role", ("client", "server")),
        a.opt("private_keys", dict, {}), a.opt("known_public_keys", dict, {}), a.opt("secrets", dict, {}),
        a.opt("message", bytes), a.opt("config", dict, {}))}


@_op("described.check", "path")
def _described_check(a: Fields) -> str:
    return sessions.described_description(a.req("path", str)).name


@_op("described.next", "session")
def _described_next(a: Fields) -> dict[str, object]:
    return {"message": sessions.described(a.req("session", int), lambda party: party.next_message())}


@_op("described.receive", "session", "message")
def _described_receive(a: Fields) -> dict[str, object]:
    return {"refused": sessions.described_receive(a.req("session", int), a.req("message", object))}


@_op("described.state", "session")
def _described_state(a: Fields) -> dict[str, object]:
    return sessions.described(a.req("session", int), sessions.described_state)


@_op("described.refusal", "session")
def _described_refusal(a: Fields) -> dict[str, object]:
    return {"message": sessions.described(a.req("session", int), lambda party: party.refusal_message())}


@_op("described.close", "session")
def _described_close(a: Fields) -> None:
    sessions.close(a.req("session", int))
