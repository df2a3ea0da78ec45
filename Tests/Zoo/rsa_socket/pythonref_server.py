"""rsa-socket, CORRECT: PythonRef's own server (PythonRef/pythonref), run the zoo's way.

Not independent of crosscheck's reference: it is here so that `make mutants` shows what a team's
Pi gets when it runs PythonRef itself on the Python it has. The zoo entries run it with Debian's
python3 (OpenSSL 3.0) and with the venv of a current cryptography (`make venv-current`, OpenSSL >=
3.2), with `--rsa-rejection implicit`: there the library itself answers a bad PKCS#1 v1.5 padding
with a synthetic plaintext (`Server: OK`), as a Pi on Debian 13 does; on Debian's python3 PythonRef
computes the same synthetic plaintext itself.

Expected verdict: pass; with --rsa-rejection implicit, the audit names implicit rejection.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import zoolib  # noqa: E402

sys.path.insert(0, os.path.join(zoolib.REPO_DIR, "PythonRef"))
from cryptography.hazmat.backends.openssl import backend  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from pythonref import rsa_cipher, rsa_socket, socket_shell  # noqa: E402


def main():
    def options(parser):
        parser.add_argument("--padding", choices=["pkcs1", "oaep-sha1", "oaep-sha256"], default="pkcs1")
        parser.add_argument("--framing", choices=["legacy", "framed"], default="legacy")
        parser.add_argument("--digest", action="store_true", help="answer Server: OK sha256=<hex>")
        parser.add_argument("--rsa-rejection", choices=rsa_cipher.REJECTIONS, default="explicit")

    args = zoolib.arguments(__doc__.splitlines()[0], rsa_key=True, extra=options)
    key = zoolib.rsa_private_key(args.key, args.bits)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    config = rsa_socket.ServerConfig(padding=args.padding, framing=args.framing, private_key=pem, digest=args.digest,
                                     rejection=args.rsa_rejection)
    print("PythonRef on %s: rejection %s (the library's own: %s)" % (
        backend.openssl_version_text(), args.rsa_rejection, rsa_cipher.library_rejection(key)), file=sys.stderr)
    socket_shell.serve(config, args.host, args.port, ready=lambda host, port: zoolib.announce(port),
                       log=lambda event: print(event, file=sys.stderr, flush=True))


if __name__ == "__main__":
    main()
