import Foundation
import CommandLineKit
import Conformance
import PythonBridge
import Reports
import Sessions
import WireCrypto

/// `crosscheck run`: the in-process harness, Swift against the embedded PythonRef.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "run", abstract: "Run conformance suites in-process (Swift ⇄ embedded PythonRef) and write JUnit XML.",
        discussion: "Runs every check of the chosen suites in both directions and writes a JUnit report. Suites:\n"
            + SuiteCatalog.entries.map { "  \($0.name): \($0.summary)" }.joined(separator: "\n"),
        exitCodes: [.success, .checksFailed, .usage, .unavailable, .cannotCreate, .interrupted])

    enum Transport: String, CaseIterable, ExpressibleByArgument { case inprocess, loopback, both }

    @Option(name: "--suite", value: "LIST", help: "comma-separated suites (default: all): \(SuiteCatalog.names.joined(separator: ", "))")
    var suites: ArgumentList<String>?
    @Option(name: "--filter", value: "TEXT", help: "only checks whose class, name or suite contains TEXT (case-insensitive)")
    var filter: String?
    @Option(name: "--transport", value: "T", help: "sessions over inprocess (machines called directly), loopback (real TCP/TLS on 127.0.0.1, PythonRef servers in their own processes) or both")
    var transport = Transport.both
    @OptionGroup var seed: SeedOption
    @OptionGroup var report: ReportOptions
    @OptionGroup var files: FilesOptions
    init() {}

    var suiteNames: [String] { suites?.items ?? SuiteCatalog.names }

    func validate() throws {
        if let unknown = suiteNames.first(where: { !SuiteCatalog.names.contains($0) }) {
            throw UsageError("--suite takes a comma-separated list of \(choices(SuiteCatalog.names)), not '\(unknown)'")
        }
    }

    func run() throws -> ExitCode {
        let interpreter = try files.interpreter()
        let python = PythonPeer(interpreter: interpreter)
        let versions = (try? python.versions()) ?? [:]
        let sessions = SessionOptions(factories: [SwiftSessions(), PythonSessions(peer: python)], inProcess: transport != .loopback,
                                      loopback: transport != .inprocess, pythonExecutable: files.executable)
        defer { sessions.servers.shutdown() }
        let context = SuiteContext(swift: SwiftPeer(), python: python, seed: seed.value, files: files.files)
        let runner = Runner(filter: filter)
        let checks = runner.selected(SuiteCatalog.checks(for: suiteNames, context: context, sessions: sessions))
        guard !checks.isEmpty else {
            throw UsageError("no check matches --filter '\(filter ?? "")' in suites \(suiteNames.joined(separator: ","))")
        }
        if report.junit == nil { report.junit = "reports/junit.xml" }
        return try RunReport.runAndFinish(
            checks, title: "crosscheck run", detail: "suites \(suiteNames.joined(separator: ",")), seed \(seed.value)", options: report,
            properties: [
                ("crosscheck.seed", String(seed.value)),
                ("crosscheck.suites", suiteNames.joined(separator: ",")),
                ("crosscheck.filter", filter ?? ""),
                ("swift.openssl", OpenSSLInfo.version),
                ("python.executable", interpreter.executable),
                ("python.version", versions["python"] ?? interpreter.pythonVersion),
                ("python.cryptography", versions["cryptography"] ?? "unknown"),
                ("python.openssl", versions["openssl"] ?? "unknown"),
            ],
            footer: ["seed \(seed.value); rerun with --seed \(seed.value) to reproduce"])
    }
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
