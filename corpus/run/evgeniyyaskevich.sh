#!/bin/bash
# evgeniyyaskevich/cryptography server.py @aec12715, unchanged: `python server.py` (Flask's app.run():
# 127.0.0.1:5000). Flask and rsa from the venv.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $CORPUS/evgeniyyaskevich+cryptography $RUNS/$TAG-evgeniyyaskevich.server.log $PY -u server.py
wait_listen 5000 30 || exit 70
check evgeniyyaskevich remote --host 127.0.0.1 --port 5000 --protocol examples/protocols/json-ne-login-session-key.toml
