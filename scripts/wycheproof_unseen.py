#!/usr/bin/python3
"""Writes Wycheproof-format test files that crosscheck has never seen, with fresh keys each run,
to try `crosscheck wycheproof` on key sizes and parameters the vendored files do not have:

- rsa_oaep_3072_unseen_test.json (rsaes_oaep_decrypt_schema_v1): RSA-3072 OAEP with SHA-384 and
  MGF1-SHA-512, with and without labels; SHA-512/224 with MGF1-SHA-512/256; and a SHA3-256 group
  the implementations do not offer (every vector of it must be skipped, never passed).
- rsa_pkcs1_4096_unseen_test.json (rsaes_pkcs1_decrypt_schema_v1): RSA-4096 PKCS#1 v1.5 with
  hand-made bad paddings (flag InvalidPkcs1Padding, so the oracle check runs) and one
  `acceptable` vector.
- aes_gcm_unseen_test.json (aead_test_schema_v1): AES-GCM with 96-bit IVs (expressible in the
  CryptoKit combined format), 128- and 480-bit IVs (expressible as CryptoKit's separate nonce,
  ciphertext and tag: its AES.GCM.Nonce takes 12 bytes or more), and a 64-bit IV and 96-bit tags
  (not expressible by any Apple API: skipped).

Sources, so that neither implementation under test vouches for its own vectors:
- RSA keys and every valid RSA ciphertext come from the openssl command line (genpkey, pkeyutl);
  bad encodings are built here (RFC 8017 section 7.1.1 and 7.2.1 written out with hashlib, with one
  flaw each) and encrypted with textbook RSA (pow) on the key openssl printed.
- AES-GCM: test cases 1 to 6 of McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)",
  2005, Appendix B (published values); the rest from pyca/cryptography's AESGCM (tags truncated
  to 96 bits for the short-tag group, which is how GCM shortens tags).

Usage: /usr/bin/python3 scripts/wycheproof_unseen.py OUTDIR
Prints, per file written, how many vectors are expressible and how many are not.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = {"name": "crosscheck scripts/wycheproof_unseen.py", "version": "1"}


def openssl(args: list[str], cwd: str, data: bytes | None = None) -> bytes:
    done = subprocess.run(["openssl", *args], cwd=cwd, input=data, capture_output=True, check=False)
    if done.returncode != 0:
        sys.exit(f"openssl {' '.join(args)} failed: {done.stderr.decode(errors='replace')}")
    return done.stdout


def int_hex(value: int) -> str:
    """Wycheproof's integer hex: big-endian bytes, a leading 00 when the top bit is set."""
    raw = value.to_bytes((value.bit_length() + 8) // 8, "big")  # one spare bit: a sign byte when needed
    return raw.hex()


class Key:
    """An RSA key made by `openssl genpkey`, with the numbers `openssl rsa -text` prints."""

    FIELDS = {"modulus": "modulus", "publicExponent": "publicExponent", "privateExponent": "privateExponent",
              "prime1": "prime1", "prime2": "prime2", "exponent1": "exponent1", "exponent2": "exponent2",
              "coefficient": "coefficient"}

    def __init__(self, bits: int, work: str) -> None:
        self.work = work
        self.pem_path = f"key{bits}.pem"
        openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", f"rsa_keygen_bits:{bits}", "-out", self.pem_path], work)
        openssl(["rsa", "-in", self.pem_path, "-pubout", "-out", f"pub{bits}.pem"], work)
        self.pub_path = f"pub{bits}.pem"
        self.pem = (Path(work) / self.pem_path).read_text()
        self.pkcs8 = openssl(["pkcs8", "-topk8", "-nocrypt", "-in", self.pem_path, "-outform", "DER"], work)
        self.numbers = self._parse(openssl(["rsa", "-in", self.pem_path, "-noout", "-text"], work).decode())
        self.n, self.e, self.d = self.numbers["modulus"], self.numbers["publicExponent"], self.numbers["privateExponent"]
        self.k = (self.n.bit_length() + 7) // 8
        assert self.n.bit_length() == bits

    @staticmethod
    def _parse(text: str) -> dict[str, int]:
        numbers: dict[str, int] = {}
        name, digits = None, ""
        for line in text.splitlines()[1:]:
            if line.startswith(" "):
                digits += line.strip().replace(":", "")
                continue
            if name is not None and digits:
                numbers[name] = int(digits, 16)
            label, _, rest = line.partition(":")
            name, digits = label.strip(), ""
            if rest.strip():  # "publicExponent: 65537 (0x10001)"
                numbers[name] = int(rest.split()[0])
                name = None
        if name is not None and digits:
            numbers[name] = int(digits, 16)
        assert set(Key.FIELDS) <= set(numbers), numbers.keys()
        return numbers

    def wycheproof_fields(self) -> dict[str, object]:
        return {
            "privateKey": {field: int_hex(self.numbers[field]) for field in Key.FIELDS},
            "privateKeyPkcs8": self.pkcs8.hex(),
            "privateKeyPem": self.pem,
            "keySize": self.n.bit_length(),
        }

    def raw_encrypt(self, em: bytes) -> bytes:
        assert len(em) == self.k and int.from_bytes(em, "big") < self.n
        return pow(int.from_bytes(em, "big"), self.e, self.n).to_bytes(self.k, "big")

    def pkeyutl_encrypt(self, msg: bytes, options: list[str]) -> bytes:
        (Path(self.work) / "msg.bin").write_bytes(msg)
        return openssl(["pkeyutl", "-encrypt", "-pubin", "-inkey", self.pub_path, "-in", "msg.bin", *options], self.work)


# ---- RSA-OAEP ------------------------------------------------------------------------------------

HASHLIB = {"SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512",
           "SHA-512/224": "sha512_224", "SHA-512/256": "sha512_256", "SHA3-256": "sha3_256"}
OPENSSL_MD = {"SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512",
              "SHA-512/224": "sha512-224", "SHA-512/256": "sha512-256", "SHA3-256": "sha3-256"}


def mgf1(hash_name: str, seed: bytes, length: int) -> bytes:
    out, counter = b"", 0
    while len(out) < length:
        out += hashlib.new(HASHLIB[hash_name], seed + counter.to_bytes(4, "big")).digest()
        counter += 1
    return out[:length]


def xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


def oaep_encode(k: int, msg: bytes, sha: str, mgf_sha: str, label: bytes, *, first: int = 0,
                separator: int = 1, label_hash: bytes | None = None) -> bytes:
    """RFC 8017 7.1.1 EME-OAEP encoding, with optional flaws (first byte, separator, lHash)."""
    h_len = hashlib.new(HASHLIB[sha]).digest_size
    l_hash = label_hash if label_hash is not None else hashlib.new(HASHLIB[sha], label).digest()
    ps = bytes(k - len(msg) - 2 * h_len - 2)
    db = l_hash + ps + (bytes([separator]) if separator is not None else b"") + msg
    if separator is None:
        db = l_hash + bytes(k - h_len - 1 - h_len)  # no separator and no message: all zeros
    seed = os.urandom(h_len)
    masked_db = xor(db, mgf1(mgf_sha, seed, k - h_len - 1))
    masked_seed = xor(seed, mgf1(mgf_sha, masked_db, h_len))
    return bytes([first]) + masked_seed + masked_db


def oaep_group(key: Key, sha: str, mgf_sha: str, first_id: int) -> dict[str, object]:
    tests: list[dict[str, object]] = []

    def add(comment: str, flags: list[str], msg: bytes, ct: bytes, label: bytes, result: str) -> None:
        tests.append({"tcId": first_id + len(tests), "comment": comment, "flags": flags, "msg": msg.hex(),
                      "ct": ct.hex(), "label": label.hex(), "result": result})

    def cli(msg: bytes, label: bytes, sha_: str = sha, mgf_: str = mgf_sha) -> bytes:
        options = ["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", f"rsa_oaep_md:{OPENSSL_MD[sha_]}",
                   "-pkeyopt", f"rsa_mgf1_md:{OPENSSL_MD[mgf_]}"]
        if label:
            options += ["-pkeyopt", f"rsa_oaep_label:{label.hex()}"]
        return key.pkeyutl_encrypt(msg, options)

    h_len = hashlib.new(HASHLIB[sha]).digest_size
    longest = key.k - 2 * h_len - 2
    label = b"crosscheck label \x00\xff"
    for comment, msg, lab in [("empty message, no label", b"", b""), ("20-byte message, no label", os.urandom(20), b""),
                              ("message with a label", b"Secret message from RPi server", label),
                              ("longest message, with a label", os.urandom(longest), label),
                              ("one-byte message, 1-byte label", b"\x00", b"\x01")]:
        add(comment + " (openssl pkeyutl)", ["Normal"] + (["EncryptionWithLabel"] if lab else []), msg, cli(msg, lab), lab, "valid")
    msg = b"constructed"
    add("encoded by this script's RFC 8017 encoder", ["Constructed"], msg,
        key.raw_encrypt(oaep_encode(key.k, msg, sha, mgf_sha, label)), label, "valid")
    add("decrypted with a label it was not made with", ["InvalidOaepPadding"], msg, cli(msg, b"other label"), label, "invalid")
    add("made without a label, decrypted with one", ["InvalidOaepPadding"], msg, cli(msg, b""), label, "invalid")
    other_mgf = "SHA-1" if mgf_sha != "SHA-1" else "SHA-256"
    add(f"made with MGF1-{other_mgf}", ["InvalidOaepPadding"], msg, cli(msg, b"", sha, other_mgf), b"", "invalid")
    other_sha = "SHA-256" if sha != "SHA-256" else "SHA-1"
    add(f"made with label hash {other_sha}", ["InvalidOaepPadding"], msg, cli(msg, b"", other_sha, mgf_sha), b"", "invalid")
    add("first byte of the encoded message is 01", ["InvalidOaepPadding"], msg,
        key.raw_encrypt(oaep_encode(key.k, msg, sha, mgf_sha, b"", first=1)), b"", "invalid")
    add("separator byte is 02, not 01", ["InvalidOaepPadding"], msg,
        key.raw_encrypt(oaep_encode(key.k, msg, sha, mgf_sha, b"", separator=2)), b"", "invalid")
    add("no 01 separator at all", ["InvalidOaepPadding"], b"",
        key.raw_encrypt(oaep_encode(key.k, b"", sha, mgf_sha, b"", separator=None)), b"", "invalid")
    add("lHash of another label", ["InvalidOaepPadding"], msg,
        key.raw_encrypt(oaep_encode(key.k, msg, sha, mgf_sha, b"", label_hash=hashlib.new(HASHLIB[sha], b"x").digest())), b"", "invalid")
    add("encoded message is all zero (c = 0)", ["InvalidOaepPadding"], b"", bytes(key.k), b"", "invalid")
    good = cli(msg, b"")
    add("one bit flipped in the ciphertext", ["InvalidOaepPadding"], msg, good[:-1] + bytes([good[-1] ^ 1]), b"", "invalid")
    add("c = n", ["InvalidCiphertext"], msg, key.n.to_bytes(key.k, "big"), b"", "invalid")
    add("ciphertext one byte short", ["InvalidCiphertext"], msg, good[1:], b"", "invalid")
    add("ciphertext with a 00 byte prepended", ["InvalidCiphertext"], msg, b"\x00" + good, b"", "invalid")
    add("empty ciphertext", ["InvalidCiphertext"], msg, b"", b"", "invalid")
    return {"type": "RsaesOaepDecrypt", "source": SOURCE, **key.wycheproof_fields(), "sha": sha, "mgf": "MGF1",
            "mgfSha": mgf_sha, "tests": tests}


OAEP_NOTES = {
    "Normal": {"bugType": "BASIC", "description": "A ciphertext made by openssl pkeyutl from a random or fixed message."},
    "EncryptionWithLabel": {"bugType": "FUNCTIONALITY", "description": "The ciphertext was made with a non-empty OAEP label."},
    "Constructed": {"bugType": "FUNCTIONALITY", "description": "The encoding was built by the generator's own RFC 8017 encoder."},
    "InvalidOaepPadding": {"bugType": "CONFIDENTIALITY", "description": "The OAEP encoding is invalid. All such vectors must "
                           "fail the same way (Manger's attack)."},
    "InvalidCiphertext": {"bugType": "CONFIDENTIALITY", "description": "The ciphertext is not a number below n of k bytes."},
}


# ---- RSA PKCS#1 v1.5 ---------------------------------------------------------------------------------

def pkcs1_group(key: Key) -> dict[str, object]:
    tests: list[dict[str, object]] = []

    def add(comment: str, flags: list[str], msg: bytes, ct: bytes, result: str = "valid") -> None:
        tests.append({"tcId": len(tests) + 1, "comment": comment, "flags": flags, "msg": msg.hex(), "ct": ct.hex(),
                      "result": result})

    def nonzero(count: int) -> bytes:
        return bytes(b % 255 + 1 for b in os.urandom(count))

    cli = ["-pkeyopt", "rsa_padding_mode:pkcs1"]
    k = key.k
    for comment, msg in [("empty message", b""), ("tutorial message", b"Secret message from RPi server"),
                         ("longest message (k - 11)", os.urandom(k - 11)), ("one byte", b"\x00")]:
        add(comment + " (openssl pkeyutl)", ["Normal"], msg, key.pkeyutl_encrypt(msg, cli))
    msg = b"pkcs1 constructed"

    def em(block: bytes, ps: bytes, sep: bytes = b"\x00", body: bytes = msg) -> bytes:
        return key.raw_encrypt(block + ps + sep + body)

    fill = k - 3 - len(msg)
    body = os.urandom(k - 11)
    add("padding string of exactly 8 bytes", ["SpecialCasePadding"], body, key.raw_encrypt(b"\x00\x02" + nonzero(8) + b"\x00" + body))
    add("a valid encoding, marked acceptable to exercise that path", ["SpecialCase"], msg, em(b"\x00\x02", nonzero(fill)), "acceptable")
    bad = [
        ("block type 1 (signature padding)", em(b"\x00\x01", b"\xff" * fill)),
        ("block type 0", em(b"\x00\x00", nonzero(fill))),
        ("block type ff", em(b"\x00\xff", nonzero(fill))),
        ("first byte 01", em(b"\x01\x02", nonzero(fill))),
        ("no zero byte after the padding string", key.raw_encrypt(b"\x00\x02" + nonzero(k - 2))),
        ("padding string of 7 bytes", key.raw_encrypt(b"\x00\x02" + nonzero(7) + b"\x00" + os.urandom(k - 10))),
        ("byte 3 of the padding string is 0", em(b"\x00\x02", nonzero(3) + b"\x00" + nonzero(fill - 4))),
        ("padding string all zero", em(b"\x00\x02", bytes(fill))),
        ("c = 0", bytes(k)),
        ("c = 1", (1).to_bytes(k, "big")),
        ("c = n - 1", (key.n - 1).to_bytes(k, "big")),
    ]
    for comment, ct in bad:
        add(comment, ["InvalidPkcs1Padding"], msg, ct, "invalid")
    good = key.pkeyutl_encrypt(msg, cli)
    for comment, ct in [("c = n", key.n.to_bytes(k, "big")), ("truncated ciphertext", good[:-1]),
                        ("00 byte prepended", b"\x00" + good), ("empty ciphertext", b"")]:
        add(comment, ["InvalidCiphertextFormat"], msg, ct, "invalid")
    return {"type": "RsaesPkcs1Decrypt", "source": SOURCE, **key.wycheproof_fields(), "tests": tests}


PKCS1_NOTES = {
    "Normal": {"bugType": "BASIC", "description": "A ciphertext made by openssl pkeyutl."},
    "SpecialCasePadding": {"bugType": "FUNCTIONALITY", "description": "A valid padding at the edge of the rules."},
    "SpecialCase": {"bugType": "EDGE_CASE", "description": "Constructed to exercise a harness path."},
    "InvalidPkcs1Padding": {"bugType": "CONFIDENTIALITY", "description": "An invalid PKCS #1 padding. All such vectors "
                            "must fail with identical errors (Bleichenbacher)."},
    "InvalidCiphertextFormat": {"bugType": "CONFIDENTIALITY", "description": "The ciphertext is not k bytes below n."},
}


# ---- AES-GCM ---------------------------------------------------------------------------------------

# McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)", 2005, Appendix B, test cases 1-5.
_K3 = "feffe9928665731c6d6a8f9467308308"
_P3 = ("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
       "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255")
_C3 = ("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
       "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985")
_A4 = "feedfacedeadbeeffeedfacedeadbeefabaddad2"
PUBLISHED_96 = [
    ("McGrew-Viega test case 1", "00" * 16, "00" * 12, "", "", "", "58e2fccefa7e3061367f1d57a4e7455a"),
    ("McGrew-Viega test case 2", "00" * 16, "00" * 12, "", "00" * 16, "0388dace60b6a392f328c2b971b2fe78",
     "ab6e47d42cec13bdf53a67b21257bddf"),
    ("McGrew-Viega test case 3", _K3, "cafebabefacedbaddecaf888", "", _P3, _C3, "4d5c2af327cd64a62cf35abd2ba6fab4"),
    ("McGrew-Viega test case 4", _K3, "cafebabefacedbaddecaf888", _A4, _P3[:120], _C3[:120], "5bc94fbc3221a5db94fae95ae7121a47"),
]
PUBLISHED_480 = ("McGrew-Viega test case 6", _K3,
                 "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728"
                 "c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b", _A4, _P3[:120],
                 "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca7"
                 "01e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5", "619cc5aefffe0bfa462af43c1699d050")
PUBLISHED_64 = ("McGrew-Viega test case 5", _K3, "cafebabefacedbad", _A4, _P3[:120],
                "61353b4c2806934a777ff51fa22a4755699b2a714fcdc6f83766e5f97b6c742373806900e49f24b22b097544d4896b42"
                "4989b5e1ebac0f07c23f4598", "3612d2e79e3b0785561be14aaca2fccb")


def gcm_groups() -> list[dict[str, object]]:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    groups: list[dict[str, object]] = []
    next_id = [1]

    def vector(comment: str, flags: list[str], key: str, iv: str, aad: str, msg: str, ct: str, tag: str,
               result: str = "valid") -> dict[str, object]:
        test = {"tcId": next_id[0], "comment": comment, "flags": flags, "key": key, "iv": iv, "aad": aad, "msg": msg,
                "ct": ct, "tag": tag, "result": result}
        next_id[0] += 1
        return test

    def made(key: bytes, iv: bytes, aad: bytes, msg: bytes, tag_bytes: int) -> tuple[str, str]:
        sealed = AESGCM(key).encrypt(iv, msg, aad or None)
        return sealed[:-16].hex(), sealed[-16:][:tag_bytes].hex()

    def pyca_tests(key_bits: int, iv_bytes: int, tag_bytes: int) -> list[dict[str, object]]:
        tests = []
        for length, aad_len in [(0, 0), (1, 13), (16, 0), (61, 20)]:
            key, iv, aad, msg = os.urandom(key_bits // 8), os.urandom(iv_bytes), os.urandom(aad_len), os.urandom(length)
            ct, tag = made(key, iv, aad, msg, tag_bytes)
            tests.append(vector(f"pyca AESGCM, {length}-byte message, {aad_len}-byte aad", ["Pseudorandom"],
                                key.hex(), iv.hex(), aad.hex(), msg.hex(), ct, tag))
        key, iv, msg = os.urandom(key_bits // 8), os.urandom(iv_bytes), os.urandom(32)
        ct, tag = made(key, iv, b"", msg, tag_bytes)
        flipped = bytes([int(tag[:2], 16) ^ 0x80]).hex() + tag[2:]
        tests.append(vector("tag with its first bit flipped", ["ModifiedTag"], key.hex(), iv.hex(), "", msg.hex(), ct, flipped,
                            "invalid"))
        tests.append(vector("associated data the tag was not made with", ["ModifiedTag"], key.hex(), iv.hex(), "00",
                            msg.hex(), ct, tag, "invalid"))
        return tests

    def group(key_bits: int, iv_bits: int, tag_bits: int, tests: list[dict[str, object]]) -> None:
        groups.append({"type": "AeadTest", "source": SOURCE, "ivSize": iv_bits, "keySize": key_bits, "tagSize": tag_bits,
                       "tests": tests})

    published = [vector(c, ["Ktv"], k, iv, a, m, ct, t) for c, k, iv, a, m, ct, t in PUBLISHED_96]
    group(128, 96, 128, published + pyca_tests(128, 12, 16))
    group(256, 96, 128, pyca_tests(256, 12, 16))
    group(256, 128, 128, pyca_tests(256, 16, 16))  # separate parts: a 128-bit IV
    c, k, iv, a, m, ct, t = PUBLISHED_480
    group(128, 480, 128, [vector(c, ["Ktv"], k, iv, a, m, ct, t)])  # separate parts: a 480-bit IV
    group(192, 96, 96, pyca_tests(192, 12, 12))  # not expressible: 96-bit tag
    c, k, iv, a, m, ct, t = PUBLISHED_64
    group(128, 64, 128, [vector(c, ["Ktv"], k, iv, a, m, ct, t)])  # not expressible: 64-bit IV
    return groups


GCM_NOTES = {
    "Ktv": {"bugType": "BASIC", "description": "Known test vector (McGrew and Viega, 2005, Appendix B)."},
    "Pseudorandom": {"bugType": "BASIC", "description": "Made with pyca/cryptography AESGCM from random inputs."},
    "ModifiedTag": {"bugType": "AUTH_BYPASS", "description": "The tag or the associated data does not match."},
}


# ---- files -----------------------------------------------------------------------------------------

def write(out: Path, name: str, algorithm: str, schema: str, notes: dict[str, object], groups: list[dict[str, object]],
          expressible: int) -> None:
    count = sum(len(g["tests"]) for g in groups)  # type: ignore[arg-type]
    document = {"algorithm": algorithm, "schema": schema, "numberOfTests": count,
                "header": ["Generated by crosscheck scripts/wycheproof_unseen.py with fresh keys; not from Wycheproof."],
                "notes": notes, "testGroups": groups}
    (out / name).write_text(json.dumps(document, indent=2) + "\n")
    print(json.dumps({"file": name, "tests": count, "expressible": expressible, "inexpressible": count - expressible}))


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        key3072 = Key(3072, work)
        oaep = [oaep_group(key3072, "SHA-384", "SHA-512", 1)]
        oaep.append(oaep_group(key3072, "SHA-512/224", "SHA-512/256", 1 + len(oaep[0]["tests"])))  # type: ignore[arg-type]
        runnable = sum(len(g["tests"]) for g in oaep)  # type: ignore[arg-type]
        oaep.append(oaep_group(key3072, "SHA3-256", "SHA3-256", 1 + runnable))  # not offered: every vector skipped
        write(out, "rsa_oaep_3072_unseen_test.json", "RSAES-OAEP", "rsaes_oaep_decrypt_schema_v1.json", OAEP_NOTES, oaep, runnable)

        key4096 = Key(4096, work)
        pkcs1 = [pkcs1_group(key4096)]
        write(out, "rsa_pkcs1_4096_unseen_test.json", "RSAES-PKCS1-v1_5", "rsaes_pkcs1_decrypt_schema_v1.json", PKCS1_NOTES,
              pkcs1, len(pkcs1[0]["tests"]))  # type: ignore[arg-type]

    gcm = gcm_groups()
    # CryptoKit: AES.GCM.Nonce takes 12 bytes or more (96 only in `combined`), a SealedBox a 128-bit tag.
    expressible = sum(len(g["tests"]) for g in gcm if g["ivSize"] >= 96 and g["tagSize"] == 128)  # type: ignore[misc,arg-type,operator]
    write(out, "aes_gcm_unseen_test.json", "AES-GCM", "aead_test_schema_v1.json", GCM_NOTES, gcm, expressible)


if __name__ == "__main__":
    main()
