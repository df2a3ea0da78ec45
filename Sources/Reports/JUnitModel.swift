import Foundation

// The in-memory model of a JUnit report. It mirrors the Apache Ant JUnit schema vendored in
// Vectors/junit/JUnit.xsd: a report is a list of suites, a suite a list of cases. Counts and
// times of a suite are derived from its cases so they can never disagree with them.

/// A name/value pair. Kept in an array (not a dictionary) so order and duplicates survive.
public struct JUnitProperty: Sendable, Equatable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A whole JUnit document: `<testsuites>` with one `<testsuite>` per element of `suites`.
///
/// Suite ids (`id` attribute) are not stored: they are the position of the suite in `suites`
/// and are assigned when the document is written, so they are always 0, 1, 2, ... as the schema
/// asks.
public struct JUnitReport: Sendable, Equatable {
    public var suites: [JUnitSuite]

    public init(suites: [JUnitSuite]) {
        self.suites = suites
    }

    public var tests: Int { suites.reduce(0) { $0 + $1.tests } }
    public var passed: Int { suites.reduce(0) { $0 + $1.passed } }
    public var failures: Int { suites.reduce(0) { $0 + $1.failures } }
    public var errors: Int { suites.reduce(0) { $0 + $1.errors } }
    public var skipped: Int { suites.reduce(0) { $0 + $1.skipped } }
    public var time: TimeInterval { suites.reduce(0) { $0 + $1.time } }
}

/// One `<testsuite>`.
public struct JUnitSuite: Sendable, Equatable {
    /// e.g. "roundtrip.swift_to_python"
    public var name: String
    /// e.g. "crosscheck.roundtrip"
    public var package: String
    /// When the suite ran. Written in UTC with whole seconds (the schema has no time zone and no
    /// fractions), so a value read back is truncated to the second.
    public var timestamp: Date
    public var hostname: String
    public var properties: [JUnitProperty]
    public var cases: [JUnitCase]
    public var systemOut: String
    public var systemErr: String

    public init(
        name: String,
        package: String,
        timestamp: Date,
        hostname: String,
        properties: [JUnitProperty] = [],
        cases: [JUnitCase] = [],
        systemOut: String = "",
        systemErr: String = ""
    ) {
        self.name = name
        self.package = package
        self.timestamp = timestamp
        self.hostname = hostname
        self.properties = properties
        self.cases = cases
        self.systemOut = systemOut
        self.systemErr = systemErr
    }

    public var tests: Int { cases.count }
    public var passed: Int { cases.filter { $0.outcome == .passed }.count }
    public var failures: Int { cases.filter(\.outcome.isFailure).count }
    public var errors: Int { cases.filter(\.outcome.isError).count }
    public var skipped: Int { cases.filter(\.outcome.isSkipped).count }
    /// Sum of the case times, in seconds.
    public var time: TimeInterval { cases.reduce(0) { $0 + JUnitFormat.sanitizedTime($1.time) } }
}

/// One `<testcase>`.
public struct JUnitCase: Sendable, Equatable {
    public var name: String
    /// e.g. "crosscheck.rsa.swift_to_python"
    public var classname: String
    /// Seconds. Written with millisecond precision; negative or non-finite values are written as 0.
    public var time: TimeInterval
    public var outcome: Outcome
    /// Per-case properties. The schema has no place for them inside `<testcase>`, so they are
    /// written as properties of the enclosing suite (see `JUnitXML` for the naming) and
    /// `JUnitXML.read` puts them back here.
    public var properties: [JUnitProperty]

    public enum Outcome: Sendable, Equatable {
        case passed
        /// The implementation under test gave a wrong answer (`<failure>`).
        case failed(message: String, type: String, details: String)
        /// The test could not run properly (`<error>`): a crash, a timeout, a harness problem.
        case error(message: String, type: String, details: String)
        case skipped(message: String)

        public var isFailure: Bool { if case .failed = self { return true } else { return false } }
        public var isError: Bool { if case .error = self { return true } else { return false } }
        public var isSkipped: Bool { if case .skipped = self { return true } else { return false } }
    }

    public init(
        name: String,
        classname: String,
        time: TimeInterval = 0,
        outcome: Outcome = .passed,
        properties: [JUnitProperty] = []
    ) {
        self.name = name
        self.classname = classname
        self.time = time
        self.outcome = outcome
        self.properties = properties
    }
}
