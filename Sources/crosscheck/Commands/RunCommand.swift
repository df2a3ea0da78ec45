import Foundation
import AppChecks
import CommandLineKit
import Conformance
import Described
import PythonBridge
import Reports
import SeedApps
import Sessions
import WireCrypto

/// `crosscheck run`: the in-process harness, Swift against the embedded PythonRef.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "run", abstract: "Run conformance suites in-process (Swift ⇄ embedded PythonRef) and write JUnit XML.",
        discussion: "Runs every check of the chosen suites in both directions and writes a JUnit report. Suites:\n"
            + SuiteCatalog.entries.map { "  \($0.name): \($0.summary)" }.joined(separator: "\n"),
        exitCodes: [.success, .checksFailed, .usage, .noInput, .unavailable, .cannotCreate, .interrupted],
        exitNotes: [.checksFailed: "a check failed or errored, a known failure passes now, a known-failures entry is stale, or (--strict) the key-storage audit found something",
                    .noInput: "the known-failures list is missing or malformed"])

    enum Transport: String, CaseIterable, ExpressibleByArgument { case inprocess, loopback, both }

    @Option(name: "--suite", value: "LIST", help: "comma-separated suites (default: all): \(SuiteCatalog.names.joined(separator: ", "))")
    var suites: ArgumentList<SuiteName>?
    @Option(name: "--filter", value: "TEXT", help: "only checks whose class, name or suite contains TEXT (case-insensitive)")
    var filter: String?
    @Option(name: "--transport", value: "T", help: "sessions over inprocess (machines called directly), loopback (real TCP/TLS on 127.0.0.1, PythonRef servers in their own processes) or both")
    var transport = Transport.both
    @Option(name: "--known-failures", value: "FILE", help: "the known-failures list: listed failing checks are reported as skipped 'known: <reason>', a listed check that passes fails the run, an entry that matches no check is an error (default: known-failures.json of the Vectors folder; with --server none unless given)")
    var knownFailuresFile: String?
    @Flag(name: "--no-known-failures", help: "ignore the known-failures list: show those checks as the failures they are")
    var noKnownFailures: Bool
    @Flag(name: "--strict", help: "a finding fails the run instead of being reported as a skip: the key-storage audit's (suite audit), and with --server the server's weaknesses (timing statistics never do)")
    var strict: Bool
    @OptionGroup var appOptions: AppOptions
    @OptionGroup var teamServer: TeamServerOptions
    @OptionGroup var protocolOptions: ProtocolOptions
    @OptionGroup var seed: SeedOption
    @OptionGroup var report: ReportOptions
    @OptionGroup var files: FilesOptions
    init() {}

    var suiteNames: [String] { suites?.items.map(\.name) ?? SuiteCatalog.names }

    func validate() throws {
        if noKnownFailures, knownFailuresFile != nil { throw UsageError("--known-failures and --no-known-failures exclude each other") }
        // Issue 31: a described protocol has a suite of its own; what belongs to the seed suites is refused.
        if protocolOptions.given {
            let refused: [(Bool, String)] = [(suites != nil, "--suite"), (appOptions.app != nil, "--app"), ($transport, "--transport"),
                                             (noKnownFailures, "--no-known-failures (a described run has no list unless --known-failures FILE gives one)"),
                                             (teamServer.spec != nil && teamServer.profile != nil, "--profile"), (teamServer.checks.$clients, "--client")]
            let names = refused.filter(\.0).map(\.1)
            if !names.isEmpty {
                throw UsageError("\(names.joined(separator: ", ")) \(names.count == 1 ? "does" : "do") not apply to --protocol FILE (its own suite: both engines, every pairing; with --server, the server checks in that protocol): leave \(names.count == 1 ? "it" : "them") out")
            }
            if teamServer.spec == nil, !protocolOptions.secrets.isEmpty || !protocolOptions.publicKeys.isEmpty || !protocolOptions.privateKeys.isEmpty {
                throw UsageError("--secret, --public-key and --private-key are for a server that has its own (--server, or `crosscheck remote`); `run --protocol` makes every key and secret for both engines")
            }
        }
        if teamServer.spec != nil, suites != nil, suiteNames != [SessionSuite.name] {
            throw UsageError("--server runs the server checks on its own, or with --suite sessions the session conversations with it: leave out the other suites")
        }
        // Issue 33: what does not apply to --server is refused, never ignored.
        if teamServer.spec != nil, $transport {
            throw UsageError("--transport chooses how the suites' sessions run; --server runs the team's server in this process: leave --transport out")
        }
        if teamServer.spec != nil, suites == nil, filter != nil {
            throw UsageError("--filter picks among the suites' checks; --server on its own runs every server check: leave --filter out (or add --suite sessions)")
        }
        if teamServer.spec != nil, suites == nil, appOptions.app != nil {
            throw UsageError("--server on its own runs the server checks, which have no app; for --app as a client of the team's server add --suite sessions (or leave out --app)")
        }
    }

    func run() throws -> ExitCode {
        if let spec = teamServer.spec { return try runTeamServerEntry(spec) }
        if protocolOptions.given { return try runDescribed() }
        let interpreter = try files.interpreter()
        let python = PythonPeer(interpreter: interpreter)
        let versions = (try? python.versions()) ?? [:]
        let sessions = SessionOptions(factories: [SwiftSessions(), PythonSessions(peer: python)], inProcess: transport != .loopback,
                                      loopback: transport != .inprocess, pythonExecutable: files.executable)
        defer { sessions.servers.shutdown() }
        let context = SuiteContext(swift: SwiftPeer(), python: python, seed: seed.value, files: files.files)
        let runner = Runner(filter: filter)
        let hosted = try appOptions.apps(files: files.files, quiet: report.quiet)
        defer { hosted.forEach { $0.stop() }; AppOptions.printCoverage() }
        let apps = hosted.map { AppSubject($0, folder: appOptions.folder) }
        let built = SuiteCatalog.checks(for: suiteNames, context: context, sessions: sessions, apps: apps)
        let checks = runner.selected(built)
        guard !checks.isEmpty else {
            throw UsageError("no check matches --filter '\(filter ?? "")' in suites \(suiteNames.joined(separator: ","))")
        }
        let known = try knownFailures()
        if report.junit == nil { report.junit = "reports/junit.xml" }
        let latch = InterruptLatch()
        let (ran, started) = RunReport.run(checks, title: "crosscheck run", detail: "suites \(suiteNames.joined(separator: ",")), seed \(seed.value)",
                                           quiet: report.quiet, latch: latch, adjust: { raw in
                                               let judged = strict ? KeyStorageAudit.strict(raw) : raw
                                               return known?.apply(to: judged) ?? judged
                                           })
        var results = ran
        var footer: [String] = []
        if let known {
            // Stale: an entry no check of any suite (in either transport) is called by. Most entries
            // name a check of the suites this run built (whatever --filter kept of them); only for
            // the rest is the whole catalog built (a second time: with --filter, the decoding of every
            // Wycheproof file twice was most of a short run's time).
            var stale = known.stale(among: built.map(\.fullName))
            if !stale.isEmpty {
                let every = SessionOptions(factories: sessions.factories, inProcess: true, loopback: true, pythonExecutable: files.executable)
                // The seed apps' checks are named even when --app picks another app: their entries are not stale then.
                let seedApps = appOptions.app == nil ? apps : SeedApps.identifiers.compactMap { id in AppSubject.making { SeedApps.make(id) } }
                let others = appOptions.app.map { SeedApps.identifiers.contains($0) } == false ? apps : []
                let names = SuiteCatalog.checks(for: SuiteCatalog.names, context: context, sessions: every, apps: seedApps + others)
                    .map(\.fullName)
                stale = stale.filter { entry in !names.contains(where: entry.matches) }
            }
            results += stale.map { entry in
                let check = Check(suite: "known-failures", classname: "crosscheck.known-failures", name: "stale-entry") { .passed }
                return CheckResult(check: check, outcome: .error(
                    message: "stale known-failures entry: '\(entry.pattern)' matches no check; remove it or fix the pattern",
                    details: "\(entry.reason) (\(entry.seed))"), duration: 0)
            }
            let listed = results.filter { if case let .skipped(reason) = $0.outcome { return reason.hasPrefix(JUnitCase.knownPrefix) } else { return false } }
            if !listed.isEmpty {
                footer.append("Known failures (\(listed.count), from \(knownFailuresPath); --no-known-failures shows them as failures):")
                footer += listed.map { "  KNOWN \($0.check.fullName): \(known.entry(for: $0.check.fullName)?.reason ?? "")" }
            }
        }
        let junit = JUnitAdapter.report(results, properties: [
            ("crosscheck.seed", String(seed.value)),
            ("crosscheck.suites", suiteNames.joined(separator: ",")),
            ("crosscheck.filter", filter ?? ""),
            ("crosscheck.known-failures", known == nil ? "ignored" : knownFailuresPath),
            ("crosscheck.strict", String(strict)),
            Self.appsProperty(apps),
            ("swift.openssl", OpenSSLInfo.version),
            ("swift.rsa-pkcs1-rejection", PKCS1Rejection.description),
            ("python.executable", interpreter.executable),
            ("python.version", versions["python"] ?? interpreter.pythonVersion),
            ("python.cryptography", versions["cryptography"] ?? "unknown"),
            ("python.openssl", versions["openssl"] ?? "unknown"),
        ], timestamp: started)
        return try RunReport.finish(junit, interrupted: latch.interrupted, done: ran.count, planned: checks.count, started: started,
                                    junitPath: report.junit, footer: footer + ["seed \(seed.value); rerun with --seed \(seed.value) to reproduce"])
    }

    /// The report's `crosscheck.apps`: each app under test with the capabilities its adapter adopts.
    static func appsProperty(_ apps: [AppSubject]) -> (String, String) {
        ("crosscheck.apps", apps.map { "\($0.identifier) (\($0.capabilityNames.joined(separator: " ")))" }.joined(separator: "; "))
    }

    var knownFailuresPath: String { knownFailuresFile ?? files.files.vectors.appendingPathComponent("known-failures.json").path }

    /// The list in force, or nil with --no-known-failures; a list that cannot be read is exit 66.
    func knownFailures() throws -> KnownFailures? {
        if noKnownFailures { return nil }
        do { return try KnownFailures.load(from: URL(fileURLWithPath: knownFailuresPath)) } catch {
            throw CommandExit(.noInput, "crosscheck run: known failures: \(error) (--no-known-failures runs without the list)")
        }
    }
}

/// A suite `crosscheck run --suite` knows.
struct SuiteName: ExpressibleByArgument {
    let name: String
    init?(argument: String) {
        guard SuiteCatalog.names.contains(argument) else { return nil }
        name = argument
    }
    static var expectation: String { choices(SuiteCatalog.names) }
}

/// `crosscheck suites`: what `run --suite` accepts.
struct SuitesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(name: "suites", abstract: "List the suites 'crosscheck run' knows.",
                                                    synopsis: [""], exitCodes: [.success, .usage])
    init() {}
    func run() throws -> ExitCode {
        for entry in SuiteCatalog.entries { print("\(entry.name)\t\(entry.summary)") }
        return .success
    }
}
