import Foundation
import WireCrypto
import TestSupport

/// WireCrypto's two GCM paths side by side, for LongNonceGCMTests.
enum WireCryptoLongNonce {
    static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], aad: [UInt8]) throws -> (ciphertext: [UInt8], tag: [UInt8]) {
        try GCMLongNonce.seal(key: key, nonce: nonce, plaintext: plaintext, aad: aad)
    }

    static func sealWithOpenSSL(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], aad: [UInt8]) throws -> (ciphertext: [UInt8], tag: [UInt8]) {
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: 16)
        try key.withUnsafeBytes { k in
            try nonce.withUnsafeBytes { n in
                try plaintext.withUnsafeBytes { p in
                    try aad.withUnsafeBytes { a in
                        try ciphertext.withUnsafeMutableBytes { c in
                            try tag.withUnsafeMutableBytes { t in
                                try AEADCore.seal(.aesGCM, key: k, nonce: n, plaintext: p, aad: a, into: c, tag: t)
                            }
                        }
                    }
                }
            }
        }
        return (ciphertext, tag)
    }
}
