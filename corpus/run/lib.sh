# Shared by corpus/run/NAME.sh (corpus/README.md). Each NAME.sh runs one public server, unchanged,
# from its fetched snapshot in $CORPUS, and checks it with crosscheck. It re-executes itself inside a
# private network namespace (unshare -rn: only its own `lo`), so a server that binds 0.0.0.0, '' or
# a hard-coded address is reached on that namespace's loopback, and nothing outside is reachable.
#
# Settings (environment):
#   CORPUS       the folder of fetched snapshots, one OWNER+NAME each (default /work/corpus)
#   CROSSCHECK   the binary (default: this repository's .build/debug/crosscheck)
#   CORPUS_VENV  the servers' Python (default $CORPUS/venv; corpus/setup.sh makes it)
#   PY2          Python 2.7 for the servers written for it (default $CORPUS/py2/bin/python2.7: Debian
#                11's python2.7 with PyCrypto 2.6.1 in $CORPUS/site-py2; corpus/setup.sh makes it)
#   CORPUS_RUNS  where JUnit, crosscheck's and each server's logs go (default reports/corpus)
#   TAG          a prefix for this run's files, to compare runs (default run)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CORPUS=${CORPUS:-/work/corpus}
CC=${CROSSCHECK:-$ROOT/.build/debug/crosscheck}
CORPUS_VENV=${CORPUS_VENV:-$CORPUS/venv}
PY=$CORPUS_VENV/bin/python
PY2=${PY2:-$CORPUS/py2/bin/python2.7}
RUNS=${CORPUS_RUNS:-$ROOT/reports/corpus}
TAG=${TAG:-run}
STANDINS=$ROOT/corpus/run/standins
DESCRIPTIONS=$ROOT/corpus/descriptions
CCSRC=$ROOT
export CORPUS CROSSCHECK="$CC" CORPUS_VENV CORPUS_RUNS="$RUNS" TAG PY2
mkdir -p "$RUNS"

in_netns() {   # usage: in_netns "$0" "$@"
  if [ -z "$CC_IN_NETNS" ]; then
    export CC_IN_NETNS=1
    exec unshare -rn bash "$@"
  fi
  ip link set lo up
}
# wait_listen PORT SECONDS: polls the listening sockets (no connect: some servers die on a bare connect)
wait_listen() {
  local port=$1 deadline=$(( $(date +%s) + ${2:-30} ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    ss -Hltn "sport = :$port" | grep -q . && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "server exited before listening" >&2; return 1; }
    sleep 0.2
  done
  echo "server did not listen on $port in time" >&2; return 1
}
stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM -- -"$SERVER_PID" 2>/dev/null || kill -TERM "$SERVER_PID" 2>/dev/null
    sleep 0.5; kill -KILL -- -"$SERVER_PID" 2>/dev/null; kill -KILL "$SERVER_PID" 2>/dev/null
  fi
}
# start_server DIR LOG CMD...: CMD runs in DIR in its own process group, stopped on every way out
start_server() {
  local dir=$1 log=$2; shift 2
  [ -d "$dir" ] || { echo "no snapshot at $dir: fetch the server first (corpus/README.md)" >&2; exit 66; }
  trap stop_server EXIT INT TERM
  ( cd "$dir" && exec setsid "$@" ) >"$log" 2>&1 &
  SERVER_PID=$!
}
# check NAME ARGS...: crosscheck ARGS --junit $RUNS/$TAG-NAME.xml; prints and returns its exit status
check() {
  local name=$1; shift
  ( cd "$CCSRC" && "$CC" "$@" --junit "$RUNS/$TAG-$name.xml" ) 2>&1 | tee "$RUNS/$TAG-$name.log"
  local rc=${PIPESTATUS[0]}
  echo "exit=$rc" | tee -a "$RUNS/$TAG-$name.log"
  return $rc
}
