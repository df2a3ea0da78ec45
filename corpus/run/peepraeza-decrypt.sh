#!/bin/bash
# peepraeza/gmb-decrypt-app app.py @931df6ac, unchanged: `python app.py` in its folder (127.0.0.1:5000,
# debug=True: the reloader's child serves; the whole process group is stopped). The repository pins
# pycrypto 2.6.1 and Flask 1.1.2; this runs the venv's Flask and PyCryptodome (its Crypto package, which
# keeps Crypto.Random.new). Description: $DESCRIPTIONS/peepraeza-decrypt.toml.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $CORPUS/peepraeza+gmb-decrypt-app $RUNS/$TAG-peepraeza-decrypt.server.log $PY -u app.py
wait_listen 5000 60 || exit 70
check peepraeza-decrypt remote --host 127.0.0.1 --port 5000 --protocol $DESCRIPTIONS/peepraeza-decrypt.toml
