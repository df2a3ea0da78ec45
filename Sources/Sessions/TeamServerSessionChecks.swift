import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// The sessions suite's conversations with the team's server: the Swift reference client and the
/// seed app's client (docs/PROTOCOL.md "Client profiles"), over socket pairs (rsa-socket) or
/// through the WSGI application (aes-https). Testcases: `crosscheck.<profile>.<client>_client.team_server.<server>`.
enum TeamServerSessionChecks {
    typealias Seat = TeamServerSeat<any InProcessServer>

    static func checks(_ context: SessionContext, seat: Seat) -> [Check] {
        switch seat.profile {
        case .rsaSocket: return rsaSocketChecks(context, seat: seat)
        case .aesHTTPS: return aesHTTPSChecks(context, seat: seat)
        }
    }

    static func list(_ client: String, _ seat: Seat) -> CheckList {
        let relation = seat.relation(client: client)
        return CheckList(suite: "sessions.\(relation)", profile: seat.profile.rawValue, relation: relation)
    }

    // MARK: rsa-socket

    static func rsaSocketChecks(_ context: SessionContext, seat: Seat) -> [Check] {
        guard let swift = context.sessions.first else { return [] }
        var reference = list(swift.name, seat)
        if let padding = seat.paddings[.phoneToPi] {
            let plan = RSASocketSessionChecks.Plan(direction: .phoneToPi, framing: seat.framing, padding: padding, bits: 2048, digest: seat.digest)
            reference.add("inprocess.\(plan.label)", weaknesses: plan.weaknesses) {
                seat.judged { try converse(context, client: swift, seat: seat, plan: plan) }
            }
            // TCP may split any message anywhere: each piece reaches the server as a read of its own.
            for pieces in [1, 5] {
                reference.add("inprocess.\(plan.label).\(Conversation.Delivery.chunks(pieces))", weaknesses: plan.weaknesses) {
                    seat.judged { try converse(context, client: swift, seat: seat, plan: plan, splitInto: pieces) }
                }
            }
            // An app built with the other OAEP hash (iOS names both alike): the server cannot decrypt,
            // so it must say `Server: ERROR`, or the app never learns its message was lost. (A PKCS#1
            // v1.5 server may acknowledge instead: implicit rejection, docs/PROTOCOL.md.)
            let wrong: RSAEncryptionPadding = padding == .oaepSHA256 ? .oaepSHA1 : .oaepSHA256
            let mismatched = RSASocketSessionChecks.Plan(direction: .phoneToPi, framing: seat.framing, padding: wrong, bits: 2048, digest: seat.digest)
            reference.add("inprocess.\(mismatched.label).server-uses-\(padding).gets-error", weaknesses: mismatched.weaknesses) {
                seat.judged {
                    guard padding.oaepParameters != nil else {
                        return .skipped(reason: "not applicable: the server's \(padding) may reject implicitly, acknowledging what it cannot decrypt")
                    }
                    return try converseExpectingError(context, client: swift, seat: seat, plan: mismatched, serverPadding: padding)
                }
            }
            // About one ciphertext in 250 holds CR LF: an app meets it within days. (Swift's own
            // machine: it draws encryptions until one does.)
            if seat.framing == .legacy {
                reference.add("inprocess.\(plan.label).ciphertext-with-crlf", weaknesses: plan.weaknesses) {
                    seat.judged {
                        try converse(context, client: swift, seat: seat, plan: plan, ciphertextFilter: { $0.range(of: Data("\r\n".utf8)) != nil })
                    }
                }
            }
        }
        if let padding = seat.paddings[.piToPhone] {
            for bits in [1024, 2048] {
                let plan = RSASocketSessionChecks.Plan(direction: .piToPhone, framing: seat.framing, padding: padding, bits: bits)
                reference.add("inprocess.\(plan.label)", weaknesses: plan.weaknesses) {
                    seat.judged { try converse(context, client: swift, seat: seat, plan: plan) }
                }
            }
            for pieces in [1, 5] {
                let plan = RSASocketSessionChecks.Plan(direction: .piToPhone, framing: seat.framing, padding: padding, bits: 2048)
                reference.add("inprocess.\(plan.label).\(Conversation.Delivery.chunks(pieces))", weaknesses: plan.weaknesses) {
                    seat.judged { try converse(context, client: swift, seat: seat, plan: plan, splitInto: pieces) }
                }
            }
            for format in ClientKeyFormat.allCases where format != .spkiPEM {
                let plan = RSASocketSessionChecks.Plan(direction: .piToPhone, framing: seat.framing, padding: padding, bits: 2048, keyFormat: format)
                reference.add("inprocess.\(plan.label)", weaknesses: plan.weaknesses) {
                    seat.judged { try converse(context, client: swift, seat: seat, plan: plan) }
                }
            }
        }
        // The seed app as it ships: 1024-bit key, PKCS#1 v1.5, legacy framing, whatever the server
        // chose (a server that cannot serve it fails here, naming why).
        var seedApp = list(SeedAppSessions().name, seat)
        let plan = SeedAppSessionChecks.plan(bits: SeedAppSessionChecks.appKeyBits)
        seedApp.add("inprocess.\(plan.label)", weaknesses: plan.weaknesses) {
            seat.judged {
                guard seat.framing == .legacy else {
                    return .skipped(reason: "not applicable: the seed app speaks only legacy framing (the server is checked as --framing framed)")
                }
                return try converse(context, client: SeedAppSessions(), seat: seat, plan: plan)
            }
        }
        return reference.checks + seedApp.checks
    }

    /// One conversation of `client` (its machine, as in the rest of the suite) with the team's server.
    /// `ciphertextFilter`: the Swift reference client's machine sends only a ciphertext it accepts.
    static func converse(_ context: SessionContext, client: SessionFactory, seat: Seat, plan: RSASocketSessionChecks.Plan,
                         ciphertextFilter: (@Sendable (Data) -> Bool)? = nil, splitInto pieces: Int? = nil) throws -> CheckOutcome {
        let clientKey = try context.keys.key(of: context.run.swift, bits: plan.bits, slot: "client")
        let plaintext = context.bytes(48, for: "team-server-session-\(plan.label)")
        let spec = RSASocketClientSpec(direction: plan.direction, padding: plan.padding, framing: plan.framing, digest: plan.digest,
                                       privateKeyPEM: clientKey.privateKeyPEM, plaintext: plaintext, keyFormat: plan.keyFormat)
        let machine: SessionMachine
        if let ciphertextFilter {
            var config = RSASocketClientConfig(direction: spec.direction, padding: spec.padding, framing: spec.framing, maxMessage: spec.maxMessage,
                                               digest: spec.digest, privateKey: try RSAPrivateKey(importing: clientKey.privateKeyPEM),
                                               plaintext: spec.plaintext, keyFormat: spec.keyFormat)
            config.ciphertextFilter = ciphertextFilter
            machine = RSASocketClient(config: config)
        } else {
            machine = try client.rsaSocketClient(spec)
        }
        let timeout = context.options.timeout
        let transcript = SocketDriver.drive(machine, over: try seat.server.connect(timeout: timeout), quietGap: context.options.quietGap,
                                            timeout: timeout, deadline: timeout * 3, splitInto: pieces)
        let expected: [SessionEvent]
        switch plan.direction {
        case .phoneToPi:
            let digest = plan.digest ? Digest.sha256.hash(plaintext).hexString : nil
            expected = [.serverOK(digest: digest, verified: plan.digest ? true : nil), .serverStopped]
        case .piToPhone:
            expected = [.decrypted(seat.message ?? RSASocket.defaultMessage), .serverStopped]
        }
        guard transcript.events == expected else {
            let crlf = (ciphertextFilter == nil ? "" : "; its ciphertext held \\r\\n: a server that strips line ends, or reads a line, corrupts it")
                + (pieces.map { "; every message went in \($0)-byte pieces, each read by the server before the next: a server that takes one read for a whole message fails here" } ?? "")
            throw CheckFailure("\(client.name) client with \(seat.name): expected \(expected), got \(transcript.events)"
                               + (transcript.transportError.map { " (\($0))" } ?? "") + crlf,
                               details: "client → server: \(Expect.preview(transcript.sent))\nserver → client: \(Expect.preview(transcript.received))")
        }
        return .passed
    }

    /// A ciphertext the server cannot decrypt: its first answer must be `Server: ERROR`.
    static func converseExpectingError(_ context: SessionContext, client: SessionFactory, seat: Seat, plan: RSASocketSessionChecks.Plan,
                                       serverPadding: RSAEncryptionPadding) throws -> CheckOutcome {
        let clientKey = try context.keys.key(of: context.run.swift, bits: plan.bits, slot: "client")
        let machine = try client.rsaSocketClient(RSASocketClientSpec(direction: plan.direction, padding: plan.padding, framing: plan.framing,
                                                                     digest: plan.digest, privateKeyPEM: clientKey.privateKeyPEM,
                                                                     plaintext: context.bytes(48, for: "team-server-session-\(plan.label)")))
        let timeout = context.options.timeout
        let transcript = SocketDriver.drive(machine, over: try seat.server.connect(timeout: timeout), quietGap: context.options.quietGap,
                                            timeout: timeout, deadline: timeout * 3)
        guard transcript.events.first == .serverError else {
            let okToAnything = if case .serverOK? = transcript.events.first { true } else { false }
            throw CheckFailure(okToAnything
                               ? "\(seat.name) acknowledged (Server: OK) a \(plan.padding) ciphertext its \(serverPadding) cannot decrypt: it says OK to anything, so an app never learns its message was lost"
                               : "\(seat.name) did not answer Server: ERROR to a \(plan.padding) ciphertext its \(serverPadding) cannot decrypt: got \(transcript.events)"
                               + (transcript.transportError.map { " (\($0))" } ?? ""),
                               details: "client → server: \(Expect.preview(transcript.sent))\nserver → client: \(Expect.preview(transcript.received))")
        }
        return .passed
    }

    // MARK: aes-https

    static func aesHTTPSChecks(_ context: SessionContext, seat: Seat) -> [Check] {
        guard let mode = seat.keyMode else { return [] }
        let clients: [any AESHTTPSClientRole] = [SwiftAESHTTPS(), SeedAppAESHTTPS()]
        return clients.flatMap { client in
            var checks = list(client.name, seat)
            checks.add("inprocess.login-and-echo.\(mode.rawValue)", weaknesses: Weakness.aesHTTPS(keyMode: mode)) {
                seat.judged {
                    try AESHTTPSSessionChecks.loginAndEcho(client: client, serverName: seat.name, mode: mode,
                                                           username: seat.username, password: seat.password) { try send($0, context, seat) }
                    return .passed
                }
            }
            if client is SwiftAESHTTPS {
                // An app sends many requests in a session: each answer needs an IV of its own.
                checks.add("inprocess.login-and-two-echoes.fresh-response-ivs", weaknesses: Weakness.aesHTTPS(keyMode: mode)) {
                    seat.judged { try twoEchoes(context, client: client, seat: seat, mode: mode) }
                }
            }
            return checks.checks
        }
    }

    static func send(_ request: WebRequest, _ context: SessionContext, _ seat: Seat) throws -> WebResponse {
        try seat.server.exchange(request, timeout: context.options.timeout)
    }

    /// One login, the same request twice: both answers decrypt, under different IVs.
    static func twoEchoes(_ context: SessionContext, client: any AESHTTPSClientRole, seat: Seat,
                          mode: KeyDerivationMode) throws -> CheckOutcome {
        let login = try send(try client.loginRequest(username: seat.username, password: seat.password), context, seat)
        let (token, key) = try Expect.succeedsAny(client.name, "read \(seat.name)'s login answer") { try client.parseLogin(login, mode: mode) }
        var ivs: [Data] = []
        for _ in 0..<2 {
            let answer = try send(try client.secureRequest(params: AESHTTPSSessionChecks.params, token: token, key: key), context, seat)
            _ = try Expect.succeedsAny(client.name, "read \(seat.name)'s /secure-data answer") { try client.parseSecure(answer, key: key) }
            ivs.append(try CBCEnvelope(json: answer.body).iv)
        }
        guard ivs[0] != ivs[1] else {
            throw CheckFailure("\(seat.name) answered two requests under the same IV \(ivs[0].hexString) (a static IV: equal answers encrypt alike, and CBC leaks their common prefix)")
        }
        return .passed
    }
}
