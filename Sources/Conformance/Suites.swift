import Foundation

/// The suites `crosscheck run` knows, by name.
public enum SuiteCatalog {
    public struct Entry: Sendable {
        public let name: String
        public let summary: String
        let build: @Sendable (SuiteContext) -> [Check]
    }

    public static let entries: [Entry] = [
        Entry(name: "roundtrip",
              summary: "every primitive both ways (Swift→Python, Python→Swift), key formats, tamper cases, byte-for-byte comparisons",
              build: roundTrip),
    ]

    public static var names: [String] { entries.map(\.name) }

    /// The checks of the named suites, in order; unknown names are a usage error for the caller.
    public static func checks(for names: [String], context: SuiteContext) -> [Check] {
        entries.filter { names.contains($0.name) }.flatMap { $0.build(context) }
    }

    static func roundTrip(_ context: SuiteContext) -> [Check] {
        var checks: [Check] = []
        for (sender, receiver) in context.directions {
            let suite = "roundtrip.\(sender.name)_to_\(receiver.name)"
            checks += RSARoundTrips.checks(context, sender: sender, receiver: receiver, suite: suite)
            checks += SymmetricRoundTrips.checks(context, sender: sender, receiver: receiver, suite: suite)
            checks += KeyFormatChecks.checks(context, sender: sender, receiver: receiver, suite: suite)
        }
        checks += Comparisons.checks(context, suite: "roundtrip.\(context.swift.name)_vs_\(context.python.name)")
        return checks
    }
}
