"""ecdh-gcm-hmac-frames (examples/protocols/ecdh-gcm-hmac-frames.toml), written from the description alone.

Raw TCP, legacy framing. The client sends its P-256 public key as SubjectPublicKeyInfo PEM (a message
that ends at a quiet gap); the server loads it (a point off the curve is refused: pyca checks it),
answers its own fresh P-256 key the same way, and both derive HKDF-SHA256 of the ECDH shared secret
(RFC 5869; no salt, info "SecureX-v1") of 64 bytes: the AES-256 key is bytes 0-31, the HMAC-SHA256
key bytes 32-63. Then frames: a type byte, a 4-byte big-endian length, the payload. Type 1: nonce (12)
‖ AES-GCM ciphertext ‖ tag (16) ‖ HMAC-SHA256 over nonce ‖ ciphertext ‖ tag (32): the HMAC is
verified (in constant time) before the GCM box is opened; the message is logged; no answer. Type 2,
payload "close": the connection ends. The description has no `error`: anything that does not check
closes the connection without an answer; the server goes on. A thread per connection.

Plants (--plant; the server answers no frame, so a flaw in how it reads one shows only in its log —
what `remote` can judge is the key exchange and whether the server stays up):
  pem-lf-only          the client's PEM key is taken only with "\n" line ends (a hand-written reader):
                       one written with "\r\n", as an iOS or Windows client may, is refused
  crashes-on-bad-key   a client key that does not load ends the whole server (the source's load is
                       outside its except)
  serves-once          serves the first connection, then the whole server exits
"""

import hmac
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.exceptions import InvalidTag  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives import hmac as pyca_hmac  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: E402
from cryptography.hazmat.primitives.kdf.hkdf import HKDF  # noqa: E402

PLANTS = ("pem-lf-only", "crashes-on-bad-key", "serves-once")


class Refused(Exception):
    """A message the server refuses (by closing without an answer); the text is the reason."""


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS)

    def keys(client_pem):
        if args.plant == "pem-lf-only" and b"\r" in client_pem:
            raise Refused("a PEM key with \\r in it (the pem-lf-only plant)")
        try:
            client = serialization.load_pem_public_key(client_pem)
        except ValueError as unusable:
            raise Refused("a client key that does not load: %s" % unusable)
        if not isinstance(client, ec.EllipticCurvePublicKey) or client.curve.name != "secp256r1":
            raise Refused("not a P-256 key")
        own = ec.generate_private_key(ec.SECP256R1())
        shared = own.exchange(ec.ECDH(), client)
        material = HKDF(algorithm=hashes.SHA256(), length=64, salt=None, info=b"SecureX-v1").derive(shared)
        pem = own.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        return pem, material[:32], material[32:]

    def opened(payload, aes_key, mac_key):
        if len(payload) < 12 + 16 + 32:
            raise Refused("a payload of %d bytes" % len(payload))
        box, code = payload[:-32], payload[-32:]
        mac = pyca_hmac.HMAC(mac_key, hashes.SHA256())
        mac.update(box)
        if not hmac.compare_digest(mac.finalize(), code):
            raise Refused("the HMAC does not verify")
        try:
            return AESGCM(aes_key).decrypt(box[:12], box[12:], None)
        except InvalidTag:
            raise Refused("the GCM tag does not verify")

    def converse(sock, address):
        wire = dzoolib.Wire(sock)
        try:
            try:
                pem, aes_key, mac_key = keys(wire.recv())
            except Refused:
                if args.plant == "crashes-on-bad-key":
                    dzoolib.log("the crashes-on-bad-key plant: exiting")
                    sock.close()
                    os._exit(1)
                raise
            wire.send(pem)
            while True:
                kind, length = struct.unpack("!BI", wire.recv(known=5))
                payload = wire.recv(known=length) if length else b""
                if kind == 1:
                    dzoolib.log("message from %s: %r" % (address, opened(payload, aes_key, mac_key)))
                elif kind == 2:
                    dzoolib.log("close from %s" % (address,))
                    return
                else:
                    raise Refused("a frame of type %d" % kind)
        except Refused as refused:
            dzoolib.log("refused %s: %s" % (address, refused))
        finally:
            dzoolib.exit_if_served_once(args, sock)

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
