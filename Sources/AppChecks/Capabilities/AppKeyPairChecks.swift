import Foundation
import AppUnderTest
import Conformance
import WireCrypto

/// The app's own key pairs, judged by the Pi's side (PythonRef through `PiKeyJudge`) and the
/// openssl command line. `MessageSigning`: PythonRef and `openssl dgst -verify` verify the app's
/// signatures with the public key it exports, refuse them over another message, and the key stays
/// the same between calls. `KeyAgreementSealing`: PythonRef makes the Pi's key pair, the app
/// agrees and seals, PythonRef derives the key as the app declares and must open the box; no other
/// derivation may open it.
enum AppKeyPairChecks {
    static let signatureAlgorithms: Set<String> = Set(["sha1", "sha224", "sha256", "sha384", "sha512"].flatMap { ["rsa-pkcs1v15-\($0)", "rsa-pss-\($0)"] })
        .union(["p256-sha256", "p384-sha384", "p521-sha512"].flatMap { ["ecdsa-\($0)", "ecdsa-\($0)-raw"] })

    // MARK: MessageSigning

    static func addSigning(_ context: SuiteContext, _ app: AppSubject, _ toPython: inout Lists) {
        guard let algorithm = app.read(MessageSigning.self, { $0.signatureAlgorithm }) else { return }
        guard signatureAlgorithms.contains(algorithm) else {
            toPython.unknown("signature", "signature", "the app's signatureAlgorithm '\(algorithm)' is not one of \(signatureAlgorithms.sorted().joined(separator: ", "))")
            return
        }
        let id = app.identifier
        for length in [0, 1, 100, 65536] {
            let message = context.bytes(length, for: "\(id).signature.len\(length)")
            toPython.add("signature", "signature.\(algorithm).len\(length).python-verifies") {
                let (signature, publicKey) = try signAndExport(app, message)
                let valid = try judged(context) { try $0.verifySignature(algorithm: algorithm, publicKey: publicKey, message: message, signature: signature) }
                guard valid else {
                    throw CheckFailure("python could not verify \(id)'s \(algorithm) signature over the \(length)-byte message with the public key the app exported: "
                                       + "the app signs other bytes than the message, with another algorithm, or with a key other than the one it exports",
                                       details: "signature: \(Expect.preview(signature))\npublic key: \(Expect.preview(publicKey))")
                }
                return .passed
            }
        }
        toPython.add("signature", "signature.\(algorithm).python-refuses-another-message") {
            let message = Data("open the front door".utf8)
            let (signature, publicKey) = try signAndExport(app, message)
            guard try judged(context, { try $0.verifySignature(algorithm: algorithm, publicKey: publicKey, message: message, signature: signature) }) else {
                throw CheckFailure("control: python could not verify \(id)'s signature over the message it signed, so refusing another message says nothing")
            }
            var other = message
            other[other.startIndex] ^= 0x01
            if try judged(context, { try $0.verifySignature(algorithm: algorithm, publicKey: publicKey, message: other, signature: signature) }) {
                throw CheckFailure("python verified \(id)'s signature over a message it did not sign (one bit flipped): the signature does not cover the message")
            }
            return .passed
        }
        toPython.add("signature", "signature.\(algorithm).public-key-stays-the-same") {
            let first = try exportKey(app)
            _ = try AppExpect.succeeds(app, "sign a message") { try app.with(MessageSigning.self) { try $0.sign(Data("between".utf8)) } }
            let second = try exportKey(app)
            guard first == second else {
                throw CheckFailure("\(id) exported two different public keys, one sign apart: a key pair made afresh per call, so no signature can be verified later",
                                   details: "first: \(Expect.preview(first))\nsecond: \(Expect.preview(second))")
            }
            return .passed
        }
    }

    /// `vectors.app_to_openssl`: `openssl dgst -verify` with the app's exported key accepts its
    /// signature and refuses it over another message.
    static func addOpenSSLSigning(_ context: SuiteContext, _ app: AppSubject, _ toCLI: inout Lists, openssl: Result<OpenSSLTool, OpenSSLToolError>) {
        guard let algorithm = app.read(MessageSigning.self, { $0.signatureAlgorithm }), signatureAlgorithms.contains(algorithm) else { return }
        let id = app.identifier
        toCLI.add(AppVectorChecks.profileName, "signature.\(algorithm).openssl-dgst-verifies") {
            let tool: OpenSSLTool
            do { tool = try openssl.get() } catch { throw CheckFailure("cannot run the openssl command line: \(error)") }
            let scratch = try Scratch()
            defer { scratch.remove() }
            let message = context.bytes(1027, for: "\(id).signature.openssl")
            let (signature, publicKey) = try signAndExport(app, message)
            let (pem, der) = try judged(context) { try $0.opensslSignatureInputs(algorithm: algorithm, publicKey: publicKey, signature: signature) }
            var other = message
            other[other.startIndex] ^= 0x01
            try pem.write(to: scratch.file("app-public.pem"))
            try der.write(to: scratch.file("signature.der"))
            try message.write(to: scratch.file("message.bin"))
            try other.write(to: scratch.file("other.bin"))
            let verify = { (file: String) in ["dgst", "-\(digest(algorithm))", "-verify", "app-public.pem", "-signature", "signature.der"] + pssOptions(algorithm) + [file] }
            let outcomes = try tool.batch([verify("message.bin"), verify("other.bin")], in: scratch.directory)
            let (good, bad) = (outcomes[0], outcomes[1])
            guard good.succeeded, String(decoding: good.stdout, as: UTF8.self).contains("Verified OK") else {
                throw CheckFailure("'\(OpenSSLTool.commandLine(verify("message.bin")))' did not verify \(id)'s \(algorithm) signature with the key it exported (exit \(good.status))",
                                   details: String(decoding: good.stdout, as: UTF8.self) + good.stderr)
            }
            guard !bad.succeeded else {
                throw CheckFailure("openssl dgst verified \(id)'s signature over a message it did not sign (one bit flipped)")
            }
            return .passed
        }
    }

    static func digest(_ algorithm: String) -> String {
        algorithm.split(separator: "-").first { $0.hasPrefix("sha") }.map(String.init) ?? "sha256"
    }

    /// Apple's PSS: MGF1 with the message digest, a salt as long as the digest.
    static func pssOptions(_ algorithm: String) -> [String] {
        algorithm.hasPrefix("rsa-pss-") ? ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:digest", "-sigopt", "rsa_mgf1_md:\(digest(algorithm))"] : []
    }

    static func signAndExport(_ app: AppSubject, _ message: Data) throws -> (signature: Data, publicKey: Data) {
        let signature = try AppExpect.succeeds(app, "sign \(message.count) bytes") { try app.with(MessageSigning.self) { try $0.sign(message) } }
        return (signature, try exportKey(app))
    }

    static func exportKey(_ app: AppSubject) throws -> Data {
        try AppExpect.succeeds(app, "export its public key") { try app.with(MessageSigning.self) { try $0.publicKey() } }
    }

    /// PythonRef as the Pi's judge; its refusal to read what the app gave is the app's failure.
    static func judged<R>(_ context: SuiteContext, _ step: (PiKeyJudge) throws -> R) throws -> R {
        guard let judge = context.piKeyJudge else { throw CheckFailure("this run has no PythonRef to verify and derive with") }
        do { return try step(judge) } catch let failure as PeerFailure {
            throw CheckFailure("python could not read what the app gave: \(failure.kind.rawValue): \(failure.detail)")
        }
    }

    // MARK: KeyAgreementSealing

    static let curves: Set<String> = ["p256", "p384", "p521", "x25519"]
    static let kdfs: Set<String> = ["hkdf-sha256", "hkdf-sha384", "hkdf-sha512", "x963-sha256", "x963-sha384", "x963-sha512"]

    static func addKeyAgreement(_ context: SuiteContext, _ app: AppSubject, _ toPython: inout Lists) {
        guard let scheme = app.read(KeyAgreementSealing.self, { $0.keyAgreementScheme }) else { return }
        let formats: Set<String> = scheme.curve == "x25519" ? ["raw", "der", "pem"] : ["x963", "raw", "der", "pem"]
        guard curves.contains(scheme.curve), kdfs.contains(scheme.kdf), formats.contains(scheme.publicKeyFormat),
              let cipher = AEADAlgorithm(rawValue: scheme.cipher), cipher.allowedKeySizes.contains(scheme.keyLength) else {
            toPython.unknown("key-agreement", "key-agreement", "the app's key agreement scheme \(describe(scheme)) is not one crosscheck knows: curve "
                             + "\(curves.sorted().joined(separator: "|")), publicKeyFormat \(formats.sorted().joined(separator: "|")), kdf \(kdfs.sorted().joined(separator: "|")), "
                             + "cipher aes-gcm (16, 24 or 32-byte keys) or chachapoly (32)")
            return
        }
        let id = app.identifier
        let prefix = "key-agreement.\(scheme.curve).\(scheme.kdf)"
        for length in [0, 1, 1027] {
            let plaintext = context.bytes(length, for: "\(id).\(prefix).len\(length)")
            toPython.add("key-agreement", "\(prefix).len\(length).python-opens") {
                let agreed = try agree(context, app, scheme, plaintext)
                let key = try agreed.derive(scheme.kdf, scheme.salt, scheme.sharedInfo)
                do {
                    let opened = try context.python.aeadOpen(cipher, key: key, combined: agreed.box, aad: nil)
                    try Expect.equalBytes(opened, plaintext, "python opened \(id)'s box")
                } catch let failure as PeerFailure {
                    let opener = try agreed.alternatives(scheme).first { _, derive in (try? context.python.aeadOpen(cipher, key: try derive(), combined: agreed.box, aad: nil)) != nil }
                    throw CheckFailure("python derived the key as \(id) declares (\(describe(scheme))) from the Pi's private key and the app's public key, "
                                       + "and could not open its \(agreed.box.count)-byte box (\(failure.kind.rawValue)): "
                                       + (opener.map { "the box opens under \($0.0) instead: the app derives another key than it declares" }
                                          ?? "the app derives another key than it declares, seals with another cipher, or not as a combined box"),
                                       details: "app public key: \(Expect.preview(agreed.appPublicKey))\nbox: \(Expect.preview(agreed.box))")
                }
                return .passed
            }
        }
        toPython.add("key-agreement", "\(prefix).no-other-derivation-opens") {
            let agreed = try agree(context, app, scheme, Data("the door code is 4711".utf8))
            guard (try? context.python.aeadOpen(cipher, key: try agreed.derive(scheme.kdf, scheme.salt, scheme.sharedInfo), combined: agreed.box, aad: nil)) != nil else {
                throw CheckFailure("control: python could not open \(id)'s box with the declared derivation (\(describe(scheme))), so other derivations say nothing")
            }
            for (name, derive) in try agreed.alternatives(scheme) {
                if (try? context.python.aeadOpen(cipher, key: try derive(), combined: agreed.box, aad: nil)) != nil {
                    throw CheckFailure("\(id)'s box opens under \(name) as well as under the declared \(describe(scheme)): the derivation does not bind what it declares")
                }
            }
            return .passed
        }
    }

    static func describe(_ scheme: KeyAgreementScheme) -> String {
        "\(scheme.curve), \(scheme.kdf), salt \(scheme.salt.isEmpty ? "none" : scheme.salt.hexString), info \(scheme.sharedInfo.isEmpty ? "none" : scheme.sharedInfo.hexString), "
            + "\(scheme.keyLength)-byte key, \(scheme.cipher), public keys as \(scheme.publicKeyFormat)"
    }

    /// One agreement: the Pi's key pair (PythonRef), the app's public key and box.
    struct Agreement {
        let judge: PiKeyJudge
        let scheme: KeyAgreementScheme
        let piPrivateKey: Data
        let appPublicKey: Data
        let box: Data

        func derive(_ kdf: String, _ salt: Data, _ info: Data, length: Int? = nil) throws -> Data {
            do {
                return try judge.agreementDerive(curve: scheme.curve, privateKey: piPrivateKey, peerPublicKey: appPublicKey, kdf: kdf, salt: salt, info: info,
                                                 length: length ?? scheme.keyLength)
            } catch let failure as PeerFailure {
                throw CheckFailure("python could not derive a key from the app's public key (\(scheme.publicKeyFormat)): \(failure.kind.rawValue): \(failure.detail)",
                                   details: "app public key: \(Expect.preview(appPublicKey))")
            }
        }

        /// Derivations an app may use by mistake instead of the declared one, each named.
        func alternatives(_ scheme: KeyAgreementScheme) throws -> [(String, () throws -> Data)] {
            var list: [(String, String, Data, Data)] = [("the raw shared secret", "raw", Data(), Data())]
            for kdf in AppKeyPairChecks.kdfs.sorted() {
                list.append(("\(kdf) with no salt and no info", kdf, Data(), Data()))
                if !scheme.salt.isEmpty || !scheme.sharedInfo.isEmpty {
                    list.append(("\(kdf) with the declared salt and info", kdf, scheme.salt, scheme.sharedInfo))
                    list.append(("\(kdf) with salt and info swapped", kdf, scheme.sharedInfo, scheme.salt))
                }
            }
            return list.filter { $0.1 != scheme.kdf || $0.2 != scheme.salt || $0.3 != scheme.sharedInfo }
                .map { name, kdf, salt, info in (name, { try derive(kdf, salt, info) }) }
        }
    }

    static func agree(_ context: SuiteContext, _ app: AppSubject, _ scheme: KeyAgreementScheme, _ plaintext: Data) throws -> Agreement {
        guard let judge = context.piKeyJudge else { throw CheckFailure("this run has no PythonRef to agree with") }
        let pi = try judged(context) { try $0.agreementKeyPair(curve: scheme.curve, format: scheme.publicKeyFormat) }
        let (appPublicKey, box) = try AppExpect.succeeds(app, "agree a key with the Pi's \(scheme.curve) public key (\(scheme.publicKeyFormat)) and seal \(plaintext.count) bytes") {
            try app.with(KeyAgreementSealing.self) { try $0.agreeAndSeal(piPublicKey: pi.publicKey, plaintext: plaintext) }
        }
        return Agreement(judge: judge, scheme: scheme, piPrivateKey: pi.privateKey, appPublicKey: appPublicKey, box: box)
    }
}
