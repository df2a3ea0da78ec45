import Foundation

/// Size limits and deadlines of an `HTTPServer`.
public struct HTTPServerLimits: Equatable, Sendable {
    /// Request head and body limits (defaults: 16 KiB, 1 MiB).
    public var http: HTTPLimits
    /// From accept to a finished TLS handshake; a client that connects and says nothing is dropped then.
    public var handshakeTimeout: TimeInterval
    /// From the start of the request (after the handshake) until it has been read completely.
    public var requestTimeout: TimeInterval
    /// For writing the response.
    public var writeTimeout: TimeInterval
    /// Connections served at once; more are accepted, counted and closed at once.
    public var maxConnections: Int

    public init(http: HTTPLimits = HTTPLimits(), handshakeTimeout: TimeInterval = 5, requestTimeout: TimeInterval = 10,
                writeTimeout: TimeInterval = 10, maxConnections: Int = 64) {
        self.http = http
        self.handshakeTimeout = handshakeTimeout
        self.requestTimeout = requestTimeout
        self.writeTimeout = writeTimeout
        self.maxConnections = maxConnections
    }
}

/// What an `HTTPServer` has seen so far. Counters only grow.
public struct HTTPServerStatistics: Equatable, Sendable {
    /// TCP connections accepted (before any TLS): a client that refused to connect adds nothing.
    public var acceptedConnections = 0
    /// Requests handed to the handler and answered.
    public var handledRequests = 0
    /// Requests refused by the parser and answered 400/411/413/431.
    public var rejectedRequests = 0
    /// Handshakes that failed (a client refusing the certificate shows up here).
    public var tlsHandshakeFailures = 0
    /// Connections dropped at a deadline (handshake, request or write).
    public var timedOutConnections = 0
    /// Connections closed at once because `maxConnections` were being served.
    public var refusedOverCapacity = 0

    public init() {}
}

/// A small HTTP/1.1 server, over TLS (libssl) or plain TCP, one request per connection and a
/// thread per connection. It stands in for the Pi's HTTPS server in tests and in the harness.
///
/// Every phase runs under a deadline (`HTTPServerLimits`), so a silent client costs a thread for
/// at most `handshakeTimeout` (TLS) or `requestTimeout`. Malformed requests get 400, oversized
/// ones 413 (body) or 431 (head), chunked ones 411; the handler sees only well-formed requests.
/// Do not call `stop()` from the handler: it waits for the handler's own thread.
public final class HTTPServer: @unchecked Sendable {
    public let tls: TLSServerIdentity?
    public let host: String
    public let requestedPort: UInt16
    public let limits: HTTPServerLimits
    private let handler: @Sendable (HTTPRequest) -> HTTPResponse

    private enum Phase { case idle, running, stopped }
    private struct State {
        var phase = Phase.idle
        var listener: TCPListener?
        var port: UInt16?
        var active: [Int: TCPConnection] = [:]
        var nextID = 0
        var statistics = HTTPServerStatistics()
        var recentFailures: [TransportError] = []
    }
    private let state = Locked(State())
    /// Entered for the accept thread and every connection thread; `stop()` waits on it.
    private let threads = DispatchGroup()

    /// - Parameters:
    ///   - tls: the certificate and key to serve; nil for plain HTTP (tests and controls).
    ///   - host: an IP literal or `localhost`; `port` 0 picks a free port (see `start()`).
    ///   - handler: called on connection threads, concurrently; must not throw or trap.
    public init(tls: TLSServerIdentity?, host: String = "127.0.0.1", port: UInt16 = 0,
                limits: HTTPServerLimits = HTTPServerLimits(),
                handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.tls = tls
        self.host = host
        self.requestedPort = port
        self.limits = limits
        self.handler = handler
    }

    deinit { stop() }

    /// Loads the TLS identity, binds, and starts accepting. Returns the bound port.
    /// Calling it again while running returns the same port.
    /// - Throws: `.tlsConfiguration` for an unusable certificate or key, `.io` if the port is taken,
    ///   `.closed` after `stop()` (a server does not restart; make a new one).
    @discardableResult
    public func start() throws -> UInt16 {
        let current: (Phase, UInt16?) = state.withLock { ($0.phase, $0.port) }
        switch current {
        case (.running, let port?): return port
        case (.stopped, _): throw TransportError.closed("HTTP server (stopped; create a new one)")
        default: break
        }
        let context = try tls.map(SSLContext.server)
        let listener = try TCPListener(host: host, port: requestedPort)
        let started: Bool = state.withLock { state in
            guard state.phase == .idle else { return false }
            state.phase = .running
            state.listener = listener
            state.port = listener.port
            return true
        }
        guard started else {
            listener.close()
            if let port = self.port { return port }
            throw TransportError.closed("HTTP server (stopped; create a new one)")
        }
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop(listener, context: context)
            threads.leave()
        }
        thread.name = "HTTPServer accept \(listener.port)"
        thread.start()
        return listener.port
    }

    /// Stops accepting, closes every open connection, and waits for all threads to finish.
    /// Idempotent.
    public func stop() {
        let (listener, connections): (TCPListener?, [TCPConnection]) = state.withLock { state in
            state.phase = .stopped
            defer { state.listener = nil }
            return (state.listener, Array(state.active.values))
        }
        listener?.close()
        connections.forEach { $0.close() }
        threads.wait()
    }

    /// The bound port while running (and after stopping), nil before `start()`.
    public var port: UInt16? { state.withLock { $0.port } }

    public var statistics: HTTPServerStatistics { state.withLock { $0.statistics } }

    /// TCP connections accepted so far: 0 proves no client got as far as connecting.
    public var acceptedConnectionCount: Int { statistics.acceptedConnections }

    /// The last failures on connections (handshake errors, timeouts, resets), oldest first, at most 32.
    public var recentFailures: [TransportError] { state.withLock { $0.recentFailures } }

    // MARK: - Threads

    private func acceptLoop(_ listener: TCPListener, context: SSLContext?) {
        while true {
            let connection: TCPConnection
            do {
                connection = try listener.accept(timeout: .infinity)
            } catch TransportError.closed {
                return
            } catch {
                record(error as? TransportError ?? .unexpected(library: "Transport", code: 0, detail: "\(error)"))
                if state.withLock({ $0.phase != .running }) { return }
                // EMFILE and the like: back off a little rather than spin.
                Thread.sleep(forTimeInterval: 0.05)
                continue
            }
            let id: Int? = state.withLock { state in
                guard state.phase == .running else { return nil }
                state.statistics.acceptedConnections += 1
                guard state.active.count < limits.maxConnections else {
                    state.statistics.refusedOverCapacity += 1
                    return nil
                }
                state.nextID += 1
                state.active[state.nextID] = connection
                return state.nextID
            }
            guard let id else {
                connection.close()
                continue
            }
            threads.enter()
            let thread = Thread { [self] in
                serve(connection, context: context)
                connection.close()
                state.withLock { _ = $0.active.removeValue(forKey: id) }
                threads.leave()
            }
            thread.name = "HTTPServer connection \(connection.peerDescription)"
            thread.start()
        }
    }

    /// One connection: handshake, read one request, answer, close. Never throws.
    private func serve(_ connection: TCPConnection, context: SSLContext?) {
        let stream: ServerStream
        if let context {
            do {
                let tls = try TLSConnection(context: context, over: connection)
                try tls.handshake(by: .after(limits.handshakeTimeout))
                stream = .tls(tls)
            } catch {
                let failure = error as? TransportError ?? .unexpected(library: "Transport", code: 0, detail: "\(error)")
                count(failure, handshake: true)
                return
            }
        } else {
            stream = .tcp(connection)
        }

        let requestDeadline = Deadline.after(limits.requestTimeout)
        var parser = HTTPRequestParser(limits: limits.http)
        let response: HTTPResponse
        do {
            var request: HTTPRequest?
            while request == nil {
                let chunk = try stream.read(upTo: 16 * 1024, by: requestDeadline)
                if chunk.isEmpty {
                    if parser.hasStarted {
                        record(.connectionClosed(peer: connection.peerDescription, detail: "before the request was complete"))
                    }
                    return
                }
                request = try parser.consume(chunk)
            }
            response = handler(request!)
            state.withLock { $0.statistics.handledRequests += 1 }
        } catch let error as TransportError {
            switch error {
            case .tooLarge, .httpProtocol, .transferEncodingRefused:
                state.withLock { $0.statistics.rejectedRequests += 1 }
                record(error)
                response = .rejecting(error)
            case .timedOut where parser.hasStarted:
                count(error, handshake: false)
                response = .rejecting(error)
            default:
                count(error, handshake: false)
                return
            }
        } catch {
            record(.unexpected(library: "Transport", code: 0, detail: "\(error)"))
            return
        }

        let bytes: Data
        do {
            bytes = try response.serialized()
        } catch {
            record(error as? TransportError ?? .unexpected(library: "Transport", code: 0, detail: "\(error)"))
            bytes = (try? HTTPResponse.json(status: 500, #"{"error":"internal server error"}"#).serialized()) ?? Data()
        }
        do {
            try stream.write(bytes, by: .after(limits.writeTimeout))
        } catch {
            count(error as? TransportError ?? .unexpected(library: "Transport", code: 0, detail: "\(error)"), handshake: false)
            return
        }
        stream.finish()
    }

    private func count(_ error: TransportError, handshake: Bool) {
        if case .closed = error { return }  // our own stop() closed it: not the connection's failure
        state.withLock { state in
            if case .timedOut = error { state.statistics.timedOutConnections += 1 }
            else if handshake { state.statistics.tlsHandshakeFailures += 1 }
        }
        record(error)
    }

    private func record(_ error: TransportError) {
        state.withLock { state in
            state.recentFailures.append(error)
            if state.recentFailures.count > 32 { state.recentFailures.removeFirst(state.recentFailures.count - 32) }
        }
    }
}

/// A served connection: plain TCP or TLS over it.
private enum ServerStream {
    case tcp(TCPConnection)
    case tls(TLSConnection)

    func read(upTo maxBytes: Int, by deadline: Deadline) throws -> Data {
        switch self {
        case .tcp(let connection): return try connection.read(upTo: maxBytes, by: deadline)
        case .tls(let connection): return try connection.read(upTo: maxBytes, by: deadline)
        }
    }

    func write(_ data: Data, by deadline: Deadline) throws {
        switch self {
        case .tcp(let connection): try connection.write(data, by: deadline)
        case .tls(let connection): try connection.write(data, by: deadline)
        }
    }

    /// After the response: close_notify (TLS), half-close, then discard what the client still sends
    /// (a body we refused to read) until it closes, for at most a second and 4 MiB. Closing with
    /// unread bytes would send a reset, which can destroy the response before the client reads it.
    func finish() {
        let tcp: TCPConnection
        switch self {
        case .tcp(let connection): tcp = connection
        case .tls(let connection):
            connection.sendCloseNotify(by: .after(1))
            tcp = connection.tcp
        }
        tcp.shutdownWrite()
        let linger = Deadline.after(1)
        var discarded = 0
        while discarded < 4 << 20, let chunk = try? tcp.read(upTo: 64 * 1024, by: linger), !chunk.isEmpty {
            discarded += chunk.count
        }
    }
}
