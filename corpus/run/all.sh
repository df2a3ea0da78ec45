#!/bin/bash
# corpus/run/all.sh: runs every described corpus server's script (corpus/servers.json), one at a
# time, each under a deadline, then prints each one's verdict beside the recorded one, and the
# figure. Settings: corpus/run/lib.sh. Exit 0 when every script ran (whatever the verdicts).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
[ -x "$CC" ] || { echo "all.sh: no crosscheck at $CC (swift build, or set CROSSCHECK)" >&2; exit 69; }
[ -x "$PY" ] || { echo "all.sh: no Python at $PY (bash corpus/setup.sh, or set CORPUS_VENV)" >&2; exit 69; }
missing=0
for script in $(python3 -c 'import json,sys; [print(s["script"]) for s in json.load(open(sys.argv[1]))["servers"] if s.get("script")]' "$root/corpus/servers.json"); do
  name=$(basename "$script" .sh)
  timeout 300 bash "$root/$script" >/dev/null 2>&1
  status=$?
  [ $status = 66 ] && missing=$((missing + 1))
  echo "all.sh: $name exit=$status"
done
python3 "$root/corpus/compare.py" --runs "$RUNS" --tag "$TAG"
[ $missing = 0 ] || { echo "all.sh: $missing servers have no snapshot under $CORPUS (corpus/README.md: fetch them)"; exit 66; }
