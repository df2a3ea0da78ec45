#!/bin/bash
# TiagoOliveiraSantos/CursoTomorrow Cloud-Edge_Computing/Aula5/server.py @c066ff2f, unchanged. It imports
# `chave` (the Fernet key), which the repository does not ship: corpus/run/standins/tiago/chave.py, a key from
# Fernet.generate_key(), is put on PYTHONPATH; --secret chave is its 32 bytes. Binds localhost:12345.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
export PYTHONPATH=$STANDINS/tiago
start_server $CORPUS/TiagoOliveiraSantos+CursoTomorrow/Cloud-Edge_Computing/Aula5 $RUNS/$TAG-tiago.server.log $PY -u server.py
wait_listen 12345 30 || exit 70
check tiago remote --host 127.0.0.1 --port 12345 --protocol examples/protocols/fernet-json-reading.toml --secret chave=3c6a1d6ea28f63a5cd15856a015327a803a710f7e8ca9546fc9e80b4112eea3d
