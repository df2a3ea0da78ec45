import Foundation
import Transport

/// Where a described protocol's server is, and how a conversation reaches it: a live server over
/// TCP, HTTP or HTTPS (the certificate pinned), or a team's server hosted in this process.
public struct DescribedTarget: Sendable, CustomStringConvertible {
    public enum Place: Sendable {
        case network(ServerAddress)
        case inProcess(any InProcessServer)
    }

    public let place: Place
    /// `https`: the certificate the app bundles (PEM or DER).
    public let pin: String?
    /// `https`: verify the certificate for this name while connecting to the address.
    public let serverName: String?
    public let timeout: TimeInterval

    public init(_ place: Place, pin: String? = nil, serverName: String? = nil, timeout: TimeInterval) {
        self.place = place; self.pin = pin; self.serverName = serverName; self.timeout = timeout
    }

    public var description: String {
        switch place {
        case let .network(address): "\(address)"
        case let .inProcess(server): server.name
        }
    }

    /// A new TCP connection to the server.
    func connect() throws -> TCPConnection {
        switch place {
        case let .network(address):
            let host = try HostResolver.resolve(address.host, timeout: timeout)
            return try TCPConnection.connect(host: host, port: address.port, timeout: timeout)
        case let .inProcess(server):
            return try server.connect(timeout: timeout)
        }
    }

    /// One HTTP request answered. `https` goes through the pinned client (TLS as the app does it);
    /// plain `http` over one connection that the request closes; in process, the server's own
    /// application answers it.
    func exchange(_ request: HTTPRequest, tls: Bool) throws -> HTTPResponse {
        switch place {
        case let .inProcess(server):
            return try server.exchange(request, timeout: timeout)
        case let .network(address):
            if tls {
                guard let pin else { throw DescribedCheckError.missingPin }
                let client = try PinnedHTTPSClient(pinnedCertificatePath: pin, timeout: timeout)
                let name = serverName ?? address.host
                // The client puts the request's path after this (PinnedHTTPSClient.send).
                let url = URL(string: "https://\(name):\(address.port)")!
                let resolved = try HostResolver.resolve(address.host, timeout: timeout)
                return try client.send(request, to: url, resolve: (host: name, address: resolved))
            }
            let connection = try connect()
            defer { connection.close() }
            return try connection.exchange(request, host: "\(address.host):\(address.port)", timeout: timeout, maxResponseBytes: 4 << 20)
        }
    }
}

/// What stops a described check before it can judge, and what to do about it.
public enum DescribedCheckError: Error, CustomStringConvertible, Equatable {
    case missingPin
    case pythonEngine(String)
    case serverDidNotStart(String)

    public var description: String {
        switch self {
        case .missingPin:
            "the description's transport is https: give --pin CERT, the certificate the app bundles (PEM or DER)"
        case let .pythonEngine(detail):
            "PythonRef's engine failed: \(detail) (run `make deps`; `python3 -m pythonref described-server --help` shows whether PythonRef loads)"
        case let .serverDidNotStart(detail):
            "the PythonRef server for the description did not start: \(detail)"
        }
    }
}
