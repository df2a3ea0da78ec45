"""RSA keys made once and reused by later processes, for test suites only.

With CROSSCHECK_TEST_KEY_CACHE=DIR in the environment (`make test` sets it), the n-th key of a size
a process asks for is DIR/rsa-pyca-<bits>-<n>.der (PKCS#8), made and written the first time any
process asks for it; unset (every user's run), every key is fresh and nothing is read. The same
rule as crosscheck's Swift side (WireCrypto's RSATestKeyCache), in its own files.

Why: OpenSSL 3's RSA key generation takes 0.4 s at 2048 bits and seconds at 4096 on CI's cores,
and `make test` starts hundreds of processes that each make their own. Keys stay distinct within a
process (each call takes the next index); across processes they repeat, which a test does not mind.
A cached file that is not a key of the size asked for is made again, never trusted.
"""

from __future__ import annotations

import os
import threading
from typing import Callable, Optional

from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric import rsa

ENVIRONMENT_VARIABLE = "CROSSCHECK_TEST_KEY_CACHE"

_lock = threading.Lock()
_taken: dict[str, int] = {}


def directory() -> Optional[str]:
    return os.environ.get(ENVIRONMENT_VARIABLE) or None


def key(bits: int, make: Callable[[], rsa.RSAPrivateKey], kind: str = "pyca") -> rsa.RSAPrivateKey:
    """The next key of `bits` (e = 65537) for `kind`, from the cache when one is set, else make().
    PythonRef and the zoos' servers share `pyca`: they never run in one process with their own counts
    (a zoo server hosted in crosscheck's interpreter imports this same module), and a zoo server that
    makes a key per connection then reuses PythonRef's keys instead of filling the cache with its own."""
    folder = directory()
    if folder is None:
        return make()
    stem = f"rsa-{kind}-{bits}"
    with _lock:
        index = _taken.get(stem, 0)
        _taken[stem] = index + 1
    path = os.path.join(folder, f"{stem}-{index}.der")
    try:
        with open(path, "rb") as handle:
            cached = ser.load_der_private_key(handle.read(), password=None)
        if isinstance(cached, rsa.RSAPrivateKey) and cached.key_size == bits and cached.public_key().public_numbers().e == 65537:
            return cached
    except (OSError, ValueError, TypeError):
        pass
    made = make()
    # Written beside and renamed: a reader sees the whole key or none. Failing to write costs only the reuse.
    partial = os.path.join(folder, f".{stem}-{index}.{os.getpid()}.partial")
    try:
        os.makedirs(folder, exist_ok=True)
        with open(partial, "wb") as handle:
            handle.write(made.private_bytes(ser.Encoding.DER, ser.PrivateFormat.PKCS8, ser.NoEncryption()))
        os.replace(partial, path)
    except OSError:
        try:
            os.remove(partial)
        except OSError:
            pass
    return made
