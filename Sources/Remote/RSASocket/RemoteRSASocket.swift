import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// Everything about an rsa-socket server that can be observed from outside (docs/PROTOCOL.md):
/// the conversations in both directions, the padding and digest, binary safety of legacy framing,
/// the padding-oracle audit (RSAOracleAudit), malformed input (RSARefusals) and `Quit`.
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

    /// What the run has learnt about the server so far.
    struct ServerFacts {
        var bits: Int?
        var paddings: [RSASocket.Direction: RSAEncryptionPadding] = [:]
        /// It answered `Server: OK sha256=…` (right or wrong).
        var offersDigest = false
        /// Its digest matched the plaintext: later steps may rely on it as proof.
        var digestTrusted = false
        /// Paddings it acknowledged besides its own, without a digest to tell them apart: it does not
        /// refuse what it cannot decrypt (implicit rejection, or a server that says OK to anything).
        var acknowledgesOtherPaddings: [RSAEncryptionPadding] = []
        /// The message its pi-to-phone ciphertexts decrypt to (the same every time).
        var message: Data?
    }

    func checkAll() {
        var facts = ServerFacts()
        discover(&facts)
        recordFindings(facts)
        checkWithFacts(facts)
    }

    /// The first conversation and the padding of each direction: what every later step (and the
    /// sessions suite with a team's server, `RemoteRun.discover`) builds on.
    func discover(_ facts: inout ServerFacts) {
        run.liveness("liveness.initial", profile: profile, after: "the first connection", first: true) {
            let outcome = try run.converse(client(.phoneToPi, padding: options.padding ?? .oaepSHA256, digest: true))
            guard let bits = serverKeyBits(in: outcome.received) else {
                throw CheckFailure("the server did not answer `Client: OK` with `public_key=` and a usable key: \(summary(outcome, .phoneToPi))",
                                   details: conversationDetails(outcome))
            }
            facts.bits = bits
        }

        // Pi-to-phone first: the padding of the server's own ciphertexts is proven by decrypting
        // them, and it settles phone-to-pi where acknowledgements alone cannot (see discoverPadding).
        for direction in options.directions.sorted(by: { $0 == .piToPhone && $1 != .piToPhone }) {
            run.step("padding.\(direction.rawValue)", profile: profile) { try discoverPadding(direction, facts: &facts) }
        }
    }

    func checkWithFacts(_ facts: ServerFacts) {
        var facts = facts
        if let padding = facts.paddings[.piToPhone] {
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
        guard let padding = facts.paddings[.phoneToPi] else { return }
        run.step("digest.phone-to-pi", profile: profile) { try checkDigest(padding: padding, facts: &facts) }
        run.step("conversation.phone-to-pi", profile: profile) {
            try expectConversation(.phoneToPi, padding: padding, digest: facts.offersDigest, trustDigest: facts.digestTrusted)
        }
        if options.framing == .legacy {
            for probe in BinaryProbe.allCases {
                run.step("binary-safety.\(probe.rawValue)", profile: profile) { try checkBinarySafety(probe, padding: padding, facts: facts) }
            }
        }
        RSAOracleAudit(self, padding: padding, offersDigest: facts.offersDigest).check()
        run.liveness("liveness.after-padding-oracle-audit", profile: profile, after: "the padding-oracle probes") {
            try aliveConversation(padding: padding, facts: facts)
        }
        checkMalformedInputs(padding: padding, facts: facts)
        run.step("quit.server-stops-answering", profile: profile) { try checkQuit(padding: padding, facts: facts) }
        run.liveness("liveness.final", profile: profile, after: "the whole run") { try aliveConversation(padding: padding, facts: facts) }
    }

    // MARK: padding and digest

    /// Tries each padding (a whole conversation each, since ciphertexts are randomized).
    /// Phone-to-pi, a verified digest settles it at once. An unproven `Server: OK` does not: a
    /// PKCS#1 v1.5 server with implicit rejection (OpenSSL ≥ 3.2) acknowledges a ciphertext of any
    /// padding, with a synthetic plaintext. So every padding is tried, and when several are
    /// acknowledged alike the server is taken to use the padding of its own pi-to-phone
    /// ciphertexts, or else PKCS#1 v1.5 — the one padding whose rejection can be implicit — and the
    /// oracle audit and the refusals then check that reading.
    func discoverPadding(_ direction: RSASocket.Direction, facts: inout ServerFacts) throws -> CheckOutcome {
        let candidates = options.padding.map { [$0] } ?? Self.paddings
        var tried: [(RSAEncryptionPadding, SocketDriver.Transcript)] = []
        /// Acknowledged (and confirmed) without a digest that proves it, or with a wrong one.
        var unproven: [(padding: RSAEncryptionPadding, digest: Bool, verified: Bool?)] = []
        for padding in candidates {
            let outcome = try run.converse(client(direction, padding: padding, digest: true, keyBits: options.keyBits.first ?? 2048))
            // A wrong digest still shows the server decrypted: the digest step reports it.
            if case .serverOK(let digest, let verified)? = outcome.events.first, direction == .phoneToPi {
                if verified == true {
                    facts.paddings[direction] = padding
                    facts.offersDigest = true
                    return .passed
                }
                // Without a verified digest one `Server: OK` proves little: a PKCS#1 server decodes an
                // OAEP block as PKCS#1 about once in 256 tries. Two more must succeed too.
                if try confirms(direction, padding: padding, plaintext: nil) {
                    unproven.append((padding, digest != nil, verified))
                } else {
                    tried.append((padding, outcome))
                }
                continue
            }
            if direction == .piToPhone, case let .decrypted(plaintext)? = outcome.events.first {
                // A wrong padding that happens to decode gives random bytes: the server's message must repeat.
                guard try confirms(direction, padding: padding, plaintext: plaintext) else {
                    tried.append((padding, outcome))
                    continue
                }
                facts.paddings[direction] = padding
                facts.message = plaintext
                return .passed
            }
            tried.append((padding, outcome))
        }
        let ownPadding = facts.paddings[.piToPhone]
        if let chosen = unproven.first(where: { unproven.count > 1 && $0.padding == ownPadding })
            ?? unproven.first(where: { unproven.count > 1 && $0.padding.oaepParameters == nil }) ?? unproven.first {
            facts.paddings[direction] = chosen.padding
            facts.offersDigest = chosen.digest
            if unproven.count > 1 { facts.acknowledgesOtherPaddings = unproven.map(\.padding).filter { $0 != chosen.padding } }
            return .passed
        }
        let details = tried.map { "\($0.0): \(summary($0.1, direction))\n\(conversationDetails($0.1))" }.joined(separator: "\n\n")
        let summaries = Set(tried.map { summary($0.1, direction) })
        if summaries.count == 1, let only = summaries.first, tried.allSatisfy({ $0.1.events.isEmpty }) {
            // Every attempt ended the same way before any answer: the padding is not the cause.
            throw CheckFailure("\(direction.rawValue) never completes: \(only) (with \(candidates.count == 1 ? "\(candidates[0])" : "every padding tried"))",
                               details: details)
        }
        // Issue 33: in pi-to-phone the client sends only its key, so `Server: ERROR` to every attempt is the
        // server's own refusal or failure before it encrypted anything, not a padding mismatch: its log has the cause.
        let log = options.inProcess != nil ? "the server's log (--server-log, default reports/server.log)" : "the server's log on the Pi"
        if direction == .piToPhone, !tried.isEmpty, tried.allSatisfy({ $0.1.events.first == .serverError }) {
            throw CheckFailure("pi-to-phone: the server answered Server: ERROR to the client's public key with every padding tried "
                               + "(\(candidates.map(\.description).joined(separator: ", "))), before encrypting anything: its own code refused the key or failed — \(log) says why",
                               details: details)
        }
        throw CheckFailure(options.padding == nil
                           ? "no padding works in \(direction.rawValue) (tried \(candidates.map(\.description).joined(separator: ", "))): \(summary(tried[0].1, direction))"
                           : "\(direction.rawValue) with \(candidates[0]) does not complete: \(summary(tried[0].1, direction))",
                           details: details)
    }

    /// Two more conversations with `padding` succeed: phone-to-pi acknowledged, pi-to-phone decrypting
    /// to the same `plaintext` (the server sends one message).
    func confirms(_ direction: RSASocket.Direction, padding: RSAEncryptionPadding, plaintext: Data?) throws -> Bool {
        for _ in 0..<2 {
            let outcome = try run.converse(client(direction, padding: padding, digest: true, keyBits: options.keyBits.first ?? 2048))
            switch outcome.events.first {
            case .serverOK? where direction == .phoneToPi: continue
            case let .decrypted(again)? where direction == .piToPhone && again == plaintext: continue
            default: return false
            }
        }
        return true
    }

    func recordFindings(_ facts: ServerFacts) {
        if let bits = facts.bits {
            run.finding("rsa-key-size", weak: bits < 2048, "the server's RSA key is \(bits) bits\(bits < 2048 ? "; below 2048 it is within reach of factoring, and the seed's 1024 is deprecated everywhere" : "")")
        }
        for (direction, padding) in facts.paddings.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let others = direction == .phoneToPi && !facts.acknowledgesOtherPaddings.isEmpty
                ? " (it also acknowledged \(facts.acknowledgesOtherPaddings.map(\.description).joined(separator: " and ")) ciphertexts without a digest to tell them apart: implicit rejection, or acknowledging what it cannot decrypt — the oracle audit and the refusals tell which)"
                : ""
            run.finding("padding.\(direction.rawValue)", weak: padding.isWeak, padding.isWeak
                        ? "\(direction.rawValue) uses PKCS#1 v1.5 encryption\(others): Bleichenbacher-style padding oracles (ROBOT) apply — even the protocol's own `Server: OK` tells an attacker which ciphertexts are PKCS#1-conforming unless the server rejects implicitly; use OAEP"
                        : "\(direction.rawValue) uses \(padding)\(others)")
        }
        run.finding("framing", weak: options.framing == .legacy, options.framing == .legacy
                    ? "legacy framing: message ends are inferred from content and timing; a length prefix (framed) removes the guesswork"
                    : "length-prefixed framing")
    }

    /// The `digest` extension proves what the server decrypted; a wrong digest is its own finding.
    func checkDigest(padding: RSAEncryptionPadding, facts: inout ServerFacts) throws -> CheckOutcome {
        let plaintext = textPlaintext("digest.phone-to-pi")
        let outcome = try run.converse(client(.phoneToPi, padding: padding, digest: true, plaintext: plaintext))
        switch outcome.events.first {
        case .serverOK(_, true)?:
            facts.digestTrusted = true
            return .passed
        case .serverOK(nil, nil)?:
            return .skipped(reason: "passed-unverified: the server acknowledged without the digest extension, so what it decrypted cannot be proven")
        case .serverOK(let digest, false)?:
            throw CheckFailure("the server's digest does not match the plaintext: it hashed other bytes than it was sent, so its `Server: OK sha256=` proves nothing",
                               details: "digest:    \(digest ?? "")\nexpected:  \(Digest.sha256.hash(plaintext).hexString)\nplaintext: \(plaintext.hexString)")
        default:
            throw CheckFailure("no acknowledgement: \(summary(outcome, .phoneToPi))", details: conversationDetails(outcome))
        }
    }

    // MARK: binary safety of legacy framing

    /// Ciphertexts chosen to hold the bytes a careless legacy reader damages.
    enum BinaryProbe: String, CaseIterable {
        /// `data.replace("\r\n", "")`, the tutorial server's.
        case crlf = "ciphertexts-with-crlf"
        /// A reader that strips or splits at `\n`.
        case lf = "ciphertexts-with-lf"
        /// `recv(1024).strip()`: a last byte that is ASCII whitespace is lost.
        case trailingWhitespace = "ciphertexts-ending-in-whitespace"

        var bytesName: String {
            switch self {
            case .crlf: return "\\r\\n bytes"
            case .lf: return "\\n bytes"
            case .trailingWhitespace: return "a last byte that is ASCII whitespace"
            }
        }

        var culprit: String {
            switch self {
            case .crlf: return "the tutorial server's data.replace(\"\\r\\n\", \"\") does this"
            case .lf: return "a reader that splits or strips at \\n does this"
            case .trailingWhitespace: return "recv(…).strip() does this"
            }
        }

        /// Each probe's ciphertexts hold its own hazard and none of the others', so that a
        /// failure names the damage that was done.
        func matches(_ ciphertext: Data) -> Bool {
            let hazards = LineEndHazards(ciphertext)
            switch self {
            case .crlf: return hazards.crlf && !hazards.endsInWhitespace
            case .lf: return hazards.lf && !hazards.crlf && !hazards.endsInWhitespace
            case .trailingWhitespace: return hazards.endsInWhitespace && !hazards.lf && !hazards.cr
            }
        }
    }

    func checkBinarySafety(_ probe: BinaryProbe, padding: RSAEncryptionPadding, facts: ServerFacts) throws -> CheckOutcome {
        for index in 0..<options.binaryProbes {
            var config = clientConfig(.phoneToPi, padding: padding, digest: facts.offersDigest,
                                      plaintext: textPlaintext("binary-safety.\(probe.rawValue).\(index)"))
            config.ciphertextFilter = { probe.matches($0) }
            let outcome = try run.converse(RSASocketClient(config: config))
            // A digest known to be wrong (the digest step's finding) proves nothing either way.
            guard case .serverOK(_, let verified)? = outcome.events.first, verified != false || !facts.digestTrusted else {
                throw CheckFailure("the server corrupted a ciphertext containing \(probe.bytesName) (conversation \(index + 1)): \(summary(outcome, .phoneToPi)) — \(probe.culprit)",
                                   details: conversationDetails(outcome))
            }
        }
        return facts.digestTrusted ? .passed
            : .skipped(reason: "passed-unverified: every ciphertext was acknowledged, but without a trustworthy digest the plaintexts cannot be proven")
    }

    // MARK: Quit

    /// After `Server stopped`, the server must close and answer nothing more.
    func checkQuit(padding: RSAEncryptionPadding, facts: ServerFacts) throws -> CheckOutcome {
        let probe = try ProbeConnection(run)
        defer { probe.close() }
        let key = try probe.requestServerKey()
        let plaintext = textPlaintext("quit.server-stops-answering")
        // A line-end-free ciphertext if one comes in 10,000 draws (it does: each draw has ~13% odds or better).
        let ciphertext = try sendableCiphertext(framing: options.framing, { try key.encrypt(plaintext, padding: padding) })
            ?? key.encrypt(plaintext, padding: padding)
        probe.send(Data(RSASocket.encryptedPrefix.utf8) + ciphertext)
        let acknowledgement = probe.readAnswer(isWhole: { isWholeAcknowledgement(probe.messages($0), digest: facts.offersDigest) })
        // (`Server stopped` is read to the close, or a quiet gap, below: nothing may follow it.)
        guard let first = probe.messages(acknowledgement.bytes).first, first.starts(with: Data(RSASocket.ok.utf8)) else {
            throw CheckFailure("no `Server: OK` before `Quit`: the server answered \(probe.describe(acknowledgement.bytes))\(endPhrase(acknowledgement.end))")
        }
        probe.send(Data(RSASocket.quit.utf8))
        let stopped = probe.readAnswer()
        let stoppedMessage = probe.messages(stopped.bytes).first.map { Data($0.prefix { $0 != 0x0a }) }
        guard stoppedMessage == Data(RSASocket.stopped.utf8) else {
            throw CheckFailure("no `Server stopped` after `Quit`: the server answered \(probe.describe(stopped.bytes))\(endPhrase(stopped.end))")
        }
        if stopped.end == .closed { return .passed }
        switch probe.afterwardsHello() {
        case .closed: return .passed
        case .readOn(let bytes):
            throw CheckFailure("the server keeps answering after Quit: after `Server stopped` it read a further `Client: OK` and answered \(probe.describe(bytes))")
        case .open:
            throw CheckFailure("the server did not close after `Server stopped`: the connection was still open \(seconds(options.timeout)) later")
        }
    }

    // MARK: conversations

    func clientConfig(_ direction: RSASocket.Direction, padding: RSAEncryptionPadding, digest: Bool, keyBits: Int = 2048,
                      plaintext: Data = Data("crosscheck remote probe".utf8), keyFormat: ClientKeyFormat = .spkiPEM) -> RSASocketClientConfig {
        var config = RSASocketClientConfig(direction: direction, padding: padding, framing: options.framing, digest: digest,
                                           privateKey: direction == .piToPhone ? try? keys.key(bits: keyBits) : nil,
                                           plaintext: plaintext, keyFormat: keyFormat)
        // In legacy framing every conversation but the binary-safety probes sends a ciphertext
        // free of line-end bytes and trailing whitespace: what they test must not depend on
        // binary safety, which is tested on its own (and a corrupting server fails there, once).
        if options.framing == .legacy { config.ciphertextFilter = { isBinaryBenign($0) } }
        return config
    }

    func client(_ direction: RSASocket.Direction, padding: RSAEncryptionPadding, digest: Bool, keyBits: Int = 2048,
                plaintext: Data = Data("crosscheck remote probe".utf8), keyFormat: ClientKeyFormat = .spkiPEM) -> RSASocketClient {
        RSASocketClient(config: clientConfig(direction, padding: padding, digest: digest, keyBits: keyBits, plaintext: plaintext, keyFormat: keyFormat))
    }

    func succeeded(_ outcome: SocketDriver.Transcript, _ direction: RSASocket.Direction, trustDigest: Bool = true) -> Bool {
        switch (direction, outcome.events.first) {
        case (.phoneToPi, .serverOK(_, let verified)?): return verified != false || !trustDigest
        case (.piToPhone, .decrypted?): return true
        default: return false
        }
    }

    /// A whole conversation, `Server stopped` included. `digest`: read (and check) the proof;
    /// `trustDigest` false: a digest already reported wrong does not fail this conversation too.
    @discardableResult
    func expectConversation(_ direction: RSASocket.Direction, padding: RSAEncryptionPadding, keyBits: Int = 2048,
                            keyFormat: ClientKeyFormat = .spkiPEM, digest: Bool = true, trustDigest: Bool = true) throws -> CheckOutcome {
        let outcome = try run.converse(client(direction, padding: padding, digest: digest, keyBits: keyBits, keyFormat: keyFormat))
        guard succeeded(outcome, direction, trustDigest: trustDigest), outcome.events.last == .serverStopped else {
            throw CheckFailure("\(direction.rawValue) with \(padding) did not complete: \(summary(outcome, direction))", details: conversationDetails(outcome))
        }
        return .passed
    }

    /// Liveness: the server still answers a known-good ciphertext (what follows `Quit` is the quit step's business).
    func aliveConversation(padding: RSAEncryptionPadding, facts: ServerFacts) throws {
        let outcome = try run.converse(client(.phoneToPi, padding: padding, digest: facts.offersDigest,
                                              plaintext: textPlaintext("liveness")))
        guard case .serverOK? = outcome.events.first else {
            throw CheckFailure("a known-good phone-to-pi conversation failed: \(summary(outcome, .phoneToPi))", details: conversationDetails(outcome))
        }
    }

    /// How a conversation ended, in the words a report needs: what the server answered, that it
    /// closed (and after what), or that it was still silent at our deadline.
    func summary(_ outcome: SocketDriver.Transcript, _ direction: RSASocket.Direction) -> String {
        var parts: [String] = []
        if !outcome.events.isEmpty { parts.append(outcome.events.map(\.description).joined(separator: ", ")) }
        // A reset is a close too: whether our next write meets the FIN or the reset is a race.
        if let error = outcome.transportError, !error.hasPrefix("connection reset by") {
            parts.append(error.hasPrefix("the peer sent nothing")
                         ? "the server was still silent at our \(seconds(options.timeout)) deadline \(stage(outcome, direction))"
                         : error)
        } else if outcome.transportError != nil || (outcome.closedByPeer && !outcome.closedByMachine) {
            parts.append("the server closed the connection \(stage(outcome, direction))")
        }
        return parts.isEmpty ? "no events" : parts.joined(separator: "; ")
    }

    /// Where in the conversation it stopped.
    private func stage(_ outcome: SocketDriver.Transcript, _ direction: RSASocket.Direction) -> String {
        let acknowledged = outcome.events.contains { if case .serverOK = $0 { return true }; if case .decrypted = $0 { return true }; return false }
        if acknowledged { return "after `Quit`, without `Server stopped`" }
        switch direction {
        case .phoneToPi:
            if outcome.received.isEmpty { return "without answering `Client: OK`" }
            return serverKeyBits(in: outcome.received) != nil ? "after its key, without answering our ciphertext" : "in the middle of its key"
        case .piToPhone:
            return outcome.received.isEmpty ? "after our key, without sending a ciphertext" : "after \(outcome.received.count) bytes of its ciphertext"
        }
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

    /// A seeded printable plaintext: what the functional probes send, so that a server that
    /// decodes its plaintext as text is tested on what it is meant for (the oracle audit sends
    /// the random bytes an attack would).
    func textPlaintext(_ name: String) -> Data {
        var generator = run.generator("plaintext.\(name)")
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        return Data((0..<24).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    /// `Server: OK` is whole at once without the digest extension, with it at its 64 hex digits.
    func isWholeAcknowledgement(_ messages: [Data], digest: Bool) -> Bool {
        guard let first = messages.first, first.starts(with: Data(RSASocket.ok.utf8)) else { return false }
        return digest ? first.count >= RSASocket.ok.utf8.count + 8 + 64 : true
    }

    /// Framed: whole frames; legacy: an acknowledgement as above. A legacy `Server: ERROR` is not
    /// taken as whole (more text may follow it: nothing delimits it), so it ends at the close — at
    /// once for a server that closes, as it must — or at a quiet gap.
    func isWholeAnswer(_ bytes: Data, on probe: ProbeConnection, digest: Bool) -> Bool {
        if options.framing == .framed { return probe.hasWholeFrames(bytes) }
        return isWholeAcknowledgement(probe.messages(bytes), digest: digest)
    }

    func endPhrase(_ end: AnswerEnd) -> String {
        switch end {
        case .closed: return ", then closed the connection"
        case .silent: return " (it was still silent at our \(seconds(options.timeout)) deadline)"
        case .quiet, .complete: return ""
        }
    }
}

/// `\t \n \v \f \r` and space: what Python's `bytes.strip()` removes.
func isASCIIWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0d).contains(byte) }
