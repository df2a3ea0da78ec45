import Foundation
import CommandLineKit
import Conformance
import Reports

/// Issue 33: the known-failures list where a run's checks are known only once they ran (`remote`,
/// `run --server`): the same file format as `run`'s (Vectors/known-failures.json), the same rules —
/// a listed failure is skipped `known: <reason>`, a listed check that passes fails the run, an entry
/// that matches no check of the run is an error.
enum KnownFailureList {
    /// The list at `path`; a missing or malformed file ends the command with exit 66.
    static func load(_ path: String, command: String) throws -> KnownFailures {
        do { return try KnownFailures.load(from: URL(fileURLWithPath: path)) } catch {
            throw CommandExit(.noInput, "crosscheck \(command): --known-failures: \(error) (leave the option out to run without a list)")
        }
    }

    /// `results` with the list applied and its stale entries as errors, and the footer lines naming what it hid.
    static func apply(_ known: KnownFailures, path: String, to results: [CheckResult]) -> (results: [CheckResult], footer: [String]) {
        finish(known, path: path, adjusted: known.apply(to: results))
    }

    /// The same for results the list was applied to as they came (so progress showed them as reported).
    static func finish(_ known: KnownFailures, path: String, adjusted results: [CheckResult]) -> (results: [CheckResult], footer: [String]) {
        var adjusted = results
        adjusted += known.stale(among: results.map(\.check.fullName)).map { entry in
            let check = Check(suite: "known-failures", classname: "crosscheck.known-failures", name: "stale-entry") { .passed }
            return CheckResult(check: check, outcome: .error(
                message: "stale known-failures entry: '\(entry.pattern)' matches no check of this run; remove it or fix the pattern",
                details: "\(entry.reason) (\(entry.seed))"), duration: 0)
        }
        let listed = adjusted.filter { if case let .skipped(reason) = $0.outcome { return reason.hasPrefix(JUnitCase.knownPrefix) } else { return false } }
        guard !listed.isEmpty else { return (adjusted, []) }
        return (adjusted, ["Known failures (\(listed.count), from \(path)):"]
            + listed.map { "  KNOWN \($0.check.fullName): \(known.entry(for: $0.check.fullName)?.reason ?? "")" })
    }
}
