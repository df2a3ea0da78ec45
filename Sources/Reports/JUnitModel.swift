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
    /// Skipped testcases that are known problems (a skip message starting with `known: `).
    public var known: Int { suites.reduce(0) { $0 + $1.known } }
    /// Sum of the suite times (see `JUnitSuite.time`).
    public var time: TimeInterval { suites.reduce(0) { $0 + $1.time } }

    /// The property that marks the report of an interrupted run.
    public static let partialProperty = "crosscheck.partial"

    /// Why the report is incomplete: the values of every `crosscheck.partial` suite property,
    /// without repeats. Empty for a complete report.
    public var partialNotes: [String] {
        var notes: [String] = []
        for suite in suites {
            for property in suite.properties where property.name == Self.partialProperty && !notes.contains(property.value) {
                notes.append(property.value)
            }
        }
        return notes
    }

    public var isPartial: Bool { !partialNotes.isEmpty }
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
    /// Skipped testcases that are known problems (counted in `skipped` too).
    public var known: Int { cases.filter(\.outcome.isKnown).count }
    /// A suite's time, the one definition used everywhere (progress lines, the summary table, the
    /// written `time` attribute, `crosscheck report`, the HTML): the sum of its testcase times,
    /// each taken to whole microseconds as the report writes it, shown to the millisecond. So a
    /// report read back gives the same figure as the run that wrote it.
    public var time: TimeInterval { JUnitFormat.suiteTime(cases.map(\.time)) }
}

/// One `<testcase>`.
public struct JUnitCase: Sendable, Equatable {
    public var name: String
    /// e.g. "crosscheck.rsa.swift_to_python"
    public var classname: String
    /// Seconds. Written to the microsecond; negative or non-finite values are written as 0.
    public var time: TimeInterval
    public var outcome: Outcome
    /// "classname.name", the name every output shows (just the name when there is no classname).
    public var id: String { Self.id(classname: classname, name: name) }
    public static func id(classname: String, name: String) -> String { classname.isEmpty ? name : classname + "." + name }
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
        /// A skip for a known problem: its message starts with `known: ` (see `knownPrefix`).
        public var isKnown: Bool {
            if case .skipped(let message) = self { return message.hasPrefix(JUnitCase.knownPrefix) } else { return false }
        }

        /// The message of a failure, error or skip ("" when passed).
        public var message: String {
            switch self {
            case .passed: return ""
            case .failed(let message, _, _), .error(let message, _, _), .skipped(let message): return message
            }
        }

        /// The type attribute of a failure or error ("" otherwise).
        public var type: String {
            switch self {
            case .failed(_, let type, _), .error(_, let type, _): return type
            case .passed, .skipped: return ""
            }
        }

        /// The text of a failure or error (its body); "" otherwise.
        public var details: String {
            switch self {
            case .failed(_, _, let details), .error(_, _, let details): return details
            case .passed, .skipped: return ""
            }
        }

        /// The word every output uses for this outcome.
        public var verdict: Verdict {
            switch self {
            case .passed: return .pass
            case .failed: return .fail
            case .error: return .error
            case .skipped: return isKnown ? .known : .skip
            }
        }
    }

    /// A skipped testcase whose message starts with this is a known problem, counted apart.
    public static let knownPrefix = "known: "

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

/// The words every output uses for a testcase's outcome: progress lines, the summary, `report`,
/// `report --diff` and the HTML all say FAIL for a wrong answer and ERROR for a check that could
/// not reach a verdict.
public enum Verdict: String, Sendable, CaseIterable {
    case pass = "PASS"
    case fail = "FAIL"
    case error = "ERROR"
    case skip = "SKIP"
    /// A skip for a known problem (message `known: …`).
    case known = "KNOWN"

    /// The word padded to the longest one, for aligned lists.
    public var padded: String { rawValue.padding(toLength: 5, withPad: " ", startingAt: 0) }

    public var isProblem: Bool { self == .fail || self == .error }
}
