import Foundation
import Conformance
import WireCrypto

/// Keys exported by one side import on the other, in every format the seeds use.
enum KeyFormatChecks {
    static func checks(_ context: SuiteContext, sender: CryptoPeer, receiver: CryptoPeer, suite: String) -> [Check] {
        var list = CheckList(suite: suite, profile: "keys", relation: "\(sender.name)_to_\(receiver.name)")
        for bits in [1024, 2048] {
            let weaknesses = bits < 2048 ? [Weakness.smallRSA] : []
            for format in RSAPublicKeyFormat.allCases {
                list.add("rsa\(bits).public.\(format.rawValue)", weaknesses: weaknesses) {
                    let key = try context.keys.key(of: sender, bits: bits)
                    let exported = try Expect.succeeds(sender, "export its public key as \(format.rawValue)") {
                        try sender.exportPublicKey(key.privateKeyPEM, format: format)
                    }
                    try expectSameKey(exported, key: key, sender: sender, receiver: receiver)
                    return .passed
                }
            }
        }
        // The wire variants a conforming server must accept (protocol.md, "Padding and keys").
        let variants: [(String, @Sendable (Data) -> Data)] = [
            ("spki-pem-with-final-newline", { $0 + Data("\n".utf8) }),
            ("spki-pem-crlf", { Data(String(decoding: $0, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8) }),
            ("spki-pem-crlf-with-final-crlf", { Data((String(decoding: $0, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n") + "\r\n").utf8) }),
        ]
        for (name, change) in variants {
            list.add("rsa2048.public.\(name)") {
                let key = try context.keys.key(of: sender, bits: 2048)
                let exported = try Expect.succeeds(sender, "export SPKI PEM") { try sender.exportPublicKey(key.privateKeyPEM, format: .spkiPEM) }
                try expectSameKey(change(exported), key: key, sender: sender, receiver: receiver)
                return .passed
            }
        }
        let passphrase = Data("correct horse battery staple".utf8)
        for format in RSAPrivateKeyFormat.allCases {
            list.add("rsa2048.private.\(format.rawValue)") {
                let key = try context.keys.key(of: sender, bits: 2048)
                let usedPassphrase = format == .pkcs8EncryptedPEM ? passphrase : nil
                let exported = try Expect.succeeds(sender, "export its private key as \(format.rawValue)") {
                    try sender.exportPrivateKey(key.privateKeyPEM, format: format, exportPassphrase: usedPassphrase)
                }
                let expected = try Expect.succeeds(sender, "describe its key") { try sender.privateKeyInfo(key.privateKeyPEM, passphrase: nil) }
                let imported = try Expect.succeeds(receiver, "import \(sender.name)'s \(format.rawValue)") {
                    try receiver.privateKeyInfo(exported, passphrase: usedPassphrase)
                }
                try Expect.equal(imported, expected, "\(receiver.name)'s view of the key")
                // The imported key must work, not just parse.
                let message = Data("key moved between implementations".utf8)
                let ciphertext = try Expect.succeeds(sender, "encrypt") { try sender.rsaEncrypt(publicKey: key.publicKeyPEM, padding: .oaepSHA256, plaintext: message) }
                let decrypted = try Expect.succeeds(receiver, "decrypt with the imported key") {
                    try receiver.rsaDecrypt(privateKey: exported, passphrase: usedPassphrase, padding: .oaepSHA256, ciphertext: ciphertext)
                }
                try Expect.equalBytes(decrypted, message, "\(receiver.name) decrypted with the imported key")
                return .passed
            }
        }
        list.add("rsa2048.private.pkcs8-pem-encrypted.rejects-wrong-passphrase") {
            let key = try context.keys.key(of: sender, bits: 2048)
            let exported = try Expect.succeeds(sender, "export an encrypted key") {
                try sender.exportPrivateKey(key.privateKeyPEM, format: .pkcs8EncryptedPEM, exportPassphrase: passphrase)
            }
            do {
                let info = try receiver.privateKeyInfo(exported, passphrase: Data("wrong".utf8))
                throw CheckFailure("\(receiver.name) imported an encrypted key with the wrong passphrase: \(info)")
            } catch let failure as PeerFailure {
                try Expect.equal(failure.kind, .badKey, "\(receiver.name)'s refusal")
            }
            return .passed
        }
        return list.checks
    }

    private static func expectSameKey(_ exported: Data, key: GeneratedRSAKey, sender: CryptoPeer, receiver: CryptoPeer) throws {
        let expected = try Expect.succeeds(sender, "describe its key") { try sender.privateKeyInfo(key.privateKeyPEM, passphrase: nil) }
        let imported = try Expect.succeeds(receiver, "import \(sender.name)'s public key") { try receiver.publicKeyInfo(exported) }
        try Expect.equal(imported, expected, "\(receiver.name)'s view of \(sender.name)'s key")
    }
}
