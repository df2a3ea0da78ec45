#!/usr/bin/python3
"""Runs `crosscheck remote` against every server of the zoo (Tests/Zoo/zoo.json) and prints a table:
server | expected | crosscheck's verdict | OK/WRONG | time. Exit 1 when any verdict is wrong.

Two links (--link, default both): `loopback`, and `slow-link` (issue 18): each server behind a
Wi-Fi-like proxy (jitter, stalls; scripts/slowlink.py) and held to a tenth of a core by a cgroup,
crosscheck at its default --timeout; every verdict must be right and the same as on loopback.
Both links' runs share one pool of --jobs workers (each run has its own ports and processes).

For each entry: start the server on 127.0.0.1 with --port 0 in its own process group, wait (under
a deadline) for its `LISTENING <port>` line, run crosscheck remote with --timeout and --junit
reports/mutants/<name>.xml, read the exit status and the JUnit XML, and stop the server's whole
process group — on every path out, including errors and Ctrl-C. The contract the verdicts are
judged by is Tests/Zoo/README.md. Standard library only; run it with /usr/bin/python3.
"""

import argparse
import concurrent.futures
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import slowlink  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = "/usr/bin/python3"
# An entry's "python": absent for Debian's (OpenSSL 3.0), "current" for the venv of a current
# cryptography on OpenSSL >= 3.2 that `make venv-current` makes (a Pi on Debian 13 or later).
PYTHONS = {None: PYTHON, "current": os.path.join(REPO, ".venv-current", "bin", "python")}


def python_for(entry):
    return PYTHONS[entry.get("python")]


class Stop(Exception):
    """SIGTERM: unwind like Ctrl-C so every server gets stopped."""


# ---- expectations -------------------------------------------------------------------------------

def normalize(text):
    """Case, '-', '_' and '.' do not matter when matching a contract text: `liveness.after-`
    matches `liveness.after-garbage`, `wrong password` matches `login.wrong-password-gets-401`."""
    return " ".join(re.sub(r"[-_.]", " ", text.lower()).split())


def contains(haystack, needle):
    return normalize(needle) in normalize(haystack)


def parse_expect(expect):
    """'pass' | 'pass+audit:TEXT' | 'fail:TEXT' -> (outcome, text or None)."""
    if expect == "pass":
        return "pass", None
    for prefix, outcome in (("pass+audit:", "pass"), ("fail:", "fail")):
        if expect.startswith(prefix) and expect[len(prefix):]:
            return outcome, expect[len(prefix):]
    raise ValueError("expect must be pass, pass+audit:TEXT or fail:TEXT, not %r" % expect)


# ---- reading crosscheck's report ----------------------------------------------------------------

class Report:
    """The testcases of a JUnit report that matter for a verdict."""

    def __init__(self, path):
        self.failures, self.findings, self.problem = [], [], None  # (name, message) pairs
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as error:
            self.problem = "no readable JUnit report (%s)" % error
            return
        for suite in root.iter("testsuite"):
            audit = suite.get("name", "").startswith("audit.")
            for case in suite.iter("testcase"):
                name = case.get("name", "")
                for tag in ("failure", "error"):
                    for element in case.findall(tag):
                        self.failures.append((name, element.get("message", "")))
                if audit:
                    for element in case.findall("skipped"):
                        self.findings.append((name, element.get("message", "")))

    @staticmethod
    def text(pairs):
        return ["%s: %s" % pair for pair in pairs]


def judge(entry, exit_code, report, specific):
    """(crosscheck's verdict as a short string, right?, why-if-wrong)."""
    outcome, wanted = parse_expect(entry["expect"])
    failures, findings = Report.text(report.failures), Report.text(report.findings)
    if exit_code == 0:
        matched = [f for f in findings if wanted and outcome == "pass" and contains(f, wanted)]
        verdict = "pass+audit:%s" % wanted if matched else "pass"
    elif exit_code == 1:
        matched = [f for f in failures if wanted and outcome == "fail" and contains(f, wanted)]
        shown = (matched or failures or ["(no failing testcase in the report)"])[0]
        verdict = "fail:%s" % shown.split(":", 1)[0]
    else:
        return "exit %d%s" % (exit_code, ": " + report.problem if report.problem else ""), False, "crosscheck did not run the checks"
    # Findings only a server with that very flaw may get (a correct server must never get them): a
    # "failure" text counts in failing testcases only (the PKCS#1 v1.5 audit finding rightly mentions
    # padding oracles in general), an "audit" text in audit findings and failures.
    stray = sorted({text for text, where in specific.items() if text != wanted and
                    any(contains(f, text) for f in (failures if where == "failure" else failures + findings))})
    if stray:
        verdict += " (+%s)" % ", ".join(stray)
    if report.problem:
        return verdict, False, report.problem
    if outcome == "pass" and exit_code != 0:
        return verdict, False, "a server that conforms failed: %s" % "; ".join(failures[:3])
    if outcome == "fail" and exit_code != 1:
        return verdict, False, "a broken server passed; nothing named %r" % wanted
    if wanted and not matched:
        where = findings if outcome == "pass" else failures
        return verdict, False, "nothing names %r; got: %s" % (wanted, "; ".join(where[:3]) or "nothing")
    if stray:
        return verdict, False, "also reported: %s" % ", ".join(stray)
    return verdict, True, ""


# ---- processes ----------------------------------------------------------------------------------

LIVE, LIVE_LOCK = set(), threading.Lock()  # every process group started, for a clean interrupt


def started(process):
    with LIVE_LOCK:
        LIVE.add(process)
    return process


def stop_group(process, grace=3.0):
    """SIGTERM the process group, SIGKILL it after `grace` seconds; never waits unbounded."""
    if process is None:
        return
    with LIVE_LOCK:
        LIVE.discard(process)
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def start_server(entry, log_path, deadline):
    """Starts the server; returns (process, port). Raises RuntimeError when no LISTENING line comes."""
    argv = [python_for(entry), "-u"] + entry["server"] + ["--host", "127.0.0.1", "--port", "0"]
    log = open(log_path, "wb")
    process = started(subprocess.Popen(argv, cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
                                       start_new_session=True))
    log.close()
    try:
        port = wait_for_listening(process, deadline)
    except BaseException:
        stop_group(process)
        raise
    # Keep draining stdout into the log so a chatty server never blocks on a full pipe.
    threading.Thread(target=drain, args=(process.stdout, log_path), daemon=True).start()
    return process, port


def wait_for_listening(process, deadline):
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    pending = b""
    end = time.monotonic() + deadline
    try:
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise RuntimeError("no LISTENING line within %.0f s" % deadline)
            if not selector.select(timeout=left):
                continue
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:
                try:
                    status = process.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    status = "unknown: it closed its output"
                raise RuntimeError("the server exited (status %s) before LISTENING" % status)
            pending += chunk
            match = re.search(rb"^LISTENING (\d+)\r?$", pending, re.M)
            if match:
                return int(match.group(1))
    finally:
        selector.close()


def drain(stream, log_path):
    with open(log_path, "ab") as log:
        for line in iter(stream.readline, b""):
            log.write(line)
            log.flush()


def run_crosscheck(crosscheck, entry, port, timeout, junit, log_path, deadline):
    """crosscheck's exit code, or None when it overran `deadline` (it is then killed)."""
    options = entry.get("options", [])
    # The zoo judges the reference client's verdicts unless an entry names a client: the seed-app
    # entries ask whether a server serves the app as it ships (`--client seed-app`).
    client = [] if "--client" in options else ["--client", "reference"]
    argv = [crosscheck, "remote", "--host", "127.0.0.1", "--port", str(port), "--profile", entry["profile"],
            "--timeout", str(timeout), "--junit", junit] + client + options
    if entry["profile"] == "aes-https":  # the zoo's test certificate (30 years) is one ATS refuses: the ats-* entries judge ATS
        argv.append("--skip-ats")
    if entry["profile"] == "ats":  # issue 21: TLS configurations judged by `crosscheck ats`
        argv = [crosscheck, "ats", "--host", "127.0.0.1", "--port", str(port), "--timeout", str(timeout), "--junit", junit] + options
    with open(log_path, "wb") as log:
        log.write(("$ %s\n" % " ".join(argv)).encode())
        log.flush()
        process = started(subprocess.Popen(argv, cwd=REPO, stdin=subprocess.DEVNULL, stdout=log,
                                           stderr=subprocess.STDOUT, start_new_session=True))
        try:
            return process.wait(timeout=deadline)
        except subprocess.TimeoutExpired:
            return None
        finally:
            stop_group(process)


# ---- the run ------------------------------------------------------------------------------------

class Link:
    """Where a run goes: `loopback` (straight to the server) or `slow-link` (through a SlowLink
    proxy, the server under a CpuQuota when one can be set)."""

    def __init__(self, name, reports, timeout, quota=None, seed=0):
        self.name, self.reports, self.timeout, self.quota, self.seed = name, reports, timeout, quota, seed


def check(entry, args, specific, link):
    """(verdict, right, why, seconds, note) for one server on one link."""
    name = entry["name"]
    junit = os.path.join(link.reports, name + ".xml")
    if os.path.exists(junit):
        os.remove(junit)
    server = proxy = cgroup = None
    started_at = time.monotonic()
    note = ""
    try:
        try:
            server, port = start_server(entry, os.path.join(link.reports, name + ".server.log"), args.start_deadline)
        except (RuntimeError, OSError) as error:
            return "server did not start", False, "%s (see its log in %s)" % (error, link.reports), 0.0, ""
        if link.name == "slow-link":
            proxy = slowlink.SlowLink(port, "%s:%s" % (link.seed, name))
            port = proxy.port
            if link.quota is not None:
                cgroup = link.quota.hold(server.pid, name)
        started_at = time.monotonic()
        code = run_crosscheck(args.crosscheck, entry, port, link.timeout, junit,
                              os.path.join(link.reports, name + ".crosscheck.log"), args.run_deadline)
        elapsed = time.monotonic() - started_at
        if proxy is not None:
            throttled = slowlink.CpuQuota.throttled(cgroup) if cgroup else None
            note = "%d conns, %d stalls%s" % (proxy.connections, proxy.stalls,
                                              ", throttled %d" % throttled if throttled is not None else "")
        if code is None:
            return "hang (over %.0f s)" % args.run_deadline, False, "crosscheck overran its deadline", elapsed, note
        verdict, right, why = judge(entry, code, Report(junit), specific)
        return verdict, right, why, elapsed, note
    finally:
        if proxy is not None:
            proxy.close()
        stop_group(server)
        if cgroup is not None:
            slowlink.CpuQuota.release(cgroup)


def run_all(entries, args, specific, links):
    """Checks every entry on every link, --jobs runs at once, the longest first (by the times the
    last run kept in <reports>/times.json); prints a line as each run ends, then the table in the
    registry's order, one verdict column per link. Returns the reasons for wrong verdicts: a verdict
    the contract does not ask for, or a slow-link verdict that differs from loopback's (CHANGED: no
    verdict may change with the link)."""
    times_path = os.path.join(args.reports, "times.json")
    try:
        with open(times_path) as handle:
            last = json.load(handle)
    except (OSError, ValueError):
        last = {}
    for link in links:
        os.makedirs(link.reports, exist_ok=True)
    runs = [(link, entry) for link in links for entry in entries]
    runs.sort(key=lambda run: -float(last.get("%s/%s" % (run[0].name, run[1]["name"]), 0)))
    results, began = {}, time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(check, entry, args, specific, link): (link, entry) for link, entry in runs}
        try:
            for future in concurrent.futures.as_completed(futures):
                link, entry = futures[future]
                result = future.result()
                results[(link.name, entry["name"])] = result
                verdict, right, _, elapsed, note = result
                print("  %-9s %-34s %-7s %6.1f s  %s  %s" % (link.name, entry["name"], "OK" if right else "WRONG",
                                                             elapsed, verdict, note), flush=True)
        except BaseException:
            for future in futures:
                future.cancel()
            with LIVE_LOCK:
                live = list(LIVE)
            for process in live:
                stop_group(process, grace=1.0)
            raise
    with open(times_path + ".tmp", "w") as handle:
        last.update({"%s/%s" % key: round(value[3], 1) for key, value in results.items()})  # --only keeps the others
        json.dump(last, handle, indent=1, sort_keys=True)
    os.replace(times_path + ".tmp", times_path)

    names = [link.name for link in links]
    widths = [max([len("server")] + [len(e["name"]) for e in entries]),
              max([len("expected")] + [len(e["expect"]) for e in entries])] + [50] * len(links) + [7]
    print()
    print(table_row(["server", "expected"] + ["crosscheck's verdict (%s)" % name for name in names] + ["", "time"],
                    widths + [0]))
    print("-+-".join("-" * width for width in widths + [12]))
    reasons = []
    for entry in entries:
        row = [results[(name, entry["name"])] for name in names]
        marks = []
        for name, (verdict, right, why, _, _) in zip(names, row):
            if not right:
                reasons.append("%s (%s): %s" % (entry["name"], name, why))
                marks.append("WRONG")
        if len(row) == 2 and row[0][1] and row[1][1] and row[0][0] != row[1][0]:
            reasons.append("%s (slow-link): changed from %r on loopback to %r" % (entry["name"], row[0][0], row[1][0]))
            marks.append("CHANGED")
        print(table_row([entry["name"], entry["expect"]] + [r[0] for r in row] +
                        [marks[0] if marks else "OK", " / ".join("%.1f s" % r[3] for r in row)], widths + [0]), flush=True)
    wrong_runs = len({reason.split(":", 1)[0] for reason in reasons})
    print("%d servers, %d runs (%s), %d wrong, %.0f s" % (len(entries), len(runs), " + ".join(names), wrong_runs,
                                                         time.monotonic() - began))
    return reasons


def raise_stop(signum, frame):
    raise Stop()


def table_row(cells, widths):
    return " | ".join(str(cell).ljust(width) for cell, width in zip(cells, widths)).rstrip()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Contract: Tests/Zoo/README.md. Logs and reports: reports/mutants/<name>.*")
    parser.add_argument("--crosscheck", default=".build/debug/crosscheck", help="the crosscheck binary (default .build/debug/crosscheck)")
    parser.add_argument("--registry", default="Tests/Zoo/zoo.json", help="the zoo registry (default Tests/Zoo/zoo.json)")
    parser.add_argument("--only", action="append", metavar="NAME", help="run only this server (repeatable, or comma-separated)")
    parser.add_argument("--list", action="store_true", help="list the servers and their expected verdicts, run nothing")
    parser.add_argument("--timeout", type=float, default=3.0, help="crosscheck remote --timeout (default 3)")
    parser.add_argument("--run-deadline", type=float, default=300.0, help="seconds one crosscheck run may take before it is killed (default 300)")
    parser.add_argument("--start-deadline", type=float, default=30.0, help="seconds a server may take to print LISTENING (default 30)")
    parser.add_argument("--reports", default="reports/mutants", help="where reports and logs go (default reports/mutants; "
                        "the slow link's in its slow-link/ folder)")
    parser.add_argument("--link", choices=["loopback", "slow-link", "both"], default="both",
                        help="loopback, the slow-link profile, or both, one after the other (default both)")
    parser.add_argument("--slow-timeout", type=float, default=5.0,
                        help="crosscheck remote --timeout on the slow link (default 5, crosscheck's own default)")
    parser.add_argument("--seed", type=int, default=18, help="the slow link's delays (default 18)")
    parser.add_argument("--jobs", type=int, default=8, help="runs at once (default 8: a run mostly waits on its "
                        "server, deadlines and the slow link, not on the CPU)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs takes a positive number, not %d" % args.jobs)

    os.chdir(REPO)
    try:
        with open(args.registry) as handle:
            registry = json.load(handle)
        entries, specific = registry["servers"], registry.get("specific_findings", {})
        if not all(where in ("failure", "audit") for where in specific.values()):
            raise ValueError("specific_findings maps a text to \"failure\" or \"audit\"")
        for entry in entries:
            parse_expect(entry["expect"])
            if entry.get("python") not in PYTHONS:
                raise ValueError("%s: \"python\" is absent or \"current\", not %r" % (entry["name"], entry["python"]))
    except (OSError, ValueError, KeyError) as error:
        print("mutants: cannot read %s: %s" % (args.registry, error), file=sys.stderr)
        return 64
    if args.only:
        wanted = {name for item in args.only for name in item.split(",") if name}
        unknown = wanted - {entry["name"] for entry in entries}
        if unknown:
            print("mutants: no server named %s in %s (see --list)" % (", ".join(sorted(unknown)), args.registry), file=sys.stderr)
            return 64
        entries = [entry for entry in entries if entry["name"] in wanted]

    if args.list:
        widths = (max([len("server")] + [len(e["name"]) for e in entries]), 10, 7,
                  max([len("expected")] + [len(e["expect"]) for e in entries]))
        print(table_row(("server", "profile", "kind", "expected", "crosscheck options", "python"), widths + (0, 0)))
        for entry in entries:
            print(table_row((entry["name"], entry["profile"], entry["kind"], entry["expect"],
                             " ".join(entry.get("options", [])) or "-", entry.get("python", "")), widths + (0, 0)))
        return 0

    if not os.access(args.crosscheck, os.X_OK):
        print("mutants: no crosscheck binary at %s; build it with `swift build --product crosscheck` "
              "(or `make mutants`), or pass --crosscheck PATH" % args.crosscheck, file=sys.stderr)
        return 69
    missing = sorted({python_for(e) for e in entries if not os.access(python_for(e), os.X_OK)})
    if missing:
        print("mutants: no %s for the current-OpenSSL servers; `make venv-current` makes it" % ", ".join(missing),
              file=sys.stderr)
        return 69
    signal.signal(signal.SIGTERM, raise_stop)
    links = ["loopback", "slow-link"] if args.link == "both" else [args.link]
    quota = None
    if "slow-link" in links:
        why_not = slowlink.CpuQuota.unavailable()
        if why_not:
            print("mutants: slow-link without the CPU quota: %s" % why_not, flush=True)
        else:
            quota = slowlink.CpuQuota()
        print("mutants: slow-link: %d-%d ms per chunk, %.0f ms stalls on %d%% of bursts (seed %d), server at %s, "
              "crosscheck --timeout %g" % (slowlink.JITTER[0] * 1000, slowlink.JITTER[1] * 1000, slowlink.STALL * 1000,
                                           slowlink.STALL_CHANCE * 100, args.seed,
                                           "%d%% of a core" % quota.percent if quota else "full speed", args.slow_timeout),
              flush=True)
    try:
        reasons = run_all(entries, args, specific, [
            Link(name, args.reports if name == "loopback" else os.path.join(args.reports, name),
                 args.timeout if name == "loopback" else args.slow_timeout, quota, args.seed) for name in links])
    except (KeyboardInterrupt, Stop):
        print("mutants: interrupted; every server started was stopped", file=sys.stderr)
        return 130
    for reason in reasons:
        print("  WRONG %s" % reason)
    wrong = len(reasons)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
