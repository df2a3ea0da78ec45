#!/bin/bash
# paste-bin/challenges Dump/Binary/pudel/pudel.py @97c5f267, unchanged, as corpus/run/standins/pudel.sh runs it (key.bin
# from corpus/run/standins/pudel, its hex as --secret psk; binds ('', 1043) inside this script's private network
# namespace), against the stop-40 variant description $DESCRIPTIONS/pudel-errors-length.toml.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $STANDINS/pudel $RUNS/$TAG-pudel-errors-length.server.log $PY -u $CORPUS/paste-bin+challenges/Dump/Binary/pudel/pudel.py
wait_listen 1043 30 || exit 70
check pudel-errors-length remote --host 127.0.0.1 --port 1043 --protocol $DESCRIPTIONS/pudel-errors-length.toml \
  --secret psk=$(od -An -tx1 $STANDINS/pudel/key.bin | tr -d ' \n')
