#!/usr/bin/env python3
"""Prints each described corpus server's verdict from a run of corpus/run/all.sh beside the verdict
recorded when it was checked by hand (corpus/servers.json), and the figure issue 31 asks for: the
servers described and checked, of those in the corpus. Standard library only."""

import argparse
import collections
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))


def outcome(junit):
    """(exit status from the run's log or None, [failed testcases], [skipped testcases])."""
    failed, skipped = [], []
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name") or ""
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append(name)
        elif case.find("skipped") is not None:
            skipped.append(name)
    status = None
    log = junit[:-4] + ".log"
    if os.path.exists(log):
        found = re.findall(r"^exit=(\d+)$", open(log, encoding="utf-8", errors="replace").read(), re.M)
        status = int(found[-1]) if found else None
    return status, failed, skipped


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", default=os.path.join(os.path.dirname(HERE), "reports", "corpus"), help="the run's folder (CORPUS_RUNS)")
    parser.add_argument("--tag", default="run", help="the run's TAG (default run)")
    args = parser.parse_args()
    servers = json.load(open(os.path.join(HERE, "servers.json"), encoding="utf-8"))["servers"]
    checked = 0
    print("server | recorded | this run: exit; failed testcases")
    for server in servers:
        if not server.get("script"):
            continue
        junit = os.path.join(args.runs, "%s-%s.xml" % (args.tag, os.path.basename(server["script"])[:-3]))
        if not os.path.exists(junit):
            print("%s | %s | not run (no %s)" % (server["repo"], server["recorded"], junit))
            continue
        checked += 1
        status, failed, _ = outcome(junit)
        print("%s | %s | exit %s; failed: %s" % (server["repo"], server["recorded"], status, ", ".join(failed) or "none"))
    counts = collections.Counter(server["status"] for server in servers)
    print("statuses: " + ", ".join("%s %d" % item for item in sorted(counts.items())))
    print("described and checked in this run: %d of %d servers (%.1f %%)" % (checked, len(servers), 100.0 * checked / len(servers)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
