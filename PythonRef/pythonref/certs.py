"""Self-signed certificates: the test trio for the aes-https TLS checks, and a Pi's own.

Test certificates (`write_test_certs`, `python3 -m pythonref certs`): three for the same names (CN
and SAN DNS `localhost`, SAN IP 127.0.0.1), each with its own RSA-2048 key, written as PEM:
`pinned` (valid 2025-01-01 for 30 years, the one a client pins), `impostor` (same names and
validity, another key: a pinning client must refuse it), `expired` (valid 2020-01-01 to
2021-01-01). Test-only keys: never use them for anything real.

Test certificates iOS accepts (`write_ios_test_certs`, `python3 -m pythonref ios-certs`): what
an app's own pinning (seed 002's SecTrust anchored on its bundled certificate) must accept and
refuse. iOS applies Apple's rules to chains an app anchors itself (SecPolicyServer.c): a leaf
issued after 2019-07-01 must be valid for at most 825 days and carry serverAuth, so the 30-year
`pinned` above is refused even when pinned. Four certificates from a fixed notBefore
(`IOS_NOT_BEFORE`, so a rerun gives the same dates; --not-before renews them), each leaf valid for
exactly 825 days: `ios-ca` (a CA, ten years), `ios-server` (a leaf `ios-ca` signed), `ios-pinned`
(a self-signed leaf, pinned itself) and `ios-impostor` (the same names, another key). The leaves'
expiry is a maintenance date: crosscheck's sessions suite warns 90 days ahead.

A server's certificate (`write_server_cert`, `python3 -m pythonref server-cert`): a fresh key and a
certificate for the Pi's host name(s), made to pass iOS's checks of TLS server certificates (Apple,
"Requirements for trusted certificates in iOS 13 and macOS 10.15": RSA of 2048 bits or more, a
SHA-2 signature, the names in subjectAltName, extended key usage serverAuth, at most 825 days),
written as the PEM the server and `crosscheck remote --pin` take, the DER an app bundles, and the
key (mode 0600).
"""

from __future__ import annotations

import datetime
import hashlib
import ipaddress
import os
from pathlib import Path
from typing import Sequence, Union

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
TEST_ORGANIZATION = "crosscheck test only"
SERVER_ORGANIZATION = "PythonRef server"
MAX_SERVER_DAYS = 825  # iOS refuses TLS server certificates valid for longer
SERVER_FILES = ("server.crt.pem", "server.crt.der", "server.key.pem")
IOS_NAMES = ("ios-ca", "ios-server", "ios-pinned", "ios-impostor")
IOS_NOT_BEFORE = datetime.datetime(2026, 11, 1, tzinfo=_UTC)
IOS_CA_YEARS = 10

SubjectName = Union[x509.DNSName, x509.IPAddress]


def subject_names(hosts: Sequence[str]) -> list[SubjectName]:
    """SAN entries: an IP literal as an IP address, anything else as a DNS name (ValueError for an
    empty name or one with characters a host name cannot have)."""
    names: list[SubjectName] = []
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
            continue
        except ValueError:
            pass
        labels = host.rstrip(".").split(".")
        if not host or not all(label and len(label) <= 63 and all(c.isascii() and (c.isalnum() or c == "-")
                                                                   for c in label) for label in labels):
            raise ValueError(f"{host!r} is neither an IP address nor a host name (letters, digits, '-', dots)")
        names.append(x509.DNSName(host.rstrip(".").lower()))
    return names


# The names a test certificate gets unless told otherwise.
_LOCAL_NAMES: tuple[SubjectName, ...] = (x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1")))


def make_certificate(key: rsa.RSAPrivateKey, not_before: datetime.datetime, not_after: datetime.datetime,
                     names: Sequence[SubjectName] = _LOCAL_NAMES,
                     organization: str = TEST_ORGANIZATION) -> x509.Certificate:
    """A self-signed server certificate for `names` (CN: the first). It is its own trust anchor, so
    it says CA:TRUE, as `openssl req -x509` writes it, with serverAuth."""
    public = key.public_key()
    subject = _name(_common_name(names), organization)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.SubjectAlternativeName(list(names)), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True, key_cert_sign=True,
                                     content_commitment=False, data_encipherment=False, key_agreement=False,
                                     crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .sign(key, hashes.SHA256())
    )


def _name(common_name: str, organization: str = TEST_ORGANIZATION) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _common_name(names: Sequence[SubjectName]) -> str:
    """The CN for a certificate of `names`: the first name, as text."""
    return names[0].value if isinstance(names[0], x509.DNSName) else str(names[0].value)


def make_ca_certificate(key: rsa.RSAPrivateKey, not_before: datetime.datetime,
                        not_after: datetime.datetime) -> x509.Certificate:
    """A self-signed CA that signs leaves only (pathlen 0): keyCertSign and cRLSign, no EKU."""
    public = key.public_key()
    name = _name("crosscheck test CA")
    return (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=False, key_encipherment=False, key_cert_sign=True,
                                     content_commitment=False, data_encipherment=False, key_agreement=False,
                                     crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .sign(key, hashes.SHA256())
    )


def make_issued_certificate(key: rsa.RSAPrivateKey, issuer_key: rsa.RSAPrivateKey, issuer: x509.Certificate,
                            not_before: datetime.datetime, not_after: datetime.datetime,
                            names: Sequence[SubjectName] = _LOCAL_NAMES) -> x509.Certificate:
    """A TLS server leaf `issuer` signs: CA:FALSE, serverAuth, the names in subjectAltName."""
    public = key.public_key()
    return (
        x509.CertificateBuilder()
        .subject_name(_name(_common_name(names)))
        .issuer_name(issuer.subject)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.SubjectAlternativeName(list(names)), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True, key_cert_sign=False,
                                     content_commitment=False, data_encipherment=False, key_agreement=False,
                                     crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
        .sign(issuer_key, hashes.SHA256())
    )


def write_ios_test_certs(out: Path, not_before: datetime.datetime = IOS_NOT_BEFORE) -> list[Path]:
    """Write <name>.crt.pem and <name>.key.pem for IOS_NAMES: leaves valid for exactly
    MAX_SERVER_DAYS from `not_before`, the CA for IOS_CA_YEARS. Returns the paths."""
    if not_before.tzinfo is None:
        raise ValueError("not_before must carry a time zone (UTC)")
    leaf_end = not_before + datetime.timedelta(days=MAX_SERVER_DAYS)
    ca_end = not_before.replace(year=not_before.year + IOS_CA_YEARS)
    keys = {name: rsa.generate_private_key(public_exponent=65537, key_size=2048) for name in IOS_NAMES}
    ca = make_ca_certificate(keys["ios-ca"], not_before, ca_end)
    made = {
        "ios-ca": ca,
        "ios-server": make_issued_certificate(keys["ios-server"], keys["ios-ca"], ca, not_before, leaf_end),
        "ios-pinned": make_certificate(keys["ios-pinned"], not_before, leaf_end),
        "ios-impostor": make_certificate(keys["ios-impostor"], not_before, leaf_end),
    }
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name in IOS_NAMES:
        written += _write_test_pair(out, name, made[name], keys[name])
    return written


def _private_pem(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def write_test_certs(out: Path) -> list[Path]:
    """Write <name>.crt.pem and <name>.key.pem (unencrypted PKCS#8) for every name; returns the paths."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name in NAMES:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        written += _write_test_pair(out, name, make_certificate(key, *VALIDITY[name]), key)
    return written


def _write_test_pair(out: Path, name: str, cert: x509.Certificate, key: rsa.RSAPrivateKey) -> list[Path]:
    """Write <name>.crt.pem and <name>.key.pem (unencrypted PKCS#8); returns both paths."""
    cert_path, key_path = out / f"{name}.crt.pem", out / f"{name}.key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(_private_pem(key))
    os.chmod(key_path, 0o644)  # test-only keys, meant to be committed and read by the test suites
    return [cert_path, key_path]


def write_server_cert(out: Path, hosts: Sequence[str], days: int = MAX_SERVER_DAYS,
                      overwrite: bool = False) -> tuple[list[Path], str]:
    """A fresh RSA-2048 key and a certificate for `hosts`, valid from an hour ago for `days`:
    server.crt.pem, server.crt.der and server.key.pem (0600, never readable by others, not even
    for a moment) in `out`. Returns the paths and the certificate's SHA-256 fingerprint. Existing
    files are kept (FileExistsError) unless `overwrite`: a new certificate means a new app build."""
    if not hosts:
        raise ValueError("at least one host name is needed")
    if not 1 <= days <= MAX_SERVER_DAYS:
        raise ValueError(f"days must be 1..{MAX_SERVER_DAYS} (iOS refuses longer-lived TLS server certificates)")
    names = subject_names(hosts)
    paths = [out / name for name in SERVER_FILES]
    if not overwrite:
        existing = [str(p) for p in paths if p.exists()]
        if existing:
            raise FileExistsError(f"{', '.join(existing)} already exist; a new certificate needs a new app build "
                                  "(pass --force to replace them)")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = datetime.datetime.now(_UTC).replace(microsecond=0)
    start = now - datetime.timedelta(hours=1)  # a Pi or phone whose clock is a little behind
    cert = make_certificate(key, start, start + datetime.timedelta(days=days), names, SERVER_ORGANIZATION)
    out.mkdir(parents=True, exist_ok=True)
    pem_path, der_path, key_path = paths
    if overwrite:
        key_path.unlink(missing_ok=True)
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as key_file:
        os.fchmod(key_file.fileno(), 0o600)  # whatever the umask
        key_file.write(_private_pem(key))
    der = cert.public_bytes(serialization.Encoding.DER)
    pem_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    der_path.write_bytes(der)
    return paths, hashlib.sha256(der).hexdigest()
