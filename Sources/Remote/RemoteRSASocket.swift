import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// Everything about an rsa-socket server that can be observed from outside (docs/PROTOCOL.md).
struct RemoteRSASocket {
    let run: RemoteRun
    var options: RemoteOptions { run.options }
    let profile = "rsa-socket"
    static let paddings: [RSAEncryptionPadding] = [.oaepSHA256, .oaepSHA1, ._WEAK_AND_INSECURE_PKCS_V1_5]
    let keys = ClientKeys()

    init(_ run: RemoteRun) { self.run = run }

    /// Client keys for pi-to-phone, one per size, made once.
    final class ClientKeys: @unchecked Sendable {
        private var keys: [Int: RSAPrivateKey] = [:]
        func key(bits: Int) throws -> RSAPrivateKey {
            if let key = keys[bits] { return key }
            let key = try RSAPrivateKey(bits: bits)
            keys[bits] = key
            return key
        }
    }

    func checkAll() {
        let framing = options.framing
        var serverBits: Int?
        var paddings: [RSASocket.Direction: RSAEncryptionPadding] = [:]
        var offersDigest = false

        run.liveness("liveness.initial", profile: profile, after: "the first connection", first: true) {
            let outcome = try run.converse(client(.phoneToPi, padding: options.padding ?? .oaepSHA256, digest: true))
            guard let bits = serverKeyBits(in: outcome.received) else {
                throw CheckFailure("the server did not answer `Client: OK` with `public_key=` and a usable key",
                                   details: conversationDetails(outcome))
            }
            serverBits = bits
        }

        for direction in options.directions {
            run.step("padding.\(direction.rawValue)", profile: profile) {
                let candidates = options.padding.map { [$0] } ?? Self.paddings
                var tried: [String] = []
                for padding in candidates {
                    let outcome = try run.converse(client(direction, padding: padding, digest: true, keyBits: options.keyBits.first ?? 2048))
                    if succeeded(outcome, direction) {
                        paddings[direction] = padding
                        if case .serverOK(let digest?, _)? = outcome.events.first { offersDigest = digest.count == 64 }
                        return .passed
                    }
                    tried.append("\(padding): \(summary(outcome))")
                }
                throw CheckFailure(options.padding == nil ? "no padding works in \(direction.rawValue) (tried \(candidates.map(\.description).joined(separator: ", ")))"
                                                          : "\(direction.rawValue) with \(candidates[0]) does not complete",
                                   details: tried.joined(separator: "\n"))
            }
        }

        if let bits = serverBits {
            run.finding("rsa-key-size", weak: bits < 2048, "the server's RSA key is \(bits) bits\(bits < 2048 ? "; below 2048 it is within reach of factoring, and the seed's 1024 is deprecated everywhere" : "")")
        }
        for (direction, padding) in paddings.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            run.finding("padding.\(direction.rawValue)", weak: padding.isWeak,
                        padding.isWeak ? "\(direction.rawValue) uses PKCS#1 v1.5 encryption: Bleichenbacher-style padding oracles (ROBOT) apply; use OAEP"
                                       : "\(direction.rawValue) uses \(padding)")
        }
        run.finding("framing", weak: framing == .legacy, framing == .legacy
                    ? "legacy framing: message ends are inferred from content and timing; a length prefix (framed) removes the guesswork"
                    : "length-prefixed framing")

        // Conversations in each direction with the padding found, every client key size and key format.
        if let padding = paddings[.piToPhone] {
            for bits in options.keyBits {
                run.step("conversation.pi-to-phone.client-rsa\(bits)", profile: profile) {
                    try expectConversation(.piToPhone, padding: padding, keyBits: bits)
                }
            }
            for format in ClientKeyFormat.allCases {
                run.step("client-key-format.\(format.rawValue)", profile: profile) {
                    try expectConversation(.piToPhone, padding: padding, keyBits: options.keyBits.first ?? 2048, keyFormat: format)
                }
            }
        }
        if let padding = paddings[.phoneToPi] {
            run.step("conversation.phone-to-pi", profile: profile) { try expectConversation(.phoneToPi, padding: padding) }
            run.step("digest.phone-to-pi", profile: profile) {
                let plaintext = secureRandomBytes(24)
                let outcome = try run.converse(client(.phoneToPi, padding: padding, digest: true, plaintext: plaintext))
                switch outcome.events.first {
                case .serverOK(_, true)?: return .passed
                case .serverOK(nil, nil)?:
                    return .skipped(reason: "passed-unverified: the server acknowledged without the digest extension, so what it decrypted cannot be proven")
                case .serverOK(let digest, false)?:
                    throw CheckFailure("the server's digest does not match the plaintext: it decrypted other bytes", details: "digest: \(digest ?? "")\nplaintext: \(plaintext.hexString)")
                default:
                    throw CheckFailure("no acknowledgement: \(summary(outcome))", details: conversationDetails(outcome))
                }
            }
            if framing == .legacy {
                for (name, probe) in [("crlf", Data([0x0d, 0x0a])), ("lf", Data([0x0a]))] {
                    run.step("binary-safety.ciphertexts-with-\(name)", profile: profile) {
                        for index in 0..<options.binaryProbes {
                            var config = clientConfig(.phoneToPi, padding: padding, digest: true, plaintext: secureRandomBytes(20))
                            config.ciphertextFilter = { $0.firstRange(of: probe) != nil }
                            let outcome = try run.converse(RSASocketClient(config: config))
                            guard case .serverOK(_, let verified)? = outcome.events.first, verified != false else {
                                throw CheckFailure("the server corrupted a ciphertext containing \(name == "crlf" ? "\\r\\n" : "\\n") bytes (conversation \(index + 1)): \(summary(outcome)) — the tutorial server's data.replace(\"\\r\\n\", \"\") does this",
                                                   details: conversationDetails(outcome))
                            }
                        }
                        return offersDigest ? .passed : .skipped(reason: "passed-unverified: every ciphertext was acknowledged, but without the digest extension the plaintexts cannot be proven")
                    }
                }
            }
            checkMalformedInputs(padding: padding, serverKeyBits: serverBits ?? 2048)
            run.step("quit.server-stops-answering", profile: profile) { try checkQuit(padding: padding) }
            run.liveness("liveness.final", profile: profile, after: "the whole run") { _ = try expectConversation(.phoneToPi, padding: padding) }
        }
    }

    // MARK: malformed input, each class followed by a known-good conversation

    func checkMalformedInputs(padding: RSAEncryptionPadding, serverKeyBits: Int) {
        let framing = options.framing
        let error = framing.encode(Data(RSASocket.error.utf8))
        let hello = framing.encode(Data(RSASocket.hello.utf8))
        let k = serverKeyBits / 8
        let classes: [(String, [Data], Bool)] = [
            ("garbage", [framing.encode(Data("GET / HTTP/1.1\r\n\r\n".utf8))], true),
            ("half-a-message", [Data("Client: O".utf8)], true),
            ("short-ciphertext", [hello, framing.encode(Data(RSASocket.encryptedPrefix.utf8) + Data(count: max(1, k - 1)))], true),
            ("undecryptable-ciphertext", [hello, framing.encode(Data(RSASocket.encryptedPrefix.utf8) + Data(repeating: 0xff, count: k))], true),
            ("message-over-the-limit", [framing == .framed ? Data([0, 1, 0, 1]) + Data(count: 64)
                                                            : Data("public_key=-----BEGIN PUBLIC KEY-----\n".utf8) + Data(repeating: 0x41, count: 70_000)], false),
        ]
        for (name, chunks, exact) in classes {
            run.step("refuses.\(name)", profile: profile) {
                let (answer, closed) = try run.exchangeRaw(chunks, listen: options.timeout)
                let keyFree = stripServerKey(answer)
                if exact {
                    guard keyFree == error else {
                        throw CheckFailure("the server answered \(name) with something other than exactly \"Server: ERROR\"",
                                           details: "answer: \(Expect.preview(answer))")
                    }
                } else if !keyFree.isEmpty && keyFree != error {
                    throw CheckFailure("the server answered \(name) with something other than \"Server: ERROR\" or a close",
                                       details: "answer: \(Expect.preview(answer))")
                }
                guard closed else { throw CheckFailure("the server did not close after refusing \(name)") }
                return .passed
            }
            run.liveness("liveness.after-\(name)", profile: profile, after: name) { _ = try expectConversation(.phoneToPi, padding: padding) }
        }
    }

    /// After `Server stopped`, the server must close and answer nothing more.
    func checkQuit(padding: RSAEncryptionPadding) throws -> CheckOutcome {
        let connection = try TCPConnection.connect(host: run.address, port: run.target.port, timeout: options.timeout)
        defer { connection.close() }
        let machine = client(.phoneToPi, padding: padding, digest: true)  // waits for a digest if one comes, accepts none after a quiet gap
        var received = Data()
        func apply(_ actions: [SessionAction]) throws {
            for case let .send(bytes) in actions { try connection.write(bytes, timeout: options.timeout) }
        }
        try apply(machine.start())
        while !machine.closed {
            let data: Data
            do { data = try connection.read(upTo: 65536, timeout: options.quietGap) } catch TransportError.timedOut {
                try apply(machine.idle()); continue
            }
            if data.isEmpty { break }
            received += data
            try apply(machine.receive(data))
        }
        guard received.range(of: Data(RSASocket.stopped.utf8)) != nil else {
            throw CheckFailure("no `Server stopped` after `Quit`", details: "received: \(Expect.preview(received))")
        }
        do { try connection.write(options.framing.encode(Data(RSASocket.hello.utf8)), timeout: options.timeout) } catch { return .passed }
        var after = Data()
        while true {
            do {
                let data = try connection.read(upTo: 65536, timeout: options.timeout)
                if data.isEmpty { return .passed }
                after += data
            } catch TransportError.timedOut {
                return after.isEmpty ? .passed : .failed(message: "the server keeps answering after Quit", details: Expect.preview(after))
            } catch { return .passed }
            if !after.isEmpty { throw CheckFailure("the server keeps answering after Quit", details: Expect.preview(after)) }
        }
    }

    // MARK: helpers

    func clientConfig(_ direction: RSASocket.Direction, padding: RSAEncryptionPadding, digest: Bool, keyBits: Int = 2048,
                      plaintext: Data = Data("crosscheck remote probe".utf8), keyFormat: ClientKeyFormat = .spkiPEM) -> RSASocketClientConfig {
        RSASocketClientConfig(direction: direction, padding: padding, framing: options.framing, digest: digest,
                              privateKey: direction == .piToPhone ? try? keys.key(bits: keyBits) : nil,
                              plaintext: plaintext, keyFormat: keyFormat)
    }

    func client(_ direction: RSASocket.Direction, padding: RSAEncryptionPadding, digest: Bool, keyBits: Int = 2048,
                plaintext: Data = Data("crosscheck remote probe".utf8), keyFormat: ClientKeyFormat = .spkiPEM) -> RSASocketClient {
        RSASocketClient(config: clientConfig(direction, padding: padding, digest: digest, keyBits: keyBits, plaintext: plaintext, keyFormat: keyFormat))
    }

    func succeeded(_ outcome: SocketDriver.Transcript, _ direction: RSASocket.Direction) -> Bool {
        switch (direction, outcome.events.first) {
        case (.phoneToPi, .serverOK(_, let verified)?): return verified != false
        case (.piToPhone, .decrypted?): return true
        default: return false
        }
    }

    func expectConversation(_ direction: RSASocket.Direction, padding: RSAEncryptionPadding, keyBits: Int = 2048,
                            keyFormat: ClientKeyFormat = .spkiPEM) throws -> CheckOutcome {
        let outcome = try run.converse(client(direction, padding: padding, digest: true, keyBits: keyBits, keyFormat: keyFormat))
        guard succeeded(outcome, direction), outcome.events.last == .serverStopped else {
            throw CheckFailure("\(direction.rawValue) with \(padding) did not complete: \(summary(outcome))", details: conversationDetails(outcome))
        }
        return .passed
    }

    func summary(_ outcome: SocketDriver.Transcript) -> String {
        (outcome.events.isEmpty ? "no events" : outcome.events.map(\.description).joined(separator: ", "))
            + (outcome.transportError.map { " (\($0))" } ?? "")
    }

    func conversationDetails(_ outcome: SocketDriver.Transcript) -> String {
        "events: \(outcome.events)\nsent: \(Expect.preview(outcome.sent))\nreceived: \(Expect.preview(outcome.received))"
            + (outcome.transportError.map { "\ntransport: \($0)" } ?? "")
    }

    /// The bits of the key in a `public_key=` answer, if there is one.
    func serverKeyBits(in received: Data) -> Int? {
        let text = String(decoding: received, as: UTF8.self)
        guard let begin = text.range(of: "-----BEGIN "), let end = text.range(of: "-----END ", range: begin.upperBound..<text.endIndex),
              let close = text.range(of: "-----", range: end.upperBound..<text.endIndex) else { return nil }
        return (try? RSAPublicKey(importing: Data(text[begin.lowerBound..<close.upperBound].utf8)))?.bits
    }

    /// The answer without a leading server-key message (a refusal may come after it).
    func stripServerKey(_ answer: Data) -> Data {
        guard let end = answer.range(of: Data("-----END PUBLIC KEY-----\n".utf8)) else { return answer }
        return Data(answer[end.upperBound...])
    }
}
