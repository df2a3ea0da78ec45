import Foundation
import Transport
import WireCrypto

/// What a server accepts, found by offering it one thing at a time: each TLS version on its own
/// connection, then at each accepted version the suites it picks, one connection per suite (the
/// suite it chose is taken out of the offer and the offer made again, until it refuses: as sslyze
/// and testssl.sh enumerate).
public struct ATSScan: Sendable {
    /// A version the server accepted (with the handshake that showed it) or refused (nil).
    public struct VersionProbe: Sendable {
        public let version: TLSProtocolVersion
        public let accepted: TLSHandshakeFacts?
        /// The server could not be reached for this probe (nil when it answered, even with a refusal).
        public let unreachable: String?
        public let seconds: TimeInterval
    }

    public let target: ServerAddress
    /// The name checked against the certificate and sent as SNI.
    public let serverName: String
    public let versions: [VersionProbe]
    /// Accepted suites per accepted version, in the order the server chose them.
    public let suites: [TLSProtocolVersion: [TLSCipherSuite]]
    public let suiteSeconds: [TLSProtocolVersion: TimeInterval]
    /// The chain the server sent at the highest version it accepted, leaf first.
    public let chain: [X509Certificate]

    public var acceptedVersions: [TLSProtocolVersion] { versions.filter { $0.accepted != nil }.map(\.version) }

    /// Probes `target`; throws only when no probe reached the server at all (`TransportError`).
    /// `shouldStop` (SIGINT/SIGTERM) ends the probing between two connections; what was found is kept.
    public static func run(_ target: ServerAddress, serverName: String, timeout: TimeInterval,
                           shouldStop: () -> Bool = { false }) throws -> ATSScan {
        let address = try HostResolver.resolve(target.host, timeout: timeout)
        var versions: [VersionProbe] = []
        for version in TLSProtocolVersion.allCases where !shouldStop() {
            let start = Date()
            do {
                let facts = try InsecureTLSProbe.handshake(host: address, port: target.port, offering: version,
                                                          serverName: serverName, timeout: timeout)
                versions.append(VersionProbe(version: version, accepted: facts, unreachable: nil, seconds: Date().timeIntervalSince(start)))
            } catch let error as TransportError {
                versions.append(VersionProbe(version: version, accepted: nil, unreachable: "\(error)", seconds: Date().timeIntervalSince(start)))
            }
        }
        if !versions.isEmpty, versions.allSatisfy({ $0.unreachable != nil }), let first = versions.first?.unreachable {
            throw ATSError.unreachable(target: target, detail: first)
        }
        var suites: [TLSProtocolVersion: [TLSCipherSuite]] = [:]
        var suiteSeconds: [TLSProtocolVersion: TimeInterval] = [:]
        for probe in versions where probe.accepted != nil && !shouldStop() {
            let start = Date()
            suites[probe.version] = try enumerateSuites(address: address, port: target.port, version: probe.version,
                                                        serverName: serverName, timeout: timeout, shouldStop: shouldStop)
            suiteSeconds[probe.version] = Date().timeIntervalSince(start)
        }
        let best = versions.last { $0.accepted != nil }?.accepted
        let chain = (best?.peerChain ?? []).compactMap { try? X509Certificate(der: $0) }
        return ATSScan(target: target, serverName: serverName, versions: versions, suites: suites, suiteSeconds: suiteSeconds, chain: chain)
    }

    /// Offers every suite, takes out the one chosen, offers again; stops at the first refusal.
    private static func enumerateSuites(address: String, port: UInt16, version: TLSProtocolVersion, serverName: String,
                                        timeout: TimeInterval, shouldStop: () -> Bool) throws -> [TLSCipherSuite] {
        var offer = try InsecureTLSProbe.supportedSuites(for: version).map(\.openSSLName)
        var accepted: [TLSCipherSuite] = []
        while !offer.isEmpty, !shouldStop() {
            guard let facts = try InsecureTLSProbe.handshake(host: address, port: port, offering: version, suites: offer,
                                                             serverName: serverName, timeout: timeout),
                  let index = offer.firstIndex(of: facts.cipher.openSSLName) else { break }
            accepted.append(facts.cipher)
            offer.remove(at: index)
        }
        return accepted
    }
}
