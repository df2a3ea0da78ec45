"""ecdsa-signed-message (examples/protocols/ecdsa-signed-message.toml), written from the description alone.

HTTP. POST /message with a JSON body {"message": <text>, "signature": base64(signature)}: the message
travels in the clear; the signature is ECDSA over NIST P-256 with SHA-256 of the UTF-8 bytes of the
"message" text, made with the client's private key (key "signer", holder = "client", preshared) and
written as r || s, 32 bytes each, big-endian (64 bytes, not DER). The server holds the client's public
key (--ec-public PEM_FILE, SubjectPublicKeyInfo; the format does not say where a preshared key comes
from) and verifies:
  verifies             200 {"success": true, "message": "The message is authentic!"}
  does not verify      200 {"success": false, "message": "The message is not authentic!"} (the description's
                       refusal of kind "authentication": answered 200, told apart by its body; an r or s
                       of 0 or not below the group order is a signature that does not verify)
  any other refusal    500 {"success": false, "message": "Internal Server Error."} (error_status = 500): a
                       body that is not a JSON object, "message" or "signature" missing or not a string, a
                       signature that is not base64 or not 64 bytes, a text that is not UTF-8 encodable
Every answer is application/json. Other paths: 404. Nothing in the signed text is fresh: a recorded
request verifies again (the description's own weakness, kept).

Plants (--plant):
  accepts-any-signature  never verifies: every well-formed request is answered the success JSON
  der-signature          verifies the signature bytes as DER (X9.62 Ecdsa-Sig-Value) instead of r || s:
                         a correct client's raw signature is answered not authentic, a DER one authentic
  refusal-401            a signature that does not verify is answered 401 {"error": "unauthorized"}
                         instead of the description's 200 not-authentic body
"""

import base64
import binascii
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dzoolib  # noqa: E402
from cryptography.exceptions import InvalidSignature  # noqa: E402
from cryptography.hazmat.primitives import hashes  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature  # noqa: E402

PLANTS = ("accepts-any-signature", "der-signature", "refusal-401")
SIZE = 32            # P-256: r and s are 32 bytes each
AUTHENTIC = json.dumps({"success": True, "message": "The message is authentic!"}).encode()
NOT_AUTHENTIC = json.dumps({"success": False, "message": "The message is not authentic!"}).encode()
INTERNAL_ERROR = json.dumps({"success": False, "message": "Internal Server Error."}).encode()
UNAUTHORIZED = json.dumps({"error": "unauthorized"}).encode()       # refusal-401's answer


def text_field(fields, name):
    value = fields[name]
    if not isinstance(value, str):
        raise TypeError("%s is not a string" % name)
    return value


def request(body, plant):
    """(the message's UTF-8 bytes, the signature's bytes) of a well-formed body; raises otherwise."""
    fields = json.loads(body)
    if not isinstance(fields, dict):
        raise TypeError("not a JSON object")
    text = text_field(fields, "message").encode("utf-8")       # a lone surrogate: UnicodeEncodeError, a ValueError
    signature = base64.b64decode(text_field(fields, "signature"), validate=True)
    if plant != "der-signature" and len(signature) != 2 * SIZE:
        raise ValueError("a signature of %d bytes" % len(signature))
    return text, signature


def verify(public, text, signature, plant):
    """Raises InvalidSignature when `signature` is not the signer's over `text`."""
    if plant == "der-signature":
        der = signature                                              # the plant: the bytes taken as DER
    else:
        der = encode_dss_signature(int.from_bytes(signature[:SIZE], "big"), int.from_bytes(signature[SIZE:], "big"))
    public.verify(der, text, ec.ECDSA(hashes.SHA256()))


class Handler(dzoolib.HTTPHandler):
    def do_POST(self):
        args = self.server.args
        body = self.body()
        if self.path != "/message":
            return self.answer(404)
        try:
            text, signature = request(body, args.plant)
        except (ValueError, KeyError, TypeError, binascii.Error) as refused:   # JSONDecodeError is a ValueError
            dzoolib.log("refused: %r" % refused)
            return self.answer(500, INTERNAL_ERROR, "application/json")
        if args.plant != "accepts-any-signature":
            try:
                verify(args.ec_public, text, signature, args.plant)
            except InvalidSignature:
                dzoolib.log("not authentic: %r" % text.decode("utf-8"))
                if args.plant == "refusal-401":
                    return self.answer(401, UNAUTHORIZED, "application/json")
                return self.answer(200, NOT_AUTHENTIC, "application/json")
        dzoolib.log("message: %r" % text.decode("utf-8"))
        self.answer(200, AUTHENTIC, "application/json")

    def do_GET(self):
        self.body()
        self.answer(404)


def main():
    args = dzoolib.arguments(__doc__.splitlines()[0], PLANTS, ec_public=True)
    if not isinstance(args.ec_public.curve, ec.SECP256R1):
        raise SystemExit("--ec-public: the description's key is P-256 (secp256r1), not %s" % args.ec_public.curve.name)
    dzoolib.serve_http(args, Handler)


if __name__ == "__main__":
    dzoolib.main_guard(main)
