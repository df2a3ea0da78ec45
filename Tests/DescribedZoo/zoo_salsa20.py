"""Salsa20/20 for the described zoo's servers and their test clients (neither OpenSSL nor pyca has it).

Written from D. J. Bernstein's specification, "Salsa20 specification", https://cr.yp.to/snuffle/spec.pdf
(not from crosscheck's engines): the quarterround, rowround, columnround and doubleround of §3–§6,
the Salsa20 hash of §8 (ten doublerounds, the input added word by word, little-endian words), the
expansion of §9 (a 32-byte key k0||k1 between the constants "expand 32-byte k"; a 16-byte key k
twice between "expand 16-byte k") and the encryption of §10: an 8-byte nonce, then a 64-bit
little-endian block counter from 0, one 64-byte block of keystream per counter, XORed into the data.
The tests hold it to an eSTREAM vector (test_described_zoo.py). Slow (pure Python) but enough for
messages of a few kilobytes.
"""

import struct

SIGMA = b"expand 32-byte k"
TAU = b"expand 16-byte k"
MASK = 0xFFFFFFFF


def _rotl(value, shift):
    return ((value << shift) & MASK) | (value >> (32 - shift))


def _quarterround(y, a, b, c, d):
    """§3 on words a, b, c, d of y, in place: z1, z2, z3, z0 in that order."""
    y[b] ^= _rotl((y[a] + y[d]) & MASK, 7)
    y[c] ^= _rotl((y[b] + y[a]) & MASK, 9)
    y[d] ^= _rotl((y[c] + y[b]) & MASK, 13)
    y[a] ^= _rotl((y[d] + y[c]) & MASK, 18)


def _doubleround(x):
    # columnround (§5)
    _quarterround(x, 0, 4, 8, 12)
    _quarterround(x, 5, 9, 13, 1)
    _quarterround(x, 10, 14, 2, 6)
    _quarterround(x, 15, 3, 7, 11)
    # rowround (§4)
    _quarterround(x, 0, 1, 2, 3)
    _quarterround(x, 5, 6, 7, 4)
    _quarterround(x, 10, 11, 8, 9)
    _quarterround(x, 15, 12, 13, 14)


def salsa20_hash(block):
    """§8: Salsa20(x) for a 64-byte x."""
    words = list(struct.unpack("<16I", block))
    x = list(words)
    for _ in range(10):
        _doubleround(x)
    return struct.pack("<16I", *((a + b) & MASK for a, b in zip(x, words)))


def expand(key, n16):
    """§9: Salsa20_k(n) for a 16- or 32-byte key and a 16-byte n."""
    if len(key) == 32:
        constant, k0, k1 = SIGMA, key[:16], key[16:]
    elif len(key) == 16:
        constant, k0, k1 = TAU, key, key
    else:
        raise ValueError("a Salsa20 key is 16 or 32 bytes, not %d" % len(key))
    if len(n16) != 16:
        raise ValueError("n is 16 bytes")
    return salsa20_hash(constant[0:4] + k0 + constant[4:8] + n16 + constant[8:12] + k1 + constant[12:16])


def keystream(key, nonce, length, counter=0):
    """The first `length` bytes of the stream for an 8-byte nonce, blocks numbered from `counter`."""
    if len(nonce) != 8:
        raise ValueError("a Salsa20 nonce is 8 bytes, not %d" % len(nonce))
    out = bytearray()
    while len(out) < length:
        out += expand(key, nonce + struct.pack("<Q", counter))
        counter += 1
    return bytes(out[:length])


def salsa20(key, nonce, data, counter=0):
    """§10: encryption and decryption alike (the data XOR the stream)."""
    stream = keystream(key, nonce, len(data), counter)
    return bytes(a ^ b for a, b in zip(data, stream))
