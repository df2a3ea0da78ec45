import Foundation
import WireCrypto

/// What a PKCS#1 v1.5 server's `Server: OK` to a ciphertext whose padding is wrong can mean
/// (used by the remote audits, the in-process server probes and the fuzzer).
///
/// Since OpenSSL 3.2 the default provider does not fail such a decryption: it returns a synthetic
/// plaintext derived from the private key and the ciphertext ("implicit rejection", OpenSSL PR
/// 13817; draft-irtf-cfrg-rsa-guidance), so a correct server on a current Pi image acknowledges it.
/// That is no padding oracle — every bad padding answers as a good one does — but it leaves three
/// outcomes to tell apart where older verdicts knew two (docs/PROTOCOL.md "Implicit rejection"):
/// - an error (`Server: ERROR`): explicit rejection, OpenSSL ≤ 3.1 and iOS;
/// - a synthetic plaintext: implicit rejection, deterministic per ciphertext, unrelated to the
///   block's bytes;
/// - a real plaintext: bytes of the decrypted block itself — a lenient decoder that skipped a
///   padding check, which is a padding bug whatever the library.
/// With the `digest` extension the server's `sha256=` says which; without it, `Server: OK` proves
/// nothing and the outcome is only *consistent with* implicit rejection.
/// Implicit rejection covers padding errors only: a ciphertext of the wrong length or one not below
/// the modulus is refused by every OpenSSL, so acknowledging those still fails.
public enum ImplicitRejection {
    public static let findingName = "implicit-rejection"

    /// What an acknowledged bad-padding ciphertext decrypted to, as far as the answer shows.
    public enum Outcome: Equatable, Sendable {
        /// No digest: the server said `Server: OK` and nothing more.
        case unverified
        /// The digest is of none of the block's own bytes.
        case synthetic(digest: String)
        /// The digest is of the block's last `length` bytes: a decoder that skipped a check.
        case realPlaintext(length: Int)
    }

    /// Classifies an acknowledgement of the raw decrypted `block` (the k-byte encoding we made)
    /// by the digest the server sent, if any. Any real decoding of a block is one of its suffixes;
    /// the empty suffix is left out, since a synthetic plaintext may be empty too (OpenSSL draws its
    /// length from 0 up).
    public static func classify(digest: String?, block: Data) -> Outcome {
        guard let digest = digest?.lowercased() else { return .unverified }
        for length in stride(from: 1, through: block.count, by: 1) {
            if Digest.sha256.hash(block.suffix(length)).hexString == digest { return .realPlaintext(length: length) }
        }
        return .synthetic(digest: digest)
    }

    /// The hex digest in `Server: OK sha256=<hex>`, if the message carries one.
    public static func digest(in message: Data) -> String? {
        let prefix = Data("Server: OK sha256=".utf8)
        guard message.starts(with: prefix) else { return nil }
        let hex = String(decoding: message.dropFirst(prefix.count).prefix(64), as: UTF8.self)
        return hex.count == 64 ? hex : nil
    }

    /// The audit finding's text: what was seen and what it means for the rest of the report.
    public static func finding(proven: Bool, evidence: String) -> String {
        "implicit rejection (OpenSSL ≥ 3.2): undecryptable ciphertexts are acknowledged with a synthetic plaintext; "
            + "no padding oracle; `Server: OK` does not prove decryption"
            + (proven ? " — proven with the digest extension: \(evidence)"
                      : " — consistent with it, not proven (\(evidence)); without the digest extension no acknowledgement of this server proves what it decrypted")
    }
}
