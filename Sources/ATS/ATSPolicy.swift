import Foundation
import Transport
import WireCrypto

/// iOS's default App Transport Security policy, as Apple publishes it, and the Info.plist key that
/// loosens each rule. Every rule names its source; docs/PROTOCOL.md "App Transport Security" lists them.
public enum ATSPolicy {
    /// Source: Apple, "Preventing Insecure Network Connections" (Security framework documentation):
    /// "The negotiated TLS version must be TLS 1.2 or later"; NSExceptionMinimumTLSVersion lowers it.
    public static let minimumVersion = TLSProtocolVersion.tls1_2

    /// Source: "Preventing Insecure Network Connections", the suites ATS accepts by default
    /// (forward secrecy through ECDHE, AES-128 or AES-256), IANA names.
    public static let defaultSuites: Set<String> = [
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
        "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
    ]

    /// Source: the same page, NSExceptionRequiresForwardSecrecy = NO: these suites (RSA key
    /// exchange, no forward secrecy) are accepted in addition.
    public static let withoutForwardSecrecySuites: Set<String> = [
        "TLS_RSA_WITH_AES_256_GCM_SHA384", "TLS_RSA_WITH_AES_128_GCM_SHA256",
        "TLS_RSA_WITH_AES_256_CBC_SHA256", "TLS_RSA_WITH_AES_256_CBC_SHA",
        "TLS_RSA_WITH_AES_128_CBC_SHA256", "TLS_RSA_WITH_AES_128_CBC_SHA",
    ]

    /// Source: Apple Platform Security, "TLS security": TLS 1.3 is on by default for URLSession
    /// since iOS 12.2; these are the TLS 1.3 suites Apple's stack offers (the CCM ones it does not).
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
        public var description: String { "\(key) = \(value)" }

        /// Source: NSExceptionMinimumTLSVersion's documentation (values TLSv1.0 … TLSv1.3).
        static func minimumTLSVersion(_ version: TLSProtocolVersion) -> Exception {
            Exception(key: "NSExceptionMinimumTLSVersion", value: "TLSv" + version.rawValue.dropFirst(4))
        }
        /// Source: NSExceptionRequiresForwardSecrecy's documentation.
        static let noForwardSecrecy = Exception(key: "NSExceptionRequiresForwardSecrecy", value: "NO")
        /// Source: NSExceptionAllowsInsecureHTTPLoads's documentation: "to be able to loosen the
        /// server trust evaluation requirements for HTTPS connections", with the app's own trust
        /// evaluation (Apple, "Performing Manual Server Trust Authentication").
        static let insecureLoads = Exception(key: "NSExceptionAllowsInsecureHTTPLoads", value: "YES")
    }
}
