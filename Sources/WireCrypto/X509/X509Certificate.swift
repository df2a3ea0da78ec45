import Foundation
#if canImport(Glibc)
import Glibc
#endif
internal import COpenSSL
internal import COpenSSLShims

/// Errors about certificates. (A type of its own: `WireCryptoError` is matched exhaustively elsewhere.)
public enum X509Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// Bytes that are not exactly one X.509 certificate.
    case malformedCertificate(reason: String)

    public var description: String {
        switch self {
        case let .malformedCertificate(reason): return "not a usable X.509 certificate: \(reason)"
        }
    }
}

/// Owns one OpenSSL `X509`: a parsed certificate. Immutable once made, so it is shared freely.
public final class X509Certificate: @unchecked Sendable {
    let pointer: OpaquePointer

    init(takingOwnershipOf pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }

    /// Parses exactly one DER certificate; trailing bytes or anything unparsable is an error.
    public init(der: Data) throws {
        guard !der.isEmpty else { throw X509Error.malformedCertificate(reason: "no certificate bytes") }
        var consumed = 0
        let parsed: OpaquePointer? = der.withUnsafeBytes { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
            let start = cursor
            let certificate = d2i_X509(nil, &cursor, buffer.count)
            if let cursor, let start { consumed = cursor - start }
            return certificate
        }
        guard let parsed else {
            throw X509Error.malformedCertificate(reason: "not a DER X.509 certificate (\(OpenSSLError.drainQueue().map(\.text).joined(separator: "; ")))")
        }
        guard consumed == der.count else {
            X509_free(parsed)
            throw X509Error.malformedCertificate(reason: "\(der.count - consumed) bytes follow the DER certificate")
        }
        self.pointer = parsed
    }

    /// Parses the first `CERTIFICATE` PEM block.
    public convenience init(pem: Data) throws {
        let der: Data
        do { der = try PEM.body(of: pem, label: "CERTIFICATE") } catch {
            throw X509Error.malformedCertificate(reason: "no 'CERTIFICATE' PEM block")
        }
        try self.init(der: der)
    }

    /// Every `CERTIFICATE` block in a PEM bundle, in order.
    public static func all(inPEM pem: Data) throws -> [X509Certificate] {
        let text = String(decoding: pem, as: UTF8.self)
        var result: [X509Certificate] = []
        var rest = text[...]
        while let begin = rest.range(of: "-----BEGIN CERTIFICATE-----"),
              let end = rest.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<rest.endIndex) {
            result.append(try X509Certificate(pem: Data(rest[begin.lowerBound..<end.upperBound].utf8)))
            rest = rest[end.upperBound...]
        }
        return result
    }

    /// The certificate's DER encoding (what was parsed, re-encoded: X509 keeps the original bytes).
    public var der: Data {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509(pointer, &out)
        guard length > 0, let out else { return Data() }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Data(bytes: out, count: Int(length))
    }

    /// Values of one attribute of the subject name (e.g. commonName), in order.
    public func subjectValues(_ attribute: SubjectAttribute) -> [String] {
        guard let name = X509_get_subject_name(pointer) else { return [] }
        var values: [String] = []
        var index: Int32 = -1
        while true {
            index = X509_NAME_get_index_by_NID(name, attribute.nid, index)
            if index < 0 { break }
            guard let entry = X509_NAME_get_entry(name, index), let asn1 = X509_NAME_ENTRY_get_data(entry) else { continue }
            var utf8: UnsafeMutablePointer<UInt8>? = nil
            let length = ASN1_STRING_to_UTF8(&utf8, asn1)
            if length >= 0, let utf8 {
                values.append(String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self))
                CRYPTO_free(utf8, #fileID, #line)
            }
        }
        return values
    }

    public enum SubjectAttribute: Sendable {
        case commonName, organization, organizationalUnit, emailAddress
        var nid: Int32 {
            switch self {
            case .commonName: return NID_commonName
            case .organization: return NID_organizationName
            case .organizationalUnit: return NID_organizationalUnitName
            case .emailAddress: return NID_pkcs9_emailAddress
            }
        }
    }

    /// The DER of the subject and issuer names, and the serial number's bytes (for keychain identity).
    public var subjectDER: Data { nameDER(X509_get_subject_name(pointer)) }
    public var issuerDER: Data { nameDER(X509_get_issuer_name(pointer)) }
    public var serialNumber: Data {
        guard let serial = X509_get0_serialNumber(pointer) else { return Data() }
        return Data(bytes: ASN1_STRING_get0_data(serial), count: Int(ASN1_STRING_length(serial)))
    }

    public var notBefore: Date? { date(X509_get0_notBefore(pointer)) }
    public var notAfter: Date? { date(X509_get0_notAfter(pointer)) }

    /// True when the certificate carries an extended key usage extension at all.
    public var hasExtendedKeyUsage: Bool { X509_get_ext_by_NID(pointer, NID_ext_key_usage, -1) >= 0 }

    /// The public key, when it is an RSA key.
    public var rsaPublicKey: RSAPublicKey? {
        guard let key = X509_get_pubkey(pointer) else { return nil }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else { EVP_PKEY_free(key); return nil }
        return RSAPublicKey(key: EVPKey(takingOwnershipOf: key))
    }

    /// The public key, when it is a P-256, P-384 or P-521 key (read from its SubjectPublicKeyInfo).
    public var ecPublicKey: ECPublicKey? {
        guard let key = X509_get0_pubkey(pointer), EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { return nil }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PUBKEY(key, &out)
        guard length > 0, let out else { OpenSSLError.drainQueue(); return nil }
        defer { COpenSSLShims_OPENSSL_free(out) }
        return try? ECPublicKey(derRepresentation: Data(bytes: out, count: Int(length)))
    }

    /// The public key's size in bits and whether it is RSA (the checks Apple applies to key sizes).
    public var publicKeyBits: Int {
        guard let key = X509_get0_pubkey(pointer) else { return 0 }
        return Int(EVP_PKEY_get_bits(key))
    }

    /// The digest the signature uses, by OpenSSL short name ("SHA256", "SHA1", "MD5"), if known.
    public var signatureDigestName: String? {
        var digestNID: Int32 = 0, keyNID: Int32 = 0
        guard OBJ_find_sigid_algs(X509_get_signature_nid(pointer), &digestNID, &keyNID) == 1,
              let name = OBJ_nid2sn(digestNID) else { return nil }
        return String(cString: name)
    }

    /// True when the subject and issuer names are the same (a root or a self-signed leaf).
    public var isSelfIssued: Bool { X509_NAME_cmp(X509_get_subject_name(pointer), X509_get_issuer_name(pointer)) == 0 }

    private func nameDER(_ name: OpaquePointer?) -> Data {
        guard let name else { return Data() }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509_NAME(name, &out)
        guard length > 0, let out else { return Data() }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Data(bytes: out, count: Int(length))
    }

    private func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}

/// What an X.509 chain must satisfy besides chaining to an anchor.
public struct X509VerificationPolicy: Sendable {
    /// OpenSSL's purpose check on the chain.
    public enum Purpose: Sendable {
        /// X509_PURPOSE_SSL_SERVER: serverAuth (or SGC) EKU if present, a TLS key usage if present, CA flags.
        case sslServer
        /// X509_PURPOSE_SSL_CLIENT.
        case sslClient
        /// X509_PURPOSE_ANY: no purpose check (CA flags are still checked), for callers that judge
        /// usages by their own rules (Apple's SSL policy checks no key usage: Security's SecTrust).
        case none
    }
    /// The server name to match against the certificate's subjectAltName (never its common name).
    public var hostname: String?
    public var purpose: Purpose
    /// Check the TLS-server purpose (serverAuth EKU if present, CA flags); false checks TLS-client.
    public var serverAuthentication: Bool { purpose == .sslServer }
    /// The moment at which validity dates are checked.
    public var verifyDate: Date

    public init(hostname: String?, serverAuthentication: Bool = true, verifyDate: Date = Date()) {
        self.init(hostname: hostname, purpose: serverAuthentication ? .sslServer : .sslClient, verifyDate: verifyDate)
    }

    public init(hostname: String?, purpose: Purpose, verifyDate: Date = Date()) {
        self.hostname = hostname; self.purpose = purpose; self.verifyDate = verifyDate
    }
}

/// The outcome of `X509ChainVerifier.verify`.
public struct X509VerificationResult: Sendable {
    /// OpenSSL's `X509_V_*` code: 0 when the chain verified.
    public let errorCode: Int32
    /// Which certificate failed (0 = leaf), when one did.
    public let errorDepth: Int32
    /// OpenSSL's text for `errorCode`.
    public let message: String
    /// The chain OpenSSL built, leaf first (ending at the anchor when it verified).
    public let chain: [X509Certificate]

    public var verified: Bool { errorCode == 0 }

    public var failure: X509Failure? {
        switch errorCode {
        case 0: return nil
        case X509_V_ERR_CERT_HAS_EXPIRED: return .expired
        case X509_V_ERR_CERT_NOT_YET_VALID: return .notYetValid
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: return .hostnameMismatch
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
             X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_CERT_UNTRUSTED:
            return .untrusted
        case X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE,
             X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY:
            return .badSignature
        case X509_V_ERR_INVALID_PURPOSE, X509_V_ERR_INVALID_CA, X509_V_ERR_PATH_LENGTH_EXCEEDED:
            return .invalidUsage
        default: return .other
        }
    }
}

public enum X509Failure: Sendable, Equatable {
    case untrusted, expired, notYetValid, hostnameMismatch, badSignature, invalidUsage, other
}

/// Real chain verification with OpenSSL's `X509_verify_cert`: the leaf, the untrusted
/// certificates the peer sent, and trust coming only from `anchors` (plus the system's CA store
/// when `systemRoots` is set). Any anchor ends a chain, self-signed or not, so a pinned leaf or a
/// pinned intermediate is trusted by itself (OpenSSL's partial-chain mode).
public enum X509ChainVerifier {
    /// From x509v3.h (not in the COpenSSL module): X509_PURPOSE_SSL_CLIENT/SERVER/ANY and the
    /// host-check flags NO_PARTIAL_WILDCARDS | NEVER_CHECK_SUBJECT (names only from subjectAltName).
    static let purposeSSLClient: Int32 = 1
    static let purposeSSLServer: Int32 = 2
    static let purposeAny: Int32 = 7
    static let hostFlags: UInt32 = 0x4 | 0x20

    public static func verify(leaf: X509Certificate, intermediates: [X509Certificate], anchors: [X509Certificate],
                              systemRoots: Bool, policy: X509VerificationPolicy) throws -> X509VerificationResult {
        guard let store = X509_STORE_new() else { throw openSSLFailure("X509_STORE_new") }
        defer { X509_STORE_free(store) }
        for anchor in anchors {
            // A duplicate anchor is not an error; anything else is.
            if X509_STORE_add_cert(store, anchor.pointer) != 1 { OpenSSLError.drainQueue() }
        }
        if systemRoots, X509_STORE_set_default_paths(store) != 1 { OpenSSLError.drainQueue() }
        guard let untrusted = OPENSSL_sk_new_null() else { throw openSSLFailure("OPENSSL_sk_new_null") }
        defer { OPENSSL_sk_free(untrusted) }
        for certificate in intermediates { _ = OPENSSL_sk_push(untrusted, UnsafeRawPointer(certificate.pointer)) }
        guard let context = X509_STORE_CTX_new() else { throw openSSLFailure("X509_STORE_CTX_new") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1 else { throw openSSLFailure("X509_STORE_CTX_init") }
        guard let parameters = X509_STORE_CTX_get0_param(context) else { throw openSSLFailure("X509_STORE_CTX_get0_param") }
        X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN))
        X509_VERIFY_PARAM_set_time(parameters, time_t(policy.verifyDate.timeIntervalSince1970.rounded(.down)))
        switch policy.purpose {
        case .sslServer: _ = X509_VERIFY_PARAM_set_purpose(parameters, purposeSSLServer)
        case .sslClient: _ = X509_VERIFY_PARAM_set_purpose(parameters, purposeSSLClient)
        case .none: _ = X509_VERIFY_PARAM_set_purpose(parameters, purposeAny)
        }
        if let hostname = policy.hostname, !hostname.isEmpty {
            X509_VERIFY_PARAM_set_hostflags(parameters, hostFlags)
            let isIP = hostname.contains(":") || hostname.allSatisfy { $0.isNumber || $0 == "." }
            let status = isIP ? X509_VERIFY_PARAM_set1_ip_asc(parameters, hostname)
                              : X509_VERIFY_PARAM_set1_host(parameters, hostname, hostname.utf8.count)
            guard status == 1 else { throw openSSLFailure("X509_VERIFY_PARAM_set1_host(\(hostname))") }
        }
        let status = X509_verify_cert(context)
        let code = status == 1 ? 0 : X509_STORE_CTX_get_error(context)
        let depth = X509_STORE_CTX_get_error_depth(context)
        var chain: [X509Certificate] = []
        if let built = X509_STORE_CTX_get1_chain(context) {
            for index in 0..<OPENSSL_sk_num(built) {
                if let raw = OPENSSL_sk_value(built, index) {
                    chain.append(X509Certificate(takingOwnershipOf: OpaquePointer(raw)))  // get1: each one is ours
                }
            }
            OPENSSL_sk_free(built)
        }
        OpenSSLError.drainQueue()
        let message = code == 0 ? "ok" : String(cString: X509_verify_cert_error_string(Int(code)))
        return X509VerificationResult(errorCode: code, errorDepth: depth, message: message,
                                      chain: chain.isEmpty ? [leaf] : chain)
    }
}
