#!/bin/bash
# nanxuanhui/Iot_miniproject miniproject2/server.py @5edea81d, unchanged: `python server.py` in its folder
# (Flask from the venv, PyCryptodome's Crypto from the venv; debug=True: the reloader's child serves, the
# whole process group is stopped). Binds 0.0.0.0:8888 inside this script's private network namespace.
# Description: $DESCRIPTIONS/nanxuanhui-ecb-json-reading.toml; the key is the source's constant.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $CORPUS/nanxuanhui+Iot_miniproject/miniproject2 $RUNS/$TAG-nanxuanhui-ecb-json-reading.server.log $PY -u server.py
wait_listen 8888 60 || exit 70
check nanxuanhui-ecb-json-reading remote --host 127.0.0.1 --port 8888 \
  --protocol $DESCRIPTIONS/nanxuanhui-ecb-json-reading.toml \
  --secret aes=$(printf '12345678901234567890123456789012' | od -An -tx1 | tr -d ' \n')
