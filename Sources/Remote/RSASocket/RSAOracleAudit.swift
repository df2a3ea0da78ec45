import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// The padding-oracle audit of an rsa-socket server (phone-to-pi), in the style of robot-detect
/// and tlsfuzzer: ciphertexts made with raw RSA under the server's own key, so that each decrypts
/// to exactly the encoding a class names (a valid one, or one of the PKCS#1 v1.5 / OAEP error
/// classes of docs/PROTOCOL.md "Oracles"), each sent on its own connection after the server's key
/// has arrived, each class several times in interleaved rounds. Per class: the answer bytes,
/// whether the server then closed (or read on, or stayed open), and — through the next probe's
/// connection — whether it is still alive. Deterministic: the encodings come from `--seed`.
struct RSAOracleAudit {
    let socket: RemoteRSASocket
    let padding: RSAEncryptionPadding
    let offersDigest: Bool
    var run: RemoteRun { socket.run }
    var options: RemoteOptions { run.options }
    let checkName = "oracle.rsa-padding"

    init(_ socket: RemoteRSASocket, padding: RSAEncryptionPadding, offersDigest: Bool) {
        self.socket = socket; self.padding = padding; self.offersDigest = offersDigest
    }

    struct ProbeClass {
        let oracle: OracleClass
        let probe: RSAPaddingProbe
        /// The message to encode; nil: 24 random bytes beginning 0xff.
        var message: Data?
        var name: String { oracle.name }
    }

    var isPKCS1: Bool { padding.oaepParameters == nil }

    /// The classes that tell PKCS#1 v1.5 (ROBOT's, Bleichenbacher's) or OAEP (Manger's)
    /// implementations apart. The well-formed messages are random bytes beginning 0xff, never
    /// UTF-8, as an attack's are: a server that chokes on a non-text plaintext is seen.
    var classes: [ProbeClass] {
        func make(_ name: String, _ probe: RSAPaddingProbe, wellFormed: Bool = false, rightPrefix: Bool, message: Data? = nil, _ about: String) -> ProbeClass {
            ProbeClass(oracle: OracleClass(name: name, wellFormed: wellFormed, rightPrefix: rightPrefix, about: about), probe: probe, message: message)
        }
        let wellFormed = [
            make("well-formed", .valid, wellFormed: true, rightPrefix: true, "a valid encoding of 24 random bytes"),
            make("well-formed-one-byte", .valid, wellFormed: true, rightPrefix: true, message: Data([0xff]),
                 "a valid encoding of a 1-byte message: the zero separator 2 bytes before the end (ROBOT's \"0x00 on a wrong position\")"),
            make("well-formed-empty", .validEmptyMessage, wellFormed: true, rightPrefix: true, "a valid encoding of an empty message (an unexpected length)"),
            make("well-formed-maximum", .validMaximumMessage, wellFormed: true, rightPrefix: true, "a valid encoding of the longest message (an unexpected length)"),
            make("well-formed-text", .valid, wellFormed: true, rightPrefix: true, message: Data("crosscheck oracle probe".utf8),
                 "a valid encoding of a short ASCII text: what an application that reads its plaintext as text accepts"),
        ]
        if isPKCS1 {
            return wellFormed + [
                make("wrong-first-byte", .firstByteNotZero, rightPrefix: false, "first byte 01…7e instead of 00"),
                make("wrong-block-type-01", .blockTypeOne, rightPrefix: false, "00 01 ff…ff 00 message: the signature block type"),
                make("wrong-block-type-00", .blockTypeZero, rightPrefix: false, "00 00 instead of 00 02"),
                make("no-zero-separator", .noSeparator, rightPrefix: true, "00 02 then only non-zero bytes: no zero separator"),
                make("separator-within-8-bytes", .separatorTooEarly, rightPrefix: true, "00 02, then a zero within the first 8 padding bytes"),
                make("oaep-encoding", .otherScheme, rightPrefix: false, "a valid OAEP-SHA256 encoding (00, then not 02)"),
            ]
        }
        return wellFormed + [
            make("nonzero-first-byte", .firstByteNotZero, rightPrefix: false, "first byte 01…7e instead of 00 (Manger's test)"),
            make("bad-label-hash", .wrongLabelHash, rightPrefix: true, "the hash of another label"),
            make("no-01-separator", .noOneSeparator, rightPrefix: true, "zero padding not ended by 01"),
            make("nonzero-padding", .garbageInPadding, rightPrefix: true, "a non-zero byte inside the zero padding"),
            make("pkcs1-encoding", .otherScheme, rightPrefix: true, "a valid PKCS#1 v1.5 encoding (first byte 00)"),
        ]
    }

    func check() {
        run.step(checkName, profile: socket.profile) { try audit() }
    }

    func audit() throws -> CheckOutcome {
        let classes = self.classes
        var samples: [String: [OracleSample]] = [:]
        /// Every probe of each class, in the order sent: the implicit-rejection judgement reads them all.
        var observations: [String: [Observation]] = [:]
        var last: String?
        func sample(_ cls: ProbeClass, _ tag: String) throws -> OracleSample {
            let observed: Observation
            do { observed = try observe(cls, tag: tag) } catch {
                // Each probe's connection is also the liveness check of the class sent before it.
                if let last {
                    run.serverGone(after: "padding-oracle class \(last)")
                    throw CheckFailure("the server stopped answering after padding-oracle class \(last): \(error)",
                                       details: OracleAnalysis(classes: classes.map(\.oracle), samples: samples).evidence)
                }
                throw error
            }
            last = cls.name
            observations[cls.name, default: []].append(observed)
            return observed.sample
        }

        let repeats = max(1, options.oracleRepeats)
        for round in 0..<repeats {
            if run.shouldStop() { return .skipped(reason: "not finished: the run was interrupted") }
            for cls in rotated(classes, by: round) { samples[cls.name, default: []].append(try sample(cls, "round\(round)")) }
        }
        var analysis = OracleAnalysis(classes: classes.map(\.oracle), samples: samples)
        // Differences are confirmed by one more round, as robot-detect confirms an oracle.
        let confirmed = analysis.verdict != .notVulnerable || !analysis.acceptedMalformed.isEmpty
        if confirmed {
            for cls in classes { samples[cls.name, default: []].append(try sample(cls, "confirmation")) }
            analysis = OracleAnalysis(classes: classes.map(\.oracle), samples: samples)
        }
        let plaintextRule = isPKCS1 ? self.plaintextRule(classes, observations) : nil
        let acknowledgesMalformed = isPKCS1 && (analysis.everyClassAcknowledgedAlike || plaintextRule != nil)
        var timed = false
        if let count = options.timingSamples {
            timed = measureTiming(analysis: analysis, classes: classes, samples: count, acknowledgedMalformed: acknowledgesMalformed)
        }

        let rounds = "\(classes.count) classes × \(repeats)\(confirmed ? " + a confirmation round" : "")"
        let details = "padding \(padding), \(rounds), seed \(options.seed); each class on its own connection after the server's key, "
            + "and each probe's connection (`Client: OK`, then the key) the liveness check of the class sent before it: the server answered every one.\n"
            + "verdict (ROBOT terms): \(analysis.verdict.rawValue)\n" + analysis.evidence
        analysis.record(on: run, rounds: rounds)
        if let plaintextRule {
            let malformedAcknowledged = classes.contains { cls in !cls.oracle.wellFormed && (observations[cls.name] ?? []).contains(where: \.sample.accepted) }
            run.note("plaintext-rule", plaintextRule.rawValue)
            run.finding("plaintext-rule", weak: true, gating: false,
                        "plaintext rule: the server \(plaintextRule.rawValue) — the well-formed classes were acknowledged exactly when their plaintext is UTF-8, and every refusal was the same"
                        + (malformedAcknowledged ? "; malformed classes were acknowledged or refused as their synthetic plaintexts (implicit rejection) met the rule" : "")
                        + ": not a padding oracle (the answer depends on the plaintext, not on the padding), but a client whose plaintext breaks the rule is refused")
            // Repeats of a malformed class may differ here: each repeat is another ciphertext,
            // so another synthetic plaintext, which meets the rule or not.
            if malformedAcknowledged {
                return try implicitRejection(classes: classes, observations: observations, details: details, timed: timed, rule: plaintextRule)
            }
        }
        switch analysis.verdict {
        case .inconsistent:
            throw analysis.inconsistentFailure(details: details)
        case .strongOracle, .weakOracle:
            let pair = analysis.decisiveDisagreement.map(OracleAnalysis.pairText) ?? ""
            throw CheckFailure("padding oracle (\(analysis.verdict.rawValue)): \(pair)", details: details)
        case .notVulnerable:
            if isPKCS1, analysis.everyClassAcknowledgedAlike {
                return try implicitRejection(classes: classes, observations: observations, details: details, timed: timed, rule: nil)
            }
            if let accepted = analysis.acceptedMalformed.first {
                throw CheckFailure("the server acknowledged undecryptable ciphertexts: class \(accepted.name) (\(accepted.about)) answered \(analysis.signature(accepted)?.signature ?? "")",
                                   details: details)
            }
            let refusal = analysis.refusalGroups.first?.signature ?? "nothing"
            run.finding("padding-oracle.phone-to-pi", weak: false,
                        "ROBOT-style audit (\(rounds)): \(analysis.verdict.rawValue) — every malformed class answered \(refusal)")
            return .passed
        }
    }

    /// The plaintext rule the answers follow, if any: every well-formed probe acknowledged exactly
    /// when the rule accepts its plaintext (and at least one of each), one refusal for every refused
    /// probe and one acknowledgement for every acknowledged one. Malformed probes may be
    /// acknowledged too: implicit rejection's synthetic plaintexts meeting the same rule.
    func plaintextRule(_ classes: [ProbeClass], _ observations: [String: [Observation]]) -> PlaintextRule? {
        let all = classes.flatMap { observations[$0.name] ?? [] }
        let wellFormed = classes.filter(\.oracle.wellFormed).flatMap { observations[$0.name] ?? [] }
        guard Set(all.filter(\.sample.accepted).map(\.sample.signature)).count == 1,
              Set(all.filter { !$0.sample.accepted }.map(\.sample.signature)).count == 1 else { return nil }
        let rule = PlaintextRule.utf8
        var seen = (accepted: false, refused: false)
        for observation in wellFormed {
            guard let message = pkcs1Message(observation.block), rule.predicts(accepted: observation.sample.accepted, plaintext: message) else { return nil }
            if observation.sample.accepted { seen.accepted = true } else { seen.refused = true }
        }
        return seen.accepted && seen.refused ? rule : nil
    }

    /// A PKCS#1 v1.5 server acknowledged malformed classes (every one alike, or as a plaintext rule
    /// allows): consistent with implicit rejection. With the digest extension the answers must
    /// show what implicit rejection is (SyntheticDigestRule): no digest of the block's own bytes
    /// (a lenient decoder), of the empty string, of the ciphertext, or shared with another
    /// ciphertext (a sentinel: a padding oracle); the same ciphertext under the same key gets the
    /// same digest again. A server that sends a new key on every connection leaves determinism
    /// unprovable, which is said, not failed.
    func implicitRejection(classes: [ProbeClass], observations: [String: [Observation]], details: String, timed: Bool,
                           rule: PlaintextRule?) throws -> CheckOutcome {
        let malformed = classes.filter { !$0.oracle.wellFormed }
        let acknowledged = malformed.flatMap { cls in (observations[cls.name] ?? []).filter(\.sample.accepted).map { (cls, $0) } }
        let ruleText = rule.map { " (the rest refused by the plaintext rule: the server \($0.rawValue))" } ?? ""
        guard offersDigest else {
            run.finding(ImplicitRejection.findingName, weak: true, gating: false, implicitRejectionFindingText(
                shown: "consistent with implicit rejection, not shown: \(acknowledged.count) malformed probes were acknowledged\(ruleText), "
                    + "but without the digest extension a decoder that returns a fixed sentinel for a bad padding cannot be told from it", timing: timed))
            return .passed
        }
        var probes: [AcknowledgedMalformed] = []
        for (cls, observation) in acknowledged {
            switch ImplicitRejection.classify(digest: observation.sample.digest, block: observation.block) {
            case .realPlaintext(let length):
                throw CheckFailure("a lenient PKCS#1 v1.5 decoder: class \(cls.name) (\(cls.oracle.about)) was acknowledged with the digest of the last \(length) bytes of its block — real bytes of a malformed encoding, not implicit rejection's synthetic plaintext",
                                   details: "block: \(observation.block.hexString)\ndigest: \(observation.sample.digest ?? "")\n" + details)
            case .unverified:
                throw CheckFailure("class \(cls.name) was acknowledged without the digest the server sends elsewhere: \(observation.sample.signature)", details: details)
            case .synthetic(let digest):
                probes.append(AcknowledgedMalformed(className: cls.name, ciphertext: observation.ciphertext, block: observation.block,
                                                    digest: digest, keyModulus: observation.keyModulus))
            }
        }
        let wellFormed = classes.filter(\.oracle.wellFormed).flatMap { cls in
            (observations[cls.name] ?? []).compactMap { observation in observation.sample.digest.map { (className: cls.name, digest: $0) } }
        }
        // A digest that is not a fresh synthetic message's gets fresh ciphertexts of its class
        // before any verdict: an empty or repeated synthetic message happens by chance (about
        // 1/(k − 10) each), a sentinel every time. So a class is an oracle only when every one of
        // its fresh ciphertexts is suspicious too: chance does that with probability about
        // (1/(k − 10))^3, a sentinel always.
        let suspicious = probes.compactMap { probe in
            SyntheticDigestRule.suspicion(of: probe, among: probes, wellFormed: wellFormed).map { (probe, $0) }
        }
        var coincidences = 0
        if !suspicious.isEmpty {
            var sentinelLike: [(AcknowledgedMalformed, String)] = []
            var seen = probes
            for name in Set(suspicious.map(\.0.className)).sorted() {
                guard let cls = classes.first(where: { $0.name == name }) else { continue }
                var fresh: [(AcknowledgedMalformed, String?)] = []
                for index in 0..<SyntheticDigestRule.freshProbes {
                    let observation = try observe(cls, tag: "fresh\(index)")
                    guard observation.sample.accepted, let digest = observation.sample.digest else { continue }
                    let probe = AcknowledgedMalformed(className: name, ciphertext: observation.ciphertext, block: observation.block,
                                                      digest: digest, keyModulus: observation.keyModulus)
                    fresh.append((probe, SyntheticDigestRule.suspicion(of: probe, among: seen, wellFormed: wellFormed)))
                    seen.append(probe)
                }
                if !fresh.isEmpty, fresh.allSatisfy({ $0.1 != nil }) {
                    sentinelLike += fresh.compactMap { probe, why in why.map { (probe, $0) } }
                }
            }
            if !sentinelLike.isEmpty { throw SyntheticDigestRule.oracleFailure(suspicious, fresh: sentinelLike) }
            coincidences = suspicious.count
        }
        // Determinism: the first probe of each malformed class sent again on a fresh connection.
        var repeated: [String] = [], unprovable = 0
        for cls in malformed {
            guard let first = probes.first(where: { $0.className == cls.name }) else { continue }
            let again = try socket.acknowledgement(of: first.ciphertext)
            guard again.keyModulus == first.keyModulus else { unprovable += 1; continue }
            guard again.digest == first.digest else {
                throw CheckFailure("the same class \(cls.name) ciphertext, sent twice under the same key, was acknowledged with different digests (\(first.digest.prefix(16))… then \(again.digest?.prefix(16) ?? "none")…): not implicit rejection, which is deterministic",
                                   details: details)
            }
            repeated.append(cls.name)
        }
        let determinism = repeated.isEmpty
            ? "determinism not provable: the server sent a different key on each re-probe's connection (\(unprovable) tried), so the same ciphertext could not be sent again under the same key"
            : "deterministic: the same ciphertext sent again under the same key got the same digest (\(repeated.count) classes)"
                + (unprovable > 0 ? "; \(unprovable) re-probes got a new key and could not be compared" : "")
        let distinct = Set(probes.map(\.digest)).count
        run.note("implicit-rejection-digests", "\(probes.count) acknowledged, \(distinct) distinct")
        run.finding(ImplicitRejection.findingName, weak: true, gating: false, implicitRejectionFindingText(
            shown: "consistent with implicit rejection, as far as answers show: \(probes.count) malformed ciphertexts acknowledged\(ruleText) with \(distinct) distinct digests, "
                + "none of the empty string, of the ciphertext, of bytes of its own block, or of another class's"
                + (coincidences > 0 ? " (\(coincidences) that looked so were chance: fresh ciphertexts of their classes were not)" : "")
                + "; \(determinism)", timing: timed))
        return .passed
    }

    /// What one probe sent and what it got back.
    struct Observation {
        let sample: OracleSample
        let ciphertext: Data
        /// The encoding the ciphertext decrypts to under the server's key.
        let block: Data
        /// The modulus (hex) of the key the server sent on this probe's connection.
        let keyModulus: String
    }

    /// One probe: connect, `Client: OK`, the server's key, then `encrypted_message=` and the class's ciphertext.
    func observe(_ cls: ProbeClass, tag: String) throws -> Observation {
        let probe = try ProbeConnection(run)
        defer { probe.close() }
        let key = try probe.requestServerKey()
        let (ciphertext, block) = try self.ciphertext(cls, key: key, tag: tag)
        probe.send(Data(RSASocket.encryptedPrefix.utf8) + ciphertext)
        let answer = probe.readAnswer(isWhole: { socket.isWholeAnswer($0, on: probe, digest: offersDigest) })
        let messages = probe.messages(answer.bytes)
        let accepted = messages.first?.starts(with: Data(RSASocket.ok.utf8)) ?? false
        let signature: String
        if messages.isEmpty {
            signature = answer.end == .closed ? "nothing (closed)" : "nothing, and no close by our \(seconds(options.timeout)) deadline"
        } else {
            let text = messages.map(normalized).joined(separator: " + ")
            switch answer.end {
            case .closed: signature = "\(text) (closed)"
            case .silent, .quiet, .complete:
                switch accepted ? probe.afterwardsQuit() : probe.afterwardsHello() {
                case .closed: signature = "\(text) (closed" + (accepted ? " on Quit)" : ")")
                case .readOn(let bytes):
                    let next = probe.messages(bytes).map(normalized).joined(separator: " + ")
                    signature = accepted ? "\(text) (Quit answered \(next))" : "\(text) (did not close: it answered our next `Client: OK` with \(next))"
                case .open: signature = "\(text) (still open, and silent, at our deadline)"
                }
            }
        }
        let sample = OracleSample(signature: signature, accepted: accepted, latency: answer.latency,
                                  digest: messages.first.flatMap(ImplicitRejection.digest(in:)))
        return Observation(sample: sample, ciphertext: ciphertext, block: block, keyModulus: key.info.modulusHex)
    }

    /// The class's encoding under `key`, from seeded bytes. A PKCS#1 server's "other scheme"
    /// encoding must not begin 00 02 by chance (it would then be a valid PKCS#1 block); in legacy
    /// framing the ciphertext avoids line-end bytes (see isBinaryBenign).
    func ciphertext(_ cls: ProbeClass, key: RSAPublicKey, tag: String) throws -> (ciphertext: Data, block: Data) {
        var generator = run.generator("\(checkName).\(cls.name).\(tag)")
        // The encodings need room for their fixed parts (PKCS#1: 11 bytes; OAEP: 2·hLen + 2).
        guard key.modulusByteCount > (padding.oaepParameters.map { 2 * $0.hash.byteCount + 2 } ?? 11) else {
            throw CheckFailure("the server's key (\(key.bits) bits) is too small for \(padding)")
        }
        var block = Data()
        if let ciphertext = try sendableCiphertext(framing: options.framing, {
            let message = cls.message ?? Data([0xff]) + generator.bytes(23)  // 0xff begins no UTF-8 sequence
            block = cls.probe.encode(message, k: key.modulusByteCount, padding: padding, random: &generator)
            if isPKCS1, cls.probe == .otherScheme, block.count > 1, block[1] == 0x02 { return nil }
            return try key._WEAK_AND_INSECURE_textbookEncrypt(block)
        }) { return (ciphertext, block) }
        throw CheckFailure("no ciphertext for class \(cls.name) free of line-end bytes in 10,000 tries")
    }

    /// `Server: OK sha256=<hex>` differs per plaintext; the digest's presence is what counts here.
    func normalized(_ message: Data) -> String {
        let digest = Data("Server: OK sha256=".utf8)
        if message.starts(with: digest) { return "\"Server: OK sha256=…\"" }
        if message.starts(with: Data(RSASocket.keyPrefix.utf8)) { return "\"public_key=…\"" }
        return ProbeConnection.describeMessage(message)
    }

    /// `--timing N`: latency to the answer per refused class; under implicit rejection (every
    /// class acknowledged) the acknowledged malformed classes against the well-formed ones, the
    /// channel the Marvin attack measures. Reported in the audit, never in the verdict. True when
    /// timing was measured.
    func measureTiming(analysis: OracleAnalysis, classes: [ProbeClass], samples count: Int, acknowledgedMalformed: Bool) -> Bool {
        let timed = acknowledgedMalformed ? classes : classes.filter { cls in analysis.refused.contains { $0.name == cls.name } }
        run.timingFinding("timing.rsa-padding", refused: timed, named: \.name, rounds: count) { probeClass, round in
            try observe(probeClass, tag: "timing\(round)").sample.latency
        }
        return timed.count >= 2
    }
}
