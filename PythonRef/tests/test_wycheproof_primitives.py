"""The vendored Wycheproof signature, key agreement and HKDF files on PythonRef, through the same ops
the Swift side calls (`sig.verify`, `kex.agree`, `hkdf.derive`): pyca's verdict on every vector must
be the file's. valid: verified, or exactly the expected shared secret / okm. invalid: not verified,
or refused (never Internal). acceptable: either, but a secret it returns must be the expected one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from op_calls import call

ROOT = Path(__file__).resolve().parents[1]
WYCHEPROOF = ROOT.parent / "Vectors" / "wycheproof"
SIGNATURE_SCHEMES = {"EcdsaVerify": "ecdsa-der", "EcdsaP1363Verify": "ecdsa-p1363", "EddsaVerify": "ed25519",
                     "RsassaPkcs1Verify": "rsa-pkcs1v15", "RsassaPssVerify": "rsa-pss"}
AGREEMENT_ENCODINGS = {"EcdhTest": "spki-der", "EcdhEcpointTest": "x962", "XdhComp": "raw"}
CURVES = {"secp256r1": "P-256", "secp384r1": "P-384", "secp521r1": "P-521", "curve25519": "X25519"}
FILES = sorted(p.name for p in WYCHEPROOF.glob("*_test.json")
               if p.name.startswith(("ecdsa_", "ecdh_", "x25519_", "ed25519_", "hkdf_", "rsa_signature_", "rsa_pss_")))


def _digest(name: str) -> str:
    """Wycheproof's "SHA-256" as OpenSSL's "SHA256"."""
    return name.replace("SHA-", "SHA", 1).replace("/", "-")


def _op(algorithm: str, group: dict[str, Any], test: dict[str, Any]) -> tuple[str, dict[str, Any], bytes | None]:
    """The op, its arguments, and the bytes a valid vector must give (None: a True verification)."""
    kind = group["type"]
    h = bytes.fromhex
    if kind in SIGNATURE_SCHEMES:
        args: dict[str, Any] = {"scheme": SIGNATURE_SCHEMES[kind], "key": h(group["publicKeyDer"]),
                                "message": h(test["msg"]), "signature": h(test["sig"])}
        if "sha" in group:
            args["hash"] = _digest(group["sha"])
        if kind == "RsassaPssVerify":
            assert group["mgf"] == "MGF1"
            args |= {"mgf1_hash": _digest(group["mgfSha"]), "salt_length": group["sLen"]}
        return "sig.verify", args, None
    if kind in AGREEMENT_ENCODINGS:
        return "kex.agree", {"curve": CURVES[group["curve"]], "private": h(test["private"]), "public": h(test["public"]),
                             "encoding": AGREEMENT_ENCODINGS[kind]}, h(test["shared"])
    assert kind == "HkdfTest", kind
    return "hkdf.derive", {"hash": _digest(algorithm.removeprefix("HKDF-")), "ikm": h(test["ikm"]),
                           "salt": h(test["salt"]), "info": h(test["info"]), "length": test["size"]}, h(test["okm"])


def run_file(name: str) -> tuple[list[str], dict[str, int]]:
    """Every vector of `name` through PythonRef: (verdicts that disagree with the file, outcome counts)."""
    document = json.loads((WYCHEPROOF / name).read_text())
    wrong: list[str] = []
    seen = {"accepted": 0, "refused": 0}
    for group in document["testGroups"]:
        for test in group["tests"]:
            op, args, expected = _op(document["algorithm"], group, test)
            reply = call(op, args)
            where = f"{name} tcId {test['tcId']} ({test['result']}, {', '.join(test['flags'])})"
            if reply.get("err") == "Internal" or reply.get("err") == "Unsupported":
                wrong.append(f"{where}: {reply['err']}: {reply['detail'][:200]}")
                continue
            accepted = reply.get("ok") is True or (expected is not None and "ok" in reply)
            seen["accepted" if accepted else "refused"] += 1
            if accepted and expected is not None and reply["ok"] != expected:
                wrong.append(f"{where}: returned {reply['ok'].hex()}, not {expected.hex()}")
            elif test["result"] == "valid" and not accepted:
                wrong.append(f"{where}: valid, refused: {reply}")
            elif test["result"] == "invalid" and accepted:
                wrong.append(f"{where}: invalid, accepted")
    assert sum(seen.values()) == document["numberOfTests"]
    return wrong, seen


def test_theFamiliesAreVendored() -> None:
    assert len(FILES) == 18, FILES


@pytest.mark.parametrize("name", FILES)
def test_wycheproofFile_pythonRefAgreesWithEveryVerdict(name: str) -> None:
    wrong, _ = run_file(name)
    assert wrong == []


def test_acceptableVectors_pythonRefOutcomes() -> None:
    """What pyca (OpenSSL 3) does with the `acceptable` vectors, recorded in docs/APPLE-MODULES.md: the
    RSA signature with a missing NULL in its DigestInfo is refused; X25519's all-zero secrets (from
    low-order public keys) are refused, the rest (non-canonical public keys) agree."""
    outcomes: dict[str, dict[str, int]] = {}
    for name in ("rsa_signature_2048_sha256_test.json", "x25519_test.json"):
        document = json.loads((WYCHEPROOF / name).read_text())
        counts = {"accepted": 0, "refused": 0}
        for group in document["testGroups"]:
            for test in group["tests"]:
                if test["result"] != "acceptable":
                    continue
                op, args, _ = _op(document["algorithm"], group, test)
                reply = call(op, args)
                counts["accepted" if reply.get("ok") not in (None, False) else "refused"] += 1
        outcomes[name] = counts
    zero_shared = sum(1 for g in json.loads((WYCHEPROOF / "x25519_test.json").read_text())["testGroups"]
                      for t in g["tests"] if t["result"] == "acceptable" and t["shared"] == "00" * 32)
    assert outcomes["rsa_signature_2048_sha256_test.json"] == {"accepted": 0, "refused": 1}
    assert outcomes["x25519_test.json"] == {"accepted": 254 - zero_shared, "refused": zero_shared}
