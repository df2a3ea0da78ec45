#!/bin/bash
# Dimestack/PaddingOracleAttackOverLocalhost server.py @13d1354b, unchanged: `python server.py` in its folder
# (PyCryptodome's Crypto from the venv). Binds 0.0.0.0:8080 inside this script's private network namespace.
# Its AES key is random per process and never leaves it: --secret psk is a random key of this run's, so
# the conversation cannot succeed (see the description's header).
# Description: $DESCRIPTIONS/dimestack-hex-cbc-padding.toml.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $CORPUS/Dimestack+PaddingOracleAttackOverLocalhost $RUNS/$TAG-dimestack-hex-cbc-padding.server.log $PY -u server.py
wait_listen 8080 30 || exit 70
check dimestack-hex-cbc-padding remote --host 127.0.0.1 --port 8080 \
  --protocol $DESCRIPTIONS/dimestack-hex-cbc-padding.toml \
  --secret psk=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
