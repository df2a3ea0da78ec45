"""der-client-key-session (examples/protocols/der-client-key-session.toml), from the description alone.

Raw TCP, 2-byte big-endian length prefixes. The client sends its RSA public key as DER
SubjectPublicKeyInfo. The server makes a fresh 16-byte session secret and answers ONE message:
RSA-OAEP-SHA1 of the secret to the client's key (k bytes), then IV (16) || AES-128-CBC (PKCS#7) of
the description's message "hello world" under the secret; then it closes. A key that is not DER
SPKI RSA, or no sound one (e < 3, e even, under 1024 bits): "ERROR" (framed) and a close.

Plants (--plant):
  fixed-iv  the same CBC IV for every conversation (the source's module-level IV)
  pkcs1     wraps the session secret with PKCS#1 v1.5 instead of OAEP-SHA1
  encrypts-to-exponent-1  reads the key's n and e by hand, checks nothing, and wraps with hand-made
            OAEP-SHA1 (pow(m, e, n)): to a key with e = 1 the padded secret goes out in the clear
"""

import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives import padding as sympadding  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding, rsa  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

PLANTS = ("fixed-iv", "pkcs1", "encrypts-to-exponent-1")
MESSAGE = b"hello world"
FIXED_IV = os.urandom(16)


def der_element(data, at):
    """(tag, start of contents, end) of the DER element at `at` (short or long form lengths)."""
    tag, length, at = data[at], data[at + 1], at + 2
    if length & 0x80:
        count = length & 0x7F
        length, at = int.from_bytes(data[at:at + count], "big"), at + count
    return tag, at, at + length


def spki_numbers(der):
    """n and e of an RSA SubjectPublicKeyInfo, read by hand, nothing checked (the plant's reader)."""
    _, body, _ = der_element(der, 0)                      # SEQUENCE
    _, _, algorithm_end = der_element(der, body)          # AlgorithmIdentifier
    _, bits, _ = der_element(der, algorithm_end)          # BIT STRING: one byte of unused bits, then RSAPublicKey
    _, key, _ = der_element(der, bits + 1)                # SEQUENCE
    _, n_start, n_end = der_element(der, key)
    _, e_start, e_end = der_element(der, n_end)
    return int.from_bytes(der[n_start:n_end], "big"), int.from_bytes(der[e_start:e_end], "big")


def oaep_sha1_by_hand(n, e, message):
    """RSAES-OAEP-ENCRYPT (RFC 8017 §7.1.1) with SHA-1, an empty label, and pow(m, e, n)."""
    def mgf1(seed, length):
        out = b""
        for counter in range(-(-length // 20)):
            out += hashlib.sha1(seed + counter.to_bytes(4, "big")).digest()
        return out[:length]
    k = (n.bit_length() + 7) // 8
    db = hashlib.sha1(b"").digest() + bytes(k - len(message) - 42) + b"\x01" + message
    seed = os.urandom(20)
    masked_db = bytes(a ^ b for a, b in zip(db, mgf1(seed, k - 21)))
    masked_seed = bytes(a ^ b for a, b in zip(seed, mgf1(masked_db, 20)))
    return pow(int.from_bytes(b"\x00" + masked_seed + masked_db, "big"), e, n).to_bytes(k, "big")


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS)

    def converse(sock, _address):
        wire = dzoolib.Wire(sock, framing="length-prefix", length_bytes=2)
        der = wire.recv()
        if args.plant == "encrypts-to-exponent-1":
            try:
                n, e = spki_numbers(der)
            except IndexError:
                wire.send(b"ERROR")
                return
            secret = os.urandom(16)
            iv = os.urandom(16)
            padder = sympadding.PKCS7(128).padder()
            encryptor = Cipher(algorithms.AES(secret), modes.CBC(iv)).encryptor()
            sealed = encryptor.update(padder.update(MESSAGE) + padder.finalize()) + encryptor.finalize()
            wire.send(oaep_sha1_by_hand(n, e, secret) + iv + sealed)
            return
        try:
            key = serialization.load_der_public_key(der)
            if not isinstance(key, rsa.RSAPublicKey):
                raise ValueError("not RSA")
            e = key.public_numbers().e
            if e < 3 or e % 2 == 0 or key.key_size < 1024:
                raise ValueError("unsound key")
        except ValueError as refused:
            dzoolib.log("refused the key: %s" % refused)
            wire.send(b"ERROR")
            return
        secret = os.urandom(16)
        if args.plant == "pkcs1":
            wrapped = key.encrypt(secret, padding.PKCS1v15())
        else:
            wrapped = key.encrypt(secret, padding.OAEP(mgf=padding.MGF1(hashes.SHA1()), algorithm=hashes.SHA1(), label=None))
        iv = FIXED_IV if args.plant == "fixed-iv" else os.urandom(16)
        padder = sympadding.PKCS7(128).padder()
        encryptor = Cipher(algorithms.AES(secret), modes.CBC(iv)).encryptor()
        sealed = encryptor.update(padder.update(MESSAGE) + padder.finalize()) + encryptor.finalize()
        wire.send(wrapped + iv + sealed)

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
