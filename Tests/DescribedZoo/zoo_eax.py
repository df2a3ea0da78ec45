"""AES-EAX for the described zoo's servers and their test clients (neither OpenSSL nor pyca has it).

Written from M. Bellare, P. Rogaway and D. Wagner, "The EAX Mode of Operation", FSE 2004
(https://web.cs.ucdavis.edu/~rogaway/papers/eax.pdf), Figure 1 — not from crosscheck's engines —
over pyca's AES-CTR and AES-CMAC:

    OMAC^t_K(M) = CMAC_K([0]^15 [t] || M)          (t = 0, 1, 2: one full block, then the data)
    N' = OMAC^0_K(N)    H' = OMAC^1_K(H)    C = CTR_K(N', M)    C' = OMAC^2_K(C)
    tag = (N' xor H' xor C')[:tag_length]

CTR starts at N' and increments the whole 128-bit block big-endian (pyca's `modes.CTR`, OpenSSL's
CTR128). PyCryptodome's `AES.new(key, AES.MODE_EAX)` with its defaults is this with a 16-byte
nonce, a 16-byte tag and no header (H empty): what the eax-separated-key-handout description seals
with. The tests hold it to the paper's test vectors (test_described_zoo.py).
"""

import hmac
import os

from cryptography.hazmat.primitives import cmac
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

NONCE, TAG = 16, 16


class InvalidTag(ValueError):
    """The tag does not verify (PyCryptodome's `ValueError("MAC check failed")`)."""


def omac(key, t, data):
    mac = cmac.CMAC(algorithms.AES(key))
    mac.update(bytes(15) + bytes([t]) + data)
    return mac.finalize()


def _ctr(key, counter, data):
    worker = Cipher(algorithms.AES(key), modes.CTR(counter)).encryptor()
    return worker.update(data) + worker.finalize()


def _xor(*blocks):
    out = bytearray(16)
    for block in blocks:
        for i, byte in enumerate(block):
            out[i] ^= byte
    return bytes(out)


def encrypt(key, nonce, plaintext, header=b"", tag_length=TAG):
    """(ciphertext, tag) for any nonce length (EAX takes any; PyCryptodome's default is 16 bytes)."""
    n = omac(key, 0, nonce)
    h = omac(key, 1, header)
    ciphertext = _ctr(key, n, plaintext)
    tag = _xor(n, h, omac(key, 2, ciphertext))[:tag_length]
    return ciphertext, tag


def decrypt(key, nonce, ciphertext, tag, header=b""):
    """The plaintext, after the tag verifies (compared in constant time over the full tag length)."""
    n = omac(key, 0, nonce)
    expected = _xor(n, omac(key, 1, header), omac(key, 2, ciphertext))
    if len(tag) != TAG or not hmac.compare_digest(expected, tag):
        raise InvalidTag("MAC check failed")
    return _ctr(key, n, ciphertext)


def decrypt_unverified(key, nonce, ciphertext):
    """EAX's counter mode alone, the tag never looked at (PyCryptodome's `cipher.decrypt(c)` without `verify`)."""
    return _ctr(key, omac(key, 0, nonce), ciphertext)


def seal_separated(key, plaintext, separator=b"::", nonce=None, tries=100):
    """nonce ‖ sep ‖ tag ‖ sep ‖ ciphertext (PyCryptodome code's `b"::".join([cipher.nonce, tag, ciphertext])`),
    sealed again under a fresh nonce until the joined bytes split back into those very parts.

    That no part holds the separator is not enough: with "::", a part that ends in ":" meets the
    separator in ":::", and `data.split(b"::")` cuts one byte early — a nonce of 15 bytes and a tag of
    17 — about once in 120 messages (two part ends, each ":" with probability 1/256, and "::" inside a
    part). A given `nonce` is used as it is (one try)."""
    for _ in range(1 if nonce is not None else tries):
        use = nonce if nonce is not None else os.urandom(NONCE)
        ciphertext, tag = encrypt(key, use, plaintext)
        joined = separator.join([use, tag, ciphertext])
        if joined.split(separator) == [use, tag, ciphertext]:
            return joined
    raise ValueError("every try held the separator or met it")


def open_separated(key, data, separator=b"::"):
    """The plaintext of nonce::tag::ciphertext: exactly three parts, a 16-byte nonce and tag (else ValueError)."""
    parts = data.split(separator)
    if len(parts) != 3:
        raise ValueError("%d parts, not 3" % len(parts))
    nonce, tag, ciphertext = parts
    if len(nonce) != NONCE or len(tag) != TAG:
        raise ValueError("a nonce of %d bytes and a tag of %d" % (len(nonce), len(tag)))
    return decrypt(key, nonce, ciphertext, tag)
