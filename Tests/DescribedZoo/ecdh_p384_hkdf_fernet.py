"""ecdh-p384-hkdf-fernet (examples/protocols/ecdh-p384-hkdf-fernet.toml), written from the description alone.

Raw TCP, legacy framing (one send per message; a message of unknown length ends at a quiet gap).
The client speaks first: its P-384 public key as SubjectPublicKeyInfo PEM (one PEM block, at most a
line end after it; a point on P-384, as pyca checks at load). The server answers its own P-384 SPKI
PEM, from a key pair made fresh for this conversation. Both sides then hold the session secret:
ECDH (SEC 1 v2 §3.3.1: the shared point's x-coordinate, 48 bytes) through
HKDF(SHA-256, length=32, salt=None, info=b"handshake data") (RFC 5869). The client sends a Fernet
token (Fernet(base64url(secret)): 16 signing + 16 encryption bytes) of its message; the server
answers a Fernet token of the same plaintext under the same key and closes. The description has no
`error`: any refusal (a key that is not one P-384 SPKI PEM, a point off the curve, a token that does
not verify) closes the connection without a word.

Plants (--plant):
  no-point-check  reads the client's SPKI by hand (04 || X || Y from the BIT STRING) without checking
                  that (X, Y) is on P-384, and multiplies it by its own scalar with its own P-384
                  arithmetic (p384_ecdh below): an off-curve key is answered with the server's PEM as a
                  good one is (an invalid-curve attack's precondition: SEC 1 v2 §3.2.2.1, NIST SP 800-56A
                  Rev. 3 §5.6.2.3.3-4; as tinyec, which only warns). For a point on the curve it agrees
                  with pyca
  static-key      one server key pair, made at start, for every conversation (no forward secrecy)
  no-info         derives with HKDF info=b"" instead of b"handshake data": a correct client's token is refused
  sha256-of-x     takes SHA-256 of the shared secret as the key instead of HKDF: a correct client's token is refused
"""

import base64
import binascii
import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.exceptions import UnsupportedAlgorithm  # noqa: E402
from cryptography.fernet import Fernet, InvalidToken  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.hazmat.primitives.kdf.hkdf import HKDF  # noqa: E402

PLANTS = ("no-point-check", "static-key", "no-info", "sha256-of-x")
INFO = b"handshake data"
PEM_BEGIN, PEM_END = b"-----BEGIN PUBLIC KEY-----", b"-----END PUBLIC KEY-----"

# ---- P-384 by hand, for the no-point-check plant ---------------------------------------------------
# secp384r1 = NIST P-384: SEC 2 v2 (Certicom, 2010) §2.5.1, the curve y^2 = x^3 + a x + b over F_p
# with a = p - 3; the same numbers as NIST SP 800-186 §3.2.1.4 (FIPS 186-5 §6.1.1 takes its curves
# from there).
P = 2 ** 384 - 2 ** 128 - 2 ** 96 + 2 ** 32 - 1
assert P == 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFFFF0000000000000000FFFFFFFF
A = P - 3
B = 0xB3312FA7E23EE7E4988E056BE3F82D19181D9C6EFE8141120314088F5013875AC656398D8A2ED19D2A85C8EDD3EC2AEF
GX = 0xAA87CA22BE8B05378EB1C71EF320AD746E1D3B628BA79B9859F741E082542A385502F25DBF55296C3A545E3872760AB7
GY = 0x3617DE4A96262C6F5D9E98BF9292DC29F8F41DBD289A147CE9DA3113B5F0B8C00A60B1CE1D7E819D7A431D7C90EA0E5F
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF581A0DB248B0A77AECEC196ACCC52973
SIZE = 48            # bytes of a coordinate, of the shared secret

# DER of SubjectPublicKeyInfo's AlgorithmIdentifier for an EC key on P-384 (RFC 5480 §2.1.1):
# SEQUENCE { OID id-ecPublicKey 1.2.840.10045.2.1, OID secp384r1 1.3.132.0.34 }
EC_P384_ALGORITHM = bytes.fromhex("301006072a8648ce3d020106052b81040022")


def on_curve(x, y):
    return 0 <= x < P and 0 <= y < P and (y * y - (x * x * x + A * x + B)) % P == 0


def _double(point):
    """Jacobian doubling for a = -3 (dbl-2001-b, Bernstein-Lange EFD); b is never used, as in any such
    formula: that is why an unchecked point off the curve is multiplied on another curve."""
    x1, y1, z1 = point
    if z1 == 0 or y1 == 0:
        return (1, 1, 0)
    delta = z1 * z1 % P
    gamma = y1 * y1 % P
    beta = x1 * gamma % P
    alpha = 3 * (x1 - delta) * (x1 + delta) % P
    x3 = (alpha * alpha - 8 * beta) % P
    z3 = ((y1 + z1) ** 2 - gamma - delta) % P
    y3 = (alpha * (4 * beta - x3) - 8 * gamma * gamma) % P
    return (x3, y3, z3)


def _add(one, two):
    """Jacobian addition (add-2007-bl, Bernstein-Lange EFD)."""
    x1, y1, z1 = one
    x2, y2, z2 = two
    if z1 == 0:
        return two
    if z2 == 0:
        return one
    z1z1, z2z2 = z1 * z1 % P, z2 * z2 % P
    u1, u2 = x1 * z2z2 % P, x2 * z1z1 % P
    s1, s2 = y1 * z2 * z2z2 % P, y2 * z1 * z1z1 % P
    if u1 == u2:
        return _double(one) if s1 == s2 else (1, 1, 0)
    h = (u2 - u1) % P
    i = (2 * h) ** 2 % P
    j = h * i % P
    r = 2 * (s2 - s1) % P
    v = u1 * i % P
    x3 = (r * r - j - 2 * v) % P
    y3 = (r * (v - x3) - 2 * s1 * j) % P
    z3 = ((z1 + z2) ** 2 - z1z1 - z2z2) * h % P
    return (x3, y3, z3)


def multiply(k, x, y):
    """k * (x, y) by double-and-add (left to right; not constant time: a test server's), in affine
    coordinates, or None for the point at infinity. (x, y) is NOT checked to be on the curve."""
    result = (1, 1, 0)
    base = (x % P, y % P, 1)
    for bit in bin(k)[2:]:
        result = _double(result)
        if bit == "1":
            result = _add(result, base)
    rx, ry, rz = result
    if rz == 0:
        return None
    zinv = pow(rz, -1, P)
    return (rx * zinv * zinv % P, ry * zinv * zinv * zinv % P)


def p384_ecdh(private_value, x, y):
    """The ECDH shared secret (SEC 1 v2 §3.3.1: the x-coordinate of d * Q, 48 bytes big-endian) of the
    scalar `private_value` and the point (x, y), which is taken as it is."""
    shared = multiply(private_value, x, y)
    if shared is None:
        raise ValueError("the shared point is the point at infinity")
    return shared[0].to_bytes(SIZE, "big")


def _der(data, tag):
    """(the contents of the DER element of `tag` at the start of `data`, the bytes after it)."""
    if len(data) < 2 or data[0] != tag:
        raise ValueError("expected DER tag 0x%02x" % tag)
    length, at = data[1], 2
    if length & 0x80:
        count = length & 0x7F
        if count not in (1, 2) or len(data) < 2 + count:
            raise ValueError("DER length")
        length, at = int.from_bytes(data[2:2 + count], "big"), 2 + count
        if length < 0x80 or (count == 2 and length < 0x100):
            raise ValueError("DER length not minimal")
    if len(data) < at + length:
        raise ValueError("DER cut short")
    return data[at:at + length], data[at + length:]


def spki_point_by_hand(pem):
    """(X, Y) from a P-384 SubjectPublicKeyInfo PEM, read by hand: the OIDs and the uncompressed
    point's form are checked, that the point is on the curve is not (the plant)."""
    body = pem.strip()
    if not body.startswith(PEM_BEGIN) or not body.endswith(PEM_END):
        raise ValueError("not one PUBLIC KEY PEM block")
    der = base64.b64decode(body[len(PEM_BEGIN):-len(PEM_END)].replace(b"\r", b"").replace(b"\n", b""), validate=True)
    spki, rest = _der(der, 0x30)
    if rest:
        raise ValueError("bytes after the SubjectPublicKeyInfo")
    algorithm, rest = _der(spki, 0x30)
    if algorithm != EC_P384_ALGORITHM[2:]:
        raise ValueError("not an EC key on P-384")
    bits, rest = _der(rest, 0x03)
    if rest or len(bits) != 2 + 2 * SIZE or bits[0] != 0 or bits[1] != 0x04:
        raise ValueError("not an uncompressed P-384 point")
    return int.from_bytes(bits[2:2 + SIZE], "big"), int.from_bytes(bits[2 + SIZE:], "big")


# ---- the server -------------------------------------------------------------------------------------

def one_pem_block(data):
    """The description's key rule: one PEM block, at most a line end after its END line."""
    if data.count(b"-----BEGIN") != 1 or not data.startswith(PEM_BEGIN):
        return False
    end = data.find(PEM_END)
    return end >= 0 and data[end + len(PEM_END):] in (b"", b"\n", b"\r\n", b"\r")


def session_key(shared, plant=None):
    """The 32-byte Fernet key from the ECDH shared secret."""
    if plant == "sha256-of-x":
        return hashlib.sha256(shared).digest()
    info = b"" if plant == "no-info" else INFO
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(shared)


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS)
    process_key = ec.generate_private_key(ec.SECP384R1())        # static-key's one key

    def converse(sock, address):
        wire = dzoolib.Wire(sock)
        pem = wire.recv()
        key = process_key if args.plant == "static-key" else ec.generate_private_key(ec.SECP384R1())
        try:
            if not one_pem_block(pem):
                raise ValueError("not one SPKI PEM block")
            if args.plant == "no-point-check":
                x, y = spki_point_by_hand(pem)
                shared = p384_ecdh(key.private_numbers().private_value, x, y)
            else:
                client = serialization.load_pem_public_key(pem)          # pyca checks the point at load
                if not isinstance(client, ec.EllipticCurvePublicKey) or not isinstance(client.curve, ec.SECP384R1):
                    raise ValueError("not an EC key on P-384")
                shared = key.exchange(ec.ECDH(), client)
        except (ValueError, TypeError, binascii.Error, UnsupportedAlgorithm) as refused:
            dzoolib.log("refused the key of %s: %r" % (address, refused))
            return  # no `error` in the description: a refusal closes without a word
        wire.send(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                serialization.PublicFormat.SubjectPublicKeyInfo))
        fernet = Fernet(base64.urlsafe_b64encode(session_key(shared, args.plant)))
        try:
            message = fernet.decrypt(wire.recv())
        except InvalidToken:
            dzoolib.log("refused the token of %s" % (address,))
            return
        dzoolib.log("message from %s: %r" % (address, message))
        wire.send(fernet.encrypt(message))

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
