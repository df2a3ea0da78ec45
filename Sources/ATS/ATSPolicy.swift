import Foundation
import Transport
import WireCrypto

/// iOS's default App Transport Security policy, as Apple publishes it, and the Info.plist key that
/// loosens each rule. Every rule names its source; docs/PROTOCOL.md "App Transport Security" lists them.
public enum ATSPolicy {
    /// Source: Apple, "Preventing Insecure Network Connections" (Security framework documentation):
    /// "The negotiated TLS version must be TLS 1.2 or later"; Security's `protocol/SecProtocolConfiguration.m`
    /// `sec_protocol_configuration_copy_transformed_options_with_ats_minimums` sets
    /// `tls_protocol_version_TLSv12` (with RSA 2048 / ECDSA 256 and SHA-256 minimums) on every
    /// connection ATS governs; NSExceptionMinimumTLSVersion lowers it.
    public static let minimumVersion = TLSProtocolVersion.tls1_2

    /// The suite tables are Apple's shipped groups, not the documentation page's longer list:
    /// apple-oss-distributions/Security `protocol/SecProtocolHelper.m` defines
    /// `tls_ciphersuite_group_ats` as `CiphersuitesTLS13` + `CiphersuitesPFS` and
    /// `tls_ciphersuite_group_ats_compatibility` as `CiphersuitesNonPFS`, the three macros of
    /// `protocol/SecProtocolInternal.h` (tag Security-61901.0.87.0.1) copied below as IANA names;
    /// `protocol/SecProtocolConfiguration.m` (`sec_protocol_configuration_copy_transformed_options_with_ats_minimums`)
    /// puts the ATS group on every connection ATS governs, and adds the compatibility group only for
    /// a domain whose exception sets `NSExceptionRequiresForwardSecrecy` to NO
    /// (`sec_protocol_configuration_copy_transformed_options_for_host_or_address_internal`).

    /// `CiphersuitesPFS` (SecProtocolInternal.h): TLS 1.2 (and earlier) suites ATS allows by
    /// default — ECDHE with AES-GCM, ChaCha20-Poly1305 or AES-CBC-SHA.
    public static let defaultSuites: Set<String> = [
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
        "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
    ]

    /// `CiphersuitesNonPFS` (SecProtocolInternal.h): RSA key exchange, no forward secrecy; added
    /// by `NSExceptionRequiresForwardSecrecy = NO`.
    public static let withoutForwardSecrecySuites: Set<String> = [
        "TLS_RSA_WITH_AES_256_GCM_SHA384", "TLS_RSA_WITH_AES_128_GCM_SHA256",
        "TLS_RSA_WITH_AES_256_CBC_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA",
    ]

    /// `CiphersuitesTLS13` (SecProtocolInternal.h): the TLS 1.3 suites Apple's stack offers (not the CCM ones).
    public static let tls13Suites: Set<String> = ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"]

    /// Source: "Preventing Insecure Network Connections": certificates "signed using a SHA-256 or
    /// greater signature hash algorithm" (HT210176 says the SHA-2 family; ATS is the stricter).
    public static let acceptedSignatureDigests: Set<String> = ["SHA256", "SHA384", "SHA512"]

    /// How ATS treats one cipher suite a server accepted.
    public enum SuiteStatus: String, Sendable {
        case allowed = "allowed by default"
        case needsForwardSecrecyException = "allowed only with NSExceptionRequiresForwardSecrecy = NO"
        case neverOffered = "never offered by iOS"
    }

    public static func status(of suite: TLSCipherSuite, at version: TLSProtocolVersion) -> SuiteStatus {
        if version == .tls1_3 { return tls13Suites.contains(suite.standardName) ? .allowed : .neverOffered }
        if defaultSuites.contains(suite.standardName) { return .allowed }
        if withoutForwardSecrecySuites.contains(suite.standardName) { return .needsForwardSecrecyException }
        return .neverOffered
    }

    /// An Info.plist key (under NSAppTransportSecurity › NSExceptionDomains › the server's name)
    /// and the value that would let the connection through.
    public struct Exception: Sendable, Hashable, CustomStringConvertible {
        public let key: String
        public let value: String

        /// Why the value is not recommended, said after it (nil: nothing to say).
        public var note: String? = nil
        public var description: String { "\(key) = \(value)" + (note.map { " (\($0))" } ?? "") }

        /// Source: NSExceptionMinimumTLSVersion's documentation (values TLSv1.0 … TLSv1.3; below
        /// 1.2 App Store review wants a justification). TLS 1.0 and 1.1 are deprecated:
        /// `tls_protocol_version_TLSv10`/`TLSv11` are API_DEPRECATED ("Use tls_protocol_version_TLSv12
        /// or tls_protocol_version_TLSv13 instead", iOS 13.0–15.0) in Security's `protocol/SecProtocolTypes.h`.
        static func minimumTLSVersion(_ version: TLSProtocolVersion) -> Exception {
            Exception(key: "NSExceptionMinimumTLSVersion", value: "TLSv" + version.rawValue.dropFirst(4),
                      note: version < .tls1_2 ? "deprecated: Apple deprecated TLS \(version.rawValue.dropFirst(4)) in iOS 15 (SecProtocolTypes.h), and App Store review asks for a justification" : nil)
        }
        /// Source: NSExceptionRequiresForwardSecrecy's documentation.
        static let noForwardSecrecy = Exception(key: "NSExceptionRequiresForwardSecrecy", value: "NO")
    }
}
