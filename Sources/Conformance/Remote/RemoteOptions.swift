import Foundation
import WireCrypto
import WireProtocol

/// A server under test somewhere on the network: a Raspberry Pi, or a test host in a namespace.
public struct RemoteTarget: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    public init(host: String, port: UInt16) { self.host = host; self.port = port }

    /// `host:port`, `[v6]:port`, or `host` with `defaultPort`.
    public init(parsing text: String, defaultPort: UInt16) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("["), let close = trimmed.firstIndex(of: "]") {
            host = String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
            let rest = trimmed[trimmed.index(after: close)...]
            if rest.isEmpty { port = defaultPort } else {
                guard rest.hasPrefix(":"), let value = UInt16(rest.dropFirst()) else { throw RemoteError.badTarget(text) }
                port = value
            }
        } else if let colon = trimmed.lastIndex(of: ":"), trimmed.filter({ $0 == ":" }).count == 1 {
            host = String(trimmed[..<colon])
            guard let value = UInt16(trimmed[trimmed.index(after: colon)...]) else { throw RemoteError.badTarget(text) }
            port = value
        } else {
            host = trimmed
            port = defaultPort
        }
        guard !host.isEmpty else { throw RemoteError.badTarget(text) }
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// What `crosscheck remote` checks and how.
public struct RemoteOptions: Sendable {
    public enum Profile: String, Sendable { case rsaSocket = "rsa-socket", aesHTTPS = "aes-https" }

    public var profile: Profile = .rsaSocket
    public var directions: [RSASocket.Direction] = RSASocket.Direction.allCases
    /// nil: find the server's padding by trying each.
    public var padding: RSAEncryptionPadding?
    public var framing: Framing = .legacy
    /// Client key sizes for pi-to-phone (the server encrypts to each).
    public var keyBits: [Int] = [2048]
    /// Deadline for every connect, read and write.
    public var timeout: TimeInterval = 5
    /// Quiet time after which a legacy message is taken as complete.
    public var quietGap: TimeInterval = 0.3
    /// Report weak-but-conforming choices as failures instead of skipped audit findings.
    public var strict = false
    /// aes-https: the certificate the app bundles (required), the account, and the key mode (nil: infer).
    public var pin: String?
    public var username = "user"
    public var password = "password"
    public var keyMode: KeyDerivationMode?
    /// aes-https: the name to verify the certificate for, when --host is an address the certificate
    /// does not name (e.g. a Pi reached by IP with a certificate for raspberrypi.local).
    public var serverName: String?
    /// A certificate that is not the server's, to show the pinned client refuses it (seed 002).
    public var foreignCertificate: String?
    /// How many binary-safety conversations per probe.
    public var binaryProbes = 8

    public init() {}
}

/// Why a remote run could not even start; each says what to do.
public enum RemoteError: Error, Equatable, CustomStringConvertible {
    case badTarget(String)
    case cannotResolve(host: String, reason: String)
    case missingPin

    public var description: String {
        switch self {
        case let .badTarget(text): return "'\(text)' is not HOST:PORT (use e.g. raspberrypi.local:9876 or [fe80::1]:9876)"
        case let .cannotResolve(host, reason): return "cannot resolve \(host): \(reason); check the name, or pass its IP address"
        case .missingPin: return "aes-https needs --pin CERT: the certificate the app bundles (its DER or PEM, as a PEM file)"
        }
    }
}
