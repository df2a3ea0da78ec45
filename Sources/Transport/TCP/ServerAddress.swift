import Foundation

/// A server somewhere on the network (a Raspberry Pi, a test host in a namespace): a host name or
/// IP literal and a port.
public struct ServerAddress: Sendable, Hashable, CustomStringConvertible {
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
                guard rest.hasPrefix(":"), let value = UInt16(rest.dropFirst()), value > 0 else { throw Self.notHostPort(text) }
                port = value
            }
        } else if let colon = trimmed.lastIndex(of: ":"), trimmed.filter({ $0 == ":" }).count == 1 {
            host = String(trimmed[..<colon])
            guard let value = UInt16(trimmed[trimmed.index(after: colon)...]), value > 0 else { throw Self.notHostPort(text) }
            port = value
        } else {
            host = trimmed
            port = defaultPort
        }
        // A name or an IP literal (with an IPv6 zone such as %eth0): nothing that would not fit a URL.
        guard !host.isEmpty, host.unicodeScalars.allSatisfy({ Self.hostCharacters.contains($0) }) else { throw Self.notHostPort(text) }
    }

    private static let hostCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:%")

    private static func notHostPort(_ text: String) -> TransportError {
        .invalidAddress(text, reason: "not HOST:PORT with a port from 1 to 65535 (e.g. raspberrypi.local:9876 or [fe80::1]:9876)")
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
