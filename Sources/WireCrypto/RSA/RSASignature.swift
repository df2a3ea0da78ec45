import Foundation
internal import COpenSSL

/// An RSA signature scheme over a precomputed digest: PKCS#1 v1.5 (RFC 8017 §8.2, the digest in
/// a DigestInfo) or PSS (§8.1) with MGF1 of the same hash and a salt as long as the hash, which is
/// what Apple's Security framework uses. Message variants hash first (`hashAndSign`).
public enum RSASignatureScheme: Sendable, Equatable {
    case pkcs1v15(Digest)
    case pss(Digest)

    public var digest: Digest {
        switch self {
        case let .pkcs1v15(digest), let .pss(digest): return digest
        }
    }

    fileprivate func configure(_ context: OpaquePointer) throws {
        guard EVP_PKEY_CTX_set_signature_md(context, EVP_get_digestbyname(digest.rawValue)) > 0 else {
            throw openSSLFailure("EVP_PKEY_CTX_set_signature_md(\(digest.rawValue))")
        }
        switch self {
        case .pkcs1v15:
            guard EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) > 0 else { throw openSSLFailure("EVP_PKEY_CTX_set_rsa_padding(PKCS1)") }
        case .pss:
            guard EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING) > 0 else { throw openSSLFailure("EVP_PKEY_CTX_set_rsa_padding(PSS)") }
            guard EVP_PKEY_CTX_set_rsa_mgf1_md_name(context, digest.rawValue, nil) > 0 else { throw openSSLFailure("EVP_PKEY_CTX_set_rsa_mgf1_md_name") }
            guard EVP_PKEY_CTX_set_rsa_pss_saltlen(context, RSA_PSS_SALTLEN_DIGEST) > 0 else { throw openSSLFailure("EVP_PKEY_CTX_set_rsa_pss_saltlen") }
        }
    }

    /// PSS needs room for the hash, the salt and two bytes: emLen ≥ 2·hLen + 2.
    public func fits(modulusBytes k: Int) -> Bool {
        switch self {
        case let .pkcs1v15(digest): return k >= digest.byteCount + 19 + 11  // DigestInfo (≤ 19 bytes of header) + PKCS#1 padding
        case let .pss(digest): return k >= 2 * digest.byteCount + 2
        }
    }
}

extension RSAPrivateKey {
    /// Signs a digest of `scheme.digest` (exactly its length).
    public func sign(digest: Data, scheme: RSASignatureScheme) throws -> Data {
        guard digest.count == scheme.digest.byteCount else {
            throw WireCryptoError.invalidLength(what: "\(scheme.digest.rawValue) digest", length: digest.count, expected: "\(scheme.digest.byteCount)")
        }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { throw openSSLFailure("EVP_PKEY_CTX_new_from_pkey") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_sign_init(context) == 1 else { throw openSSLFailure("EVP_PKEY_sign_init") }
        try scheme.configure(context)
        var signature = [UInt8](repeating: 0, count: modulusByteCount)
        var length = signature.count
        let status = digest.withUnsafeBytes { input in
            EVP_PKEY_sign(context, &signature, &length, input.baseAddress!.assumingMemoryBound(to: UInt8.self), input.count)
        }
        guard status == 1 else { throw openSSLFailure("EVP_PKEY_sign") }
        return Data(signature.prefix(length))
    }

    /// Hashes `message` with `scheme.digest`, then signs.
    public func hashAndSign(_ message: Data, scheme: RSASignatureScheme) throws -> Data {
        try sign(digest: scheme.digest.hash(message), scheme: scheme)
    }
}

extension RSAPublicKey {
    /// True when `signature` is this key's signature of `digest` under `scheme`; false for any
    /// mismatch (a wrong length, a bad padding, another message).
    public func verify(signature: Data, digest: Data, scheme: RSASignatureScheme) -> Bool {
        guard digest.count == scheme.digest.byteCount, signature.count == modulusByteCount,
              let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_verify_init(context) == 1, (try? scheme.configure(context)) != nil else {
            OpenSSLError.drainQueue()
            return false
        }
        let status = signature.withUnsafeBytes { sig in
            digest.withUnsafeBytes { input in
                EVP_PKEY_verify(context, sig.baseAddress!.assumingMemoryBound(to: UInt8.self), sig.count,
                                input.baseAddress!.assumingMemoryBound(to: UInt8.self), input.count)
            }
        }
        if status != 1 { OpenSSLError.drainQueue() }
        return status == 1
    }

    public func verify(signature: Data, message: Data, scheme: RSASignatureScheme) -> Bool {
        verify(signature: signature, digest: scheme.digest.hash(message), scheme: scheme)
    }
}
