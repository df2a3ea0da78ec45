#!/bin/bash
# adibhaider/Python-Client-Server network/server.py @41650689, unchanged: `python server.py` in network/
# (it reads ./key.key, which the repository ships; --secret psk is that key's base64url decoded to hex).
# Binds 127.0.0.1:5050 (hard-coded), serves one client and exits. venv's pyca cryptography.
# Description: $DESCRIPTIONS/adibhaider-fernet-close.toml.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
D=$CORPUS/adibhaider+Python-Client-Server/network
start_server $D $RUNS/$TAG-adibhaider-fernet-close.server.log $PY -u server.py
wait_listen 5050 30 || exit 70
check adibhaider-fernet-close remote --host 127.0.0.1 --port 5050 \
  --protocol $DESCRIPTIONS/adibhaider-fernet-close.toml \
  --secret psk=$($PY -c "import base64;print(base64.urlsafe_b64decode(open('$D/key.key','rb').read()).hex())")
