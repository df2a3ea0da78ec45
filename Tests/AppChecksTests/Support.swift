import Foundation
import XCTest
import AppChecks
import AppUnderTest
import Conformance
import PythonBridge
import Sessions

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let checkoutFiles = ProjectFiles(checkout: repositoryRoot)

func pythonPeer() throws -> PythonPeer {
    PythonPeer(interpreter: try PythonInterpreter.shared(pythonRefDirectory: checkoutFiles.pythonRef.path))
}

func suiteContext(seed: UInt64 = 5) throws -> SuiteContext {
    SuiteContext(swift: SwiftPeer(), python: try pythonPeer(), seed: seed, files: checkoutFiles)
}

/// Every app check of the three suites for `apps`; loopback servers only when `loopback` (they are stopped at the end).
func runAppChecks(_ apps: [AppUnderTest], loopback: Bool = false, filter: String? = nil) throws -> [CheckResult] {
    let context = try suiteContext()
    let python = try pythonPeer()
    let options = SessionOptions(factories: [SwiftSessions(), PythonSessions(peer: python)], inProcess: true, loopback: loopback)
    defer { options.servers.shutdown() }
    let subjects = apps.map { AppSubject($0) }
    let settings = AppSessionSettings(inProcess: true, servers: loopback ? SessionServers(context, options: options) : nil,
                                      timeout: options.timeout, quietGap: options.quietGap)
    let checks = AppSuites.roundTrip(context, apps: subjects) + AppSuites.vectors(context, apps: subjects)
        + AppSuites.sessions(context, apps: subjects, settings: settings)
    let runner = Runner(filter: filter)
    return runner.run(runner.selected(checks))
}

/// The checked-in known failures, as `crosscheck run` applies them.
func knownFailures() throws -> KnownFailures {
    try KnownFailures.load(from: checkoutFiles.vectors.appendingPathComponent("known-failures.json"))
}

extension CheckResult {
    var verdict: String {
        switch outcome {
        case .passed: return "passed"
        case .failed: return "failed"
        case .error: return "error"
        case .skipped: return "skipped"
        }
    }
    var message: String {
        switch outcome {
        case let .failed(message, _), let .error(message, _): return message
        case let .skipped(reason): return reason
        case .passed: return ""
        }
    }
}

/// Names (without the app's prefix) of the checks that did not pass, skips apart.
func notPassed(_ results: [CheckResult], app: String) -> [String] {
    results.filter { $0.verdict == "failed" || $0.verdict == "error" }.map { $0.check.fullName }
}
