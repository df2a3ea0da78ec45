#!/bin/bash
# arthuravianna/uff-web3-course chapter_02_cryptography/exercises/cipher/solution/cipher_server.py @8da131df,
# unchanged: `python -m uvicorn cipher_server:app --host 127.0.0.1 --port 8000` (FastAPI, uvicorn,
# PyCryptodome from the venv). --secret psk: the source's KEY b'0123456789012345'.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $CORPUS/arthuravianna+uff-web3-course/chapter_02_cryptography/exercises/cipher/solution $RUNS/$TAG-arthuravianna-cipher.server.log \
  $PY -m uvicorn cipher_server:app --host 127.0.0.1 --port 8000
wait_listen 8000 30 || exit 70
check arthuravianna-cipher remote --host 127.0.0.1 --port 8000 --protocol examples/protocols/salsa20-json-nonce.toml --secret psk=30313233343536373839303132333435
