#!/usr/bin/env bash
# `make test-cflite`: .clusterfuzzlite/build.sh run the way ClusterFuzzLite runs it, with the
# variables its builder sets for an AddressSanitizer build (infra/base-images/base-builder in
# OSS-Fuzz: SANITIZER, CFLAGS, CXXFLAGS, LIB_FUZZING_ENGINE, CC, CXX, SRC, OUT, WORK), then every
# target it wrote run once on an input of its own seed corpus, as a runner would start it.
#
# SRC holds a link to this checkout (the Dockerfile copies it to $SRC/crosscheck); OUT is
# reports/cflite/out (emptied first), WORK reports/cflite/work (kept: the next build is incremental).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
base="$root/reports/cflite"
mkdir -p "$base/work"
rm -rf "$base/out" "$base/src" "$base/run"
mkdir -p "$base/out" "$base/src" "$base/run"
ln -s "$root" "$base/src/crosscheck"

toolchain=$(dirname "$(command -v swift)")
export SRC="$base/src" OUT="$base/out" WORK="$base/work"
export CC="$toolchain/clang" CXX="$toolchain/clang++"
export SANITIZER=address
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS -stdlib=libc++"

started=$(date +%s)
bash "$SRC/crosscheck/.clusterfuzzlite/build.sh"
echo "test-cflite: build.sh took $(( $(date +%s) - started )) s"

# What the service finds in $OUT: an executable per target with libFuzzer's entry point, its
# seed corpus and options; OpenSSL beside them, found through the $ORIGIN/lib run path.
expected="crosscheck-fuzz-rsa-socket crosscheck-fuzz-keys-public crosscheck-fuzz-keys-private crosscheck-fuzz-json crosscheck-fuzz-sealed crosscheck-fuzz-https"
found=$(cd "$OUT" && find . -maxdepth 1 -type f -perm -u+x -name 'crosscheck-fuzz-*' | sed 's|^\./||' | sort | tr '\n' ' ')
if [ "$found" != "$(echo "$expected" | tr ' ' '\n' | sort | tr '\n' ' ')" ]; then
  echo "test-cflite: FAIL: targets in $OUT are '$found', expected '$expected'"; exit 1
fi
failures=0
for name in $expected; do
  binary="$OUT/$name"
  grep -q LLVMFuzzerTestOneInput "$binary" || { echo "test-cflite: FAIL: $name has no LLVMFuzzerTestOneInput"; failures=$((failures + 1)); }
  ssl=$(ldd "$binary" | awk '/libssl\.so/ { print $3 }')
  case "$ssl" in "$OUT"/lib/*) ;; *) echo "test-cflite: FAIL: $name loads libssl from '$ssl', not $OUT/lib"; failures=$((failures + 1));; esac
  if ldd "$binary" | grep -q 'libswiftCore\.so'; then echo "test-cflite: FAIL: $name needs the Swift runtime library (not linked statically)"; failures=$((failures + 1)); fi
  [ -f "$OUT/$name.options" ] || { echo "test-cflite: FAIL: no $name.options"; failures=$((failures + 1)); }
  # One seed input, as the runner unpacks the corpus, run once under the target's options.
  rm -rf "$base/run/$name" && mkdir -p "$base/run/$name"
  (cd "$base/run/$name" && unzip -q "$OUT/${name}_seed_corpus.zip")
  count=$(find "$base/run/$name" -type f | wc -l)
  input=$(find "$base/run/$name" -type f | sort | sed -n 1p)
  status=0
  ASAN_OPTIONS=detect_leaks=0 "$binary" -runs=1 -max_len=8192 -timeout=10 "$input" > "$base/run/$name.log" 2>&1 || status=$?
  if [ "$status" != 0 ] || ! grep -q "Executed $input" "$base/run/$name.log"; then
    echo "test-cflite: FAIL: $name on $input exited $status:"; tail -5 "$base/run/$name.log"; failures=$((failures + 1))
  else
    echo "test-cflite: $name: ran one of its $count seed inputs, exit 0"
  fi
done

# The binary picks its family from its name: an unknown one is refused at once, naming the families.
cp "$OUT/crosscheck-fuzz-json" "$base/run/crosscheck-fuzz-nosuchfamily"
status=0
"$base/run/crosscheck-fuzz-nosuchfamily" -runs=1 "$input" > "$base/run/nosuchfamily.log" 2>&1 || status=$?
if [ "$status" != 64 ] || ! grep -q "no target 'nosuchfamily'" "$base/run/nosuchfamily.log"; then
  echo "test-cflite: FAIL: a target named crosscheck-fuzz-nosuchfamily exited $status:"; tail -3 "$base/run/nosuchfamily.log"; failures=$((failures + 1))
fi

if [ "$failures" != 0 ]; then echo "test-cflite: $failures problem(s)"; exit 1; fi
echo "test-cflite: 6 targets built by build.sh and run, passed"
