#!/bin/bash
# Michael-Jimenez-C/proyecto-redes-servidor servidor.py @c4e9c6a7, unchanged: `python servidor.py`
# (Flask's app.run on 0.0.0.0:5000, inside this script's private network namespace). The sensor library
# Adafruit_DHT needs a Pi: corpus/run/standins/michael/Adafruit_DHT.py is a stand-in on PYTHONPATH.
# --secret k: the source's ChaCha20 key.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
export PYTHONPATH=$STANDINS/michael
start_server $CORPUS/Michael-Jimenez-C+proyecto-redes-servidor $RUNS/$TAG-michael.server.log $PY -u servidor.py
wait_listen 5000 30 || exit 70
check michael remote --host 127.0.0.1 --port 5000 --protocol examples/protocols/chacha20-latin1-reading.toml --secret k=8325c94c2fbd05dc76229992a4766cb0bf595188136acc517d51766934088815
