#!/bin/bash
# dianaxime/Lab6-Cifrado-PublicKeyEncription server.py @c0fc146a, unchanged, run by the corpus venv's
# Python (PyCryptodome for `Crypto.Util.number.getPrime`) from a scratch working directory, where it
# writes its fresh key (servpub.key, servpriv.key) once a client has connected; it imports rsa.py from
# beside itself. 127.0.0.1:9999, one connection. Description:
# examples/protocols/per-character-rsa-echo.toml. The key crosscheck encrypts to is the
# repository's committed servpub.key (e = 431, n = 589): the one a client that reads the file before
# it connects holds, since the server makes its own only after accepting.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
SNAPSHOT=$CORPUS/dianaxime+Lab6-Cifrado-PublicKeyEncription
[ -d "$SNAPSHOT" ] || { echo "no snapshot at $SNAPSHOT: fetch the server first (corpus/README.md)" >&2; exit 66; }
SCRATCH=$(mktemp -d) && trap 'rm -rf "$SCRATCH"' EXIT
start_server "$SCRATCH" $RUNS/$TAG-dianaxime-per-character-rsa-echo.server.log $PY -u $SNAPSHOT/server.py
trap 'stop_server; rm -rf "$SCRATCH"' EXIT INT TERM
wait_listen 9999 30 || exit 70
check dianaxime-per-character-rsa-echo remote --host 127.0.0.1 --port 9999 --timeout 3 \
  --protocol examples/protocols/per-character-rsa-echo.toml \
  --public-key server=$SNAPSHOT/servpub.key
rc=$?
# Once the client has gone, its loop prints two empty lines a turn for ever (megabytes a second): keep the start.
stop_server; truncate -s '<65536' $RUNS/$TAG-dianaxime-per-character-rsa-echo.server.log
exit $rc
