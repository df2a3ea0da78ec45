"""A TLS server configured as someone set it up by hand, for `crosscheck ats` (issue 21).

Written from Apple's published App Transport Security rules and Python's `ssl` documentation, not
from crosscheck's code. Each --config is one TLS configuration: the good ones iOS's default ATS
policy accepts, and the ones with one weakness each that it refuses (the table in CONFIGS, with the
verdict each must get, is also in zoo.json). The certificate is made at start with
python3-cryptography and signed by the test CA Vectors/tls/ios-ca (crosscheck runs with
`--pin Vectors/tls/ios-ca.crt.pem`), so trust holds and only the planted weakness differs.

After the handshake it answers one HTTP/1.1 request with 200 and closes; a thread per client, a
deadline on every read. Debian's OpenSSL refuses TLS 1.0/1.1, 1024-bit keys and SHA-1 certificates
at its default security level, so this server sets level 0 itself (the test server only).
"""

import datetime
import warnings
import ipaddress
import os
import socket
import ssl
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import zoolib  # noqa: E402

from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, rsa  # noqa: E402
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID  # noqa: E402

# TLS 1.0/1.1 and SHA-1 signatures are what some configurations plant: their warnings are expected.
warnings.simplefilter("ignore", DeprecationWarning)
warnings.filterwarnings("ignore", message="SHA1 signatures are deprecated")

# name: versions (min, max), OpenSSL cipher string for TLS <= 1.2, certificate settings.
CONFIGS = {
    # iOS's default ATS policy accepts these.
    "tls12-ecdhe": dict(versions=("TLSv1_2", "TLSv1_2"), ciphers="ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384"),
    "tls13-only": dict(versions=("TLSv1_3", "TLSv1_3")),
    "tls12-ecdsa": dict(versions=("TLSv1_2", "TLSv1_3"), ciphers="ECDHE-ECDSA-AES128-GCM-SHA256", key="ec256"),
    # Apple's shipped ATS group has ECDHE with ChaCha20-Poly1305 at TLS 1.2 (issue 29).
    "tls12-chacha20-only": dict(versions=("TLSv1_2", "TLSv1_2"), ciphers="ECDHE-RSA-CHACHA20-POLY1305"),
    # It refuses these, each for one reason.
    "tls10-11-only": dict(versions=("TLSv1", "TLSv1_1"), ciphers="ECDHE-RSA-AES128-SHA:AES128-SHA"),
    "rsa-key-exchange-only": dict(versions=("TLSv1_2", "TLSv1_2"), ciphers="AES128-GCM-SHA256:AES256-SHA256:AES128-SHA"),
    "rsa-1024-key": dict(key="rsa1024"),
    "sha1-signature": dict(digest="sha1"),
    "validity-900-days": dict(days=900),
    "certificate-for-another-name": dict(names=["raspberrypi.example"]),
}


def make_certificate(config, directory):
    """A leaf for localhost, 127.0.0.1, raspberrypi.local and pi.example.com (or `names`), signed by the
    test CA; returns (cert, key) paths. The zoo judges it under pi.example.com (a name ATS governs)
    or raspberrypi.local (one it does not)."""
    with open(os.path.join(zoolib.TLS_DIR, "ios-ca.key.pem"), "rb") as handle:
        ca_key = serialization.load_pem_private_key(handle.read(), password=None)
    with open(os.path.join(zoolib.TLS_DIR, "ios-ca.crt.pem"), "rb") as handle:
        ca = x509.load_pem_x509_certificate(handle.read())
    kind = config.get("key", "rsa2048")
    key = ec.generate_private_key(ec.SECP256R1()) if kind == "ec256" else \
        rsa.generate_private_key(public_exponent=65537, key_size=1024 if kind == "rsa1024" else 2048)
    names = config.get("names")
    alt = [x509.DNSName(name) for name in names] if names else \
        [x509.DNSName("localhost"), x509.DNSName("raspberrypi.local"), x509.DNSName("pi.example.com"),
         x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    now = datetime.datetime.now(datetime.timezone.utc)
    # Inside the CA's own validity (it starts 2026-11-01), so only the planted rule can fail.
    not_before = max(now - datetime.timedelta(days=1), ca.not_valid_before.replace(tzinfo=datetime.timezone.utc))
    builder = (x509.CertificateBuilder()
               .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, (names or ["localhost"])[0])]))
               .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(not_before).not_valid_after(not_before + datetime.timedelta(days=config.get("days", 365)))
               .add_extension(x509.SubjectAlternativeName(alt), critical=False)
               .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True))
    digest = hashes.SHA1() if config.get("digest") == "sha1" else hashes.SHA256()
    certificate = builder.sign(ca_key, digest)
    cert_path, key_path = os.path.join(directory, "server.crt.pem"), os.path.join(directory, "server.key.pem")
    with open(cert_path, "wb") as handle:
        handle.write(certificate.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return cert_path, key_path


def context_for(config, cert_path, key_path):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    low, high = config.get("versions", ("TLSv1_2", "TLSv1_3"))
    context.minimum_version = getattr(ssl.TLSVersion, low)
    context.maximum_version = getattr(ssl.TLSVersion, high)
    # Level 0 before the certificate is loaded: Debian's default level refuses weak ones at load.
    context.set_ciphers(config.get("ciphers", "ECDHE+AESGCM:ECDHE+AES") + ":@SECLEVEL=0")
    context.load_cert_chain(cert_path, key_path)
    return context


def serve_client(context, connection):
    try:
        connection.settimeout(5)
        with context.wrap_socket(connection, server_side=True) as tls:
            request = b""
            while b"\r\n\r\n" not in request and len(request) < 65536:
                chunk = tls.recv(4096)
                if not chunk:
                    return
                request += chunk
            tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    except (OSError, ssl.SSLError):
        pass  # a refused handshake or a probe that hung up: the next client is served all the same
    finally:
        connection.close()


def main():
    args = zoolib.arguments(__doc__.splitlines()[0], extra=lambda parser: parser.add_argument(
        "--config", required=True, choices=sorted(CONFIGS), help="which TLS configuration to serve"))
    config = CONFIGS[args.config]
    directory = tempfile.mkdtemp(prefix="cc21-ats-")
    cert_path, key_path = make_certificate(config, directory)
    context = context_for(config, cert_path, key_path)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((args.host, args.port))
    listener.listen(64)
    zoolib.announce(listener.getsockname()[1])
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve_client, args=(context, connection), daemon=True).start()


if __name__ == "__main__":
    main()
