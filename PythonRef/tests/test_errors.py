from __future__ import annotations

from pythonref.errors import CryptoFailure, ErrorKind


def test_errorKinds_areTheContractStrings() -> None:
    assert {k.value for k in ErrorKind} == {
        "BadInput", "UnknownOp", "BadKey", "TooLong", "DecryptFailed", "BadLength",
        "BadPadding", "AuthFailed", "KeyDerivation", "BadEnvelope", "Unsupported", "Internal",
    }
    assert ErrorKind.BAD_KEY == "BadKey"  # str enum: compares equal to its wire text


def test_cryptoFailure_carriesKindAndDetail() -> None:
    f = CryptoFailure(ErrorKind.TOO_LONG, "plaintext is 118 bytes")
    assert f.kind is ErrorKind.TOO_LONG
    assert f.detail == "plaintext is 118 bytes"
    assert "TooLong" in str(f)
