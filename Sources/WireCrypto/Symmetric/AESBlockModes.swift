import Foundation
internal import COpenSSL

/// AES in ECB or CBC mode without any padding, in one call: whole blocks in, whole blocks out
/// (GCM's long-nonce path uses ECB for single blocks). One `AESCipherContext` per call; code that
/// feeds data in pieces (CommonCrypto's `CCCryptor`) keeps the context instead.
public enum AESBlockMode: Sendable {
    case ecb
    case cbc(iv: [UInt8])

    public static let blockSize = 16

    /// Encrypts or decrypts `input`, whose length must be a multiple of 16 (0 is allowed).
    public func process(encrypt: Bool, key: [UInt8], input: [UInt8]) throws -> [UInt8] {
        guard input.count % Self.blockSize == 0 else {
            throw WireCryptoError.invalidLength(what: "AES block-mode input", length: input.count, expected: "a multiple of 16")
        }
        let context: AESCipherContext
        switch self {
        case .ecb:
            context = try key.withUnsafeBytes { try AESCipherContext(mode: .ecb, encrypt: encrypt, key: $0, iv: nil) }
        case let .cbc(iv):
            guard iv.count == Self.blockSize else {
                throw WireCryptoError.invalidLength(what: "AES-CBC IV", length: iv.count, expected: "16")
            }
            context = try key.withUnsafeBytes { try AESCipherContext(mode: .cbc, encrypt: encrypt, key: $0, iv: iv) }
        }
        if input.isEmpty { return [] }
        return try [UInt8](unsafeUninitializedCapacity: input.count) { output, initialized in
            initialized = try input.withUnsafeBytes { try context.update($0, into: UnsafeMutableRawPointer(output.baseAddress!)) }
        }
    }

    /// AES-CBC for a key of `keyBytes`: the one choice of CBC cipher (AESCBC's envelopes use it too).
    static func cbcCipher(keyBytes: Int) throws -> FetchedCipher {
        try AESCipherContext.cipher(.cbc, keyBytes: keyBytes)
    }
}
