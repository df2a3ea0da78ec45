"""Self-signed test certificates for the aes-https TLS checks (pinning, impostor, expiry).

Three certificates for the same names (CN and SAN DNS `localhost`, SAN IP 127.0.0.1), each with
its own RSA-2048 key, written as PEM: `pinned` (valid 2025-01-01 for 30 years, the one a client
pins), `impostor` (same names and validity, another key: a pinning client must refuse it),
`expired` (valid 2020-01-01 to 2021-01-01). Test-only keys: never use them for anything real.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

NAMES = ("pinned", "impostor", "expired")
_UTC = datetime.timezone.utc
VALIDITY = {
    "pinned": (datetime.datetime(2025, 1, 1, tzinfo=_UTC), datetime.datetime(2055, 1, 1, tzinfo=_UTC)),
    "impostor": (datetime.datetime(2025, 1, 1, tzinfo=_UTC), datetime.datetime(2055, 1, 1, tzinfo=_UTC)),
    "expired": (datetime.datetime(2020, 1, 1, tzinfo=_UTC), datetime.datetime(2021, 1, 1, tzinfo=_UTC)),
}
SUBJECT = x509.Name([
    x509.NameAttribute(NameOID.ORGANIZATION_NAME, "crosscheck test only"),
    x509.NameAttribute(NameOID.COMMON_NAME, "localhost"),
])


def make_certificate(key: rsa.RSAPrivateKey, not_before: datetime.datetime,
                     not_after: datetime.datetime) -> x509.Certificate:
    """A self-signed server certificate for localhost / 127.0.0.1. It is its own trust anchor, so it
    says CA:TRUE, as `openssl req -x509` writes it, with serverAuth."""
    public = key.public_key()
    return (
        x509.CertificateBuilder()
        .subject_name(SUBJECT)
        .issuer_name(SUBJECT)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.SubjectAlternativeName([
            x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True, key_cert_sign=True,
                                     content_commitment=False, data_encipherment=False, key_agreement=False,
                                     crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .sign(key, hashes.SHA256())
    )


def write_all(out: Path) -> list[Path]:
    """Write <name>.crt.pem and <name>.key.pem (unencrypted PKCS#8) for every name; returns the paths."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name in NAMES:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        cert = make_certificate(key, *VALIDITY[name])
        cert_path, key_path = out / f"{name}.crt.pem", out / f"{name}.key.pem"
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        os.chmod(key_path, 0o644)  # test-only keys, meant to be committed and read by the test suites
        written += [cert_path, key_path]
    return written
