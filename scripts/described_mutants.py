#!/usr/bin/python3
"""Runs `crosscheck remote --protocol` against every server of the described zoo
(Tests/DescribedZoo/described_zoo.json), correct and with each planted flaw, and prints a table:
server | plant | expected | crosscheck's verdict | OK/WRONG | time. Exit 1 when any verdict is wrong.

A correct server must pass (exit 0); a planted one must fail (exit 1) with a failed testcase. The
servers were written from examples/protocols/*.toml alone (Tests/DescribedZoo/README.md). Each run:
the server on 127.0.0.1 with --port 0 in its own process group, its `LISTENING <port>` line awaited
under a deadline, crosscheck with the preshared values the registry's placeholders stand for
(--secret psk=HEX, --public-key server=PEM, --private-key signer=PEM), and the whole group stopped on
every path out.
--link slow-link puts each server behind make mutants' Wi-Fi-like proxy (scripts/slowlink.py: 5-40
ms of jitter a chunk, now and then a 600 ms stall between bursts): the verdicts must not change.

Standard library only, but for pyca (python3-cryptography) where a server's command holds
{client_ec_public_pem}; run it with /usr/bin/python3.
"""

import argparse
import concurrent.futures
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import xml.etree.ElementTree as ET

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# One way to run a zoo server: mutants.py's process groups, LISTENING line and stop.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mutants import PYTHON, drain, started, stop_group, wait_for_listening  # noqa: E402
import slowlink  # noqa: E402
REGISTRY = os.path.join(REPO, "Tests", "DescribedZoo", "described_zoo.json")
LISTEN_DEADLINE = 20.0
RUN_DEADLINE = 300.0


def server_key(folder):
    """A PEM private key for {server_key_pem} and its public half for --public-key."""
    private = os.path.join(folder, "server.key.pem")
    public = os.path.join(folder, "server.pub.pem")
    if not os.path.exists(private):
        subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", private],
                       check=True, capture_output=True)
        subprocess.run(["openssl", "pkey", "-in", private, "-pubout", "-out", public], check=True, capture_output=True)
    return private, public


def toy_key(folder):
    """{toy_key}: a toy RSA key's private half (d then n, decimal lines) for the server, and its public half
    (e then n) for --public-key. n = 19 · 31 = 589, e = 7, d = 463 (7 · 463 = 3241 = 6 · 540 + 1)."""
    private, public = os.path.join(folder, "toy.priv"), os.path.join(folder, "toy.pub")
    for path, text in ((private, "463\n589\n"), (public, "7\n589\n")):
        with open(path, "w", encoding="ascii") as handle:
            handle.write(text)
    return private, public


def client_ec_key(folder):
    """A fresh P-256 key pair for {client_ec_public_pem}, in a directory of its own under `folder`:
    (the private key's path, PKCS#8 PEM unencrypted, for --private-key; the public key's path, SubjectPublicKeyInfo PEM)."""
    from cryptography.hazmat.primitives import serialization   # pyca: only the runs that need it
    from cryptography.hazmat.primitives.asymmetric import ec
    place = tempfile.mkdtemp(prefix="client-ec-", dir=folder)
    key = ec.generate_private_key(ec.SECP256R1())
    private, public = os.path.join(place, "client.ec.key.pem"), os.path.join(place, "client.ec.pub.pem")
    with open(private, "wb") as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    with open(public, "wb") as handle:
        handle.write(key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return private, public


def ec_p256_key_name(description):
    """The name of the description's first [keys.NAME] with type = "ec-p256" (the key {client_ec_public_pem} is the public half of)."""
    with open(os.path.join(REPO, description), "rb") as handle:
        keys = tomllib.load(handle).get("keys", {})
    names = [name for name, key in keys.items() if key.get("type") == "ec-p256"]
    if not names:
        raise ValueError(f"{description}: no [keys.NAME] with type = \"ec-p256\" for {{client_ec_public_pem}}")
    return names[0]


def preshared_secret_names(description):
    """The names of the description's preshared secrets, in file order."""
    with open(os.path.join(REPO, description), "rb") as handle:
        named = tomllib.load(handle).get("secrets", {})
    return [name for name, secret in named.items() if secret.get("made_by") == "preshared"]


def preshared_secret_name(description):
    """The name of the description's first preshared secret (the registry's {psk16}/{psk32}/{passphrase}); "psk" if none.
    A second one ({psk16b}) is preshared_secret_names(description)[1]."""
    preshared = preshared_secret_names(description)
    return preshared[0] if preshared else "psk"


def run_one(crosscheck, entry, plant, folder, strict=False, link="loopback"):
    psk16, psk32, psk16b = secrets.token_hex(16), secrets.token_hex(32), secrets.token_hex(16)
    passphrase = "TopSecretKey" + secrets.token_hex(4)
    private, public = server_key(folder)
    toy_private, toy_public = toy_key(folder)
    fill = {"{psk16}": psk16, "{psk32}": psk32, "{psk16b}": psk16b, "{passphrase}": passphrase, "{server_key_pem}": private,
            "{toy_key}": toy_private}
    if "{client_ec_public_pem}" in entry["server"]:         # a key pair the client holds: fresh for each run
        client_private, fill["{client_ec_public_pem}"] = client_ec_key(folder)
    command = [PYTHON] + [fill.get(arg, arg) for arg in entry["server"]] + (["--plant", plant] if plant else [])
    options = []
    psk = preshared_secret_name(entry["description"])
    if "{psk16}" in entry["server"]:
        options += ["--secret", psk + "=" + psk16]
    if "{psk32}" in entry["server"]:
        options += ["--secret", psk + "=" + psk32]
    if "{psk16b}" in entry["server"]:                       # a second preshared secret, the second in file order
        options += ["--secret", preshared_secret_names(entry["description"])[1] + "=" + psk16b]
    if "{passphrase}" in entry["server"]:
        options += ["--secret", psk + "=" + passphrase]     # a passphrase is given as its text
    if "{server_key_pem}" in entry["server"]:
        options += ["--public-key", "server=" + public]
    if "{toy_key}" in entry["server"]:
        options += ["--public-key", "server=" + toy_public]
    if "{client_ec_public_pem}" in entry["server"]:         # the server has the public half; crosscheck signs with the private
        options += ["--private-key", ec_p256_key_name(entry["description"]) + "=" + client_private]
    name = entry["name"] + ("." + plant if plant else "")
    reports = os.path.join(REPO, "reports", "described-mutants" + ("" if link == "loopback" else "-" + link))
    junit = os.path.join(reports, name + ".xml")
    log_path = os.path.join(reports, name + ".server.log")
    proxy = None
    began = time.monotonic()
    with open(log_path, "wb") as log:
        server = started(subprocess.Popen(command, cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
                                          start_new_session=True))
    try:
        port = wait_for_listening(server, LISTEN_DEADLINE)
        threading.Thread(target=drain, args=(server.stdout, log_path), daemon=True).start()
        if link == "slow-link":
            proxy = slowlink.SlowLink(port, name)  # seeded by the run's name: the same delays each time
            port = proxy.port
        done = subprocess.run([crosscheck, "remote", "--protocol", entry["description"], "--host", "127.0.0.1", "--port", str(port),
                               "--junit", junit, "--quiet"] + options + (["--strict"] if strict else []), cwd=REPO, capture_output=True, timeout=RUN_DEADLINE)
        failed = []
        if os.path.exists(junit):
            for case in ET.parse(junit).iter("testcase"):
                for bad in list(case.findall("failure")) + list(case.findall("error")):
                    failed.append(f"{case.get('name')}: {bad.get('message', '')}")
        return name, done.returncode, failed, time.monotonic() - began, done.stderr.decode("utf-8", "replace")[-600:]
    except Exception as exc:  # a server that never listened, a run past its deadline: a WRONG row, never a hang
        return name, None, [f"harness: {exc}"], time.monotonic() - began, ""
    finally:
        if proxy is not None:
            proxy.close()
        stop_group(server)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--crosscheck", default=os.path.join(REPO, ".build", "debug", "crosscheck"))
    parser.add_argument("--only", help="comma-separated server names")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--verbose", action="store_true", help="print each run's failed testcases")
    parser.add_argument("--link", choices=("loopback", "slow-link", "both"), default="loopback",
                        help="slow-link: each server behind scripts/slowlink.py's Wi-Fi-like proxy; both: one after the other (default: loopback)")
    args = parser.parse_args()
    registry = json.load(open(REGISTRY))["servers"]
    wanted = set(args.only.split(",")) if args.only else None
    runs = [(entry, plant) for entry in registry if wanted is None or entry["name"] in wanted
            for plant in [None] + entry["plants"]]
    folder = tempfile.mkdtemp(prefix="described-mutants-")
    server_key(folder)
    wrong = 0
    for link in (("loopback", "slow-link") if args.link == "both" else (args.link,)):
        wrong += run_link(args, runs, folder, link)
    return 1 if wrong else 0


def run_link(args, runs, folder, link):
    """Every run on one link, --jobs at once; prints the table and returns how many verdicts are wrong."""
    os.makedirs(os.path.join(REPO, "reports", "described-mutants" + ("" if link == "loopback" else "-" + link)), exist_ok=True)
    wrong = 0
    print(f"{'server':28} {'plant':32} {'expected':8} {'verdict':8} {'':5} time   ({link})")
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        # A plant marked "strict" is a weakness crosscheck reports: its run uses --strict.
        futures = [pool.submit(run_one, args.crosscheck, entry, plant and plant["name"], folder, bool(plant and plant.get("strict")), link)
                   for entry, plant in runs]
        for (entry, plant), future in zip(runs, futures):
            name, code, failed, seconds, stderr = future.result()
            expected = "pass" if plant is None else "fail"
            verdict = {0: "pass", 1: "fail"}.get(code, f"exit {code}")
            # A failure of the description's own weaknesses (--strict) is no sign of the plant.
            planted = [line for line in failed if not line.startswith("description.")]
            ok = verdict == expected and (expected == "pass" or bool(planted))
            wrong += not ok
            label = "(correct)" if plant is None else plant["name"] + (" --strict" if plant.get("strict") else "")
            print(f"{entry['name']:28} {label:32} {expected:8} {verdict:8} {'OK' if ok else 'WRONG':5} {seconds:.1f} s", flush=True)
            if args.verbose or not ok:
                for line in (planted if plant else failed)[:6]:
                    print(f"    {line[:220]}")
                if not ok and stderr and not failed:
                    print("    " + stderr.replace("\n", "\n    "))
    print(f"described zoo ({link}): {len(runs)} runs, {wrong} wrong")
    return wrong


if __name__ == "__main__":
    sys.exit(main())
