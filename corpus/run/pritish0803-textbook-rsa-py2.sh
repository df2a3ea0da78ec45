#!/bin/bash
# pritish0803/ECC_ALGO server.py @159e0c63, unchanged: `python2.7 server.py` in its folder ($PY2:
# Debian 11's python2.7 with PyCrypto 2.6.1, corpus/setup.sh). It binds port 7777 of the address its
# host name resolves to: that address is put on this private namespace's lo first (nothing outside
# the namespace is reachable or contacted). It serves one connection.
# Description: examples/protocols/textbook-rsa-pycrypto-tuple.toml.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
for name in "$(hostname)" "$(hostname -f 2>/dev/null)"; do
  a=$(getent hosts "$name" | awk '{print $1; exit}')
  case "$a" in ''|127.*|::1) ;; *) ip addr add "$a/32" dev lo 2>/dev/null ;; esac
done
ADDR=$(getent hosts "$(hostname -f 2>/dev/null || hostname)" | awk '{print $1; exit}')
start_server $CORPUS/pritish0803+ECC_ALGO $RUNS/$TAG-pritish0803-textbook-rsa-py2.server.log $PY2 -u server.py
wait_listen 7777 30 || exit 70
check pritish0803-textbook-rsa-py2 remote --host "${ADDR:-127.0.0.1}" --port 7777 \
  --protocol examples/protocols/textbook-rsa-pycrypto-tuple.toml
