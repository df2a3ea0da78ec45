import Foundation
internal import COpenSSL

/// AES-CBC with PKCS#7 padding, as the aes-https seed's CommonCrypto code does it.
/// Unauthenticated: a report lists every use as a weakness (CBC without a MAC).
public enum AESCBC {
    public static let blockSize = 16
    public static let allowedKeySizes = [16, 24, 32]

    /// A fresh random 16-byte IV. Every message needs its own.
    public static func randomIV() -> Data { secureRandomBytes(blockSize) }

    public static func encrypt(_ plaintext: Data, key: Data, iv: Data) throws -> Data {
        let cipher = try cbcCipher(for: key, iv: iv)
        return try withCipherContext { context in
            guard key.withUnsafeBytes({ k in iv.withUnsafeBytes { v in
                EVP_EncryptInit_ex2(context, cipher.pointer, k.uint8, v.uint8, nil) } }) == 1 else {
                throw openSSLFailure("EVP_EncryptInit_ex2")
            }
            var output = Data(count: plaintext.count + blockSize)
            var written: Int32 = 0, finalWritten: Int32 = 0
            let status = output.withUnsafeMutableBytes { out in
                plaintext.withUnsafeBytes { input -> Int32 in
                    // An empty plaintext still gets one block of padding from Final.
                    if input.count > 0 {
                        guard EVP_EncryptUpdate(context, out.uint8, &written, input.uint8, Int32(input.count)) == 1 else { return 0 }
                    }
                    return EVP_EncryptFinal_ex(context, out.uint8! + Int(written), &finalWritten)
                }
            }
            guard status == 1 else { throw openSSLFailure("EVP_EncryptUpdate/Final") }
            output.count = Int(written + finalWritten)
            return output
        }
    }

    /// Decrypts and strips PKCS#7 padding; a bad padding is `.badPadding`.
    public static func decrypt(_ ciphertext: Data, key: Data, iv: Data) throws -> Data {
        let cipher = try cbcCipher(for: key, iv: iv)
        guard !ciphertext.isEmpty, ciphertext.count % blockSize == 0 else {
            throw WireCryptoError.invalidLength(what: "AES-CBC ciphertext", length: ciphertext.count,
                                                expected: "a positive multiple of 16")
        }
        return try withCipherContext { context in
            guard key.withUnsafeBytes({ k in iv.withUnsafeBytes { v in
                EVP_DecryptInit_ex2(context, cipher.pointer, k.uint8, v.uint8, nil) } }) == 1 else {
                throw openSSLFailure("EVP_DecryptInit_ex2")
            }
            var output = Data(count: ciphertext.count + blockSize)
            var written: Int32 = 0, finalWritten: Int32 = 0
            var updateOK = true
            let status = output.withUnsafeMutableBytes { out in
                ciphertext.withUnsafeBytes { input -> Int32 in
                    guard EVP_DecryptUpdate(context, out.uint8, &written, input.uint8, Int32(input.count)) == 1 else {
                        updateOK = false; return 0
                    }
                    return EVP_DecryptFinal_ex(context, out.uint8! + Int(written), &finalWritten)
                }
            }
            guard updateOK else { throw openSSLFailure("EVP_DecryptUpdate") }
            guard status == 1 else { OpenSSLError.drainQueue(); throw WireCryptoError.badPadding }
            output.count = Int(written + finalWritten)
            return output
        }
    }

    private static func cbcCipher(for key: Data, iv: Data) throws -> FetchedCipher {
        guard iv.count == blockSize else {
            throw WireCryptoError.invalidLength(what: "AES-CBC IV", length: iv.count, expected: "16")
        }
        return try AESBlockMode.cbcCipher(keyBytes: key.count)
    }
}

