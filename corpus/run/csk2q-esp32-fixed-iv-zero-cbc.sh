#!/bin/bash
# csk2q/5577-IoT miniProject2/server.py @3e71ec39, unchanged: `python server.py` in its folder (Flask and
# PyCryptodome's Crypto from the venv). Binds 0.0.0.0:8888 inside this script's private network namespace.
# Description: $DESCRIPTIONS/csk2q-esp32-fixed-iv-zero-cbc.toml; the key is the source's constant.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $CORPUS/csk2q+5577-IoT/miniProject2 $RUNS/$TAG-csk2q-esp32-fixed-iv-zero-cbc.server.log $PY -u server.py
wait_listen 8888 60 || exit 70
check csk2q-esp32-fixed-iv-zero-cbc remote --host 127.0.0.1 --port 8888 \
  --protocol $DESCRIPTIONS/csk2q-esp32-fixed-iv-zero-cbc.toml \
  --secret aes=$(printf '1234567890abcdef' | od -An -tx1 | tr -d ' \n')
