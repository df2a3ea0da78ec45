#!/bin/bash
# NithinYesudas/Networking_Lab_Python rsa_server.py @90560a4f, unchanged, run by the corpus venv's Python
# in its folder. It binds 127.0.0.5:8004 (this private namespace's lo holds 127.0.0.0/8) and serves one
# connection. Description: examples/protocols/pickled-key-per-character.toml.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $CORPUS/NithinYesudas+Networking_Lab_Python $RUNS/$TAG-nithinyesudas-pickled-key-per-character.server.log $PY -u rsa_server.py
wait_listen 8004 30 || exit 70
check nithinyesudas-pickled-key-per-character remote --host 127.0.0.5 --port 8004 --timeout 3 \
  --protocol examples/protocols/pickled-key-per-character.toml
