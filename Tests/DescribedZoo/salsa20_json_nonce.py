"""salsa20-json-nonce (examples/protocols/salsa20-json-nonce.toml), written from the description alone.

HTTP. POST /message with a JSON body {"message": base64(ciphertext), "nonce": base64(nonce)}: the
message under Salsa20/20 (zoo_salsa20: Bernstein's specification, an 8-byte nonce, the block counter
from 0; no MAC) with the preshared 16-byte key (--psk: "expand 16-byte k", the key twice) and the
8-byte nonce of the "nonce" field. The server decrypts, logs the plaintext and answers 200 with
{"success": true, "message": "Message decrypted on server!"} in the clear. Every refusal — not a
JSON object, a field missing or not base64, a nonce that is not 8 bytes, a plaintext that is not
UTF-8 — is answered 500 (the description's error_status) with {"error": "bad request"}. Other
paths: 404.

Plants (--plant):
  ignores-nonce    decrypts under 8 zero bytes whatever the "nonce" field says (a nonce read but never passed on)
  key-doubled-32   makes the 16-byte key a 32-byte one by repeating it ("expand 32-byte k", as a Salsa20 that takes only 32-byte keys)
  dies-on-refusal  answers the first request it refuses with 500, then the whole server exits
  ok-on-anything   answers every POST /message with the success answer, whatever its body (it never decrypts)
"""

import base64
import binascii
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
import zoo_salsa20  # noqa: E402

PLANTS = ("ignores-nonce", "key-doubled-32", "dies-on-refusal", "ok-on-anything")
ANSWER = json.dumps({"success": True, "message": "Message decrypted on server!"}).encode()
REFUSAL = json.dumps({"error": "bad request"}).encode()


def field(fields, name):
    value = fields[name]
    if not isinstance(value, str):
        raise TypeError("%s is not a string" % name)
    return base64.b64decode(value, validate=True)


class Handler(dzoolib.HTTPHandler):
    def do_POST(self):
        args = self.server.args
        body = self.body()
        if self.path != "/message":
            return self.answer(404)
        if args.plant == "ok-on-anything":
            return self.answer(200, ANSWER, "application/json")
        try:
            fields = json.loads(body)
            if not isinstance(fields, dict):
                raise TypeError("not a JSON object")
            ciphertext, nonce = field(fields, "message"), field(fields, "nonce")
            if len(nonce) != 8:
                raise ValueError("a nonce of %d bytes" % len(nonce))
            key = args.psk
            if args.plant == "ignores-nonce":
                nonce = bytes(8)
            if args.plant == "key-doubled-32":
                key = key + key
            text = zoo_salsa20.salsa20(key, nonce, ciphertext).decode("utf-8")
        except (ValueError, KeyError, TypeError, binascii.Error) as refused:   # UnicodeDecodeError is a ValueError
            dzoolib.log("refused: %r" % refused)
            self.answer(500, REFUSAL, "application/json")
            if args.plant == "dies-on-refusal":
                self.wfile.flush()
                dzoolib.log("dying")
                os._exit(1)
            return
        dzoolib.log("message: %r" % text)
        self.answer(200, ANSWER, "application/json")

    def do_GET(self):
        self.body()
        self.answer(404)


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, psk=True)
    if len(args.psk) != 16:
        raise SystemExit("--psk: the description's key is 16 bytes (32 hex digits)")
    dzoolib.serve_http(args, Handler)


if __name__ == "__main__":
    dzoolib.main_guard(main)
