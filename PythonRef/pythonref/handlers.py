"""The one entry point the Swift side calls: `handle(op, args) -> dict`.

Results and failures are data: `{"ok": value}` or `{"err": kind, "detail": text}`.
Nothing raises across the embedding boundary, and values are only bytes, str,
int, bool, None, list and str-keyed dict.
"""

from __future__ import annotations

import platform
import traceback
from typing import Any, Callable

import cryptography
from cryptography.hazmat.backends import default_backend

from . import aead, aes_cbc, rsa_cipher, rsa_keys
from .errors import CryptoFailure, ErrorKind


class _Args:
    """Typed access to one call's arguments; unknown names are refused up front
    so a caller's typo (say "add" for "aad") cannot be silently ignored."""

    def __init__(self, raw: dict[str, Any], allowed: tuple[str, ...]) -> None:
        unknown = sorted(k for k in raw if k not in allowed)
        if unknown:
            raise _bad_input(f"unknown argument(s) {unknown}; this op takes {list(allowed)}")
        self._raw = raw
        self._allowed = allowed

    def _get(self, name: str, required: bool) -> Any:
        assert name in self._allowed, f"handler reads undeclared argument {name!r}"
        value = self._raw.get(name)  # None counts as absent, so Swift can pass nil for optionals
        if value is None and required:
            raise _bad_input(f"missing argument {name!r}")
        return value

    def opt_bytes(self, name: str) -> bytes | None:
        value = self._get(name, required=False)
        if value is None:
            return None
        if not isinstance(value, (bytes, bytearray)):
            raise _bad_input(f"argument {name!r} must be bytes, got {type(value).__name__}")
        return bytes(value)

    def req_bytes(self, name: str) -> bytes:
        self._get(name, required=True)
        value = self.opt_bytes(name)
        assert value is not None
        return value

    def opt_int(self, name: str) -> int | None:
        value = self._get(name, required=False)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):  # bool is an int subclass
            raise _bad_input(f"argument {name!r} must be an int, got {type(value).__name__}")
        return value

    def req_int(self, name: str) -> int:
        self._get(name, required=True)
        value = self.opt_int(name)
        assert value is not None
        return value

    def opt_str(self, name: str) -> str | None:
        value = self._get(name, required=False)
        if value is not None and not isinstance(value, str):
            raise _bad_input(f"argument {name!r} must be a str, got {type(value).__name__}")
        return value

    def req_str(self, name: str) -> str:
        value = self._get(name, required=True)
        if not isinstance(value, str):
            raise _bad_input(f"argument {name!r} must be a str, got {type(value).__name__}")
        return value


Handler = Callable[[_Args], Any]
_OPS: dict[str, tuple[Handler, tuple[str, ...]]] = {}


def _bad_input(detail: str) -> CryptoFailure:
    return CryptoFailure(ErrorKind.BAD_INPUT, detail)


def _op(name: str, *params: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _OPS[name] = (fn, params)
        return fn

    return register


def op_table() -> dict[str, list[str]]:
    """Op name -> the argument names it accepts (for docs and the Swift side's tests)."""
    return {name: list(params) for name, (_, params) in _OPS.items()}


# ---- version -------------------------------------------------------------------------------------


@_op("version")
def _version(a: _Args) -> dict[str, str]:
    return {
        "python": platform.python_version(),
        "cryptography": cryptography.__version__,
        "openssl": default_backend().openssl_version_text(),
    }


# ---- RSA keys ------------------------------------------------------------------------------------


@_op("rsa.generate", "bits", "e")
def _rsa_generate(a: _Args) -> dict[str, bytes]:
    e = a.opt_int("e")
    key = rsa_keys.generate(a.req_int("bits"), 65537 if e is None else e)
    return {
        "private_pkcs8_pem": rsa_keys.export_private(key, "pkcs8-pem"),
        "public_spki_pem": rsa_keys.export_public(key.public_key(), "spki-pem"),
    }


@_op("rsa.public_info", "key", "passphrase")
def _rsa_public_info(a: _Args) -> dict[str, object]:
    return rsa_keys.public_info(rsa_keys.load_public(a.req_bytes("key"), a.opt_bytes("passphrase")))


@_op("rsa.private_info", "key", "passphrase")
def _rsa_private_info(a: _Args) -> dict[str, object]:
    key = rsa_keys.load_private(a.req_bytes("key"), a.opt_bytes("passphrase"))
    return rsa_keys.public_info(key.public_key())


@_op("rsa.export_public", "key", "passphrase", "format")
def _rsa_export_public(a: _Args) -> bytes:
    fmt = a.req_str("format")
    key = rsa_keys.load_public(a.req_bytes("key"), a.opt_bytes("passphrase"))
    return rsa_keys.export_public(key, fmt)


@_op("rsa.export_private", "key", "passphrase", "format", "export_passphrase")
def _rsa_export_private(a: _Args) -> bytes:
    fmt = a.req_str("format")
    key = rsa_keys.load_private(a.req_bytes("key"), a.opt_bytes("passphrase"))
    return rsa_keys.export_private(key, fmt, a.opt_bytes("export_passphrase"))


# ---- RSA encryption ------------------------------------------------------------------------------


# `hash` and `mgf1_hash` (OpenSSL digest names) go with padding "oaep" only.
@_op("rsa.max_plaintext", "bits", "padding", "hash", "mgf1_hash")
def _rsa_max_plaintext(a: _Args) -> int:
    return rsa_cipher.max_plaintext(a.req_int("bits"), a.req_str("padding"), a.opt_str("hash"), a.opt_str("mgf1_hash"))


@_op("rsa.encrypt", "key", "passphrase", "padding", "plaintext", "label", "hash", "mgf1_hash")
def _rsa_encrypt(a: _Args) -> bytes:
    padding, plaintext, label = a.req_str("padding"), a.req_bytes("plaintext"), a.opt_bytes("label")
    hash_name, mgf1_hash = a.opt_str("hash"), a.opt_str("mgf1_hash")
    key = rsa_keys.load_public(a.req_bytes("key"), a.opt_bytes("passphrase"))
    return rsa_cipher.encrypt(key, padding, plaintext, label, hash_name, mgf1_hash)


@_op("rsa.decrypt", "key", "passphrase", "padding", "ciphertext", "label", "hash", "mgf1_hash")
def _rsa_decrypt(a: _Args) -> bytes:
    padding, ciphertext, label = a.req_str("padding"), a.req_bytes("ciphertext"), a.opt_bytes("label")
    hash_name, mgf1_hash = a.opt_str("hash"), a.opt_str("mgf1_hash")
    key = rsa_keys.load_private(a.req_bytes("key"), a.opt_bytes("passphrase"))
    return rsa_cipher.decrypt(key, padding, ciphertext, label, hash_name, mgf1_hash)


# ---- AES-CBC and the JSON envelope ---------------------------------------------------------------


@_op("cbc.encrypt", "key", "iv", "plaintext")
def _cbc_encrypt(a: _Args) -> bytes:
    return aes_cbc.cbc_encrypt(a.req_bytes("key"), a.req_bytes("iv"), a.req_bytes("plaintext"))


@_op("cbc.decrypt", "key", "iv", "ciphertext")
def _cbc_decrypt(a: _Args) -> bytes:
    return aes_cbc.cbc_decrypt(a.req_bytes("key"), a.req_bytes("iv"), a.req_bytes("ciphertext"))


@_op("envelope.seal", "key", "plaintext", "iv")
def _envelope_seal(a: _Args) -> bytes:
    return aes_cbc.seal_envelope(a.req_bytes("key"), a.req_bytes("plaintext"), a.opt_bytes("iv"))


@_op("envelope.open", "key", "envelope")
def _envelope_open(a: _Args) -> bytes:
    return aes_cbc.open_envelope(a.req_bytes("key"), a.req_bytes("envelope"))


@_op("kdf.derive", "mode", "encryption_key")
def _kdf_derive(a: _Args) -> bytes:
    return aes_cbc.derive_key(a.req_str("mode"), a.req_str("encryption_key"))


# ---- AEAD and symmetric keys ---------------------------------------------------------------------


@_op("aead.seal", "alg", "key", "plaintext", "nonce", "aad")
def _aead_seal(a: _Args) -> bytes:
    return aead.seal(
        a.req_str("alg"), a.req_bytes("key"), a.req_bytes("plaintext"), a.opt_bytes("nonce"), a.opt_bytes("aad")
    )


@_op("aead.open", "alg", "key", "combined", "aad")
def _aead_open(a: _Args) -> bytes:
    return aead.open_combined(a.req_str("alg"), a.req_bytes("key"), a.req_bytes("combined"), a.opt_bytes("aad"))


@_op("symkey.generate", "bits")
def _symkey_generate(a: _Args) -> bytes:
    return aead.generate_symkey(a.req_int("bits"))


@_op("symkey.serialize", "key")
def _symkey_serialize(a: _Args) -> str:
    return aead.serialize_symkey(a.req_bytes("key"))


@_op("symkey.parse", "text")
def _symkey_parse(a: _Args) -> bytes:
    return aead.parse_symkey(a.req_str("text"))


# ---- sessions: rsa-socket machines, aes-https server and client (their code is in sessions.py) ----

from . import sessions  # noqa: E402

for _name, (_fn, _params) in sessions.OPS.items():
    _op(_name, *_params)(lambda a, _fn=_fn, _params=_params: _fn({p: a._get(p, required=False) for p in _params}))


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
        if not isinstance(args, dict):
            return _err(ErrorKind.BAD_INPUT, f"args must be a dict, got {type(args).__name__}")
        if not all(isinstance(k, str) for k in args):
            return _err(ErrorKind.BAD_INPUT, "args keys must all be str")
        fn, params = entry
        return {"ok": fn(_Args(args, params))}
    except CryptoFailure as failure:
        return _err(failure.kind, failure.detail)
    except BaseException as exc:  # noqa: BLE001 -- the contract: nothing escapes
        return _err(ErrorKind.INTERNAL, _describe(exc))
