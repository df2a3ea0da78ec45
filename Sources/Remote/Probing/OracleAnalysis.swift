import Foundation
import Conformance

/// A probe class of a padding-oracle audit (RSA PKCS#1 v1.5 / OAEP, or AES-CBC PKCS#7).
struct OracleClass: Sendable {
    let name: String
    /// A correct encoding: the server may accept it (the protocol's success answer), or refuse it
    /// for another reason, but then exactly as it refuses malformed ones.
    let wellFormed: Bool
    /// The decryption begins as the scheme wants (PKCS#1: `00 02`; OAEP: `00`; CBC: the padding
    /// is valid). Telling these apart from the rest is the oracle Bleichenbacher's, Manger's and
    /// Vaudenay's attacks need.
    let rightPrefix: Bool
    /// How it is built, for the report.
    let about: String
}

/// One answer to one probe, reduced to what must be the same for every refused class.
struct OracleSample: Sendable {
    /// The observable behaviour: answer bytes, close or not, what followed.
    let signature: String
    /// The protocol's success answer (`Server: OK`, HTTP 200 with an envelope).
    let accepted: Bool
    /// Seconds to the first byte of the answer (or the close); for the report and `--timing`.
    let latency: TimeInterval?
    /// The `sha256=` of an acknowledgement with the digest extension (rsa-socket).
    var digest: String? = nil
}

/// The verdict in the words SSL Labs and sslyze use for ROBOT.
enum OracleVerdict: String, Sendable {
    case notVulnerable = "not vulnerable (no oracle)"
    case weakOracle = "vulnerable: weak oracle"
    case strongOracle = "vulnerable: strong oracle"
    case inconsistent = "inconsistent results"
}

/// Classifies the samples of an audit as sslyze's ROBOT analysis does (learnt from its
/// `RobotServerResponsesAnalyzer`, rewritten for this protocol): repeats of a class that disagree
/// make the result inconsistent; otherwise classes answered differently are an oracle. This
/// protocol acknowledges a successful decryption by design, so accepted classes are compared with
/// nothing; every class that is refused must be refused in exactly one way.
/// - strong: the answer alone tells a well-formed encoding from every malformed one, or the
///   right prefix from the wrong one (no answer is given both to a class with the right prefix
///   and to one with the wrong prefix) — the yes/no Bleichenbacher's, Manger's and Vaudenay's
///   attacks are built on;
/// - weak: the answers differ, but some answer is shared across the prefix check, so an answer
///   tells the prefix only sometimes: the oracle leaks, with fewer usable answers.
struct OracleAnalysis {
    let classes: [OracleClass]
    /// Per class name, in the order sent.
    let samples: [String: [OracleSample]]
    /// Decided once: an audit reads it several times, and each decision hashes every signature.
    private(set) var verdict = OracleVerdict.inconsistent

    init(classes: [OracleClass], samples: [String: [OracleSample]]) {
        self.classes = classes
        self.samples = samples
        verdict = decidedVerdict
    }

    struct Disagreement {
        let a: OracleClass, aSignature: String
        let b: OracleClass, bSignature: String
    }

    /// Classes whose repeats disagree.
    var inconsistentClasses: [OracleClass] {
        classes.filter { Set((samples[$0.name] ?? []).map(\.signature)).count > 1 }
    }

    /// The signature of each class (its first sample's; meaningful when consistent).
    func signature(_ cls: OracleClass) -> OracleSample? { samples[cls.name]?.first }

    /// Malformed classes the server acknowledged as if they had decrypted.
    var acceptedMalformed: [OracleClass] {
        classes.filter { !$0.wellFormed && (signature($0)?.accepted ?? false) }
    }

    var refused: [OracleClass] { classes.filter { !(signature($0)?.accepted ?? true) } }

    /// Every sample of every class got the same acknowledgement: the server answers a malformed
    /// encoding exactly as a well-formed one (what implicit rejection does; see ImplicitRejection).
    var everyClassAcknowledgedAlike: Bool {
        let all = classes.flatMap { samples[$0.name] ?? [] }
        return !all.isEmpty && all.allSatisfy(\.accepted) && Set(all.map(\.signature)).count == 1
    }

    /// Distinct refusals, each with the classes that got it.
    var refusalGroups: [(signature: String, classes: [OracleClass])] {
        var groups: [(signature: String, classes: [OracleClass])] = []
        for cls in refused {
            guard let sample = signature(cls) else { continue }
            if let index = groups.firstIndex(where: { $0.signature == sample.signature }) {
                groups[index].classes.append(cls)
            } else {
                groups.append((sample.signature, [cls]))
            }
        }
        return groups
    }

    private var decidedVerdict: OracleVerdict {
        if !inconsistentClasses.isEmpty { return .inconsistent }
        if refusalGroups.count <= 1 { return .notVulnerable }
        return strongDisagreement != nil ? .strongOracle : .weakOracle
    }

    /// A pair that makes the oracle strong: a refused well-formed class whose answer no malformed
    /// class gets, or — when no answer is shared between the right and the wrong prefix — a class
    /// of each.
    var strongDisagreement: Disagreement? {
        let refused = self.refused
        let malformed = refused.filter { !$0.wellFormed }
        let malformedAnswers = Set(malformed.compactMap { signature($0)?.signature })
        for well in refused where well.wellFormed {
            if let answer = signature(well)?.signature, !malformedAnswers.contains(answer), let other = malformed.first {
                return disagreement(well, other)
            }
        }
        let wrong = malformed.filter { !$0.rightPrefix }, right = malformed.filter(\.rightPrefix)
        let wrongAnswers = Set(wrong.compactMap { signature($0)?.signature }), rightAnswers = Set(right.compactMap { signature($0)?.signature })
        if let a = wrong.first, let b = right.first, wrongAnswers.isDisjoint(with: rightAnswers) { return disagreement(a, b) }
        return nil
    }

    /// The pair a report names: the strong one if there is one, else any two that differ.
    var decisiveDisagreement: Disagreement? {
        if let strong = strongDisagreement { return strong }
        let groups = refusalGroups
        // Name a class of the rarest answer against one of the most common.
        let sorted = groups.sorted { $0.classes.count > $1.classes.count }
        guard sorted.count > 1, let common = sorted.first?.classes.first, let rare = sorted.last?.classes.first else { return nil }
        return disagreement(rare, common)
    }

    private func disagreement(_ a: OracleClass, _ b: OracleClass) -> Disagreement {
        Disagreement(a: a, aSignature: signature(a)?.signature ?? "", b: b, bSignature: signature(b)?.signature ?? "")
    }

    /// Per class, every sample, for the report's details.
    var evidence: String {
        classes.map { cls in
            let kind = cls.wellFormed ? "well-formed" : (cls.rightPrefix ? "malformed, right prefix" : "malformed, wrong prefix")
            let lines = (samples[cls.name] ?? []).enumerated().map { index, sample in
                "  \(index + 1). \(sample.signature)" + (sample.latency.map { String(format: " [%.1f ms]", $0 * 1000) } ?? "")
            }
            return "\(cls.name) (\(kind): \(cls.about))\n" + lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// The classes and their answers, one line: "class A answered X; class B answered Y".
    static func pairText(_ pair: Disagreement) -> String {
        "class \(pair.a.name) answered \(pair.aSignature); class \(pair.b.name) answered \(pair.bSignature)"
    }

    /// Records the verdict and the rounds on the testcase.
    func record(on run: RemoteRun, rounds: String) {
        run.note("oracle-verdict", verdict.rawValue)
        run.note("oracle-rounds", rounds)
    }

    /// The failure for an inconsistent result: repeats of a class disagreed, so there is no verdict
    /// (robot-detect reports these apart; never a pass).
    func inconsistentFailure(details: String) -> CheckFailure {
        CheckFailure("inconsistent results: \(inconsistencyText) — repeats of a class disagree, so the audit reaches no verdict (look at the server's logs and rerun)",
                     details: details)
    }

    /// Why the result is inconsistent: a class and its differing answers.
    var inconsistencyText: String {
        inconsistentClasses.prefix(3).map { cls in
            // Each distinct answer once, with the repeats that got it: "A (#1, #3) / B (#2)".
            var answers: [(signature: String, repeats: [Int])] = []
            for (index, sample) in (samples[cls.name] ?? []).enumerated() {
                if let known = answers.firstIndex(where: { $0.signature == sample.signature }) {
                    answers[known].repeats.append(index + 1)
                } else {
                    answers.append((sample.signature, [index + 1]))
                }
            }
            return "class \(cls.name) answered " + answers.map { "\($0.signature) (#\($0.repeats.map(String.init).joined(separator: ", #")))" }.joined(separator: " / ")
        }.joined(separator: "; ")
    }
}
