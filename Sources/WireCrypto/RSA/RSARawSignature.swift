import Foundation
internal import COpenSSL

// The RSA signatures Security's older SecKeyRawSign/SecKeyRawVerify make when the caller supplies
// the bytes to pad: PKCS#1 v1.5 type-1 padding over the caller's bytes as they are (no DigestInfo
// added: the caller's bytes usually are one), and textbook RSA over a whole block. They are what
// `openssl pkeyutl -sign` does without `-digest` (padding pkcs1 and none).

extension RSAPrivateKey {
    /// PKCS#1 v1.5 type-1 padding over `data` (at most k − 11 bytes), then the private operation.
    public func signPKCS1v15Unhashed(_ data: Data) throws -> Data { try rawPrivateOperation(data, padding: RSA_PKCS1_PADDING) }

    /// The private operation on exactly one modulus-sized block, no padding: whoever builds the
    /// block decides what it means (textbook RSA: unsafe for anything but a padded block).
    public func _WEAK_AND_INSECURE_signRawBlock(_ block: Data) throws -> Data { try rawPrivateOperation(block, padding: RSA_NO_PADDING) }

    /// The private operation (EVP_PKEY_sign) with `padding`; with RSA_NO_PADDING it is RFC 8017's
    /// RSASP1, the same cᵈ mod n as RSADP (RSATextbook.swift), on exactly k bytes below n.
    func rawPrivateOperation(_ input: Data, padding: Int32) throws -> Data {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { throw openSSLFailure("EVP_PKEY_CTX_new_from_pkey") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_sign_init(context) == 1 else { throw openSSLFailure("EVP_PKEY_sign_init") }
        guard EVP_PKEY_CTX_set_rsa_padding(context, padding) > 0 else { throw openSSLFailure("EVP_PKEY_CTX_set_rsa_padding") }
        var signature = [UInt8](repeating: 0, count: modulusByteCount)
        var length = signature.count
        let status = input.withUnsafeBytes { bytes in
            EVP_PKEY_sign(context, &signature, &length, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
        guard status == 1 else { throw openSSLFailure("EVP_PKEY_sign") }
        return Data(signature.prefix(length))
    }
}

extension RSAPublicKey {
    /// True when `signature` is PKCS#1 v1.5 type-1 padding over exactly `data`.
    public func verifyPKCS1v15Unhashed(signature: Data, data: Data) -> Bool {
        recover(signature, padding: RSA_PKCS1_PADDING) == data
    }

    /// True when the public operation on `signature` gives exactly `block` (a modulus-sized block).
    public func _WEAK_AND_INSECURE_verifyRawBlock(signature: Data, block: Data) -> Bool {
        block.count == modulusByteCount && recover(signature, padding: RSA_NO_PADDING) == block
    }

    /// The bytes the public operation recovers from `signature` with `padding` removed, or nil.
    private func recover(_ signature: Data, padding: Int32) -> Data? {
        guard signature.count == modulusByteCount, let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_verify_recover_init(context) == 1, EVP_PKEY_CTX_set_rsa_padding(context, padding) > 0 else {
            OpenSSLError.drainQueue(); return nil
        }
        var output = [UInt8](repeating: 0, count: modulusByteCount)
        var length = output.count
        let status = signature.withUnsafeBytes { bytes in
            EVP_PKEY_verify_recover(context, &output, &length, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
        guard status == 1 else { OpenSSLError.drainQueue(); return nil }
        return Data(output.prefix(length))
    }
}
