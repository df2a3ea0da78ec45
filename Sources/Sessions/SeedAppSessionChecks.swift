import Foundation
import Conformance
import PythonBridge
import Transport
import WireCrypto
import WireProtocol

/// The seed apps as clients (the `seed-app` profile, docs/PROTOCOL.md "Client profiles") against
/// every server implementation, in process and over loopback: does a server serve the app a team
/// actually shipped? Where the app's own bugs make a conversation impossible (a 2048-bit key with
/// its 200-byte read, a ciphertext TCP splits, a base64 key it copies with getCString), the check
/// still runs and fails naming the quirk; Vectors/known-failures.json lists those.
enum SeedAppSessionChecks {
    /// The seed's `let keySize = 1024`.
    static let appKeyBits = 1024

    static func checks(_ context: SessionContext) -> [Check] {
        let client = SeedAppSessions()
        var checks: [Check] = []
        let servers = context.sessions
        for server in servers {
            var list = CheckList(suite: "sessions.\(client.name)_client.\(server.name)_server", profile: "rsa-socket",
                                 relation: "\(client.name)_client.\(server.name)_server")
            if context.options.inProcess {
                for bits in [appKeyBits, 2048] {
                    let plan = plan(bits: bits)
                    list.add("inprocess.\(plan.label)", weaknesses: plan.weaknesses) {
                        try converse(context, server: server, plan: plan, delivery: .whole)
                    }
                }
                for delivery in [Conversation.Delivery.joined, .chunks(1), .chunks(5)] {
                    let plan = plan(bits: appKeyBits)
                    list.add("inprocess.\(plan.label).\(delivery)", weaknesses: plan.weaknesses) {
                        try converse(context, server: server, plan: plan, delivery: delivery)
                    }
                }
            }
            if context.options.loopback {
                let plan = plan(bits: appKeyBits)
                list.add("tcp.\(plan.label)", weaknesses: plan.weaknesses) {
                    try LoopbackSessionChecks.converse(context, client: client, serverName: server.name, plan: plan, keyOwner: context.run.swift)
                }
            }
            checks += list.checks
        }
        checks += aesHTTPSChecks(context)
        return checks
    }

    static func plan(bits: Int) -> RSASocketSessionChecks.Plan {
        RSASocketSessionChecks.Plan(direction: .piToPhone, framing: .legacy, padding: ._WEAK_AND_INSECURE_PKCS_V1_5, bits: bits)
    }

    static func converse(_ context: SessionContext, server: SessionFactory, plan: RSASocketSessionChecks.Plan,
                         delivery: Conversation.Delivery) throws -> CheckOutcome {
        // The app's key is made by the Swift side (the app runs on the phone).
        let machines = try RSASocketSessionChecks.makeMachines(context, client: SeedAppSessions(), server: server, plan: plan,
                                                               clientKeyOwner: context.run.swift)
        let transcript = Conversation.run(client: machines.client, server: machines.server, delivery: delivery)
        try RSASocketSessionChecks.verify(transcript, plan: plan, plaintext: machines.plaintext, client: "seed-app", server: server.name)
        return .passed
    }

    // MARK: aes-https (seed 001)

    static func aesHTTPSChecks(_ context: SessionContext) -> [Check] {
        guard let python = context.run.python as? PythonPeer else { return [] }
        let client = SeedAppAESHTTPS()
        var checks: [Check] = []
        let servers: [any AESHTTPSServerRole] = [SwiftAESHTTPS(), PythonAESHTTPS(peer: python)]
        for server in servers {
            var list = CheckList(suite: "sessions.\(client.name)_client.\(server.name)_server", profile: "aes-https",
                                 relation: "\(client.name)_client.\(server.name)_server")
            if context.options.inProcess {
                for mode in KeyDerivationMode.allCases {
                    list.add("inprocess.login-and-echo.\(mode.rawValue)", weaknesses: Weakness.aesHTTPS(keyMode: mode)) {
                        try AESHTTPSSessionChecks.loginAndEchoInProcess(context, client: client, server: server, mode: mode)
                    }
                }
            }
            if context.options.loopback {
                list.add("tls.pinned.login-and-echo.utf8-zeropad16", weaknesses: Weakness.aesHTTPS(keyMode: .weakUTF8ZeroPad16)) {
                    try TLSSessionChecks.loginAndEchoOverTLS(context, client: client, serverName: server.name, mode: .weakUTF8ZeroPad16)
                    return .passed
                }
            }
            checks += list.checks
        }
        return checks
    }
}
