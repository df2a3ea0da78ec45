import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// The CBC padding-oracle audit of an aes-https server (Vaudenay's attack needs a server that
/// answers a bad PKCS#7 padding differently from a good one): envelopes under the session's own
/// key that decrypt to a bad padding, to a good padding around bytes that are not JSON, to JSON
/// that is not the object the protocol wants, and to a good request; each class several times,
/// compared by status, body, headers (but `Date` and `Content-Length`) and connection behaviour
/// (an answer, or the connection dropped without one). Any difference between refused classes
/// fails. Every envelope is checked locally, with the key, to decrypt as its class says.
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

    enum Kind { case good, badPaddingZero, badPaddingInconsistent, badJSON, notAnObject }

    struct ProbeClass {
        let oracle: OracleClass
        let kind: Kind
        var name: String { oracle.name }
    }

    static let classes: [ProbeClass] = [
        ProbeClass(oracle: OracleClass(name: "good", wellFormed: true, rightPrefix: true, about: "a JSON object, valid padding"), kind: .good),
        ProbeClass(oracle: OracleClass(name: "bad-padding-00", wellFormed: false, rightPrefix: false, about: "the last plaintext byte is 00"), kind: .badPaddingZero),
        ProbeClass(oracle: OracleClass(name: "bad-padding-03", wellFormed: false, rightPrefix: false, about: "the last bytes are 41 03 03: a padding length of 3 that does not hold"), kind: .badPaddingInconsistent),
        ProbeClass(oracle: OracleClass(name: "bad-json", wellFormed: false, rightPrefix: true, about: "valid padding around bytes that are not JSON"), kind: .badJSON),
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
        if let count = options.timingSamples { measureTiming(analysis: analysis, samples: count) }

        let rounds = "\(classes.count) classes × \(repeats)\(confirmed ? " + a confirmation round" : "")"
        let details = "\(rounds), seed \(options.seed).\nverdict (ROBOT terms): \(analysis.verdict.rawValue)\n" + analysis.evidence
        analysis.record(on: run, rounds: rounds)
        switch analysis.verdict {
        case .inconsistent:
            throw analysis.inconsistentFailure(details: details)
        case .strongOracle, .weakOracle:
            let pair = analysis.decisiveDisagreement
            // A difference that involves a bad padding is Vaudenay's oracle; one between good
            // paddings only (JSON vs fields) still tells an attacker about the plaintext.
            let paddingInvolved = pair.map { !$0.a.rightPrefix || !$0.b.rightPrefix } ?? false
            throw CheckFailure("\(paddingInvolved ? "padding" : "format") oracle (\(analysis.verdict.rawValue)): \(pair.map(OracleAnalysis.pairText) ?? "")",
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
            run.finding("padding-oracle.cbc", weak: false,
                        "CBC padding-oracle audit (\(rounds)): \(analysis.verdict.rawValue) — every bad envelope answered \(analysis.refusalGroups.first?.signature ?? "nothing")")
            return .passed
        }
    }

    /// What one request of a class got back.
    struct Observation {
        /// nil: no response; `transport` says what happened instead.
        let status: Int?
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
        switch result {
        case .success(let answer):
            https.recordResponse(answer, requestIV: envelope.iv, step: "\(checkName) \(cls.name)")
            let envelope = answer.status == 200 ? try? CBCEnvelope(json: answer.body) : nil
            let accepted = (try? envelope?.open(key: session.key)) != nil
            return Observation(status: answer.status, headers: answer.headers, body: answer.body, transport: "", accepted: accepted, latency: latency,
                               unopenable: accepted ? nil : envelope?.paddingDiagnosis(key: session.key))
        case .failure(TransportError.connectionClosed(_, _)), .failure(TransportError.connectionReset(_)):
            return Observation(status: nil, headers: [:], body: Data(), transport: "the connection was dropped without a response", accepted: false, latency: latency)
        case .failure(TransportError.timedOut(_, _)):
            return Observation(status: nil, headers: [:], body: Data(), transport: "no response within \(seconds(options.timeout))", accepted: false, latency: latency)
        case .failure(let error):
            throw error
        }
    }

    /// Signatures for the analysis: status, body (an accepted envelope differs by its IV, so it
    /// is "an envelope"), connection behaviour, and headers. A header whose value changes between
    /// repeats of one class (a date, a request id) is noise and compared by name only; one that is
    /// steady within each class but differs between classes is compared by value.
    static func samples(_ observations: [String: [Observation]]) -> [String: [OracleSample]] {
        var volatile: Set<String> = ["date", "content-length"]
        for list in observations.values {
            for name in Set(list.flatMap(\.headers.keys)) where Set(list.map { $0.headers[name] }).count > 1 { volatile.insert(name) }
        }
        return observations.mapValues { list in
            list.map { observed in
                guard let status = observed.status else {
                    return OracleSample(signature: "nothing (\(observed.transport))", accepted: false, latency: observed.latency)
                }
                let headers = observed.headers.sorted { $0.key < $1.key }.map { volatile.contains($0.key) ? $0.key : "\($0.key): \($0.value)" }
                let body = observed.accepted ? "with an envelope" : ProbeConnection.describeMessage(observed.body)
                return OracleSample(signature: "\(status) \(body)" + (headers.isEmpty ? "" : " [" + headers.joined(separator: "; ") + "]"),
                                    accepted: observed.accepted, latency: observed.latency)
            }
        }
    }

    /// The class's envelope under the session key, from seeded bytes. A bad padding is made by
    /// sealing a 32-byte plaintext that ends as the class says and dropping the padding block
    /// CBC adds to it; the result is checked here, with the key, to decrypt as intended.
    func envelope(_ cls: ProbeClass, tag: String) throws -> CBCEnvelope {
        var generator = run.generator("\(checkName).\(cls.name).\(tag)")
        let word = Data((0..<12).map { _ in UInt8(0x61 + generator.next() % 26) })
        let iv = generator.bytes(16)
        let key = session.key
        let built: CBCEnvelope
        switch cls.kind {
        case .good:
            built = try CBCEnvelope.seal(Data("{\"oracle\":\"".utf8) + word + Data("\"}".utf8), key: key, iv: iv)
        case .badJSON:
            built = try CBCEnvelope.seal(Data("not json: ".utf8) + word, key: key, iv: iv)
        case .notAnObject:
            built = try CBCEnvelope.seal(Data("[\"".utf8) + word + Data("\"]".utf8), key: key, iv: iv)
        case .badPaddingZero, .badPaddingInconsistent:
            let tail: [UInt8] = cls.kind == .badPaddingZero ? [0x00] : [0x41, 0x03, 0x03]
            let plaintext = Data(repeating: 0x20, count: 32 - word.count - tail.count) + word + Data(tail)
            let sealed = try CBCEnvelope.seal(plaintext, key: key, iv: iv)
            built = CBCEnvelope(ciphertext: Data(sealed.ciphertext.prefix(32)), iv: iv)
        }
        // Our own decryption must agree with the class.
        let opened = Result { try built.open(key: key) }
        switch (cls.kind, opened) {
        case (.badPaddingZero, .failure(WireCryptoError.badPadding)), (.badPaddingInconsistent, .failure(WireCryptoError.badPadding)): return built
        case (.good, .success), (.badJSON, .success), (.notAnObject, .success): return built
        default: throw CheckFailure("the probe envelope for class \(cls.name) does not decrypt as its class says (a crosscheck bug): \(opened)")
        }
    }

    /// `--timing N`: latency to the answer per refused class; reported in the audit, never in the verdict.
    func measureTiming(analysis: OracleAnalysis, samples count: Int) {
        let refused = Self.classes.filter { cls in analysis.refused.contains { $0.name == cls.name } }
        run.timingFinding("timing.cbc-padding", refused: refused, named: \.name, rounds: count) { probeClass, round in
            try observe(probeClass, tag: "timing\(round)").latency
        }
    }
}
