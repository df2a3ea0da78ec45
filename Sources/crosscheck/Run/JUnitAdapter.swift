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
        let (name, properties) = nameAndProperties(result.check)
        return JUnitCase(name: name, classname: result.check.classname, time: result.duration, outcome: outcome,
                         properties: properties.sorted { $0.key < $1.key }.map { JUnitProperty(name: $0.key, value: $0.value) })
    }

    /// Wycheproof vector properties the testcase name carries instead.
    static let wycheproofNameProperties: Set<String> = ["file", "tcId", "result", "flags", "comment"]

    /// The testcase name and the properties left for the report. A Wycheproof vector's meaning goes
    /// into its name, next to its tcId, where every JUnit consumer shows it (the Ant schema has no
    /// per-testcase properties): `rsa_pkcs1_2048_test.tc9 (invalid; InvalidPkcs1Padding): The padding
    /// string is all 0.` Its file and tcId are in the name already.
    static func nameAndProperties(_ check: Check) -> (String, [String: String]) {
        let properties = check.properties
        guard properties["tcId"] != nil, let result = properties["result"] else { return (check.name, properties) }
        let flags = (properties["flags"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let comment = (properties["comment"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        var name = "\(check.name) (\(([result] + flags).joined(separator: "; ")))"
        if !comment.isEmpty { name += ": " + comment }
        return (name, properties.filter { !wycheproofNameProperties.contains($0.key) })
    }
}
