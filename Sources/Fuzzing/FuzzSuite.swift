import Foundation
import Conformance
import Frames

/// The `fuzz` suite of `crosscheck run` (and so of `make interop`): a short differential fuzz run
/// with the run's seed, one testcase per frame family. A failing testcase lists each distinct
/// disagreement (by verdict pair) with its first frame and where its reproducer was saved.
public enum FuzzSuite {
    public static let name = "fuzz"
    public static let summary = "differential fuzzing: 10,000 malformed frames (with the run's seed) to both implementations, one testcase per frame family; reproducers in reports/fuzz-failures/"
    public static let defaultFrames = 10_000

    public static func checks(_ context: SuiteContext, frames: Int = defaultFrames,
                       saveDirectory: URL? = URL(fileURLWithPath: "reports/fuzz-failures")) -> [Check] {
        guard let python = context.python as? PythonPeer else { return [] }
        let families = FrameFamily.allCases
        let perFamily = (frames + families.count - 1) / families.count
        let shared = SharedCampaign(context: context, python: python)
        return families.map { family in
            Check(suite: "fuzz.\(context.swift.name)_vs_\(context.python.name)", classname: "crosscheck.\(family.profile).\(context.swift.name)_vs_\(context.python.name)",
                  name: family.rawValue, properties: ["seed": String(context.seed), "frames": String(perFamily)]) {
                let (generator, oracle) = try shared.parts()
                let options = FuzzOptions(seed: context.seed, frames: perFamily, families: [family], saveDirectory: saveDirectory,
                                          plant: PlantedFlaw.planted(in: context.swift))
                let report = FuzzCampaign(generator: generator, options: options, oracle: oracle.run).run(jobs: perFamily) { (family, $0) }
                guard report.failures.isEmpty else {
                    let stats = report.stats[family] ?? FamilyStats()
                    return .failed(message: "\(stats.disagreements) disagreements, \(stats.specViolations) spec violations, \(stats.crashes) crashes, \(stats.hangs) hangs in \(stats.frames) frames (\(report.failures.count) distinct)",
                                   details: report.failures.map { FuzzText.describe($0) }.joined(separator: "\n\n"))
                }
                return .passed
            }
        }
    }

    /// The corpus, generator and oracle, made once for all the suite's checks.
    final class SharedCampaign: @unchecked Sendable {
        let context: SuiteContext
        let python: PythonPeer
        private let lock = NSLock()
        private var made: Result<(FrameGenerator, FuzzOracle), Error>?

        init(context: SuiteContext, python: PythonPeer) { self.context = context; self.python = python }

        func parts() throws -> (FrameGenerator, FuzzOracle) {
            lock.lock(); defer { lock.unlock() }
            if made == nil {
                made = Result {
                    let corpus = try FuzzCorpus(directory: context.files.frames)
                    return (FrameGenerator(corpus: corpus, seed: context.seed), FuzzOracle(swift: context.swift, python: python, corpus: corpus))
                }
            }
            return try made!.get()
        }
    }
}

/// Human-readable renderings of fuzz findings, shared by the suite, the CLI and replay.
public enum FuzzText {
    public static func describe(_ failure: DistinctFailure, labels: (String, String) = ("swift", "python")) -> String {
        let left = (labels.0 + ":").padding(toLength: max(labels.0.count, labels.1.count) + 2, withPad: " ", startingAt: 0)
        let right = (labels.1 + ":").padding(toLength: max(labels.0.count, labels.1.count) + 2, withPad: " ", startingAt: 0)
        return """
        \(failure.family.rawValue) \(failure.kind) ×\(failure.count): \(labels.0) \(failure.swift.outcome.rawValue) \(failure.swiftSummary) / \(labels.1) \(failure.python.outcome.rawValue) \(failure.pythonSummary)
        first frame: #\(failure.ordinal) mutator \(failure.example.mutator), \(failure.example.length) bytes: \(preview(failure.example.bytes))\(specLine(failure, labels: labels))
        setting: \(failure.example.setting.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.prefix(48))" }.joined(separator: " "))
        \(left)\(failure.swift.line)\(failure.swift.note.isEmpty ? "" : " — " + String(failure.swift.note.prefix(300)))
        \(right)\(failure.python.line)\(failure.python.note.isEmpty ? "" : " — " + String(failure.python.note.prefix(300)))
        reproducer: \(failure.reproducer?.path ?? "not saved")
        """
    }

    /// For a specification failure, what the specification requires and who answered against it.
    static func specLine(_ failure: DistinctFailure, labels: (String, String)) -> String {
        guard failure.kind == "spec" else { return "" }
        guard let spec = failure.example.spec else { return "\nspecification: no message may go out in the clear (an \"encryption\" that is the encoded message: e = 1)" }
        let against = [(labels.0, failure.swift), (labels.1, failure.python)].filter { FuzzOracle.violates(spec, $0.1) }.map(\.0)
        return "\nspecification: \(spec.answer.rawValue) (\(spec.clause)); answered against it: \(against.joined(separator: " and "))"
            + (against.count == 2 ? " — both sides agree, and both are wrong" : "")
    }

    /// Printable text as text, anything else as hex; at most 96 bytes.
    public static func preview(_ data: Data) -> String {
        let shown = data.prefix(96)
        if shown.allSatisfy({ (0x20...0x7e).contains($0) || $0 == 0x0a || $0 == 0x0d }) {
            return String(decoding: shown, as: UTF8.self).debugDescription + (data.count > 96 ? "…" : "")
        }
        return Data(shown).hexString + (data.count > 96 ? "…" : "")
    }
}
