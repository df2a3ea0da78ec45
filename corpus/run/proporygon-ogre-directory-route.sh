#!/bin/bash
# ProPorygon/TheOgreProtocol directory_authority.py @f683b01c, unchanged: `python2.7 directory_authority.py
# 9000` in its folder ($PY2: Debian 11's python2.7 with PyCrypto 2.6.1 and termcolor, corpus/setup.sh),
# on 127.0.0.1:9000, with its committed key (dir_auth_priv_key.pem; crosscheck gets dir_auth_pub_key.pem).
# Description: examples/protocols/ogre-directory-route.toml (registrations first, then a route).
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
start_server $CORPUS/ProPorygon+TheOgreProtocol $RUNS/$TAG-proporygon-ogre-directory-route.server.log $PY2 -u directory_authority.py 9000
wait_listen 9000 30 || exit 70
check proporygon-ogre-directory-route remote --host 127.0.0.1 --port 9000 --timeout 3 \
  --protocol examples/protocols/ogre-directory-route.toml \
  --public-key server=$CORPUS/ProPorygon+TheOgreProtocol/dir_auth_pub_key.pem
