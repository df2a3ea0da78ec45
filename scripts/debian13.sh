#!/usr/bin/env bash
# make test-debian13: crosscheck on Debian 13 ("trixie": Python 3.13, its python3-cryptography,
# OpenSSL 3.5), in a chroot made with debootstrap, from a fresh clone of this checkout's HEAD.
#
#   scripts/debian13.sh [--rebuild] [--keep] [--help]
#     --rebuild  make the chroot again (after changing BASE_PACKAGES, or for a newer point release)
#     --keep     keep this run's overlay (debian13-run/upper: the clone, its .build and reports)
#
# The chroot (debootstrap minbase, plus what the Swift toolchain needs at run time and to link) is
# made once under $DEBIAN13_CACHE/debian13 (default /var/cache/crosscheck) and kept: it is built in
# debian13.partial/ and renamed only once complete (a marker file records it), so an interrupted
# creation is never taken for a complete one; it is removed and made again the next time.
# Each run works on an overlay of that chroot (debian13-run/, emptied at the start of every run), so
# every run starts from the same chroot and its `make deps` really installs the Makefile's
# DEBIAN_PACKAGES by their Debian 13 names; downloaded .debs are kept in apt-archives/.
#
# Into the chroot: the host's Debian apt sources with Debian 13's suite names, the host's apt proxy
# settings, pip settings (/etc/pip.conf, ~/.config/pip/pip.conf, PIP_* and *_proxy variables) and
# local CA certificates (/usr/local/share/ca-certificates). The host's Swift toolchain (the directory
# `swift` is in) is bind-mounted read-only at the same path. Inside, as root, in /build/crosscheck:
#   1. git clone of HEAD, then `make deps`       (network: apt-get, PyPI for .venv-current)
#   2. the versions: Python, pyca/cryptography, OpenSSL, Swift
#   3. make interop                               (network namespace of its own: loopback only)
#   4. make test-python (PythonRef's pytest)      (loopback only)
#   5. make test-zoo (the zoo's pytest)           (loopback only)
# Every step runs even when one before it failed (except after a failed clone or `make deps`).
# Each phase runs in its own mount and PID namespace (unshare): the mounts (overlay, /proc, /sys,
# /dev, the toolchain) are unmounted by a trap when the phase ends, and disappear with the namespace
# even if the trap cannot run; every process the phase started ends with it.
#
# Output: each step's command, its log under reports/debian13/ (of this checkout), a summary.
# Exit: 0 every step passed; 1 a step failed; 69 a tool or the network is missing (the message says
# what to do); 77 not root; 130 interrupted.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
rebuild=0; keep=0
for argument in "$@"; do
  case "$argument" in
    -h|--help) usage; exit 0;;
    --rebuild) rebuild=1;;
    --keep) keep=1;;
    *) echo "debian13: unknown argument '$argument' (see scripts/debian13.sh --help)"; exit 64;;
  esac
done

checkout=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${DEBIAN13_CACHE:-/var/cache/crosscheck}
BASE=$CACHE/debian13
PARTIAL=$CACHE/debian13.partial
RUN=$CACHE/debian13-run
ARCHIVES=$CACHE/apt-archives
DEBS=$CACHE/debootstrap-debs
MARKER=.crosscheck-debian13-complete
SUITE=trixie
REPORTS=$checkout/reports/debian13
# Swift's run-time and link-time needs on Debian 13 (swift.org's list for Debian 12, in trixie's
# names: the t64 libraries, GCC 14; `swift build` links with /usr/bin/ld.gold, binutils-gold in trixie).
BASE_PACKAGES=ca-certificates,git,make,binutils,binutils-gold,gcc,libc6-dev,libgcc-14-dev,libstdc++-14-dev,libcurl4t64,libxml2,libedit2,libncurses6,libsqlite3-0,libuuid1,zlib1g-dev,tzdata,procps,iproute2

say() { echo "debian13: $*"; }
die() { local status=$1; shift; echo "debian13: $*" >&2; exit "$status"; }

[ "$(id -u)" = 0 ] || die 77 "needs root (debootstrap, chroot, mounts, namespaces): run sudo make test-debian13"
for tool in unshare chroot mount ip; do
  command -v "$tool" >/dev/null || die 69 "no '$tool' on the host (apt-get install util-linux mount iproute2)"
done
if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap on the host (apt-get install debootstrap)"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; } \
    || die 69 "cannot install debootstrap: run apt-get install debootstrap, then make test-debian13 again"
fi
[ -f /usr/share/debootstrap/scripts/$SUITE ] || die 69 "this debootstrap ($(debootstrap --version)) does not know $SUITE: apt-get install -t bookworm-backports debootstrap, or a newer one"
swift_bin=$(command -v swift) || die 69 "no swift on PATH: put the Swift 6 toolchain's usr/bin on PATH (see README)"
swift_bin=$(readlink -f "$swift_bin")
TOOLCHAIN=$(dirname "$(dirname "$(dirname "$swift_bin")")")   # …/usr/bin/swift -> the toolchain root
[ -x "$TOOLCHAIN/usr/bin/swift" ] || die 69 "cannot tell the Swift toolchain's root from $swift_bin"
case "$TOOLCHAIN" in /|/usr|/usr/local) die 69 "the Swift toolchain is installed into $TOOLCHAIN, not a directory of its own: bind-mounting it would hide the chroot's own files; unpack swift.org's tarball under /opt and put its usr/bin on PATH";; esac
head=$(git -C "$checkout" rev-parse HEAD)
if [ -n "$(git -C "$checkout" status --porcelain --untracked-files=no)" ]; then
  say "note: the work tree has uncommitted changes; the chroot tests HEAD ($head) only: commit first to test them"
fi

# ---- apt sources: the host's Debian mirrors, with Debian 13's suite names ----------------------------
host_codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
# "URI SUITE" for each enabled Debian source of the host whose suite is the host's release (or its
# -updates/-security); others (third-party repositories, backports, disabled files) are not copied.
host_sources() {
  local file
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$file" ] || continue
    sed -e 's/#.*//' "$file" | awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } print $i, $(i + 1) }'
  done
  for file in /etc/apt/sources.list.d/*.sources; do
    [ -f "$file" ] || continue
    awk 'BEGIN { RS = ""; FS = "\n" }
         { uris = ""; suites = ""; types = ""; enabled = "yes"
           for (n = 1; n <= NF; n++) {
             line = $n; if (line ~ /^#/) continue
             if (line ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", line); uris = line }
             if (line ~ /^Suites:/) { sub(/^Suites:[ \t]*/, "", line); suites = line }
             if (line ~ /^Types:/) { sub(/^Types:[ \t]*/, "", line); types = line }
             if (line ~ /^Enabled:/) { sub(/^Enabled:[ \t]*/, "", line); enabled = line } }
           if (types !~ /(^| )deb( |$)/ || enabled == "no") next
           split(uris, u, /[ \t]+/); split(suites, s, /[ \t]+/)
           for (a in u) for (b in s) if (u[a] != "" && s[b] != "") print u[a], s[b] }' "$file"
  done
}
main_uri=${DEBIAN13_MIRROR:-}; security_uri=""; updates=0
while read -r uri suite; do
  case "$suite" in
    "$host_codename") [ -n "$main_uri" ] || main_uri=$uri;;
    "$host_codename-updates") updates=1;;
    "$host_codename-security"|"$host_codename/updates") [ -n "$security_uri" ] || security_uri=$uri;;
  esac
done < <([ -n "$host_codename" ] && host_sources | sort -u)
if [ -z "$main_uri" ]; then
  main_uri=http://deb.debian.org/debian
  say "no Debian source for '$host_codename' among the host's apt sources: using $main_uri (DEBIAN13_MIRROR=URI to choose)"
fi
sources_file() {
  printf 'Types: deb\nURIs: %s\nSuites: %s%s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$main_uri" "$SUITE" "$([ "$updates" = 1 ] && echo " $SUITE-updates")"
  if [ -n "$security_uri" ]; then
    printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$security_uri" "$SUITE"
  fi
}

# ---- what the host's apt, pip and TLS settings are, copied into a root --------------------------------
copy_host_settings() {
  local root=$1
  sources_file > "$root/etc/apt/sources.list.d/debian.sources"
  : > "$root/etc/apt/sources.list"
  # Only proxy settings from the host's apt configuration (the rest is the host's own business).
  apt-config dump 2>/dev/null | grep -E '^Acquire::[a-z]+::Proxy' > "$root/etc/apt/apt.conf.d/90crosscheck-host-proxy" || true
  [ -f /etc/pip.conf ] && cp /etc/pip.conf "$root/etc/pip.conf"
  if [ -f "${HOME:-/root}/.config/pip/pip.conf" ]; then
    mkdir -p "$root/root/.config/pip" && cp "${HOME:-/root}/.config/pip/pip.conf" "$root/root/.config/pip/pip.conf"
  fi
  if compgen -G "/usr/local/share/ca-certificates/*" >/dev/null; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
  fi
  chroot "$root" /usr/sbin/update-ca-certificates >/dev/null 2>&1 || die 69 "update-ca-certificates failed in $root"
}
# The environment inside: PATH with the toolchain, the host's PIP_* and proxy variables.
chroot_env=(env -i HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive
            "PATH=$TOOLCHAIN/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
while IFS='=' read -r name value; do
  case "$name" in PIP_*|http_proxy|https_proxy|no_proxy|HTTP_PROXY|HTTPS_PROXY|NO_PROXY) chroot_env+=("$name=$value");; esac
done < <(env)

mkdir -p "$CACHE" "$ARCHIVES" "$DEBS" "$REPORTS"
# One run at a time: runs share the chroot and the overlay's directories.
exec 9>"$CACHE/debian13.lock"
flock -n 9 || die 75 "another make test-debian13 is running (it holds $CACHE/debian13.lock); wait for it, or DEBIAN13_CACHE=DIR for a chroot of your own"

# ---- the chroot, made once ---------------------------------------------------------------------------
if [ "$rebuild" = 1 ] && [ -d "$BASE" ]; then say "--rebuild: removing $BASE"; rm -rf "$BASE"; fi
if [ -d "$BASE" ] && [ ! -f "$BASE/$MARKER" ]; then
  say "$BASE has no $MARKER (an interrupted creation): removing it and making it again"
  rm -rf "$BASE"
fi
if [ ! -d "$BASE" ]; then
  [ -d "$PARTIAL" ] && { say "removing the half-made $PARTIAL of an interrupted creation"; rm -rf "$PARTIAL"; }
  say "making the Debian 13 chroot in $PARTIAL: debootstrap --variant=minbase $SUITE $main_uri (a few minutes; kept for the next runs)"
  started=$SECONDS
  # In a mount namespace of its own: whatever debootstrap mounts goes away with it, even on Ctrl-C.
  if ! nice -n 10 unshare --mount --propagation private --kill-child --fork \
      debootstrap --variant=minbase --cache-dir="$DEBS" --include="$BASE_PACKAGES" \
      "$SUITE" "$PARTIAL" "$main_uri" > "$REPORTS/debootstrap.log" 2>&1; then
    tail -n 15 "$REPORTS/debootstrap.log" | sed 's/^/  debootstrap| /'
    die 69 "debootstrap failed (log: $REPORTS/debootstrap.log); is $main_uri reachable? DEBIAN13_MIRROR=URI chooses another mirror"
  fi
  copy_host_settings "$PARTIAL"
  # Every shared library the toolchain's programs and libraries need must be found in the chroot
  # (LLDB's Python 3.10 aside: the debugger is not used here).
  missing=$(unshare --mount --propagation private --fork bash -c '
      mkdir -p "$1$2" && mount --bind -o ro "$2" "$1$2" &&
      chroot "$1" env LD_LIBRARY_PATH=$2/usr/lib/swift/linux:$2/usr/lib sh -c "for f in $2/usr/bin/swift-frontend $2/usr/bin/swift-build $2/usr/bin/swift-package $2/usr/bin/swift-test $2/usr/bin/clang $2/usr/lib/swift/linux/*.so; do ldd \$f; done" ' _ "$PARTIAL" "$TOOLCHAIN" \
    | grep 'not found' | grep -v -e libpython3 | sort -u || true)
  if [ -n "$missing" ]; then
    echo "$missing" | sed 's/^/  /'
    die 69 "the Swift toolchain at $TOOLCHAIN needs libraries Debian 13's $BASE_PACKAGES do not provide (above): add their packages to BASE_PACKAGES in scripts/debian13.sh"
  fi
  echo "made $(date -u +%Y-%m-%dT%H:%M:%SZ) from $main_uri; packages: $BASE_PACKAGES" > "$PARTIAL/$MARKER"
  mv "$PARTIAL" "$BASE"
  say "chroot made in $((SECONDS - started)) s: $BASE"
else
  say "using the chroot made before: $BASE ($(cut -d' ' -f2 "$BASE/$MARKER"); --rebuild makes it again)"
  copy_host_settings "$BASE"   # the host's settings may have changed since
fi

# ---- each run: an overlay of the chroot ---------------------------------------------------------------
rm -rf "$RUN"; mkdir -p "$RUN/upper" "$RUN/work" "$RUN/merged"
rm -f "$REPORTS"/{deps,versions,interop,pythonref,zoo}.log "$REPORTS/junit.xml"

# phase NETWORK COMMAND: COMMAND (shell, in /build/crosscheck) inside the chroot, in mount and PID
# namespaces of their own, and with NETWORK=loopback in a network namespace with only lo up.
phase() {
  local network=$1 command=$2
  local flags=(--mount --propagation private --pid --fork --kill-child)
  [ "$network" = loopback ] && flags+=(--net)
  unshare "${flags[@]}" bash -c '
    set -u
    merged=$1 run=$2 base=$3 toolchain=$4 archives=$5 network=$6; shift 6
    cleanup() {
      # Innermost first; -l: a busy mount goes when its last user does (the namespace ends anyway).
      for m in "$merged$toolchain" "$merged/var/cache/apt/archives" "$merged/dev/shm" "$merged/dev/pts" "$merged/dev" "$merged/sys" "$merged/proc" "$merged"; do
        mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
      done
    }
    trap cleanup EXIT
    trap "exit 130" INT TERM
    mount -t overlay overlay -o "lowerdir=$base,upperdir=$run/upper,workdir=$run/work" "$merged" || exit 71
    mount -t proc proc "$merged/proc"
    mount -t sysfs -o ro sysfs "$merged/sys"
    mount -t tmpfs -o mode=755 tmpfs "$merged/dev"
    for d in null zero full random urandom tty; do touch "$merged/dev/$d"; mount --bind "/dev/$d" "$merged/dev/$d"; done
    mkdir -p "$merged/dev/pts" "$merged/dev/shm"
    mount -t devpts -o newinstance,ptmxmode=0666 devpts "$merged/dev/pts"; ln -s pts/ptmx "$merged/dev/ptmx"
    mount -t tmpfs tmpfs "$merged/dev/shm"
    ln -s /proc/self/fd "$merged/dev/fd"; ln -s /proc/self/fd/0 "$merged/dev/stdin"
    ln -s /proc/self/fd/1 "$merged/dev/stdout"; ln -s /proc/self/fd/2 "$merged/dev/stderr"
    mkdir -p "$merged$toolchain" "$merged/var/cache/apt/archives"
    mount --bind "$toolchain" "$merged$toolchain" && mount -o remount,bind,ro "$merged$toolchain"
    mount --bind "$archives" "$merged/var/cache/apt/archives"
    [ "$network" = loopback ] && ip link set lo up
    cp /etc/resolv.conf "$merged/etc/resolv.conf" 2>/dev/null || true
    chroot "$merged" "$@"
  ' _ "$RUN/merged" "$RUN" "$BASE" "$TOOLCHAIN" "$ARCHIVES" "$network" \
    "${chroot_env[@]}" bash -c "cd /build/crosscheck && $command"
}

names=(); results=(); commands=()
# step NAME NETWORK COMMAND [LABEL]: runs one step, its output to the terminal and
# reports/debian13/NAME.log; LABEL stands for COMMAND in the summary.
step() {
  local name=$1 network=$2 command=$3 label=${4:-$3} status=0 started=$SECONDS
  echo; say "== $name: $command   (in the chroot, /build/crosscheck; network: $network)"
  phase "$network" "$command" 2>&1 | tee "$REPORTS/$name.log" || status=${PIPESTATUS[0]}
  [ "$status" = 130 ] && { say "interrupted"; exit 130; }
  names+=("$name"); commands+=("$label")
  if [ "$status" = 0 ]; then results+=("passed ($((SECONDS - started)) s)"); else results+=("FAILED, exit $status ($((SECONDS - started)) s)"); fi
  return "$status"
}
summary() {
  echo; say "summary (Debian 13 chroot $BASE, crosscheck $head; logs in $REPORTS/):"
  local i failed=0
  for i in "${!names[@]}"; do
    printf '  %-10s %-34s %s\n' "${names[$i]}" "${commands[$i]}" "${results[$i]}"
    case "${results[$i]}" in FAILED*) failed=1;; esac
  done
  return "$failed"
}
finish() {
  local status=$?
  if [ "$keep" = 0 ] && [ -d "$RUN" ]; then rm -rf "$RUN"; fi
  exit "$status"
}
trap finish EXIT
trap 'echo; say "interrupted (apt-get lets a running dpkg finish first); the chroot mounts and processes end with the run"; exit 130' INT TERM

# The clone, made on the host into the overlay's upper layer (no mount needed), at HEAD.
mkdir -p "$RUN/upper/build"
git clone --quiet --no-checkout "$checkout" "$RUN/upper/build/crosscheck"
git -C "$RUN/upper/build/crosscheck" -c advice.detachedHead=false checkout --quiet --detach "$head"
say "cloned $checkout at $head ($(git -C "$checkout" log -1 --format=%s "$head" | cut -c1-80))"

if ! step deps host "make deps"; then
  summary || true
  die 1 "make deps failed in the Debian 13 chroot (log: $REPORTS/deps.log): the steps after it were not run"
fi
step versions loopback 'echo "Debian $(cat /etc/debian_version)"; python3 --version;
  python3 -c "import cryptography, ssl; from cryptography.hazmat.backends.openssl import backend as b; print(\"python3-cryptography\", cryptography.__version__, \"on\", b.openssl_version_text(), \"| python ssl:\", ssl.OPENSSL_VERSION)";
  .venv-current/bin/python -c "import cryptography; from cryptography.hazmat.backends.openssl import backend as b; print(\".venv-current: cryptography\", cryptography.__version__, \"on\", b.openssl_version_text())";
  openssl version; swift --version 2>&1 | head -n 1; pkg-config --modversion python3-embed | sed "s/^/python3-embed (what crosscheck embeds): /"' \
  "python3, pyca, OpenSSL, swift --version" || true
step interop loopback "nice -n 10 make interop" || true
mkdir -p "$REPORTS" && cp "$RUN/upper/build/crosscheck/reports/junit.xml" "$REPORTS/junit.xml" 2>/dev/null \
  && say "its report: $REPORTS/junit.xml"
step pythonref loopback "make test-python" || true
step zoo loopback "make test-zoo" || true
summary
