#!/bin/bash
# 23697-ipbeja/lpd-python copias/s.py @d833afc1 (the file is deleted at HEAD), unchanged: `python s.py`
# (127.0.0.1:55555; rsa from the venv). Its answers come from input(): stdin is /dev/null (no operator).
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $CORPUS/23697-ipbeja+lpd-python/copias $RUNS/$TAG-ipbeja.server.log $PY -u s.py </dev/null
wait_listen 55555 30 || exit 70
check ipbeja remote --host 127.0.0.1 --port 55555 --protocol examples/protocols/rsa-pkcs1-pem-chat.toml
