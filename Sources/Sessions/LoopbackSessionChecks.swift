import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// rsa-socket conversations over real loopback TCP: every client implementation against a Swift
/// server on a port of this process and a PythonRef server in its own process
/// (`python3 -m pythonref serve`), both directions, framings and paddings. phone-to-pi runs with the
/// digest extension, so the client can prove what a remote server decrypted.
enum LoopbackSessionChecks {
    static func checks(_ context: SessionContext) -> [Check] {
        guard context.options.loopback else { return [] }
        var checks: [Check] = []
        for client in context.sessions {
            for serverName in ["swift", "python"] {
                var list = CheckList(suite: "sessions.\(client.name)_client.\(serverName)_server", profile: "rsa-socket",
                                     relation: "\(client.name)_client.\(serverName)_server")
                for direction in RSASocket.Direction.allCases {
                    for framing in Framing.allCases {
                        for padding in RSASocketSessionChecks.paddings {
                            let plan = RSASocketSessionChecks.Plan(direction: direction, framing: framing, padding: padding, bits: 2048,
                                                                   digest: direction == .phoneToPi)
                            list.add("tcp.\(plan.label)", weaknesses: plan.weaknesses) {
                                try converse(context, client: client, serverName: serverName, plan: plan)
                            }
                        }
                    }
                }
                checks += list.checks
            }
        }
        return checks
    }

    /// `keyOwner`: whose crypto makes the client's key pair (default: the client's implementation).
    static func converse(_ context: SessionContext, client: SessionFactory, serverName: String,
                         plan: RSASocketSessionChecks.Plan, keyOwner: CryptoPeer? = nil) throws -> CheckOutcome {
        let options = context.options
        let port = try serverPort(context, serverName: serverName, plan: plan)
        let clientKey = try context.keys.key(of: keyOwner ?? context.cryptoPeer(named: client.name), bits: plan.bits, slot: "client")
        let plaintext = context.bytes(32, for: "tcp-\(plan.label)")
        let machine = try client.rsaSocketClient(RSASocketClientSpec(direction: plan.direction, padding: plan.padding, framing: plan.framing,
                                                                     digest: plan.digest, privateKeyPEM: clientKey.privateKeyPEM,
                                                                     plaintext: plaintext, keyFormat: plan.keyFormat))
        let connection = try TCPConnection.connect(host: "127.0.0.1", port: port, timeout: options.timeout)
        let outcome = SocketDriver.drive(machine, over: connection, quietGap: options.quietGap, timeout: options.timeout,
                                         deadline: options.timeout * 2)
        let expected: [SessionEvent]
        switch plan.direction {
        case .phoneToPi: expected = [.serverOK(digest: Digest.sha256.hash(plaintext).hexString, verified: true), .serverStopped]
        case .piToPhone: expected = [.decrypted(RSASocket.defaultMessage), .serverStopped]
        }
        let details = "client events: \(outcome.events)\nclient → server: \(Expect.preview(outcome.sent))\nserver → client: \(Expect.preview(outcome.received))"
            + (outcome.transportError.map { "\ntransport: \($0)" } ?? "")
        guard outcome.events == expected else {
            throw CheckFailure("\(client.name) client over TCP to the \(serverName) server: expected \(expected), got \(outcome.events)"
                               + (outcome.transportError.map { " (\($0))" } ?? ""), details: details)
        }
        return .passed
    }

    /// The server for `plan`'s configuration, started on first use and kept for the run.
    static func serverPort(_ context: SessionContext, serverName: String, plan: RSASocketSessionChecks.Plan) throws -> UInt16 {
        let key = try context.keys.key(of: context.cryptoPeer(named: serverName), bits: plan.bits)
        let spec = RSASocketServerSpec(padding: plan.padding, framing: plan.framing, digest: plan.digest, privateKeyPEM: key.privateKeyPEM)
        return try serverPort(context, implementation: serverName, spec: spec)
    }

    /// The server of `implementation` for `spec` (its padding, framing, digest and key), started on
    /// first use and kept for the run.
    static func serverPort(_ context: SessionContext, implementation: String, spec: RSASocketServerSpec) throws -> UInt16 {
        let options = context.options
        let keyID = Digest.sha256.hash(spec.privateKeyPEM).hexString.prefix(16)
        let id = "\(implementation)/\(spec.framing.rawValue)/\(spec.padding)/\(keyID)/\(spec.digest)"
        if implementation == "swift" {
            return try options.servers.server(id) {
                try SessionMachineServer(timeout: options.timeout, quietGap: options.quietGap) { try SwiftSessions().rsaSocketServer(spec) }
            }.port
        }
        return try options.servers.server(id) {
            let keyFile = try options.servers.temporaryFile(spec.privateKeyPEM, name: "server-\(keyID).pem")
            return try PythonServerProcess(context, arguments: [
                "rsa-socket", "--framing", spec.framing.rawValue, "--padding", spec.padding.description, "--key", keyFile.path,
                "--quiet", "--quiet-gap", String(options.quietGap), "--timeout", String(options.timeout),
            ] + (spec.digest ? ["--digest"] : []))
        }.port
    }
}

/// The sessions suite's loopback servers for another capability (the app checks), through the
/// core's `LoopbackServerProvider`: the same pool, stopped when the run's `SessionOptions` shut down.
public struct SessionServers: LoopbackServerProvider {
    let context: SessionContext

    public init(_ run: SuiteContext, options: SessionOptions) { context = SessionContext(run, options: options) }

    public var pythonExecutable: String { context.options.pythonExecutable }

    public func rsaSocketServer(_ implementation: String, _ spec: RSASocketServerSpec) throws -> UInt16 {
        guard ["swift", "python"].contains(implementation) else {
            throw PeerFailure(.unsupported, "no rsa-socket server '\(implementation)' (swift or python)")
        }
        guard spec.quirk == nil, spec.message == RSASocket.defaultMessage, spec.maxMessage == Framing.defaultMaxMessage else {
            throw PeerFailure(.unsupported, "loopback servers take padding, framing, digest and key only")
        }
        return try LoopbackSessionChecks.serverPort(context, implementation: implementation, spec: spec)
    }
}
