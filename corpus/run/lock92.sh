#!/bin/bash
# Lock92/Cybersecurity-Sctipts EncryptedChannelServer.py @0a32a479, unchanged (127.0.0.1:1337).
# --secret psk: the source's key b"Sixteen byte key". PyCryptodome 3 (site-pycryptodome3).
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
export PYTHONPATH=$CORPUS/site-pycryptodome3
start_server $CORPUS/Lock92+Cybersecurity-Sctipts $RUNS/$TAG-lock92.server.log $PY -u EncryptedChannelServer.py
wait_listen 1337 30 || exit 70
check lock92 remote --host 127.0.0.1 --port 1337 --protocol examples/protocols/space-padded-length-byte.toml --secret psk=5369787465656e2062797465206b6579
