#!/bin/bash
# Giridharaprasath/EncryptAndDecrypt Salsa20/Salsa20_Server.py @f04dfa50, unchanged; binds ('', 12345):
# inside this script's private network namespace. Its key is random and sent in the clear. PyCryptodome 3.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
export PYTHONPATH=$CORPUS/site-pycryptodome3
start_server $CORPUS/Giridharaprasath+EncryptAndDecrypt/Salsa20 $RUNS/$TAG-giridharaprasath.server.log $PY -u Salsa20_Server.py
wait_listen 12345 30 || exit 70
check giridharaprasath remote --host 127.0.0.1 --port 12345 --protocol examples/protocols/salsa20-key-in-clear.toml
