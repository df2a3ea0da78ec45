# crosscheck: the verbs users type. `make interop` runs the in-process harness and writes JUnit;
# `make test` runs the test suites (Swift, PythonRef's pytest, JUnit schema validation).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

SWIFT       ?= swift
PYTHON      := /usr/bin/python3
JUNIT       ?= reports/junit.xml
SEED        ?=
# Zero compiler warnings, kept so by the build itself: every build here turns warnings into errors
# (the same flags everywhere, so switching between make targets never rebuilds from scratch).
SWIFT_FLAGS := -Xswiftc -warnings-as-errors
RELEASE_BIN := .build/release/crosscheck
DEBUG_BIN   := .build/debug/crosscheck

# Debian packages crosscheck needs: headers it compiles against, the Python it embeds, the
# tools its tests use. `make deps` installs the missing ones as root, or prints the command.
DEBIAN_PACKAGES := pkg-config openssl libssl-dev python3 python3-dev python3-cryptography \
                   python3-pytest libxml2-utils libcurl4-openssl-dev iproute2 systemd curl \
                   chromium python3-junitparser python3-venv testssl.sh python3-flask python3-pycryptodome

.PHONY: venv-current vectors-implicit-rejection test-interop-current test-debian13 test-key-pool
.PHONY: help deps build interop test test-ats test-swift test-units test-python test-junit test-reports bench clean vectors wycheproof wycheproof-unseen vendor-wycheproof pi pi-selftest test-pi-selftest fuzz libfuzzer mutants described-mutants described-seed-verdicts test-zoo corpus

help:
	@echo "crosscheck make targets:"
	@echo "  make interop   build (release) and run every suite in-process; JUnit to $(JUNIT)"
	@echo "  make interop BASELINE=old.xml  the same, then what changed since old.xml; exits 1 on regressions only"
	@echo "  make interop APP=DIR  the same with your app as the app under test: DIR's Swift files and an adapter (docs/REFERENCE.md: Bring your own app)"
	@echo "  make test      Swift tests, PythonRef and zoo pytest, a schema check of a real JUnit report, junitparser over every report, the systemd units, make mutants"
	@echo "                 (five lanes at once after one build; logs in reports/test-logs/)"
	@echo "  make bench     speed figures vs their baselines (python3 spawns, openssl speed, the Python server), each MET or NOT MET; exit 1 if one is not"
	@echo "  make vectors   regenerate Vectors/openssl/ with the openssl command, then check both implementations and the CLI"
	@echo "  make wycheproof  the vendored Wycheproof files on both implementations; JUnit to reports/wycheproof.xml"
	@echo "  make wycheproof-unseen  fresh Wycheproof-format files (new keys and parameters) through crosscheck wycheproof"
	@echo "  make pi HOST=… [PORT=…] [PROFILE=rsa-socket|aes-https] [PIN=cert] [ACCOUNT=name:pw]  check a live server"
	@echo "  make pi-selftest  the same against a namespace test host (root)"
	@echo "  make fuzz [FRAMES=n] [SEED=n] [JOBS=n]  differential fuzzing, Swift vs PythonRef (default 1,000,000 frames, a new seed each run,"
	@echo "                 one worker per core); reproducers in reports/fuzz-failures/, seeds and results in reports/fuzz-seeds.log"
	@echo "  make libfuzzer [TARGET=name] [SECONDS=n]  libFuzzer + AddressSanitizer (default 600 s): TARGET rsa-socket, keys-public,"
	@echo "                 keys-private, json, sealed, https, all (Swift parsers) or differential (Swift vs PythonRef); reports/libfuzzer/TARGET/"
	@echo "  make test-ci   the CI templates (ci/*.yml, .clusterfuzzlite/): their CI's schema, yamllint, every make/crosscheck command they run"
	@echo "  make test-cflite  .clusterfuzzlite/build.sh as ClusterFuzzLite runs it, then each target it built once on a seed input"
	@echo "  make mutants [ONLY=name,…] [LINK=loopback|slow-link|both] [JOBS=n]  crosscheck remote against the zoo of independent"
	@echo "                 servers (Tests/Zoo), on loopback and behind a slow link with the server at 10 % of a core; tables of verdicts"
	@echo "  make described-mutants [ONLY=name,…] [DLINK=loopback|slow-link|both] [DJOBS=3]  crosscheck remote --protocol against the described zoo"
	@echo "                 (Tests/DescribedZoo): each correct server passes, each plant fails; loopback by default, DLINK=slow-link behind the slow link"
	@echo "  make deps      install missing Debian packages (as root) or print the command to run; make venv-current"
	@echo "  make venv-current  .venv-current/: Debian's python3 with a current cryptography from PyPI (OpenSSL >= 3.2)"
	@echo "  make vectors-implicit-rejection  regenerate Vectors/implicit-rejection/ on that cryptography"
	@echo "  make test-ats [ATS_ANCHOR=name,…|all]  crosscheck ats against the zoo's TLS configurations, compared with testssl.sh"
	@echo "  make test-interop-current  every suite with .venv-current as the embedded Python's packages (current pyca); JUnit to reports/interop-current.xml"
	@echo "  make test-debian13  (root) a Debian 13 chroot (debootstrap, kept in DEBIAN13_CACHE=$(DEBIAN13_CACHE)): a clone of HEAD,"
	@echo "                 make deps, make interop, PythonRef's and the zoo's pytest on Python 3.13; logs in reports/debian13/"
	@echo "                 (DEBIAN13_ARGS=--rebuild makes the chroot again; scripts/debian13.sh --help)"
	@echo "  make install [PREFIX=/usr/local]  crosscheck in PREFIX/bin, what it reads in PREFIX/share/crosscheck (a team's repository uses it from PATH)"
	@echo "  make test-install  make install into a temporary PREFIX, then crosscheck --version, init and remote from a folder outside the checkout"
	@echo "  make test-ci-team  the CI templates for a team's repositories (ci/team/): schema, yamllint, their make and crosscheck commands"
	@echo "Options: JUNIT=path SEED=n BASELINE=path APP=dir"

deps:
	@missing=""; \
	for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "deps: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "deps: missing Debian packages:$$missing"; \
	    echo "deps: run: sudo apt-get update && sudo apt-get install -y$$missing"; \
	    exit 69; \
	  fi; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "deps: no Swift toolchain on PATH (Swift 6 is required; see swift.org/install)"; exit 69; }
	@$(MAKE) --no-print-directory venv-current

# Issue 18: a Pi on OpenSSL >= 3.2 (implicit rejection for PKCS#1 v1.5), as a venv of Debian's Python
# with a current pyca/cryptography from PyPI (its wheels bundle their own OpenSSL). Made once; the
# zoo's current-OpenSSL servers, pi-selftest's second Pi and the vectors' generator run on it.
VENV_CURRENT := .venv-current
VENV_PYTHON  := $(VENV_CURRENT)/bin/python
venv-current: $(VENV_PYTHON)
$(VENV_PYTHON):
	@rm -rf $(VENV_CURRENT).tmp
	@$(PYTHON) -m venv $(VENV_CURRENT).tmp || { echo "venv-current: $(PYTHON) -m venv failed (Debian package python3-venv; make deps installs it)"; exit 69; }
	@$(VENV_CURRENT).tmp/bin/pip install --quiet --disable-pip-version-check --timeout 30 'cryptography>=42' || { \
	  rm -rf $(VENV_CURRENT).tmp; echo "venv-current: cannot install cryptography from PyPI (is pypi.org reachable? a proxy: export HTTPS_PROXY)"; exit 69; }
	@$(VENV_CURRENT).tmp/bin/python -c 'from cryptography.hazmat.backends.openssl import backend as b; import sys; \
	  sys.exit(0 if b.openssl_version_number() >= 0x30200000 else "venv-current: this cryptography links " + b.openssl_version_text() + ", not OpenSSL >= 3.2")'
	@mv $(VENV_CURRENT).tmp $(VENV_CURRENT)
	@echo "venv-current: $$($(VENV_PYTHON) -c 'import cryptography; from cryptography.hazmat.backends.openssl import backend as b; print("cryptography", cryptography.__version__, "on", b.openssl_version_text())') in $(VENV_CURRENT)/"

# Regenerate Vectors/implicit-rejection/vectors.json (new keys, new ciphertexts) on the current
# cryptography; PythonRef's tests/test_implicit_rejection.py checks its implicit rejection against it.
vectors-implicit-rejection: venv-current
	$(VENV_PYTHON) Vectors/implicit-rejection/generate.py

build: deps
	$(SWIFT) build $(SWIFT_FLAGS) -c release --product crosscheck

# `make interop BASELINE=old.xml`: after the run, `crosscheck report --diff old.xml $(JUNIT)`; the
# target then exits as the diff does (1 on regressions only, 65 on a partial or empty report), or
# with the run's own status when the run could not finish (69, 73, 130...).
BASELINE    ?=
APP         ?=
interop: build
	@status=0; $(RELEASE_BIN) run --junit $(JUNIT) $(if $(SEED),--seed $(SEED),) $(if $(APP),--app $(APP),) || status=$$?; \
	if [ -z "$(BASELINE)" ] || { [ $$status != 0 ] && [ $$status != 1 ]; }; then exit $$status; fi; \
	echo "make interop: changes since $(BASELINE):"; \
	$(RELEASE_BIN) report --diff $(BASELINE) $(JUNIT)

# `make test` builds once, then runs its stages in five lanes at once (scripts/test-lanes.sh, logs in
# reports/test-logs/). Alone, much of each lane waits on servers, subprocesses and deadlines; together
# they keep CI's 2 cores busy (at 88d8f76: 19m32s of CPU in the longest lane's 10m33s), so what
# shortens the run is CPU cut anywhere, which each lane's CPU time, printed as it ends, shows. The Swift tests are split in three: the CLI tests that build app packages,
# host team servers and run remote and fuzz; the described-protocol CLI tests (remote audits of test
# servers); and the rest. They run the built test bundle directly: `swift test` holds SwiftPM's lock
# on .build for its whole run, which would make the other lanes (and each other) wait. The Python
# stages are split in two: the suites and single runs, and the zoos' many runs. The report consumer
# runs last, over every report the lanes wrote. Keep the whole run well under 15 minutes on CI.
XCTEST         := .build/debug/crosscheckPackageTests.xctest
# The described lane waits most (timing and deadline probes): it also takes the remote CLI tests and
# the key-storage audit's, which otherwise kept the apps lane running alone on one core for the
# last minute (ea6625e: lanes ended at 8m58s … 11m26s, the apps lane last).
TEST_LANE_APPS := CLITests.AppCLITests CLITests.TeamServerCLITests CLITests.FuzzCLITests CLITests.RemoteOracleCLITests
TEST_LANE_DESCRIBED := CLITests.DescribedProtocolCLITests CLITests.ATSCLITests CLITests.TeamRepositoryCLITests \
                       CLITests.ReportHTMLBrowserTests CLITests.RemoteCLITests CLITests.KeyStorageAuditCLITests
comma := ,
empty :=
space := $(empty) $(empty)
# Every process of the run takes its RSA keys from one cache (made by the first to need each; the
# n-th key a process makes is the cache's n-th: distinct within a process, the same across them):
# key generation was the largest share of the run's CPU (WireCrypto's RSATestKeyCache says why).
# Test runs only: a user's `make interop`, `make mutants` or `crosscheck remote` makes fresh keys.
# A fresh checkout (every CI run) starts the cache from Tests/TestKeys/, the keys one whole run made:
# making them again took about 2 minutes of CPU (Tests/TestKeys/README.md). Files already there stay.
TEST_KEY_POOL := Tests/TestKeys/rsa-test-keys.tar.gz
test: export CROSSCHECK_TEST_KEY_CACHE := $(CURDIR)/.build/test-key-cache
test: deps
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	mkdir -p "$$CROSSCHECK_TEST_KEY_CACHE" && tar -xzf $(TEST_KEY_POOL) -C "$$CROSSCHECK_TEST_KEY_CACHE" --skip-old-files
	rest=$$($(XCTEST) --list-tests | grep -E '^[A-Za-z]+\.[A-Za-z]+/' | cut -d/ -f1 | sort -u \
	        | grep -vxF -e $(subst $(space), -e ,$(strip $(TEST_LANE_APPS) $(TEST_LANE_DESCRIBED))) | paste -sd, -); \
	bash scripts/test-lanes.sh \
	    "swift-apps=$(XCTEST) $(subst $(space),$(comma),$(TEST_LANE_APPS))" \
	    "swift-described=$(XCTEST) $(subst $(space),$(comma),$(TEST_LANE_DESCRIBED))" \
	    "swift-rest=$(XCTEST) $$rest" \
	    "python=$(MAKE) --no-print-directory test-python test-zoo test-units test-ci test-ci-team test-junit test-pi-selftest test-interop-current" \
	    "zoo-runs=$(MAKE) --no-print-directory mutants described-mutants test-ats"
	$(MAKE) --no-print-directory test-reports
	@echo "make test: all test stages passed"

test-swift:
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	$(SWIFT) test --skip-build

# The Pi's systemd units, as Raspberry Pi OS's systemd reads them: any warning fails.
test-units:
	bash scripts/verify-units.sh

test-python:
	cd PythonRef && $(PYTHON) -m pytest -q tests

# The zoo's own servers (Tests/Zoo), checked with a minimal client of their own, without crosscheck.
# (test_ats_anchor.py needs the crosscheck binary and testssl.sh: `make test-ats` runs it.)
test-zoo:
	$(PYTHON) -m pytest -q Tests/Zoo --ignore=Tests/Zoo/test_ats_anchor.py
	$(PYTHON) -m pytest -q -p no:cacheprovider Tests/DescribedZoo

# Issue 21: `crosscheck ats` against the zoo's TLS configurations, anchored to Debian's testssl.sh
# (protocols, forward secrecy, certificate). testssl.sh takes a minute or more per server, so by
# default three configurations that differ in protocols, forward secrecy and signature hash; ATS_ANCHOR=all for all nine.
ATS_ANCHOR ?= ats-tls10-11-only,ats-rsa-key-exchange-only,ats-sha1-signature
test-ats: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product crosscheck
	CROSSCHECK=$(DEBUG_BIN) ATS_ANCHOR=$(if $(filter all,$(ATS_ANCHOR)),,$(ATS_ANCHOR)) $(PYTHON) -m pytest -q Tests/Zoo/test_ats_anchor.py

# The Pi stand-in in a network namespace: runs when root can create namespaces, says so otherwise.
test-pi-selftest:
	@status=0; bash scripts/pi-selftest.sh || status=$$?; \
	if [ $$status = 77 ]; then echo "make test: pi-selftest skipped (see the line above)"; elif [ $$status != 0 ]; then exit $$status; fi

# `make pi HOST=raspberrypi.local [PORT=9876] [PROFILE=rsa-socket] [PIN=cert.pem] [ACCOUNT=name:password]`
HOST    ?=
PORT    ?=
PROFILE ?= rsa-socket
pi: build
	@[ -n "$(HOST)" ] || { echo "make pi: say which server, e.g. make pi HOST=raspberrypi.local"; exit 64; }
	$(RELEASE_BIN) remote --host $(HOST) $(if $(PORT),--port $(PORT),) --profile $(PROFILE) $(if $(PIN),--pin $(PIN),) $(if $(ACCOUNT),--user $(ACCOUNT),) --junit reports/pi.xml

pi-selftest: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product crosscheck
	bash scripts/pi-selftest.sh

# Issue 30: every suite with the embedded Python's packages from .venv-current (`--python`: the
# embedded interpreter takes its prefix, and so the venv's site-packages, from that executable):
# PythonRef on a current pyca/cryptography with its own OpenSSL (>= 3.2), the stand-in for a Pi on a
# current image, beside Debian's python3-cryptography in test-junit. Its own report,
# reports/interop-current.xml, which test-reports reads with the others. Last in its lane of
# `make test`, so that its failures do not stop the stages before it.
test-interop-current: venv-current
	$(SWIFT) build $(SWIFT_FLAGS) --product crosscheck
	$(DEBUG_BIN) run --quiet --seed 1 --python $(VENV_PYTHON) --junit reports/interop-current.xml

# Issue 30: Debian 13 (Python 3.13, python3-cryptography 43, OpenSSL 3.5) in a debootstrap chroot,
# made once and kept in $(DEBIAN13_CACHE)/debian13: a clone of HEAD, make deps, make interop,
# test-python and test-zoo there (scripts/debian13.sh --help). Needs root; installs debootstrap on
# the host when it is missing. Not part of `make test` (it takes far longer than its budget).
DEBIAN13_CACHE ?= /var/cache/crosscheck
DEBIAN13_ARGS  ?=
test-debian13:
	DEBIAN13_CACHE=$(DEBIAN13_CACHE) bash scripts/debian13.sh $(DEBIAN13_ARGS)

# A real report from the debug binary, validated against the vendored Ant JUnit schema.
test-junit:
	$(DEBUG_BIN) run --quiet --seed 1 --junit reports/test-junit.xml
	xmllint --noout --schema Vectors/junit/JUnit.xsd reports/test-junit.xml

# A real JUnit consumer: Debian's python3-junitparser reads every report under reports/ (the
# tests write reports/test-junit.xml and reports/html-report.xml), and its counts, per suite and
# in total, must equal crosscheck's own (`crosscheck report`), besides the schema check above.
test-reports:
	$(SWIFT) build $(SWIFT_FLAGS) --product crosscheck
	@ls reports/*.xml >/dev/null 2>&1 || { echo "make test-reports: no reports/*.xml yet; make test-junit writes one"; exit 66; }
	$(PYTHON) scripts/junit_consumer.py $(DEBUG_BIN) reports/*.xml

# OpenSSL command-line vectors: `vectors generate` runs only the openssl command (AES-CBC outputs come
# out byte-identical every time; RSA keys and ciphertexts are new), `vectors check` verifies them.
vectors: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product crosscheck
	$(DEBUG_BIN) vectors generate
	$(DEBUG_BIN) vectors check --quiet $(if $(SEED),--seed $(SEED),)

wycheproof: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product crosscheck
	$(DEBUG_BIN) wycheproof --impl both --quiet --junit reports/wycheproof.xml Vectors/wycheproof/*.json

# Wycheproof-format files crosscheck has never seen (fresh RSA-3072/4096 keys, OAEP SHA-384 and
# SHA-512/t, AES-GCM with 64/128-bit IVs and 96-bit tags), written by scripts/wycheproof_unseen.py.
wycheproof-unseen: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product crosscheck
	rm -rf reports/wycheproof-unseen && $(PYTHON) scripts/wycheproof_unseen.py reports/wycheproof-unseen
	$(DEBUG_BIN) wycheproof --impl both --quiet --junit reports/wycheproof-unseen.xml reports/wycheproof-unseen/*.json

# Refresh the vendored Wycheproof subset (with its LICENSE; the README is kept here, as it lists
# every vendored file) from ../shared/wycheproof,
# and the signature, ECDH/X25519 and HKDF files (Vectors/wycheproof/README.md) from a checkout of
# github.com/C2SP/wycheproof at the README's commit: make vendor-wycheproof WYCHEPROOF_CHECKOUT=DIR.
WYCHEPROOF_SOURCE ?= ../shared/wycheproof
WYCHEPROOF_CHECKOUT ?=
WYCHEPROOF_FILES = ecdsa_secp256r1_sha256_test ecdsa_secp384r1_sha384_test ecdsa_secp521r1_sha512_test \
	ecdsa_secp256r1_sha256_p1363_test ecdsa_secp384r1_sha384_p1363_test ecdsa_secp521r1_sha512_p1363_test \
	ecdh_secp256r1_test ecdh_secp384r1_test ecdh_secp521r1_test ecdh_secp256r1_ecpoint_test x25519_test ed25519_test \
	hkdf_sha1_test hkdf_sha256_test hkdf_sha384_test hkdf_sha512_test rsa_signature_2048_sha256_test \
	rsa_pss_2048_sha256_mgf1_32_test
WYCHEPROOF_SCHEMAS = ecdsa_verify_schema_v1 ecdsa_p1363_verify_schema_v1 ecdh_test_schema_v1 ecdh_ecpoint_test_schema_v1 \
	xdh_comp_schema_v1 eddsa_verify_schema_v1 hkdf_test_schema_v1 rsassa_pkcs1_verify_schema_v1 rsassa_pss_verify_schema_v1 \
	common ecdsa_common rsa_common signatures_common json_web_crypto_common
vendor-wycheproof:
	mkdir -p Vectors/wycheproof/schemas
	cp $(WYCHEPROOF_SOURCE)/*_test.json $(WYCHEPROOF_SOURCE)/LICENSE Vectors/wycheproof/
	cp $(WYCHEPROOF_SOURCE)/*_schema_v1.json Vectors/wycheproof/schemas/
	@if [ -n "$(WYCHEPROOF_CHECKOUT)" ]; then \
	  for f in $(WYCHEPROOF_FILES); do cp $(WYCHEPROOF_CHECKOUT)/testvectors_v1/$$f.json Vectors/wycheproof/ || exit 1; done; \
	  for s in $(WYCHEPROOF_SCHEMAS); do cp $(WYCHEPROOF_CHECKOUT)/schemas/$$s.json Vectors/wycheproof/schemas/ || exit 1; done; \
	else echo "vendor-wycheproof: WYCHEPROOF_CHECKOUT not set; the signature, ECDH and HKDF files were left as they are"; fi
	chmod -R u+w Vectors/wycheproof

bench: deps
	$(SWIFT) build $(SWIFT_FLAGS) -c release --product crosscheck-bench
	.build/release/crosscheck-bench

# Differential fuzzing, the long run: FRAMES malformed frames to the Swift side and PythonRef, every
# disagreement saved to reports/fuzz-failures/ (`crosscheck replay FILE` reruns one); JUnit in
# reports/fuzz.xml. A fresh seed every run unless SEED= is given (a fixed set of seeds stops finding
# bugs); the seed is printed first and logged with the result in reports/fuzz-seeds.log. JOBS worker
# processes (default: one per core). `make interop` includes a 10,000-frame run (the `fuzz` suite).
FRAMES ?= 1000000
JOBS   ?=
fuzz: build
	@seed="$(SEED)"; [ -n "$$seed" ] || seed=$$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); \
	echo "make fuzz: seed $$seed, $(FRAMES) frames (again: make fuzz SEED=$$seed FRAMES=$(FRAMES))"; \
	status=0; $(RELEASE_BIN) fuzz --frames $(FRAMES) --seed $$seed $(if $(JOBS),--jobs $(JOBS),) --junit reports/fuzz.xml || status=$$?; \
	mkdir -p reports; echo "$$(date -u +%Y-%m-%dT%H:%M:%SZ) seed=$$seed frames=$(FRAMES) exit=$$status" >> reports/fuzz-seeds.log; \
	echo "make fuzz: seed $$seed exit $$status (logged in reports/fuzz-seeds.log)"; exit $$status

# libFuzzer under AddressSanitizer for SECONDS, one TARGET:
#   rsa-socket, keys-public, keys-private, json, sealed, https: the Swift parsers of one family
#     (crosscheck-fuzz, no Python; FuzzTargets/ParserTargets.swift); all: every one of them;
#   differential: Swift against PythonRef in-process, judged by `crosscheck fuzz`'s oracle
#     (crosscheck-fuzz-differential; Fuzzing/DifferentialTarget.swift); its findings are written
#     as `crosscheck replay` reproducers to reports/libfuzzer/differential/findings/.
# Seeds: the family's folders of Vectors/frames/ and regressions/; new inputs go to
# reports/libfuzzer/TARGET/corpus/, crashes, timeouts and out-of-memory inputs to
# reports/libfuzzer/TARGET/ (crash-*, timeout-*, oom-*; rerun one by giving the file to the copy
# of the binary there instead of the folders). The log is reports/libfuzzer/TARGET/fuzz.log and the coverage reached (edges per
# module, from -print_coverage) reports/libfuzzer/TARGET/coverage.txt.
# The sanitizers apply to the whole build, hence its own scratch path. SwiftPM instruments only the
# entry module for coverage under --sanitize=fuzzer, so -sanitize-coverage is given for the rest.
# LeakSanitizer is off: Swift keeps references in spare pointer bits, which it reports as leaks.
TARGET  ?= all
SECONDS ?= 600
FUZZ_BUILD := .build-fuzz
FUZZ_DIR    = reports/libfuzzer/$(TARGET)
F := Vectors/frames
FUZZ_SEEDS_rsa-socket   := $(wildcard $(F)/rsa-socket.*) $(F)/regressions
FUZZ_SEEDS_keys-public  := $(F)/keys.public $(F)/keys $(F)/regressions
FUZZ_SEEDS_keys-private := $(F)/keys.private $(F)/keys $(F)/regressions
FUZZ_SEEDS_json         := $(F)/aes-https.envelope $(F)/aes-https.server $(F)/aes-https.kdf $(F)/regressions
FUZZ_SEEDS_sealed       := $(wildcard $(F)/sealed.*) $(F)/regressions
FUZZ_SEEDS_https        := $(F)/aes-https.server $(F)/aes-https.envelope $(F)/regressions
FUZZ_SEEDS_all          := $(F)
FUZZ_SEEDS_differential := $(FUZZ_DIR)/seeds
FUZZ_PRODUCT = $(if $(filter differential,$(TARGET)),crosscheck-fuzz-differential,crosscheck-fuzz)
FUZZ_MODULES = StrictFormats$(COMMA)WireCrypto$(COMMA)WireProtocol$(if $(filter differential,$(TARGET)),$(COMMA)Fuzzing$(COMMA)Frames$(COMMA)Conformance,)
COMMA := ,
libfuzzer: deps
	@case "$(TARGET)" in rsa-socket|keys-public|keys-private|json|sealed|https|all|differential) ;; \
	  *) echo "make libfuzzer: TARGET is one of rsa-socket, keys-public, keys-private, json, sealed, https, all, differential (not '$(TARGET)')"; exit 64;; esac
	$(SWIFT) build $(SWIFT_FLAGS) -c debug --product $(FUZZ_PRODUCT) --sanitize=fuzzer --sanitize=address --scratch-path $(FUZZ_BUILD) \
	  -Xswiftc -sanitize-coverage=edge,trace-cmp,indirect-calls,inline-8bit-counters,pc-table
	mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/seeds
	@# Run a copy: coverage is symbolized from the binary file at exit, which another build may have replaced.
	cp $(FUZZ_BUILD)/debug/$(FUZZ_PRODUCT) $(FUZZ_DIR)/$(FUZZ_PRODUCT)
	status=0; CROSSCHECK_FUZZ_TARGET=$(TARGET) CROSSCHECK_FUZZ_SEEDS=$(FUZZ_DIR)/seeds CROSSCHECK_FUZZ_FINDINGS=$(FUZZ_DIR)/findings \
	  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 $(FUZZ_DIR)/$(FUZZ_PRODUCT) \
	  -max_total_time=$(SECONDS) -timeout=10 -max_len=8192 -detect_leaks=0 -print_final_stats=1 -print_coverage=1 \
	  -artifact_prefix=$(FUZZ_DIR)/ $(FUZZ_DIR)/corpus $(FUZZ_SEEDS_$(TARGET)) > $(FUZZ_DIR)/fuzz.log 2>&1 || status=$$?; \
	grep -v -e "COVERED_FUNC" -e "COVERED_PC" $(FUZZ_DIR)/fuzz.log | tail -25; \
	$(PYTHON) scripts/libfuzzer_coverage.py $(FUZZ_DIR)/fuzz.log --modules $(FUZZ_MODULES) | tee $(FUZZ_DIR)/coverage.txt; \
	echo "make libfuzzer: TARGET=$(TARGET) exit $$status; log $(FUZZ_DIR)/fuzz.log"; exit $$status

# The seed folders of one libFuzzer TARGET, one a word: .clusterfuzzlite/build.sh zips them.
libfuzzer-seeds:
	@echo $(FUZZ_SEEDS_$(TARGET))

# Issue 22: the CI templates a team copies (ci/github-actions.yml, ci/gitlab-ci.yml) and the
# ClusterFuzzLite setup, checked offline: each template against its CI's own schema (check-jsonschema's
# vendored copies), yamllint, and every make target/variable and crosscheck command/option a template
# runs against the Makefile and `crosscheck … --help` (scripts/check_ci_templates.py, tested by
# scripts/test_check_ci_templates.py); then the Markdown summary of a real report rendered by GitHub's
# own cmark-gfm. The tools live in .venv-tools (PyPI, pinned in scripts/ci-tools.txt).
.PHONY: libfuzzer-seeds tools-venv test-ci test-cflite
TOOLS_VENV := .venv-tools
tools-venv: $(TOOLS_VENV)/.installed
$(TOOLS_VENV)/.installed: scripts/ci-tools.txt
	rm -rf $(TOOLS_VENV) && $(PYTHON) -m venv $(TOOLS_VENV)
	$(TOOLS_VENV)/bin/pip install -q --disable-pip-version-check -r scripts/ci-tools.txt
	touch $@

test-ci: deps tools-venv
	$(SWIFT) build $(SWIFT_FLAGS) --product crosscheck
	$(TOOLS_VENV)/bin/check-jsonschema --builtin-schema vendor.github-workflows ci/github-actions.yml
	$(TOOLS_VENV)/bin/check-jsonschema --builtin-schema vendor.gitlab-ci ci/gitlab-ci.yml
	$(TOOLS_VENV)/bin/yamllint --strict -c ci/yamllint.yml ci/github-actions.yml ci/gitlab-ci.yml .clusterfuzzlite/project.yaml
	$(TOOLS_VENV)/bin/python scripts/check_ci_templates.py --crosscheck $(DEBUG_BIN) ci/github-actions.yml ci/gitlab-ci.yml
	$(TOOLS_VENV)/bin/python -m pytest -q -p no:cacheprovider scripts/test_check_ci_templates.py scripts/test_test_lanes.py
	bash -n .clusterfuzzlite/build.sh

# .clusterfuzzlite/build.sh with the variables ClusterFuzzLite sets (SANITIZER=address), then each
# target it wrote to reports/cflite/out run once on a seed input (scripts/cflite-selftest.sh). Not part
# of `make test`: a sanitizer build of its own, about 2 to 2.5 minutes here, would take make test
# too close to its 15-minute budget.
test-cflite: deps
	bash scripts/cflite-selftest.sh

# Issue 12: `crosscheck remote` against the zoo of servers written from docs/PROTOCOL.md (Tests/Zoo:
# correct ones and mutants with one planted flaw each). Prints server | expected | crosscheck's
# verdict | OK/WRONG | time and exits 1 on any wrong verdict; the contract is Tests/Zoo/README.md.
# Part of `make test`.
# Issue 18: then the whole zoo again under the slow-link profile (scripts/slowlink.py: a Wi-Fi-like
# proxy in front of each server, the server held to 10 % of a core by a cgroup): no verdict may
# change. LINK=loopback|slow-link|both (default both); JOBS runs at once (default 8).
ONLY ?=
LINK ?=
mutants: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product crosscheck
	$(PYTHON) scripts/mutants.py --crosscheck $(DEBUG_BIN) $(if $(ONLY),--only $(ONLY),) $(if $(LINK),--link $(LINK),) $(if $(JOBS),--jobs $(JOBS),)

# Issue 31: `crosscheck remote --protocol` against the described zoo (Tests/DescribedZoo): each
# example description's independent server, correct (must pass) and with each planted flaw (must
# fail, by a testcase other than the description's own weaknesses). Prints the table; exit 1 on a wrong verdict.
# DLINK=slow-link (or both): behind scripts/slowlink.py's Wi-Fi-like proxy; make test runs loopback.
# Issue 31: do the seed descriptions (protocols/*.toml and protocols/variants/) give the built-in
# profiles' verdicts on the zoo (Tests/Zoo)? A table server | built-in expected | described verdict;
# exit 1 on a difference. About 3 minutes, so not in `make test` (make mutants holds the built-in).
described-seed-verdicts: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product crosscheck
	$(PYTHON) scripts/described_seed_verdicts.py --crosscheck $(DEBUG_BIN) --jobs 2

# Three runs at once: each mostly waits on its server's quiet gaps (0 wrong of 105 with both cores
# busy with other work, 1m23s; two at once took 1m53s of make test's critical lane).
DJOBS ?= 3
described-mutants: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product crosscheck
	$(PYTHON) scripts/described_mutants.py --crosscheck $(DEBUG_BIN) --jobs $(DJOBS) $(if $(ONLY),--only $(ONLY),) $(if $(DLINK),--link $(DLINK),)

# Issue 31's corpus: public servers, fetched unchanged into $(CORPUS) (kept out of this repository),
# each run in a network namespace of its own and checked; each verdict beside the one recorded when
# it was checked by hand, and the figure (corpus/README.md). Needs root and the snapshots.
CORPUS ?= /work/corpus
corpus: deps
	$(SWIFT) build $(SWIFT_FLAGS) --product crosscheck
	CORPUS=$(CORPUS) CROSSCHECK=$(DEBUG_BIN) bash corpus/run/all.sh

# Tests/TestKeys/'s pool, made again from the keys a whole `make test` made: from an empty cache
# (rm -rf .build/test-key-cache, make test), then this. Test keys only: no user's run reads them.
test-key-pool:
	@ls .build/test-key-cache/rsa-*.der >/dev/null 2>&1 || { echo "make test-key-pool: .build/test-key-cache is empty; run make test first"; exit 66; }
	cd .build/test-key-cache && ls | grep -E '^rsa-[a-z]+-[0-9]+-[0-9]+\.der$$' \
	    | tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -czf $(CURDIR)/$(TEST_KEY_POOL) -T -
	@echo "make test-key-pool: $$(tar -tzf $(TEST_KEY_POOL) | wc -l) keys in $(TEST_KEY_POOL)"

clean:
	rm -rf .build .build-fuzz reports

# Issue 33: crosscheck as a tool in a team's repository. `make install PREFIX=…` builds the release
# binary and puts it in PREFIX/bin; PythonRef/, Vectors/, protocols/ (when present) and the Swift
# package `--app DIR` builds against go to PREFIX/share/crosscheck, where ProjectFiles finds them
# from PREFIX/bin without a checkout (scripts/install.sh). No `deps` here: the tool needs the
# Debian packages only (the Makefile's DEBIAN_PACKAGES), not the venvs the tests use.
PREFIX ?= /usr/local
.PHONY: install test-install
install:
	$(SWIFT) build $(SWIFT_FLAGS) -c release --product crosscheck
	bash scripts/install.sh $(RELEASE_BIN) $(PREFIX)

# The installed tool used as a team would: from a folder outside the checkout, with the checkout's
# own copies out of reach (scripts/test-install.sh).
test-install:
	bash scripts/test-install.sh

# Issue 33: the CI templates for a team's own repositories (ci/team/: a Pi server repository, an app
# repository), checked as test-ci checks crosscheck's own, except that they run `make install`.
TEAM_CI_GITHUB := ci/team/pi-server.github-actions.yml ci/team/app.github-actions.yml
TEAM_CI_GITLAB := ci/team/pi-server.gitlab-ci.yml ci/team/app.gitlab-ci.yml
.PHONY: test-ci-team
test-ci-team: tools-venv
	$(SWIFT) build $(SWIFT_FLAGS) --product crosscheck
	for f in $(TEAM_CI_GITHUB); do $(TOOLS_VENV)/bin/check-jsonschema --builtin-schema vendor.github-workflows $$f; done
	for f in $(TEAM_CI_GITLAB); do $(TOOLS_VENV)/bin/check-jsonschema --builtin-schema vendor.gitlab-ci $$f; done
	$(TOOLS_VENV)/bin/yamllint --strict -c ci/yamllint.yml $(TEAM_CI_GITHUB) $(TEAM_CI_GITLAB)
	$(TOOLS_VENV)/bin/python scripts/check_ci_templates.py --require-make install --crosscheck $(DEBUG_BIN) $(TEAM_CI_GITHUB) $(TEAM_CI_GITLAB)
	$(TOOLS_VENV)/bin/python -m pytest -q -p no:cacheprovider scripts/test_check_team_templates.py
