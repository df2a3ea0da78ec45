#!/bin/bash
# VasilyevAA/PHd_system DS_server.py @2988c130 (with its DS_AES_256.py), unchanged: `python DS_server.py`
# in its folder; binds ('', 9090): inside this script's private network namespace. The passphrase is the
# source's secretKey, given as text.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $CORPUS/VasilyevAA+PHd_system $RUNS/$TAG-vasilyevaa.server.log $PY -u DS_server.py
wait_listen 9090 30 || exit 70
check vasilyevaa remote --host 127.0.0.1 --port 9090 --protocol examples/protocols/passphrase-cbc32-json.toml --secret psk=TopSecretKey
