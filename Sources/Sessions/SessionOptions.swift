import Foundation
import Conformance
import Transport

/// How the sessions suite runs: which implementations' machines, over which transports.
public struct SessionOptions: Sendable {
    /// Protocol machines of each implementation (Swift first).
    public var factories: [SessionFactory]
    /// Machines called directly, no sockets (fast; the default part of every run).
    public var inProcess: Bool
    /// Real loopback TCP/TLS, with PythonRef servers in their own processes.
    public var loopback: Bool
    /// The Python interpreter for `python3 -m pythonref serve` (PythonRef itself is `files.pythonRef`).
    public var pythonExecutable: String
    /// Deadline for every connect, read and write.
    public var timeout: TimeInterval
    /// How long a quiet line means "the peer has said all it will" for legacy framing.
    public var quietGap: TimeInterval
    /// `run --server FILE.py:NAME --suite sessions`: the team's server takes the server seat, and
    /// the suite is the conversations of the clients with it (TeamServerSessionChecks) only.
    public var teamServer: TeamServerSeat<any InProcessServer>?
    /// The servers this run started; `shutdown()` when the run ends.
    public let servers = ServerPool()

    public init(factories: [SessionFactory], inProcess: Bool = true, loopback: Bool = false, pythonExecutable: String = "/usr/bin/python3",
                timeout: TimeInterval = 5, quietGap: TimeInterval = 0.2) {
        self.factories = factories; self.inProcess = inProcess; self.loopback = loopback; self.pythonExecutable = pythonExecutable
        self.timeout = timeout; self.quietGap = quietGap
    }
}

/// What the sessions checks are built from: the run's context and the suite's options.
public struct SessionContext: Sendable {
    public let run: SuiteContext
    public let options: SessionOptions

    public init(_ run: SuiteContext, options: SessionOptions) { self.run = run; self.options = options }

    var keys: KeyCache { run.keys }
    var files: ProjectFiles { run.files }
    var sessions: [SessionFactory] { options.factories }
    func bytes(_ count: Int, for checkName: String) -> Data { run.bytes(count, for: checkName) }
    func cryptoPeer(named name: String) -> CryptoPeer { run.cryptoPeer(named: name) }
    /// Where a TLS test certificate (`pinned`, `impostor`, …) and its key are.
    func certificate(_ name: String) -> String { files.tls.appendingPathComponent("\(name).crt.pem").path }
    func privateKey(_ name: String) -> String { files.tls.appendingPathComponent("\(name).key.pem").path }

    /// `python3 -m pythonref ARGUMENTS` started with this run's interpreter and PythonRef.
    func startPythonRef(_ arguments: [String]) throws -> PythonRefProcess {
        try PythonRefProcess(python: options.pythonExecutable, pythonRef: files.pythonRef, arguments: arguments)
    }
}
