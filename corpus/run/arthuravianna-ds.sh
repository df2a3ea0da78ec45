#!/bin/bash
# arthuravianna/uff-web3-course chapter_02_cryptography/exercises/digital_signature/solution/ds_server.py
# @8da131df, unchanged: `python -m uvicorn ds_server:app --host 127.0.0.1 --port 8000` in its folder, where
# it reads public_key.pem (shipped). --private-key signer: the private_key.pem shipped beside it.
# (The recorded run used a fresh P-256 pair from openssl instead.)
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
D=$CORPUS/arthuravianna+uff-web3-course/chapter_02_cryptography/exercises/digital_signature/solution
start_server $D $RUNS/$TAG-arthuravianna-ds.server.log $PY -m uvicorn ds_server:app --host 127.0.0.1 --port 8000
wait_listen 8000 30 || exit 70
check arthuravianna-ds remote --host 127.0.0.1 --port 8000 --protocol examples/protocols/ecdsa-signed-message.toml --private-key signer=$D/private_key.pem
