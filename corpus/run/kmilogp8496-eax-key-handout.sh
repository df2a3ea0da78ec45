#!/bin/bash
# kmilogp8496/seguridad, unchanged, run as its dev.sh runs it: server.py (flask run, port 5000) and
# key_generator.py (port 5001), both reading the repository's .env (the key generator's URL,
# http://0.0.0.0:5001: this namespace's own). Description: $DESCRIPTIONS/kmilogp8496-eax-key-handout.toml;
# the client's preshared key is key_generator.py's keys["client"].
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $CORPUS/kmilogp8496+seguridad $RUNS/$TAG-kmilogp8496-eax-key-handout.server.log \
  bash -c "$PY -m flask --app key_generator.py --debug run --port 5001 & exec $PY -m flask --app server.py --debug run"
wait_listen 5001 30 || exit 70
wait_listen 5000 30 || exit 70
check kmilogp8496-eax-key-handout remote --host 127.0.0.1 --port 5000 \
  --protocol $DESCRIPTIONS/kmilogp8496-eax-key-handout.toml --secret device=ada368f0f5db82ee3b561839232daa77
