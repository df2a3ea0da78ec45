#!/usr/bin/env bash
# Issue 33: `make install PREFIX=…` — crosscheck as a tool a team's repository uses without a checkout.
#   PREFIX/bin/crosscheck            the release binary
#   PREFIX/share/crosscheck/         what it reads: PythonRef/ (embedded and run as servers), Vectors/,
#                                    protocols/ (when the checkout has it), and the Swift package itself
#                                    (Package.swift, Sources/, Tests/) that `--app DIR` builds a team's app against;
#                                    docs/ and examples/ for reading.
# ProjectFiles finds PREFIX/share/crosscheck from PREFIX/bin (Sources/Conformance/ProjectFiles.swift).
# Usage: scripts/install.sh BINARY PREFIX   (DESTDIR is honoured, as packagers expect)
set -euo pipefail
binary=${1:?usage: scripts/install.sh BINARY PREFIX}
prefix=${2:?usage: scripts/install.sh BINARY PREFIX}
case "$prefix" in /*) ;; *) prefix="$PWD/$prefix" ;; esac
root="${DESTDIR:-}$prefix"
[ -x "$binary" ] || { echo "install: no crosscheck binary at $binary (make install builds it first)"; exit 66; }
share="$root/share/crosscheck"
mkdir -p "$root/bin" "$share"
# Replace the data wholesale: files a newer checkout removed must not linger.
staging="$share.new.$$"
rm -rf "$staging" && mkdir -p "$staging"
items=()
for item in Package.swift README.md Sources Tests PythonRef Vectors docs examples protocols; do
  [ -e "$item" ] && items+=("$item")
done
tar -cf - --exclude=__pycache__ --exclude=.pytest_cache --exclude='*.pyc' "${items[@]}" | tar -xf - -C "$staging"
rm -rf "$share.old.$$"
mv "$share" "$share.old.$$" && mv "$staging" "$share" && rm -rf "$share.old.$$"
install -m 0755 "$binary" "$root/bin/crosscheck"
echo "install: $root/bin/crosscheck and its data in $share (${items[*]})"
if [ -z "${DESTDIR:-}" ]; then
  case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "install: $prefix/bin is not on PATH; add it: export PATH=\"$prefix/bin:\$PATH\"" ;; esac
fi
