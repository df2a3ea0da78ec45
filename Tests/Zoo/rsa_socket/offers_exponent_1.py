"""rsa-socket, BROKEN: the server's own public key has e = 1.

Plants: `public_key=` carries the server's real modulus with the exponent 1 (a key file damaged or
made by hand), which is no RSA key (RFC 8017 §3.1: 3 ≤ e < n): whatever a client "encrypts" to it
is the padded message in the clear. Every `encrypted_message=` that reaches it is logged on stderr
(`received encrypted_message: <hex>`), so a test can show a client sent it nothing.

Expected verdict: fail, naming "e = 1" (crosscheck's client refuses the key and sends nothing).
"""

import sys

import base_server
import zoolib


def exponent_one_spki_pem(public_key):
    """SPKI PEM of (n, 1), written out by hand: no library makes such a key."""

    def tlv(tag, content):
        size = len(content)
        if size < 0x80:
            return bytes([tag, size]) + content
        length = size.to_bytes((size.bit_length() + 7) // 8, "big")
        return bytes([tag, 0x80 | len(length)]) + length + content

    def integer(value):
        return tlv(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big"))

    n = public_key.public_numbers().n
    algorithm = bytes.fromhex("300d06092a864886f70d0101010500")
    der = tlv(0x30, algorithm + tlv(0x03, b"\x00" + tlv(0x30, integer(n) + integer(1))))
    return zoolib.pem("PUBLIC KEY", der)


class OffersExponentOne(base_server.Conversation):
    def converse(self):
        kind, payload = self.read_message()
        if kind != "hello":
            return super().converse()
        self.send(b"public_key=" + exponent_one_spki_pem(self.private_key.public_key()))
        kind, payload = self.read_message()
        if kind == "ciphertext":
            print("received encrypted_message: %s" % payload.hex(), file=sys.stderr, flush=True)
            self.send(b"Server: OK")
        raise base_server.Refusal("conversation over", answer=None)


if __name__ == "__main__":
    base_server.main(OffersExponentOne, __doc__)
