#!/bin/bash -eu
# ClusterFuzzLite (OSS-Fuzz's build system) builds crosscheck's libFuzzer targets with this script,
# in .clusterfuzzlite/Dockerfile's image, with the variables the service sets: $SRC (sources),
# $OUT (where fuzz targets go), $WORK (scratch), $SANITIZER (address, undefined or coverage),
# $CFLAGS/$CXXFLAGS (sanitizer and coverage flags for C and C++), $LIB_FUZZING_ENGINE, $CC, $CXX.
# `make test-cflite` runs it here with those variables set as the service sets them.
#
# The targets are `make libfuzzer`'s parser targets (Sources/crosscheck-fuzz, FuzzTargets): one
# copy of crosscheck-fuzz per family, named crosscheck-fuzz-FAMILY, since the service runs every
# binary in $OUT as one target and the binary picks its family from its own name. Each gets the
# seed corpus `make libfuzzer` uses (zipped as FAMILY's _seed_corpus.zip) and an .options file.
# Left out: `all` (the same parsers again, in one target) and `differential`, which embeds Debian's
# python3 with python3-cryptography and reads PythonRef at run time, neither of which the service's
# runner image has: run it with `make libfuzzer TARGET=differential`.
cd "$SRC/crosscheck"

TARGETS="rsa-socket keys-public keys-private json sealed https"

version=$(swift --version 2>&1 | sed -n 's/.*Swift version \([0-9][0-9]*\)\..*/\1/p' | sed -n 1p)
if [ "${version:-0}" -lt 6 ]; then
  echo "build.sh: crosscheck needs Swift 6; this image has: $(swift --version 2>&1 | sed -n 1p)." >&2
  echo "build.sh: install Swift 6 from swift.org in .clusterfuzzlite/Dockerfile (its Ubuntu 24.04 tarball)." >&2
  exit 1
fi

# SwiftPM's own sanitizer options for Swift code, the service's C flags for the C modules (-Xcc),
# and coverage instrumentation for every module: SwiftPM gives it only to the entry module under
# --sanitize=fuzzer (the Makefile's libfuzzer target does the same).
flags=(--static-swift-stdlib)
case "$SANITIZER" in
  address|undefined)
    flags+=(--sanitize=fuzzer "--sanitize=$SANITIZER"
            -Xswiftc -sanitize-coverage=edge,trace-cmp,indirect-calls,inline-8bit-counters,pc-table) ;;
  coverage)
    flags+=(--sanitize=fuzzer -Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping) ;;
  *)
    echo "build.sh: SANITIZER=$SANITIZER is not supported (address, undefined or coverage)" >&2
    exit 1 ;;
esac
if [ "$SANITIZER" != coverage ]; then
  for flag in $CFLAGS; do flags+=("-Xcc=$flag"); done
  for flag in $CXXFLAGS; do flags+=("-Xcxx=$flag"); done
fi
# OpenSSL comes with the targets (the runner image may have another one, or none): $OUT/lib.
flags+=(-Xlinker -rpath -Xlinker '$ORIGIN/lib')

scratch="${WORK:-/tmp}/crosscheck-swiftpm"
swift build -c debug --product crosscheck-fuzz --scratch-path "$scratch" "${flags[@]}"
binary="$scratch/debug/crosscheck-fuzz"

mkdir -p "$OUT/lib"
for library in $(ldd "$binary" | awk '/lib(ssl|crypto)\.so/ { print $3 }'); do
  cp -L "$library" "$OUT/lib/"
done
if [ -x /usr/local/bin/llvm-symbolizer-swift ]; then cp /usr/local/bin/llvm-symbolizer-swift "$OUT/llvm-symbolizer"; fi

for target in $TARGETS; do
  name="crosscheck-fuzz-$target"
  cp "$binary" "$OUT/$name"
  # The seed folders `make libfuzzer TARGET=…` uses, flattened into one zip (files named by content).
  # shellcheck disable=SC2046
  python3 - "$OUT/${name}_seed_corpus.zip" $(make -s libfuzzer-seeds TARGET="$target") <<'PY'
import hashlib, pathlib, sys, zipfile
seen = set()
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as corpus:
    for folder in sys.argv[2:]:
        for path in sorted(pathlib.Path(folder).rglob("*")):
            if path.is_file():
                data = path.read_bytes()
                name = hashlib.sha1(data).hexdigest()
                if name not in seen:
                    seen.add(name)
                    corpus.writestr(name, data)
if not seen:
    sys.exit(f"build.sh: no seed inputs for {sys.argv[1]} in {sys.argv[2:]}")
PY
  # `make libfuzzer`'s limits. Leaks are not reported: Swift keeps references in spare pointer
  # bits, which LeakSanitizer takes for leaks.
  cat > "$OUT/$name.options" <<OPTIONS
[libfuzzer]
max_len = 8192
timeout = 10
detect_leaks = 0

[asan]
detect_leaks = 0
OPTIONS
done
echo "build.sh: $(echo $TARGETS | wc -w) targets in $OUT"
