import Foundation
import CommandLineKit
import Conformance
import Reports

/// The one path from a run to its report and exit code, for every command that runs checks
/// (`run`, `wycheproof`, `vectors check`, `fuzz`, `remote`): an interrupted run's report is marked
/// partial the same way everywhere, written atomically, summarised, and mapped to the exit code.
enum RunReport {
    /// Runs `checks` in order with progress on stderr, stopping early on SIGINT/SIGTERM.
    /// Prints "TITLE: N checks, DETAIL" first.
    /// `adjust` turns each result into the one reported (known failures), before progress sees it, so
    /// progress, summary and report say the same.
    static func run(_ checks: [Check], title: String, detail: String = "", quiet: Bool, latch: InterruptLatch,
                    adjust: @escaping (CheckResult) -> CheckResult = { $0 }) -> (results: [CheckResult], started: Date) {
        if !quiet { printError("\(title): \(checks.count) checks" + (detail.isEmpty ? "" : ", \(detail)")) }
        var progress = ProgressPrinter(quiet: quiet)
        let started = Date()
        var results: [CheckResult] = []
        _ = Runner().run(checks, shouldStop: { latch.interrupted }) { done, total, raw in
            let result = adjust(raw)
            results.append(result)
            progress.record(done: done, total: total, result: result)
        }
        return (results, started)
    }

    /// Writes `report` to `junitPath` (when given), marked partial if the run was interrupted after
    /// `done` of `planned` (nil: a run that learns its checks as it goes, so only `done` is known);
    /// prints `summary` (default: the report's) and returns the exit code.
    /// `partial`: the partial note itself, where the run counts something else than checks (targets).
    static func finish(_ report: JUnitReport, interrupted: Bool, done: Int, planned: Int?, partial: String? = nil, started: Date, junitPath: String?,
                       summary: String? = nil, footer: [String] = []) throws -> ExitCode {
        var report = report
        if interrupted {
            let note = partial ?? planned.map { "interrupted after \(done) of \($0)" } ?? "interrupted after \(done) checks; the checks after them did not run"
            JUnitAdapter.markPartial(&report, note: note, timestamp: started)
        }
        if let junitPath {
            do { try JUnitXML.write(report, to: URL(fileURLWithPath: junitPath)) } catch {
                printError(summary ?? Summary.text(report))
                throw CommandExit(.cannotCreate, "crosscheck: \(error)")
            }
        }
        print(summary ?? Summary.text(report), terminator: (summary ?? Summary.text(report)).hasSuffix("\n") ? "" : "\n")
        print(String(format: "wall time: %.2fs", Date().timeIntervalSince(started)))
        for line in footer { print(line) }
        if let junitPath { print("JUnit report: \(URL(fileURLWithPath: junitPath).path)" + (interrupted ? " (PARTIAL: the run was interrupted)" : "")) }
        if interrupted { return .interrupted }
        return report.failures + report.errors == 0 ? .success : .checksFailed
    }

    /// `run` then `finish`, for commands whose report is the check results.
    static func runAndFinish(_ checks: [Check], title: String, detail: String = "", options: ReportOptions, properties: [(String, String)],
                             caseProperties: (CheckResult) -> [JUnitProperty] = { _ in [] }, footer: [String] = [],
                             notes: ([CheckResult]) -> [String] = { _ in [] }) throws -> ExitCode {
        let latch = InterruptLatch()
        let (results, started) = run(checks, title: title, detail: detail, quiet: options.quiet, latch: latch)
        let report = JUnitAdapter.report(results, properties: properties, timestamp: started, caseProperties: caseProperties)
        return try finish(report, interrupted: latch.interrupted, done: results.count, planned: checks.count, started: started,
                          junitPath: options.junit, footer: notes(results) + footer)
    }
}
