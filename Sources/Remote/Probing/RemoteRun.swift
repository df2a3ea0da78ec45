import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// One remote target checked from the outside, step by step. Steps run in order because later
/// ones use what earlier ones found (the server's padding, its key size); a known-good
/// conversation runs first, after each class of malformed input and at the end, so a server that
/// stops answering is reported together with the input that preceded it.
public final class RemoteRun {
    public let target: ServerAddress
    let options: RemoteOptions
    let address: String
    let shouldStop: () -> Bool
    let progress: (CheckResult) -> Void
    public private(set) var results: [CheckResult] = []

    /// nil while the server answers; otherwise what preceded its silence.
    private(set) var deadAfter: String?
    /// The first conversation failed: nothing about the server is known, so nothing else is
    /// reported (no skipped steps, no audit findings), only that first error.
    private(set) var neverAnswered = false
    var suite: String { options.inProcess.map { "server.\($0.name)" } ?? "remote.\(target)" }
    var auditSuite: String { options.inProcess.map { "audit.\($0.name)" } ?? "audit.\(target)" }
    private var findings: [(name: String, weak: Bool, gating: Bool, message: String)] = []

    init(target: ServerAddress, address: String, options: RemoteOptions, shouldStop: @escaping () -> Bool,
         progress: @escaping (CheckResult) -> Void) {
        self.target = target; self.address = address; self.options = options
        self.shouldStop = shouldStop; self.progress = progress
    }

    /// Checks `target`; never throws: every problem becomes a testcase a person can act on.
    public static func run(_ target: ServerAddress, options: RemoteOptions, shouldStop: @escaping () -> Bool = { false },
                           progress: @escaping (CheckResult) -> Void = { _ in }) -> [CheckResult] {
        let address: String
        do { address = options.inProcess == nil ? try HostResolver.resolve(target.host, timeout: options.timeout) : target.host } catch {
            let run = RemoteRun(target: target, address: target.host, options: options, shouldStop: shouldStop, progress: progress)
            run.record("liveness.initial", profile: options.profile.rawValue, .error(message: "\(error)", details: ""), duration: 0)
            return run.results
        }
        let run = RemoteRun(target: target, address: address, options: options, shouldStop: shouldStop, progress: progress)
        if options.clients.contains(.reference) {
            switch options.profile {
            case .rsaSocket: RemoteRSASocket(run).checkAll()
            case .aesHTTPS: RemoteAESHTTPS(run).checkAll()
            }
        }
        if options.clients.contains(.seedApp) { RemoteSeedApp(run).checkAll() }
        run.recordAudit()
        return run.results
    }

    /// What `discover` found out about a server: what a client must use to talk to it.
    public struct Discovered: Sendable {
        /// rsa-socket: the padding of each direction that completes (a missing direction never did).
        public var paddings: [RSASocket.Direction: RSAEncryptionPadding] = [:]
        /// rsa-socket: it answers `Server: OK sha256=…`.
        public var offersDigest = false
        /// rsa-socket: the message its pi-to-phone ciphertexts decrypt to.
        public var message: Data?
        /// aes-https: the key mode of its login's `encryptionKey` (given, or inferred from it).
        public var keyMode: KeyDerivationMode?
    }

    /// Only the first steps of `run`: the first conversation and the padding of each direction
    /// (rsa-socket), or a login and its key mode (aes-https), found exactly as `run` finds them, with
    /// their testcases (a failed step says why a later use of the server cannot start).
    public static func discover(_ target: ServerAddress, options: RemoteOptions) -> (Discovered, [CheckResult]) {
        let run = RemoteRun(target: target, address: target.host, options: options, shouldStop: { false }, progress: { _ in })
        var discovered = Discovered()
        switch options.profile {
        case .rsaSocket:
            var facts = RemoteRSASocket.ServerFacts()
            RemoteRSASocket(run).discover(&facts)
            discovered.paddings = facts.paddings
            discovered.offersDigest = facts.offersDigest
            discovered.message = facts.message
        case .aesHTTPS:
            run.liveness("liveness.initial", profile: options.profile.rawValue, after: "the first login", first: true) {
                discovered.keyMode = try RemoteAESHTTPS(run).login(pin: options.pin ?? "", step: "discover").mode
            }
        }
        return (discovered, run.results)
    }

    // MARK: recording

    /// Runs one step unless the run was interrupted or the server is gone.
    func step(_ name: String, profile: String, _ body: () throws -> CheckOutcome) {
        if shouldStop() || neverAnswered { return }
        if let deadAfter {
            record(name, profile: profile, .skipped(reason: "not run: the server stopped answering after \(deadAfter)"), duration: 0)
            return
        }
        let start = Date()
        stepProperties = [:]
        var outcome: CheckOutcome
        do { outcome = try body() } catch let failure as CheckFailure {
            outcome = .failed(message: failure.message, details: failure.details)
        } catch let error as TransportError {
            // The advice, with the error below it (a refusal's advice already says all its error says).
            var refused = false
            if case .connectionRefused = error { refused = true }
            outcome = .error(message: Self.advice(for: error, target: target), details: refused ? "" : "\(error)")
        } catch {
            outcome = .error(message: "\(error)", details: "")
        }
        if let server = options.inProcess { outcome = Self.outcome(outcome, with: server.checkEnded()) }
        record(name, profile: profile, outcome, duration: Date().timeIntervalSince(start), properties: stepProperties)
    }

    /// Properties the step being run attaches to its testcase (e.g. an oracle audit's verdict,
    /// which a passed testcase has no message to carry).
    private var stepProperties: [String: String] = [:]

    func note(_ name: String, _ value: String) { stepProperties[name] = value }

    func record(_ name: String, profile: String, _ outcome: CheckOutcome, duration: TimeInterval, suite: String? = nil,
                properties: [String: String] = [:]) {
        let classname = options.inProcess.map { "crosscheck.\(profile).server.\($0.name)" } ?? "crosscheck.remote.\(profile)"
        let check = Check(suite: suite ?? self.suite, classname: classname, name: name, properties: properties) { outcome }
        let result = CheckResult(check: check, outcome: outcome, duration: duration)
        results.append(result)
        progress(result)
    }

    /// A liveness step: on failure the server is marked gone, and the rest is skipped with the reason.
    /// `first`: the run's first conversation; if it fails, the server never answered at all.
    func liveness(_ name: String, profile: String, after input: String, first: Bool = false, _ conversation: () throws -> Void) {
        step(name, profile: profile) {
            do { try conversation() } catch {
                if first, Self.isUnreachable(error) { neverAnswered = true } else { deadAfter = input }
                throw error
            }
            return .passed
        }
    }

    /// A weak-but-conforming choice (or its absence); reported in the audit testsuite. A
    /// non-gating finding (timing statistics) never fails the run, not even with --strict.
    /// One testcase per name: a finding two steps make (implicit rejection) keeps the first's words.
    func finding(_ name: String, weak: Bool, gating: Bool = true, _ message: String) {
        if findings.contains(where: { $0.name == name }) { return }
        findings.append((name, weak, gating, message))
    }

    /// The server stopped answering after `input`: every later step is skipped with that reason.
    func serverGone(after input: String) {
        if deadAfter == nil { deadAfter = input }
    }

    /// Bytes for a probe, the same for the same `--seed` and name whatever ran before.
    func generator(_ name: String) -> SeededGenerator {
        SeededGenerator.forCheck(name, seed: options.seed)
    }

    private func recordAudit() {
        if neverAnswered { return }
        for finding in findings {
            let outcome: CheckOutcome
            if !finding.weak { outcome = .passed } else if options.strict && finding.gating {
                outcome = .failed(message: "weakness (--strict): \(finding.message)", details: "")
            } else {
                outcome = .skipped(reason: "weakness: \(finding.message)")
            }
            // The text travels as a property too: a passed testcase has no message of its own.
            record(finding.name, profile: "audit", outcome, duration: 0, suite: auditSuite, properties: ["finding": finding.message])
        }
    }

    /// Nothing came back at all: no listener, no answer to the connection, no such host.
    static func isUnreachable(_ error: Error) -> Bool {
        switch error as? TransportError {
        case .connectionRefused?, .timedOut?, .cannotResolve?, .invalidAddress?: return true
        default: return false
        }
    }

    static func advice(for error: TransportError, target: ServerAddress) -> String {
        switch error {
        case .connectionRefused:
            return "nothing listens at \(target): is the server running, on this port, and reachable from here?"
        case let .timedOut(operation, seconds):
            return "\(target) did not answer in time (\(operation), \(seconds) s): the server may be stalled, single-threaded and busy, or a firewall drops packets"
        case .connectionReset:
            return "\(target) reset the connection: the server crashed or refused the input"
        default:
            return "\(error)"
        }
    }

    // MARK: connections

    /// A fresh connection to the server: TCP, or a socket pair to the in-process server.
    func connect() throws -> TCPConnection {
        if let server = options.inProcess { return try server.connect(timeout: options.timeout) }
        return try TCPConnection.connect(host: address, port: target.port, timeout: options.timeout)
    }

    /// What the in-process server's own code did wrong during a step outweighs the step's verdict:
    /// a handler that raised fails it (with the traceback), one cut off at the deadline is an error.
    public static func outcome(_ outcome: CheckOutcome, with problems: [InProcessServerProblem]) -> CheckOutcome {
        if let blocked = problems.first(where: { $0.kind == .blocked }) {
            return .error(message: blocked.message, details: blocked.details)
        }
        guard let raised = problems.first(where: { $0.kind == .raised }) else { return outcome }
        return .failed(message: raised.message, details: raised.details)
    }

    /// Runs `machine` over a fresh connection under the run's deadlines.
    func converse(_ machine: SessionMachine) throws -> SocketDriver.Transcript {
        let connection = try connect()
        let outcome = SocketDriver.drive(machine, over: connection, quietGap: options.quietGap, timeout: options.timeout,
                                         deadline: options.timeout * 3)
        return outcome
    }
}
