import Foundation
internal import COpenSSL

/// What a PKCS#12 (.p12/.pfx) file holds: one private key, the certificate it belongs to, and the
/// other certificates of its chain, with the attributes `openssl pkcs12 -export` writes
/// (friendlyName, localKeyID).
public struct PKCS12Contents: Sendable {
    /// The private key as PKCS#8 PrivateKeyInfo DER.
    public let privateKeyPKCS8DER: Data
    /// The key's algorithm: "RSA", "EC", or OpenSSL's name of another.
    public let privateKeyAlgorithm: String
    /// The certificate of the key.
    public let certificate: X509Certificate
    /// The other certificates, in the file's order.
    public let chain: [X509Certificate]
    /// The friendlyName attribute (`openssl pkcs12 -name`), if any.
    public let friendlyName: String?
    /// The localKeyID attribute (OpenSSL writes the SHA-1 of the certificate), if any.
    public let localKeyID: Data?
}

/// Errors reading a PKCS#12 file.
public enum PKCS12Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a PKCS#12 structure.
    case malformed(reason: String)
    /// The passphrase does not verify the file's MAC, or does not decrypt its bags.
    case wrongPassphrase
    /// A valid file without a private key and its certificate (Apple's import needs both).
    case noIdentity

    public var description: String {
        switch self {
        case let .malformed(reason): return "not a PKCS#12 file: \(reason)"
        case .wrongPassphrase: return "the passphrase does not open this PKCS#12 file"
        case .noIdentity: return "the PKCS#12 file holds no private key with its certificate"
        }
    }
}

/// Reads PKCS#12 files through OpenSSL's PKCS12_parse. Files from OpenSSL 1.x, and
/// `openssl pkcs12 -export -legacy` on OpenSSL 3, are encrypted with RC2-40 and 3DES, which
/// OpenSSL 3 keeps in its legacy provider: it is loaded (with the default provider, which stops
/// loading itself once any provider is loaded explicitly) the first time a file is read.
public enum PKCS12 {
    /// True once both providers are loaded; false when the legacy one is not installed (then only
    /// AES-encrypted files, OpenSSL 3's default, can be read).
    static let legacyProviderLoaded: Bool = {
        let defaultProvider = OSSL_PROVIDER_load(nil, "default")
        let legacy = OSSL_PROVIDER_load(nil, "legacy")
        if legacy == nil { OpenSSLError.drainQueue() }
        return defaultProvider != nil && legacy != nil
    }()

    /// The identity in `der`, opened with `passphrase`.
    public static func parse(_ der: Data, passphrase: String) throws(PKCS12Error) -> PKCS12Contents {
        _ = legacyProviderLoaded
        let parsed: OpaquePointer? = der.withUnsafeBytes { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return d2i_PKCS12(nil, &cursor, buffer.count)
        }
        guard let p12 = parsed else {
            throw .malformed(reason: OpenSSLError.drainQueue().map(\.text).joined(separator: "; "))
        }
        defer { PKCS12_free(p12) }
        if PKCS12_mac_present(p12) == 1, PKCS12_verify_mac(p12, passphrase, Int32(passphrase.utf8.count)) != 1 {
            OpenSSLError.drainQueue()
            throw .wrongPassphrase
        }
        var key: OpaquePointer? = nil
        var certificate: OpaquePointer? = nil
        var others: OpaquePointer? = nil
        guard PKCS12_parse(p12, passphrase, &key, &certificate, &others) == 1 else {
            // The MAC matched (or there is none) but a bag would not decrypt: the passphrase, or a
            // cipher OpenSSL does not have.
            let stack = OpenSSLError.drainQueue().map(\.text).joined(separator: "; ")
            if stack.contains("unsupported") { throw .malformed(reason: "a cipher OpenSSL cannot use here: \(stack)") }
            throw .wrongPassphrase
        }
        defer {
            if let key { EVP_PKEY_free(key) }
            if let others { OPENSSL_sk_pop_free(others) { X509_free(OpaquePointer($0)) } }
        }
        guard let key, let certificate else {
            if let certificate { X509_free(certificate) }
            throw .noIdentity
        }
        let owned = X509Certificate(takingOwnershipOf: certificate)
        var chain: [X509Certificate] = []
        if let others {
            for index in 0..<OPENSSL_sk_num(others) {
                guard let raw = OPENSSL_sk_value(others, index), X509_up_ref(OpaquePointer(raw)) == 1 else { continue }
                chain.append(X509Certificate(takingOwnershipOf: OpaquePointer(raw)))
            }
        }
        guard let info = EVP_PKEY2PKCS8(key) else { throw .malformed(reason: "the private key does not encode as PKCS#8") }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PKCS8_PRIV_KEY_INFO(info, &out)
        guard length > 0, let out else { throw .malformed(reason: "the private key does not encode as PKCS#8") }
        defer { CRYPTO_free(out, #fileID, #line) }
        let algorithm: String
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA: algorithm = "RSA"
        case EVP_PKEY_EC: algorithm = "EC"
        default: algorithm = EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "unknown"
        }
        var aliasLength: Int32 = 0
        let alias = X509_alias_get0(certificate, &aliasLength).map { String(decoding: Data(bytes: $0, count: Int(aliasLength)), as: UTF8.self) }
        var keyIDLength: Int32 = 0
        let keyID = X509_keyid_get0(certificate, &keyIDLength).map { Data(bytes: $0, count: Int(keyIDLength)) }
        return PKCS12Contents(privateKeyPKCS8DER: Data(bytes: out, count: Int(length)), privateKeyAlgorithm: algorithm,
                              certificate: owned, chain: chain, friendlyName: alias, localKeyID: keyID)
    }
}
