#!/bin/bash
# robertaalcantara/AES-e-RSA TCP_server.py @0fc9ba21, unchanged, on Python 3 (it is Python 3 code:
# f-strings; Python 2.7 refuses it with a SyntaxError). Its entry TCP_main_server.py calls
# TCP_server_RSA(66), a function of no arguments (TypeError before it listens), so the function is
# called as it is, once: `python -c 'import TCP_server; TCP_server.TCP_server_RSA()'` (PyCryptodome
# from the venv). It writes public_key.pem, private.pem and arquivo_recebido.txt into its working
# folder, so it runs in a fresh one under $RUNS with the snapshot on PYTHONPATH (-B: no .pyc there):
# the snapshot is left as fetched. It binds the hard-coded 123.123.123.123:55443, so inside the
# private namespace that address is put on `lo` first; nothing outside the namespace is reachable or
# contacted. It serves one client and answers nothing.
# Description: $DESCRIPTIONS/robertaalcantara-oaep-chunks.toml.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
ADDR=123.123.123.123
SRC=$CORPUS/robertaalcantara+AES-e-RSA
[ -d $SRC ] || { echo "no snapshot at $SRC: fetch the server first (corpus/README.md)" >&2; exit 66; }
W=$RUNS/$TAG-robertaalcantara-oaep-chunks.work
rm -rf $W && mkdir -p $W
ip addr add $ADDR/32 dev lo
export PYTHONPATH=$SRC
start_server $W $RUNS/$TAG-robertaalcantara-oaep-chunks.server.log $PY -B -u -c 'import TCP_server; TCP_server.TCP_server_RSA()'
wait_listen 55443 60 || exit 70
check robertaalcantara-oaep-chunks remote --host $ADDR --port 55443 \
  --protocol $DESCRIPTIONS/robertaalcantara-oaep-chunks.toml
