import Foundation
import Conformance
import WireCrypto

/// rsa-socket primitives in one direction: the receiver generates a key pair and publishes its
/// SPKI PEM (as the Pi does), the sender encrypts to it, the receiver decrypts.
enum RSARoundTrips {
    static let keySizes = [1024, 2048, 3072, 4096]
    static let paddings: [RSAEncryptionPadding] = [._WEAK_AND_INSECURE_PKCS_V1_5, .oaepSHA1, .oaepSHA256]

    static func checks(_ context: SuiteContext, sender: CryptoPeer, receiver: CryptoPeer, suite: String) -> [Check] {
        var list = CheckList(suite: suite, profile: "rsa-socket", relation: "\(sender.name)_to_\(receiver.name)")
        for bits in keySizes {
            for padding in paddings {
                let limit = padding.maxPlaintextLength(modulusBytes: bits / 8)
                for length in [0, 1, 15, 16, 17, 31, limit] {
                    let name = "rsa\(bits).\(padding).len\(length)\(length == limit ? "-max" : "")"
                    let plaintext = context.bytes(length, for: list.classname + name)
                    list.add(name, weaknesses: Weakness.rsa(bits: bits, padding: padding)) {
                        let key = try context.keys.key(of: receiver, bits: bits)
                        let ciphertext = try Expect.succeeds(sender, "encrypt \(length) bytes to \(receiver.name)'s public key") {
                            try sender.rsaEncrypt(publicKey: key.publicKeyPEM, padding: padding, plaintext: plaintext)
                        }
                        try Expect.equal(ciphertext.count, bits / 8, "ciphertext length (k)")
                        let decrypted = try Expect.succeeds(receiver, "decrypt \(sender.name)'s ciphertext") {
                            try receiver.rsaDecrypt(privateKey: key.privateKeyPEM, passphrase: nil, padding: padding, ciphertext: ciphertext)
                        }
                        try Expect.equalBytes(decrypted, plaintext, "\(receiver.name) decrypted")
                        return .passed
                    }
                }
            }
        }
        addTamperChecks(&list, context, sender: sender, receiver: receiver)
        return list.checks
    }

    /// Ciphertexts the receiver must refuse without releasing plaintext.
    private static func addTamperChecks(_ list: inout CheckList, _ context: SuiteContext, sender: CryptoPeer, receiver: CryptoPeer) {
        let bits = 2048
        for padding in paddings {
            let weaknesses = Weakness.rsa(bits: bits, padding: padding)
            let plaintext = Data("Secret message from RPi server".utf8)
            let tampers: [(String, Set<FailureKind>, @Sendable (Data) -> Data)] = [
                ("flipped-bit", [.decryptFailed], { var c = $0; c[c.count / 2] ^= 0x10; return c }),
                ("truncated", [.badLength], { $0.dropLast() }),
                ("one-byte-longer", [.badLength], { $0 + Data([0]) }),
                ("empty", [.badLength], { _ in Data() }),
            ]
            for (tamper, kinds, change) in tampers {
                list.add("rsa\(bits).\(padding).rejects-\(tamper)", weaknesses: weaknesses) {
                    let key = try context.keys.key(of: receiver, bits: bits)
                    let ciphertext = try Expect.succeeds(sender, "encrypt") {
                        try sender.rsaEncrypt(publicKey: key.publicKeyPEM, padding: padding, plaintext: plaintext)
                    }
                    _ = try Expect.refuses(receiver, "a \(tamper) ciphertext", kinds: kinds) {
                        try receiver.rsaDecrypt(privateKey: key.privateKeyPEM, passphrase: nil, padding: padding, ciphertext: change(ciphertext))
                    }
                    return .passed
                }
            }
            list.add("rsa\(bits).\(padding).rejects-wrong-key", weaknesses: weaknesses) {
                let key = try context.keys.key(of: receiver, bits: bits)
                let other = try context.keys.key(of: receiver, bits: bits, slot: "other")
                let ciphertext = try Expect.succeeds(sender, "encrypt") {
                    try sender.rsaEncrypt(publicKey: other.publicKeyPEM, padding: padding, plaintext: plaintext)
                }
                _ = try Expect.refuses(receiver, "a ciphertext for another key", kinds: [.decryptFailed]) {
                    try receiver.rsaDecrypt(privateKey: key.privateKeyPEM, passphrase: nil, padding: padding, ciphertext: ciphertext)
                }
                return .passed
            }
            list.add("rsa\(bits).\(padding).refuses-over-limit", weaknesses: weaknesses) {
                let key = try context.keys.key(of: receiver, bits: bits)
                let tooLong = Data(count: padding.maxPlaintextLength(modulusBytes: bits / 8) + 1)
                _ = try Expect.refuses(sender, "a plaintext one byte over the limit", kinds: [.tooLong]) {
                    try sender.rsaEncrypt(publicKey: key.publicKeyPEM, padding: padding, plaintext: tooLong)
                }
                return .passed
            }
        }
        // OAEP with a label on one side only, or with the other OAEP hash, must not decrypt.
        let mismatches: [(String, RSAEncryptionPadding, RSAEncryptionPadding)] = [
            ("oaep-sha256.rejects-unexpected-label", .oaep(hash: .sha256, mgf1: .sha256, label: Data("label".utf8)), .oaepSHA256),
            ("oaep-sha256.rejects-oaep-sha1-ciphertext", .oaepSHA1, .oaepSHA256),
            ("oaep-sha1.rejects-pkcs1-ciphertext", ._WEAK_AND_INSECURE_PKCS_V1_5, .oaepSHA1),
        ]
        for (name, sent, expected) in mismatches {
            list.add("rsa\(bits).\(name)") {
                let key = try context.keys.key(of: receiver, bits: bits)
                let ciphertext = try Expect.succeeds(sender, "encrypt with \(sent)") {
                    try sender.rsaEncrypt(publicKey: key.publicKeyPEM, padding: sent, plaintext: Data("x".utf8))
                }
                _ = try Expect.refuses(receiver, "a \(sent) ciphertext when \(expected) is configured", kinds: [.decryptFailed]) {
                    try receiver.rsaDecrypt(privateKey: key.privateKeyPEM, passphrase: nil, padding: expected, ciphertext: ciphertext)
                }
                return .passed
            }
        }
    }
}
