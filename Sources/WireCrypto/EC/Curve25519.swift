import Foundation
internal import COpenSSL
internal import COpenSSLShims

/// X25519 (RFC 7748) and Ed25519 (RFC 8032) keys over OpenSSL's raw-key EVP interface. Keys are 32
/// raw bytes (CryptoKit's `rawRepresentation`) or SubjectPublicKeyInfo / PKCS#8 (RFC 8410), DER or PEM.
enum OctetKeyCurve: String, Sendable {
    case x25519 = "X25519"
    case ed25519 = "Ed25519"

    var type: Int32 { self == .x25519 ? EVP_PKEY_X25519 : EVP_PKEY_ED25519 }
}

/// One X25519 or Ed25519 key (private with its public half, or public only).
struct OctetKey: Sendable {
    let key: EVPKey
    let curve: OctetKeyCurve
    let operations: KeyOperations

    static func generate(_ curve: OctetKeyCurve) throws -> OctetKey {
        OctetKey(key: try generateKey(type: curve.rawValue, group: nil), curve: curve)
    }

    init(key: EVPKey, curve: OctetKeyCurve) { self.key = key; self.curve = curve; self.operations = KeyOperations(key) }

    init(raw: Data, curve: OctetKeyCurve, isPrivate: Bool) throws {
        guard raw.count == 32 else {
            throw WireCryptoError.malformedECKey(curve: curve.rawValue, format: "raw", reason: "expected 32 bytes, got \(raw.count)")
        }
        let pointer = raw.withUnsafeBytes { bytes in
            let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return isPrivate ? EVP_PKEY_new_raw_private_key(curve.type, nil, base, 32) : EVP_PKEY_new_raw_public_key(curve.type, nil, base, 32)
        }
        guard let pointer else {
            throw WireCryptoError.malformedECKey(curve: curve.rawValue, format: "raw", reason: "OpenSSL refuses it (\(OpenSSLError.drainQueue().map(\.text).joined(separator: "; ")))")
        }
        self.init(key: EVPKey(takingOwnershipOf: pointer), curve: curve)
    }

    init(der: Data, curve: OctetKeyCurve, isPrivate: Bool) throws {
        let structure = isPrivate ? "PrivateKeyInfo" : "SubjectPublicKeyInfo"
        let selection = isPrivate ? COpenSSLShims_EVP_PKEY_KEYPAIR() : COpenSSLShims_EVP_PKEY_PUBLIC_KEY()
        guard let decoded = try decodeDER(der, type: curve.rawValue, selection: selection, structure: structure),
              EVP_PKEY_get_id(decoded.pointer) == curve.type else {
            throw WireCryptoError.malformedECKey(curve: curve.rawValue, format: isPrivate ? "PKCS#8 DER" : "SubjectPublicKeyInfo DER",
                                                 reason: "OpenSSL does not decode it as a \(curve.rawValue) key")
        }
        self.init(key: decoded, curve: curve)
    }

    init(pem: String, curve: OctetKeyCurve, isPrivate: Bool) throws {
        let der = try pemBody(Data(pem.utf8), labels: [isPrivate ? "PRIVATE KEY" : "PUBLIC KEY"], curve: curve.rawValue).der
        try self.init(der: der, curve: curve, isPrivate: isPrivate)
    }

    func raw(isPrivate: Bool) -> Data {
        var bytes = [UInt8](repeating: 0, count: 32)
        var length = 32
        let status = isPrivate ? EVP_PKEY_get_raw_private_key(key.pointer, &bytes, &length) : EVP_PKEY_get_raw_public_key(key.pointer, &bytes, &length)
        // A key made here always has its 32 raw bytes; anything else means OpenSSL itself is broken.
        precondition(status == 1 && length == 32, "EVP_PKEY_get_raw_*_key(\(curve.rawValue)) failed: \(OpenSSLError.drainQueue())")
        return Data(bytes)
    }

    /// The public half alone (so a public key never carries the private bytes).
    func publicOnly() throws -> OctetKey { try OctetKey(raw: raw(isPrivate: false), curve: curve, isPrivate: false) }

    func der(isPrivate: Bool) throws -> Data { try encodeDER(key, privateKey: isPrivate, structure: isPrivate ? "PrivateKeyInfo" : "SubjectPublicKeyInfo") }

    func pem(isPrivate: Bool) throws -> String {
        String(decoding: PEM.iOSStyle(label: isPrivate ? "PRIVATE KEY" : "PUBLIC KEY", der: try der(isPrivate: isPrivate)), as: UTF8.self)
    }
}

/// An X25519 public key (32 bytes, RFC 7748 u-coordinate).
public struct X25519PublicKey: Sendable {
    let octet: OctetKey
    init(_ octet: OctetKey) { self.octet = octet }
    public init(rawRepresentation: Data) throws { octet = try OctetKey(raw: Data(rawRepresentation), curve: .x25519, isPrivate: false) }
    public init(derRepresentation: Data) throws { octet = try OctetKey(der: derRepresentation, curve: .x25519, isPrivate: false) }
    public init(pemRepresentation: String) throws { octet = try OctetKey(pem: pemRepresentation, curve: .x25519, isPrivate: false) }
    public var rawRepresentation: Data { octet.raw(isPrivate: false) }
    public var derRepresentation: Data { get throws { try octet.der(isPrivate: false) } }
    public var pemRepresentation: String { get throws { try octet.pem(isPrivate: false) } }
}

/// An X25519 private key (32 bytes; OpenSSL clamps it as RFC 7748 §5 says when it is used).
public struct X25519PrivateKey: Sendable {
    let octet: OctetKey
    public init() throws { octet = try OctetKey.generate(.x25519) }
    public init(rawRepresentation: Data) throws { octet = try OctetKey(raw: Data(rawRepresentation), curve: .x25519, isPrivate: true) }
    public init(derRepresentation: Data) throws { octet = try OctetKey(der: derRepresentation, curve: .x25519, isPrivate: true) }
    public init(pemRepresentation: String) throws { octet = try OctetKey(pem: pemRepresentation, curve: .x25519, isPrivate: true) }
    public var rawRepresentation: Data { octet.raw(isPrivate: true) }
    public var derRepresentation: Data { get throws { try octet.der(isPrivate: true) } }
    public var pemRepresentation: String { get throws { try octet.pem(isPrivate: true) } }
    public var publicKey: X25519PublicKey { get throws { X25519PublicKey(try octet.publicOnly()) } }

    /// X25519(k, u) (RFC 7748 §6.1), 32 bytes; an all-zero result (a low-order peer key) is refused.
    public func sharedSecret(with peer: X25519PublicKey) throws -> Data { try derive(octet.operations.derive, peer: peer.octet.key) }
}

/// An Ed25519 public key (32 bytes, RFC 8032 §5.1.5).
public struct Ed25519PublicKey: Sendable {
    let octet: OctetKey
    init(_ octet: OctetKey) { self.octet = octet }
    public init(rawRepresentation: Data) throws { octet = try OctetKey(raw: Data(rawRepresentation), curve: .ed25519, isPrivate: false) }
    public init(derRepresentation: Data) throws { octet = try OctetKey(der: derRepresentation, curve: .ed25519, isPrivate: false) }
    public init(pemRepresentation: String) throws { octet = try OctetKey(pem: pemRepresentation, curve: .ed25519, isPrivate: false) }
    public var rawRepresentation: Data { octet.raw(isPrivate: false) }
    public var derRepresentation: Data { get throws { try octet.der(isPrivate: false) } }
    public var pemRepresentation: String { get throws { try octet.pem(isPrivate: false) } }

    /// True when `signature` (64 bytes) is this key's Ed25519 signature of `message`.
    public func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        guard signature.count == 64, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit_ex(context, nil, nil, nil, nil, octet.key.pointer, nil) == 1 else { OpenSSLError.drainQueue(); return false }
        let status = signature.withUnsafeBytes { sig in
            withMessageBytes(message) { input, count in
                EVP_DigestVerify(context, sig.baseAddress?.assumingMemoryBound(to: UInt8.self), sig.count, input, count)
            }
        }
        if status != 1 { OpenSSLError.drainQueue() }
        return status == 1
    }
}

/// An Ed25519 private key (the 32-byte seed of RFC 8032 §5.1.5).
public struct Ed25519PrivateKey: Sendable {
    let octet: OctetKey
    public init() throws { octet = try OctetKey.generate(.ed25519) }
    public init(rawRepresentation: Data) throws { octet = try OctetKey(raw: Data(rawRepresentation), curve: .ed25519, isPrivate: true) }
    public init(derRepresentation: Data) throws { octet = try OctetKey(der: derRepresentation, curve: .ed25519, isPrivate: true) }
    public init(pemRepresentation: String) throws { octet = try OctetKey(pem: pemRepresentation, curve: .ed25519, isPrivate: true) }
    public var rawRepresentation: Data { octet.raw(isPrivate: true) }
    public var derRepresentation: Data { get throws { try octet.der(isPrivate: true) } }
    public var pemRepresentation: String { get throws { try octet.pem(isPrivate: true) } }
    public var publicKey: Ed25519PublicKey { get throws { Ed25519PublicKey(try octet.publicOnly()) } }

    /// The 64-byte Ed25519 signature of `message` (deterministic: RFC 8032's vectors are exact answers).
    public func signature(for message: Data) throws -> Data {
        guard let context = EVP_MD_CTX_new() else { throw openSSLFailure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit_ex(context, nil, nil, nil, nil, octet.key.pointer, nil) == 1 else { throw openSSLFailure("EVP_DigestSignInit_ex(Ed25519)") }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        let status = withMessageBytes(message) { EVP_DigestSign(context, &signature, &length, $0, $1) }
        guard status == 1, length == 64 else { throw openSSLFailure("EVP_DigestSign(Ed25519)") }
        return Data(signature)
    }
}

/// Calls `body` with a pointer to `message`'s bytes that is valid even when it is empty (OpenSSL's
/// one-shot calls may refuse a null input pointer).
private func withMessageBytes<R>(_ message: Data, _ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
    if message.isEmpty {
        var zero: UInt8 = 0
        return withUnsafePointer(to: &zero) { body($0, 0) }
    }
    return message.withUnsafeBytes { body($0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count) }
}
