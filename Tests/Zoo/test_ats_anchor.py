"""`crosscheck ats` anchored to testssl.sh (issue 21, deliverable 3).

Every TLS configuration of the zoo (Tests/Zoo/tls/ats_server.py, the `ats-*` entries of zoo.json)
is judged by crosscheck ats and scanned by Debian's testssl.sh (`-p -f -S`: protocols, forward
secrecy, the certificate); what both report must agree: which TLS versions are offered, whether a
forward-secret suite is, the key type and size, the signature hash, the subjectAltName, the serverAuth
EKU and the validity dates. Each configuration must also get exactly the failing testcases its
planted weakness explains (and none for the good ones).

Needs the crosscheck binary (CROSSCHECK, default .build/debug/crosscheck) and testssl.sh
(`make deps`). testssl.sh takes a minute or more per server here, so the scans run in parallel;
ATS_ANCHOR=name,name limits the servers (make test-ats).
"""

import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET

import pytest

from test_zoo import Running as Server  # starts a zoo server, waits for LISTENING, stops its group

ZOO = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(ZOO))
CROSSCHECK = os.environ.get("CROSSCHECK", os.path.join(REPO, ".build", "debug", "crosscheck"))
REGISTRY = {entry["name"]: entry for entry in json.load(open(os.path.join(ZOO, "zoo.json")))["servers"]
            if entry["profile"] == "ats"}

# The testcases each configuration must fail (beyond the verdict, which fails exactly when one does).
EXPECTED_FAILURES = {
    "ats-tls12-ecdhe": set(),
    "ats-tls13-only": set(),
    "ats-tls12-ecdsa": set(),
    "ats-tls12-chacha20-only": set(),
    "ats-rsa-key-exchange-only-local": set(),
    "ats-tls10-11-only": {"protocol.tls1.2"},
    "ats-rsa-key-exchange-only": {"cipher-suites.default-policy"},
    "ats-rsa-1024-key": {"certificate.key"},
    "ats-sha1-signature": {"certificate.signature-hash"},
    "ats-validity-900-days": {"certificate.validity-period"},
    "ats-certificate-for-another-name": {"certificate.subject-alt-name"},
}
EXCEPTION_KEYS = {
    "ats-tls10-11-only": "NSExceptionMinimumTLSVersion = TLSv1.1",
    "ats-rsa-key-exchange-only": "NSExceptionRequiresForwardSecrecy = NO",
}
# A certificate rule is the app's trust evaluation's (issue 29): no Info.plist key, a new certificate.
TRUST_FIXES = {name: "reissue the certificate" for name in
               ("ats-rsa-1024-key", "ats-sha1-signature", "ats-validity-900-days", "ats-certificate-for-another-name")}
SELECTED = [name for name in os.environ.get("ATS_ANCHOR", "").split(",") if name] or sorted(REGISTRY)


def read_junit(path):
    """{testcase name: (outcome, message, {property: value})} from crosscheck's report."""
    root = ET.parse(path).getroot()
    cases = {}
    for suite in root.iter("testsuite"):
        for case in suite.iter("testcase"):
            outcome, message = "passed", ""
            for tag in ("failure", "error", "skipped"):
                element = case.find(tag)
                if element is not None:
                    outcome, message = tag, element.get("message", "")
            cases[case.get("name")] = [outcome, message, {}]
        # Per-testcase properties live in one block at the end of <system-out> (README "Reading a report").
        out = suite.findtext("system-out") or ""
        current = None
        for line in out.splitlines():
            header = re.match(r"testcase \d+ (.+)$", line)
            if header:
                current = header.group(1)
            elif current in cases and " = " in line:
                key, value = line.strip().split(" = ", 1)
                cases[current][2][key] = value
    return cases


def scan(name):
    """(crosscheck's exit code, its testcases, testssl.sh's findings by id) for one zoo server."""
    server = Server(name)
    work = tempfile.mkdtemp(prefix="cc21-anchor-")
    try:
        junit = os.path.join(work, "ats.xml")
        crosscheck = subprocess.run([CROSSCHECK, "ats", "--host", "127.0.0.1", "--port", str(server.port), "--timeout", "10",
                                     "--junit", junit, "--quiet"] + REGISTRY[name]["options"],
                                    cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        report = os.path.join(work, "testssl.json")
        testssl = subprocess.run([shutil.which("testssl") or "testssl.sh", "--quiet", "--warnings", "off", "--color", "0",
                                  "--nodns", "none", "--connect-timeout", "10", "--openssl-timeout", "10",
                                  "-p", "-f", "-S", "--jsonfile", report, "127.0.0.1:%d" % server.port],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
        assert os.path.exists(report), "testssl.sh wrote no JSON (exit %d): %s" % (testssl.returncode, testssl.stdout[-2000:])
        findings = {item["id"]: item["finding"] for item in json.load(open(report))}
        return crosscheck.returncode, read_junit(junit), findings, crosscheck.stdout.decode(errors="replace")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="module")
def scans():
    if not os.access(CROSSCHECK, os.X_OK):
        pytest.fail("no crosscheck binary at %s: build it first (make test-ats does)" % CROSSCHECK)
    if not (shutil.which("testssl") or shutil.which("testssl.sh")):
        pytest.fail("testssl.sh is not installed: make deps installs Debian's testssl.sh")
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(SELECTED)) as pool:
        return dict(zip(SELECTED, pool.map(scan, SELECTED)))


@pytest.mark.parametrize("name", SELECTED)
def test_verdict_names_the_planted_weakness(scans, name):
    code, cases, _, output = scans[name]
    failing = {case for case, (outcome, _, _) in cases.items() if outcome in ("failure", "error")}
    expected = EXPECTED_FAILURES[name]
    assert failing - {"verdict.default-policy"} == expected, output
    assert code == (1 if expected else 0), output
    assert ("verdict.default-policy" in failing) == bool(expected)
    if name in EXCEPTION_KEYS:
        assert EXCEPTION_KEYS[name] in cases["verdict.default-policy"][1]
    if name in TRUST_FIXES:
        verdict = cases["verdict.default-policy"][1]
        assert TRUST_FIXES[name] in verdict and "NSException" not in verdict, verdict


@pytest.mark.parametrize("name", SELECTED)
def test_protocols_agree_with_testssl(scans, name):
    _, cases, findings, _ = scans[name]
    for version, testssl_id in (("tls1.0", "TLS1"), ("tls1.1", "TLS1_1"), ("tls1.2", "TLS1_2"), ("tls1.3", "TLS1_3")):
        offered = findings[testssl_id].startswith("offered")
        accepted = cases["protocol." + version][2]["accepted"] == "yes"
        assert accepted == offered, "%s: crosscheck says accepted=%s, testssl.sh says %r" % (version, accepted, findings[testssl_id])


@pytest.mark.parametrize("name", SELECTED)
def test_forward_secrecy_agrees_with_testssl(scans, name):
    _, cases, findings, _ = scans[name]
    crosscheck_fs = {props.get("standard-name") for case, (_, _, props) in cases.items()
                     if case.startswith("cipher.") and props.get("forward-secrecy") == "yes"}
    testssl_offered = findings["PFS"].startswith("offered")
    assert bool(crosscheck_fs) == testssl_offered, "crosscheck's forward-secret suites %s; testssl.sh PFS %r" % (crosscheck_fs, findings["PFS"])


@pytest.mark.parametrize("name", SELECTED)
def test_certificate_agrees_with_testssl(scans, name):
    _, cases, findings, _ = scans[name]
    key = cases["certificate.key"][2]["key"]                            # "RSA 2048" / "EC 256"
    algorithm, bits = key.split()
    testssl_key = findings["cert_keySize"]                              # "RSA 2048 bits" / "EC 256 bits"
    assert testssl_key.split()[0].startswith(algorithm) and bits in testssl_key.split(), (key, testssl_key)
    digest = cases["certificate.signature-hash"][2]["signature-hash"]   # "SHA256" / "SHA1"
    assert findings["cert_signatureAlgorithm"].replace("-", "").upper().startswith(digest.upper()), (digest, findings["cert_signatureAlgorithm"])
    names = cases["certificate.subject-alt-name"][2]["subject-alt-names"]  # "DNS:localhost, …, IP Address:127.0.0.1"
    ours = sorted(entry.split(":", 1)[1] for entry in names.split(", "))
    assert ours == sorted(findings["cert_subjectAltName"].split()), (names, findings["cert_subjectAltName"])
    assert ("TLS Web Server Authentication" in findings["cert_extKeyUsage"]) == (cases["certificate.server-auth-eku"][2].get("server-auth-eku") == "yes")
    validity = cases["certificate.validity-period"][2]
    # testssl.sh prints minutes ("2026-12-01 00:49"); crosscheck ISO 8601 seconds ("2026-12-01T00:49:12Z").
    assert validity["not-before"].replace("T", " ")[:16] == findings["cert_notBefore"], (validity, findings["cert_notBefore"])
    assert validity["not-after"].replace("T", " ")[:16] == findings["cert_notAfter"], (validity, findings["cert_notAfter"])
