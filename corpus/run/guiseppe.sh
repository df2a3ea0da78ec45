#!/bin/bash
# guiseppe-zanacci/aes_over_internet decryptor.py @efb0f9ec, unchanged: `python decryptor.py`. Its
# config.py is corpus/run/standins/guiseppe/config.py (config_example.py's key and IV; port 5000, endpoint "upload"
# as the description has them), on PYTHONPATH. Flask from the venv, pyca from Debian.
. "$(dirname "$0")/lib.sh"
in_netns "$0" "$@"
export PYTHONPATH=$STANDINS/guiseppe
start_server $CORPUS/guiseppe-zanacci+aes_over_internet $RUNS/$TAG-guiseppe.server.log $PY -u decryptor.py
wait_listen 5000 30 || exit 70
check guiseppe remote --host 127.0.0.1 --port 5000 --protocol examples/protocols/fixed-iv-cbc-upload.toml --secret psk=DFC170B2F484BB16CEA0EE8FFF53E21F
