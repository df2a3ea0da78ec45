"""fernet-json-reading (examples/protocols/fernet-json-reading.toml), written from the description alone.

Raw TCP, legacy framing (one send per message). The client sends one Fernet token (the preshared
32-byte Fernet key, --psk: 16 signing bytes then 16 encryption bytes, i.e. Fernet(base64url(psk)))
of a JSON object with at least the number fields "temperatura" and "umidade". The server answers a
Fernet token of the text "Dados registrados com sucesso" under the same key and closes. The
description has no `error`: a token that does not verify, or a reading that is not such an object,
is refused by closing without an answer.

Plants (--plant):
  answer-in-clear   answers the text "Dados registrados com sucesso" itself, not a Fernet token of it
  stays-open        answers, then keeps the connection open (the description says then = "close")
  accepts-bad-hmac  never checks the token's HMAC (decrypts its AES-128-CBC part directly): a forged token is answered
"""

import base64
import binascii
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.fernet import Fernet, InvalidToken  # noqa: E402
from cryptography.hazmat.primitives import padding  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

PLANTS = ("answer-in-clear", "stays-open", "accepts-bad-hmac")
ANSWER = "Dados registrados com sucesso".encode("utf-8")
FIELDS = ("temperatura", "umidade")


def without_hmac(key, token):
    """The plant's decryption: the token's layout (0x80, 8-byte time, 16-byte IV, CBC, 32-byte HMAC), HMAC unread."""
    raw = base64.urlsafe_b64decode(token)
    if len(raw) < 1 + 8 + 16 + 16 + 32 or raw[0] != 0x80 or (len(raw) - 57) % 16:
        raise ValueError("not a Fernet token")
    decryptor = Cipher(algorithms.AES(key[16:]), modes.CBC(raw[9:25])).decryptor()
    padded = decryptor.update(raw[25:-32]) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    return unpadder.update(padded) + unpadder.finalize()


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, psk=True)
    if len(args.psk) != 32:
        raise SystemExit("--psk: a Fernet key is 32 bytes (64 hex digits)")
    fernet = Fernet(base64.urlsafe_b64encode(args.psk))

    def reading(token):
        if args.plant == "accepts-bad-hmac":
            plaintext = without_hmac(args.psk, token)
        else:
            plaintext = fernet.decrypt(token)
        values = json.loads(plaintext)
        if not isinstance(values, dict) or not all(is_number(values.get(name)) for name in FIELDS):
            raise ValueError("not a reading with number fields temperatura and umidade")
        return values

    def converse(sock, address):
        wire = dzoolib.Wire(sock)
        try:
            values = reading(wire.recv())
        except (InvalidToken, ValueError, TypeError, binascii.Error) as refused:
            dzoolib.log("refused %s: %r" % (address, refused))
            return  # no `error` in the description: a refusal closes without an answer
        dzoolib.log("reading from %s: %r" % (address, values))
        wire.send(ANSWER if args.plant == "answer-in-clear" else fernet.encrypt(ANSWER))
        if args.plant == "stays-open":
            try:
                while True:
                    wire.recv()
            except dzoolib.PeerGone:
                pass

    dzoolib.serve_tcp(args, converse)


if __name__ == "__main__":
    dzoolib.main_guard(main)
