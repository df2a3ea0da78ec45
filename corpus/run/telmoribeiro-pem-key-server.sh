#!/bin/bash
# TelmoRibeiro/SdR-B src/server.py @a9db9be9, unchanged: `python server.py` in src/. It binds the
# hard-coded 25.6.175.231:5678, so inside the private namespace that address is put on `lo` first;
# nothing outside the namespace is reachable or contacted. It reads ./public_key.pem and
# ./private_key.pem, which the repository does not ship at HEAD: its own src/keysGenerator.py
# (PyCryptodome from the venv) makes them once, in src/. Only server.py and keysGenerator.py run.
# Description: $DESCRIPTIONS/telmoribeiro-pem-key-server.toml.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
ADDR=25.6.175.231
D=$CORPUS/TelmoRibeiro+SdR-B/src
ip addr add $ADDR/32 dev lo
[ -f $D/public_key.pem ] && [ -f $D/private_key.pem ] || ( cd $D && $PY keysGenerator.py ) || exit 71
start_server $D $RUNS/$TAG-telmoribeiro-pem-key-server.server.log $PY -u server.py </dev/null
wait_listen 5678 30 || exit 70
check telmoribeiro-pem-key-server remote --host $ADDR --port 5678 \
  --protocol $DESCRIPTIONS/telmoribeiro-pem-key-server.toml
