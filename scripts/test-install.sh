#!/usr/bin/env bash
# Issue 33: the installed tool used as a team uses it. `make install` into a temporary PREFIX, then
# from an empty folder outside the checkout: `crosscheck --version` must name PREFIX/share/crosscheck,
# `crosscheck init` writes crosscheck.toml, and `crosscheck remote` (no --client) passes the README's
# own Pi: PythonRef from the installed share, `serve rsa-socket --padding oaep-sha256 --digest`.
set -euo pipefail
checkout=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/crosscheck-install.XXXXXX)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
prefix="$work/prefix"
make -C "$checkout" --no-print-directory install PREFIX="$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
export PATH="$prefix/bin:$PATH"
mkdir "$work/team-repo" && cd "$work/team-repo"

version=$(crosscheck --version)
echo "$version"
grep -qxF "PythonRef: $prefix/share/crosscheck/PythonRef" <<<"$version" || { echo "test-install: --version does not name the installed PythonRef"; exit 1; }

mkfifo "$work/server.fifo"
(cd "$prefix/share/crosscheck/PythonRef" && exec /usr/bin/python3 -m pythonref serve rsa-socket --padding oaep-sha256 --digest \
   --host 127.0.0.1 --port 0 --quiet) >"$work/server.fifo" 2>"$work/server.err" &
server_pid=$!
# Ready when it prints "listening on HOST:PORT" (a read of its output, not a sleep).
exec 3<"$work/server.fifo"
port=""
if read -r -t 60 line <&3; then port=${line##*:}; fi
[ -n "$port" ] || { echo "test-install: the PythonRef server did not start"; cat "$work/server.err"; exit 1; }

crosscheck init --profile rsa-socket --host "127.0.0.1:$port"
status=0
crosscheck remote --junit "$work/remote.xml" || status=$?
echo "test-install: crosscheck remote exited $status"
[ "$status" = 0 ]
! grep -q 'seed-app\.' "$work/remote.xml" || { echo "test-install: the seed apps ran without being asked"; exit 1; }
echo "test-install: passed"
