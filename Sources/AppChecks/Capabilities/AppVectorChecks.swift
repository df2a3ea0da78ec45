import Foundation
import AppUnderTest
import Conformance
import WireCrypto

/// `vectors.openssl_to_app` and `vectors.app_to_openssl`: the openssl command line, a third
/// implementation neither the app nor PythonRef derives from, encrypting to the app's keys and
/// decrypting what the app encrypts. The committed Vectors/openssl/ files fit no app capability
/// (their RSA private keys are the CLI's, and seed 001's key derivation cannot express their AES
/// keys), so each check makes its inputs with the CLI as it runs, in a scratch folder.
enum AppVectorChecks {
    static let profileName = "openssl-cli"

    static func checks(_ context: SuiteContext, app: AppSubject, openssl: Result<OpenSSLTool, OpenSSLToolError>) -> [Check] {
        var fromCLI = Lists(suite: "vectors.openssl_to_app", relation: "openssl_to_app", app: app)
        var toCLI = Lists(suite: "vectors.app_to_openssl", relation: "app_to_openssl", app: app)
        let python = context.python
        let run = { @Sendable (arguments: [String], scratch: Scratch) throws -> Data in
            try runOpenSSL(openssl, arguments, in: scratch)
        }

        if let paddingName = app.read(RSAOwnKeyEncryption.self, { $0.rsaPadding }), let padding = AppCheckNames.padding(paddingName) {
            toCLI.add(profileName, "rsa.\(padding).own-key.pkeyutl-decrypts", weaknesses: padding.isWeak ? [Weakness.pkcs1] : []) {
                let scratch = try Scratch()
                defer { scratch.remove() }
                let plaintext = Data("a secret the app encrypted to its own key".utf8)
                let (ciphertext, key) = try AppExpect.succeeds(app, "encrypt to a key pair it makes") {
                    try app.with(RSAOwnKeyEncryption.self) { try $0.encryptWithNewKey(plaintext) }
                }
                try key.write(to: scratch.file("app-key.der"))
                try ciphertext.write(to: scratch.file("app-cipher.bin"))
                let decrypted = try run(["pkeyutl", "-decrypt", "-keyform", "DER", "-inkey", "app-key.der", "-in", "app-cipher.bin"]
                                        + pkeyutlOptions(padding), scratch)
                try Expect.equalBytes(decrypted, plaintext, "openssl pkeyutl decrypted \(app.identifier)'s \(padding) ciphertext")
                return .passed
            }
        }

        if let paddingName = app.read(RSASocketClient.self, { $0.rsaPadding }), let padding = AppCheckNames.padding(paddingName) {
            let weaknesses = padding.isWeak ? [Weakness.pkcs1] : []
            fromCLI.add(profileName, "rsa-socket-client.\(padding).pkeyutl-encrypted", weaknesses: weaknesses) {
                let scratch = try Scratch()
                defer { scratch.remove() }
                let plaintext = Data("Secret message from RPi server".utf8)
                try AppRoundTrips.appPublicKey(app).write(to: scratch.file("app-public.pem"))
                try plaintext.write(to: scratch.file("message.txt"))
                let ciphertext = try run(["pkeyutl", "-encrypt", "-pubin", "-inkey", "app-public.pem", "-in", "message.txt"]
                                         + pkeyutlOptions(padding), scratch)
                let decrypted = try AppExpect.succeeds(app, "decrypt openssl's ciphertext") {
                    try app.with(RSASocketClient.self) { try $0.receiveEncryptedMessage(ciphertext) }
                }
                try Expect.equalBytes(decrypted, plaintext, "\(app.identifier) decrypted openssl's ciphertext")
                return .passed
            }
            toCLI.add(profileName, "rsa-socket-client.public-key-read-by-openssl", weaknesses: weaknesses) {
                let scratch = try Scratch()
                defer { scratch.remove() }
                let pem = try AppRoundTrips.appPublicKey(app)
                try pem.write(to: scratch.file("app-public.pem"))
                let printed = String(decoding: try run(["rsa", "-pubin", "-in", "app-public.pem", "-noout", "-modulus"], scratch), as: UTF8.self)
                guard let line = printed.split(separator: "\n").first(where: { $0.hasPrefix("Modulus=") }) else {
                    throw CheckFailure("openssl rsa -modulus printed no modulus for \(app.identifier)'s key", details: printed)
                }
                let info = try Expect.succeeds(python, "read \(app.identifier)'s public key") { try python.publicKeyInfo(pem) }
                try Expect.equal(normalizedHex(String(line.dropFirst("Modulus=".count))), info.modulusHex, "the modulus openssl read against python's")
                return .passed
            }
        }

        if app.has(AESEnvelopeClient.self) {
            for (label, mode, encryptionKey) in AppRoundTrips.keyStrings(context, app: app) {
                guard let key = independentKey(mode, encryptionKey) else { continue }
                let cipher = "aes-\(key.count * 8)-cbc"
                let weaknesses = Weakness.aesHTTPS(keyMode: mode)
                fromCLI.add(profileName, "envelope.\(label).openssl-enc-encrypted", weaknesses: weaknesses) {
                    let scratch = try Scratch()
                    defer { scratch.remove() }
                    let answer = try JSONSerialization.data(withJSONObject: ["echo": AppRoundTrips.parameters], options: [.sortedKeys])
                    let iv = context.bytes(16, for: "\(app.identifier).\(label).cli-iv")
                    try answer.write(to: scratch.file("answer.json"))
                    let ciphertext = try run(["enc", "-\(cipher)", "-K", key.hexString, "-iv", iv.hexString, "-in", "answer.json"], scratch)
                    let body = try JSONSerialization.data(withJSONObject: ["data": ciphertext.base64EncodedString(), "iv": iv.base64EncodedString()])
                    let object = try AppExpect.succeeds(app, "read openssl's envelope") {
                        try app.with(AESEnvelopeClient.self) { try $0.responseObject(body: body, encryptionKey: encryptionKey) }
                    }
                    try AppExpect.sameJSON(object, ["echo": AppRoundTrips.parameters], "the answer \(app.identifier) decrypted")
                    return .passed
                }
                toCLI.add(profileName, "envelope.\(label).openssl-enc-decrypts", weaknesses: weaknesses) {
                    let scratch = try Scratch()
                    defer { scratch.remove() }
                    let body = try AppExpect.succeeds(app, "build a request body") {
                        try app.with(AESEnvelopeClient.self) { try $0.requestBody(parameters: AppRoundTrips.parameters, encryptionKey: encryptionKey) }
                    }
                    guard let envelope = try? CBCEnvelope(json: body) else {
                        throw CheckFailure("\(app.identifier)'s body is not a {\"data\",\"iv\"} envelope", details: String(decoding: body.prefix(200), as: UTF8.self))
                    }
                    try envelope.ciphertext.write(to: scratch.file("request.bin"))
                    let plaintext = try run(["enc", "-d", "-\(cipher)", "-K", key.hexString, "-iv", envelope.iv.hexString, "-in", "request.bin"], scratch)
                    guard let object = try? JSONSerialization.jsonObject(with: plaintext) else {
                        throw CheckFailure("openssl enc -d gave \(plaintext.count) bytes that are not JSON", details: Expect.preview(plaintext))
                    }
                    try AppExpect.sameJSON(object, AppRoundTrips.parameters, "the parameters openssl decrypted")
                    return .passed
                }
            }
        }
        AppKeyPairChecks.addOpenSSLSigning(context, app, &toCLI, openssl: openssl)
        AppRequestSigningChecks.addOpenSSL(context, app, &toCLI, openssl: openssl)
        return fromCLI.checks + toCLI.checks
    }

    /// The AES key for an encryptionKey string, written out from docs/PROTOCOL.md (not through
    /// either implementation): UTF-8 zero-padded to 16 bytes, or base64 of 16, 24 or 32 bytes.
    static func independentKey(_ mode: KeyDerivationMode, _ encryptionKey: String) -> Data? {
        switch mode {
        case .weakUTF8ZeroPad16:
            let bytes = Data(encryptionKey.utf8)
            return (1..<16).contains(bytes.count) ? bytes + Data(count: 16 - bytes.count) : nil
        case .base64Raw:
            guard let bytes = Data(base64Encoded: encryptionKey), [16, 24, 32].contains(bytes.count) else { return nil }
            return bytes
        }
    }

    static func pkeyutlOptions(_ padding: RSAEncryptionPadding) -> [String] {
        guard let oaep = padding.oaepParameters else { return ["-pkeyopt", "rsa_padding_mode:pkcs1"] }
        return ["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:\(oaep.hash.rawValue)", "-pkeyopt", "rsa_mgf1_md:\(oaep.mgf1.rawValue)"]
    }

    /// Runs one openssl command in the scratch folder; its stdout, or a failure with the command and stderr.
    static func runOpenSSL(_ openssl: Result<OpenSSLTool, OpenSSLToolError>, _ arguments: [String], in scratch: Scratch) throws -> Data {
        let tool: OpenSSLTool
        do { tool = try openssl.get() } catch { throw CheckFailure("cannot run the openssl command line: \(error)") }
        let outcome = try tool.run(arguments, in: scratch.directory)
        guard outcome.succeeded else {
            throw CheckFailure("'\(OpenSSLTool.commandLine(arguments))' failed (exit \(outcome.status))", details: outcome.stderr)
        }
        return outcome.stdout
    }

    static func normalizedHex(_ hex: String) -> String {
        let trimmed = hex.trimmingCharacters(in: .whitespacesAndNewlines).lowercased().drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : String(trimmed)
    }
}
