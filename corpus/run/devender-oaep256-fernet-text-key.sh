#!/bin/bash
# DEVENDER-SINGH22/Secure-LAN-communication server.py @400d5ae8, unchanged: `python server.py` in its folder;
# binds 0.0.0.0:5000 (inside this script's private network namespace); serves one client and exits.
# Description: $DESCRIPTIONS/devender-oaep256-fernet-text-key.toml (the stop-40 corpus variant).
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $CORPUS/DEVENDER-SINGH22+Secure-LAN-communication $RUNS/$TAG-devender-oaep256-fernet-text-key.server.log $PY -u server.py
wait_listen 5000 30 || exit 70
check devender-oaep256-fernet-text-key remote --host 127.0.0.1 --port 5000 \
  --protocol $DESCRIPTIONS/devender-oaep256-fernet-text-key.toml
