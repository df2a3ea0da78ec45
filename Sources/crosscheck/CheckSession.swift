import Foundation
import Conformance
import PythonBridge
import Reports

/// `--impl swift|python|both`: which implementations a command runs (Python starts only if asked).
struct ImplementationChoice {
    static let help = "  --impl WHICH        swift, python or both (default both)"
    enum Which: String { case swift, python, both }
    let which: Which

    init(_ arguments: inout Arguments) throws {
        let text = try arguments.option("--impl") ?? "both"
        guard let which = Which(rawValue: text) else {
            throw CommandExit.usage("--impl takes swift, python or both, not '\(text)'", command: arguments.command)
        }
        self.which = which
    }

    func peers(_ python: PythonOptions) throws -> [CryptoPeer] {
        switch which {
        case .swift: return [SwiftPeer()]
        case .python: return [PythonPeer(interpreter: try python.interpreter())]
        case .both: return [SwiftPeer(), PythonPeer(interpreter: try python.interpreter())]
        }
    }
}

/// Runs checks for a command other than `run`: progress on stderr, the summary on stdout, JUnit
/// when asked, and the exit status (0 all passed or skipped, 1 a failure or error, 130 interrupted).
enum CheckSession {
    struct Finished {
        let results: [CheckResult]
        let report: JUnitReport
        let wallTime: TimeInterval
        let exitCode: ExitCode
    }

    static func run(_ checks: [Check], title: String, quiet: Bool, junitPath: String?, properties: [(String, String)],
                    caseProperties: (CheckResult) -> [JUnitProperty] = { _ in [] }) throws -> Finished {
        let latch = InterruptLatch()
        if !quiet { printError("\(title): \(checks.count) checks") }
        var progress = ProgressPrinter(quiet: quiet)
        let started = Date()
        let results = Runner().run(checks, shouldStop: { latch.interrupted }) { done, total, result in
            progress.record(done: done, total: total, result: result)
        }
        let wallTime = Date().timeIntervalSince(started)
        var report = JUnitAdapter.report(results, properties: properties, timestamp: started)
        // JUnitAdapter keeps each suite's cases in run order, so the n-th case of a suite is the
        // n-th result with that suite name.
        var bySuite: [String: [CheckResult]] = [:]
        for result in results { bySuite[result.check.suite, default: []].append(result) }
        for suiteIndex in report.suites.indices {
            let suiteResults = bySuite[report.suites[suiteIndex].name] ?? []
            for caseIndex in report.suites[suiteIndex].cases.indices where caseIndex < suiteResults.count {
                report.suites[suiteIndex].cases[caseIndex].properties += caseProperties(suiteResults[caseIndex])
            }
            if latch.interrupted {
                report.suites[suiteIndex].properties.append(JUnitProperty(name: "crosscheck.partial",
                    value: "interrupted after \(results.count) of \(checks.count) checks"))
            }
        }
        if let junitPath {
            do { try JUnitXML.write(report, to: URL(fileURLWithPath: junitPath)) } catch {
                printError(Summary.text(report))
                throw CommandExit(code: .cannotCreate, message: "crosscheck: \(error)")
            }
        }
        print(Summary.text(report), terminator: "")
        print(String(format: "wall time: %.2fs", wallTime))
        if let junitPath { print("JUnit report: \(URL(fileURLWithPath: junitPath).path)") }
        let code: ExitCode = latch.interrupted ? .interrupted : (report.failures + report.errors == 0 ? .success : .checksFailed)
        return Finished(results: results, report: report, wallTime: wallTime, exitCode: code)
    }
}
