import Foundation
import Conformance
import WireCrypto

/// Deterministic outputs compared byte for byte: with the same key and IV or nonce, Swift and
/// Python must write the same bytes; with the same input they must fail the same way.
enum Comparisons {
    static func checks(_ context: SuiteContext, suite: String) -> [Check] {
        let (swift, python) = (context.swift, context.python)
        let relation = "\(swift.name)_vs_\(python.name)"
        var https = CheckList(suite: suite, profile: "aes-https", relation: relation)
        var sealed = CheckList(suite: suite, profile: "sealed", relation: relation)
        var keys = CheckList(suite: suite, profile: "keys", relation: relation)
        var rsa = CheckList(suite: suite, profile: "rsa-socket", relation: relation)

        for keySize in SymmetricRoundTrips.cbcKeySizes {
            for length in SymmetricRoundTrips.lengths {
                let name = "cbc\(keySize * 8).fixed-iv.len\(length)"
                let (key, iv) = (context.bytes(keySize, for: name + "key"), context.bytes(16, for: name + "iv"))
                let plaintext = context.bytes(length, for: name)
                https.add(name, weaknesses: [Weakness.cbcNoMAC]) {
                    try same("AES-CBC ciphertext", swift, python) { try $0.cbcEncrypt(key: key, iv: iv, plaintext: plaintext) }
                }
            }
        }
        for length in [0, 16, 1027] {
            let name = "envelope.fixed-iv.len\(length)"
            let (key, iv, plaintext) = (context.bytes(32, for: name + "key"), context.bytes(16, for: name + "iv"), context.bytes(length, for: name))
            https.add(name, weaknesses: [Weakness.cbcNoMAC]) {
                try same("envelope JSON", swift, python) { try $0.sealEnvelope(key: key, plaintext: plaintext, iv: iv) }
            }
        }
        let derivationInputs: [(String, KeyDerivationMode, String)] = [
            ("utf8-zeropad16.ascii1", .weakUTF8ZeroPad16, "k"),
            ("utf8-zeropad16.ascii15", .weakUTF8ZeroPad16, "0123456789abcde"),
            ("utf8-zeropad16.ascii16-refused", .weakUTF8ZeroPad16, "0123456789abcdef"),
            ("utf8-zeropad16.ascii32-refused", .weakUTF8ZeroPad16, String(repeating: "x", count: 32)),
            ("utf8-zeropad16.empty-refused", .weakUTF8ZeroPad16, ""),
            ("utf8-zeropad16.non-ascii-15-bytes", .weakUTF8ZeroPad16, "ééééééé1"),
            ("utf8-zeropad16.non-ascii-16-bytes-refused", .weakUTF8ZeroPad16, "éééééééé"),
            ("base64-raw.aes256", .base64Raw, context.bytes(32, for: "kdf-cmp").base64EncodedString()),
            ("base64-raw.20-bytes-refused", .base64Raw, Data(count: 20).base64EncodedString()),
            ("base64-raw.not-base64-refused", .base64Raw, "not base64!"),
        ]
        for (name, mode, input) in derivationInputs {
            https.add("kdf.\(name)", weaknesses: mode.isWeak ? [Weakness.zeroPadKey] : []) {
                try same("derived key", swift, python) { try $0.deriveKey(mode: mode, encryptionKey: input) }
            }
        }

        let aeadVariants: [(AEADAlgorithm, Int, String)] = [(.aesGCM, 16, "aes-gcm128"), (.aesGCM, 24, "aes-gcm192"),
                                                           (.aesGCM, 32, "aes-gcm256"), (.chaChaPoly, 32, "chachapoly")]
        for (algorithm, keySize, prefix) in aeadVariants {
            for length in SymmetricRoundTrips.lengths {
                let name = "\(prefix).fixed-nonce.len\(length)"
                let (key, nonce, plaintext) = (context.bytes(keySize, for: name + "key"), context.bytes(12, for: name + "nonce"), context.bytes(length, for: name))
                let aad = length % 2 == 1 ? context.bytes(13, for: name + "aad") : nil
                sealed.add(name) {
                    try same("combined box", swift, python) { try $0.aeadSeal(algorithm, key: key, plaintext: plaintext, nonce: nonce, aad: aad) }
                }
            }
        }

        for bits in RSARoundTrips.keySizes {
            for format in RSAPublicKeyFormat.allCases {
                keys.add("rsa\(bits).export.\(format.rawValue)", weaknesses: bits < 2048 ? [Weakness.smallRSA] : []) {
                    let key = try context.keys.key(of: swift, bits: bits)
                    return try same("\(format.rawValue) export of the same key", swift, python) {
                        try $0.exportPublicKey(key.privateKeyPEM, format: format)
                    }
                }
            }
            for padding in RSARoundTrips.paddings {
                rsa.add("rsa\(bits).\(padding).limit-agrees", weaknesses: Weakness.rsa(bits: bits, padding: padding)) {
                    let key = try context.keys.key(of: swift, bits: bits)
                    let limit = padding.maxPlaintextLength(modulusBytes: bits / 8)
                    for peer in [swift, python] {
                        _ = try Expect.succeeds(peer, "encrypt exactly \(limit) bytes") {
                            try peer.rsaEncrypt(publicKey: key.publicKeyPEM, padding: padding, plaintext: Data(count: limit))
                        }
                        _ = try Expect.refuses(peer, "\(limit + 1) bytes", kinds: [.tooLong]) {
                            try peer.rsaEncrypt(publicKey: key.publicKeyPEM, padding: padding, plaintext: Data(count: limit + 1))
                        }
                    }
                    return .passed
                }
            }
        }
        return https.checks + sealed.checks + keys.checks + rsa.checks
    }

    /// Both peers produce identical bytes, or both refuse with the same kind.
    static func same(_ what: String, _ first: CryptoPeer, _ second: CryptoPeer, _ produce: (CryptoPeer) throws -> Data) throws -> CheckOutcome {
        let a = Result { try produce(first) }, b = Result { try produce(second) }
        switch (a, b) {
        case let (.success(x), .success(y)):
            try Expect.equalBytes(x, y, "\(first.name) and \(second.name) \(what)")
        case let (.failure(x as PeerFailure), .failure(y as PeerFailure)):
            guard x.kind == y.kind else {
                throw CheckFailure("\(first.name) refused with \(x.kind.rawValue) but \(second.name) with \(y.kind.rawValue)",
                                   details: "\(first.name): \(x.detail)\n\(second.name): \(y.detail)")
            }
        case let (.success(x), .failure(y)):
            throw CheckFailure("\(first.name) produced the \(what) but \(second.name) refused: \(y)", details: Expect.preview(x))
        case let (.failure(x), .success(y)):
            throw CheckFailure("\(second.name) produced the \(what) but \(first.name) refused: \(x)", details: Expect.preview(y))
        case let (.failure(x), .failure(y)):
            throw CheckFailure("harness errors: \(x); \(y)")
        }
        return .passed
    }
}
