import Foundation
import CommandLineKit
import Conformance
import Reports

/// Check results → JUnit: one `<testsuite>` per suite name, in first-seen order.
enum JUnitAdapter {
    /// `caseProperties` adds what only the command knows about a result (e.g. a Wycheproof outcome).
    static func report(_ results: [CheckResult], properties: [(String, String)], timestamp: Date,
                       caseProperties: (CheckResult) -> [JUnitProperty] = { _ in [] }) -> JUnitReport {
        let hostname = ProcessInfo.processInfo.hostName
        var order: [String] = []
        var cases: [String: [JUnitCase]] = [:]
        for result in results {
            if cases[result.check.suite] == nil { order.append(result.check.suite); cases[result.check.suite] = [] }
            var junit = junitCase(result)
            junit.properties += caseProperties(result)
            cases[result.check.suite, default: []].append(junit)
        }
        let suiteProperties = properties.map { JUnitProperty(name: $0.0, value: $0.1) }
        let suites = order.map { name in
            JUnitSuite(name: name, package: "crosscheck." + (name.split(separator: ".").first.map(String.init) ?? name),
                       timestamp: timestamp, hostname: hostname, properties: suiteProperties, cases: cases[name] ?? [])
        }
        return JUnitReport(suites: suites)
    }

    /// Marks an interrupted run's report as partial; a run stopped before its first result still
    /// gets a (empty) suite, so the file says what happened.
    static func markPartial(_ report: inout JUnitReport, note: String, timestamp: Date) {
        if report.suites.isEmpty {
            report.suites.append(JUnitSuite(name: "crosscheck.interrupted", package: "crosscheck", timestamp: timestamp,
                                            hostname: ProcessInfo.processInfo.hostName))
        }
        for index in report.suites.indices {
            report.suites[index].properties.append(JUnitProperty(name: "crosscheck.partial", value: note))
        }
    }

    static func junitCase(_ result: CheckResult) -> JUnitCase {
        let outcome: JUnitCase.Outcome
        switch result.outcome {
        case .passed: outcome = .passed
        case let .failed(message, details): outcome = .failed(message: message, type: "mismatch", details: details)
        case let .error(message, details): outcome = .error(message: message, type: "error", details: details)
        case let .skipped(reason): outcome = .skipped(message: reason)
        }
        return JUnitCase(name: result.check.name, classname: result.check.classname, time: result.duration, outcome: outcome,
                         properties: result.check.properties.sorted { $0.key < $1.key }.map { JUnitProperty(name: $0.key, value: $0.value) })
    }
}
