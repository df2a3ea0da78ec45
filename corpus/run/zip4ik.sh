#!/bin/bash
# zip4ik/aes-decryptor app.py @4a9a7f6b, unchanged: `python app.py` (binds 0.0.0.0:5000, inside this
# script's private network namespace: loopback only). Flask from the venv, pyca from Debian.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $CORPUS/zip4ik+aes-decryptor $RUNS/$TAG-zip4ik.server.log $PY -u app.py
wait_listen 5000 30 || exit 70
check zip4ik remote --host 127.0.0.1 --port 5000 --protocol examples/protocols/gcm-key-in-request.toml
