#!/bin/bash
# staugur/Python-SecureHTTP tests/webapp.py:app, in-process (run --server), unchanged.
# The repository root (for SecureHTTP.py), PyCryptodomex 3.24.2 ($CORPUS/site) and the venv's Flask on PYTHONPATH.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
export PYTHONPATH=$CORPUS/staugur+Python-SecureHTTP:$CORPUS/site:$CORPUS_VENV/lib/python3.11/site-packages
check staugur run --server $CORPUS/staugur+Python-SecureHTTP/tests/webapp.py:app \
  --protocol examples/protocols/form-rsa-key-cbc-iv-is-key.toml --server-log $RUNS/$TAG-staugur.server.log
