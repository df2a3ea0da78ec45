#!/bin/bash
# vitokhangnguyen/CBC-AES-MAC-Demo server.py @bccd9e76, unchanged, started by its own run_server.sh
# (flask run, 127.0.0.1:5000, keys from its .env via python-dotenv) with the venv first on PATH.
# Secrets: the two 16-character keys of its .env, as hex.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
export PATH=$CORPUS_VENV/bin:$PATH PYTHONPATH=$CORPUS/site-pycryptodome3  # Utils/Padding.py needs Crypto.Util.py3compat (PyCryptodome 3)
start_server $CORPUS/vitokhangnguyen+CBC-AES-MAC-Demo $RUNS/$TAG-vitokhangnguyen.server.log bash run_server.sh
wait_listen 5000 30 || exit 70
check vitokhangnguyen remote --host 127.0.0.1 --port 5000 --protocol examples/protocols/cbc-query-cmac.toml \
  --secret enc=6f39217a575723616e4b705a4a285254 --secret mac=7468786e655875744c3334524b536265
