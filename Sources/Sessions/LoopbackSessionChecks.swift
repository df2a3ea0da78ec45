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
        let options = context.options
        let key = try context.keys.key(of: context.cryptoPeer(named: serverName), bits: plan.bits)
        let id = "\(serverName)/\(plan.framing.rawValue)/\(plan.padding)/\(plan.bits)/\(plan.digest)"
        let spec = RSASocketServerSpec(padding: plan.padding, framing: plan.framing, digest: plan.digest, privateKeyPEM: key.privateKeyPEM)
        if serverName == "swift" {
            return try options.servers.server(id) {
                try SessionMachineServer(timeout: options.timeout, quietGap: options.quietGap) { try SwiftSessions().rsaSocketServer(spec) }
            }.port
        }
        return try options.servers.server(id) {
            let keyFile = try options.servers.temporaryFile(key.privateKeyPEM, name: "server-\(plan.bits).pem")
            return try PythonServerProcess(context, arguments: [
                "rsa-socket", "--framing", plan.framing.rawValue, "--padding", plan.padding.description, "--key", keyFile.path,
                "--quiet", "--quiet-gap", String(options.quietGap), "--timeout", String(options.timeout),
            ] + (plan.digest ? ["--digest"] : []))
        }.port
    }
}
