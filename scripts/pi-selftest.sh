#!/usr/bin/env bash
# make pi-selftest: a Raspberry Pi stand-in in a network namespace of its own.
#
# Creates a namespace with a veth pair (private addresses 10.213.77.1/30 here, .2 in the namespace),
# starts the PythonRef rsa-socket and aes-https servers inside it — hardened (OAEP, base64-raw keys)
# for crosscheck's reference client, and configured as the seed apps need them (PKCS#1 v1.5,
# utf8-zeropad16 keys) for `--client both`: the reference checks and the seed apps as they ship —
# runs `crosscheck remote` against them over the veth link, then the reference checks on loopback.
# A second namespace Pi runs PythonRef on a current cryptography (.venv-current, `make venv-current`:
# OpenSSL >= 3.2, implicit rejection for PKCS#1 v1.5 by the library itself), as a Pi on Debian 13
# does, checked with --client both (skipped, saying so, when the venv is missing).
# Removes the namespace, the link and the servers on every exit, also on failure or Ctrl-C.
# Exit: 0 all passed, 1 a check failed, 77 skipped (not root / no namespaces), other: setup error.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${CROSSCHECK:-.build/debug/crosscheck}
PY=/usr/bin/python3
CURRENT_PY=$PWD/.venv-current/bin/python
NS=ccpi-$$
HOST_IF=ccpi$$h
NS_IF=ccpi$$n
HOST_ADDR=10.213.77.1
NS_ADDR=10.213.77.2
REPORTS=reports/pi-selftest
TLS=Vectors/tls
pids=()

if [ "$(id -u)" != 0 ]; then
  echo "pi-selftest: skipped: creating network namespaces needs root (run: sudo make pi-selftest)"
  exit 77
fi
if ! ip netns list >/dev/null 2>&1; then
  echo "pi-selftest: skipped: 'ip netns' does not work here (install iproute2, or run where namespaces are allowed)"
  exit 77
fi

cleanup() {
  for pid in "${pids[@]:-}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]:-}"; do wait "$pid" 2>/dev/null || true; done
  ip netns del "$NS" 2>/dev/null || true
  ip link del "$HOST_IF" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

ip netns add "$NS"
ip link add "$HOST_IF" type veth peer name "$NS_IF"
ip link set "$NS_IF" netns "$NS"
ip addr add "$HOST_ADDR/30" dev "$HOST_IF"
ip link set "$HOST_IF" up
ip netns exec "$NS" ip addr add "$NS_ADDR/30" dev "$NS_IF"
ip netns exec "$NS" ip link set "$NS_IF" up
ip netns exec "$NS" ip link set lo up

# Starts a PythonRef server (in the namespace when $1 is "ns") and waits, at most 10 s, for the one
# "listening on HOST:PORT" line it prints on stdout (read from a FIFO: no polling, no sleeps).
start() {
  local where=$1 log=$2; shift 2
  local prefix=() py=$PY fifo
  case $where in ns|ns-current) prefix=(ip netns exec "$NS");; esac
  [ "$where" = ns-current ] && py=$CURRENT_PY
  fifo=$(mktemp -u "${TMPDIR:-/tmp}/ccpi-XXXXXX")
  mkfifo "$fifo"
  (cd PythonRef && exec "${prefix[@]}" "$py" -m pythonref serve "$@" --quiet) >"$fifo" 2>"$log.stderr" &
  pids+=($!)
  local fd line=""
  exec {fd}<"$fifo"   # kept open for the script's life, so the server never writes to a closed pipe
  rm -f "$fifo"
  if read -r -t 10 -u "$fd" line && [[ $line == listening\ on* ]]; then
    echo "$line" >"$log"
    return 0
  fi
  echo "pi-selftest: server did not start: $line $(cat "$log.stderr")"; return 1
}

mkdir -p "$REPORTS"
start ns "$REPORTS/rsa-ns.log" rsa-socket --host "$NS_ADDR" --port 9876 --padding oaep-sha256 --digest
start ns "$REPORTS/https-ns.log" aes-https --host "$NS_ADDR" --port 8443 --cert "../$TLS/pinned.crt.pem" --key "../$TLS/pinned.key.pem" --user pi:raspberry
start ns "$REPORTS/rsa-seed-ns.log" rsa-socket --host "$NS_ADDR" --port 9877 --padding pkcs1
start ns "$REPORTS/https-seed-ns.log" aes-https --host "$NS_ADDR" --port 8444 --cert "../$TLS/pinned.crt.pem" --key "../$TLS/pinned.key.pem" --user pi:raspberry --key-mode utf8-zeropad16
current=""
if [ -x "$CURRENT_PY" ]; then
  current=$("$CURRENT_PY" -c 'import cryptography; from cryptography.hazmat.backends.openssl import backend as b; print("cryptography", cryptography.__version__, "on", b.openssl_version_text())')
  start ns-current "$REPORTS/rsa-current-ns.log" rsa-socket --host "$NS_ADDR" --port 9878 --padding pkcs1 --digest --rsa-rejection implicit
fi
# Issue 21: the Pi as the README deploys it (a `server-cert` certificate iOS accepts), for `crosscheck
# ats` (run by `remote --profile aes-https`) and the seed apps' own code over the live link.
rm -rf "$REPORTS/pi-cert" && (cd PythonRef && $PY -m pythonref server-cert --host localhost --out "../$REPORTS/pi-cert" >/dev/null)
start ns "$REPORTS/https-deployed-ns.log" aes-https --host "$NS_ADDR" --port 8445 --cert "../$REPORTS/pi-cert/server.crt.pem" --key "../$REPORTS/pi-cert/server.key.pem" --user pi:raspberry --key-mode utf8-zeropad16
start ns "$REPORTS/https-deployed2-ns.log" aes-https --host "$NS_ADDR" --port 8446 --cert "../$REPORTS/pi-cert/server.crt.pem" --key "../$REPORTS/pi-cert/server.key.pem" --user pi:raspberry --key-mode utf8-zeropad16
start lo "$REPORTS/rsa-lo.log" rsa-socket --host 127.0.0.1 --port 0 --padding oaep-sha256 --digest
start lo "$REPORTS/https-lo.log" aes-https --host 127.0.0.1 --port 0 --cert "../$TLS/pinned.crt.pem" --key "../$TLS/pinned.key.pem" --user pi:raspberry
RSA_LO=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$REPORTS/rsa-lo.log")
HTTPS_LO=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$REPORTS/https-lo.log")

status=0
run() { "$BIN" remote --quiet "$@" || status=1; }
echo "pi-selftest: the namespace test host at $NS_ADDR: hardened servers, reference client"
run --host "$NS_ADDR" --port 9876 --profile rsa-socket --client reference --junit "$REPORTS/rsa-socket-ns.xml"
run --host "$NS_ADDR" --port 8443 --profile aes-https --client reference --server-name localhost --pin "$TLS/pinned.crt.pem" --skip-ats --user pi:raspberry --junit "$REPORTS/aes-https-ns.xml"
echo "pi-selftest: the namespace test host at $NS_ADDR: servers as the seed apps need them, --client both"
run --host "$NS_ADDR" --port 9877 --profile rsa-socket --client both --app seed-000 --junit "$REPORTS/rsa-socket-seed-ns.xml"
echo "pi-selftest: the namespace test host as the README deploys it: ats, and seeds 001 and 002's own code"
run --host "$NS_ADDR" --port 8445 --profile aes-https --client reference --server-name localhost --pin "$REPORTS/pi-cert/server.crt.pem" --user pi:raspberry --app seed-001 --junit "$REPORTS/aes-https-deployed-ns.xml"
run --host "$NS_ADDR" --port 8446 --profile aes-https --client seed-app --server-name localhost --pin "$REPORTS/pi-cert/server.crt.pem" --user pi:raspberry --app seed-002 --skip-ats --junit "$REPORTS/aes-https-deployed-seed002-ns.xml"
run --host "$NS_ADDR" --port 8444 --profile aes-https --client both --server-name localhost --pin "$TLS/pinned.crt.pem" --skip-ats --user pi:raspberry --junit "$REPORTS/aes-https-seed-ns.xml"
if [ -n "$current" ]; then
  echo "pi-selftest: the namespace test host at $NS_ADDR: PythonRef on $current (implicit rejection), --client both"
  run --host "$NS_ADDR" --port 9878 --profile rsa-socket --client both --junit "$REPORTS/rsa-socket-current-ns.xml"
else
  rm -f "$REPORTS/rsa-socket-current-ns.xml"
  echo "pi-selftest: SKIPPED the current-OpenSSL Pi: no $CURRENT_PY (make venv-current makes it)"
fi
echo "pi-selftest: the reference checks on loopback"
run --host 127.0.0.1 --port "$RSA_LO" --profile rsa-socket --client reference --junit "$REPORTS/rsa-socket-lo.xml"
run --host 127.0.0.1 --port "$HTTPS_LO" --profile aes-https --client reference --pin "$TLS/pinned.crt.pem" --skip-ats --user pi:raspberry --junit "$REPORTS/aes-https-lo.xml"
"$BIN" report --merge "$REPORTS/pi-selftest.xml" "$REPORTS"/*-ns.xml "$REPORTS"/*-lo.xml >/dev/null || status=1
xmllint --noout --schema Vectors/junit/JUnit.xsd "$REPORTS/pi-selftest.xml" 2>/dev/null || status=1
if [ -n "${PI_SELFTEST_LOAD:-}" ]; then
  for jobs in 1 8; do "$BIN" remote --host "$NS_ADDR" --port 9876 --profile rsa-socket --framing legacy --padding oaep-sha256 --direction phone-to-pi --load "$PI_SELFTEST_LOAD" -j "$jobs" || status=1; done
fi
[ "$status" = 0 ] && echo "pi-selftest: passed (report: $REPORTS/pi-selftest.xml)" || echo "pi-selftest: FAILED (reports in $REPORTS/)"
exit "$status"
