import Foundation
import AppUnderTest
import Conformance
import WireCrypto
import WireProtocol

/// `roundtrip.app_to_python` and `roundtrip.python_to_app`: every primitive the app's capabilities
/// reach, with PythonRef (the Pi's crypto) on the other end, and the refusals the app must make.
enum AppRoundTrips {
    static let lengths = [0, 1, 15, 16, 17, 31, 1027, 65536]
    static let fileLengths: [(String, Int)] = [("empty", 0), ("len1", 1), ("100KiB", 100 * 1024)]

    static func checks(_ context: SuiteContext, app: AppSubject) -> [Check] {
        var toPython = Lists(suite: "roundtrip.app_to_python", relation: "app_to_python", app: app)
        var fromPython = Lists(suite: "roundtrip.python_to_app", relation: "python_to_app", app: app)
        addAEAD(context, app, &toPython, &fromPython)
        addFiles(context, app, &toPython, &fromPython)
        addKeychain(context, app, &fromPython)
        addOwnKeyRSA(context, app, &toPython)
        addRSASocketClient(context, app, &fromPython)
        addEnvelopes(context, app, &toPython, &fromPython)
        AppKeyPairChecks.addSigning(context, app, &toPython)
        AppKeyPairChecks.addKeyAgreement(context, app, &toPython)
        AppPeerKeyChecks.add(context, app, &toPython)
        AppRequestSigningChecks.add(context, app, &toPython)
        var within = Lists(suite: AppWithinChecks.suite, relation: AppWithinChecks.relation, app: app)
        AppWithinChecks.addSelfContainedSealing(context, app, &within)
        AppWithinChecks.addPasswordStore(context, app, &within)
        return toPython.checks + fromPython.checks + within.checks
    }

    // MARK: AEAD combined boxes (seed 003)

    static func addAEAD(_ context: SuiteContext, _ app: AppSubject, _ toPython: inout Lists, _ fromPython: inout Lists) {
        guard let (name, fixed) = app.read(AEADSealing.self, { ($0.aeadAlgorithm, $0.fixedPlaintext) }) else { return }
        guard let algorithm = AEADAlgorithm(rawValue: name) else {
            toPython.unknown("sealed", "aead", "the app's aeadAlgorithm '\(name)' is neither aes-gcm nor chachapoly")
            return
        }
        let python = context.python
        for keySize in algorithm.allowedKeySizes {
            let prefix = algorithm == .aesGCM ? "aes-gcm\(keySize * 8)" : "chachapoly"
            let plaintexts = fixed.map { [("fixed-plaintext", $0)] }
                ?? [0, 1, 31, 1027, 65536].map { ("len\($0)", context.bytes($0, for: "\(app.identifier).\(prefix).seal.len\($0)")) }
            for (label, plaintext) in plaintexts {
                let key = context.bytes(keySize, for: "\(app.identifier).\(prefix).\(label).key")
                toPython.add("sealed", "\(prefix).\(label)") {
                    let combined = try seal(app, plaintext, key: key)
                    try Expect.equal(combined.count, 12 + plaintext.count + 16, "\(app.identifier)'s combined box length (nonce ‖ ciphertext ‖ tag)")
                    let opened = try Expect.succeeds(python, "open \(app.identifier)'s sealed box") {
                        try python.aeadOpen(algorithm, key: key, combined: combined, aad: nil)
                    }
                    try Expect.equalBytes(opened, plaintext, "python opened")
                    return .passed
                }
            }
            for length in lengths {
                let plaintext = context.bytes(length, for: "\(app.identifier).\(prefix).open.len\(length)")
                let key = context.bytes(keySize, for: "\(app.identifier).\(prefix).open.len\(length).key")
                fromPython.add("sealed", "\(prefix).len\(length)") {
                    let combined = try Expect.succeeds(python, "seal") { try python.aeadSeal(algorithm, key: key, plaintext: plaintext, nonce: nil, aad: nil) }
                    let opened = try AppExpect.succeeds(app, "open python's sealed box") { try app.with(AEADSealing.self) { try $0.open(combined, key: key) } }
                    try Expect.equalBytes(opened, plaintext, "\(app.identifier) opened")
                    return .passed
                }
            }
        }
        let prefix = algorithm == .aesGCM ? "aes-gcm256" : "chachapoly"
        let plaintext = fixed ?? Data("the same plaintext twice".utf8)
        let key = context.bytes(32, for: "\(app.identifier).fresh-nonce")
        toPython.add("sealed", "\(prefix).fresh-nonce-per-seal") {
            let first = try seal(app, plaintext, key: key), second = try seal(app, plaintext, key: key)
            guard first.prefix(12) != second.prefix(12) else {
                throw CheckFailure("\(app.identifier) sealed the same plaintext twice under the same key with the same nonce \(first.prefix(12).hexString): "
                                   + "GCM and ChaChaPoly lose confidentiality and authenticity when a nonce repeats")
            }
            return .passed
        }
        // What the app must refuse, from a box PythonRef sealed.
        let tampers: [(String, @Sendable (Data) -> Data)] = [
            ("flipped-nonce-bit", { var c = $0; c[0] ^= 0x01; return c }),
            ("flipped-ciphertext-bit", { var c = $0; c[12 + 5] ^= 0x80; return c }),
            ("flipped-tag-bit", { var c = $0; c[c.count - 1] ^= 0x01; return c }),
            ("truncated-by-one", { $0.dropLast() }),
            ("shorter-than-28", { $0.prefix(27) }),
        ]
        for (tamper, change) in tampers {
            let key = context.bytes(32, for: "\(app.identifier).\(prefix).tamper")
            fromPython.add("sealed", "\(prefix).rejects-\(tamper)") {
                let combined = try Expect.succeeds(python, "seal") { try python.aeadSeal(algorithm, key: key, plaintext: Data(count: 64), nonce: nil, aad: nil) }
                try AppExpect.refuses(app, "a box with a \(tamper)") { try app.with(AEADSealing.self) { try $0.open(change(combined), key: key) } }
                return .passed
            }
        }
        fromPython.add("sealed", "\(prefix).rejects-wrong-key") {
            let key = context.bytes(32, for: "\(app.identifier).\(prefix).wrong-key")
            let combined = try Expect.succeeds(python, "seal") { try python.aeadSeal(algorithm, key: key, plaintext: Data(count: 64), nonce: nil, aad: nil) }
            var wrong = key
            wrong[0] ^= 1
            try AppExpect.refuses(app, "a box sealed under another key") { try app.with(AEADSealing.self) { try $0.open(combined, key: wrong) } }
            return .passed
        }
    }

    static func seal(_ app: AppSubject, _ plaintext: Data, key: Data) throws -> Data {
        try AppExpect.succeeds(app, "seal \(plaintext.count) bytes") { try app.with(AEADSealing.self) { try $0.seal(plaintext, key: key) } }
    }

    // MARK: files (seed 004)

    static func addFiles(_ context: SuiteContext, _ app: AppSubject, _ toPython: inout Lists, _ fromPython: inout Lists) {
        guard let name = app.read(FileSealing.self, { $0.aeadAlgorithm }) else { return }
        guard let algorithm = AEADAlgorithm(rawValue: name) else {
            toPython.unknown("sealed", "file", "the app's aeadAlgorithm '\(name)' is neither aes-gcm nor chachapoly")
            return
        }
        let python = context.python
        for (label, length) in fileLengths {
            let plaintext = context.bytes(length, for: "\(app.identifier).file.\(label)")
            toPython.add("sealed", "file.\(label)") {
                let scratch = try Scratch()
                defer { scratch.remove() }
                let sealed = try sealFile(app, plaintext, scratch, name: "Sample")
                let key = try AppExpect.succeeds(app, "give its key") { try app.with(FileSealing.self) { try $0.currentKey() } }
                try Expect.equal(sealed.count, 12 + length + 16, "the sealed file's length (nonce ‖ ciphertext ‖ tag)")
                let opened = try Expect.succeeds(python, "open the file \(app.identifier) sealed") {
                    try python.aeadOpen(algorithm, key: key, combined: sealed, aad: nil)
                }
                try Expect.equalBytes(opened, plaintext, "python opened the sealed file")
                return .passed
            }
            fromPython.add("sealed", "file.\(label)") {
                let scratch = try Scratch()
                defer { scratch.remove() }
                let key = try AppExpect.succeeds(app, "give its key") { try app.with(FileSealing.self) { try $0.currentKey() } }
                let sealed = try Expect.succeeds(python, "seal a file under \(app.identifier)'s key") {
                    try python.aeadSeal(algorithm, key: key, plaintext: plaintext, nonce: nil, aad: nil)
                }
                let opened = try openFile(app, sealed, scratch)
                try Expect.equalBytes(opened, plaintext, "\(app.identifier) opened python's sealed file")
                return .passed
            }
        }
        toPython.add("sealed", "file.fresh-nonce-per-seal") {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let plaintext = Data("the same file twice".utf8)
            let first = try sealFile(app, plaintext, scratch, name: "First"), second = try sealFile(app, plaintext, scratch, name: "Second")
            guard first.prefix(12) != second.prefix(12) else {
                throw CheckFailure("\(app.identifier) sealed the same file twice with the same nonce \(first.prefix(12).hexString) under its one key")
            }
            return .passed
        }
        fromPython.add("sealed", "file.rejects-flipped-tag-bit") {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let key = try AppExpect.succeeds(app, "give its key") { try app.with(FileSealing.self) { try $0.currentKey() } }
            var sealed = try Expect.succeeds(python, "seal") { try python.aeadSeal(algorithm, key: key, plaintext: Data(count: 64), nonce: nil, aad: nil) }
            sealed[sealed.count - 1] ^= 1
            try AppExpect.refuses(app, "a sealed file with a flipped tag bit") { try openFile(app, sealed, scratch) }
            let written = scratch.file("Opened.bin")
            if let leaked = FileManager.default.contents(atPath: written.path) {
                throw CheckFailure("\(app.identifier) refused the file but wrote \(leaked.count) bytes to its destination")
            }
            return .passed
        }
    }

    /// Writes `plaintext` to a real file, has the app seal it to another, and returns that file's bytes.
    static func sealFile(_ app: AppSubject, _ plaintext: Data, _ scratch: Scratch, name: String) throws -> Data {
        let source = scratch.file("\(name).text"), destination = scratch.file("\(name).sealed")
        try plaintext.write(to: source)
        try AppExpect.succeeds(app, "seal the file \(source.lastPathComponent)") {
            try app.with(FileSealing.self) { try $0.sealFile(at: source, to: destination) }
        }
        guard let sealed = FileManager.default.contents(atPath: destination.path) else {
            throw CheckFailure("\(app.identifier) reported success but wrote no file at \(destination.lastPathComponent)")
        }
        return sealed
    }

    static func openFile(_ app: AppSubject, _ sealed: Data, _ scratch: Scratch) throws -> Data {
        let source = scratch.file("FromPi.sealed"), destination = scratch.file("Opened.bin")
        try sealed.write(to: source)
        try app.with(FileSealing.self) { try $0.openFile(at: source, to: destination) }
        guard let opened = FileManager.default.contents(atPath: destination.path) else {
            throw CheckFailure("\(app.identifier) reported success but wrote no file at \(destination.lastPathComponent)")
        }
        return opened
    }

    // MARK: keychain (seed 003)

    static func addKeychain(_ context: SuiteContext, _ app: AppSubject, _ fromPython: inout Lists) {
        guard app.has(SymmetricKeyStorage.self) else { return }
        let tag = "com.crosscheck.keys.\(app.identifier)"
        for size in [16, 24, 32] {
            let key = context.bytes(size, for: "\(app.identifier).keychain.\(size)")
            fromPython.add("sealed", "keychain.aes\(size * 8)-key.store-and-read") {
                let read = try AppExpect.succeeds(app, "store and read a \(size)-byte key") {
                    try app.with(SymmetricKeyStorage.self) { try $0.storeKey(key, tag: tag); return try $0.readKey(tag: tag) }
                }
                try Expect.equalBytes(read, key, "the key \(app.identifier) read back from its keychain")
                return .passed
            }
        }
        fromPython.add("sealed", "keychain.store-replaces-the-key-under-the-same-tag") {
            let (first, second) = (context.bytes(32, for: "\(app.identifier).keychain.first"), context.bytes(32, for: "\(app.identifier).keychain.second"))
            let read = try AppExpect.succeeds(app, "store two keys under one tag") {
                try app.with(SymmetricKeyStorage.self) { try $0.storeKey(first, tag: tag); try $0.storeKey(second, tag: tag); return try $0.readKey(tag: tag) }
            }
            try Expect.equalBytes(read, second, "the key read after storing a second under the same tag")
            return .passed
        }
        fromPython.add("sealed", "keychain.read-of-a-tag-never-stored-fails") {
            try AppExpect.refuses(app, "a read of a tag nothing was stored under") {
                try app.with(SymmetricKeyStorage.self) { try $0.readKey(tag: "\(tag).never-stored") }
            }
            return .passed
        }
        // Seed 003's flow: the key comes from the Pi, goes into the keychain, and what is read back opens the Pi's box.
        guard let name = app.read(AEADSealing.self, { $0.aeadAlgorithm }), let algorithm = AEADAlgorithm(rawValue: name) else { return }
        let python = context.python
        fromPython.add("sealed", "keychain.key-read-back-opens-python-box") {
            let key = context.bytes(32, for: "\(app.identifier).keychain.open")
            let plaintext = Data("{\"door\":\"locked\"}".utf8)
            let combined = try Expect.succeeds(python, "seal") { try python.aeadSeal(algorithm, key: key, plaintext: plaintext, nonce: nil, aad: nil) }
            let opened = try AppExpect.succeeds(app, "keep the key in its keychain and open python's box with what it reads back") {
                try app.with(SymmetricKeyStorage.self) { try $0.storeKey(key, tag: tag) }
                let read = try app.with(SymmetricKeyStorage.self) { try $0.readKey(tag: tag) }
                return try app.with(AEADSealing.self) { try $0.open(combined, key: read) }
            }
            try Expect.equalBytes(opened, plaintext, "\(app.identifier) opened")
            return .passed
        }
    }

    // MARK: RSA to the app's own key pair (seed 003)

    static func addOwnKeyRSA(_ context: SuiteContext, _ app: AppSubject, _ toPython: inout Lists) {
        guard let paddingName = app.read(RSAOwnKeyEncryption.self, { $0.rsaPadding }) else { return }
        guard let padding = AppCheckNames.padding(paddingName) else {
            toPython.unknown("rsa-socket", "rsa", "the app's rsaPadding '\(paddingName)' is not pkcs1, oaep-sha1 or oaep-sha256")
            return
        }
        let python = context.python
        let weaknesses = padding.isWeak ? [Weakness.pkcs1] : []
        for length in [0, 1, 32] {
            let plaintext = context.bytes(length, for: "\(app.identifier).rsa.len\(length)")
            toPython.add("rsa-socket", "rsa.\(padding).own-key.len\(length)", weaknesses: weaknesses) {
                let (ciphertext, key, bits) = try encryptWithNewKey(app, plaintext, python)
                try Expect.equal(ciphertext.count, bits / 8, "ciphertext length (k)")
                let decrypted = try Expect.succeeds(python, "decrypt \(app.identifier)'s ciphertext with the key it exported") {
                    try python.rsaDecrypt(privateKey: key, passphrase: nil, padding: padding, ciphertext: ciphertext)
                }
                try Expect.equalBytes(decrypted, plaintext, "python decrypted")
                return .passed
            }
        }
        toPython.add("rsa-socket", "rsa.\(padding).own-key.max", weaknesses: weaknesses) {
            let (_, _, bits) = try encryptWithNewKey(app, Data("x".utf8), python)
            let plaintext = context.bytes(padding.maxPlaintextLength(modulusBytes: bits / 8), for: "\(app.identifier).rsa.max")
            let (ciphertext, key, _) = try encryptWithNewKey(app, plaintext, python)
            let decrypted = try Expect.succeeds(python, "decrypt") { try python.rsaDecrypt(privateKey: key, passphrase: nil, padding: padding, ciphertext: ciphertext) }
            try Expect.equalBytes(decrypted, plaintext, "python decrypted the longest plaintext RSA-\(bits) \(padding) takes")
            return .passed
        }
        toPython.add("rsa-socket", "rsa.\(padding).own-key.refuses-over-limit", weaknesses: weaknesses) {
            let (_, _, bits) = try encryptWithNewKey(app, Data("x".utf8), python)
            let tooLong = Data(count: padding.maxPlaintextLength(modulusBytes: bits / 8) + 1)
            try AppExpect.refuses(app, "a plaintext one byte over the \(padding) limit of its \(bits)-bit key") {
                try app.with(RSAOwnKeyEncryption.self) { try $0.encryptWithNewKey(tooLong).ciphertext }
            }
            return .passed
        }
    }

    /// The app encrypts to a key pair it makes; returns the ciphertext, the private key it exported and its size (read by PythonRef).
    static func encryptWithNewKey(_ app: AppSubject, _ plaintext: Data, _ python: CryptoPeer) throws -> (Data, Data, Int) {
        let (ciphertext, key) = try AppExpect.succeeds(app, "encrypt \(plaintext.count) bytes to a key pair it makes") {
            try app.with(RSAOwnKeyEncryption.self) { try $0.encryptWithNewKey(plaintext) }
        }
        let info = try Expect.succeeds(python, "read the private key \(app.identifier) exported (PKCS#1 DER)") {
            try python.privateKeyInfo(key, passphrase: nil)
        }
        return (ciphertext, key, info.bits)
    }

    // MARK: rsa-socket client (seed 000)

    static func addRSASocketClient(_ context: SuiteContext, _ app: AppSubject, _ fromPython: inout Lists) {
        guard let paddingName = app.read(RSASocketClient.self, { $0.rsaPadding }) else { return }
        guard let padding = AppCheckNames.padding(paddingName) else {
            fromPython.unknown("rsa-socket", "rsa-socket-client", "the app's rsaPadding '\(paddingName)' is not pkcs1, oaep-sha1 or oaep-sha256")
            return
        }
        let python = context.python
        let weaknesses = padding.isWeak ? [Weakness.pkcs1] : []
        // Text: the seed shows what it decrypted as a string.
        let messages: [(String, Data)] = [("server-message", Data("Secret message from RPi server".utf8)), ("len1", Data("x".utf8)),
                                          ("len100", Data(String(repeating: "0123456789", count: 10).utf8))]
        for (label, plaintext) in messages {
            fromPython.add("rsa-socket", "rsa-socket-client.\(padding).\(label)", weaknesses: weaknesses) {
                let publicKey = try appPublicKey(app)
                let ciphertext = try Expect.succeeds(python, "encrypt to \(app.identifier)'s public key") {
                    try python.rsaEncrypt(publicKey: publicKey, padding: padding, plaintext: plaintext)
                }
                let decrypted = try AppExpect.succeeds(app, "decrypt python's ciphertext") {
                    try app.with(RSASocketClient.self) { try $0.receiveEncryptedMessage(ciphertext) }
                }
                try Expect.equalBytes(decrypted, plaintext, "\(app.identifier) decrypted")
                return .passed
            }
        }
        fromPython.add("rsa-socket", "rsa-socket-client.\(padding).rejects-flipped-bit", weaknesses: weaknesses) {
            let publicKey = try appPublicKey(app)
            var ciphertext = try Expect.succeeds(python, "encrypt") { try python.rsaEncrypt(publicKey: publicKey, padding: padding, plaintext: Data("Quit".utf8)) }
            ciphertext[ciphertext.count / 2] ^= 0x10
            guard padding.isWeak else {
                try AppExpect.refuses(app, "a ciphertext with a flipped bit") { try app.with(RSASocketClient.self) { try $0.receiveEncryptedMessage(ciphertext) } }
                return .passed
            }
            // PKCS#1 v1.5: from iOS 17.4 SecKeyDecrypt answers a ciphertext whose padding fails with a random
            // message, not an error (implicit rejection: SecKeyAdaptors.m -> ccrsa_eme_pkcs1v15_decode_safe;
            // `crosscheck run --ios`), so the app either refuses (its own check of the text, or the status
            // before 17.4) or releases bytes that are not the plaintext; releasing "Quit" would be wrong.
            let released: Data
            do {
                released = try app.with(RSASocketClient.self) { try $0.receiveEncryptedMessage(ciphertext) }
            } catch let unreachable as AppUnreachable { throw unreachable } catch let failure as CheckFailure { throw failure } catch {
                return .passed
            }
            guard released != Data("Quit".utf8) else {
                throw CheckFailure("\(app.identifier) decrypted a ciphertext with a flipped bit to the original plaintext", details: Expect.preview(released))
            }
            return .passed
        }
    }

    /// The PEM after `public_key=` in the app's first message.
    static func appPublicKey(_ app: AppSubject) throws -> Data {
        let message = try AppExpect.succeeds(app, "write its public key message") { try app.with(RSASocketClient.self) { try $0.publicKeyMessage() } }
        let prefix = Data(RSASocket.keyPrefix.utf8)
        guard message.starts(with: prefix) else {
            throw CheckFailure("\(app.identifier)'s first message does not start with public_key=", details: Expect.preview(message))
        }
        return message.dropFirst(prefix.count)
    }

    // MARK: aes-https envelopes (seed 001)

    static var parameters: [String: Any] { ["command": "status", "temperature": 21, "lights": ["hall", "porch"], "armed": true] }

    /// The key strings a server may hand out, per mode, and the key each must give.
    static func keyStrings(_ context: SuiteContext, app: AppSubject) -> [(label: String, mode: KeyDerivationMode, encryptionKey: String)] {
        [("utf8-zeropad16.ascii3", .weakUTF8ZeroPad16, "abc"),
         ("utf8-zeropad16.ascii15", .weakUTF8ZeroPad16, "0123456789abcde"),
         ("utf8-zeropad16.non-ascii", .weakUTF8ZeroPad16, "pässwörd"),
         ("base64-raw.aes128", .base64Raw, context.bytes(16, for: "\(app.identifier).kdf16").base64EncodedString()),
         ("base64-raw.aes192", .base64Raw, context.bytes(24, for: "\(app.identifier).kdf24").base64EncodedString()),
         ("base64-raw.aes256", .base64Raw, context.bytes(32, for: "\(app.identifier).kdf32").base64EncodedString())]
    }

    static func addEnvelopes(_ context: SuiteContext, _ app: AppSubject, _ toPython: inout Lists, _ fromPython: inout Lists) {
        guard app.has(AESEnvelopeClient.self) else { return }
        let python = context.python
        for (label, mode, encryptionKey) in keyStrings(context, app: app) {
            let weaknesses = Weakness.aesHTTPS(keyMode: mode)
            toPython.add("aes-https", "envelope.\(label)", weaknesses: weaknesses) {
                let body = try AppExpect.succeeds(app, "build a request body") {
                    try app.with(AESEnvelopeClient.self) { try $0.requestBody(parameters: parameters, encryptionKey: encryptionKey) }
                }
                let key = try Expect.succeeds(python, "derive the \(mode.rawValue) key") { try python.deriveKey(mode: mode, encryptionKey: encryptionKey) }
                let opened = try Expect.succeeds(python, "open \(app.identifier)'s envelope with the key the server derives (\(mode.rawValue))") {
                    try python.openEnvelope(key: key, envelope: body)
                }
                guard let object = try? JSONSerialization.jsonObject(with: opened) else {
                    throw CheckFailure("python opened \(app.identifier)'s envelope to \(opened.count) bytes that are not JSON", details: Expect.preview(opened))
                }
                try AppExpect.sameJSON(object, parameters, "the parameters python decrypted")
                return .passed
            }
            fromPython.add("aes-https", "envelope.\(label)", weaknesses: weaknesses) {
                let answer = try JSONSerialization.data(withJSONObject: ["echo": parameters], options: [.sortedKeys])
                let key = try Expect.succeeds(python, "derive the \(mode.rawValue) key") { try python.deriveKey(mode: mode, encryptionKey: encryptionKey) }
                let body = try Expect.succeeds(python, "seal an envelope") { try python.sealEnvelope(key: key, plaintext: answer, iv: nil) }
                let object = try AppExpect.succeeds(app, "read python's envelope") {
                    try app.with(AESEnvelopeClient.self) { try $0.responseObject(body: body, encryptionKey: encryptionKey) }
                }
                try AppExpect.sameJSON(object, ["echo": parameters], "the answer \(app.identifier) decrypted")
                return .passed
            }
        }
        toPython.add("aes-https", "envelope.fresh-iv-per-request", weaknesses: [Weakness.cbcNoMAC]) {
            let bodies = try (0..<2).map { _ in
                try AppExpect.succeeds(app, "build a request body") {
                    try app.with(AESEnvelopeClient.self) { try $0.requestBody(parameters: ["same": true], encryptionKey: "abc") }
                }
            }
            let envelopes = try bodies.map { body -> CBCEnvelope in
                do { return try CBCEnvelope(json: body) } catch {
                    throw CheckFailure("\(app.identifier)'s body is not a {\"data\",\"iv\"} envelope: \(error)", details: String(decoding: body.prefix(200), as: UTF8.self))
                }
            }
            try Expect.equal(envelopes[0].iv.count, 16, "\(app.identifier)'s IV length")
            guard envelopes[0].iv != envelopes[1].iv else {
                throw CheckFailure("\(app.identifier) sent two requests with the same IV \(envelopes[0].iv.hexString)")
            }
            return .passed
        }
    }
}

/// The check lists of one suite and relation for one app, one per profile.
struct Lists {
    let suite: String
    let relation: String
    let app: AppSubject
    private var lists: [String: CheckList] = [:]
    private var order: [String] = []

    init(suite: String, relation: String, app: AppSubject) { self.suite = suite; self.relation = relation; self.app = app }

    /// A testcase `<app>.<name>` in `crosscheck.<profile>.<relation>`.
    mutating func add(_ profile: String, _ name: String, weaknesses: [String] = [], _ body: @escaping @Sendable () throws -> CheckOutcome) {
        if lists[profile] == nil { lists[profile] = CheckList(suite: suite, profile: profile, relation: relation); order.append(profile) }
        lists[profile]?.add("\(app.identifier).\(name)", weaknesses: weaknesses, properties: ["app": app.identifier], body)
    }

    /// A capability the checks cannot use as the adapter declares it: one error testcase that says why.
    mutating func unknown(_ profile: String, _ name: String, _ problem: String) {
        add(profile, "\(name).adapter") { .error(message: "\(problem); fix the adapter", details: "") }
    }

    var checks: [Check] { order.flatMap { lists[$0]?.checks ?? [] } }
}

/// A private scratch folder for files an app seals and opens, removed after the check.
struct Scratch {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { directory.appendingPathComponent(name) }
    func remove() { try? FileManager.default.removeItem(at: directory) }
}
