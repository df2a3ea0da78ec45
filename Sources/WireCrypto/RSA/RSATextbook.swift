import Foundation
internal import COpenSSL

// Textbook RSA decryption (RFC 8017 §5.1.2 RSADP, no padding): what PyCrypto 2.x's `key.decrypt(c)`
// computes, for protocols that use it. The encryption half is `_WEAK_AND_INSECURE_textbookEncrypt`
// (RSAProbes.swift). Deterministic and malleable: never a choice, only a peer's protocol to check.

extension RSAPrivateKey {
    /// cᵈ mod n of a ciphertext of exactly k bytes, as k bytes (I2OSP, leading zeros kept). Throws
    /// `decryptionFailed` for c ≥ n (RSADP step 1: "ciphertext representative out of range").
    public func _WEAK_AND_INSECURE_textbookDecrypt(_ ciphertext: Data) throws -> Data {
        let k = modulusByteCount
        guard ciphertext.count == k else {
            throw WireCryptoError.invalidLength(what: "textbook RSA ciphertext", length: ciphertext.count, expected: "exactly \(k) (the modulus length)")
        }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { throw openSSLFailure("EVP_PKEY_CTX_new_from_pkey") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_decrypt_init(context) == 1 else { throw openSSLFailure("EVP_PKEY_decrypt_init") }
        guard EVP_PKEY_CTX_set_rsa_padding(context, RSA_NO_PADDING) > 0 else { throw openSSLFailure("EVP_PKEY_CTX_set_rsa_padding") }
        var output = [UInt8](repeating: 0, count: k)
        var length = output.count
        let status = ciphertext.withUnsafeBytes { input in
            EVP_PKEY_decrypt(context, &output, &length, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count)
        }
        guard status == 1, length == k else {
            OpenSSLError.drainQueue()
            throw WireCryptoError.decryptionFailed
        }
        return Data(output)
    }
}
