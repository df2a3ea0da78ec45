#!/bin/bash
# 23697-ipbeja/lpd-python copias/s.py @d833afc1 (the file is deleted at HEAD), unchanged: `python s.py`
# (127.0.0.1:55555; rsa from the venv). Its answers come from input(): stdin is /dev/null (no operator).
# It runs from a scratch folder holding s.py alone: its own folder's rsa.py is another module (a
# Python 2 teaching RSA, `print err`) that would shadow the PyPI rsa s.py calls (rsa.newkeys,
# rsa.PublicKey.load_pkcs1) and stop it with a SyntaxError before it listens.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
SNAPSHOT=$CORPUS/23697-ipbeja+lpd-python/copias
[ -f "$SNAPSHOT/s.py" ] || { echo "no snapshot at $SNAPSHOT: fetch the server first (corpus/README.md)" >&2; exit 66; }
SCRATCH=$(mktemp -d) && cp "$SNAPSHOT/s.py" "$SCRATCH/"
start_server $SCRATCH $RUNS/$TAG-ipbeja.server.log $PY -u s.py </dev/null
trap 'stop_server; rm -rf "$SCRATCH"' EXIT INT TERM
wait_listen 55555 30 || exit 70
check ipbeja remote --host 127.0.0.1 --port 55555 --protocol examples/protocols/rsa-pkcs1-pem-chat.toml
