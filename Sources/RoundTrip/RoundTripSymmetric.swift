import Foundation
import Conformance
import WireCrypto

/// aes-https envelopes and `sealed` boxes in one direction: the sender seals, the receiver opens.
enum SymmetricRoundTrips {
    static let lengths = [0, 1, 15, 16, 17, 31, 1027, 65536]
    static let cbcKeySizes = [16, 24, 32]

    static func checks(_ context: SuiteContext, sender: CryptoPeer, receiver: CryptoPeer, suite: String) -> [Check] {
        let relation = "\(sender.name)_to_\(receiver.name)"
        var https = CheckList(suite: suite, profile: "aes-https", relation: relation)
        addEnvelopeChecks(&https, context, sender: sender, receiver: receiver)
        var sealed = CheckList(suite: suite, profile: "sealed", relation: relation)
        addSealedChecks(&sealed, context, sender: sender, receiver: receiver)
        return https.checks + sealed.checks
    }

    // MARK: aes-https

    private static func addEnvelopeChecks(_ list: inout CheckList, _ context: SuiteContext, sender: CryptoPeer, receiver: CryptoPeer) {
        for keySize in cbcKeySizes {
            for length in lengths {
                let name = "cbc\(keySize * 8).envelope.len\(length)"
                let key = context.bytes(keySize, for: list.classname + name + ".key")
                let plaintext = context.bytes(length, for: list.classname + name)
                list.add(name, weaknesses: [Weakness.cbcNoMAC]) {
                    let envelope = try Expect.succeeds(sender, "seal an envelope") {
                        try sender.sealEnvelope(key: key, plaintext: plaintext, iv: nil)
                    }
                    let parsed = try envelopeFields(envelope, from: sender)
                    try Expect.equal(parsed.iv.count, 16, "\(sender.name)'s envelope IV length")
                    let opened = try Expect.succeeds(receiver, "open \(sender.name)'s envelope") {
                        try receiver.openEnvelope(key: key, envelope: envelope)
                    }
                    try Expect.equalBytes(opened, plaintext, "\(receiver.name) opened")
                    return .passed
                }
            }
        }
        list.add("cbc256.envelope.fresh-iv-per-message", weaknesses: [Weakness.cbcNoMAC]) {
            let key = context.bytes(32, for: "fresh-iv")
            let message = Data("{\"temperature\":21}".utf8)
            let first = try envelopeFields(try sender.sealEnvelope(key: key, plaintext: message, iv: nil), from: sender)
            let second = try envelopeFields(try sender.sealEnvelope(key: key, plaintext: message, iv: nil), from: sender)
            guard first.iv != second.iv else {
                throw CheckFailure("\(sender.name) sealed two messages with the same IV \(first.iv.hexString)")
            }
            return .passed
        }
        // Key derivation: both ends turn the same encryptionKey string into the same AES key.
        let derivations: [(String, KeyDerivationMode, String)] = [
            ("utf8-zeropad16.ascii3", .weakUTF8ZeroPad16, "abc"),
            ("utf8-zeropad16.ascii15", .weakUTF8ZeroPad16, "0123456789abcde"),
            ("utf8-zeropad16.non-ascii", .weakUTF8ZeroPad16, "pässwörd"),
            ("base64-raw.aes128", .base64Raw, context.bytes(16, for: "kdf16").base64EncodedString()),
            ("base64-raw.aes192", .base64Raw, context.bytes(24, for: "kdf24").base64EncodedString()),
            ("base64-raw.aes256", .base64Raw, context.bytes(32, for: "kdf32").base64EncodedString()),
        ]
        for (name, mode, encryptionKey) in derivations {
            let weaknesses = mode.isWeak ? [Weakness.zeroPadKey, Weakness.cbcNoMAC] : [Weakness.cbcNoMAC]
            list.add("kdf.\(name).envelope", weaknesses: weaknesses) {
                let senderKey = try Expect.succeeds(sender, "derive a key") { try sender.deriveKey(mode: mode, encryptionKey: encryptionKey) }
                let envelope = try Expect.succeeds(sender, "seal") {
                    try sender.sealEnvelope(key: senderKey, plaintext: Data("{\"cmd\":\"status\"}".utf8), iv: nil)
                }
                let receiverKey = try Expect.succeeds(receiver, "derive a key") { try receiver.deriveKey(mode: mode, encryptionKey: encryptionKey) }
                let opened = try Expect.succeeds(receiver, "open") { try receiver.openEnvelope(key: receiverKey, envelope: envelope) }
                try Expect.equalBytes(opened, Data("{\"cmd\":\"status\"}".utf8), "\(receiver.name) opened")
                return .passed
            }
        }
        // Unauthenticated CBC can only refuse what is structurally wrong: a length that is not a
        // whole number of blocks, and a padding that does not check out.
        list.add("cbc128.envelope.rejects-truncated-ciphertext", weaknesses: [Weakness.cbcNoMAC]) {
            let key = context.bytes(16, for: "truncated")
            let envelope = try envelopeFields(try sender.sealEnvelope(key: key, plaintext: Data("{\"a\":1}".utf8), iv: nil), from: sender)
            let tampered = CBCEnvelope(ciphertext: envelope.ciphertext.dropLast(), iv: envelope.iv).jsonData
            _ = try Expect.refuses(receiver, "a ciphertext one byte short", kinds: [.badLength]) {
                try receiver.openEnvelope(key: key, envelope: tampered)
            }
            return .passed
        }
        list.add("cbc128.envelope.rejects-bad-padding", weaknesses: [Weakness.cbcNoMAC]) {
            let key = context.bytes(16, for: "bad-padding")
            let plaintext = Data("{\"a\":1}".utf8)  // 7 bytes: the padding byte is 9
            let envelope = try envelopeFields(try sender.sealEnvelope(key: key, plaintext: plaintext, iv: nil), from: sender)
            var iv = envelope.iv
            iv[15] ^= 9  // one block: the IV's last byte XORs into the padding byte, making it 0
            let tampered = CBCEnvelope(ciphertext: envelope.ciphertext, iv: iv).jsonData
            _ = try Expect.refuses(receiver, "an envelope whose padding is invalid", kinds: [.badPadding]) {
                try receiver.openEnvelope(key: key, envelope: tampered)
            }
            return .passed
        }
    }

    private static func envelopeFields(_ json: Data, from peer: CryptoPeer) throws -> CBCEnvelope {
        do { return try CBCEnvelope(json: json) } catch {
            throw CheckFailure("\(peer.name) produced an envelope that is not {\"data\",\"iv\"} JSON: \(error)",
                               details: String(decoding: json.prefix(200), as: UTF8.self))
        }
    }

    // MARK: sealed

    private static func addSealedChecks(_ list: inout CheckList, _ context: SuiteContext, sender: CryptoPeer, receiver: CryptoPeer) {
        let variants: [(AEADAlgorithm, Int)] = [(.aesGCM, 16), (.aesGCM, 24), (.aesGCM, 32), (.chaChaPoly, 32)]
        for (algorithm, keySize) in variants {
            let prefix = algorithm == .aesGCM ? "aes-gcm\(keySize * 8)" : "chachapoly"
            for length in lengths {
                addSealRoundTrip(&list, context, "\(prefix).len\(length)", algorithm, keySize, length, aad: nil, sender, receiver)
            }
            addSealRoundTrip(&list, context, "\(prefix).aad.len31", algorithm, keySize, 31, aad: Data("device-42".utf8), sender, receiver)
        }
        // Seed 004: a whole file sealed into one combined blob.
        addSealRoundTrip(&list, context, "aes-gcm256.file-100KiB", .aesGCM, 32, 100 * 1024, aad: nil, sender, receiver)

        for algorithm in AEADAlgorithm.allCases {
            let prefix = algorithm == .aesGCM ? "aes-gcm256" : "chachapoly"
            let aad = Data("header".utf8)
            let tampers: [(String, Set<FailureKind>, @Sendable (Data) -> Data)] = [
                ("flipped-nonce-bit", [.authFailed], { var c = $0; c[0] ^= 0x01; return c }),
                ("flipped-ciphertext-bit", [.authFailed], { var c = $0; c[12 + 5] ^= 0x80; return c }),
                ("flipped-tag-bit", [.authFailed], { var c = $0; c[c.count - 1] ^= 0x01; return c }),
                ("truncated-by-one", [.authFailed], { $0.dropLast() }),
                ("shorter-than-28", [.badLength], { $0.prefix(27) }),
            ]
            for (tamper, kinds, change) in tampers {
                list.add("\(prefix).rejects-\(tamper)") {
                    let key = context.bytes(32, for: "\(prefix)-tamper")
                    let combined = try Expect.succeeds(sender, "seal") {
                        try sender.aeadSeal(algorithm, key: key, plaintext: Data(count: 64), nonce: nil, aad: aad)
                    }
                    _ = try Expect.refuses(receiver, "a box with a \(tamper)", kinds: kinds) {
                        try receiver.aeadOpen(algorithm, key: key, combined: change(combined), aad: aad)
                    }
                    return .passed
                }
            }
            list.add("\(prefix).rejects-wrong-key") {
                let key = context.bytes(32, for: "\(prefix)-key")
                let combined = try Expect.succeeds(sender, "seal") { try sender.aeadSeal(algorithm, key: key, plaintext: Data(count: 64), nonce: nil, aad: aad) }
                var wrongKey = key
                wrongKey[0] ^= 1
                _ = try Expect.refuses(receiver, "a box sealed under another key", kinds: [.authFailed]) {
                    try receiver.aeadOpen(algorithm, key: wrongKey, combined: combined, aad: aad)
                }
                return .passed
            }
            list.add("\(prefix).rejects-wrong-aad") {
                let key = context.bytes(32, for: "\(prefix)-aad")
                let combined = try Expect.succeeds(sender, "seal") { try sender.aeadSeal(algorithm, key: key, plaintext: Data(count: 64), nonce: nil, aad: aad) }
                _ = try Expect.refuses(receiver, "a box opened with other associated data", kinds: [.authFailed]) {
                    try receiver.aeadOpen(algorithm, key: key, combined: combined, aad: Data("other".utf8))
                }
                return .passed
            }
        }
    }

    private static func addSealRoundTrip(_ list: inout CheckList, _ context: SuiteContext, _ name: String, _ algorithm: AEADAlgorithm,
                                         _ keySize: Int, _ length: Int, aad: Data?, _ sender: CryptoPeer, _ receiver: CryptoPeer) {
        let key = context.bytes(keySize, for: list.classname + name + ".key")
        let plaintext = context.bytes(length, for: list.classname + name)
        list.add(name) {
            let combined = try Expect.succeeds(sender, "seal \(length) bytes") {
                try sender.aeadSeal(algorithm, key: key, plaintext: plaintext, nonce: nil, aad: aad)
            }
            try Expect.equal(combined.count, 12 + length + 16, "combined length (nonce ‖ ciphertext ‖ tag)")
            let opened = try Expect.succeeds(receiver, "open \(sender.name)'s sealed box") {
                try receiver.aeadOpen(algorithm, key: key, combined: combined, aad: aad)
            }
            try Expect.equalBytes(opened, plaintext, "\(receiver.name) opened")
            return .passed
        }
    }
}
