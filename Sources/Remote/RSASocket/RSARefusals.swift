import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// Malformed input, one class at a time, each followed by a known-good conversation
/// (`liveness.after-<class>`). The probes follow the conversation as a client does: a ciphertext
/// goes only after the server's whole key has arrived, and where the point is "no more bytes are
/// coming" the probe half-closes, so that a legacy server that waits for the rest of a message
/// (which legacy framing allows) learns that nothing else will come.
extension RemoteRSASocket {
    struct MalformedInput {
        let name: String
        /// Send `Client: OK` and wait for the server's key first; `payload` gets the key.
        let afterKey: Bool
        /// The bytes on the wire (already framed where the class wants a frame).
        let payload: (_ key: RSAPublicKey?) throws -> Data
        /// Half-close after the payload: the message is unfinished and nothing more will come.
        let halfClose: Bool
        /// The size-limit class: a refusal may be a bare close; in legacy framing no refusal at
        /// all (still waiting at our deadline) is an audit weakness, not a failure.
        var isLimit = false
        /// A k-byte ciphertext below the modulus whose only fault is its padding: a PKCS#1 v1.5
        /// server with implicit rejection acknowledges it (ImplicitRejection).
        var onlyThePaddingIsWrong = false
        /// A client key with e = 1: a server that encrypts its message to it sends the message in
        /// the clear, which is a weakness finding with the message as evidence, not a failure.
        var exponentOneKey = false
    }

    /// Each class must get `Server: ERROR` and a close (docs/PROTOCOL.md, rsa-socket 4 and
    /// "Framing"). For the ciphertext classes the sources agree on a refusal, with one exception:
    /// - a ciphertext whose length is not k: RFC 8017 §7.2.2 step 1 ("If the length of the
    ///   ciphertext C is not k octets, output 'decryption error'"); pyca/cryptography checks it itself
    ///   ("Ciphertext length must be equal to key size"). OpenSSL alone refuses only a longer one
    ///   (`crypto/rsa/rsa_ossl.c` `rsa_ossl_private_decrypt`: RSA_R_DATA_GREATER_THAN_MOD_LEN); since
    ///   3.2 a shorter one is read as 00‖C and, with implicit rejection, answered with a synthetic
    ///   plaintext (`derive_kdk` zero-extends it), so a server calling OpenSSL directly acknowledges
    ///   it — still a failure here, by RFC 8017 and the protocol's k-byte ciphertexts;
    /// - a ciphertext not below the modulus: RFC 8017 §5.1.2 RSADP step 1 ("ciphertext
    ///   representative out of range"); OpenSSL `rsa_ossl_private_decrypt` (RSA_R_DATA_TOO_LARGE_FOR_MODULUS);
    /// - a block that no padding accepts (undecryptable-ciphertext, first byte 01): refused, except
    ///   that a PKCS#1 v1.5 server with implicit rejection acknowledges it (`acknowledgedImplicitly`).
    func malformedInputs() -> [MalformedInput] {
        let framing = options.framing
        let framed = framing == .framed
        let encrypted = Data(RSASocket.encryptedPrefix.utf8)
        func k(_ key: RSAPublicKey?) -> Int { key?.modulusByteCount ?? 256 }
        var classes: [MalformedInput] = [
            MalformedInput(name: "garbage", afterKey: false, payload: { _ in framing.encode(Data("GET / HTTP/1.1\r\n\r\n".utf8)) }, halfClose: false),
            // Framed: a header announcing 10 bytes and 4 of them; legacy: a prefix of `Client: OK`.
            MalformedInput(name: "half-a-message", afterKey: false,
                           payload: { _ in framed ? Data([0, 0, 0, 10]) + Data("Clie".utf8) : Data("Client: O".utf8) }, halfClose: true),
            // Legacy: the server may wait for the missing byte (legacy framing allows it) until we half-close.
            MalformedInput(name: "short-ciphertext", afterKey: true, payload: { key in
                var generator = run.generator("refuses.short-ciphertext")
                return framing.encode(encrypted + generator.bytes(k(key) - 1))
            }, halfClose: !framed),
            MalformedInput(name: "undecryptable-ciphertext", afterKey: true, payload: { key in
                framing.encode(encrypted + (try undecryptableCiphertext(key).ciphertext))
            }, halfClose: false, onlyThePaddingIsWrong: true),
            MalformedInput(name: "ciphertext-over-the-modulus", afterKey: true, payload: { key in
                framing.encode(encrypted + Data(repeating: 0xff, count: k(key)))
            }, halfClose: false),
            MalformedInput(name: "malformed-public-key", afterKey: false, payload: { _ in
                framing.encode(Data("public_key=-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----\n".utf8))
            }, halfClose: false),
            // docs/PROTOCOL.md "Padding and keys" (RFC 8017 §3.1: 3 ≤ e < n): well-formed DER around
            // a 2048-bit odd "modulus" and e = 1, which a server must refuse before it encrypts.
            MalformedInput(name: "client-key-exponent-1", afterKey: false, payload: { _ in
                var generator = run.generator("refuses.client-key-exponent-1")
                var modulus = [UInt8](generator.bytes(256))
                modulus[0] |= 0x80
                modulus[255] |= 1
                let pem = RSAInvalidKeys.spkiPEM(modulus: Data(modulus), exponent: Data([1]))
                return framing.encode(Data(RSASocket.keyPrefix.utf8) + pem + Data("\n".utf8))
            }, halfClose: false, exponentOneKey: true),
        ]
        if framed {
            // In a frame the length is known, so a ciphertext one byte too long is plainly wrong.
            classes.insert(MalformedInput(name: "long-ciphertext", afterKey: true, payload: { key in
                var generator = run.generator("refuses.long-ciphertext")
                return framing.encode(encrypted + generator.bytes(k(key) + 1))
            }, halfClose: false), at: 3)
        }
        // Framed: a length over the protocol's 65536; legacy: a public key that never ends.
        classes.append(MalformedInput(name: "message-over-the-limit", afterKey: false, payload: { _ in
            framed ? Data([0, 1, 0, 1]) + Data(count: 64)
                   : Data("public_key=-----BEGIN PUBLIC KEY-----\n".utf8) + Data(repeating: 0x41, count: Self.legacyFloodBytes)
        }, halfClose: false, isLimit: true))
        return classes
    }

    static let legacyFloodBytes = 70_000

    /// A PKCS#1 v1.5 server acknowledged a ciphertext whose padding is wrong. With the digest
    /// extension that must look like implicit rejection (SyntheticDigestRule): a digest of none of
    /// the block's bytes; another undecryptable ciphertext gets another digest, and not the empty
    /// string's or its ciphertext's twice (a sentinel); the same ciphertext under the same key gets
    /// the same digest again. Without it, it is only consistent with implicit rejection.
    func acknowledgedImplicitly(_ input: MalformedInput, key: RSAPublicKey, digest: String?, facts: ServerFacts) throws -> CheckOutcome {
        let (ciphertext, block) = try undecryptableCiphertext(key)
        switch ImplicitRejection.classify(digest: digest, block: block) {
        case .realPlaintext(let length):
            throw CheckFailure("the server acknowledged \(input.name) with the digest of the last \(length) bytes of its decrypted block (which begins 01, not 00 02): a lenient PKCS#1 v1.5 decoder, not implicit rejection",
                               details: "block: \(block.hexString)\ndigest: \(digest ?? "")")
        case .unverified:
            if facts.offersDigest {
                throw CheckFailure("the server acknowledged \(input.name) without the digest it sends for real plaintexts")
            }
            run.finding(ImplicitRejection.findingName, weak: true, gating: false, implicitRejectionFindingText(
                shown: "consistent with implicit rejection, not shown: \(input.name), a ciphertext whose block begins 01, was answered \"Server: OK\" (without the digest extension a fixed sentinel cannot be told from it)",
                timing: false))
            return .passed
        case .synthetic(let first):
            let probe = AcknowledgedMalformed(className: input.name, ciphertext: ciphertext, block: block, digest: first, keyModulus: key.info.modulusHex)
            // Another undecryptable ciphertext must get another digest: a sentinel gives the same one
            // (or the empty string's, or the ciphertext's, again). A synthetic message is empty now
            // and then by chance, so one suspicious digest alone is not a verdict.
            if let fresh = try freshUndecryptableAcknowledgement() {
                let why = SyntheticDigestRule.suspicion(of: probe, among: [], wellFormed: [])
                if let again = SyntheticDigestRule.suspicion(of: fresh, among: [probe], wellFormed: []),
                   why != nil || fresh.digest == probe.digest {
                    throw SyntheticDigestRule.oracleFailure(why.map { [(probe, $0)] } ?? [], fresh: [(fresh, again)])
                }
            }
            let again = try acknowledgement(of: ciphertext)
            guard again.keyModulus == probe.keyModulus else {
                run.finding(ImplicitRejection.findingName, weak: true, gating: false, implicitRejectionFindingText(
                    shown: "consistent with implicit rejection, as far as answers show: \(input.name) acknowledged with a digest of none of its block's bytes; determinism not provable: the server sent another key on the next connection",
                    timing: false))
                return .passed
            }
            guard again.digest == first else {
                throw CheckFailure("the server acknowledged the same \(input.name) ciphertext twice under the same key with different digests (\(first.prefix(16))… then \(again.digest?.prefix(16) ?? "none")…): not implicit rejection, which is deterministic")
            }
            run.finding(ImplicitRejection.findingName, weak: true, gating: false, implicitRejectionFindingText(
                shown: "consistent with implicit rejection, as far as answers show: \(input.name) acknowledged with a digest of none of its block's bytes, the same when sent again under the same key",
                timing: false))
            return .passed
        }
    }

    /// What the server answered `ciphertext` with on a fresh connection: the digest of its
    /// acknowledgement (nil: none) and the key it sent on that connection (a server may make one per connection).
    func acknowledgement(of ciphertext: Data) throws -> (digest: String?, keyModulus: String) {
        let probe = try ProbeConnection(run)
        defer { probe.close() }
        let key = try probe.requestServerKey()
        probe.send(Data(RSASocket.encryptedPrefix.utf8) + ciphertext)
        let answer = probe.readAnswer(isWhole: { isWholeAnswer($0, on: probe, digest: true) })
        return (probe.messages(answer.bytes).first.flatMap(ImplicitRejection.digest(in:)), key.info.modulusHex)
    }

    /// Another undecryptable ciphertext (a block beginning 01), under the key of a fresh
    /// connection, and its acknowledgement; nil when the server refused it.
    func freshUndecryptableAcknowledgement() throws -> AcknowledgedMalformed? {
        let probe = try ProbeConnection(run)
        defer { probe.close() }
        let key = try probe.requestServerKey()
        var generator = run.generator("refuses.undecryptable-ciphertext.fresh")
        var block = Data()
        guard let ciphertext = try sendableCiphertext(framing: options.framing, {
            block = Data([0x01]) + generator.bytes(key.modulusByteCount - 1)
            return try key._WEAK_AND_INSECURE_textbookEncrypt(block)
        }) else { return nil }
        probe.send(Data(RSASocket.encryptedPrefix.utf8) + ciphertext)
        let answer = probe.readAnswer(isWhole: { isWholeAnswer($0, on: probe, digest: true) })
        guard let digest = probe.messages(answer.bytes).first.flatMap(ImplicitRejection.digest(in:)) else { return nil }
        return AcknowledgedMalformed(className: "undecryptable-ciphertext (fresh)", ciphertext: ciphertext, block: block, digest: digest,
                                     keyModulus: key.info.modulusHex)
    }

    /// k bytes below the modulus whose raw decryption starts with a non-zero byte: no padding
    /// scheme accepts it. In legacy framing it holds no line-end or trailing-whitespace byte, so a
    /// reader that damages those cannot turn it into something else.
    /// The same bytes every call for the same key and seed; `block` is what the ciphertext decrypts to.
    func undecryptableCiphertext(_ key: RSAPublicKey?) throws -> (ciphertext: Data, block: Data) {
        guard let key else { return (Data(repeating: 0xff, count: 256), Data()) }
        var generator = run.generator("refuses.undecryptable-ciphertext")
        var block = Data()
        if let ciphertext = try sendableCiphertext(framing: options.framing, {
            block = Data([0x01]) + generator.bytes(key.modulusByteCount - 1)
            return try key._WEAK_AND_INSECURE_textbookEncrypt(block)
        }) { return (ciphertext, block) }
        throw CheckFailure("no undecryptable ciphertext free of line ends was found in 10,000 tries")
    }

    func checkMalformedInputs(padding: RSAEncryptionPadding, facts: ServerFacts) {
        for input in malformedInputs() {
            run.step("refuses.\(input.name)", profile: profile) { try checkRefusal(input, padding: padding, facts: facts) }
            run.liveness("liveness.after-\(input.name)", profile: profile, after: input.name) {
                try aliveConversation(padding: padding, facts: facts)
            }
        }
    }

    /// A refusal is exactly `Server: ERROR` and a close; said apart: answered wrong, closed
    /// without an answer, still waiting at our deadline, answered but did not close. The one
    /// exception is a PKCS#1 v1.5 server's acknowledgement of a ciphertext whose only fault is its
    /// padding: implicit rejection, checked by `acknowledgedImplicitly`.
    func checkRefusal(_ input: MalformedInput, padding: RSAEncryptionPadding, facts: ServerFacts) throws -> CheckOutcome {
        let probe = try ProbeConnection(run)
        defer { probe.close() }
        let key = input.afterKey ? try probe.requestServerKey() : nil
        let sent = probe.send(try input.payload(key), raw: true)
        if input.halfClose && sent { probe.halfClose() }
        let implicitRejectionApplies = input.onlyThePaddingIsWrong && padding.oaepParameters == nil
        let answer = probe.readAnswer(isWhole: { isWholeAnswer($0, on: probe, digest: implicitRejectionApplies && facts.offersDigest) })
        let messages = probe.messages(answer.bytes)
        if implicitRejectionApplies, let key, let first = messages.first, first.starts(with: Data(RSASocket.ok.utf8)) {
            return try acknowledgedImplicitly(input, key: key, digest: ImplicitRejection.digest(in: first), facts: facts)
        }
        if input.exponentOneKey, let first = messages.first, let clear = RSAInvalidKeys.messageInTheClear(first) {
            run.finding("client-key-exponent-1", weak: true,
                        "the server encrypted its message to a client key with e = 1, which is no RSA key (RFC 8017 §3.1: 3 ≤ e < n): "
                        + "the \(first.count)-byte \"ciphertext\" is the \(clear.padding)-encoded message in the clear, read back here as "
                        + "\(ProbeConnection.describeMessage(clear.message)) — refuse such a key with \"Server: ERROR\" before encrypting to it "
                        + "(pyca/cryptography >= 42 and crosscheck's servers refuse it at load)")
            return .passed
        }
        let name = input.name
        let legacyLimit = input.isLimit && options.framing == .legacy
        let error = Data(RSASocket.error.utf8)

        if messages.isEmpty {
            switch answer.end {
            case .closed where input.isLimit:
                if legacyLimit { run.finding("legacy-message-size", weak: false, "the server refuses a legacy message of \(Self.legacyFloodBytes) bytes (it closed the connection)") }
                return .passed
            case .closed:
                throw CheckFailure("the server closed the connection on \(name) without answering \"Server: ERROR\"")
            default:
                if legacyLimit {
                    run.finding("legacy-message-size", weak: true,
                                "the server buffers a legacy message without bound: an unfinished public key of \(Self.legacyFloodBytes) bytes was neither refused nor answered within \(seconds(options.timeout)) — legacy framing sets no limit, but memory an attacker controls should have one (refuse a message over a few KiB)")
                    return .passed
                }
                if input.isLimit {
                    throw CheckFailure("the server did not refuse a frame of 65537 bytes, over the protocol's limit of \(Framing.defaultMaxMessage): it was still waiting for the frame's bytes at our \(seconds(options.timeout)) deadline")
                }
                throw CheckFailure("the server neither answered nor closed within \(seconds(options.timeout)) of \(name)"
                                   + (input.halfClose ? ", although we had half-closed (no more bytes were coming)" : ""))
            }
        }
        guard messages == [error] else {
            throw CheckFailure("the server answered \(name) with \(probe.describe(answer.bytes)), not exactly \"Server: ERROR\"\(endPhrase(answer.end))",
                               details: "answer: \(Expect.preview(answer.bytes))")
        }
        if legacyLimit { run.finding("legacy-message-size", weak: false, "the server refuses a legacy message of \(Self.legacyFloodBytes) bytes (\"Server: ERROR\")") }
        if answer.end == .closed { return .passed }
        switch probe.afterwardsHello() {
        case .closed: return .passed
        case .readOn(let bytes):
            throw CheckFailure("the server did not close after refusing \(name): it read on and answered a further `Client: OK` with \(probe.describe(bytes)) — after \"Server: ERROR\" a server reads nothing more")
        case .open:
            throw CheckFailure("the server did not close after refusing \(name): the connection was still open \(seconds(options.timeout)) later")
        }
    }
}

/// No line-end byte anywhere and no ASCII whitespace at the end: what a legacy reader that strips
/// or splits at line ends leaves intact (binary safety is checked on its own; the probes that
/// test other things must not depend on it).
func isBinaryBenign(_ ciphertext: Data) -> Bool {
    let hazards = LineEndHazards(ciphertext)
    return !hazards.lf && !hazards.cr && !hazards.endsInWhitespace
}

/// What a legacy reader could damage in a ciphertext, found in one pass over its bytes: the probes
/// judge thousands of draws a run, and Data's generic searches cost more than the RSA encryption
/// of each draw.
struct LineEndHazards {
    private(set) var lf = false
    private(set) var cr = false
    private(set) var crlf = false
    private(set) var endsInWhitespace = false

    init(_ ciphertext: Data) {
        ciphertext.withUnsafeBytes { bytes in
            var previous: UInt8 = 0
            for byte in bytes {
                if byte == 0x0a {
                    lf = true
                    if previous == 0x0d { crlf = true }
                } else if byte == 0x0d {
                    cr = true
                }
                previous = byte
            }
            endsInWhitespace = bytes.last.map(isASCIIWhitespace) ?? false
        }
    }
}

/// The first ciphertext `make` returns that a probe may send: any in framed mode, a binary-benign
/// one in legacy framing; `make` returns nil for a draw to skip. Nil after 10,000 draws.
func sendableCiphertext(framing: Framing, _ make: () throws -> Data?) rethrows -> Data? {
    for _ in 0..<10_000 {
        guard let ciphertext = try make() else { continue }
        if framing == .framed || isBinaryBenign(ciphertext) { return ciphertext }
    }
    return nil
}
