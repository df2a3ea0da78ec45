#!/bin/bash
# A00820449/security-class-excercises ex3/server.py @fcb328e1, unchanged, as corpus/run/standins/a00820449.sh runs it
# (working directory corpus/run/standins/a00820449: private.pem, not in the repository, a 2048-bit openssl pair;
# port 1100 hard-coded on 127.0.0.1), against $DESCRIPTIONS/a00820449-preshared-oaep-sha1.toml.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $STANDINS/a00820449 $RUNS/$TAG-a00820449-preshared-oaep-sha1.server.log \
  $PY -u $CORPUS/A00820449+security-class-excercises/ex3/server.py
wait_listen 1100 30 || exit 70
check a00820449-preshared-oaep-sha1 remote --host 127.0.0.1 --port 1100 \
  --protocol $DESCRIPTIONS/a00820449-preshared-oaep-sha1.toml \
  --public-key server=$STANDINS/a00820449/public.pem
