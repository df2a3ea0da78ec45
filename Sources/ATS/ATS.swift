// ATS — `crosscheck ats`: would iOS's App Transport Security let the app connect to this server?
// Probes the TLS versions and cipher suites a server accepts (each on its own connection, through
// Transport's InsecureTLSProbe), reads the certificate chain it sends, and judges both by Apple's
// published ATS rules (ATSPolicy; docs/PROTOCOL.md "App Transport Security" names the source of each).
// Results go to the testsuite `ats.<host:port>`, one testcase per finding and one verdict.
// May import: Conformance (the core), WireCrypto, Transport.
import Foundation
import Transport

/// What `crosscheck ats` (and `crosscheck remote --profile aes-https`) checks and how.
public struct ATSOptions: Sendable {
    /// The name the app uses in its URL: checked against subjectAltName and sent as SNI
    /// (default: the host as given).
    public var serverName: String?
    /// The certificate the app pins (PEM): the chain must end in it. nil: the system's roots, as
    /// an app without its own trust evaluation has.
    public var pin: String?
    /// Deadline for every connect and handshake.
    public var timeout: TimeInterval = 5
    /// The moment certificate dates are judged at.
    public var now = Date()
    /// The iOS major version judged for: whether ATS governs an IP address depends on it (ATSScope).
    public var iosMajor = ATSScope.currentIOS

    public init() {}
}

/// Why an ATS run could not start; each says what to do.
public enum ATSError: Error, Equatable, CustomStringConvertible {
    case unreadablePin(path: String, reason: String)
    /// No probe reached the server (every connection refused or timed out).
    case unreachable(target: ServerAddress, detail: String)

    public var description: String {
        switch self {
        case let .unreadablePin(path, reason):
            return "--pin \(path): \(reason); give the certificate the app bundles, as a PEM file"
        case let .unreachable(target, detail):
            return "no TLS probe reached \(target): \(detail). Is the server running, on this port, and reachable from here?"
        }
    }
}
