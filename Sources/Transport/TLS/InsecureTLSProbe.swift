import Foundation
import WireCrypto
internal import COpenSSL
internal import COpenSSLShims

/// A TLS protocol version, as a probe offers it (one at a time).
public enum TLSProtocolVersion: String, CaseIterable, Sendable, Comparable {
    case tls1_0 = "TLS 1.0", tls1_1 = "TLS 1.1", tls1_2 = "TLS 1.2", tls1_3 = "TLS 1.3"

    /// `tls1.0` … `tls1.3`: the spelling of testcase names.
    public var slug: String { "tls" + rawValue.dropFirst(4) }

    var openSSLValue: Int32 {
        switch self {
        case .tls1_0: return TLS1_VERSION
        case .tls1_1: return TLS1_1_VERSION
        case .tls1_2: return TLS1_2_VERSION
        case .tls1_3: return TLS1_3_VERSION
        }
    }

    init?(openSSLValue: Int32) {
        guard let found = Self.allCases.first(where: { $0.openSSLValue == openSSLValue }) else { return nil }
        self = found
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// What OpenSSL knows about one cipher suite, in both spellings.
public struct TLSCipherSuite: Sendable, Hashable {
    /// OpenSSL's name, e.g. `ECDHE-RSA-AES128-GCM-SHA256` (TLS 1.3: `TLS_AES_128_GCM_SHA256`).
    public let openSSLName: String
    /// The IANA (RFC) name, e.g. `TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`: the name Apple's lists use.
    public let standardName: String
    /// The key exchange: `ECDHE`, `DHE`, `RSA`, … (`any` for TLS 1.3, whose key exchange is always ephemeral).
    public let keyExchange: String
    /// An ephemeral key exchange (ECDHE, DHE, or any TLS 1.3 suite): recorded traffic stays safe
    /// when the server's key leaks later.
    public let forwardSecrecy: Bool
    /// An AEAD cipher (GCM, ChaCha20-Poly1305, CCM) rather than CBC with a MAC.
    public let aead: Bool
}

/// One completed handshake: what the server chose from what was offered, and the chain it sent.
public struct TLSHandshakeFacts: Sendable {
    public let version: TLSProtocolVersion
    public let cipher: TLSCipherSuite
    /// The certificates the server sent, leaf first, DER.
    public let peerChain: [Data]
}

/// A TLS client for *probing* a server, never for talking to one: it runs at OpenSSL security level
/// 0 so it can offer TLS 1.0/1.1 and suites no real client should (RSA key exchange, SHA-1 MACs),
/// and it verifies nothing (it reports the chain instead). Every connection runs under a deadline,
/// and each probe is one handshake on its own connection, closed right after.
public enum InsecureTLSProbe {
    /// Offers exactly `version` and, when given, only `suites` (OpenSSL names; nil: every suite
    /// OpenSSL has for that version), with `serverName` as SNI.
    /// - Returns: the handshake's facts, or nil when the server refused what was offered (an alert,
    ///   or a close or reset during the handshake).
    /// - Throws: `TransportError` when the server could not be reached at all (refused, timed out).
    public static func handshake(host: String, port: UInt16, offering version: TLSProtocolVersion, suites: [String]? = nil,
                                 serverName: String?, timeout: TimeInterval) throws -> TLSHandshakeFacts? {
        let context = try clientContext(version: version, suites: suites ?? supportedSuites(for: version).map(\.openSSLName))
        let tcp = try TCPConnection.connect(host: host, port: port, timeout: timeout)
        defer { tcp.close() }
        let connection = try TLSConnection(context: context, over: tcp)
        if let serverName, !serverName.isEmpty, !HostResolver.isLiteral(serverName) {
            guard COpenSSLShims_SSL_set_tlsext_host_name(connection.ssl.pointer, serverName) == 1 else {
                throw TransportError.openSSL(.drain(after: "SSL_set_tlsext_host_name(\(serverName))"))
            }
        }
        do { try connection.clientHandshake(by: .after(timeout)) } catch let error as TransportError {
            switch error {
            case .tlsHandshakeFailed, .connectionClosed, .connectionReset: return nil
            default: throw error
            }
        }
        let ssl = connection.ssl.pointer
        guard let negotiated = TLSProtocolVersion(openSSLValue: SSL_version(ssl)), let current = SSL_get_current_cipher(ssl) else {
            throw TransportError.tlsHandshakeFailed(detail: "the handshake completed without a version or cipher OpenSSL reports")
        }
        var chain: [Data] = []
        if let stack = SSL_get_peer_cert_chain(ssl) {
            for index in 0..<OPENSSL_sk_num(stack) {
                guard let raw = OPENSSL_sk_value(stack, index) else { continue }
                var out: UnsafeMutablePointer<UInt8>? = nil
                let length = i2d_X509(OpaquePointer(raw), &out)
                if length > 0, let out {
                    chain.append(Data(bytes: out, count: Int(length)))
                    COpenSSLShims_OPENSSL_free(out)
                }
            }
        }
        connection.sendCloseNotify(by: .after(min(timeout, 1)))
        return TLSHandshakeFacts(version: negotiated, cipher: describe(current), peerChain: chain)
    }

    /// Every suite this OpenSSL can offer for `version` at security level 0, in OpenSSL's order.
    public static func supportedSuites(for version: TLSProtocolVersion) throws -> [TLSCipherSuite] {
        let context = try clientContext(version: version, suites: nil)
        guard let ssl = SSL_new(context.pointer) else { throw TransportError.openSSL(.drain(after: "SSL_new")) }
        defer { SSL_free(ssl) }
        guard let stack = SSL_get1_supported_ciphers(ssl) else { return [] }
        defer { OPENSSL_sk_free(stack) }
        var suites: [TLSCipherSuite] = []
        for index in 0..<OPENSSL_sk_num(stack) {
            guard let raw = OPENSSL_sk_value(stack, index) else { continue }
            suites.append(describe(OpaquePointer(raw)))
        }
        return suites
    }

    /// Every TLS 1.3 suite OpenSSL implements (its default list leaves the CCM ones out).
    static let allTLS13Suites = "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256:TLS_AES_128_CCM_SHA256:TLS_AES_128_CCM_8_SHA256"

    /// A client context offering only `version`, at security level 0 (the insecure part), with
    /// `suites` (nil: all of them) and no certificate verification (the probe reports the chain).
    private static func clientContext(version: TLSProtocolVersion, suites: [String]?) throws -> SSLContext {
        ERR_clear_error()
        guard let raw = SSL_CTX_new(TLS_client_method()) else { throw TransportError.openSSL(.drain(after: "SSL_CTX_new")) }
        let context = SSLContext(takingOwnershipOf: raw)
        SSL_CTX_set_security_level(raw, 0)
        guard COpenSSLShims_SSL_CTX_set_min_proto_version(raw, version.openSSLValue) == 1,
              COpenSSLShims_SSL_CTX_set_max_proto_version(raw, version.openSSLValue) == 1 else {
            throw TransportError.openSSL(.drain(after: "SSL_CTX_set_min/max_proto_version(\(version.rawValue))"))
        }
        SSL_CTX_set_verify(raw, SSL_VERIFY_NONE, nil)
        let list = suites?.joined(separator: ":")
        if version == .tls1_3 {
            guard SSL_CTX_set_ciphersuites(raw, list ?? allTLS13Suites) == 1 else {
                throw TransportError.openSSL(.drain(after: "SSL_CTX_set_ciphersuites(\(list ?? allTLS13Suites))"))
            }
        } else {
            // @SECLEVEL=0 in the string too: a cipher string resets the level otherwise set above.
            guard SSL_CTX_set_cipher_list(raw, (list ?? "ALL:COMPLEMENTOFALL") + ":@SECLEVEL=0") == 1 else {
                throw TransportError.openSSL(.drain(after: "SSL_CTX_set_cipher_list(\(list ?? "ALL"))"))
            }
        }
        return context
    }

    private static func describe(_ cipher: OpaquePointer) -> TLSCipherSuite {
        let name = SSL_CIPHER_get_name(cipher).map { String(cString: $0) } ?? "unknown"
        let standard = SSL_CIPHER_standard_name(cipher).map { String(cString: $0) } ?? name
        let kxNID = SSL_CIPHER_get_kx_nid(cipher)
        let keyExchange: String
        switch kxNID {
        case NID_kx_ecdhe, NID_kx_ecdhe_psk: keyExchange = "ECDHE"
        case NID_kx_dhe, NID_kx_dhe_psk: keyExchange = "DHE"
        case NID_kx_rsa, NID_kx_rsa_psk: keyExchange = "RSA"
        case NID_kx_any: keyExchange = "any"
        case NID_kx_psk: keyExchange = "PSK"
        default: keyExchange = OBJ_nid2sn(kxNID).map { String(cString: $0) } ?? "unknown"
        }
        return TLSCipherSuite(openSSLName: name, standardName: standard, keyExchange: keyExchange,
                              forwardSecrecy: ["ECDHE", "DHE", "any"].contains(keyExchange),
                              aead: SSL_CIPHER_is_aead(cipher) == 1)
    }
}
