import Foundation
internal import COpenSSL

/// What a TLS client looks at in a server certificate besides the chain: the key, the names, the
/// extended key usage. (Read by `crosscheck ats`; the dates and the signature hash are on
/// `X509Certificate` itself.)
extension X509Certificate {
    /// The public key's algorithm: `RSA`, `EC`, `Ed25519`, `Ed448`, `DSA`, or OpenSSL's short name.
    public var publicKeyAlgorithm: String {
        guard let key = X509_get0_pubkey(pointer) else { return "none" }
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA, EVP_PKEY_RSA_PSS: return "RSA"
        case EVP_PKEY_EC: return "EC"
        case EVP_PKEY_ED25519: return "Ed25519"
        case EVP_PKEY_ED448: return "Ed448"
        case EVP_PKEY_DSA: return "DSA"
        case let other: return OBJ_nid2sn(other).map { String(cString: $0) } ?? "unknown"
        }
    }

    /// The subjectAltName entries as OpenSSL prints them (`DNS:raspberrypi.local`, `IP Address:127.0.0.1`);
    /// empty when the certificate has no subjectAltName.
    public var subjectAltNames: [String] {
        let index = X509_get_ext_by_NID(pointer, NID_subject_alt_name, -1)
        guard index >= 0, let extensionEntry = X509_get_ext(pointer, index), let bio = BIO_new(BIO_s_mem()) else { return [] }
        defer { BIO_free(bio) }
        guard X509V3_EXT_print(bio, extensionEntry, 0, 0) == 1 else { OpenSSLError.drainQueue(); return [] }
        var text = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = BIO_read(bio, &buffer, Int32(buffer.count))
            if count <= 0 { break }
            text.append(contentsOf: buffer[0..<Int(count)])
        }
        return String(decoding: text, as: UTF8.self).split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// True when a subjectAltName entry names `host` (a DNS name, wildcards as RFC 6125 allows, or
    /// an IP literal); the common name is never consulted, as Apple's clients no longer do.
    public func subjectAltNameMatches(_ host: String) -> Bool {
        let isIP = host.contains(":") || (!host.isEmpty && host.allSatisfy { $0.isNumber || $0 == "." })
        let status = isIP ? X509_check_ip_asc(pointer, host, 0)
                          : X509_check_host(pointer, host, host.utf8.count, UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT), nil)
        OpenSSLError.drainQueue()
        return status == 1
    }

    /// True when an extended key usage extension is present and lists id-kp-serverAuth.
    public var hasServerAuthExtendedKeyUsage: Bool {
        guard hasExtendedKeyUsage else { return false }
        return X509_get_extended_key_usage(pointer) & UInt32(XKU_SSL_SERVER) != 0
    }

    /// No extended key usage extension, or one with serverAuth, anyExtendedKeyUsage or a
    /// Server Gated Crypto OID: what Apple's SSL server policy accepts (Security's `SecPolicy.c`, `set_ssl_ekus`).
    public var extendedKeyUsageAllowsTLSServer: Bool {
        guard hasExtendedKeyUsage else { return true }
        return X509_get_extended_key_usage(pointer) & UInt32(XKU_SSL_SERVER | XKU_SGC | XKU_ANYEKU) != 0
    }
}

/// Apple's published requirements for TLS server certificates, written once for the modules that
/// apply them (Security's SecTrust, `crosscheck ats`). Source: Apple support article HT210176
/// "Requirements for trusted certificates in iOS 13 and macOS 10.15"; the dates are the article's.
public enum AppleServerCertificateRules {
    /// Certificates whose notBefore is after this moment (1 July 2019, 00:00 UTC) must carry the
    /// serverAuth EKU and be valid for at most `maximumValidityDays`.
    public static let strictRulesStart = Date(timeIntervalSince1970: 1_561_939_200)
    public static let maximumValidityDays = 825
    /// Apple's own check (SecPolicyServer.c) allows one hour beyond the 825 days for clock slop.
    public static let validitySlack: TimeInterval = 3_600
    /// RSA keys below this many bits are refused (leaf and issuing CAs).
    public static let minimumRSABits = 2048
    /// EC keys below this many bits are refused (ATS: "256-bit or greater ECC key").
    public static let minimumECBits = 256

    /// True when the validity period (notBefore to notAfter) is longer than the rule allows, for a
    /// certificate the rule applies to (issued after `strictRulesStart`).
    public static func validityTooLong(notBefore: Date, notAfter: Date) -> Bool {
        notBefore > strictRulesStart
            && notAfter.timeIntervalSince(notBefore) > TimeInterval(maximumValidityDays) * 86_400 + validitySlack
    }
}
