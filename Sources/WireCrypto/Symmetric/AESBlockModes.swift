import Foundation
internal import COpenSSL

/// AES in ECB or CBC mode without any padding: whole blocks in, whole blocks out. CommonCrypto's
/// `CCCrypt` is built on this, because it pads and unpads by its own rules (which differ from
/// OpenSSL's: it never reports a bad padding), so OpenSSL must not touch the padding.
public enum AESBlockMode: Sendable {
    case ecb
    case cbc(iv: [UInt8])

    public static let blockSize = 16

    /// Encrypts or decrypts `input`, whose length must be a multiple of 16 (0 is allowed).
    public func process(encrypt: Bool, key: [UInt8], input: [UInt8]) throws -> [UInt8] {
        guard input.count % Self.blockSize == 0 else {
            throw WireCryptoError.invalidLength(what: "AES block-mode input", length: input.count, expected: "a multiple of 16")
        }
        let cipher = try self.cipher(keyBytes: key.count)
        if input.isEmpty { return [] }
        var iv: [UInt8]? = nil
        if case let .cbc(given) = self {
            guard given.count == Self.blockSize else {
                throw WireCryptoError.invalidLength(what: "AES-CBC IV", length: given.count, expected: "16")
            }
            iv = given
        }
        return try withCipherContext { context in
            let initialised = key.withUnsafeBufferPointer { k in
                withOptionalPointer(iv) { v in
                    encrypt ? EVP_EncryptInit_ex2(context, cipher.pointer, k.baseAddress, v, nil)
                            : EVP_DecryptInit_ex2(context, cipher.pointer, k.baseAddress, v, nil)
                }
            }
            guard initialised == 1 else { throw openSSLFailure("EVP_CipherInit_ex2(AES block mode)") }
            guard EVP_CIPHER_CTX_set_padding(context, 0) == 1 else { throw openSSLFailure("EVP_CIPHER_CTX_set_padding") }
            var output = [UInt8](repeating: 0, count: input.count + Self.blockSize)
            var written: Int32 = 0, finalWritten: Int32 = 0
            let status = output.withUnsafeMutableBufferPointer { out in
                input.withUnsafeBufferPointer { inBytes -> Int32 in
                    guard EVP_CipherUpdate(context, out.baseAddress, &written, inBytes.baseAddress, Int32(inBytes.count)) == 1 else { return 0 }
                    return EVP_CipherFinal_ex(context, out.baseAddress! + Int(written), &finalWritten)
                }
            }
            guard status == 1 else { throw openSSLFailure("EVP_CipherUpdate/Final(AES block mode)") }
            return Array(output.prefix(Int(written + finalWritten)))
        }
    }

    private func cipher(keyBytes: Int) throws -> FetchedCipher {
        if case .cbc = self { return try Self.cbcCipher(keyBytes: keyBytes) }
        switch keyBytes {
        case 16: return .aes128ECB
        case 24: return .aes192ECB
        case 32: return .aes256ECB
        default: throw WireCryptoError.incorrectKeySize(bytes: keyBytes, allowed: AESCBC.allowedKeySizes)
        }
    }

    /// AES-CBC for a key of `keyBytes`: the one choice of CBC cipher (AESCBC's envelopes use it too).
    static func cbcCipher(keyBytes: Int) throws -> FetchedCipher {
        switch keyBytes {
        case 16: return .aes128CBC
        case 24: return .aes192CBC
        case 32: return .aes256CBC
        default: throw WireCryptoError.incorrectKeySize(bytes: keyBytes, allowed: AESCBC.allowedKeySizes)
        }
    }
}

private func withOptionalPointer<R>(_ bytes: [UInt8]?, _ body: (UnsafePointer<UInt8>?) -> R) -> R {
    guard let bytes else { return body(nil) }
    return bytes.withUnsafeBufferPointer { body($0.baseAddress) }
}
