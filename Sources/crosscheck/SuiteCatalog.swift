import Foundation
import Conformance
import Fuzzing
import RoundTrip
import Sessions
import Vectors

/// The suites `crosscheck run` knows, by name, and how each is built: the one place that knows
/// every capability module (the CLI composes them; they do not know each other).
enum SuiteCatalog {
    struct Entry: Sendable {
        let name: String
        let summary: String
        let build: @Sendable (SuiteContext, SessionOptions) -> [Check]
    }

    static let entries: [Entry] = [
        Entry(name: RoundTripSuite.name, summary: RoundTripSuite.summary) { context, _ in RoundTripSuite.checks(context) },
        Entry(name: VectorSuites.vectorsName, summary: VectorSuites.vectorsSummary) { context, _ in VectorSuites.vectors(context) },
        Entry(name: VectorSuites.wycheproofName, summary: VectorSuites.wycheproofSummary) { context, _ in VectorSuites.wycheproof(context) },
        Entry(name: SessionSuite.name, summary: SessionSuite.summary) { context, sessions in SessionSuite.checks(context, options: sessions) },
        Entry(name: FuzzSuite.name, summary: FuzzSuite.summary) { context, sessions in sessions.inProcess ? FuzzSuite.checks(context) : [] },
    ]

    static var names: [String] { entries.map(\.name) }

    /// The checks of the named suites, in catalog order.
    static func checks(for names: [String], context: SuiteContext, sessions: SessionOptions) -> [Check] {
        entries.filter { names.contains($0.name) }.flatMap { $0.build(context, sessions) }
    }
}
