import Foundation
import Conformance
import WireCrypto

/// What the digests of acknowledged malformed PKCS#1 v1.5 ciphertexts show about a server that
/// acknowledges them (docs/PROTOCOL.md "Implicit rejection").
///
/// Implicit rejection (draft-irtf-cfrg-rsa-guidance, "Implicit rejection"; OpenSSL ≥ 3.2,
/// `crypto/rsa/rsa_pk1.c` `ossl_rsa_padding_check_PKCS1_type_2` with the key derived in
/// `crypto/rsa/rsa_ossl.c` `derive_kdk`) answers a bad padding with a synthetic message that is a
/// pseudorandom function of the private key and the ciphertext: the same for the same ciphertext
/// under the same key, a different one (of a pseudorandom length, from 0 up to k − 10 bytes) for
/// every other ciphertext, and not made of the block's bytes. Anything else the digest extension
/// can show breaks one of those and tells a bad padding from a good one:
/// - a *sentinel* (PyCryptodome's `PKCS1_v1_5.decrypt(ciphertext, sentinel)` returns `sentinel`
///   for every bad padding: `b""`, or fixed random bytes): one digest for every malformed
///   ciphertext, the empty string's or another shared one — a padding oracle;
/// - the ciphertext itself passed on, or the block's own bytes (a lenient decoder);
/// - a digest that changes when the same ciphertext is sent again under the same key.
/// A synthetic message is empty, or two are equal, by chance now and then (probability about
/// 1/(k − 10) each), so such a digest gets fresh ciphertexts before any verdict.
/// Answers are all this shows: whether the server takes the same time for every class (the Marvin
/// attack's channel) only `--timing` measures.
struct AcknowledgedMalformed {
    let className: String
    let ciphertext: Data
    /// The k-byte block the ciphertext decrypts to under `keyModulus`.
    let block: Data
    let digest: String
    /// The modulus (hex) of the key the server sent on the probe's connection.
    let keyModulus: String
}

enum SyntheticDigestRule {
    static let emptyDigest = Digest.sha256.hash(Data()).hexString
    /// Fresh ciphertexts sent for a class whose digest looked like a sentinel's; all must look so
    /// again before the verdict is a padding oracle.
    static let freshProbes = 2

    /// Why `probe`'s digest is not a fresh synthetic message's, given the digests of the other
    /// malformed probes and of the well-formed ones (real plaintexts); nil when nothing is wrong.
    static func suspicion(of probe: AcknowledgedMalformed, among others: [AcknowledgedMalformed],
                          wellFormed: [(className: String, digest: String)]) -> String? {
        let digest = probe.digest.lowercased()
        if digest == emptyDigest { return "the digest of the empty string" }
        if digest == Digest.sha256.hash(probe.ciphertext).hexString { return "the digest of the ciphertext itself" }
        if let twin = others.first(where: { $0.digest.lowercased() == digest && $0.ciphertext != probe.ciphertext }) {
            return "the same digest as another malformed ciphertext (class \(twin.className))"
        }
        if let real = wellFormed.first(where: { $0.digest.lowercased() == digest }) {
            return "the digest of well-formed class \(real.className)'s real plaintext"
        }
        return nil
    }

    /// The failure for a fallback that the digest shows: a padding oracle.
    static func oracleFailure(_ suspicious: [(AcknowledgedMalformed, String)], fresh: [(AcknowledgedMalformed, String)]) -> CheckFailure {
        let first = fresh.first ?? suspicious.first
        let kind = first?.1 == "the digest of the empty string" ? "an empty sentinel"
            : (first?.1.hasPrefix("the same digest") ?? false) ? "a constant sentinel" : "a fallback"
        let lines = (suspicious + fresh).map { "\($0.0.className): sha256=\($0.0.digest) — \($0.1)" }
        return CheckFailure("padding oracle (vulnerable: the digest tells a bad padding from a good one): malformed ciphertexts were acknowledged with \(kind)'s digest, "
                            + "\(first.map { "class \($0.0.className) got \($0.1)" } ?? ""), again on fresh ciphertexts — "
                            + "implicit rejection gives every ciphertext its own synthetic plaintext, so this is a decoder that returns a fixed value for a bad padding (PyCryptodome's sentinel style), not implicit rejection",
                            details: lines.joined(separator: "\n"))
    }
}

/// An application rule on plaintexts seen through the oracle audit: the server refuses some
/// plaintexts it decrypted (here: those that are not UTF-8), so under implicit rejection some
/// synthetic plaintexts are refused and others acknowledged. Not a padding oracle: a malformed
/// ciphertext's synthetic plaintext meets the rule as a random real plaintext would.
enum PlaintextRule: String {
    case utf8 = "refuses plaintexts that are not UTF-8"

    /// True when `accepted` is exactly what the rule predicts for `plaintext`.
    func predicts(accepted: Bool, plaintext: Data) -> Bool {
        switch self {
        case .utf8: return accepted == (String(data: plaintext, encoding: .utf8) != nil)
        }
    }
}

/// The message inside a well-formed PKCS#1 v1.5 block (`00 02 PS 00 M`), nil for anything else.
func pkcs1Message(_ block: Data) -> Data? {
    let bytes = [UInt8](block)
    guard bytes.count > 11, bytes[0] == 0, bytes[1] == 2, let separator = bytes[2...].firstIndex(of: 0), separator >= 10 else { return nil }
    return Data(bytes[(separator + 1)...])
}

/// The implicit-rejection finding's text: what the answers showed, what they cannot show, and
/// whether timing was measured.
func implicitRejectionFindingText(shown: String, timing: Bool) -> String {
    "implicit rejection (OpenSSL ≥ 3.2: a bad PKCS#1 v1.5 padding decrypts to a synthetic plaintext): undecryptable ciphertexts are acknowledged, so `Server: OK` does not prove decryption; "
        + shown
        + (timing ? "; timing measured (timing.rsa-padding compares accepted malformed classes with well-formed ones)"
                  : "; timing not measured (answers alone cannot show a timing oracle such as Marvin's: --timing N measures it)")
}
