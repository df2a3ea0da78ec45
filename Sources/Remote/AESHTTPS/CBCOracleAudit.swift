import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// The CBC padding-oracle audit of an aes-https server (Vaudenay's attack needs a server that
/// answers a bad PKCS#7 padding differently from a good one; Canvel et al. showed the answer may
/// be its timing). The probe classes are the attack's own: envelopes under the session's own key
/// whose second-to-last ciphertext block is garbled, so the last block decrypts to a padding that
/// is bad or — as one try in about 256 does — valid around random bytes that are not UTF-8; a last
/// byte of 00, one above 16, and an inconsistent padding; beside them ASCII that is not JSON, JSON
/// that is not an object and a good request. Each class is sent `--oracle-repeats` times, in
/// rotated order, and once more when classes differ. Answers are compared whole (status and
/// reason phrase, every header, a digest of the body, how the connection ended), after masking
/// what varies between repeats of one class (request ids, timestamps: `ResponseMask`). Every
/// envelope is checked locally, with the key, to decrypt as its class says.
struct CBCOracleAudit {
    let https: RemoteAESHTTPS
    let session: RemoteAESHTTPS.Session
    let pin: String
    var run: RemoteRun { https.run }
    var options: RemoteOptions { run.options }
    let checkName = "oracle.cbc-padding"

    init(_ https: RemoteAESHTTPS, session: RemoteAESHTTPS.Session, pin: String) {
        self.https = https; self.session = session; self.pin = pin
    }

    enum Kind {
        case good, badPaddingZero, badPaddingInconsistent, badPaddingOver16, garbledBadPadding, garbledValidPadding, badJSON, notAnObject
    }

    struct ProbeClass {
        let oracle: OracleClass
        let kind: Kind
        var name: String { oracle.name }
    }

    static let classes: [ProbeClass] = [
        ProbeClass(oracle: OracleClass(name: "good", wellFormed: true, rightPrefix: true, about: "a JSON object, valid padding"), kind: .good),
        ProbeClass(oracle: OracleClass(name: "bad-padding-00", wellFormed: false, rightPrefix: false, about: "the last plaintext byte is 00"), kind: .badPaddingZero),
        ProbeClass(oracle: OracleClass(name: "bad-padding-03", wellFormed: false, rightPrefix: false, about: "the last bytes are 41 03 03: a padding length of 3 that does not hold"), kind: .badPaddingInconsistent),
        ProbeClass(oracle: OracleClass(name: "bad-padding-over-16", wellFormed: false, rightPrefix: false, about: "the last plaintext byte is above 16 (11–ff): no PKCS#7 padding for a 16-byte block"), kind: .badPaddingOver16),
        ProbeClass(oracle: OracleClass(name: "garbled-bad-padding", wellFormed: false, rightPrefix: false,
                                       about: "a good request with its second-to-last ciphertext block replaced by random bytes, decrypting to a bad padding (Vaudenay's probe)"), kind: .garbledBadPadding),
        ProbeClass(oracle: OracleClass(name: "garbled-valid-padding", wellFormed: false, rightPrefix: true,
                                       about: "a good request with its second-to-last ciphertext block replaced by random bytes that decrypt to a valid padding around bytes that are not UTF-8 (Vaudenay's probe when the oracle says yes)"), kind: .garbledValidPadding),
        ProbeClass(oracle: OracleClass(name: "bad-json", wellFormed: false, rightPrefix: true, about: "valid padding around ASCII text that is not JSON"), kind: .badJSON),
        // JSON that is not an object is the server's business (docs/PROTOCOL.md): it may echo it,
        // so it is well-formed here; refused, it must be refused as the bad envelopes are.
        ProbeClass(oracle: OracleClass(name: "json-not-an-object", wellFormed: true, rightPrefix: true, about: "valid padding, valid JSON that is not an object (the protocol leaves it to the server)"), kind: .notAnObject),
    ]

    func check() {
        run.step(checkName, profile: https.profile) { try audit() }
    }

    func audit() throws -> CheckOutcome {
        let classes = Self.classes
        var observations: [String: [Observation]] = [:]
        let repeats = max(1, options.oracleRepeats)
        for round in 0..<repeats {
            if run.shouldStop() { return .skipped(reason: "not finished: the run was interrupted") }
            for cls in rotated(classes, by: round) { observations[cls.name, default: []].append(try observe(cls, tag: "round\(round)")) }
        }
        // Issue 33: answers to well-formed envelopes that the client cannot open leave nothing to
        // compare (each differs by its IV): the cause, a padding of the server's own, is the verdict.
        if let good = classes.first(where: { $0.kind == .good }), let diagnosis = observations[good.name]?.compactMap(\.unopenable).first {
            throw CheckFailure("no verdict: the server's answers to well-formed envelopes do not open — \(diagnosis)",
                               details: "class good answered 200 with envelopes that fail PKCS#7 unpadding under the session key; fix the server's padding, then rerun")
        }
        var analysis = OracleAnalysis(classes: classes.map(\.oracle), samples: Self.samples(observations))
        let confirmed = analysis.verdict != .notVulnerable || !analysis.acceptedMalformed.isEmpty
        if confirmed {
            for cls in classes { observations[cls.name, default: []].append(try observe(cls, tag: "confirmation")) }
            analysis = OracleAnalysis(classes: classes.map(\.oracle), samples: Self.samples(observations))
        }
        let timing = options.timingSamples.flatMap { measureTiming(analysis: analysis, samples: $0) }

        let rounds = "\(classes.count) classes × \(repeats)\(confirmed ? " + a confirmation round" : "")"
        let details = "\(rounds), seed \(options.seed).\nverdict (ROBOT terms): \(analysis.verdict.rawValue)\n" + analysis.evidence
        analysis.record(on: run, rounds: rounds)
        let kind = Self.oracleKind(analysis)
        run.note("oracle-kind", kind?.rawValue ?? (analysis.verdict == .inconsistent ? "no verdict" : "none"))
        switch analysis.verdict {
        case .inconsistent:
            // Repeats of one class disagree even with what varies masked: no verdict either way.
            return .skipped(reason: "no verdict: inconsistent results: \(analysis.inconsistencyText) — repeats of a class disagree, so the audit can neither show an oracle nor rule one out (look at the server's logs and rerun)")
        case .strongOracle, .weakOracle:
            let pair = analysis.decisiveDisagreement
            let late = pair.flatMap { Self.lateDifference(observations[$0.a.name]?.first?.body, observations[$0.b.name]?.first?.body) }
            throw CheckFailure("\((kind ?? .padding).rawValue) (\(analysis.verdict.rawValue)): \(pair.map(Self.leakText) ?? "")" + (late.map { "; \($0)" } ?? ""),
                               details: details)
        case .notVulnerable:
            if let accepted = analysis.acceptedMalformed.first {
                throw CheckFailure("the server accepted an envelope it cannot have read: class \(accepted.name) (\(accepted.about)) answered \(analysis.signature(accepted)?.signature ?? "")",
                                   details: details)
            }
            if let notAnObject = classes.first(where: { $0.kind == .notAnObject }), analysis.signature(notAnObject.oracle)?.accepted == true {
                run.finding("json-not-an-object", weak: false,
                            "the server answers an envelope whose plaintext is JSON but not an object as a request (docs/PROTOCOL.md leaves that to the server; PythonRef refuses it with its 400)")
            }
            let timingText = timing.map { "timing: " + $0.summary } ?? "timing not measured (--timing N measures it)"
            if let timing, timing.significant, options.strict, let strongest = timing.strongest {
                throw CheckFailure("timing oracle (--timing, --strict): class \(strongest.a) vs class \(strongest.b): "
                                   + String(format: "median difference %+.1f ms, p = %.3g", strongest.test.medianDifference * 1000, strongest.test.pValue)
                                   + " — the answers are alike, but how long they take tells the classes apart (Canvel et al. 2003)",
                                   details: timingText + "\n" + details)
            }
            run.note("oracle-timing", timing.map { $0.significant ? "differs" : "no significant difference" } ?? "not measured")
            run.finding("padding-oracle.cbc", weak: false,
                        "CBC padding-oracle audit (\(rounds)): no content oracle; \(timingText) — every bad envelope answered \(analysis.refusalGroups.first?.signature ?? "nothing")")
            return .passed
        }
    }

    /// What an oracle found leaks.
    enum OracleKind: String {
        /// Some answer is given to one side of the padding check only: valid vs invalid padding,
        /// or one invalid padding vs another (the padding check's own steps).
        case padding = "padding oracle"
        /// Every malformed class is refused alike; only a well-formed one (valid padding and JSON)
        /// gets another answer: it tells the plaintext's format, not its padding.
        case format = "format oracle"
    }

    /// Padding oracle when the refused malformed classes do not share one answer (their answers
    /// split by the padding check); format oracle when they do and a refused well-formed class
    /// is answered apart; nil when no classes differ.
    static func oracleKind(_ analysis: OracleAnalysis) -> OracleKind? {
        guard analysis.verdict == .strongOracle || analysis.verdict == .weakOracle else { return nil }
        let malformed = analysis.refused.filter { !$0.wellFormed }
        let answers = Set(malformed.compactMap { analysis.signature($0)?.signature })
        return answers.count > 1 ? .padding : .format
    }

    /// Where two bodies first differ, when it is past what a signature shows (48 bytes).
    static func lateDifference(_ a: Data?, _ b: Data?) -> String? {
        guard let a, let b, a != b else { return nil }
        let x = Array(a), y = Array(b)
        let common: Int = min(x.count, y.count)
        let offset: Int = (0..<common).first { (i: Int) -> Bool in x[i] != y[i] } ?? common
        guard offset >= 48 else { return nil }
        func around(_ data: Data) -> String {
            let piece = Data(data.dropFirst(max(0, offset - 8)).prefix(24))
            return piece.allSatisfy({ (0x20...0x7e).contains($0) }) ? "\"…\(String(decoding: piece, as: UTF8.self))…\"" : piece.hexString
        }
        return "the bodies first differ at byte \(offset): \(around(a)) vs \(around(b))"
    }

    /// "class A (what it is) answered X; class B (…) answered Y — what the difference tells".
    static func leakText(_ pair: OracleAnalysis.Disagreement) -> String {
        let leak: String
        switch (pair.a.rightPrefix, pair.b.rightPrefix, pair.a.wellFormed || pair.b.wellFormed) {
        case (true, false, _), (false, true, _): leak = "the answer tells a valid padding from an invalid one"
        case (false, false, _): leak = "the answer tells one invalid padding from another (which step of the padding check failed)"
        case (true, true, true): leak = "the answer tells a well-formed plaintext from a malformed one"
        case (true, true, false): leak = "the answer tells what the plaintext holds behind a valid padding"
        }
        return OracleAnalysis.pairText(pair) + " — \(leak)"
    }

    /// What one request of a class got back.
    struct Observation {
        /// nil: no response; `transport` says what happened instead.
        let status: Int?
        let reason: String?
        let headers: [String: String]
        let body: Data
        let transport: String
        let accepted: Bool
        let latency: TimeInterval
        /// A 200 envelope that did not open, and why, when its plaintext says (`CBCEnvelope.paddingDiagnosis`).
        var unopenable: String? = nil
    }

    /// One request of the class; a 200 envelope's IV goes to the reuse ledger.
    func observe(_ cls: ProbeClass, tag: String) throws -> Observation {
        let envelope = try self.envelope(cls, tag: tag)
        let request = WebRequest(method: "POST", path: "/secure-data",
                                 headers: ["authorization": session.token, "content-type": "application/json"], body: envelope.jsonData)
        let start = DispatchTime.now().uptimeNanoseconds
        let result = Result { try https.send(request, pin: pin) }
        let latency = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        func nothing(_ how: String) -> Observation {
            Observation(status: nil, reason: nil, headers: [:], body: Data(), transport: how, accepted: false, latency: latency)
        }
        switch result {
        case .success(let answer):
            https.recordResponse(answer, requestIV: envelope.iv, key: session.key, step: "\(checkName) \(cls.name)")
            let envelope = answer.status == 200 ? try? CBCEnvelope(json: answer.body) : nil
            let accepted = (try? envelope?.open(key: session.key)) != nil
            return Observation(status: answer.status, reason: answer.reason, headers: answer.headers, body: answer.body, transport: "",
                               accepted: accepted, latency: latency, unopenable: accepted ? nil : envelope?.paddingDiagnosis(key: session.key))
        case .failure(TransportError.connectionReset(_)):
            return nothing("the connection was reset without a response")
        case .failure(TransportError.connectionClosed(_, let detail)):
            return nothing(detail.hasPrefix("mid-exchange") ? "the connection was closed mid-response" : "the connection was closed without a response")
        case .failure(TransportError.timedOut(_, _)):
            return nothing("no response within \(seconds(options.timeout))")
        case .failure(let error):
            throw error
        }
    }

    /// Signatures for the analysis, the whole response: status and reason phrase, how the
    /// connection ended (no answer: reset, closed, silent; an answer: kept open, or closed after
    /// it, which `connection: close` announces), every header, and the body (an accepted envelope
    /// differs by its IV, so it is "an envelope"; else its first bytes and a digest of all of it).
    /// What varies between repeats of one class is masked first (`ResponseMask`): a header whose
    /// value changes is compared by name only, a body field or token that changes reads `<varies>`.
    static func samples(_ observations: [String: [Observation]]) -> [String: [OracleSample]] {
        var volatile: Set<String> = ["date", "content-length"]
        for list in observations.values {
            for name in Set(list.flatMap(\.headers.keys)) where Set(list.map { $0.headers[name] }).count > 1 { volatile.insert(name) }
        }
        let masks = ResponseMask(groups: observations.values.map { $0.filter { !$0.accepted && $0.status != nil }.map(\.body) })
        return observations.mapValues { list in
            list.map { observed in
                guard let status = observed.status else {
                    return OracleSample(signature: "nothing (\(observed.transport))", accepted: false, latency: observed.latency)
                }
                let headers = observed.headers.sorted { $0.key < $1.key }.map { volatile.contains($0.key) ? $0.key : "\($0.key): \($0.value)" }
                let body = observed.accepted ? "with an envelope" : ResponseMask.describe(masks.apply(observed.body))
                let end = observed.headers["connection"]?.lowercased().contains("close") == true ? ", then closed" : ""
                let statusLine = "\(status)" + (observed.reason.map { " \"\($0)\"" } ?? "")
                return OracleSample(signature: "\(statusLine)\(end) \(body)" + (headers.isEmpty ? "" : " [" + headers.joined(separator: "; ") + "]"),
                                    accepted: observed.accepted, latency: observed.latency)
            }
        }
    }

    /// The class's envelope under the session key, from seeded bytes. A bad padding is made by
    /// sealing a 32-byte plaintext that ends as the class says and dropping the padding block
    /// CBC adds to it; a garbled one by replacing a good request's second-to-last ciphertext block
    /// with seeded random bytes until the last block decrypts as the class wants. The result is
    /// checked here, with the key, to decrypt as intended.
    func envelope(_ cls: ProbeClass, tag: String) throws -> CBCEnvelope {
        var generator = run.generator("\(checkName).\(cls.name).\(tag)")
        let word = Data((0..<12).map { _ in UInt8(0x61 + generator.next() % 26) })
        let iv = generator.bytes(16)
        let key = session.key
        let good = Data("{\"oracle\":\"".utf8) + word + Data("\",\"pad\":\"".utf8) + word + Data("\"}".utf8)
        let built: CBCEnvelope
        switch cls.kind {
        case .good:
            built = try CBCEnvelope.seal(good, key: key, iv: iv)
        case .badJSON:
            built = try CBCEnvelope.seal(Data("not json: ".utf8) + word, key: key, iv: iv)
        case .notAnObject:
            built = try CBCEnvelope.seal(Data("[\"".utf8) + word + Data("\"]".utf8), key: key, iv: iv)
        case .badPaddingZero, .badPaddingInconsistent, .badPaddingOver16:
            let tail: [UInt8] = switch cls.kind {
            case .badPaddingZero: [0x00]
            case .badPaddingInconsistent: [0x41, 0x03, 0x03]
            default: [UInt8(0x11 + generator.next() % 0xEF)]
            }
            let plaintext = Data(repeating: 0x20, count: 32 - word.count - tail.count) + word + Data(tail)
            let sealed = try CBCEnvelope.seal(plaintext, key: key, iv: iv)
            built = CBCEnvelope(ciphertext: Data(sealed.ciphertext.prefix(32)), iv: iv)
        case .garbledBadPadding, .garbledValidPadding:
            // The last block decrypts to D(Cn) ⊕ C(n−1); with Pn = D(Cn) ⊕ C(n−1) known, a new
            // C'(n−1) gives Pn ⊕ C(n−1) ⊕ C'(n−1). A bad padding is kept only with a last byte of
            // 1–16 (an invalid run), so the class is one kind of bad padding (above 16 has its own).
            let sealed = try CBCEnvelope.seal(good, key: key, iv: iv)
            let blocks = sealed.ciphertext.count / 16
            let padded = good + Data(repeating: UInt8(16 - good.count % 16), count: 16 - good.count % 16)
            let lastPlain = Array(padded.suffix(16)), previous = Array(sealed.ciphertext[(blocks - 2) * 16..<(blocks - 1) * 16])
            // Pn ⊕ C(n−1) as two words: a try is two draws and no allocation (about 256 tries an
            // envelope); only a candidate becomes bytes, the ones `generator.bytes(16)` would give.
            let known = Block16(bytes: (0..<16).map { lastPlain[$0] ^ previous[$0] })
            var found: CBCEnvelope?
            for _ in 0..<200_000 {
                let drawn = Block16(low: generator.next(), high: generator.next())
                let last = known ^ drawn
                let count = Int(last[15])
                let valid = (1...16).contains(count) && (16 - count..<16).allSatisfy { Int(last[$0]) == count }
                if cls.kind == .garbledBadPadding ? (valid || !(1...16).contains(count)) : !valid { continue }
                let garbled = drawn.data
                var ciphertext = sealed.ciphertext
                ciphertext.replaceSubrange((blocks - 2) * 16..<(blocks - 1) * 16, with: garbled)
                let candidate = CBCEnvelope(ciphertext: ciphertext, iv: iv)
                if cls.kind == .garbledValidPadding, case .success(let plaintext) = Result(catching: { try candidate.open(key: key) }),
                   String(data: plaintext, encoding: .utf8) != nil { continue }
                found = candidate
                break
            }
            guard let found else { throw CheckFailure("no garbled envelope for class \(cls.name) in 200000 tries (a crosscheck bug)") }
            built = found
        }
        // Our own decryption must agree with the class.
        let opened = Result { try built.open(key: key) }
        switch (cls.kind, opened) {
        case (.badPaddingZero, .failure(WireCryptoError.badPadding)), (.badPaddingInconsistent, .failure(WireCryptoError.badPadding)),
             (.badPaddingOver16, .failure(WireCryptoError.badPadding)), (.garbledBadPadding, .failure(WireCryptoError.badPadding)):
            return built
        case (.good, .success), (.badJSON, .success), (.notAnObject, .success): return built
        case (.garbledValidPadding, .success(let plaintext)) where String(data: plaintext, encoding: .utf8) == nil: return built
        default: throw CheckFailure("the probe envelope for class \(cls.name) does not decrypt as its class says (a crosscheck bug): \(opened)")
        }
    }

    /// `--timing N`: latency to the answer per refused class; it decides the verdict only under
    /// `--strict` (a content oracle decides first).
    func measureTiming(analysis: OracleAnalysis, samples count: Int) -> TimingAnalysis? {
        let refused = Self.classes.filter { cls in analysis.refused.contains { $0.name == cls.name } }
        return run.timingFinding("timing.cbc-padding", refused: refused, named: \.name, rounds: count) { probeClass, round in
            try observe(probeClass, tag: "timing\(round)").latency
        }
    }
}

/// 16 bytes as two words, byte i of the block being byte i % 8 of its word in little-endian order:
/// the layout `SeededGenerator.bytes(16)` fills from two draws.
fileprivate struct Block16 {
    let low: UInt64
    let high: UInt64

    init(low: UInt64, high: UInt64) { self.low = low; self.high = high }

    init(bytes: [UInt8]) {
        precondition(bytes.count == 16)
        func word(_ start: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[start + $1]) << (8 * $1) } }
        self.init(low: word(0), high: word(8))
    }

    subscript(index: Int) -> UInt8 { UInt8(truncatingIfNeeded: (index < 8 ? low : high) >> (8 * (index % 8))) }

    var data: Data {
        var data = Data(capacity: 16)
        withUnsafeBytes(of: low.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: high.littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    static func ^ (a: Block16, b: Block16) -> Block16 { Block16(low: a.low ^ b.low, high: a.high ^ b.high) }
}

/// What varies between answers that should be one answer (a request id, a timestamp), found by
/// comparing repeats of one request and masked before answers are compared. A body that parses
/// as a JSON object is masked by field: a field whose value differs between repeats reads
/// `<varies>` in every answer. Any other body by token (runs of letters, digits and `+/=_-.`):
/// a token position that differs between repeats of equal token count reads `<varies>`. Only
/// values with a digit in them vary this way (ids, times, counters): a word that changes between
/// repeats ("padding" one time, "request" the next) is not masked — it may be the leak itself, and
/// the class stays inconsistent (no verdict) rather than passing.
struct ResponseMask {
    /// Dotted paths of JSON fields that varied.
    private(set) var fields: Set<String> = []
    /// Per token count, the token positions that varied.
    private(set) var positions: [Int: Set<Int>] = [:]

    /// `groups`: bodies that should be alike (the repeats of one request each).
    init(groups: [[Data]]) {
        for group in groups where group.count > 1 {
            let objects = group.compactMap(Self.leaves)
            if objects.count == group.count {
                for path in Set(objects.flatMap(\.keys)) {
                    let values = Set(objects.map { $0[path] })
                    if values.count > 1, values.allSatisfy({ $0.map(Self.hasDigit) ?? true }) { fields.insert(path) }
                }
                continue
            }
            let tokenised = group.map(Self.tokens)
            guard let count = tokenised.first?.count, tokenised.allSatisfy({ $0.count == count }) else { continue }
            for index in 0..<count {
                let values = Set(tokenised.map { $0[index] })
                if values.count > 1, values.allSatisfy({ Self.hasDigit(String(decoding: $0.text, as: UTF8.self)) }) { positions[count, default: []].insert(index) }
            }
        }
    }

    var isEmpty: Bool { fields.isEmpty && positions.isEmpty }

    /// The body with what varies masked (unchanged when nothing does).
    func apply(_ body: Data) -> Data {
        if !fields.isEmpty, let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] {
            let masked = Self.masking(object, fields: fields, prefix: "")
            if let data = try? JSONSerialization.data(withJSONObject: masked, options: [.sortedKeys]) { return data }
        }
        guard !positions.isEmpty else { return body }  // nothing varies by token: no need to split
        var tokens = Self.tokens(body)
        guard let varying = positions[tokens.count] else { return body }
        for index in varying where tokens[index].isWord { tokens[index] = Token(text: Data("<varies>".utf8), isWord: true) }
        return tokens.reduce(into: Data()) { $0 += $1.text }
    }

    /// First bytes (as `describeMessage` shows them) and a digest of the whole body.
    static func describe(_ body: Data) -> String {
        let digest = Digest.sha256.hash(body).prefix(8).hexString
        return ProbeConnection.describeMessage(body) + (body.count > 48 ? "" : " (\(body.count) bytes)") + " sha256 \(digest)…"
    }

    static func hasDigit(_ text: String) -> Bool { text.unicodeScalars.contains { ("0"..."9").contains($0) } }

    struct Token: Equatable, Hashable {
        let text: Data
        let isWord: Bool
    }

    /// The punctuation a token may hold, made once (not per byte).
    private static let wordPunctuation = Array("+/=_-.".utf8)

    static func tokens(_ body: Data) -> [Token] {
        let word: (UInt8) -> Bool = { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte) || wordPunctuation.contains(byte) || byte >= 0x80
        }
        var result: [Token] = []
        var current = Data()
        for byte in body {
            if word(byte) { current.append(byte); continue }
            if !current.isEmpty { result.append(Token(text: current, isWord: true)); current = Data() }
            result.append(Token(text: Data([byte]), isWord: false))
        }
        if !current.isEmpty { result.append(Token(text: current, isWord: true)) }
        return result
    }

    /// Leaf values of a JSON object by dotted path (as text, for comparing); nil for any other body.
    static func leaves(_ body: Data) -> [String: String]? {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { return nil }
        var result: [String: String] = [:]
        func walk(_ value: Any, _ path: String) {
            if let dictionary = value as? [String: Any] {
                for (key, inner) in dictionary { walk(inner, path.isEmpty ? key : path + "." + key) }
            } else {
                result[path] = "\(value)"
            }
        }
        walk(object, "")
        return result
    }

    private static func masking(_ object: [String: Any], fields: Set<String>, prefix: String) -> [String: Any] {
        var copy = object
        for (key, value) in object {
            let path = prefix.isEmpty ? key : prefix + "." + key
            if fields.contains(path) { copy[key] = "<varies>" } else if let inner = value as? [String: Any] {
                copy[key] = masking(inner, fields: fields, prefix: path)
            }
        }
        return copy
    }
}
