import Foundation

/// Whether App Transport Security governs a connection to a name, on an iOS version.
///
/// Source: Apple's documentation of `NSAllowsLocalNetworking` (Information Property List ›
/// NSAppTransportSecurity): ATS applied to unqualified domains, `.local` domains and IP addresses in
/// iOS 9; from iOS 10 it allows all three by default, with no exception needed; from iOS 17 it
/// governs IP addresses again (`NSExceptionDomains` then takes IP addresses and ranges) while
/// unqualified and `.local` names stay outside it. Apple's Security code agrees for local names:
/// `protocol/SecProtocolConfiguration.m`, `sec_protocol_configuration_tls_required_for_host_or_address_internal`
/// ("Local domains do not require TLS by default"), and
/// `sec_protocol_configuration_copy_transformed_options_for_host` applies the ATS minimums (TLS 1.2,
/// the ATS suite group, key sizes) only where TLS is required.
/// `localhost` is an unqualified name. Certificate rules are not ATS's: the app's trust evaluation
/// applies them to every name (ATSChecks, "trust").
public struct ATSScope: Sendable, Equatable {
    /// The name as the app uses it in its URL.
    public let name: String
    public let iosMajor: Int
    public let governed: Bool
    /// Which rule decided, and why, for the report.
    public let rule: String

    /// The iOS version a run judges for unless told otherwise (`--ios`): the newest these rules were
    /// checked against.
    public static let currentIOS = 26

    public init(name: String, iosMajor: Int) {
        self.name = name
        self.iosMajor = iosMajor
        var host = name.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let source = "Apple, NSAllowsLocalNetworking"
        if iosMajor < 10 {
            governed = true
            rule = "iOS \(iosMajor): ATS governs every name, local ones too (before iOS 10; \(source))"
        } else if Self.isIPAddress(host) {
            governed = iosMajor >= 17
            rule = governed
                ? "an IP address: from iOS 17 ATS governs IP addresses (\(source); NSExceptionDomains takes IP addresses and ranges since iOS 17)"
                : "an IP address: on iOS 10 to 16 ATS does not govern IP addresses (\(source))"
        } else if host.hasSuffix(".local") {
            governed = false
            rule = "a .local name: ATS does not govern .local names (\(source), the default since iOS 10; SecProtocolConfiguration.m: local domains do not require TLS)"
        } else if !host.contains(".") {
            governed = false
            rule = "an unqualified name: ATS does not govern unqualified names such as localhost (\(source), the default since iOS 10)"
        } else {
            governed = true
            rule = "a qualified DNS name that is not .local: ATS governs it"
        }
    }

    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
