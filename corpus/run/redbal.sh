#!/bin/bash
# redbal/quick-scripts https/archive/https/https.py @e96c91ae, unchanged: `python https.py` in
# corpus/run/standins/redbal/, whose mycert.pem (cert + key; the repository's own is not usable) comes from
# `python3 -m pythonref server-cert --host localhost --host 127.0.0.1`, as the recorded r11/r12 runs did.
# Description: examples/protocols/gcm-tag-dropped-constant.toml with kind = "https" (its comment: "as the
# corpus run did"), copied to corpus/run/standins/redbal/. --pin: that certificate. PyCryptodome 3.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
export PYTHONPATH=$CORPUS/site-pycryptodome3
start_server $STANDINS/redbal $RUNS/$TAG-redbal.server.log $PY -u $CORPUS/redbal+quick-scripts/https/archive/https/https.py
wait_listen 8443 30 || exit 70
check redbal remote --host 127.0.0.1 --port 8443 --protocol $DESCRIPTIONS/redbal-gcm-tag-dropped-constant-https.toml \
  --pin $STANDINS/redbal/server.crt.pem --secret k=5369787465656e2062797465206b6579
