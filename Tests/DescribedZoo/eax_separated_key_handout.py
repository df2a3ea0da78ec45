"""eax-separated-key-handout (examples/protocols/eax-separated-key-handout.toml), written from the description alone.

HTTP. The device's 16-byte key is preshared (--psk). POST /generate_key with the JSON body
{"id": "client"} (the one device whose key this server holds): the server makes a fresh 32-byte
session key and answers 200 with base64(nonce "::" tag "::" ciphertext), AES-EAX (zoo_eax:
PyCryptodome's MODE_EAX defaults, a 16-byte nonce, a 16-byte tag, no header) under the device key
of the JSON object {"key": base64(session key), "idB": "client", "randomA": <a random integer>};
it seals again under a fresh nonce until no part holds "::". It keeps the session key it last
handed out for that device id. POST /aes/client with the raw body nonce::tag::ciphertext (not
base64), AES-EAX under that session key: split on "::", exactly three parts, a 16-byte nonce and tag,
the tag verified; the server answers 200 {"message": <the plaintext, UTF-8 text>} in the clear.
Anything it cannot read, that does not authenticate or is not UTF-8, an unknown device id, or an
/aes/ request before a key was handed out: 400 {"error": "bad request"}. Other paths: 404.

Plants (--plant):
  tag-unchecked     decrypts /aes/client's ciphertext with EAX's counter mode alone and never verifies the tag
                    (PyCryptodome's `cipher.decrypt(ciphertext)` without `verify(tag)`): a forged message is answered
  same-session-key  makes one session key when it starts and hands out that one on every /generate_key
  answers-500       no error handling: everything it refuses (a bad tag, a body it cannot read) is an unhandled
                    exception, answered 500 Internal Server Error as Flask does, where the description's refusal is 400
  nonce-fixed       seals every handout under one constant 16-byte nonce (`AES.new(key, AES.MODE_EAX, nonce=NONCE)`):
                    one nonce, many plaintexts under the device key
  key-hex           writes the session key in the sealed JSON as hex (`key.hex()`) where the description says base64:
                    64 characters that base64-decode to 48 bytes, no 32-byte key
  tag-prefix-compare  checks /aes/client's tag as `expected[:len(tag)] == tag`, over the bytes sent: a tag cut
                    short, or an empty one, is taken (a 1-byte tag is forged in 256 tries)
"""

import base64
import binascii
import json
import os
import secrets
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
import zoo_eax  # noqa: E402

PLANTS = ("tag-unchecked", "same-session-key", "answers-500", "nonce-fixed", "key-hex", "tag-prefix-compare")
DEVICE = "client"                  # the one device id whose preshared key this server holds
SEPARATOR = b"::"
FIXED_NONCE = b"seguridad-nonce!"  # the nonce-fixed plant's constant (16 bytes, no "::")
REFUSAL = json.dumps({"error": "bad request"}).encode()
PROCESS_KEY = os.urandom(32)       # the same-session-key plant's one key


class Refused(ValueError):
    pass


class Handler(dzoolib.HTTPHandler):
    sessions = {}                  # device id -> the session key last handed out for it
    lock = threading.Lock()

    def refuse(self, reason):
        dzoolib.log("refused: %r" % (reason,))
        if self.server.args.plant == "answers-500":
            return self.answer(500, b"<h1>Internal Server Error</h1>", "text/html")
        return self.answer(400, REFUSAL, "application/json")

    def do_POST(self):
        body = self.body()
        if self.path == "/generate_key":
            return self.generate_key(body)
        if self.path.startswith("/aes/"):
            return self.aes(self.path[len("/aes/"):], body)
        return self.answer(404)

    def do_GET(self):
        self.answer(404)

    def generate_key(self, body):
        args = self.server.args
        try:
            request = json.loads(body)
            if not isinstance(request, dict) or request.get("id") != DEVICE:
                raise Refused("no known device id")
        except (ValueError, UnicodeDecodeError) as refused:
            return self.refuse(refused)
        for _ in range(100):
            key = PROCESS_KEY if args.plant == "same-session-key" else os.urandom(32)
            written = key.hex() if args.plant == "key-hex" else base64.b64encode(key).decode()
            plaintext = json.dumps({"key": written, "idB": DEVICE, "randomA": secrets.randbelow(2 ** 31)}).encode()
            try:
                nonce = FIXED_NONCE if args.plant == "nonce-fixed" else None
                sealed = zoo_eax.seal_separated(args.psk, plaintext, SEPARATOR, nonce=nonce)
                break
            except ValueError:       # the fixed nonce's one try held "::": draw another randomA
                continue
        with self.lock:
            self.sessions[DEVICE] = key
        self.answer(200, base64.b64encode(sealed), "text/plain")

    def aes(self, device, body):
        args = self.server.args
        with self.lock:
            key = self.sessions.get(device)
        try:
            if key is None:
                raise Refused("no session key handed out for %r" % device)
            if args.plant == "tag-unchecked":
                parts = body.split(SEPARATOR)
                if len(parts) != 3 or len(parts[0]) != zoo_eax.NONCE:
                    raise Refused("not nonce::tag::ciphertext")
                plaintext = zoo_eax.decrypt_unverified(key, parts[0], parts[2])
            elif args.plant == "tag-prefix-compare":
                parts = body.split(SEPARATOR)
                if len(parts) != 3 or len(parts[0]) != zoo_eax.NONCE:
                    raise Refused("not nonce::tag::ciphertext")
                nonce, tag, ciphertext = parts
                plaintext = zoo_eax.decrypt_unverified(key, nonce, ciphertext)
                if zoo_eax.encrypt(key, nonce, plaintext)[1][:len(tag)] != tag:
                    raise Refused("the tag does not match")
            else:
                plaintext = zoo_eax.open_separated(key, body, SEPARATOR)
            text = plaintext.decode("utf-8")
        except (ValueError, binascii.Error) as refused:     # zoo_eax.InvalidTag, UnicodeDecodeError are ValueErrors
            return self.refuse(refused)
        self.answer(200, json.dumps({"message": text}).encode(), "application/json")


def main():
    dzoolib.serve_http(dzoolib.arguments(__doc__.splitlines()[0], PLANTS, psk=True), Handler)


if __name__ == "__main__":
    dzoolib.main_guard(main)
