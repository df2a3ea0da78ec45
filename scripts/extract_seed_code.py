#!/usr/bin/env python3
"""Cut the seed apps' code out of the seed documents into Tests/SeedAppsTests/Extracts/.

The seeds (/work/shared/seeds/NNN_*.txt, i.e. ../shared/seeds from a checkout) are the tutorial
pages a team copied its app from. The extracts are the exact lines of code in them, byte for
byte, so the vendored seed apps under Sources/SeedApps/ can be checked against them by
Tests/SeedAppsTests without the seeds themselves (the build must not need ../shared).

Run from the repository root:  python3 scripts/extract_seed_code.py [SEEDS_DIR]
It refuses to run if a seed file's SHA-256 differs from the one the extracts were cut from.
"""
import hashlib
import os
import sys

SEEDS = {
    "000": ("000_db0970714c7f8289.txt", "3e58e9bfebfec264c06ae60a9195ba27a5dd02d4b71acb42f47952c6e638e463"),
    "001": ("001_cb7b47f01c2aa1bb.txt", "053fee9d3e8cce5ab7ed8268413e45caa8a392fe44f5a528943828f227a9ea0d"),
    "002": ("002_7f1f2688a08b849f.txt", "28c9a149da5d14b0640401bde4fa93651fc5cd721b4bd05a7984259d43c90479"),
    "003": ("003_fee9b839d7e9fdaa.txt", "edec179a1690ea8a21764be3f7fc3fe58ce6780c1614035607348d6a76b3a8b3"),
    "004": ("004_c5628d83a3ef37cf.txt", "e0fd4c236135eec238e5c74ca7d99645a05e56a0041e2bc9dbfa0f9a26d9b697"),
}

# (extract name, seed, first line, last line): 1-based, inclusive, as `grep -n` numbers them.
EXTRACTS = [
    ("seed000-ViewController.swift.txt", "000", 132, 806),
    ("seed001-AES.swift.txt", "001", 31, 32),
    ("seed001-Serializers.swift.txt", "001", 38, 42),
    ("seed001-NetworkManager.swift.txt", "001", 48, 48),
    ("seed002-URLSessionDelegate.swift.txt", "002", 16, 38),
    ("seed002-SSLTrustManager.m.txt", "002", 42, 66),
    ("seed003-1-symmetric-key.swift.txt", "003", 22, 30),
    ("seed003-2-store.swift.txt", "003", 36, 64),
    ("seed003-3-read.swift.txt", "003", 70, 90),
    ("seed003-4-seal-open.swift.txt", "003", 96, 104),
    ("seed003-5-rsa.swift.txt", "003", 110, 121),
    ("seed003-6-certificates.swift.txt", "003", 125, 152),
    ("seed004-SymmetricKey+Initializer.swift.txt", "004", 146, 165),
    ("seed004-CryptManager.swift.txt", "004", 167, 273),
]


def main() -> int:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    seeds_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "..", "shared", "seeds")
    out_dir = os.path.join(root, "Tests", "SeedAppsTests", "Extracts")
    os.makedirs(out_dir, exist_ok=True)
    lines_of = {}
    for seed, (name, digest) in SEEDS.items():
        path = os.path.join(seeds_dir, name)
        try:
            data = open(path, "rb").read()
        except OSError as error:
            print(f"extract_seed_code: cannot read {path}: {error}; pass the seeds directory as the first argument", file=sys.stderr)
            return 66
        actual = hashlib.sha256(data).hexdigest()
        if actual != digest:
            print(f"extract_seed_code: {name} has SHA-256 {actual}, not {digest}: the seed changed; "
                  "review the line ranges in this script before updating the digest", file=sys.stderr)
            return 65
        lines_of[seed] = data.decode("utf-8").split("\n")
    for out_name, seed, first, last in EXTRACTS:
        lines = lines_of[seed][first - 1:last]
        with open(os.path.join(out_dir, out_name), "w", encoding="utf-8", newline="") as handle:
            handle.write("\n".join(lines) + "\n")
        print(f"{out_name}: seed {seed} lines {first}-{last} ({len(lines)} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
