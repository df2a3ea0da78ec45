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
    /// - staleAmong: the full names of every check the run could have had (nil: those of `results`);
    ///   a run that was interrupted passes `checkStale: false` — it did not see them all.
    /// - fleet: the results of several servers (`remote --targets`), whose checks share their names:
    ///   a listed check is "fixed" only where it passes on every server, and the footer names the server.
    static func apply(_ known: KnownFailures, path: String, to results: [CheckResult], staleAmong names: [String]? = nil,
                      checkStale: Bool = true, fleet: Bool = false) -> (results: [CheckResult], footer: [String]) {
        var adjusted = known.apply(to: results)
        if fleet {
            // A check that still fails on one server is not fixed on another that passes it: that one passed.
            let stillFailing = Set(results.filter { Self.failed($0) && known.entry(for: $0.check.fullName) != nil }.map(\.check.fullName))
            for index in adjusted.indices where stillFailing.contains(results[index].check.fullName) {
                if case .passed = results[index].outcome { adjusted[index] = results[index] }
            }
        }
        return finish(known, path: path, adjusted: adjusted, staleAmong: names, checkStale: checkStale, fleet: fleet)
    }

    /// The same for results the list was applied to as they came (so progress showed them as reported).
    static func finish(_ known: KnownFailures, path: String, adjusted results: [CheckResult], staleAmong names: [String]? = nil,
                       checkStale: Bool = true, fleet: Bool = false) -> (results: [CheckResult], footer: [String]) {
        var adjusted = results
        if checkStale {
            adjusted += known.stale(among: names ?? results.map(\.check.fullName)).map { entry in
                let check = Check(suite: "known-failures", classname: "crosscheck.known-failures", name: "stale-entry") { .passed }
                return CheckResult(check: check, outcome: .error(
                    message: "stale known-failures entry: '\(entry.pattern)' matches no check of this run; remove it or fix the pattern",
                    details: "\(entry.reason) (\(entry.seed))"), duration: 0)
            }
        }
        let listed = adjusted.filter { if case let .skipped(reason) = $0.outcome { return reason.hasPrefix(JUnitCase.knownPrefix) } else { return false } }
        guard !listed.isEmpty else { return (adjusted, []) }
        return (adjusted, ["Known failures (\(listed.count), from \(path)):"]
            + listed.map { "  KNOWN \(fleet ? "[\($0.check.suite)] " : "")\($0.check.fullName): \(known.entry(for: $0.check.fullName)?.reason ?? "")" })
    }

    static func failed(_ result: CheckResult) -> Bool {
        switch result.outcome {
        case .failed, .error: return true
        case .passed, .skipped: return false
        }
    }
}
