import Foundation
import Conformance
import WireCrypto

/// Wycheproof vectors as checks: one testcase per vector and implementation, named
/// `<file>.tc<tcId>`, in the testsuite `wycheproof.<file>.<implementation>`.
///
/// Semantics: a `valid` vector must decrypt (or open) to `msg`, and where the cipher is
/// deterministic (AES-GCM, ChaChaPoly, AES-CBC) encrypting `msg` must give the vector's bytes; an
/// `invalid` one must be refused without releasing anything; an `acceptable` one passes either way,
/// its outcome recorded in the ledger. What came back is classified as an error, the real
/// plaintext (`msg`), or a synthetic plaintext (any other bytes: implicit rejection, or a bug).
/// AEAD vectors run through CryptoKit's combined form (96-bit nonces) or its separate parts
/// (longer AES-GCM nonces); a vector no Apple API can express (a shorter nonce, a tag other than
/// 128 bits) is skipped with the reason, never passed; so is one an implementation answers
/// `Unsupported` (pyca takes AES-GCM nonces of at most 128 bytes).
///
/// Signature files (RSA PKCS#1 v1.5 and PSS, ECDSA DER and P1363, Ed25519): a `valid` signature
/// must verify, an `invalid` one must not. Key agreement (ECDH, X25519) and HKDF files: a `valid`
/// vector must give exactly `shared` or `okm`, an `invalid` one must be refused. `acceptable`
/// passes either way, but bytes it gives must be the expected ones. These run through each
/// implementation's `PrimitivePeer` calls.
public enum WycheproofChecks {
    /// Flags whose vectors must all fail the same way on an implementation (the notes ask for it:
    /// different answers for different bad paddings are a Bleichenbacher or Manger oracle).
    public static let oracleFlags = ["InvalidPkcs1Padding", "InvalidOaepPadding"]

    /// Checks for the files at `urls`, each implementation in turn; with two peers also a
    /// cross-implementation comparison of the oracle vectors. A file that does not load becomes
    /// one error testcase that says why, so a report cannot silently lose a file.
    public static func checks(files urls: [URL], peers: [CryptoPeer], ledger: WycheproofLedger? = nil) -> [Check] {
        urls.flatMap { url -> [Check] in
            do { return checks(for: try WycheproofFile.load(contentsOf: url), peers: peers, ledger: ledger) } catch {
                return [loadFailure(url.lastPathComponent, error)]
            }
        }
    }

    public static func checks(for file: WycheproofFile, peers: [CryptoPeer], ledger: WycheproofLedger? = nil) -> [Check] {
        var checks: [Check] = []
        let vectors = file.groups.flatMap { group in group.tests.map { (plan: VectorPlan(file: file, group: group, test: $0), test: $0) } }
        for peer in peers {
            let suite = "wycheproof.\(file.stem).\(peer.name)"
            for (plan, test) in vectors {
                let name = "\(file.stem).tc\(test.tcId)"
                checks.append(Check(suite: suite, classname: "crosscheck.\(plan.profile).wycheproof_to_\(peer.name)", name: name,
                                    properties: properties(file, test, plan)) {
                    let outcome = try vectorOutcome(plan, test, peer: peer)
                    ledger?.record(suite: suite, name: name, outcome: outcome.ledgerText)
                    return outcome.verdict
                })
            }
            for flag in oracleFlags {
                let flagged = vectors.filter { $0.test.flags.contains(flag) }.map(\.plan)
                guard let profile = flagged.first?.profile else { continue }
                checks.append(Check(suite: suite, classname: "crosscheck.\(profile).wycheproof_to_\(peer.name)",
                                    name: "\(file.stem).oracle.\(flag)",
                                    properties: ["file": file.fileName, "flag": flag, "vectors": String(flagged.count)]) {
                    try oracleOutcome(flagged, flag: flag, peer: peer)
                })
            }
        }
        if peers.count == 2 {
            let (first, second) = (peers[0], peers[1])
            for flag in oracleFlags {
                let flagged = vectors.filter { $0.test.flags.contains(flag) }.map(\.plan)
                guard let profile = flagged.first?.profile else { continue }
                let relation = "\(first.name)_vs_\(second.name)"
                checks.append(Check(suite: "wycheproof.\(file.stem).\(relation)", classname: "crosscheck.\(profile).\(relation)",
                                    name: "\(file.stem).oracle.\(flag)",
                                    properties: ["file": file.fileName, "flag": flag, "vectors": String(flagged.count)]) {
                    try sameRefusals(flagged, flag: flag, first, second)
                })
            }
        }
        return checks
    }

    /// The testcase that stands for a file the loader refused.
    public static func loadFailure(_ fileName: String, _ error: Error) -> Check {
        let stem = fileName.hasSuffix(".json") ? String(fileName.dropLast(5)) : fileName
        return Check(suite: "wycheproof.\(stem)", classname: "crosscheck.wycheproof.load", name: stem,
                     properties: ["file": fileName]) {
            .error(message: "cannot run \(fileName): \(error)", details: "\(error)")
        }
    }

    static func properties(_ file: WycheproofFile, _ test: WycheproofFile.Test, _ plan: VectorPlan) -> [String: String] {
        var properties = ["file": file.fileName, "tcId": String(test.tcId), "result": test.result.rawValue,
                          "flags": test.flags.joined(separator: ","), "comment": test.comment]
        if !plan.weaknesses.isEmpty { properties["weakness"] = plan.weaknesses.joined(separator: "; ") }
        // Known before running: what kind of parameter makes the vector inexpressible here.
        if let reason = plan.skipReason { properties["skip"] = String(reason.prefix { $0 != ":" }) }
        return properties
    }

    // MARK: verdicts

    struct VectorOutcome {
        var verdict: CheckOutcome
        var ledgerText: String
    }

    static func vectorOutcome(_ plan: VectorPlan, _ test: WycheproofFile.Test, peer: CryptoPeer) throws -> VectorOutcome {
        guard let run = plan.run else {
            return VectorOutcome(verdict: .skipped(reason: plan.skipReason ?? "not runnable"), ledgerText: "skipped")
        }
        let observed = Observation(peer) { try run.open(peer) }
        let seen = observed.classified(expected: run.expected, output: run.output)
        let what = "\(plan.fileName) tcId \(test.tcId) (\(test.result.rawValue)\(test.flags.isEmpty ? "" : ", " + test.flags.joined(separator: ", ")))"
        if case let .refused(failure) = observed {
            if failure.kind == .unsupported {
                return VectorOutcome(verdict: .skipped(reason: "\(peer.name) does not support this parameter set: \(failure.detail)"),
                                     ledgerText: seen)
            }
            if failure.kind == .internal {
                throw CheckFailure("\(what): \(peer.name) failed internally (an escaped exception is never a conformant refusal)",
                                   details: failure.detail)
            }
        }
        let context = "comment: \(test.comment)"
        if run.output != .plaintext { return try derivationOutcome(run, test, observed, what: what, context: context, peer: peer, seen: seen) }
        switch (test.result, observed) {
        case (.valid, .plaintext(let plaintext)) where plaintext == test.msg:
            if let seal = run.seal {
                let sealed = Observation(peer) { try seal(peer) }
                switch sealed {
                case let .refused(failure):
                    throw CheckFailure("\(what): \(peer.name) decrypted it but refused to encrypt msg with the same key and IV: \(failure.kind.rawValue)",
                                       details: failure.detail)
                case let .plaintext(bytes) where bytes != run.sealed:
                    try Expect.equalBytes(bytes, run.sealed, "\(what): \(peer.name) encrypting msg with the vector's key and IV")
                default: break
                }
            }
            return VectorOutcome(verdict: .passed, ledgerText: seen)
        case (.valid, .refused(let failure)):
            throw CheckFailure("\(what): valid, but \(peer.name) refused it with \(failure.kind.rawValue): \(failure.detail)", details: context)
        case (.valid, .plaintext(let plaintext)):
            throw CheckFailure("\(what): valid, but \(peer.name) returned a synthetic plaintext (\(plaintext.count) bytes that are not msg)",
                               details: "\(context)\nexpected: \(Expect.preview(test.msg))\nactual:   \(Expect.preview(plaintext))")
        case (.invalid, .refused):
            return VectorOutcome(verdict: .passed, ledgerText: seen)
        case (.invalid, .plaintext(let plaintext)):
            let kind = plaintext == test.msg ? "the real plaintext (msg)" : "a synthetic plaintext (implicit rejection, or a decoding bug)"
            throw CheckFailure("\(what): invalid, but \(peer.name) released \(plaintext.count) bytes: \(kind)",
                               details: "\(context)\nreleased: \(Expect.preview(plaintext))")
        case (.acceptable, _):
            return VectorOutcome(verdict: .passed, ledgerText: seen)
        }
    }

    /// Verifications and derivations: a valid vector must verify, or give exactly the expected bytes;
    /// an invalid one must be refused; an acceptable one may be either, but bytes it gives must be
    /// the expected ones (a wrong shared secret is never conformant).
    static func derivationOutcome(_ run: VectorPlan.Run, _ test: WycheproofFile.Test, _ observed: Observation,
                                  what: String, context: String, peer: CryptoPeer, seen: String) throws -> VectorOutcome {
        let noun = run.output.noun
        switch (test.result, observed) {
        case (_, .plaintext(let bytes)) where bytes != run.expected:
            throw CheckFailure("\(what): \(test.result.rawValue), but \(peer.name) derived other bytes than the vector's \(noun)",
                               details: "\(context)\nexpected: \(Expect.preview(run.expected))\nactual:   \(Expect.preview(bytes))")
        case (.valid, .refused(let failure)):
            throw CheckFailure("\(what): valid, but \(peer.name) refused it with \(failure.kind.rawValue): \(failure.detail)", details: context)
        case (.invalid, .plaintext):
            let accepted = run.output == .verification ? "verified the signature" : "derived the vector's \(noun) from it"
            throw CheckFailure("\(what): invalid, but \(peer.name) \(accepted)", details: context)
        case (.valid, .plaintext), (.invalid, .refused), (.acceptable, _):
            return VectorOutcome(verdict: .passed, ledgerText: seen)
        }
    }

    /// The implementation's signature verification, key agreement and HKDF; a peer without them
    /// (a planted one) skips those vectors.
    static func primitives(_ peer: CryptoPeer) throws -> PrimitivePeer {
        guard let primitives = peer as? PrimitivePeer else {
            throw PeerFailure(.unsupported, "\(peer.name) offers no signature verification, key agreement or HKDF")
        }
        return primitives
    }

    /// Every flagged vector must be refused, all with the same kind and the same text.
    static func oracleOutcome(_ plans: [VectorPlan], flag: String, peer: CryptoPeer) throws -> CheckOutcome {
        var answers: [String: [Int]] = [:]
        var released: [String] = []
        var ran = 0
        for plan in plans {
            guard let run = plan.run else { continue }
            ran += 1
            switch Observation(peer, { try run.open(peer) }) {
            case let .refused(failure) where failure.kind == .unsupported:
                return .skipped(reason: "\(peer.name) does not support this parameter set: \(failure.detail)")
            case let .refused(failure):
                answers["\(failure.kind.rawValue): \(failure.detail)", default: []].append(plan.tcId)
            case let .plaintext(bytes):
                released.append("tcId \(plan.tcId) released \(bytes.count) bytes")
            }
        }
        guard ran > 0 else { return .skipped(reason: "no \(flag) vector of this file can be run here") }
        guard released.isEmpty else {
            throw CheckFailure("\(peer.name) did not refuse every \(flag) vector: \(released.joined(separator: "; "))")
        }
        guard answers.count == 1 else {
            let listing = answers.sorted { $0.key < $1.key }.map { "\($0.key) (tcId \($0.value.map(String.init).joined(separator: ", ")))" }
            throw CheckFailure("\(peer.name) answers \(flag) vectors in \(answers.count) distinguishable ways (a padding oracle)",
                               details: listing.joined(separator: "\n"))
        }
        return .passed
    }

    /// Both implementations refuse each flagged vector with the same kind.
    static func sameRefusals(_ plans: [VectorPlan], flag: String, _ first: CryptoPeer, _ second: CryptoPeer) throws -> CheckOutcome {
        var differences: [String] = []
        var ran = 0
        for plan in plans {
            guard let run = plan.run else { continue }
            let a = Observation(first) { try run.open(first) }, b = Observation(second) { try run.open(second) }
            if case let .refused(x) = a, case let .refused(y) = b {
                if x.kind == .unsupported || y.kind == .unsupported {
                    return .skipped(reason: "\(x.kind == .unsupported ? first.name : second.name) does not support this parameter set")
                }
                ran += 1
                if x.kind != y.kind { differences.append("tcId \(plan.tcId): \(first.name) \(x.kind.rawValue), \(second.name) \(y.kind.rawValue)") }
            } else {
                ran += 1
                differences.append("tcId \(plan.tcId): \(first.name) \(a.classified(expected: nil)), \(second.name) \(b.classified(expected: nil))")
            }
        }
        guard ran > 0 else { return .skipped(reason: "no \(flag) vector of this file can be run here") }
        guard differences.isEmpty else {
            throw CheckFailure("\(first.name) and \(second.name) answer \(differences.count) \(flag) vector(s) differently",
                               details: differences.joined(separator: "\n"))
        }
        return .passed
    }
}

/// What an implementation did with a vector.
enum Observation {
    case refused(PeerFailure)
    case plaintext(Data)

    /// Runs `body`; a refusal is an observation. Peers throw only `PeerFailure`; anything else
    /// counts as `Internal`, which no verdict accepts.
    init(_ peer: CryptoPeer, _ body: () throws -> Data) {
        do { self = .plaintext(try body()) } catch let failure as PeerFailure {
            self = .refused(failure)
        } catch {
            self = .refused(PeerFailure(.internal, "\(peer.name): \(error)"))
        }
    }

    /// error / real plaintext / synthetic plaintext (verified / not verified; the expected bytes or
    /// others), as a report line.
    func classified(expected: Data?, output: VectorPlan.Output = .plaintext) -> String {
        switch (self, output) {
        case (.plaintext, .verification): return "verified"
        case let (.refused(failure), .verification) where failure.kind == .authFailed: return "not verified"
        case let (.plaintext(bytes), .derived(noun)):
            return bytes == expected ? "\(noun) (\(bytes.count) bytes, as expected)" : "other bytes (\(bytes.count), not the \(noun))"
        default: break
        }
        switch self {
        case let .refused(failure): return "error \(failure.kind.rawValue) (\(failure.detail))"
        case let .plaintext(bytes) where expected == bytes: return "real plaintext (\(bytes.count) bytes, = msg)"
        case let .plaintext(bytes) where expected == nil: return "plaintext (\(bytes.count) bytes)"
        case let .plaintext(bytes): return "synthetic plaintext (\(bytes.count) bytes, not msg)"
        }
    }
}

/// How one vector runs on any implementation, or why it cannot.
struct VectorPlan: Sendable {
    struct Run: Sendable {
        /// Decrypt or open the vector's ciphertext; or verify its signature (empty bytes when it
        /// verifies, `AuthFailed` when not); or derive its shared secret or okm.
        let open: @Sendable (CryptoPeer) throws -> Data
        /// For valid vectors of deterministic ciphers: encrypt `msg`; must give `sealed`.
        let seal: (@Sendable (CryptoPeer) throws -> Data)?
        let sealed: Data
        /// What `open` must give for a valid vector: `msg`, nothing, the shared secret or okm.
        let expected: Data
        let output: Output

        init(open: @escaping @Sendable (CryptoPeer) throws -> Data, seal: (@Sendable (CryptoPeer) throws -> Data)?, sealed: Data,
             expected: Data, output: Output = .plaintext) {
            self.open = open; self.seal = seal; self.sealed = sealed; self.expected = expected; self.output = output
        }
    }

    /// What a run returns.
    enum Output: Sendable, Equatable {
        case plaintext
        case verification
        /// Bytes derived from the vector's keys: "shared secret", "okm".
        case derived(String)

        var noun: String {
            switch self {
            case .plaintext: return "msg"
            case .verification: return "signature"
            case let .derived(noun): return noun
            }
        }
    }

    let fileName: String
    let tcId: Int
    let profile: String
    let weaknesses: [String]
    let run: Run?
    let skipReason: String?

    init(file: WycheproofFile, group: WycheproofFile.Group, test: WycheproofFile.Test) {
        fileName = file.fileName
        tcId = test.tcId
        var weaknesses: [String] = []
        var reason: String?
        var run: Run?
        switch group {
        case let .rsa(rsa):
            profile = "rsa-socket"
            if rsa.keySize < 2048 { weaknesses.append(Weakness.smallRSA) }
            var padding: RSAEncryptionPadding?
            if let oaep = rsa.oaep {
                if oaep.mgf != "MGF1" {
                    reason = "mask generation function not MGF1: \(oaep.mgf); the implementations have MGF1 only"
                } else if let hash = Digest(name: oaep.sha), let mgf1 = Digest(name: oaep.mgfSha) {
                    padding = .oaep(hash: hash, mgf1: mgf1, label: test.label)
                } else {
                    let unknown = Digest(name: oaep.sha) == nil ? oaep.sha : oaep.mgfSha
                    reason = "OAEP hash not offered: \(unknown); the implementations offer SHA-1, SHA-224, SHA-256, SHA-384, SHA-512, SHA-512/224 and SHA-512/256"
                }
            } else {
                padding = ._WEAK_AND_INSECURE_PKCS_V1_5
                weaknesses.append(Weakness.pkcs1)
            }
            if let padding {
                let (key, ciphertext) = (rsa.privateKeyPKCS8, test.ct)
                run = Run(open: { try $0.rsaDecrypt(privateKey: key, passphrase: nil, padding: padding, ciphertext: ciphertext) },
                          seal: nil, sealed: Data(), expected: test.msg)
            }
        case let .aead(aead):
            profile = "sealed"
            let algorithm: AEADAlgorithm? = ["AES-GCM": .aesGCM, "CHACHA20-POLY1305": .chaChaPoly][file.algorithm]
            // What Apple's API can express: CryptoKit's AES.GCM.Nonce(data:) takes 12 bytes or more
            // (only 12 fit `combined`; longer ones go through SealedBox(nonce:ciphertext:tag:)),
            // ChaChaPoly.Nonce exactly 12, and a SealedBox a 16-byte tag.
            if algorithm == nil {
                reason = "AEAD not implemented: \(file.algorithm) has no CryptoKit-shaped implementation here (AES-GCM and ChaChaPoly only)"
            } else if algorithm == .aesGCM, test.iv.count < 12 {
                reason = "IV under 96 bits: this one has \(test.iv.count * 8); no Apple API takes it (CryptoKit's AES.GCM.Nonce needs 12 bytes or more)"
            } else if algorithm == .chaChaPoly, aead.ivSize != 96 || test.iv.count != 12 {
                reason = "IV not 96 bits: this one has \(test.iv.count * 8); CryptoKit's ChaChaPoly.Nonce is exactly 96 bits"
            } else if aead.tagSize != 128 || test.tag.count != 16 {
                reason = "tag not 128 bits: this one has \(test.tag.count * 8); a CryptoKit SealedBox carries a 128-bit tag"
            } else if let algorithm, !algorithm.allowedKeySizes.contains(test.key.count) {
                reason = "key size not supported: \(test.key.count * 8) bits; \(file.algorithm) keys are \(algorithm.allowedKeySizes.map { String($0 * 8) }.joined(separator: ", ")) bits"
            }
            if reason == nil, let algorithm {
                let (key, aad, nonce, msg) = (test.key, test.aad, test.iv, test.msg)
                if nonce.count == 12 {
                    // The combined form, as the apps store and send sealed boxes.
                    let combined = test.iv + test.ct + test.tag
                    let open: @Sendable (CryptoPeer) throws -> Data = { peer in
                        try peer.aeadOpen(algorithm, key: key, combined: combined, aad: aad)
                    }
                    let seal: @Sendable (CryptoPeer) throws -> Data = { peer in
                        try peer.aeadSeal(algorithm, key: key, plaintext: msg, nonce: nonce, aad: aad)
                    }
                    run = Run(open: open, seal: test.result == .valid ? seal : nil, sealed: combined, expected: msg)
                } else {
                    // The separate parts: a nonce longer than 96 bits.
                    let parts = AEADParts(ciphertext: test.ct, tag: test.tag)
                    let open: @Sendable (CryptoPeer) throws -> Data = { peer in
                        try peer.aeadOpenParts(algorithm, key: key, nonce: nonce, parts: parts, aad: aad)
                    }
                    let seal: @Sendable (CryptoPeer) throws -> Data = { peer in
                        let sealed = try peer.aeadSealParts(algorithm, key: key, nonce: nonce, plaintext: msg, aad: aad)
                        return sealed.ciphertext + sealed.tag
                    }
                    run = Run(open: open, seal: test.result == .valid ? seal : nil, sealed: test.ct + test.tag, expected: msg)
                }
            }
        case let .indCPA(cpa):
            profile = "aes-https"
            weaknesses.append(Weakness.cbcNoMAC)
            if file.algorithm != "AES-CBC-PKCS5" {
                reason = "cipher not implemented: \(file.algorithm); AES-CBC with PKCS#7 padding only"
            } else if cpa.ivSize != 128 || test.iv.count != 16 {
                reason = "IV not 128 bits: this one has \(test.iv.count * 8); AES-CBC takes a 128-bit IV"
            } else if !AESCBC.allowedKeySizes.contains(test.key.count) {
                reason = "key size not supported: \(test.key.count * 8) bits; AES keys are 128, 192 or 256 bits"
            }
            if reason == nil {
                let (key, iv, msg, ciphertext) = (test.key, test.iv, test.msg, test.ct)
                let open: @Sendable (CryptoPeer) throws -> Data = { peer in try peer.cbcDecrypt(key: key, iv: iv, ciphertext: ciphertext) }
                let seal: @Sendable (CryptoPeer) throws -> Data = { peer in try peer.cbcEncrypt(key: key, iv: iv, plaintext: msg) }
                run = Run(open: open, seal: test.result == .valid ? seal : nil, sealed: ciphertext, expected: msg)
            }
        case let .signature(signature):
            profile = "signatures"
            let resolved = Self.verificationScheme(signature)
            reason = resolved.reason
            if let scheme = resolved.scheme {
                let (sig, msg, key) = (test.sig, test.msg, signature.publicKeyDER)
                run = Run(open: { peer in
                    guard try WycheproofChecks.primitives(peer).verifySignature(sig, message: msg, publicKey: key, scheme: scheme) else {
                        throw PeerFailure(.authFailed, "the signature does not verify")
                    }
                    return Data()
                }, seal: nil, sealed: Data(), expected: Data(), output: .verification)
            }
        case let .keyAgreement(agreement):
            profile = "key-agreement"
            if let curve = KeyAgreementCurve(wycheproofName: agreement.curve) {
                let (ours, theirs, encoding) = (test.privateKey, test.publicKey, agreement.encoding)
                run = Run(open: { try WycheproofChecks.primitives($0).agreeKey(curve, privateKey: ours, publicKey: theirs, encoding: encoding) },
                          seal: nil, sealed: Data(), expected: test.shared, output: .derived("shared secret"))
            } else {
                reason = "curve not implemented: \(agreement.curve); P-256, P-384, P-521 and X25519 only (what Apple's modules offer)"
            }
        case .hkdf:
            profile = "key-derivation"
            let hashName = file.algorithm.hasPrefix("HKDF-") ? String(file.algorithm.dropFirst(5)) : file.algorithm
            if let digest = Digest(name: hashName) {
                let (ikm, salt, info, size) = (test.ikm, test.salt, test.info, test.size)
                run = Run(open: { try WycheproofChecks.primitives($0).hkdf(digest, ikm: ikm, salt: salt, info: info, length: size) },
                          seal: nil, sealed: Data(), expected: test.okm, output: .derived("okm"))
            } else {
                reason = "HKDF hash not offered: \(file.algorithm)"
            }
        }
        self.weaknesses = weaknesses
        self.run = reason == nil ? run : nil
        self.skipReason = reason
    }

    /// The scheme a signature group names, or why no implementation here can run it.
    static func verificationScheme(_ group: WycheproofFile.SignatureGroup) -> (scheme: VerificationScheme?, reason: String?) {
        if group.schema == .eddsaVerify {
            return group.curve == "edwards25519" ? (.ed25519, nil) : (nil, "EdDSA curve not implemented: \(group.curve ?? "none"); Ed25519 only")
        }
        if let curve = group.curve, !["secp256r1", "secp384r1", "secp521r1"].contains(curve) {
            return (nil, "curve not implemented: \(curve); P-256, P-384 and P-521 only (what Apple's modules offer)")
        }
        guard let sha = group.sha, let digest = Digest(name: sha) else {
            return (nil, "hash not offered: \(group.sha ?? "none"); SHA-1, SHA-224, SHA-256, SHA-384, SHA-512, SHA-512/224 and SHA-512/256")
        }
        switch group.schema {
        case .rsassaPKCS1Verify: return (.rsaPKCS1v15(digest), nil)
        case .rsassaPSSVerify:
            guard let pss = group.pss, pss.mgf == "MGF1" else { return (nil, "mask generation function not MGF1: \(group.pss?.mgf ?? "none")") }
            guard let mgf1 = Digest(name: pss.mgfSha) else { return (nil, "hash not offered: MGF1 with \(pss.mgfSha)") }
            return (.rsaPSS(digest, mgf1: mgf1, saltLength: pss.saltLength), nil)
        case .ecdsaP1363Verify: return (.ecdsaP1363(digest), nil)
        default: return (.ecdsaDER(digest), nil)
        }
    }
}

/// What each vector's run actually returned, for reports: `acceptable` vectors pass either way,
/// so their outcome is recorded here rather than in the verdict. Keyed by suite and testcase name.
public final class WycheproofLedger: @unchecked Sendable {
    private var outcomes: [String: String] = [:]
    private let lock = NSLock()

    public init() {}

    func record(suite: String, name: String, outcome: String) {
        lock.lock(); defer { lock.unlock() }
        outcomes[suite + "\u{0}" + name] = outcome
    }

    /// e.g. "error DecryptFailed (RSA decryption failed)", "real plaintext (20 bytes, = msg)".
    public func outcome(suite: String, name: String) -> String? {
        lock.lock(); defer { lock.unlock() }
        return outcomes[suite + "\u{0}" + name]
    }
}
