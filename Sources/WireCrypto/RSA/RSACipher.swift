import Foundation
internal import COpenSSL
internal import COpenSSLShims

/// How RSA encryption pads the plaintext. Padding is configuration in the seed protocol, never
/// negotiated, so both ends must be told the same one.
public struct RSAEncryptionPadding: Sendable, Equatable, CustomStringConvertible {
    enum Scheme: Sendable, Equatable {
        case pkcs1v15
        case oaep(hash: Digest, mgf1: Digest, label: Data)
    }
    let scheme: Scheme

    /// PKCS#1 v1.5 encryption (iOS `SecPadding.PKCS1`, the seed default). Bleichenbacher-prone:
    /// crosscheck supports it to test old peers, and reports every use of it as a weakness.
    public static let _WEAK_AND_INSECURE_PKCS_V1_5 = RSAEncryptionPadding(scheme: .pkcs1v15)
    /// OAEP with SHA-1 and MGF1-SHA-1, empty label: OpenSSL's and PyCrypto's OAEP default.
    public static let oaepSHA1 = RSAEncryptionPadding(scheme: .oaep(hash: .sha1, mgf1: .sha1, label: Data()))
    /// OAEP with SHA-256 and MGF1-SHA-256, empty label: iOS `.rsaEncryptionOAEPSHA256`.
    public static let oaepSHA256 = RSAEncryptionPadding(scheme: .oaep(hash: .sha256, mgf1: .sha256, label: Data()))

    /// OAEP with any hash, MGF1 hash and label (Wycheproof varies all three).
    public static func oaep(hash: Digest, mgf1: Digest, label: Data = Data()) -> RSAEncryptionPadding {
        RSAEncryptionPadding(scheme: .oaep(hash: hash, mgf1: mgf1, label: label))
    }

    /// The configuration names the protocol uses: `pkcs1`, `oaep-sha1`, `oaep-sha256`.
    public init(name: String, label: Data = Data()) throws {
        switch name {
        case "pkcs1": self = .init(scheme: .pkcs1v15)
        case "oaep-sha1": self = .oaep(hash: .sha1, mgf1: .sha1, label: label)
        case "oaep-sha256": self = .oaep(hash: .sha256, mgf1: .sha256, label: label)
        default: throw WireCryptoError.unsupported("RSA padding '\(name)' (use pkcs1, oaep-sha1 or oaep-sha256)")
        }
    }

    init(scheme: Scheme) { self.scheme = scheme }

    /// OAEP's hash, MGF1 hash and label; nil for PKCS#1 v1.5.
    public var oaepParameters: (hash: Digest, mgf1: Digest, label: Data)? {
        if case let .oaep(hash, mgf1, label) = scheme { return (hash, mgf1, label) }
        return nil
    }

    /// True for PKCS#1 v1.5, which a report lists as a weakness.
    public var isWeak: Bool { scheme == .pkcs1v15 }

    public var description: String {
        switch scheme {
        case .pkcs1v15: return "pkcs1"
        case let .oaep(hash, mgf1, label):
            let base = hash == mgf1 && (hash == .sha1 || hash == .sha256)
                ? "oaep-\(hash.rawValue.lowercased())" : "oaep-\(hash.rawValue)-mgf1-\(mgf1.rawValue)"
            return label.isEmpty ? base : base + "-label"
        }
    }

    /// The largest plaintext for a modulus of `k` bytes (RFC 8017 §7.1.1 and §7.2.1).
    public func maxPlaintextLength(modulusBytes k: Int) -> Int {
        switch scheme {
        case .pkcs1v15: return max(0, k - 11)
        case let .oaep(hash, _, _): return max(0, k - 2 * hash.byteCount - 2)
        }
    }

    fileprivate func configure(_ context: OpaquePointer) throws {
        switch scheme {
        case .pkcs1v15:
            guard EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) > 0 else {
                throw openSSLFailure("EVP_PKEY_CTX_set_rsa_padding(PKCS1)")
            }
        case let .oaep(hash, mgf1, label):
            guard EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING) > 0 else {
                throw openSSLFailure("EVP_PKEY_CTX_set_rsa_padding(OAEP)")
            }
            guard EVP_PKEY_CTX_set_rsa_oaep_md_name(context, hash.rawValue, nil) > 0 else {
                throw openSSLFailure("EVP_PKEY_CTX_set_rsa_oaep_md_name(\(hash.rawValue))")
            }
            guard EVP_PKEY_CTX_set_rsa_mgf1_md_name(context, mgf1.rawValue, nil) > 0 else {
                throw openSSLFailure("EVP_PKEY_CTX_set_rsa_mgf1_md_name(\(mgf1.rawValue))")
            }
            let status = label.withUnsafeBytes {
                COpenSSLShims_EVP_PKEY_CTX_set_oaep_label_copy(context, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
            }
            guard status > 0 else { throw openSSLFailure("EVP_PKEY_CTX_set0_rsa_oaep_label") }
        }
    }
}

extension RSAPublicKey {
    /// Encrypts `plaintext`; the ciphertext is exactly `modulusByteCount` bytes.
    public func encrypt(_ plaintext: Data, padding: RSAEncryptionPadding) throws -> Data {
        let limit = padding.maxPlaintextLength(modulusBytes: modulusByteCount)
        guard plaintext.count <= limit else {
            throw WireCryptoError.plaintextTooLong(length: plaintext.count, limit: limit,
                                                   padding: padding.description, keyBits: bits)
        }
        return try withPKeyContext(key, init: EVP_PKEY_encrypt_init, name: "EVP_PKEY_encrypt_init") { context in
            try padding.configure(context)
            var output = Data(count: modulusByteCount)
            var outputLength = output.count
            let status = output.withUnsafeMutableBytes { out in
                plaintext.withUnsafeBytes { input in
                    EVP_PKEY_encrypt(context, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &outputLength,
                                     input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count)
                }
            }
            guard status == 1 else { throw openSSLFailure("EVP_PKEY_encrypt") }
            output.count = outputLength
            return output
        }
    }
}

extension RSAPrivateKey {
    /// Decrypts a k-byte ciphertext. Every failure after the length check is `.decryptionFailed`,
    /// whatever its cause, so callers cannot build a padding oracle from the error.
    public func decrypt(_ ciphertext: Data, padding: RSAEncryptionPadding) throws -> Data {
        let k = modulusByteCount
        guard ciphertext.count == k else {
            throw WireCryptoError.invalidLength(what: "RSA ciphertext", length: ciphertext.count,
                                                expected: "exactly \(k) (the modulus length)")
        }
        return try withPKeyContext(key, init: EVP_PKEY_decrypt_init, name: "EVP_PKEY_decrypt_init") { context in
            try padding.configure(context)
            if padding.oaepParameters == nil { try PKCS1Rejection.requireExplicit(context) }
            var output = Data(count: k)
            var outputLength = output.count
            let status = output.withUnsafeMutableBytes { out in
                ciphertext.withUnsafeBytes { input in
                    EVP_PKEY_decrypt(context, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &outputLength,
                                     input.baseAddress!.assumingMemoryBound(to: UInt8.self), input.count)
                }
            }
            guard status == 1 else {
                OpenSSLError.drainQueue()
                throw WireCryptoError.decryptionFailed
            }
            output.count = outputLength
            return output
        }
    }

    /// Encrypts to this key's public half.
    public func encrypt(_ plaintext: Data, padding: RSAEncryptionPadding) throws -> Data {
        try publicKey.encrypt(plaintext, padding: padding)
    }
}

/// Runs `body` with a fresh `EVP_PKEY_CTX` for `key`, initialised by `initialize`.
private func withPKeyContext<R>(
    _ key: EVPKey, init initialize: (OpaquePointer?) -> Int32, name: String,
    _ body: (OpaquePointer) throws -> R
) throws -> R {
    guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
        throw openSSLFailure("EVP_PKEY_CTX_new_from_pkey")
    }
    defer { EVP_PKEY_CTX_free(context) }
    guard initialize(context) == 1 else { throw openSSLFailure(name) }
    return try body(context)
}

/// How PKCS#1 v1.5 decryption answers a ciphertext whose padding is wrong. The Swift side models
/// iOS, whose `SecKeyDecrypt` returns an error, so it always asks for explicit rejection: OpenSSL
/// 3.2 and later otherwise return a synthetic plaintext ("implicit rejection", OpenSSL PR 13817),
/// and crosscheck built on such a distribution would give other verdicts than here.
public enum PKCS1Rejection {
    /// OpenSSL's name for the switch (OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION, OpenSSL ≥ 3.2).
    static let parameterName = "implicit-rejection"

    /// Whether the linked OpenSSL has implicit rejection to turn off; before 3.2 it has none,
    /// and every bad padding is an error already.
    public static let linkedOpenSSLHasImplicitRejection: Bool = {
        guard let key = try? RSAPrivateKey(bits: 1024),
              let context = EVP_PKEY_CTX_new_from_pkey(nil, key.key.pointer, nil) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_decrypt_init(context) == 1, let settable = EVP_PKEY_CTX_settable_params(context) else { return false }
        return OSSL_PARAM_locate_const(settable, parameterName) != nil
    }()

    /// What the Swift side does, in a report's words.
    public static var description: String {
        linkedOpenSSLHasImplicitRejection
            ? "explicit (an error, as iOS SecKeyDecrypt): implicit rejection turned off in the linked OpenSSL"
            : "explicit (an error, as iOS SecKeyDecrypt): the linked OpenSSL predates implicit rejection (3.2)"
    }

    /// Turns implicit rejection off on a decryption context where OpenSSL has it.
    static func requireExplicit(_ context: OpaquePointer) throws {
        guard linkedOpenSSLHasImplicitRejection else { return }
        var off: UInt32 = 0
        let status = parameterName.withCString { name in
            withUnsafeMutablePointer(to: &off) { value in
                var params = [OSSL_PARAM_construct_uint(name, value), OSSL_PARAM_construct_end()]
                return EVP_PKEY_CTX_set_params(context, &params)
            }
        }
        guard status == 1 else { throw openSSLFailure("EVP_PKEY_CTX_set_params(implicit-rejection = 0)") }
    }
}
