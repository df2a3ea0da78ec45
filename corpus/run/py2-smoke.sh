#!/bin/bash
# The corpus server written for Python 2 that the description format cannot state yet
# (corpus/servers.json: needs-feature), run unchanged under Python 2.7 ($PY2: Debian 11's
# python2.7 with PyCrypto 2.6.1, corpus/setup.sh) in this script's private network namespace, and
# driven through one exchange by its own client.py, to show that it runs and answers. No verdict:
# nothing here is crosscheck's. Logs: $RUNS/$TAG-py2-smoke.*.log. Exit 0 when it completed its exchange.
# (The other two are described and checked: run/pritish0803-textbook-rsa-py2.sh and
# run/proporygon-ogre-directory-route.sh.)
#   kenken28/vpn server.py @9ddf6d08: gethostname():50007; passphrase, port and "@r" on stdin
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
L=$RUNS/$TAG-py2-smoke
fail=0
# a server that binds its host name's address: put that address on this namespace's lo
for name in "$(hostname)" "$(hostname -f 2>/dev/null)"; do
  a=$(getent hosts "$name" | awk '{print $1; exit}')
  case "$a" in ''|127.*|::1) ;; *) ip addr add "$a/32" dev lo 2>/dev/null ;; esac
done

echo "== kenken28/vpn server.py (client: its own client.py)"
printf 'correct horse battery\n\n@r\n' > $L.kenken28.stdin
start_server $CORPUS/kenken28+vpn $L.kenken28.server.log sh -c "exec $PY2 -u server.py <$L.kenken28.stdin"
if wait_listen 50007 30; then
  ( cd $CORPUS/kenken28+vpn && ( printf 'correct horse battery\n\n\nhello pi@s\n'; sleep 1; printf '@e\n' ) | setsid $PY2 -u client.py ) > $L.kenken28.client.log 2>&1
fi
sleep 0.5; stop_server; cat $L.kenken28.server.log
grep -q "^hello pi" $L.kenken28.server.log || fail=1
echo "py2-smoke: exit=$fail"
exit $fail
