import Foundation
import AppUnderTest
import Conformance
import WireCrypto

/// `PeerKeyEncryption`: the app encrypts to the Pi's RSA public key, imported by its own code from
/// the forms it declares. PythonRef makes the Pi's key pair, so it decrypts with the declared
/// padding and, when that fails, with each padding an app may use by mistake (RFC 8017 §7.1
/// RSAES-OAEP with SHA-1 or SHA-256 and MGF1 with either, §7.2 RSAES-PKCS1-v1_5): the failure
/// names the padding the app really used. Malformed keys (e = 1, truncated, an EC key) must be
/// refused by the app's import: iOS's `SecKeyCreateWithData` refuses them, and so must code that
/// parses the key itself.
enum AppPeerKeyChecks {
    static let profile = "peer-key"

    /// The paddings an app can reach through SecKey (`.rsaEncryptionPKCS1`, `…OAEPSHA1`,
    /// `…OAEPSHA256`) and the one a server built on another library's defaults may expect
    /// (OAEP-SHA256 with MGF1-SHA1: Java's "OAEPWithSHA-256AndMGF1Padding"), with names for people.
    static let candidates: [(name: String, padding: RSAEncryptionPadding)] = [
        ("PKCS#1 v1.5", ._WEAK_AND_INSECURE_PKCS_V1_5), ("OAEP-SHA1", .oaepSHA1), ("OAEP-SHA256", .oaepSHA256),
        ("OAEP-SHA256 with MGF1-SHA1", .oaep(hash: .sha256, mgf1: .sha1)),
    ]

    static func humanName(_ padding: RSAEncryptionPadding) -> String {
        candidates.first { $0.padding == padding }?.name ?? padding.description
    }

    /// What the app writes in its code for `padding` (SecKeyAlgorithm).
    static func secKeyAlgorithm(_ padding: RSAEncryptionPadding) -> String {
        switch padding {
        case .oaepSHA1: return ".rsaEncryptionOAEPSHA1"
        case .oaepSHA256: return ".rsaEncryptionOAEPSHA256"
        default: return ".rsaEncryptionPKCS1"
        }
    }

    static func add(_ context: SuiteContext, _ app: AppSubject, _ toPython: inout Lists) {
        guard let scheme = app.read(PeerKeyEncryption.self, { $0.peerKeyScheme }) else { return }
        guard let padding = AppCheckNames.padding(scheme.padding) else {
            toPython.unknown(profile, profile, "the app's PeerKeyScheme padding '\(scheme.padding)' is not pkcs1, oaep-sha1 or oaep-sha256")
            return
        }
        let unknown = scheme.keyFormats.filter { !PeerKeyScheme.formats.contains($0) }
        guard !scheme.keyFormats.isEmpty, unknown.isEmpty else {
            toPython.unknown(profile, profile, "the app's PeerKeyScheme keyFormats \(scheme.keyFormats) "
                             + (unknown.isEmpty ? "are empty" : "name \(unknown.joined(separator: ", ")), which crosscheck does not know")
                             + "; each must be one of \(PeerKeyScheme.formats.joined(separator: ", "))")
            return
        }
        let weaknesses = padding.isWeak ? [Weakness.pkcs1] : []
        let prefix = "\(profile).\(padding)"
        for (index, format) in scheme.keyFormats.enumerated() {
            let lengths = index == 0 ? [0, 32] : [32]
            for length in lengths {
                let plaintext = text(context, length, "\(app.identifier).\(prefix).\(format).len\(length)")
                toPython.add(profile, "\(prefix).\(format).len\(length).python-decrypts", weaknesses: weaknesses) {
                    try decrypts(context, app, scheme, padding, format: format, plaintext: plaintext)
                }
            }
            if index == 0 {
                toPython.add(profile, "\(prefix).\(format).max.python-decrypts", weaknesses: weaknesses) {
                    let plaintext = text(context, padding.maxPlaintextLength(modulusBytes: 256), "\(app.identifier).\(prefix).max")
                    return try decrypts(context, app, scheme, padding, format: format, plaintext: plaintext)
                }
            }
            for malformed in Malformed.allCases where malformed.applies(to: format) {
                toPython.add(profile, "\(prefix).\(format).refuses-\(malformed.rawValue)", weaknesses: weaknesses) {
                    let pi = try PiKey.make(context)
                    let key = try malformed.key(pi, format: format, context: context)
                    let function = scheme.appFunction.isEmpty ? "its import" : scheme.appFunction
                    let control = try pi.key(in: format)
                    _ = try AppExpect.succeeds(app, "encrypt to the Pi's well-formed key (\(format)), the control for refusing \(malformed.words)",
                                               function: scheme.appFunction) {
                        try app.with(PeerKeyEncryption.self) { try $0.encrypt(Data("control".utf8), toPeerKey: control, format: format) }
                    }
                    do {
                        try AppExpect.refuses(app, "\(malformed.words) as the Pi's public key (\(format))") {
                            try app.with(PeerKeyEncryption.self) { try $0.encrypt(Data("open sesame".utf8), toPeerKey: key, format: format) }
                        }
                    } catch let failure as CheckFailure {
                        throw CheckFailure("\(failure.message). \(function) must refuse such a key before encrypting: \(malformed.fix)",
                                           details: "the key given: \(Expect.preview(key))")
                    }
                    return .passed
                }
            }
        }
    }

    /// `length` bytes of ASCII text (base64 of the seed's bytes): what apps encrypt to the Pi is
    /// text (a command, a token), and helpers take `String`.
    static func text(_ context: SuiteContext, _ length: Int, _ label: String) -> Data {
        Data(context.bytes(length, for: label).base64EncodedString().prefix(length).utf8)
    }

    /// The app encrypts `plaintext` to a fresh Pi key in `format`; PythonRef decrypts with the declared padding.
    static func decrypts(_ context: SuiteContext, _ app: AppSubject, _ scheme: PeerKeyScheme, _ padding: RSAEncryptionPadding,
                         format: String, plaintext: Data) throws -> CheckOutcome {
        let id = app.identifier
        let pi = try PiKey.make(context)
        let key = try pi.key(in: format)
        let ciphertext = try AppExpect.succeeds(app, "encrypt \(plaintext.count) bytes to the Pi's public key given as \(format)", function: scheme.appFunction) {
            try app.with(PeerKeyEncryption.self) { try $0.encrypt(plaintext, toPeerKey: key, format: format) }
        }
        let inFunction = scheme.appFunction.isEmpty ? "" : " (in \(scheme.appFunction))"
        guard ciphertext.count == 256 else {
            throw CheckFailure("\(id)\(inFunction) returned \(ciphertext.count) bytes for an RSA-2048 ciphertext, which is always 256 bytes: "
                               + "it returns something else than the raw ciphertext (base64 text? the adapter must decode it) or encrypted to another key",
                               details: "returned: \(Expect.preview(ciphertext))")
        }
        let python = context.python
        if let decrypted = try? python.rsaDecrypt(privateKey: pi.privateKey, passphrase: nil, padding: padding, ciphertext: ciphertext), decrypted == plaintext {
            return .passed
        }
        let used = candidates.first { candidate in
            candidate.padding != padding
                && (try? python.rsaDecrypt(privateKey: pi.privateKey, passphrase: nil, padding: candidate.padding, ciphertext: ciphertext)) == plaintext
        }
        let declared = humanName(padding)
        if let used {
            throw CheckFailure("\(id)\(inFunction) encrypted with \(used.name), declared \(declared): the Pi decrypts with \(declared) and gets an error. "
                               + "Fix: pass \(secKeyAlgorithm(padding)) to SecKeyCreateEncryptedData (the app now uses \(used.name)"
                               + (used.padding.oaepParameters == nil ? "" : ", whose digest the Pi does not use") + "), or, if the Pi really expects \(used.name), declare it",
                               details: "key given as \(format); ciphertext: \(Expect.preview(ciphertext))")
        }
        throw CheckFailure("the Pi's private key does not decrypt what \(id)\(inFunction) encrypted to the Pi's public key (given as \(format)), with \(declared) "
                           + "nor with \(candidates.filter { $0.padding != padding }.map(\.name).joined(separator: ", ")): the app encrypted to another key "
                           + "(a bundled or cached one instead of the key it was given?) or other bytes than it was asked to",
                           details: "ciphertext: \(Expect.preview(ciphertext))")
    }

    /// The Pi's RSA-2048 key pair (PythonRef) and its public key in each form.
    struct PiKey {
        let privateKey: Data
        let spkiDER: Data
        let pkcs1DER: Data

        static func make(_ context: SuiteContext) throws -> PiKey {
            let python = context.python
            let generated = try Expect.succeeds(python, "make the Pi's RSA-2048 key pair") { try python.generateRSAKey(bits: 2048) }
            let spki = try Expect.succeeds(python, "export the Pi's public key as SPKI DER") { try python.exportPublicKey(generated.publicKeyPEM, format: .spkiDER) }
            let pkcs1 = try Expect.succeeds(python, "export the Pi's public key as PKCS#1 DER") { try python.exportPublicKey(generated.publicKeyPEM, format: .pkcs1DER) }
            return PiKey(privateKey: generated.privateKeyPEM, spkiDER: spki, pkcs1DER: pkcs1)
        }

        func key(in format: String) throws -> Data {
            guard let numbers = RSAInvalidKeys.numbers(in: spkiDER) else { throw CheckFailure("internal: cannot read back the Pi's public key") }
            return try PeerKeyForms.encode(spkiDER: spkiDER, pkcs1DER: pkcs1DER, modulus: numbers.modulus, exponent: numbers.exponent, format: format)
        }
    }

    /// Keys the app's import must refuse.
    enum Malformed: String, CaseIterable {
        case exponent1 = "exponent-1"
        case truncated
        case ecKey = "ec-key"

        var words: String {
            switch self {
            case .exponent1: return "an RSA key with public exponent 1 (encryption to it leaves the message in the clear)"
            case .truncated: return "the Pi's key cut in half"
            case .ecKey: return "a P-256 (EC) public key where an RSA key belongs"
            }
        }

        var fix: String {
            switch self {
            case .exponent1: return "SecKeyCreateWithData refuses it on iOS; code that builds the key from modulus and exponent itself must check e > 1 (RFC 8017 §3.1: 3 ≤ e ≤ n − 1)"
            case .truncated: return "check SecKeyCreateWithData's result for nil and its error, and do not encrypt when it fails"
            case .ecKey: return "create the key with kSecAttrKeyTypeRSA and refuse it when SecKeyCreateWithData returns nil; check the key's type before encrypting"
            }
        }

        func applies(to format: String) -> Bool { self == .exponent1 || format != "modulus-exponent" }

        func key(_ pi: PiKey, format: String, context: SuiteContext) throws -> Data {
            guard let numbers = RSAInvalidKeys.numbers(in: pi.spkiDER) else { throw CheckFailure("internal: cannot read back the Pi's public key") }
            switch self {
            case .exponent1:
                let spki = RSAInvalidKeys.subjectPublicKeyInfo(modulus: numbers.modulus, exponent: Data([1]))
                guard let pkcs1 = PeerKeyForms.pkcs1(inSPKI: spki) else { throw CheckFailure("internal: cannot read the e = 1 key back") }
                return try PeerKeyForms.encode(spkiDER: spki, pkcs1DER: pkcs1, modulus: numbers.modulus, exponent: Data([1]), format: format)
            case .truncated:
                let whole = try pi.key(in: format)
                if format.hasPrefix("pem-") {
                    // Header, the first half of the base64 lines, footer: a PEM that parses as PEM and holds half a key.
                    let lines = String(decoding: whole, as: UTF8.self).split(separator: "\n")
                    let body = lines.dropFirst().dropLast()
                    let kept: [Substring] = [lines[0]] + body.prefix(body.count / 2) + [lines[lines.count - 1]]
                    return Data(kept.joined(separator: "\n").utf8) + [0x0a]
                }
                if format.hasPrefix("base64-") {
                    let text = String(decoding: whole, as: UTF8.self)
                    return Data(text.prefix(text.count / 8 * 4).utf8)
                }
                return whole.prefix(whole.count / 2)
            case .ecKey:
                let ec = try AppKeyPairChecks.judged(context) { try $0.agreementKeyPair(curve: "p256", format: "der") }
                return PeerKeyForms.wrap(ec.publicKey, format: format, pemLabel: "PUBLIC KEY")
            }
        }
    }
}

/// The forms a public key reaches an app in (`PeerKeyScheme.formats`).
enum PeerKeyForms {
    static func encode(spkiDER: Data, pkcs1DER: Data, modulus: Data, exponent: Data, format: String) throws -> Data {
        switch format {
        case "pem-spki": return pem(spkiDER, label: "PUBLIC KEY")
        case "pem-pkcs1": return pem(pkcs1DER, label: "RSA PUBLIC KEY")
        case "der-spki": return spkiDER
        case "der-pkcs1": return pkcs1DER
        case "base64-spki": return Data(spkiDER.base64EncodedString().utf8)
        case "base64-pkcs1": return Data(pkcs1DER.base64EncodedString().utf8)
        case "modulus-exponent":
            let unsigned = { (bytes: Data) in Data(bytes.drop { $0 == 0 }) }
            let object = ["modulus": unsigned(modulus).base64EncodedString(), "exponent": unsigned(exponent).base64EncodedString()]
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        default: throw CheckFailure("unknown key format '\(format)'")
        }
    }

    /// Another key's DER in `format`'s shape (for keys that are not RSA: any form but n and e).
    static func wrap(_ der: Data, format: String, pemLabel: String) -> Data {
        if format.hasPrefix("pem-") { return pem(der, label: format == "pem-pkcs1" ? "RSA PUBLIC KEY" : pemLabel) }
        if format.hasPrefix("base64-") { return Data(der.base64EncodedString().utf8) }
        return der
    }

    /// PEM as `openssl` writes it: 64-column base64 lines between the labels (RFC 7468).
    static func pem(_ der: Data, label: String) -> Data {
        let text = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return Data("-----BEGIN \(label)-----\n\(text)\n-----END \(label)-----\n".utf8)
    }

    /// The RSAPublicKey inside a SubjectPublicKeyInfo (RFC 5280 §4.1: SEQUENCE { AlgorithmIdentifier, BIT STRING }).
    static func pkcs1(inSPKI spki: Data) -> Data? {
        let bytes = [UInt8](spki)
        func header(_ at: Int) -> (tag: UInt8, length: Int, content: Int)? {
            guard at + 1 < bytes.count else { return nil }
            let first = Int(bytes[at + 1])
            if first < 0x80 { return (bytes[at], first, at + 2) }
            let count = first & 0x7f
            guard count >= 1, count <= 3, at + 2 + count <= bytes.count else { return nil }
            let length = bytes[(at + 2)..<(at + 2 + count)].reduce(0) { $0 << 8 | Int($1) }
            return (bytes[at], length, at + 2 + count)
        }
        guard let outer = header(0), outer.tag == 0x30, let algorithm = header(outer.content), algorithm.tag == 0x30,
              let bitString = header(algorithm.content + algorithm.length), bitString.tag == 0x03, bitString.length >= 1,
              bitString.content + bitString.length <= bytes.count, bytes[bitString.content] == 0 else { return nil }
        return Data(bytes[(bitString.content + 1)..<(bitString.content + bitString.length)])
    }
}
