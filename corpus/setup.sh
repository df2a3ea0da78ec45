#!/bin/bash
# corpus/setup.sh: the Python the corpus servers run on, under $CORPUS (default /work/corpus):
#   venv/                  Debian's python3 with its packages, plus the servers' own from PyPI
#   site/                  PyCryptodomex 3.24.2 (staugur's SecureHTTP imports Cryptodome)
#   site-pycryptodome3/    PyCryptodome 3 (servers that use Crypto.Util.py3compat, gone in 4)
#   py2/bin/python2.7      Debian 11's Python 2.7, and site-py2/ PyCrypto 2.6.1 for it (below)
# Only PyPI and Debian's own mirror are reached. Safe to run again.
set -eu
CORPUS=${CORPUS:-/work/corpus}
mkdir -p "$CORPUS"
[ -x "$CORPUS/venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$CORPUS/venv"
"$CORPUS/venv/bin/pip" install -q --disable-pip-version-check flask json5 pycryptodome fastapi uvicorn rsa requests python-dotenv
"$CORPUS/venv/bin/pip" install -q --disable-pip-version-check --target "$CORPUS/site" 'pycryptodomex==3.24.2'
"$CORPUS/venv/bin/pip" install -q --disable-pip-version-check --target "$CORPUS/site-pycryptodome3" 'pycryptodome>=3.20,<4'

# Python 2.7, for the corpus servers written for it (pritish0803/ECC_ALGO, ProPorygon/TheOgreProtocol,
# kenken28/vpn: `print "…"`, `except E, e`, raw_input). Debian 12 has no Python 2; Debian 11 (bullseye)
# still ships python2.7, so a minimal bullseye tree is made with debootstrap (from Debian's own
# mirror, its default) in $PY2_ROOT (default /srv/bullseye-py2). The servers run its python2.7
# through its own dynamic loader with --library-path (no chroot: the snapshots' paths stay as they
# are); $CORPUS/py2/bin/python2.7, made below, is that command (lib.sh's PY2).
#   site-py2/   what they import: PyCrypto 2.6.1 (`Crypto`; PyPI has only its source, so it is built
#               inside the bullseye tree with bullseye's gcc and python2.7-dev) and termcolor 1.1.0
#               (pure Python). PyCrypto itself, not PyCryptodome: these servers call RSA's textbook
#               key.decrypt() and AES.new(key) with no mode (ECB), which PyCryptodome refuses.
PY2_ROOT=${PY2_ROOT:-/srv/bullseye-py2}
if [ ! -x "$PY2_ROOT/usr/bin/python2.7" ]; then
  command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap; }
  debootstrap --variant=minbase --include=python2.7 bullseye "$PY2_ROOT"
fi
if [ ! -f "$CORPUS/site-py2/Crypto/Cipher/_AES.so" ] || [ ! -f "$CORPUS/site-py2/termcolor.py" ]; then
  chroot "$PY2_ROOT" /bin/sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc libc6-dev python2.7-dev'
  B=$PY2_ROOT/tmp/corpus-py2-build
  rm -rf "$B" && mkdir -p "$B"
  "$CORPUS/venv/bin/pip" download -q --disable-pip-version-check --no-deps --no-binary :all: \
    --no-build-isolation -d "$B" 'pycrypto==2.6.1' 'termcolor==1.1.0'
  chroot "$PY2_ROOT" /bin/sh -c 'cd /tmp/corpus-py2-build && tar xzf pycrypto-2.6.1.tar.gz && tar xzf termcolor-1.1.0.tar.gz && cd pycrypto-2.6.1 && python2.7 setup.py -q build'
  rm -rf "$CORPUS/site-py2" && mkdir -p "$CORPUS/site-py2"
  cp -r "$B/pycrypto-2.6.1/build/lib.linux-x86_64-2.7/Crypto" "$CORPUS/site-py2/"
  cp "$B/termcolor-1.1.0/termcolor.py" "$CORPUS/site-py2/"
fi
mkdir -p "$CORPUS/py2/bin"
LDSO=$(ls "$PY2_ROOT"/usr/lib/x86_64-linux-gnu/ld-*.so | head -1)
printf '%s\n' '#!/bin/sh' \
  "# made by corpus/setup.sh: Debian 11's python2.7 in $PY2_ROOT, through its own loader, with site-py2" \
  "exec env PYTHONHOME='$PY2_ROOT/usr' PYTHONPATH='$CORPUS/site-py2'\${PYTHONPATH:+:\$PYTHONPATH} '$LDSO' --library-path '$PY2_ROOT/usr/lib/x86_64-linux-gnu' '$PY2_ROOT/usr/bin/python2.7' \"\$@\"" \
  > "$CORPUS/py2/bin/python2.7"
chmod +x "$CORPUS/py2/bin/python2.7"
"$CORPUS/py2/bin/python2.7" -c 'import Crypto, termcolor; assert Crypto.__version__ == "2.6.1"'
echo "corpus/setup.sh: $CORPUS/venv, site, site-pycryptodome3, py2/bin/python2.7 and site-py2 are ready"
