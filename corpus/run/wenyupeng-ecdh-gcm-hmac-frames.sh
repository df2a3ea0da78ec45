#!/bin/bash
# wenyupeng/securex demo/run_server.py @d97951f0, unchanged, run by the corpus venv's Python from the
# repository's root with it on PYTHONPATH (demo/run_server.py imports the securex package beside demo/;
# Debian's pyca serves the cryptography it asks for). 127.0.0.1:65432, one client after another.
# Description: examples/protocols/ecdh-gcm-hmac-frames.toml.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $CORPUS/wenyupeng+securex $RUNS/$TAG-wenyupeng-ecdh-gcm-hmac-frames.server.log \
  env PYTHONPATH=$CORPUS/wenyupeng+securex $PY -u demo/run_server.py
wait_listen 65432 30 || exit 70
check wenyupeng-ecdh-gcm-hmac-frames remote --host 127.0.0.1 --port 65432 --timeout 3 \
  --protocol examples/protocols/ecdh-gcm-hmac-frames.toml
