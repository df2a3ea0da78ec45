#!/usr/bin/env python3
"""Coverage a libFuzzer run reached, from its -print_coverage=1 output (make libfuzzer).

libFuzzer prints one COVERED_FUNC / UNCOVERED_FUNC line per instrumented function with the edges
it covered out of its edges; this sums them per module of Sources/ (and per file with --files),
and prints the run's last status line (`cov:` edges and `ft:` features, libFuzzer's own counts).

usage: libfuzzer_coverage.py LOG [--modules A,B] [--files]
"""
from __future__ import annotations

import re
import sys
from collections import defaultdict

LINE = re.compile(r"^(UN)?COVERED_FUNC: hits: \d+ edges: (\d+)/(\d+) (\S+) (\S+?)(?::\d+)?$")


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 64
    path, rest = argv[0], argv[1:]
    wanted = set(rest[rest.index("--modules") + 1].split(",")) if "--modules" in rest else None
    by_module: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_file: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    seen: set[str] = set()
    status = ""
    try:
        text = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError as error:
        print(f"libfuzzer_coverage: cannot read {path}: {error}", file=sys.stderr)
        return 66
    for line in text:
        if " DONE " in line or " cov: " in line:
            status = line.strip()
        match = LINE.match(line.strip())
        if not match or line in seen:  # libFuzzer may print a function twice
            continue
        seen.add(line)
        covered, total, source = int(match.group(2)), int(match.group(3)), match.group(5)
        parts = source.split("/")
        if "Sources" not in parts:
            continue
        module = parts[parts.index("Sources") + 1]
        if wanted is not None and module not in wanted:
            continue
        for table, key in ((by_module, module), (by_file, "/".join(parts[parts.index("Sources") + 1 :]))):
            table[key][0] += covered
            table[key][1] += total
    if not by_module:
        print(f"libfuzzer_coverage: no COVERED_FUNC lines in {path} (run libFuzzer with -print_coverage=1)", file=sys.stderr)
        return 65
    print(f"last status: {status}")
    for name, (covered, total) in sorted(by_module.items()):
        print(f"  {name:<22} {covered:6d}/{total:<6d} edges  {100 * covered / max(total, 1):5.1f}%")
    covered, total = (sum(v[i] for v in by_module.values()) for i in (0, 1))
    print(f"  {'together':<22} {covered:6d}/{total:<6d} edges  {100 * covered / max(total, 1):5.1f}%")
    if "--files" in rest:
        for name, (covered, total) in sorted(by_file.items()):
            print(f"    {name:<48} {covered:5d}/{total:<5d} {100 * covered / max(total, 1):5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
