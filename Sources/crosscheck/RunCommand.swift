import Foundation
import Conformance
import Sessions
import PythonBridge
import Reports
import WireCrypto

/// `crosscheck run`: the in-process harness, Swift against the embedded PythonRef.
enum RunCommand: Command {
    static let name = "run"
    static let abstract = "Run conformance suites in-process (Swift ⇄ embedded PythonRef) and write JUnit XML."
    static var usage: String {
        """
        USAGE: crosscheck run [--suite LIST] [--filter TEXT] [--seed N] [--junit PATH] [--transport T] [--quiet]

        Runs every check of the chosen suites in both directions and writes a JUnit report.

        OPTIONS:
          --suite LIST        comma-separated suites (default: all). Known:
        \(SuiteCatalog.entries.map { "                        \($0.name): \($0.summary)" }.joined(separator: "\n"))
          --filter TEXT       only checks whose class, name or suite contains TEXT (case-insensitive)
          --seed N            seed for plaintexts, keys, IVs and nonces (default: random; the report records it)
          --junit PATH        where to write the report (default reports/junit.xml); written atomically
          --transport T       sessions over inprocess (machines called directly), loopback (real TCP/TLS
                              on 127.0.0.1, PythonRef servers in their own processes) or both (default)
          --quiet             no progress lines, only the summary
        \(PythonOptions.help)
          -h, --help          show this help

        EXIT STATUS: 0 every check passed, 1 a check failed, 64 usage error, 69 environment not ready,
        73 report not writable, 130 interrupted (a partial report is written first).
        """
    }

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        let suiteList = try arguments.option("--suite")
        let filter = try arguments.option("--filter")
        let seed = try arguments.integer("--seed", as: UInt64.self) ?? UInt64.random(in: 1...999_999)
        let junitPath = try arguments.option("--junit") ?? "reports/junit.xml"
        let quiet = arguments.flag("--quiet")
        let transport = try arguments.option("--transport") ?? "both"
        guard ["inprocess", "loopback", "both"].contains(transport) else {
            throw CommandExit.usage("--transport takes inprocess, loopback or both, not '\(transport)'", command: self)
        }
        let python = try PythonOptions(&arguments)
        try arguments.noPositionals()

        let suites = suiteList.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? SuiteCatalog.names
        if let unknown = suites.first(where: { !SuiteCatalog.names.contains($0) }) {
            throw CommandExit.usage("unknown suite '\(unknown)'; known: \(SuiteCatalog.names.joined(separator: ", "))", command: self)
        }

        let interpreter = try python.interpreter()
        let pythonPeer = PythonPeer(interpreter: interpreter)
        let versions = (try? pythonPeer.versions()) ?? [:]
        let loopback = SessionOptions(factories: [SwiftSessions(), PythonSessions(peer: pythonPeer)], inProcess: transport != "loopback",
                                      loopback: transport != "inprocess", pythonExecutable: python.executable)
        let context = SuiteContext(swift: SwiftPeer(), python: pythonPeer, seed: seed,
                                   files: ProjectFiles.locate(pythonRef: interpreter.pythonRefDirectory))
        defer { loopback.servers.shutdown() }
        let runner = Runner(filter: filter)
        let checks = runner.selected(SuiteCatalog.checks(for: suites, context: context, sessions: loopback))
        guard !checks.isEmpty else {
            throw CommandExit.usage("no check matches --filter '\(filter ?? "")' in suites \(suites.joined(separator: ","))", command: self)
        }

        let properties: [(String, String)] = [
            ("crosscheck.seed", String(seed)),
            ("crosscheck.suites", suites.joined(separator: ",")),
            ("crosscheck.filter", filter ?? ""),
            ("swift.openssl", OpenSSLInfo.version),
            ("python.executable", interpreter.executable),
            ("python.version", versions["python"] ?? interpreter.pythonVersion),
            ("python.cryptography", versions["cryptography"] ?? "unknown"),
            ("python.openssl", versions["openssl"] ?? "unknown"),
        ]
        let latch = InterruptLatch()
        if !quiet { printError("crosscheck run: \(checks.count) checks, suites \(suites.joined(separator: ",")), seed \(seed)") }
        var progress = ProgressPrinter(quiet: quiet)
        let started = Date()
        let results = runner.run(checks, shouldStop: { latch.interrupted }) { done, total, result in
            progress.record(done: done, total: total, result: result)
        }
        var report = JUnitAdapter.report(results, properties: properties, timestamp: started)
        if latch.interrupted {
            JUnitAdapter.markPartial(&report, note: "interrupted after \(results.count) of \(checks.count) checks", timestamp: started)
        }
        let url = URL(fileURLWithPath: junitPath)
        do { try JUnitXML.write(report, to: url) } catch {
            printError(Summary.text(report))
            throw CommandExit(code: .cannotCreate, message: "crosscheck: \(error)")
        }
        print(Summary.text(report))
        print("JUnit report: \(url.path)  (seed \(seed); rerun with --seed \(seed) to reproduce)")
        if latch.interrupted { return .interrupted }
        return report.failures + report.errors == 0 ? .success : .checksFailed
    }
}

/// `crosscheck suites`: what `run --suite` accepts.
enum SuitesCommand: Command {
    static let name = "suites"
    static let abstract = "List the suites 'crosscheck run' knows."
    static let usage = "USAGE: crosscheck suites\n\nPrints each suite's name and what it checks."
    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        try arguments.noPositionals()
        for entry in SuiteCatalog.entries { print("\(entry.name)\t\(entry.summary)") }
        return .success
    }
}
