import Foundation
import Conformance
import WireCrypto
import WireProtocol

/// rsa-socket conversations between every pairing of client and server implementations, in
/// process: both directions, both framings, every padding, 1024 (weak) and 2048-bit keys, and
/// deliveries that split and join messages the way TCP may.
enum RSASocketSessionChecks {
    static let paddings: [RSAEncryptionPadding] = [._WEAK_AND_INSECURE_PKCS_V1_5, .oaepSHA1, .oaepSHA256]

    static func checks(_ context: SessionContext) -> [Check] {
        guard context.options.inProcess else { return [] }
        var checks: [Check] = []
        for client in context.sessions {
            for server in context.sessions {
                var list = CheckList(suite: "sessions.\(client.name)_client.\(server.name)_server", profile: "rsa-socket",
                                     relation: "\(client.name)_client.\(server.name)_server")
                for direction in RSASocket.Direction.allCases {
                    for framing in Framing.allCases {
                        for padding in paddings {
                            for bits in [1024, 2048] {
                                let plan = Plan(direction: direction, framing: framing, padding: padding, bits: bits)
                                list.add("inprocess.\(plan.label)", weaknesses: plan.weaknesses) {
                                    try converse(context, client: client, server: server, plan: plan, delivery: .whole)
                                }
                            }
                        }
                        for delivery in [Conversation.Delivery.joined, .chunks(1), .chunks(5)] {
                            let plan = Plan(direction: direction, framing: framing, padding: .oaepSHA256, bits: 2048)
                            list.add("inprocess.\(plan.label).\(delivery)", weaknesses: plan.weaknesses) {
                                try converse(context, client: client, server: server, plan: plan, delivery: delivery)
                            }
                        }
                    }
                    // A server on OpenSSL ≥ 3.2 rejects a bad PKCS#1 v1.5 padding implicitly; every
                    // good conversation must go as before (docs/PROTOCOL.md, implicit rejection).
                    if direction == .phoneToPi {
                        for rejection in server.rejections where rejection != .explicit {
                            for framing in Framing.allCases {
                                for bits in [1024, 2048] {
                                    let plan = Plan(direction: direction, framing: framing, padding: ._WEAK_AND_INSECURE_PKCS_V1_5, bits: bits,
                                                    digest: true, rejection: rejection)
                                    list.add("inprocess.\(plan.label)", weaknesses: plan.weaknesses) {
                                        try converse(context, client: client, server: server, plan: plan, delivery: .chunks(5))
                                    }
                                }
                            }
                        }
                    }
                    let digestPlan = Plan(direction: .phoneToPi, framing: .legacy, padding: .oaepSHA256, bits: 2048, digest: true)
                    if direction == .phoneToPi {
                        list.add("inprocess.\(digestPlan.label)", weaknesses: digestPlan.weaknesses) {
                            try converse(context, client: client, server: server, plan: digestPlan, delivery: .chunks(3))
                        }
                    }
                }
                for format in ClientKeyFormat.allCases where format != .spkiPEM {
                    let plan = Plan(direction: .piToPhone, framing: .legacy, padding: .oaepSHA1, bits: 2048, keyFormat: format)
                    list.add("inprocess.\(plan.label)", weaknesses: plan.weaknesses) {
                        try converse(context, client: client, server: server, plan: plan, delivery: .chunks(7))
                    }
                }
                checks += list.checks
            }
        }
        return checks
    }

    struct Plan: Sendable {
        var direction: RSASocket.Direction
        var framing: Framing
        var padding: RSAEncryptionPadding
        var bits: Int
        var digest = false
        var keyFormat: ClientKeyFormat = .spkiPEM
        var rejection: RSARejection = .explicit

        var label: String {
            "\(direction.rawValue).\(framing.rawValue).\(padding).rsa\(bits)" + (digest ? ".digest" : "")
                + (keyFormat == .spkiPEM ? "" : ".client-key-\(keyFormat.rawValue)")
                + (rejection == .explicit ? "" : ".\(rejection.rawValue)-rejection")
        }
        var weaknesses: [String] {
            Weakness.rsa(bits: bits, padding: padding) + (framing == .legacy ? [Weakness.legacyFraming] : [])
        }
    }

    /// Builds both machines for `plan`, runs the conversation and checks every event.
    static func converse(_ context: SessionContext, client: SessionFactory, server: SessionFactory, plan: Plan,
                         delivery: Conversation.Delivery) throws -> CheckOutcome {
        let machines = try makeMachines(context, client: client, server: server, plan: plan)
        let transcript = Conversation.run(client: machines.client, server: machines.server, delivery: delivery)
        try verify(transcript, plan: plan, plaintext: machines.plaintext, client: client.name, server: server.name)
        return .passed
    }

    /// `clientKeyOwner`: whose crypto makes the client's key pair (default: the client's implementation).
    static func makeMachines(_ context: SessionContext, client: SessionFactory, server: SessionFactory, plan: Plan,
                             clientKeyOwner: CryptoPeer? = nil) throws -> (client: SessionMachine, server: SessionMachine, plaintext: Data) {
        let serverKey = try context.keys.key(of: context.cryptoPeer(named: server.name), bits: plan.bits)
        let clientKey = try context.keys.key(of: clientKeyOwner ?? context.cryptoPeer(named: client.name), bits: plan.bits, slot: "client")
        let limit = plan.padding.maxPlaintextLength(modulusBytes: plan.bits / 8)
        let plaintext = context.bytes(min(limit, 48), for: "session-\(plan.label)")
        var serverSpec = RSASocketServerSpec(padding: plan.padding, framing: plan.framing, digest: plan.digest, privateKeyPEM: serverKey.privateKeyPEM)
        serverSpec.rejection = plan.rejection
        let serverMachine = try server.rsaSocketServer(serverSpec)
        let clientMachine = try client.rsaSocketClient(RSASocketClientSpec(direction: plan.direction, padding: plan.padding, framing: plan.framing,
                                                                           digest: plan.digest, privateKeyPEM: clientKey.privateKeyPEM,
                                                                           plaintext: plaintext, keyFormat: plan.keyFormat))
        return (clientMachine, serverMachine, plaintext)
    }

    /// The events a conforming pair produces, and a failure naming what differed otherwise.
    static func verify(_ transcript: Conversation.Transcript, plan: Plan, plaintext: Data, client: String, server: String) throws {
        let expectedClient: [SessionEvent]
        let expectedServer: [SessionEvent]
        switch plan.direction {
        case .phoneToPi:
            let digest = plan.digest ? Digest.sha256.hash(plaintext).hexString : nil
            expectedClient = [.serverOK(digest: digest, verified: plan.digest ? true : nil), .serverStopped]
            expectedServer = [.decrypted(plaintext), .quit]
        case .piToPhone:
            expectedClient = [.decrypted(RSASocket.defaultMessage), .serverStopped]
            expectedServer = [.sentCiphertext, .quit]
        }
        let details = describe(transcript)
        if transcript.exhausted { throw CheckFailure("the conversation never ended (step budget exhausted)", details: details) }
        var differences: [String] = []
        if transcript.clientEvents != expectedClient {
            differences.append("\(client) client: expected \(expectedClient), got \(transcript.clientEvents)")
        }
        if transcript.serverEvents != expectedServer {
            differences.append("\(server) server: expected \(expectedServer), got \(transcript.serverEvents)")
        }
        if !differences.isEmpty { throw CheckFailure(differences.joined(separator: "; "), details: details) }
        guard transcript.clientClosed, transcript.serverClosed else {
            throw CheckFailure("the conversation did not end with both sides closed", details: details)
        }
    }

    static func describe(_ transcript: Conversation.Transcript) -> String {
        "client events: \(transcript.clientEvents)\nserver events: \(transcript.serverEvents)\n"
            + "client → server: \(Expect.preview(transcript.clientSent))\nserver → client: \(Expect.preview(transcript.serverSent))"
    }
}
