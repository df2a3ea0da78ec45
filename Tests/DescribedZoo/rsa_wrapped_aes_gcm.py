"""rsa-wrapped-aes-gcm (examples/protocols/rsa-wrapped-aes-gcm.toml), written from the description alone.

Raw TCP, 4-byte big-endian length prefixes. The server sends its public key as SPKI PEM; the client
sends RSA-OAEP-SHA256 of a 32-byte session secret, then nonce (12) || AES-256-GCM ciphertext ||
tag (16) of its message; the server answers the same plaintext under a fresh nonce, same layout,
and closes. Any refusal (a secret that is not 32 bytes, a block or a message that does not
decrypt or authenticate): "ERROR" (framed) and a close.

--delay S or LOW-HIGH: a correct server that takes that long to unwrap (a slow board): its refusal
of a bad key comes after the client's GCM message is sent, and with it unread the close is a reset.

Plants (--plant):
  ignores-tag     decrypts the GCM keystream as plain CTR and never checks the tag: a forged message is answered
  nonce-echo      answers under the client's nonce: the same nonce twice under one key
  reduces-mod-n   takes the wrapped secret modulo n before unwrapping it (pow(c, d, n) with no range
                  check): c + n unwraps as c does (RFC 8017 §5.1.2 step 1 refuses it)
  manger-oracle   refuses at once when the RSA block's first byte is not 0, and otherwise goes on with
                  a random secret, so its refusal comes only after the sealed message: when the
                  "ERROR" arrives tells an attacker which ciphertexts begin with 0 (Manger 2001)
  zero-key-silent  as zero-key-sentinel, but a message under the zero key is not answered: the server
                  closes without a word, where under any other key it says "ERROR" (the close tells)
  zero-key-manger  a block whose first byte is not 0 gets a random secret, any other bad one 32 zero bytes:
                  a message under the zero key is answered after a block that begins with 0 only (Manger)
  zero-key-sentinel  goes on with 32 zero bytes as the secret when the wrapped key does not unwrap to 32
                  bytes (a constant sentinel, PyCryptodome's decrypt(ciphertext, sentinel) with fixed bytes): a message
                  sealed under the zero key is answered after a bad padding only (RFC 3218 §2.3.2 wants a
                  random one)
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.exceptions import InvalidTag  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: E402

PLANTS = ("ignores-tag", "nonce-echo", "reduces-mod-n", "manger-oracle", "zero-key-sentinel", "zero-key-silent", "zero-key-manger")
OAEP_SHA256 = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, key=True, delay=True)
    key = dzoolib.rsa_private_key(args.key, args.bits)
    pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)

    numbers = key.private_numbers()
    n, d, k = numbers.public_numbers.n, numbers.d, (key.key_size + 7) // 8

    def unwrap(wrapped):
        time.sleep(args.delay())
        if args.plant == "reduces-mod-n" and len(wrapped) == k:
            wrapped = (int.from_bytes(wrapped, "big") % n).to_bytes(k, "big")
        elif args.plant == "manger-oracle" and len(wrapped) == k and int.from_bytes(wrapped, "big") < n:
            if pow(int.from_bytes(wrapped, "big"), d, n) >> (8 * (k - 1)) != 0:
                raise ValueError("the block's first byte is not 0")
            try:
                return key.decrypt(wrapped, OAEP_SHA256)
            except ValueError:
                return os.urandom(32)
        if args.plant == "zero-key-manger" and len(wrapped) == k and int.from_bytes(wrapped, "big") < n:
            if pow(int.from_bytes(wrapped, "big"), d, n) >> (8 * (k - 1)) != 0:
                return os.urandom(32)
        if args.plant in ("zero-key-sentinel", "zero-key-silent", "zero-key-manger"):  # any secret it cannot use
            try:
                secret = key.decrypt(wrapped, OAEP_SHA256)
            except ValueError:
                secret = b""
            return secret if len(secret) == 32 else bytes(32)
        return key.decrypt(wrapped, OAEP_SHA256)

    def converse(sock, _address):
        wire = dzoolib.Wire(sock, framing="length-prefix", length_bytes=4)
        wire.send(pem)
        try:
            secret = unwrap(wire.recv())
            if len(secret) != 32:
                raise ValueError("secret of %d bytes" % len(secret))
            sealed = wire.recv()
            if len(sealed) < 28:
                raise ValueError("message shorter than nonce and tag")
            nonce = sealed[:12]
            if args.plant == "ignores-tag":
                worker = Cipher(algorithms.AES(secret), modes.CTR(nonce + b"\x00\x00\x00\x02")).decryptor()
                message = worker.update(sealed[12:-16]) + worker.finalize()
            else:
                message = AESGCM(secret).decrypt(nonce, sealed[12:], None)
        except (ValueError, InvalidTag) as refused:
            dzoolib.log("refused: %r" % refused)
            wire.send(b"ERROR")
            return
        if args.plant == "zero-key-silent" and secret == bytes(32):
            return  # closes without a word
        out = nonce if args.plant == "nonce-echo" else os.urandom(12)
        wire.send(out + AESGCM(secret).encrypt(out, message, None))

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
