"""Error kinds shared by every module, the one exception used internally, and its constructors.

The kinds are the exact strings that cross the boundary in `{"err": kind}`;
`CryptoFailure` never leaves the package: `handlers.handle` turns it into data.
"""

from __future__ import annotations

from enum import Enum
from typing import Iterable


class ErrorKind(str, Enum):
    BAD_INPUT = "BadInput"  # missing/unknown/mistyped argument, value out of range
    UNKNOWN_OP = "UnknownOp"
    BAD_KEY = "BadKey"  # unparseable key, wrong label, not RSA, wrong passphrase, wrong size
    TOO_LONG = "TooLong"  # RSA plaintext over the padding's limit
    DECRYPT_FAILED = "DecryptFailed"  # every RSA decryption failure: one kind, one text
    BAD_LENGTH = "BadLength"  # ciphertext / IV / nonce of the wrong length
    BAD_PADDING = "BadPadding"  # CBC PKCS#7 padding
    AUTH_FAILED = "AuthFailed"  # AEAD tag mismatch
    KEY_DERIVATION = "KeyDerivation"  # encryptionKey string -> AES key failed
    BAD_ENVELOPE = "BadEnvelope"  # {"data","iv"} JSON envelope malformed
    UNSUPPORTED = "Unsupported"  # unknown padding / mode / alg / format name
    INTERNAL = "Internal"  # a bug: any exception nobody anticipated


class CryptoFailure(Exception):
    """An anticipated failure: a kind from ErrorKind plus human-readable detail.

    The detail must never contain plaintext or key material.
    """

    def __init__(self, kind: ErrorKind, detail: str) -> None:
        super().__init__(f"{kind.value}: {detail}")
        self.kind = kind
        self.detail = detail


def bad_input(detail: str) -> CryptoFailure:
    """A call that is malformed in itself: a missing, unknown or mistyped argument, a value out of range."""
    return CryptoFailure(ErrorKind.BAD_INPUT, detail)


def unsupported(what: str, value: object, known: Iterable[str]) -> CryptoFailure:
    """A name this implementation does not know (a padding, mode, algorithm, format, role…)."""
    return CryptoFailure(ErrorKind.UNSUPPORTED, f"unknown {what} {value!r}; known: {', '.join(known)}")
