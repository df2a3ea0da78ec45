#!/bin/bash
# goelmedha1/Secure_ChatBox server.py @82b7ba65, unchanged: `python server.py` in its folder (rsa 4.9.1
# from the venv). It binds the hard-coded 172.31.114.173:9999, so inside the private namespace that
# address is put on `lo` first; nothing outside the namespace is reachable or contacted.
# Its answers come from input(): stdin is /dev/null (no operator). It serves one client.
# Description: $DESCRIPTIONS/goelmedha1-rsa-pem-chat.toml.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
ADDR=172.31.114.173
ip addr add $ADDR/32 dev lo
start_server $CORPUS/goelmedha1+Secure_ChatBox $RUNS/$TAG-goelmedha1-rsa-pem-chat.server.log $PY -u server.py </dev/null
wait_listen 9999 30 || exit 70
check goelmedha1-rsa-pem-chat remote --host $ADDR --port 9999 \
  --protocol $DESCRIPTIONS/goelmedha1-rsa-pem-chat.toml
