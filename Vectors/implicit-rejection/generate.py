"""Writes Vectors/implicit-rejection/vectors.json: RSA keys, PKCS#1 v1.5 ciphertexts with bad (and a
few good) paddings, and what a pyca/cryptography whose OpenSSL is >= 3.2 decrypts each to.

Run by a Python whose cryptography links OpenSSL >= 3.2 (`make venv-current` makes one):
    .venv-current/bin/python Vectors/implicit-rejection/generate.py
PythonRef's test (PythonRef/tests/test_implicit_rejection.py) then checks, on any Python, that its
own implicit rejection gives exactly these bytes. The keys are new every run, so every run writes
a new file; the provenance block says what made it.

The ciphertexts are made here by textbook RSA (c = EM^e mod n) from encoded messages EM built to
be wrong in one way each (RFC 8017 7.2.2 step 3's conditions), so the library decrypts what this
script chose, not what its own encryption would produce.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
from pathlib import Path

import cryptography
from cryptography.hazmat.backends.openssl import backend
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

# Whole bytes only: cryptography 50 makes a 2048-bit key when asked for 2049 bits.
KEY_SIZES = (1024, 1536, 2048, 3072, 4096)
OUT = Path(__file__).resolve().parent / "vectors.json"


def _nonzero(count: int) -> bytes:
    out = bytearray()
    while len(out) < count:
        out += bytes(b for b in os.urandom(count) if b)
    return bytes(out[:count])


def _encoded_messages(k: int) -> list[tuple[str, bytes]]:
    """(class, EM): each EM is k bytes with a zero first byte, so below n."""
    msg = b"Secret message from the phone"
    ps = _nonzero(k - 3 - len(msg))
    cases = [
        ("valid", b"\x00\x02" + ps + b"\x00" + msg),
        ("valid-empty", b"\x00\x02" + _nonzero(k - 3) + b"\x00"),
        ("valid-longest", b"\x00\x02" + _nonzero(8) + b"\x00" + os.urandom(k - 11)),
        ("wrong-block-type-1", b"\x00\x01" + ps + b"\x00" + msg),
        ("wrong-block-type-0", b"\x00\x00" + ps + b"\x00" + msg),
        ("no-separator", b"\x00\x02" + _nonzero(k - 2)),
        ("padding-7-bytes", b"\x00\x02" + _nonzero(7) + b"\x00" + _nonzero(k - 10)),
        ("separator-first", b"\x00\x02\x00" + _nonzero(k - 3)),
        ("all-zero", bytes(k)),
    ]
    return cases


def _vectors(bits: int) -> dict[str, object]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    assert key.key_size == bits, f"asked for {bits} bits, got {key.key_size}"
    numbers = key.public_key().public_numbers()
    k = (bits + 7) // 8
    cases = _encoded_messages(k)
    cases.append(("nonzero-first-byte", b"\x01\x02" + _nonzero(k - 2)))  # below n: n's top byte is >= 0x80
    cases += [(f"random-{i}", os.urandom(k - 1)) for i in range(3)]  # k - 1 bytes: below n
    out = []
    for name, em in cases:
        em = em.rjust(k, b"\x00")
        ciphertext = pow(int.from_bytes(em, "big"), numbers.e, numbers.n).to_bytes(k, "big")
        out.append({"class": name, "ciphertext": ciphertext.hex(), **_outcome(key, ciphertext)})
    # What every OpenSSL refuses outright, implicit rejection or not.
    out.append({"class": "modulus", "ciphertext": numbers.n.to_bytes(k, "big").hex(),
                **_outcome(key, numbers.n.to_bytes(k, "big"))})
    out.append({"class": "above-modulus", "ciphertext": (b"\xff" * k).hex(), **_outcome(key, b"\xff" * k)})
    short = os.urandom(k - 1)
    out.append({"class": "short", "ciphertext": short.hex(), **_outcome(key, short)})
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    return {"bits": bits, "private_pkcs8_pem": pem.decode("ascii"), "cases": out}


def _outcome(key: rsa.RSAPrivateKey, ciphertext: bytes) -> dict[str, str]:
    try:
        return {"plaintext": key.decrypt(ciphertext, padding.PKCS1v15()).hex()}
    except ValueError as exc:
        return {"error": str(exc)}


def main() -> int:
    version = backend.openssl_version_number()
    if version < 0x30200000:
        print(f"generate.py: this cryptography links {backend.openssl_version_text()}; implicit rejection "
              "needs OpenSSL >= 3.2 (run it with .venv-current/bin/python; `make venv-current` makes it)",
              file=sys.stderr)
        return 69
    document = {
        "about": "PKCS#1 v1.5 ciphertexts and what OpenSSL >= 3.2's implicit rejection decrypts them to "
                 "(plaintext hex), or the error it gives; see generate.py",
        "provenance": {
            "made": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": "make vectors-implicit-rejection  (.venv-current/bin/python Vectors/implicit-rejection/generate.py)",
            "python": platform.python_version(),
            "cryptography": cryptography.__version__,
            "openssl": backend.openssl_version_text(),
        },
        "keys": [_vectors(bits) for bits in KEY_SIZES],
    }
    tmp = OUT.with_suffix(".tmp")
    tmp.write_text(json.dumps(document, indent=1) + "\n")
    tmp.replace(OUT)
    cases = sum(len(k["cases"]) for k in document["keys"])
    print(f"generate.py: {cases} cases over {len(KEY_SIZES)} keys -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
