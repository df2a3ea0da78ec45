#!/usr/bin/python3
"""A real JUnit consumer checks crosscheck's reports: Debian's python3-junitparser reads each
report, and what it counts must equal what crosscheck itself says.

usage: /usr/bin/python3 scripts/junit_consumer.py CROSSCHECK REPORT.xml...

For every report:
  - junitparser counts the testcases by their result element (none: passed; failure; error;
    skipped), and reads each suite's tests/failures/errors/skipped/time attributes; the two must
    agree (a consumer that trusts the attributes must see the same as one that counts);
  - `CROSSCHECK report --allow-partial --failures 0 REPORT` prints crosscheck's own table and totals
    line; every suite row and the totals must equal junitparser's counts, and each suite's time
    must equal the suite's time attribute.

Exit status: 0 every report agrees, 1 some disagreement (each printed), 64 usage error,
69 junitparser is not installed (apt-get install python3-junitparser; `make deps` does it).
"""
import re
import subprocess
import sys

try:
    from junitparser import Error, Failure, JUnitXml, Skipped, TestSuite
except ImportError:
    print("junit_consumer: python3-junitparser is missing; run `make deps` or apt-get install python3-junitparser",
          file=sys.stderr)
    sys.exit(69)

TOTALS = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) errors, (\d+) skipped")
ROW = re.compile(r"^(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+\.\d{3})s$")


def junitparser_counts(path):
    """Per suite (in file order): counts from the testcases, from the attributes, and the time attribute."""
    document = JUnitXml.fromfile(path)
    suites = [document] if isinstance(document, TestSuite) else list(document)
    result = []
    for suite in suites:
        counted = {"tests": 0, "passed": 0, "failed": 0, "errors": 0, "skipped": 0}
        for case in suite:
            counted["tests"] += 1
            kinds = [type(r) for r in case.result]
            if Failure in kinds:
                counted["failed"] += 1
            elif Error in kinds:
                counted["errors"] += 1
            elif Skipped in kinds:
                counted["skipped"] += 1
            else:
                counted["passed"] += 1
        attributes = {"tests": suite.tests, "failed": suite.failures, "errors": suite.errors,
                      "skipped": suite.skipped or 0}
        result.append((suite.name, counted, attributes, suite._elem.get("time")))
    return result


def crosscheck_counts(crosscheck, path):
    """crosscheck's table rows {suite: (tests, passed, failed, errors, skipped, time)} and totals."""
    run = subprocess.run([crosscheck, "report", "--allow-partial", "--failures", "0", path],
                         capture_output=True, text=True, timeout=120)
    if run.returncode not in (0, 1):
        raise RuntimeError(f"`crosscheck report` exited {run.returncode}: {run.stderr.strip()}")
    rows, totals = {}, None
    for line in run.stdout.splitlines():
        if (match := ROW.match(line)) and match.group(1) not in ("suite",):
            rows.setdefault(match.group(1), []).append(tuple(int(g) for g in match.groups()[1:6]) + (match.group(7),))
        elif match := TOTALS.match(line):
            totals = tuple(int(g) for g in match.groups())
    if totals is None:
        raise RuntimeError("no totals line in `crosscheck report` output")
    return rows, totals


def check(crosscheck, path):
    problems = []
    suites = junitparser_counts(path)
    rows, totals = crosscheck_counts(crosscheck, path)
    keys = ("tests", "passed", "failed", "errors", "skipped")
    seen = {}
    for name, counted, attributes, time in suites:
        for key in ("tests", "failed", "errors", "skipped"):
            if counted[key] != attributes[key]:
                problems.append(f"suite {name}: {counted[key]} {key} testcases but the attribute says {attributes[key]}")
        occurrence = seen.get(name, 0)
        seen[name] = occurrence + 1
        candidates = rows.get(name, [])
        if name == "total" or occurrence >= len(candidates):
            continue  # a suite named like the total row, or a name crosscheck prints escaped
        row = candidates[occurrence]
        if tuple(counted[k] for k in keys) != row[:5]:
            problems.append(f"suite {name}: junitparser {tuple(counted[k] for k in keys)} != crosscheck {row[:5]} (tests, passed, failed, errors, skipped)")
        if time is not None and f"{float(time):.3f}" != row[5]:
            problems.append(f"suite {name}: time attribute {time} != crosscheck's {row[5]}")
    mine = tuple(sum(c[k] for _, c, _, _ in suites) for k in keys[1:])
    if mine != totals:
        problems.append(f"totals: junitparser {mine} != crosscheck {totals} (passed, failed, errors, skipped)")
    summary = f"{sum(c['tests'] for _, c, _, _ in suites)} tests in {len(suites)} suites: " \
              f"{mine[0]} passed, {mine[1]} failed, {mine[2]} errors, {mine[3]} skipped"
    return summary, problems


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(argv) < 3 else sys.stdout)
        return 64 if len(argv) < 3 else 0
    crosscheck, paths = argv[1], argv[2:]
    failed = 0
    for path in paths:
        try:
            summary, problems = check(crosscheck, path)
        except Exception as error:  # a report junitparser or crosscheck cannot read is a disagreement
            summary, problems = "unreadable", [f"{type(error).__name__}: {error}"]
        if problems:
            failed += 1
            print(f"DISAGREE {path}: {summary}")
            for problem in problems:
                print(f"  {problem}")
        else:
            print(f"agree    {path}: {summary} (junitparser = crosscheck)")
    print(f"junit_consumer: {len(paths) - failed} of {len(paths)} reports agree")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
