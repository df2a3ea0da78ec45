import Foundation
import CommandLineKit
import AppChecks
import Conformance
import PythonBridge
import Remote
import Reports
import Sessions
import TeamServer
import Transport
import WireCrypto
import WireProtocol

/// `crosscheck run --server FILE.py:NAME`: a team's own Pi server code, in-process, under the checks
/// and audits `crosscheck remote` runs (the same code decides the verdicts).
struct TeamServerOptions: ParsableArguments {
    @Option(name: "--server", value: "FILE.py:NAME", help: "a team's own Pi server, run in-process under the remote checks instead of the suites (with --suite sessions: in the server seat of the session conversations, and with --app that app is a client too): a socketserver.BaseRequestHandler subclass or handle(conn, addr) (rsa-socket), or a WSGI app such as Flask's app (aes-https); MODULE:NAME with --server-path")
    var spec: String?
    @Option(name: "--server-path", value: "DIR", help: "with --server MODULE:NAME: the folder to import MODULE from (put first on the embedded sys.path)")
    var searchPath: String?
    @Option(name: "--profile", value: "NAME", help: "with --server: rsa-socket or aes-https (default: told from the object)")
    var profile: RemoteOptions.Profile?
    @OptionGroup var checks: RemoteCheckOptions
    @Option(name: "--server-log", value: "PATH", help: "with --server: where the server's prints and tracebacks go")
    var logPath = "reports/server.log"
    init() {}

    func validate() throws {
        guard let spec else {
            if searchPath != nil || profile != nil || checks.anyGiven {
                throw UsageError("--server-path, --profile and the remote check options (--client, --user, --padding, --framing, --key-bits, --key-mode, --timeout, --quiet-gap) go with --server FILE.py:NAME")
            }
            return
        }
        guard let colon = spec.lastIndex(of: ":"), colon != spec.startIndex, spec.index(after: colon) != spec.endIndex else {
            throw UsageError("--server takes FILE.py:NAME or MODULE:NAME (e.g. examples/pi-server-socket/server.py:Handler), not '\(spec)'")
        }
        if let searchPath, !FileManager.default.fileExists(atPath: searchPath) {
            throw CommandExit(.noInput, "crosscheck run: --server-path \(searchPath): no such folder")
        }
    }

    /// Loads the server, or ends the command: 66 for a wrong file or name (or an import that
    /// raised), 69 for a module the machine lacks; both with Python's traceback.
    func load(_ spec: String, interpreter: PythonInterpreter) throws -> TeamServer {
        try Self.load(spec, searchPath: searchPath, logPath: logPath, timeout: checks.timeout.value, interpreter: interpreter, command: "run")
    }

    /// The one way every command (`run`, `fuzz`, `replay`) loads `--server`, with its exit codes.
    static func load(_ spec: String, searchPath: String?, logPath: String, timeout: TimeInterval, interpreter: PythonInterpreter,
                     command: String) throws -> TeamServer {
        do {
            return try TeamServer(spec: spec, searchPath: searchPath, logPath: logPath, timeout: timeout, interpreter: interpreter)
        } catch let error as TeamServerError {
            switch error {
            case .badInput: throw CommandExit(.noInput, "crosscheck \(command): \(error)")
            case .missingModule: throw CommandExit(.unavailable, "crosscheck \(command): \(error)")
            case .python: throw CommandExit(.software, "crosscheck \(command): \(error)")
            case .interrupted: throw CommandExit(.interrupted, "crosscheck \(command): \(error)")
            }
        }
    }

    /// `FILE.py:NAME` with FILE made absolute (a reproducer names the server wherever it is replayed from).
    static func absolute(_ spec: String) -> String {
        guard let colon = spec.lastIndex(of: ":"), spec[..<colon].hasSuffix(".py") else { return spec }
        return URL(fileURLWithPath: String(spec[..<colon])).path + spec[colon...]
    }

    /// The profile: given, or told from the shape; a contradiction is a usage error.
    func profile(for server: TeamServer) throws -> RemoteOptions.Profile {
        let told: RemoteOptions.Profile? = switch server.shape {
        case .socketHandler: .rsaSocket
        case .wsgi: .aesHTTPS
        case .callable: nil
        }
        switch (profile, told) {
        case let (given?, told?) where given != told:
            throw UsageError("--server \(spec ?? ""): it is a \(server.shape.rawValue), which serves \(told.rawValue), not --profile \(given.rawValue)")
        case let (given?, _): return given
        case let (nil, told?): return told
        case (nil, nil):
            throw UsageError("--server \(spec ?? ""): a callable whose signature does not tell rsa-socket (handle(conn, addr)) from aes-https (a WSGI app(environ, start_response)): give --profile")
        }
    }

    func remoteOptions(profile: RemoteOptions.Profile, server: TeamServer, seed: UInt64, strict: Bool) -> RemoteOptions {
        var options = RemoteOptions()
        options.inProcess = server
        options.profile = profile
        checks.apply(to: &options)
        options.strict = strict
        options.seed = seed
        return options
    }
}

extension RunCommand {
    /// What both forms of `run --server` start with: the server loaded, its profile, the remote options.
    func prepareTeamServer(_ spec: String, interpreter: PythonInterpreter) throws -> (TeamServer, RemoteOptions.Profile, RemoteOptions) {
        let server = try teamServer.load(spec, interpreter: interpreter)
        let profile = try teamServer.profile(for: server)
        if report.junit == nil { report.junit = "reports/junit.xml" }
        return (server, profile, teamServer.remoteOptions(profile: profile, server: server, seed: seed.value, strict: strict))
    }

    /// The report properties of a `run --server` report: the server, `extra`, the interpreter.
    static func teamServerProperties(_ server: TeamServer, profile: RemoteOptions.Profile, interpreter: PythonInterpreter,
                                     _ extra: [(String, String)]) -> [(String, String)] {
        [("crosscheck.server", server.name), ("crosscheck.server.shape", server.shape.rawValue),
         ("crosscheck.server.log", server.logPath), ("crosscheck.profile", profile.rawValue)]
            + extra + [("python.executable", interpreter.executable), ("python.version", interpreter.pythonVersion)]
    }

    /// `run --server`: the remote checks and audits against the team's server in this process.
    func runTeamServer(_ spec: String, interpreter: PythonInterpreter) throws -> ExitCode {
        let (server, profile, options) = try prepareTeamServer(spec, interpreter: interpreter)
        let quiet = report.quiet
        if !quiet { printError("crosscheck run: --server \(server.name) (\(server.shape.rawValue)), profile \(profile.rawValue), in-process; its output goes to \(server.logPath)") }
        let latch = InterruptLatch()
        let started = Date()
        var progress = ProgressPrinter(quiet: quiet)
        var done = 0
        let known = try knownFailuresFile.map { try KnownFailureList.load($0, command: "run") }  // issue 33: --known-failures with --server
        let ran = RemoteRun.run(ServerAddress(host: server.name, port: 0), options: options, shouldStop: { latch.interrupted }) { result in
            done += 1
            progress.record(done: done, total: 0, result: known?.apply(to: result) ?? result)
        }
        let (results, knownFooter) = known.map { KnownFailureList.apply($0, path: knownFailuresFile ?? "", to: ran) } ?? (ran, [])
        let junit = JUnitAdapter.report(results, properties: Self.teamServerProperties(server, profile: profile, interpreter: interpreter, [
            ("crosscheck.strict", String(options.strict)), ("crosscheck.timeout", String(options.timeout)),
            ("crosscheck.framing", options.framing.rawValue), ("crosscheck.seed", String(options.seed)),
        ]), timestamp: started)
        return try RunReport.finish(junit, interrupted: latch.interrupted, done: results.count, planned: results.count, started: started,
                                    junitPath: report.junit, footer: knownFooter + ["the server's output: \(server.logPath)"])
    }
}

extension RunCommand {
    /// `run --server … --suite sessions`: the session conversations with the team's server in the
    /// server seat. What a client must know of it (paddings, digest, key mode) is found first, as
    /// `remote` finds it; a discovery step that did not pass is reported (it says why a
    /// conversation is missing).
    func runTeamServerSessions(_ spec: String, interpreter: PythonInterpreter) throws -> ExitCode {
        let (server, profile, options) = try prepareTeamServer(spec, interpreter: interpreter)
        if !report.quiet { printError("crosscheck run: --server \(server.name) (\(server.shape.rawValue)) in the server seat of the sessions suite, profile \(profile.rawValue), in-process; its output goes to \(server.logPath)") }
        let (discovered, discovery) = RemoteRun.discover(ServerAddress(host: server.name, port: 0), options: options)
        var seat = TeamServerSeat<any InProcessServer>(server: server, name: server.name, profile: profile == .rsaSocket ? .rsaSocket : .aesHTTPS) { outcome in
            RemoteRun.outcome(outcome, with: server.checkEnded())
        }
        seat.paddings = discovered.paddings
        seat.digest = discovered.offersDigest
        seat.message = discovered.message
        seat.framing = options.framing
        seat.keyMode = discovered.keyMode
        seat.username = options.username
        seat.password = options.password
        var sessions = SessionOptions(factories: [SwiftSessions()], inProcess: true, loopback: false, pythonExecutable: files.executable,
                                      timeout: options.timeout, quietGap: options.quietGap)
        sessions.teamServer = seat
        defer { sessions.servers.shutdown() }
        let context = SuiteContext(swift: SwiftPeer(), python: PythonPeer(interpreter: interpreter), seed: seed.value, files: files.files)
        // Only an app named by --app is a client here (the run without it is the reference clients' alone).
        let hosted = appOptions.app == nil ? [] : try appOptions.apps(files: files.files, quiet: report.quiet)
        defer { hosted.forEach { $0.stop() } }
        let apps = hosted.map(AppSubject.init)
        let checks = Runner(filter: filter).selected(SuiteCatalog.checks(for: [SessionSuite.name], context: context, sessions: sessions, apps: apps))
        let latch = InterruptLatch()
        let (ran, started) = RunReport.run(checks, title: "crosscheck run", detail: "suite sessions with --server \(server.name), seed \(seed.value)",
                                           quiet: report.quiet, latch: latch)
        let known = try knownFailuresFile.map { try KnownFailureList.load($0, command: "run") }  // issue 33: --known-failures with --server
        let (results, knownFooter) = known.map { KnownFailureList.apply($0, path: knownFailuresFile ?? "", to: discovery.filter { if case .passed = $0.outcome { return false } else { return true } } + ran) }
            ?? (discovery.filter { if case .passed = $0.outcome { return false } else { return true } } + ran, [])
        let junit = JUnitAdapter.report(results, properties: [("crosscheck.suites", SessionSuite.name)]
            + Self.teamServerProperties(server, profile: profile, interpreter: interpreter, [
                ("crosscheck.paddings", discovered.paddings.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",")),
                ("crosscheck.key-mode", discovered.keyMode?.rawValue ?? ""), ("crosscheck.seed", String(seed.value)),
                Self.appsProperty(apps),
            ]), timestamp: started)
        return try RunReport.finish(junit, interrupted: latch.interrupted, done: results.count, planned: checks.count + results.count - ran.count,
                                    started: started, junitPath: report.junit, footer: knownFooter + ["the server's output: \(server.logPath)"])
    }
}
