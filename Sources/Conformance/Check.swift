import Foundation

/// One testcase: a named, self-contained comparison between implementations.
public struct Check: Sendable {
    /// The `<testsuite>` it reports under, e.g. "roundtrip.swift_to_python".
    public let suite: String
    /// `crosscheck.<profile>.<sender>_to_<receiver>` (or `…swift_vs_python` for comparisons).
    public let classname: String
    /// Unique within its suite, e.g. "rsa2048.oaep-sha256.len62-max".
    public let name: String
    /// Facts a reviewer wants next to the verdict (weak choices, sizes).
    public let properties: [String: String]
    public let body: @Sendable () throws -> CheckOutcome

    public init(suite: String, classname: String, name: String, properties: [String: String] = [:],
                body: @escaping @Sendable () throws -> CheckOutcome) {
        self.suite = suite; self.classname = classname; self.name = name
        self.properties = properties; self.body = body
    }

    /// The text `--filter` matches against.
    public var fullName: String { "\(classname).\(name)" }
}

/// What a check found.
public enum CheckOutcome: Sendable, Equatable {
    case passed
    /// The implementations disagree, or one did what it must not. `message` is one line; `details`
    /// shows the bytes.
    case failed(message: String, details: String)
    /// The check could not run to a verdict (an unexpected error from a peer or the harness).
    case error(message: String, details: String)
    case skipped(reason: String)
}

/// A check's verdict with its timing.
public struct CheckResult: Sendable {
    public let check: Check
    public let outcome: CheckOutcome
    public let duration: TimeInterval

    public init(check: Check, outcome: CheckOutcome, duration: TimeInterval) {
        self.check = check; self.outcome = outcome; self.duration = duration
    }
}

/// Thrown inside a check body to end it with a failure; `Expect` builds these.
public struct CheckFailure: Error, Sendable {
    public let message: String
    public let details: String
    public init(_ message: String, details: String = "") { self.message = message; self.details = details }
}
