import Foundation
import Conformance
import Frames

/// The fuzzer's error-equivalence map, in the style of BoringSSL's test runner `ErrorMap`: the
/// (Swift kind, Python kind) pairs that count as agreement when both implementations refuse the same
/// frame for different stated reasons. Anything not listed here is a disagreement.
///
/// Both sides already report the shared `FailureKind`s (WireCrypto's errors are mapped in
/// `ErrorEquivalence.swift`, PythonRef reports kinds itself), so naming differences between pyca
/// and OpenSSL never reach this table. What may: a frame with two faults at once, where the
/// implementations check in a different order. Before adding a rule, prefer making the
/// implementations agree; every rule says why it is equivalence and not a bug.
public enum FuzzErrorMap {
    public struct Rule: Sendable, Equatable {
        /// nil: every family.
        public let family: FrameFamily?
        public let swift: FailureKind
        public let python: FailureKind
        /// Why both answers are the same answer.
        public let why: String

        public var name: String { "\(family?.rawValue ?? "*"): swift \(swift.rawValue) ≡ python \(python.rawValue)" }
    }

    public static let rules: [Rule] = []

    static func rule(family: FrameFamily, swift: FailureKind, python: FailureKind) -> Rule? {
        rules.first { ($0.family == nil || $0.family == family) && $0.swift == swift && $0.python == python }
    }
}
