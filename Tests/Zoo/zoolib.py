"""The little every zoo server shares: its command line, the LISTENING line, keys and certificates.

Only plumbing lives here, never protocol logic: each server speaks rsa-socket or aes-https in its
own way, written from docs/PROTOCOL.md. Debian's /usr/bin/python3 with python3-cryptography only.
"""

import argparse
import os
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

ZOO_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(os.path.dirname(ZOO_DIR))
TLS_DIR = os.path.join(REPO_DIR, "Vectors", "tls")

# Plumbing only: `make test`'s cache of generated RSA keys (CROSSCHECK_TEST_KEY_CACHE), PythonRef's
# module, so that a zoo server started hundreds of times does not make a new key each time.
sys.path.insert(0, os.path.join(REPO_DIR, "PythonRef"))
from pythonref import test_key_cache  # noqa: E402


def arguments(description, rsa_key=False, tls=False, extra=None, argv=None):
    """--host/--port for every server; --key/--bits for rsa-socket; --cert/--key/--user for aes-https.

    `extra(parser)` adds a server's own options. --port 0 lets the kernel pick a free port; the
    server prints `LISTENING <port>` once it accepts connections (see announce()).
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; nothing else is bound)")
    parser.add_argument("--port", type=int, default=0, help="port (0: a free one, printed as LISTENING <port>)")
    if rsa_key:
        parser.add_argument("--key", help="the server's RSA private key (PEM); default: generate one")
        parser.add_argument("--bits", type=int, default=2048, help="size of a generated key (default 2048)")
    if tls:
        parser.add_argument("--cert", default=os.path.join(TLS_DIR, "pinned.crt.pem"), help="TLS certificate (PEM)")
        parser.add_argument("--key", default=os.path.join(TLS_DIR, "pinned.key.pem"), help="its private key (PEM)")
        parser.add_argument("--user", default="user:password", help="the account, NAME:PASSWORD (default user:password)")
    if extra:
        extra(parser)
    args = parser.parse_args(argv)
    if tls:
        if ":" not in args.user:
            parser.error("--user takes NAME:PASSWORD")
        args.username, args.password = args.user.split(":", 1)
    return args


def announce(port):
    """Tells a runner the server is accepting connections (it waits for this line, not a sleep)."""
    print("LISTENING %d" % port, flush=True)


def rsa_private_key(path, bits):
    """The key in `path` (PKCS#8 or PKCS#1 PEM, unencrypted), or a fresh one of `bits`."""
    if path:
        with open(path, "rb") as handle:
            key = serialization.load_pem_private_key(handle.read(), password=None)
        if not isinstance(key, rsa.RSAPrivateKey):
            sys.exit("%s is not an RSA private key" % path)
        return key
    return test_key_cache.key(bits, lambda: rsa.generate_private_key(public_exponent=65537, key_size=bits))


def pem(label, der):
    """PEM of `der` in pyca's form: 64-column lines, a newline after the END line."""
    import base64

    text = base64.b64encode(der)
    lines = b"".join(text[i:i + 64] + b"\n" for i in range(0, len(text), 64))
    return b"-----BEGIN " + label.encode() + b"-----\n" + lines + b"-----END " + label.encode() + b"-----\n"


def spki_pem(public_key):
    """SubjectPublicKeyInfo PEM: 64-column lines, a newline after the END line (pyca's form)."""
    return public_key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
