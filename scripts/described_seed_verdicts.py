#!/usr/bin/python3
"""Do the seed protocol descriptions give today's verdicts on the zoo? (issue 31)

For every rsa-socket and aes-https server of the zoo (Tests/Zoo/zoo.json) this picks the seed
description variant that states the protocol the way the zoo runs that server
(protocols/rsa-socket.toml, protocols/aes-https.toml, or one of protocols/variants/*.toml: another
padding, the digest extension, length-prefix framing, the base64-raw key mode), runs
`crosscheck remote --protocol VARIANT` against it and prints a table:
server | built-in expected verdict (zoo.json `expect`) | variant | described verdict (pass/fail and
the failed testcases) | SAME/DIFFERENT (pass vs fail; an expected `pass+audit:…` is a pass).

Entries whose zoo run uses options that a description cannot state (another client than the
reference one, --timing/--strict audits) are listed as skipped, with the reason. The `ats` entries
are not rsa-socket or aes-https servers and are left out.

Each run: the server on 127.0.0.1 with --port 0 in its own process group (on the Python the zoo
names), its `LISTENING <port>` line awaited under a deadline, crosscheck with --timeout (3, as the
zoo) and --junit reports/described-seed/<name>.xml, and the server's whole group stopped on every
path out (errors and Ctrl-C included), by scripts/mutants.py's own functions. Standard library only;
run it with /usr/bin/python3 from anywhere. Exit 0 when every run gave the built-in's verdict, 1 on a
DIFFERENT row or a run that gave none.
"""

import argparse
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The zoo's process plumbing (process groups, the LISTENING line, a clean interrupt) and its
# interpreters and contract matching are mutants.py's: one way to run a zoo server.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mutants import LIVE, LIVE_LOCK, PYTHONS, Stop, normalize, start_server, started, stop_group  # noqa: E402
SEED_RSA = "protocols/rsa-socket.toml"
SEED_AES = "protocols/aes-https.toml"
V = "protocols/variants/"

# How the zoo runs each rsa-socket server, as a description states it: the server's padding (its
# file, or base_server.py's default oaep-sha256 for the mutants that keep it), its framing (the
# zoo's --framing framed) and whether it answers with the digest extension (--digest, or a mutant
# that always does). Read from each server's file; a new zoo entry must be added here.
RSA_VARIANT = {
    "tutorial-recv1024": SEED_RSA,                                  # pkcs1, legacy
    "buffering-reader": V + "rsa-socket-oaep-sha1.toml",            # oaep-sha1 both ways
    "asyncio-limits": V + "rsa-socket-oaep-sha256-digest.toml",     # oaep-sha256, digest
    "framed": V + "rsa-socket-framed-oaep-sha256-digest.toml",      # framed, oaep-sha256, digest
    "control-legacy-pkcs1": SEED_RSA,                               # base --padding pkcs1
    "control-framed-oaep": V + "rsa-socket-framed-oaep-sha256-digest.toml",  # base --framing framed --digest
    "oracle-error-text": SEED_RSA,                                  # base, pkcs1
    "oracle-silent-close": SEED_RSA,                                # base, pkcs1
    "oracle-manger": V + "rsa-socket-framed-oaep-sha256.toml",      # base --framing framed, oaep-sha256
    "framed-no-limit": V + "rsa-socket-framed-oaep-sha256.toml",    # base --framing framed, oaep-sha256
    "spki-only": SEED_RSA,                                          # base --padding pkcs1: the seed itself
    "oracle-utf8-close": SEED_RSA,                                  # base, pkcs1
    "ok-on-garbage": V + "rsa-socket-oaep-sha256.toml",             # base default
    "wrong-mgf-hash": V + "rsa-socket-oaep-sha256.toml",            # base default (its OAEP: SHA-256 label hash, MGF1-SHA1)
    "padding-mismatch": V + "rsa-socket-oaep-sha256.toml",          # zoo: --padding oaep-sha256
    "digest-wrong": V + "rsa-socket-oaep-sha256-digest.toml",       # base default, always a digest
    "corrupting-crlf": SEED_RSA,                                    # tutorial, pkcs1
    "corrupting-strip": SEED_RSA,                                   # tutorial, pkcs1
    "silent": SEED_RSA,                                             # answers nothing
    "early-close": V + "rsa-socket-oaep-sha256.toml",               # base default
    "no-server-stopped": V + "rsa-socket-oaep-sha256.toml",         # base default
    "keeps-answering-after-quit": V + "rsa-socket-oaep-sha256.toml",  # base default
    "error-stays-open": V + "rsa-socket-oaep-sha256.toml",          # base default
    "wrong-error-text": V + "rsa-socket-oaep-sha256.toml",          # base default
    "crash-on-bad-input": SEED_RSA,                                 # pkcs1
    "split-ciphertext": SEED_RSA,                                   # base, pkcs1 (--client reference: the default)
    "pythonref-implicit-model": V + "rsa-socket-digest.toml",       # pkcs1 --digest
    "pythonref-current-openssl": V + "rsa-socket-digest.toml",      # pkcs1 --digest
    "tutorial-current-openssl": SEED_RSA,                           # pkcs1, no digest
    "control-pkcs1-current-openssl": V + "rsa-socket-digest.toml",  # base --padding pkcs1 --digest
    "ok-over-the-modulus": V + "rsa-socket-digest.toml",            # pkcs1 --digest
    "offers-exponent-1": V + "rsa-socket-oaep-sha256.toml",         # base default
    "encrypts-to-exponent-1": SEED_RSA,                             # pkcs1
    "sentinel-empty": V + "rsa-socket-digest.toml",                 # pkcs1 --digest
    "sentinel-fixed16": V + "rsa-socket-digest.toml",               # pkcs1 --digest
    "key-per-connection": V + "rsa-socket-digest.toml",             # pkcs1 --digest
    "implicit-utf8": V + "rsa-socket-digest.toml",                  # pkcs1 --digest
}
# aes-https: the key mode. asyncio_raw.py hands out utf8-zeropad16 keys (the seed's), as does
# long_utf8_key.py (zoo: --key-mode utf8-zeropad16); every other server is threaded_httpserver.py
# or built on it: base64 of 32 random bytes, used raw (AES-256).
AES_UTF8 = {"https-asyncio", "long-utf8-key"}

# Options of a zoo run and whether a description (plus remote's own --host/--port/--pin) states them.
STATED = {"--framing", "--padding", "--key-mode", "--pin"}


def pick(entry):
    """(variant path, None) or (None, why it is skipped)."""
    options = entry.get("options", [])
    flags = [o for o in options if o.startswith("--")]
    if "--client" in options:
        client = options[options.index("--client") + 1]
        if client != "reference":
            return None, "--client %s: a run with the seed apps' client, not a protocol property" % client
    unstated = [f for f in flags if f not in STATED | {"--client"}]
    if unstated:
        return None, "%s: run options of the built-in audit, not a protocol property" % " ".join(unstated)
    if entry["profile"] == "aes-https":
        return (SEED_AES if entry["name"] in AES_UTF8 else V + "aes-https-base64-raw.toml"), None
    if entry["name"] not in RSA_VARIANT:
        return None, "no variant chosen for it (add it to RSA_VARIANT)"
    return RSA_VARIANT[entry["name"]], None


def report(junit):
    """(failed testcase names, audit findings as 'name: message'), or raises on no report."""
    failed, findings = [], []
    for suite in ET.parse(junit).getroot().iter("testsuite"):
        audit = suite.get("name", "").startswith("audit.")
        for case in suite.iter("testcase"):
            name = case.get("name", "")
            if case.findall("failure") or case.findall("error"):
                message = (case.findall("failure") + case.findall("error"))[0].get("message", "")
                failed.append("%s: %s" % (name, message))
            if audit:
                findings += ["%s: %s" % (name, s.get("message", "")) for s in case.findall("skipped")]
    return failed, findings


def check(entry, variant, args):
    """dict with the described verdict of one server."""
    name = entry["name"]
    junit = os.path.join(args.reports, name + ".xml")
    if os.path.exists(junit):
        os.remove(junit)
    options = entry.get("options", [])
    pin = ["--pin", options[options.index("--pin") + 1]] if "--pin" in options else []
    server, began = None, time.monotonic()
    try:
        try:
            server, port = start_server(entry, os.path.join(args.reports, name + ".server.log"), args.start_deadline)
        except (RuntimeError, OSError) as error:
            return {"verdict": "server did not start: %s" % error, "code": None, "failed": [], "findings": [], "seconds": 0.0}
        # As the zoo runs the aes-https profile (mutants.py): its 30-year test certificate is one ATS
        # refuses, and the ats-* entries judge ATS.
        argv = [args.crosscheck, "remote", "--protocol", variant, "--host", "127.0.0.1", "--port", str(port),
                "--timeout", str(args.timeout), "--junit", junit] + pin + (["--skip-ats"] if pin else [])
        began = time.monotonic()
        with open(os.path.join(args.reports, name + ".crosscheck.log"), "wb") as log:
            log.write(("$ %s\n" % " ".join(argv)).encode())
            log.flush()
            process = started(subprocess.Popen(argv, cwd=REPO, stdin=subprocess.DEVNULL, stdout=log,
                                               stderr=subprocess.STDOUT, start_new_session=True))
            try:
                code = process.wait(timeout=args.run_deadline)
            except subprocess.TimeoutExpired:
                code = None
            finally:
                stop_group(process)
        seconds = time.monotonic() - began
        if code is None:
            return {"verdict": "hang (over %.0f s)" % args.run_deadline, "code": None, "failed": [], "findings": [],
                    "seconds": seconds}
        try:
            failed, findings = report(junit)
        except (OSError, ET.ParseError) as error:
            failed, findings = ["(no readable JUnit report: %s)" % error], []
        verdict = {0: "pass", 1: "fail"}.get(code, "exit %d" % code)
        return {"verdict": verdict, "code": code, "failed": failed, "findings": findings, "seconds": seconds}
    finally:
        stop_group(server)


def compare(entry, result):
    """SAME / DIFFERENT (pass vs fail), or ERROR when the run gave no verdict; and whether the
    described report names the expected text (a failure for fail:, an audit finding for pass+audit:)."""
    expect = entry["expect"]
    wanted_outcome = "fail" if expect.startswith("fail:") else "pass"
    if result["verdict"] not in ("pass", "fail"):
        return "ERROR", "-"
    mark = "SAME" if result["verdict"] == wanted_outcome else "DIFFERENT"
    text = expect.split(":", 1)[1] if ":" in expect else None
    if text is None or result["verdict"] != wanted_outcome:
        return mark, "-"
    where = result["failed"] if wanted_outcome == "fail" else result["findings"]
    return mark, "yes" if any(normalize(text) in normalize(line) for line in where) else "no"


def described(result):
    if result["verdict"] != "fail":
        return result["verdict"]
    names = sorted({line.split(":", 1)[0] for line in result["failed"]})
    return "fail: " + ", ".join(names)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--crosscheck", default=os.path.join(REPO, ".build", "debug", "crosscheck"), help="the crosscheck binary (default: the debug build)")
    parser.add_argument("--registry", default="Tests/Zoo/zoo.json")
    parser.add_argument("--only", action="append", metavar="NAME", help="only this server (repeatable, comma-separated)")
    parser.add_argument("--timeout", type=float, default=3.0, help="crosscheck remote --timeout (default 3, as the zoo)")
    parser.add_argument("--run-deadline", type=float, default=300.0)
    parser.add_argument("--start-deadline", type=float, default=30.0)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--reports", default="reports/described-seed")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table (markdown) and the failures to FILE")
    parser.add_argument("--venv-current", default=PYTHONS["current"], metavar="PYTHON",
                        help="the Python of the \"python\": \"current\" entries (default .venv-current/bin/python: make venv-current)")
    parser.add_argument("--list", action="store_true", help="show each server's variant or skip reason, run nothing")
    args = parser.parse_args(argv)
    os.chdir(REPO)
    args.crosscheck = os.path.abspath(args.crosscheck)
    PYTHONS["current"] = os.path.abspath(args.venv_current)
    with open(args.registry) as handle:
        entries = [e for e in json.load(handle)["servers"] if e["profile"] in ("rsa-socket", "aes-https")]
    if args.only:
        wanted = {n for item in args.only for n in item.split(",") if n}
        entries = [e for e in entries if e["name"] in wanted]
    plan = [(entry,) + pick(entry) for entry in entries]
    if args.list:
        for entry, variant, why in plan:
            print("%-30s %-28s %s" % (entry["name"], entry["expect"], variant or "SKIP: " + why))
        return 0
    if not os.access(args.crosscheck, os.X_OK):
        print("described_seed_verdicts: no crosscheck at %s" % args.crosscheck, file=sys.stderr)
        return 69
    os.makedirs(args.reports, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(Stop()))
    results, began = {}, time.monotonic()
    runs = [(entry, variant) for entry, variant, why in plan if variant]
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(check, entry, variant, args): entry for entry, variant in runs}
            try:
                for future in concurrent.futures.as_completed(futures):
                    entry = futures[future]
                    results[entry["name"]] = result = future.result()
                    print("  %-30s %6.1f s  %s" % (entry["name"], result["seconds"], described(result)[:150]), flush=True)
            except BaseException:
                for future in futures:
                    future.cancel()
                with LIVE_LOCK:
                    live = list(LIVE)
                for process in live:
                    stop_group(process, grace=1.0)
                raise
    except (KeyboardInterrupt, Stop):
        print("described_seed_verdicts: interrupted; every server started was stopped", file=sys.stderr)
        return 130

    rows, counts = [], {"SAME": 0, "DIFFERENT": 0, "SKIPPED": 0, "ERROR": 0}
    for entry, variant, why in plan:
        if not variant:
            counts["SKIPPED"] += 1
            rows.append((entry["name"], entry["expect"], "-", "skipped: " + why, "SKIPPED", "-", ""))
            continue
        result = results[entry["name"]]
        mark, named = compare(entry, result)
        counts[mark] += 1
        rows.append((entry["name"], entry["expect"], os.path.basename(variant), described(result), mark, named,
                     "%.1f s" % result["seconds"]))
    header = ("server", "built-in expected", "variant", "described verdict", "", "names it", "time")
    print()
    print(" | ".join(header))
    for row in rows:
        print(" | ".join(row))
    summary = "%d servers: %d same, %d different, %d skipped, %d errors (%.0f s)" % (
        len(rows), counts["SAME"], counts["DIFFERENT"], counts["SKIPPED"], counts["ERROR"], time.monotonic() - began)
    print(summary)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write("| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n")
            for row in rows:
                out.write("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |\n")
            out.write("\n%s\n\nFailed testcases of the DIFFERENT and ERROR rows:\n\n" % summary)
            for entry, variant, why in plan:
                if variant and compare(entry, results[entry["name"]])[0] != "SAME":
                    out.write("- %s (%s): %s\n" % (entry["name"], os.path.basename(variant), described(results[entry["name"]])))
                    for line in results[entry["name"]]["failed"][:8]:
                        out.write("  - `%s`\n" % line[:400].replace("`", "'"))
    return 1 if counts["ERROR"] or counts["DIFFERENT"] else 0


if __name__ == "__main__":
    sys.exit(main())
