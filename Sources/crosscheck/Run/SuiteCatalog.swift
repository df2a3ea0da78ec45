import Foundation
import AppChecks
import Conformance
import Fuzzing
import RoundTrip
import Sessions
import Vectors

/// The suites `crosscheck run` knows, by name, and how each is built: the one place that knows
/// every capability module (the CLI composes them; they do not know each other). The app under
/// test comes in here too: its checks join the suite of the same name.
enum SuiteCatalog {
    struct Entry: Sendable {
        let name: String
        let summary: String
        let build: @Sendable (SuiteContext, SessionOptions, [AppSubject]) -> [Check]
    }

    static let entries: [Entry] = [
        Entry(name: RoundTripSuite.name, summary: RoundTripSuite.summary + "; the app under test against PythonRef both ways") { context, _, apps in
            RoundTripSuite.checks(context) + AppSuites.roundTrip(context, apps: apps)
        },
        Entry(name: VectorSuites.vectorsName, summary: VectorSuites.vectorsSummary + "; the CLI to and from the app under test") { context, _, apps in
            VectorSuites.vectors(context) + AppSuites.vectors(context, apps: apps)
        },
        Entry(name: VectorSuites.wycheproofName, summary: VectorSuites.wycheproofSummary) { context, _, _ in VectorSuites.wycheproof(context) },
        Entry(name: SessionSuite.name, summary: SessionSuite.summary + "; the app under test as a client, and its certificate pinning") {
            context, sessions, apps in
            let settings = AppSessionSettings(inProcess: sessions.inProcess, servers: sessions.loopback ? SessionServers(context, options: sessions) : nil,
                                              timeout: sessions.timeout, quietGap: sessions.quietGap)
            if let seat = sessions.teamServer {
                return SessionSuite.checks(context, options: sessions) + AppSuites.teamServerSessions(apps: apps, seat: seat, settings: settings)
            }
            return SessionSuite.checks(context, options: sessions) + AppSuites.sessions(context, apps: apps, settings: settings)
        },
        Entry(name: FuzzSuite.name, summary: FuzzSuite.summary) { context, sessions, _ in sessions.inProcess ? FuzzSuite.checks(context) : [] },
        // Last: it reads what the app's checks in the suites above left in its container and keychain.
        Entry(name: KeyStorageAudit.suiteName, summary: "where the app under test keeps its keys: its UserDefaults, files, console and keychain items (seed 003's finding); --strict fails on a finding") {
            context, _, apps in KeyStorageAudit.checks(context, apps: apps) + AccessControlAudit.checks(context, apps: apps)
        },
    ]

    static var names: [String] { entries.map(\.name) }

    /// The checks of the named suites, in catalog order.
    static func checks(for names: [String], context: SuiteContext, sessions: SessionOptions, apps: [AppSubject]) -> [Check] {
        entries.filter { names.contains($0.name) }.flatMap { $0.build(context, sessions, apps) }
    }
}
