"""cbc-query-cmac (examples/protocols/cbc-query-cmac.toml), written from the description alone.

HTTP. Two preshared 16-byte secrets: `enc` (--psk: the AES-128 key) and `mac` (--psk2: the AES-CMAC
key), the description's two preshared secrets in file order. Two conversations, each a GET whose
fields travel in the query string (read as Flask's request.args reads it: `+` a space, `%XX` a byte,
UTF-8, the first value of a name):
  GET /cbc-aes/decrypt?iv=B64&encryptedMessage=B64
      iv: the 16-byte IV, base64; encryptedMessage: base64 of AES-128-CBC under `enc` and that IV of
      the client's message padded with the bytes 01 02 … n to the block boundary (n = 1…16, checked
      as PKCS#7 is: n the last byte, every pad byte its place). Any padded UTF-8 text is answered 200
      "Message received and decrypted successfully" (no MAC: a padding oracle by design).
  GET /cbc-aes/mac-decrypt?iv=B64&encryptedMessage=B64&macTag=HEX
      the same two fields, and macTag: hex of AES-CMAC (RFC 4493) under `mac` over the text of the
      encryptedMessage field as sent (the base64 text: encrypt-then-MAC), verified before anything is
      decrypted. Answered 200 "Message received, verified and decrypted successfully".
Every refusal — a field missing, not base64 or not hex, an IV that is not 16 bytes, a ciphertext that is
not whole blocks, a CMAC that does not verify, a bad padding, a plaintext that is not UTF-8 — is answered
500 (the description's error_status) with {"error": "bad request"}, the same for every reason. Other
paths: 404.

Plants (--plant):
  mac-after-decrypt    the mac route decrypts and unpads before it checks the CMAC, and a bad padding gets
                       500 "padding error" where a bad CMAC gets the usual refusal: a padding oracle behind the MAC
  mac-not-checked      the mac route never checks macTag: a message with any tag is answered 200
  padding-oracle-text  the first route answers a bad padding 500 "padding error", other refusals as usual
  pkcs7-padding        both routes take PKCS#7 padding (n bytes of n) where the description's is 01 02 … n
  mac-prefix-compare   the mac route compares only as many CMAC bytes as it was sent (expected[:len(tag)]):
                       an empty or cut macTag is taken
"""

import base64
import binascii
import json
import os
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.exceptions import InvalidSignature  # noqa: E402
from cryptography.hazmat.primitives import cmac  # noqa: E402
from cryptography.hazmat.primitives import padding  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

PLANTS = ("mac-after-decrypt", "mac-not-checked", "padding-oracle-text", "pkcs7-padding", "mac-prefix-compare")
DECRYPTED = b"Message received and decrypted successfully"
VERIFIED = b"Message received, verified and decrypted successfully"
REFUSAL = json.dumps({"error": "bad request"}).encode()
PADDING_ERROR = b"padding error"


class Refused(ValueError):
    pass


class BadPadding(Refused):
    pass


def query_fields(path):
    """The query string as a form reader takes it: the first value of each name."""
    query = urllib.parse.urlsplit(path).query
    return {name: values[0] for name, values in urllib.parse.parse_qs(query, keep_blank_values=True).items()}


def field(fields, name):
    if name not in fields:
        raise Refused("no %s" % name)
    return fields[name]


def base64_field(fields, name):
    try:
        return base64.b64decode(field(fields, name), validate=True)
    except (binascii.Error, ValueError):
        raise Refused("%s is not base64" % name)


def unpad_sequence(padded):
    """01 02 … n to the block boundary: n is the last byte (1…16), the n bytes before the end are 1…n."""
    n = padded[-1]
    if not 1 <= n <= 16 or n > len(padded) or padded[-n:] != bytes(range(1, n + 1)):
        raise BadPadding("bad padding")
    return padded[:-n]


def unpad_pkcs7(padded):
    unpadder = padding.PKCS7(128).unpadder()
    try:
        return unpadder.update(padded) + unpadder.finalize()
    except ValueError:
        raise BadPadding("bad padding")


def decrypt(key, iv, ciphertext, plant):
    if len(iv) != 16:
        raise Refused("an IV of %d bytes" % len(iv))
    if not ciphertext or len(ciphertext) % 16:
        raise Refused("a ciphertext of %d bytes" % len(ciphertext))
    decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    padded = decryptor.update(ciphertext) + decryptor.finalize()
    return unpad_pkcs7(padded) if plant == "pkcs7-padding" else unpad_sequence(padded)


def verify_cmac(key, text, tag_hex, plant=None):
    try:
        tag = bytes.fromhex(tag_hex)
    except ValueError:
        raise Refused("macTag is not hex")
    check = cmac.CMAC(algorithms.AES(key))
    check.update(text.encode("utf-8"))
    if plant == "mac-prefix-compare":
        if check.finalize()[: len(tag)] != tag:
            raise Refused("the CMAC does not verify")
        return
    try:
        check.verify(tag)
    except InvalidSignature:
        raise Refused("the CMAC does not verify")


class Handler(dzoolib.HTTPHandler):
    def do_GET(self):
        args = self.server.args
        self.body()
        route = urllib.parse.urlsplit(self.path).path
        if route not in ("/cbc-aes/decrypt", "/cbc-aes/mac-decrypt"):
            return self.answer(404)
        fields = query_fields(self.path)
        try:
            if route == "/cbc-aes/decrypt":
                answer = DECRYPTED
                plaintext = decrypt(args.psk, base64_field(fields, "iv"), base64_field(fields, "encryptedMessage"),
                                    args.plant)
            else:
                answer = VERIFIED
                if args.plant == "mac-after-decrypt":
                    plaintext = decrypt(args.psk, base64_field(fields, "iv"), base64_field(fields, "encryptedMessage"),
                                        args.plant)
                    verify_cmac(args.psk2, field(fields, "encryptedMessage"), field(fields, "macTag"))
                else:
                    if args.plant != "mac-not-checked":
                        verify_cmac(args.psk2, field(fields, "encryptedMessage"), field(fields, "macTag"), args.plant)
                    plaintext = decrypt(args.psk, base64_field(fields, "iv"), base64_field(fields, "encryptedMessage"),
                                        args.plant)
            text = plaintext.decode("utf-8")
        except BadPadding as refused:
            dzoolib.log("refused: %r" % refused)
            if args.plant == {"/cbc-aes/decrypt": "padding-oracle-text", "/cbc-aes/mac-decrypt": "mac-after-decrypt"}[route]:
                return self.answer(500, PADDING_ERROR, "text/plain")
            return self.answer(500, REFUSAL, "application/json")
        except (Refused, UnicodeDecodeError) as refused:
            dzoolib.log("refused: %r" % refused)
            return self.answer(500, REFUSAL, "application/json")
        dzoolib.log("message: %r" % text)
        self.answer(200, answer, "text/plain")

    def do_POST(self):
        self.body()
        self.answer(405)


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, psk=True, psk2=True)
    if len(args.psk) != 16 or len(args.psk2) != 16:
        raise SystemExit("--psk, --psk2: the description's secrets are 16 bytes (32 hex digits)")
    dzoolib.serve_http(args, Handler)


if __name__ == "__main__":
    dzoolib.main_guard(main)
