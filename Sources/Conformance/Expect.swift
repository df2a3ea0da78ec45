import Foundation
import WireCrypto

/// Assertions for check bodies: each throws a `CheckFailure` that says what differed, with hex and
/// lengths, so a failing testcase in a JUnit report is enough to start debugging.
public enum Expect {
    /// Runs `step` as `peer` doing `what`; a refusal becomes a failure naming the peer and step.
    public static func succeeds<R>(_ peer: CryptoPeer, _ what: String, _ step: () throws -> R) throws -> R {
        do { return try step() } catch let failure as PeerFailure {
            throw CheckFailure("\(peer.name) failed to \(what): \(failure.kind.rawValue)", details: failure.detail)
        }
    }

    /// Fails with where the bytes differ: the message says how many differ and the first offset;
    /// the details start with the `ByteDiff` window (both sides in hex around the first difference),
    /// then the beginning of each side.
    public static func equalBytes(_ actual: Data, _ expected: Data, _ what: String) throws {
        guard actual != expected else { return }
        let diff = ByteDiff(expected: expected, actual: actual)
        throw CheckFailure("\(what): \(diff.counts)",
                           details: "\(diff.text)\nexpected: \(preview(expected))\nactual:   \(preview(actual))")
    }

    public static func equal<T: Equatable>(_ actual: T, _ expected: T, _ what: String) throws {
        guard actual != expected else { return }
        throw CheckFailure("\(what): expected \(expected), got \(actual)")
    }

    /// `peer` must refuse, with one of `kinds`, and release nothing.
    public static func refuses(_ peer: CryptoPeer, _ what: String, kinds: Set<FailureKind>,
                               _ step: () throws -> Data) throws -> FailureKind {
        let released: Data
        do { released = try step() } catch let failure as PeerFailure {
            guard kinds.contains(failure.kind) else {
                throw CheckFailure("\(peer.name) refused \(what) with \(failure.kind.rawValue); expected \(kinds.map(\.rawValue).sorted().joined(separator: " or "))",
                                   details: failure.detail)
            }
            return failure.kind
        }
        throw CheckFailure("\(peer.name) accepted \(what) and released \(released.count) bytes of plaintext",
                           details: "released: \(preview(released))")
    }

    /// Hex of at most 64 bytes, with the length.
    public static func preview(_ data: Data) -> String {
        let shown = data.prefix(64).hexString
        return "\(data.count) bytes \(shown)\(data.count > 64 ? "…" : "")"
    }
}
