// GLUE for seed 000 (the whole file): Stream.getStreamsToHost(withName:port:inputStream:outputStream:),
// which Foundation on Linux does not have, over one TCP socket. As on iOS, the streams connect when
// opened and report to their delegate; unlike iOS there is no run-loop source behind them, so
// whoever drives the app calls `pumpEvents(until:)` to deliver what the socket has (Seed000Adapter
// does). Connecting, reading and writing are bounded by deadlines; nothing blocks for ever.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Stream {
    class func getStreamsToHost(withName hostname: String, port: Int, inputStream: UnsafeMutablePointer<InputStream?>?,
                                outputStream: UnsafeMutablePointer<OutputStream?>?) {
        let connection = SocketConnection(host: hostname, port: port)
        inputStream?.pointee = SocketInputStream(connection)
        outputStream?.pointee = SocketOutputStream(connection)
    }
}

/// The socket both streams share, and the events still to deliver.
final class SocketConnection {
    let host: String
    let port: Int
    var fd: Int32 = -1
    var failed: String?
    var opened = false
    var deliveredOpen = false
    var deliveredSpace = false
    var deliveredEnd = false
    weak var input: SocketInputStream?
    weak var output: SocketOutputStream?
    static let connectTimeout: TimeInterval = 5

    init(host: String, port: Int) { self.host = host; self.port = port }

    deinit { if fd >= 0 { _ = Glibc.close(fd) } }

    func open() {
        guard !opened else { return }
        opened = true
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            failed = "cannot resolve \(host)"; return
        }
        defer { freeaddrinfo(list) }
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            let socketFD = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if socketFD >= 0, connectWithDeadline(socketFD, info.pointee.ai_addr, info.pointee.ai_addrlen) {
                fd = socketFD
                return
            }
            if socketFD >= 0 { _ = Glibc.close(socketFD) }
            candidate = info.pointee.ai_next
        }
        failed = "cannot connect to \(host):\(port)"
    }

    private func connectWithDeadline(_ socketFD: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t) -> Bool {
        let flags = fcntl(socketFD, F_GETFL, 0)
        _ = fcntl(socketFD, F_SETFL, flags | O_NONBLOCK)
        if connect(socketFD, address, length) != 0 {
            guard errno == EINPROGRESS else { return false }
            var poller = pollfd(fd: socketFD, events: Int16(POLLOUT), revents: 0)
            guard poll(&poller, 1, Int32(Self.connectTimeout * 1000)) == 1 else { return false }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(socketFD, SOL_SOCKET, SO_ERROR, &error, &size) == 0, error == 0 else { return false }
        }
        return true
    }

    /// Waits up to `timeout` for the socket to be readable; true when it is (data or end).
    func waitReadable(_ timeout: TimeInterval) -> Bool {
        guard fd >= 0 else { return false }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, Int32(max(0, timeout) * 1000)) == 1
    }

    /// True when the peer has closed and nothing is left to read.
    func atEnd() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) == 0
    }

    func close() {
        if fd >= 0 { _ = Glibc.close(fd); fd = -1 }
    }
}

final class SocketInputStream: InputStream {
    let connection: SocketConnection
    private weak var storedDelegate: StreamDelegate?
    private var status: Stream.Status = .notOpen

    init(_ connection: SocketConnection) {
        self.connection = connection
        super.init(data: Data())
        connection.input = self
    }

    override var delegate: StreamDelegate? { get { storedDelegate } set { storedDelegate = newValue } }
    override var streamStatus: Stream.Status { status }
    override func open() { connection.open(); status = connection.failed == nil ? .open : .error }
    override func close() { status = .closed; if connection.output?.streamStatus != .open { connection.close() } }
    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    override var hasBytesAvailable: Bool { connection.fd >= 0 && connection.waitReadable(0) && !connection.atEnd() }

    /// One recv(2) of at most `len` bytes: what TCP has delivered so far, as one read on iOS gives.
    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard connection.fd >= 0 else { return -1 }
        let count = recv(connection.fd, buffer, len, Int32(MSG_DONTWAIT))
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return 0 }
        return count
    }
}

final class SocketOutputStream: OutputStream {
    let connection: SocketConnection
    private weak var storedDelegate: StreamDelegate?
    private var status: Stream.Status = .notOpen

    init(_ connection: SocketConnection) {
        self.connection = connection
        super.init(toMemory: ())
        connection.output = self
    }

    /// Required by OutputStream; such a stream has no socket and every write fails (-1).
    required init(toMemory: ()) {
        connection = SocketConnection(host: "", port: 0)
        super.init(toMemory: ())
    }

    override var delegate: StreamDelegate? { get { storedDelegate } set { storedDelegate = newValue } }
    override var streamStatus: Stream.Status { status }
    override func open() { connection.open(); status = connection.failed == nil ? .open : .error }
    override func close() { status = .closed; if connection.input?.streamStatus != .open { connection.close() } }
    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    override var hasSpaceAvailable: Bool { connection.fd >= 0 }

    /// One send(2), as one write on iOS: it may write fewer bytes than asked, and the caller (the
    /// seed ignores the count) would have to write the rest.
    override func write(_ buffer: UnsafePointer<UInt8>, maxLength len: Int) -> Int {
        guard connection.fd >= 0 else { return -1 }
        return send(connection.fd, buffer, len, Int32(MSG_NOSIGNAL))
    }
}

extension InputStream {
    /// Delivers the socket's pending events to the streams' delegate, as the run loop would on
    /// iOS, until `deadline` or until `stop()` returns true after an event.
    func pumpEvents(until deadline: Date, stop: () -> Bool) {
        guard let input = self as? SocketInputStream else { return }
        let connection = input.connection
        while Date() < deadline {
            if connection.failed != nil, !connection.deliveredEnd {
                connection.deliveredEnd = true
                input.delegate?.stream(input, handle: .errorOccurred)
                return
            }
            if connection.opened, !connection.deliveredOpen {
                connection.deliveredOpen = true
                input.delegate?.stream(input, handle: .openCompleted)
                if let output = connection.output { output.delegate?.stream(output, handle: .openCompleted) }
                if stop() { return }
                continue
            }
            if !connection.deliveredSpace, let output = connection.output, output.streamStatus == .open {
                connection.deliveredSpace = true
                output.delegate?.stream(output, handle: .hasSpaceAvailable)
                if stop() { return }
                continue
            }
            guard connection.fd >= 0, !connection.deliveredEnd else { return }
            if connection.waitReadable(min(0.05, deadline.timeIntervalSinceNow)) {
                if connection.atEnd() {
                    connection.deliveredEnd = true
                    input.delegate?.stream(input, handle: .endEncountered)
                } else {
                    input.delegate?.stream(input, handle: .hasBytesAvailable)
                }
                if stop() { return }
            }
        }
    }
}
