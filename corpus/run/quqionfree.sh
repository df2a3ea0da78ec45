#!/bin/bash
# quqiOnfree/rsa-encryption-server main.py @27824b09, unchanged (python main.py in its folder; it binds
# 127.0.0.1:5000 and reads data/pri.pem, which the repository ships). PyCryptodome, json5 from the venv.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
D=$CORPUS/quqiOnfree+rsa-encryption-server
start_server $D $RUNS/$TAG-quqionfree.server.log $PY -u main.py
wait_listen 5000 30 || exit 70
check quqionfree remote --host 127.0.0.1 --port 5000 --protocol examples/protocols/pkcs1-decrypt-service.toml \
  --public-key server=$D/data/pub.pem
