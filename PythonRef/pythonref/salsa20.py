"""Salsa20/20, written from Bernstein's "Salsa20 specification" (https://cr.yp.to/snuffle/spec.pdf).

Neither OpenSSL nor pyca/cryptography has Salsa20; servers that use PyCryptodome's
`Salsa20.new(key, nonce)` put it on the wire, so this is the reference crosscheck checks them with.
As there: a 16-byte key (expanded with "expand 16-byte k") or a 32-byte key ("expand 32-byte k"),
an 8-byte nonce, and a 64-bit little-endian block counter from 0 (spec §10). Encryption and
decryption are the same XOR with the key stream. Nothing authenticates it.
"""

from __future__ import annotations

import struct

KEY_SIZES = (16, 32)
NONCE_BYTES = 8
BLOCK_BYTES = 64
_MASK = 0xFFFFFFFF
_SIGMA = b"expand 32-byte k"
_TAU = b"expand 16-byte k"
_WORDS = struct.Struct("<16I")


def _rotl(value: int, count: int) -> int:
    """`value <<< count` on a 32-bit word (spec §2)."""
    return ((value << count) & _MASK) | (value >> (32 - count))


def _quarterround(x: list[int], a: int, b: int, c: int, d: int) -> None:
    """quarterround (spec §3) of x[a], x[b], x[c], x[d] in place: b, then c, then d, then a change."""
    x[b] ^= _rotl((x[a] + x[d]) & _MASK, 7)
    x[c] ^= _rotl((x[b] + x[a]) & _MASK, 9)
    x[d] ^= _rotl((x[c] + x[b]) & _MASK, 13)
    x[a] ^= _rotl((x[d] + x[c]) & _MASK, 18)


def _hash(block: bytes) -> bytes:
    """The Salsa20 hash function (spec §8): the 64-byte input plus ten double rounds of it, as words."""
    words = _WORDS.unpack(block)
    x = list(words)
    for _ in range(10):
        # columnround (spec §5), then rowround (spec §4): each column or row from its diagonal word.
        _quarterround(x, 0, 4, 8, 12)
        _quarterround(x, 5, 9, 13, 1)
        _quarterround(x, 10, 14, 2, 6)
        _quarterround(x, 15, 3, 7, 11)
        _quarterround(x, 0, 1, 2, 3)
        _quarterround(x, 5, 6, 7, 4)
        _quarterround(x, 10, 11, 8, 9)
        _quarterround(x, 15, 12, 13, 14)
    return _WORDS.pack(*((a + b) & _MASK for a, b in zip(x, words)))


def _expansion(key: bytes, n: bytes) -> bytes:
    """The expansion function Salsa20_k(n) (spec §9); `n` is 16 bytes: the nonce, then the block number."""
    if len(key) == 32:
        c, k0, k1 = _SIGMA, key[:16], key[16:]
    else:
        c, k0, k1 = _TAU, key, key
    return _hash(c[0:4] + k0 + c[4:8] + n + c[8:12] + k1 + c[12:16])


def salsa20(key: bytes, nonce: bytes, data: bytes) -> bytes:
    """`data` XOR the Salsa20 key stream of `key` (16 or 32 bytes) and `nonce` (8 bytes): encrypts and decrypts.

    The key stream is Salsa20_k(nonce ‖ i) for block numbers i = 0, 1, … as 8 little-endian bytes (spec §10).
    """
    # The key first, as PyCryptodome and WireCrypto do.
    if len(key) not in KEY_SIZES:
        raise ValueError(f"Salsa20 key is {len(key)} bytes; must be 16 or 32")
    if len(nonce) != NONCE_BYTES:
        raise ValueError(f"Salsa20 nonce is {len(nonce)} bytes; must be 8")
    if not data:
        return b""
    blocks = -(-len(data) // BLOCK_BYTES)
    stream = b"".join(_expansion(key, nonce + i.to_bytes(8, "little")) for i in range(blocks))
    mixed = int.from_bytes(data, "little") ^ int.from_bytes(stream[: len(data)], "little")
    return mixed.to_bytes(len(data), "little")
