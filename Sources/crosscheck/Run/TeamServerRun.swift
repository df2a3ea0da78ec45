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
    @Option(name: "--server", value: "FILE.py[:NAME]", help: "a team's own Pi server under the remote checks instead of the suites. FILE.py alone: the script runs as its own process (its interpreter, its folder), reached on the port it listens on, and stopped with all it spawned at the end. FILE.py:NAME: run in-process (with --suite sessions: in the server seat of the session conversations, and with --app that app is a client too): a socketserver.BaseRequestHandler subclass or handle(conn, addr) (rsa-socket), or a WSGI app such as Flask's app (aes-https); one whose module runs its own server loop runs as its own process instead; MODULE:NAME with --server-path")
    var spec: String?
    @RepeatedOption(name: "--server-arg", value: "ARG", help: "with --server: an argument for the script (sys.argv[1:]), as `python3 FILE.py ARG` gets it")
    var arguments: [String]
    @Option(name: "--port", value: "P", help: "with --server FILE.py run as its own process: the port to wait for and check (default: the one its processes listen on)")
    var port: PortNumber?
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
            if searchPath != nil || profile != nil || checks.anyGiven || $arguments || port != nil {
                throw UsageError("--server-path, --server-arg, --port, --profile and the remote check options (--client, --user, --padding, --framing, --key-bits, --key-mode, --timeout, --quiet-gap) go with --server FILE.py[:NAME]")
            }
            return
        }
        if spec.hasSuffix(".py") {
            guard FileManager.default.fileExists(atPath: spec) else { throw CommandExit(.noInput, "crosscheck run: --server \(spec): no such file") }
            if searchPath != nil { throw UsageError("--server-path goes with --server MODULE:NAME, not a script run as its own process") }
            return
        }
        guard let colon = spec.lastIndex(of: ":"), colon != spec.startIndex, spec.index(after: colon) != spec.endIndex else {
            throw UsageError("--server takes FILE.py (the script, run as its own process), FILE.py:NAME or MODULE:NAME (e.g. examples/pi-server-socket/server.py:Handler), not '\(spec)'")
        }
        if let searchPath, !FileManager.default.fileExists(atPath: searchPath) {
            throw CommandExit(.noInput, "crosscheck run: --server-path \(searchPath): no such folder")
        }
    }

    /// Loads the server, or ends the command: 66 for a wrong file or name (or an import that
    /// raised), 69 for a module the machine lacks; both with Python's traceback.
    /// `run` loads a FILE.py:NAME as `python3 FILE.py` run in its folder would see it (its folder as the
    /// working directory, `--server-arg`s, PYTHONPATH, an empty stdin); `.ownLoop` is thrown on.
    /// `sitePackages`: a virtual environment's, before PYTHONPATH's folders.
    func load(_ spec: String, interpreter: PythonInterpreter, sitePackages: String? = nil) throws -> TeamServer {
        let pythonPath = ([sitePackages] + [ProcessInfo.processInfo.environment["PYTHONPATH"]]).compactMap { $0 }.filter { !$0.isEmpty }
        return try Self.load(spec, searchPath: searchPath, logPath: logPath, timeout: checks.timeout.value, interpreter: interpreter, command: "run",
                             runInFolder: true, arguments: arguments, pythonPath: pythonPath.joined(separator: ":"))
    }

    /// The one way every command (`run`, `fuzz`, `replay`) loads `--server`, with its exit codes.
    static func load(_ spec: String, searchPath: String?, logPath: String, timeout: TimeInterval, interpreter: PythonInterpreter,
                     command: String, runInFolder: Bool = false, arguments: [String] = [], pythonPath: String = "") throws -> TeamServer {
        do {
            return try TeamServer(spec: spec, searchPath: searchPath, logPath: logPath, timeout: timeout, interpreter: interpreter,
                                  runInFolder: runInFolder, arguments: arguments, pythonPath: pythonPath)
        } catch let error as TeamServerError {
            switch error {
            case .ownLoop where command == "run": throw error  // run starts it as its own process instead
            case .badInput, .ownLoop: throw CommandExit(.noInput, "crosscheck \(command): \(error)")
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
    func prepareTeamServer(_ spec: String, interpreter: PythonInterpreter, sitePackages: String? = nil) throws -> (TeamServer, RemoteOptions.Profile, RemoteOptions) {
        let server = try teamServer.load(spec, interpreter: interpreter, sitePackages: sitePackages)
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
    func runTeamServer(_ spec: String, interpreter: PythonInterpreter, environmentNote: String = "", sitePackages: String? = nil) throws -> ExitCode {
        let (server, profile, options) = try prepareTeamServer(spec, interpreter: interpreter, sitePackages: sitePackages)
        let quiet = report.quiet
        if protocolOptions.given {
            if !quiet { printError("crosscheck run: --server \(server.name) (\(server.shape.rawValue)), protocol \(protocolOptions.file ?? ""), in-process; its output goes to \(server.logPath)") }
            return try runDescribedTeamServer(server, properties: [("crosscheck.server", server.name), ("crosscheck.server.shape", server.shape.rawValue),
                                                                   ("crosscheck.server.log", server.logPath)],
                                              footer: ["the server's output: \(server.logPath)"])
        }
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
        let (results, knownFooter) = known.map { KnownFailureList.apply($0, path: knownFailuresFile ?? "", to: ran, checkStale: !latch.interrupted) } ?? (ran, [])
        let junit = JUnitAdapter.report(results, properties: Self.teamServerProperties(server, profile: profile, interpreter: interpreter, [
            ("crosscheck.strict", String(options.strict)), ("crosscheck.timeout", String(options.timeout)),
            ("crosscheck.framing", options.framing.rawValue), ("crosscheck.seed", String(options.seed)),
            ("crosscheck.server.folder", Self.script(of: spec).map { URL(fileURLWithPath: $0).standardizedFileURL.deletingLastPathComponent().path } ?? ""),
            ("crosscheck.server.python", environmentNote.isEmpty ? interpreter.executable : "\(interpreter.executable) (\(environmentNote))"),
        ]), timestamp: started)
        return try RunReport.finish(junit, interrupted: latch.interrupted, done: ran.count, planned: nil, started: started,
                                    junitPath: report.junit, footer: knownFooter + ["the server's output: \(server.logPath)"])
    }
}

extension RunCommand {
    /// `run --server … --suite sessions`: the session conversations with the team's server in the
    /// server seat. What a client must know of it (paddings, digest, key mode) is found first, as
    /// `remote` finds it; a discovery step that did not pass is reported (it says why a
    /// conversation is missing).
    func runTeamServerSessions(_ spec: String, interpreter: PythonInterpreter, sitePackages: String? = nil) throws -> ExitCode {
        // Only an app named by --app is a client here (the run without it is the reference clients' alone).
        // Hosted before the server is loaded: loading moves this process to the server's folder, and
        // the app's folder, build and container paths are the command line's.
        let hosted = appOptions.app == nil ? [] : try appOptions.apps(files: files.files, quiet: report.quiet)
        defer { hosted.forEach { $0.stop() } }
        let (server, profile, options) = try prepareTeamServer(spec, interpreter: interpreter, sitePackages: sitePackages)
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
        let apps = hosted.map { AppSubject($0, folder: appOptions.folder) }
        let checks = Runner(filter: filter).selected(SuiteCatalog.checks(for: [SessionSuite.name], context: context, sessions: sessions, apps: apps))
        let latch = InterruptLatch()
        let (ran, started) = RunReport.run(checks, title: "crosscheck run", detail: "suite sessions with --server \(server.name), seed \(seed.value)",
                                           quiet: report.quiet, latch: latch)
        let known = try knownFailuresFile.map { try KnownFailureList.load($0, command: "run") }  // issue 33: --known-failures with --server
        let (results, knownFooter) = known.map { KnownFailureList.apply($0, path: knownFailuresFile ?? "", to: discovery.filter { if case .passed = $0.outcome { return false } else { return true } } + ran,
                                                                        checkStale: !latch.interrupted) }
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

/// The team's Python: `--python`, else a virtual environment beside the server file (`.venv/` or
/// `venv/` in its folder or a folder above it, up to the repository's root), else Debian's python3.
struct TeamEnvironment {
    /// The interpreter the team's server runs with (its own process), or whose installation the
    /// embedded one takes (in-process, when it is the embedded version).
    let python: String
    /// Where it comes from, for the report: "--python", "the virtual environment DIR", "default".
    let source: String
    /// The virtual environment's folder, when it is one.
    var venv: URL?

    /// `VENV/lib/pythonX.Y/site-packages` when the environment is Python `version` (its pyvenv.cfg's).
    static func sitePackages(of venv: URL, version: String) -> String? {
        let config = (try? String(contentsOf: venv.appendingPathComponent("pyvenv.cfg"), encoding: .utf8)) ?? ""
        let versions = config.split(separator: "\n").filter { $0.hasPrefix("version") }
            .compactMap { $0.split(separator: "=").last?.trimmingCharacters(in: .whitespaces) }
        guard versions.contains(where: { $0 == version || $0.hasPrefix(version + ".") }) else { return nil }
        let folder = venv.appendingPathComponent("lib/python\(version)/site-packages")
        return FileManager.default.fileExists(atPath: folder.path) ? folder.path : nil
    }

    static func find(near script: URL, given: String?) -> TeamEnvironment {
        if let given { return TeamEnvironment(python: given, source: "--python") }
        var folder = script.deletingLastPathComponent().standardizedFileURL
        // Up to the repository's root (the folder holding .git); outside a repository, its own folder only.
        var folders = [folder]
        var probe = folder
        while probe.path != "/" {
            if FileManager.default.fileExists(atPath: probe.appendingPathComponent(".git").path) {
                folders = []
                while true {
                    folders.append(folder)
                    if folder.path == probe.path || folder.path == "/" { break }
                    folder = folder.deletingLastPathComponent()
                }
                break
            }
            probe = probe.deletingLastPathComponent()
        }
        for candidate in folders {
            for venv in [".venv", "venv"] {
                let directory = candidate.appendingPathComponent(venv)
                guard FileManager.default.fileExists(atPath: directory.appendingPathComponent("pyvenv.cfg").path) else { continue }
                for name in ["python3", "python"] {
                    let python = directory.appendingPathComponent("bin").appendingPathComponent(name).path
                    if FileManager.default.isExecutableFile(atPath: python) {
                        return TeamEnvironment(python: python, source: "the virtual environment \(directory.path)", venv: directory)
                    }
                }
            }
        }
        return TeamEnvironment(python: "/usr/bin/python3", source: "default (no .venv/ or venv/ beside the server; --python to give one)")
    }
}

extension RunCommand {
    /// The path of the script in `FILE.py` or `FILE.py:NAME` (nil for MODULE:NAME).
    static func script(of spec: String) -> String? {
        if spec.hasSuffix(".py") { return spec }
        guard let colon = spec.lastIndex(of: ":"), spec[..<colon].hasSuffix(".py") else { return nil }
        return String(spec[..<colon])
    }

    /// `run --server`: the script as its own process (FILE.py, or a FILE.py:NAME whose module runs
    /// its own loop), or the object in-process.
    func runTeamServerEntry(_ spec: String) throws -> ExitCode {
        // Loading in-process moves this process to the server's folder: every path first made absolute.
        teamServer.logPath = URL(fileURLWithPath: teamServer.logPath).standardizedFileURL.path
        report.junit = URL(fileURLWithPath: report.junit ?? "reports/junit.xml").standardizedFileURL.path
        files.pythonRef = files.files.pythonRef.standardizedFileURL.path
        files.vectors = files.files.vectors.standardizedFileURL.path
        protocolOptions.makePathsAbsolute()
        let script = Self.script(of: spec).map { URL(fileURLWithPath: $0).standardizedFileURL }
        let environment = script.map { TeamEnvironment.find(near: $0, given: files.$executable ? files.executable : nil) }
        if let script, let environment, spec.hasSuffix(".py") {
            if suites != nil { throw UsageError("--server FILE.py (its own process) runs the server checks; --suite sessions needs FILE.py:NAME, in-process") }
            return try runOwnProcess(script, environment: environment, because: nil)
        }
        // A virtual environment's packages in-process: its site-packages on the embedded Debian
        // python3's sys.path (after the file's folder), when it is of the embedded version; the
        // harness's own imports (cryptography) stay Debian's.
        var note = ""
        var sitePackages: String?
        if let environment, environment.source != "--python", let venv = environment.venv {
            if let found = TeamEnvironment.sitePackages(of: venv, version: PythonExecutable.embeddedVersion) {
                sitePackages = found
                note = "with the packages of \(environment.source) (\(found))"
            } else {
                note = "without the packages of \(environment.source): it is not Python \(PythonExecutable.embeddedVersion), which crosscheck embeds; give FILE.py alone to run it as its own process with that interpreter"
                if !report.quiet { printError("crosscheck run: --server \(spec): in-process \(note)") }
            }
        }
        let interpreter = try files.interpreter()
        do {
            return suites == nil ? try runTeamServer(spec, interpreter: interpreter, environmentNote: note, sitePackages: sitePackages)
                : try runTeamServerSessions(spec, interpreter: interpreter, sitePackages: sitePackages)
        } catch let error as TeamServerError {
            guard case let .ownLoop(_, message, _) = error, let script, let environment else { throw error }
            if suites != nil { throw CommandExit(.noInput, "crosscheck run: \(error)\n--suite sessions needs the server in-process: put its loop under `if __name__ == \"__main__\":`, or leave out --suite sessions to check it as its own process") }
            return try runOwnProcess(script, environment: environment, because: message)
        }
    }

    /// Told from the script's text when --profile is not given: an HTTP framework is aes-https.
    static func guessedProfile(of script: URL) -> RemoteOptions.Profile {
        let text = (try? String(contentsOf: script, encoding: .utf8)) ?? ""
        let web = ["from flask", "import flask", "Flask(", "http.server", "wsgiref", "bottle", "aiohttp", "from werkzeug", "@app.route", "@app.post"]
        return web.contains { text.contains($0) } ? .aesHTTPS : .rsaSocket
    }

    /// `run --server FILE.py`: the script as its own process, the remote checks over loopback, and
    /// the process group stopped at the end, however the run ends.
    func runOwnProcess(_ script: URL, environment: TeamEnvironment, because reason: String?) throws -> ExitCode {
        let quiet = report.quiet
        let latch = InterruptLatch()
        let profile = teamServer.profile ?? Self.guessedProfile(of: script)
        let launch = OwnProcessServer.Launch(script: script, arguments: teamServer.arguments, python: environment.python,
                                             port: teamServer.port?.value, logPath: teamServer.logPath, timeout: teamServer.checks.timeout.value)
        if !quiet {
            printError("crosscheck run: --server \(script.path)" + (reason.map { ": \($0); running it as its own process instead" } ?? "")
                       + ": python \(environment.python) (\(environment.source)), in \(script.deletingLastPathComponent().path); its output goes to \(launch.logPath)")
        }
        let server: OwnProcessServer
        do { server = try OwnProcessServer(launch, shouldStop: { latch.interrupted }) } catch let error as OwnProcessError {
            if case .interrupted = error { throw CommandExit(.interrupted, "crosscheck run: \(error)") }
            if case .exitedBeforeListening(_, _, _, _?) = error { throw CommandExit(.unavailable, "crosscheck run: \(error)") }
            throw CommandExit(.noInput, "crosscheck run: \(error)")
        }
        defer { server.stop() }
        if protocolOptions.given {
            if !quiet { printError("crosscheck run: \(server.name) (pid \(server.pid)) listens on port \(server.port) (reached at \(server.host)); protocol \(protocolOptions.file ?? "")") }
            return try runDescribedTeamServer(server, properties: [("crosscheck.server", server.name), ("crosscheck.server.shape", "own process"),
                                                                   ("crosscheck.server.port", String(server.port)), ("crosscheck.server.log", launch.logPath)],
                                              footer: ["the server's output: \(launch.logPath)"])
        }
        if !quiet { printError("crosscheck run: \(server.name) (pid \(server.pid)) listens on port \(server.port) (reached at \(server.host)); profile \(profile.rawValue)\(teamServer.profile == nil ? " (told from its source; --profile to say)" : "")") }
        var options = RemoteOptions()
        options.inProcess = server
        options.profile = profile
        teamServer.checks.apply(to: &options)
        options.strict = strict
        options.seed = seed.value
        let started = Date()
        var progress = ProgressPrinter(quiet: quiet)
        var done = 0
        let results = RemoteRun.run(ServerAddress(host: server.name, port: server.port), options: options, shouldStop: { latch.interrupted }) { result in
            done += 1
            progress.record(done: done, total: 0, result: result)
        }
        let running = server.isRunning
        server.stop()
        var footer = ["the server's output: \(launch.logPath)"]
        if !running { footer.append("the server's process ended during the run; its last output:\n\(server.lastOutput())") }
        let junit = JUnitAdapter.report(results, properties: [
            ("crosscheck.server", server.name), ("crosscheck.server.shape", "own process"),
            ("crosscheck.server.why", reason ?? "FILE.py given: the script runs as its own process"),
            ("crosscheck.server.command", ([environment.python, script.lastPathComponent] + launch.arguments).joined(separator: " ")),
            ("crosscheck.server.folder", script.deletingLastPathComponent().path),
            ("crosscheck.server.python", "\(environment.python) (\(environment.source))"),
            ("crosscheck.server.stdin", "end-of-file (nobody types at it)"),
            ("crosscheck.server.port", String(server.port)), ("crosscheck.server.host", server.host), ("crosscheck.server.pid", String(server.pid)),
            ("crosscheck.server.ended", running ? "stopped by crosscheck with its process group" : "on its own during the run"),
            ("crosscheck.server.log", launch.logPath), ("crosscheck.profile", profile.rawValue),
            ("crosscheck.strict", String(options.strict)), ("crosscheck.timeout", String(options.timeout)),
            ("crosscheck.framing", options.framing.rawValue), ("crosscheck.seed", String(options.seed)),
        ], timestamp: started)
        return try RunReport.finish(junit, interrupted: latch.interrupted, done: results.count, planned: nil, started: started,
                                    junitPath: report.junit, footer: footer)
    }
}
