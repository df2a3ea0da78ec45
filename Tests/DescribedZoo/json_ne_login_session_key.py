"""json-ne-login-session-key (examples/protocols/json-ne-login-session-key.toml), from the description alone.

HTTP. POST /login with a JSON body {"n": <integer>, "e": <integer>}: the client's RSA public key.
The server makes a fresh 16-byte session secret and answers 200 with {"session_key":
base64(RSA PKCS#1 v1.5 of the secret to the client's key)}. A body that is not such a key, or a key
that is no sound RSA key (e < 3, e even, n under 1024 bits or even): 401. Other paths: 404.

Plants (--plant):
  static-session-key   the same session secret for every login
  accepts-exponent-1   takes a key with e = 1 and "encrypts" to it: the padded secret goes in the clear
"""

import base64
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding, rsa  # noqa: E402

PLANTS = ("static-session-key", "accepts-exponent-1")
STATIC = os.urandom(16)


def pkcs1_type2(message, k):
    """EME-PKCS1-v1_5 padding (for the planted textbook path only)."""
    ps = b""
    while len(ps) < k - 3 - len(message):
        ps += bytes(b for b in os.urandom(k) if b)
    return b"\x00\x02" + ps[:k - 3 - len(message)] + b"\x00" + message


class Handler(dzoolib.HTTPHandler):
    def do_POST(self):
        plant = self.server.args.plant
        body = self.body()
        if self.path != "/login":
            return self.answer(404)
        try:
            fields = json.loads(body)
            n, e = fields["n"], fields["e"]
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in (n, e)):
                raise ValueError("n and e must be integers")
            if n.bit_length() < 1024 or n % 2 == 0:
                raise ValueError("n of %d bits" % n.bit_length())
            if e == 1 and plant == "accepts-exponent-1":
                secret = STATIC if plant == "static-session-key" else os.urandom(16)
                k = (n.bit_length() + 7) // 8
                block = pow(int.from_bytes(pkcs1_type2(secret, k), "big"), e, n).to_bytes(k, "big")
            else:
                if e < 3 or e % 2 == 0 or e >= n:
                    raise ValueError("e = %d" % e)
                key = rsa.RSAPublicNumbers(e, n).public_key()
                secret = STATIC if plant == "static-session-key" else os.urandom(16)
                block = key.encrypt(secret, padding.PKCS1v15())
        except (ValueError, KeyError, TypeError) as refused:
            dzoolib.log("refused: %s" % refused)
            return self.answer(401)
        answer = json.dumps({"session_key": base64.b64encode(block).decode()}).encode()
        self.answer(200, answer, "application/json")

    def do_GET(self):
        self.answer(404)


def main():
    dzoolib.serve_http(dzoolib.arguments(__doc__.splitlines()[0], PLANTS), Handler)


if __name__ == "__main__":
    dzoolib.main_guard(main)
