#!/bin/bash
# corpus/setup.sh: the Python the corpus servers run on, under $CORPUS (default /work/corpus):
#   venv/                  Debian's python3 with its packages, plus the servers' own from PyPI
#   site/                  PyCryptodomex 3.24.2 (staugur's SecureHTTP imports Cryptodome)
#   site-pycryptodome3/    PyCryptodome 3 (servers that use Crypto.Util.py3compat, gone in 4)
# Only PyPI is reached. Safe to run again.
set -eu
CORPUS=${CORPUS:-/work/corpus}
mkdir -p "$CORPUS"
[ -x "$CORPUS/venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$CORPUS/venv"
"$CORPUS/venv/bin/pip" install -q --disable-pip-version-check flask json5 pycryptodome fastapi uvicorn rsa
"$CORPUS/venv/bin/pip" install -q --disable-pip-version-check --target "$CORPUS/site" 'pycryptodomex==3.24.2'
"$CORPUS/venv/bin/pip" install -q --disable-pip-version-check --target "$CORPUS/site-pycryptodome3" 'pycryptodome>=3.20,<4'
echo "corpus/setup.sh: $CORPUS/venv, site and site-pycryptodome3 are ready"
