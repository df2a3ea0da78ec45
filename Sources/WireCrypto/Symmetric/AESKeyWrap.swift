import Foundation
internal import COpenSSL

/// AES key wrap (RFC 3394) with its default initial value A6A6A6A6A6A6A6A6, over OpenSSL's
/// "AES-128/192/256-WRAP" ciphers: what CryptoKit's `AES.KeyWrap` and `openssl enc -id-aes128-wrap`
/// compute. The key to wrap is whole 64-bit blocks, at least two (RFC 3394 §2); the output is
/// 8 bytes longer. Unwrapping checks the integrity value; a mismatch is `.authenticationFailure`.
public enum AESKeyWrap {
    public static let allowedKeySizes = [16, 24, 32]

    /// `keyToWrap` wrapped under `kek` (16, 24 or 32 bytes).
    public static func wrap<Key: DataProtocol>(_ keyToWrap: Key, kek: some ContiguousBytes) throws -> [UInt8] {
        guard keyToWrap.count >= 16, keyToWrap.count % 8 == 0 else {
            throw WireCryptoError.invalidLength(what: "AES key wrap input (the key to wrap)", length: keyToWrap.count,
                                                expected: "a multiple of 8, at least 16 (RFC 3394 §2)")
        }
        return try process(encrypt: true, keyToWrap, kek: kek)
    }

    /// The key inside `wrapped` (its length minus 8 bytes), checked against RFC 3394's integrity value.
    public static func unwrap<Wrapped: DataProtocol>(_ wrapped: Wrapped, kek: some ContiguousBytes) throws -> [UInt8] {
        guard wrapped.count >= 24, wrapped.count % 8 == 0 else {
            throw WireCryptoError.invalidLength(what: "AES-wrapped key", length: wrapped.count,
                                                expected: "a multiple of 8, at least 24 (RFC 3394 §2)")
        }
        return try process(encrypt: false, wrapped, kek: kek)
    }

    private static func process<Input: DataProtocol>(encrypt: Bool, _ input: Input, kek: some ContiguousBytes) throws -> [UInt8] {
        let cipher = try kek.withUnsafeBytes { try wrapCipher(keyBytes: $0.count) }
        return try withCipherContext { context in
            // OpenSSL refuses wrap-mode ciphers on a context that has not opted in.
            EVP_CIPHER_CTX_set_flags(context, Int32(EVP_CIPHER_CTX_FLAG_WRAP_ALLOW))
            let initialised = kek.withUnsafeBytes { k in
                encrypt ? EVP_EncryptInit_ex2(context, cipher.pointer, k.uint8, nil, nil)
                        : EVP_DecryptInit_ex2(context, cipher.pointer, k.uint8, nil, nil)
            }
            guard initialised == 1 else { throw openSSLFailure("EVP_CipherInit_ex2(AES key wrap)") }
            var output = [UInt8](repeating: 0, count: input.count + 8)
            var written: Int32 = 0
            let status = withContiguousBytes(input) { inBytes in
                output.withUnsafeMutableBufferPointer { out in
                    EVP_CipherUpdate(context, out.baseAddress, &written, inBytes.uint8, Int32(inBytes.count))
                }
            }
            guard status == 1 else {
                // On unwrap the only failure left after the length checks is the integrity value.
                if !encrypt { OpenSSLError.drainQueue(); throw WireCryptoError.authenticationFailure }
                throw openSSLFailure("EVP_CipherUpdate(AES key wrap)")
            }
            return Array(output.prefix(Int(written)))
        }
    }

    private static func wrapCipher(keyBytes: Int) throws -> FetchedCipher {
        switch keyBytes {
        case 16: return .aes128Wrap
        case 24: return .aes192Wrap
        case 32: return .aes256Wrap
        default: throw WireCryptoError.incorrectKeySize(bytes: keyBytes, allowed: allowedKeySizes)
        }
    }
}
