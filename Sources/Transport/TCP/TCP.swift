import Foundation
import Glibc

/// A TCP connection whose every operation runs under a deadline.
///
/// Owns its socket (non-blocking; each call polls before it reads or writes). `close()` is safe
/// from any thread, also while another thread is blocked in `read`: that read then returns.
/// Writes never raise SIGPIPE.
public final class TCPConnection: @unchecked Sendable {
    let descriptor: Descriptor
    /// The peer's address, `127.0.0.1:54321` or `[::1]:54321`.
    public let peerDescription: String
    /// The local port of this connection.
    public let localPort: UInt16
    /// In-process peers only (`watchPeerReads`): what the server reports of its reads, and what
    /// this side wrote, to tell when the server is waiting for input.
    let peerReads = Locked(PeerReads())

    struct PeerReads {
        var watch: PeerReadWatch?
        /// Bytes written so far: the server has read everything when its count equals this.
        var written: UInt64 = 0
        /// After a half-close the server's reads return the end of the stream and never block:
        /// its records no longer mean it waits for input.
        var halfClosed = false
    }

    init(descriptor: Descriptor, peer: String, localPort: UInt16) {
        self.descriptor = descriptor
        self.peerDescription = peer
        self.localPort = localPort
    }

    /// Connects to `host` (an IPv4/IPv6 literal, brackets allowed, or `localhost`) within `timeout`
    /// seconds. For `localhost`, 127.0.0.1 is tried first, then ::1.
    /// - Throws: `.connectionRefused` when every address refused, `.timedOut`, `.invalidAddress`, `.io`.
    public static func connect(host: String, port: UInt16, timeout: TimeInterval) throws -> TCPConnection {
        let deadline = Deadline.after(timeout)
        let operation = "connect to \(hostPort(host, port))"
        var failure: TransportError = .connectionRefused(host: host, port: port)
        for address in try SocketAddress.resolve(host: host, port: port) {
            let descriptor = try makeSocket(family: address.family)
            let code: Int32 = try descriptor.use(operation) { fd in
                let status = address.withSockaddr { Glibc.connect(fd, $0, $1) }
                if status == 0 { return 0 }
                let code = errno
                guard code == EINPROGRESS || code == EINTR else { return code }
                try waitUntil(fd, is: .writable, by: deadline, operation: operation)
                var pending: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &pending, &length) == 0 else { return errno }
                return pending
            }
            switch code {
            case 0:
                let local = try descriptor.use(operation) { fd -> UInt16 in
                    setIntOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
                    return SocketAddress.of(fd, peer: false)?.port ?? 0
                }
                return TCPConnection(descriptor: descriptor, peer: address.description, localPort: local)
            case ECONNREFUSED:
                continue  // try the next address; if all refuse, the error is .connectionRefused
            case ETIMEDOUT:
                throw TransportError.timedOut(operation: operation, seconds: deadline.timeout)
            default:
                failure = .io(operation: "connect to \(address)", errno: code, message: errnoText(code))
            }
        }
        throw failure
    }

    /// Reads at most `maxBytes` (≥ 1) within `timeout` seconds; returns as soon as any bytes arrive.
    ///
    /// - Returns: the bytes read, or **empty `Data` when the peer closed its side in an orderly way**
    ///   (end of stream). Later reads keep returning empty `Data`.
    /// - Throws: `.timedOut` if nothing arrived in time, `.connectionReset`, `.closed` after `close()`.
    public func read(upTo maxBytes: Int, timeout: TimeInterval) throws -> Data {
        try read(upTo: maxBytes, by: .after(timeout))
    }

    /// Reads exactly `count` bytes within `timeout` seconds (for the whole read).
    /// - Throws: `.connectionClosed` if the peer closes first (saying how many bytes came), `.timedOut`.
    public func readExactly(_ count: Int, timeout: TimeInterval) throws -> Data {
        let deadline = Deadline.after(timeout)
        var result = Data()
        result.reserveCapacity(max(count, 0))
        while result.count < count {
            let chunk = try read(upTo: count - result.count, by: deadline)
            if chunk.isEmpty {
                throw TransportError.connectionClosed(peer: peerDescription,
                                                      detail: "after \(result.count) of \(count) expected bytes")
            }
            result.append(chunk)
        }
        return result
    }

    /// Writes all of `data` within `timeout` seconds (for the whole write).
    /// - Throws: `.connectionReset` if the peer is gone, `.timedOut` if it stopped reading.
    public func write(_ data: Data, timeout: TimeInterval) throws {
        try write(data, by: .after(timeout))
    }

    /// Half-closes: the peer reads end of stream; this side can still read. Idempotent.
    public func shutdownWrite() {
        _ = try? descriptor.use("connection to \(peerDescription)") { fd in
            _ = shutdown(fd, Int32(SHUT_WR))
        }
        peerReads.withLock { $0.halfClosed = true }
    }

    /// Closes the connection (both directions). Idempotent; safe from any thread.
    public func close() { descriptor.close() }

    deinit {
        descriptor.close()
        peerReads.withLock { $0.watch?.close() }
    }

    // MARK: Deadline-based internals

    func read(upTo maxBytes: Int, by deadline: Deadline) throws -> Data {
        guard maxBytes > 0 else {
            throw TransportError.io(operation: "read of \(maxBytes) bytes", errno: EINVAL, message: errnoText(EINVAL))
        }
        let operation = "read from \(peerDescription)"
        return try descriptor.use("connection to \(peerDescription)") { fd in
            var buffer = [UInt8](repeating: 0, count: maxBytes)
            while true {
                let wake = try peerReadWake(fd, by: deadline)
                // Woken by a record of the server's reads: look at its state again.
                guard try waitUntil(fd, is: .readable, by: deadline, operation: operation, wake: wake) else { continue }
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, maxBytes, 0) }
                if count >= 0 { return Data(buffer[0..<count]) }
                let code = errno
                switch code {
                case EAGAIN, EWOULDBLOCK, EINTR: continue
                case ECONNRESET, EPIPE: throw TransportError.connectionReset(peer: peerDescription)
                case ETIMEDOUT: throw TransportError.timedOut(operation: operation, seconds: deadline.timeout)
                default: throw TransportError.io(operation: operation, errno: code, message: errnoText(code))
                }
            }
        }
    }

    func write(_ data: Data, by deadline: Deadline) throws {
        let operation = "write to \(peerDescription)"
        try descriptor.use("connection to \(peerDescription)") { fd in
            try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < bytes.count {
                    try waitUntil(fd, is: .writable, by: deadline, operation: operation)
                    let sent = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                    if sent >= 0 {
                        offset += sent
                        peerReads.withLock { $0.written += UInt64(sent) }
                        continue
                    }
                    let code = errno
                    switch code {
                    case EAGAIN, EWOULDBLOCK, EINTR: continue
                    case ECONNRESET, EPIPE: throw TransportError.connectionReset(peer: peerDescription)
                    case ETIMEDOUT: throw TransportError.timedOut(operation: operation, seconds: deadline.timeout)
                    default: throw TransportError.io(operation: operation, errno: code, message: errnoText(code))
                    }
                }
            }
        }
    }

    /// In-process peers: throws `.peerAwaitsInput` when the server is blocked reading with every
    /// byte written here read and nothing for this side to read; else the watch's descriptor, to
    /// wake a wait when the server's state changes (nil without a watch).
    private func peerReadWake(_ fd: Int32, by deadline: Deadline) throws -> Int32? {
        try peerReads.withLock { state in
            guard !state.halfClosed, state.watch != nil else { return nil }
            state.watch?.drain()
            guard let watch = state.watch, watch.descriptor >= 0 else { return nil }
            if watch.awaitsInput(written: state.written, until: deadline.endSeconds) {
                // The server writes before it blocks, so what it said is here by now.
                var check = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&check, 1, 0) == 0 { throw TransportError.peerAwaitsInput(peer: peerDescription) }
            }
            return watch.descriptor
        }
    }

    /// Waits for the socket (used by TLS, which reads and writes through libssl).
    func wait(until readiness: Readiness, by deadline: Deadline, operation: @autoclosure () -> String) throws {
        _ = try descriptor.use("connection to \(peerDescription)") { fd in
            try waitUntil(fd, is: readiness, by: deadline, operation: operation())
        }
    }
}

/// A listening TCP socket. `accept` runs under a deadline; `close()` from any thread wakes an
/// `accept` in progress, which then throws `.closed`.
public final class TCPListener: @unchecked Sendable {
    private let descriptor: Descriptor
    /// A pipe whose read end `accept` polls alongside the socket; `close()` writes to it.
    private let wakeRead: Descriptor
    private let wakeWrite: Descriptor
    /// The address bound, e.g. `127.0.0.1`.
    public let host: String
    /// The port bound: the one asked for, or the ephemeral one the system chose for port 0.
    public let port: UInt16

    /// Binds and listens on `host` (an IP literal or `localhost` = 127.0.0.1) and `port` (0: any free port).
    public init(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 128) throws {
        guard let address = try SocketAddress.resolve(host: host, port: port).first else {
            throw TransportError.invalidAddress(host, reason: "no usable address")
        }
        let descriptor = try makeSocket(family: address.family)
        let operation = "listen on \(address)"
        let bound: UInt16 = try descriptor.use(operation) { fd in
            setIntOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            if address.family == AF_INET6 { setIntOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1) }
            guard address.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
                let code = errno
                throw TransportError.io(operation: "bind to \(address)", errno: code, message: errnoText(code))
            }
            guard listen(fd, backlog) == 0 else {
                let code = errno
                throw TransportError.io(operation: operation, errno: code, message: errnoText(code))
            }
            return SocketAddress.of(fd, peer: false)?.port ?? port
        }
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            let code = errno
            throw TransportError.io(operation: "pipe", errno: code, message: errnoText(code))
        }
        pipeFDs.forEach { setNonBlockingAndCloseOnExec($0) }
        self.descriptor = descriptor
        self.wakeRead = Descriptor(takingOwnershipOf: pipeFDs[0], isSocket: false)
        self.wakeWrite = Descriptor(takingOwnershipOf: pipeFDs[1], isSocket: false)
        self.host = address.host
        self.port = bound
    }

    /// Accepts one connection within `timeout` seconds (`.infinity`: wait until one comes or `close()`).
    /// - Throws: `.timedOut`, `.closed` once the listener is closed, `.io`.
    public func accept(timeout: TimeInterval) throws -> TCPConnection {
        let deadline = Deadline.after(timeout)
        let operation = "accept on \(hostPort(host, port))"
        return try wakeRead.use("listener on \(hostPort(host, port))") { wake in
            try descriptor.use("listener on \(hostPort(host, port))") { fd in
                while true {
                    guard try waitUntil(fd, is: .readable, by: deadline, operation: operation, wake: wake) else {
                        throw TransportError.closed("listener on \(hostPort(host, port))")
                    }
                    var peer = SocketAddress()
                    peer.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                    let accepted = withUnsafeMutableBytes(of: &peer.storage) { raw in
                        Glibc.accept(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &peer.length)
                    }
                    if accepted >= 0 {
                        setNonBlockingAndCloseOnExec(accepted)  // accept4 is not in Swift's Glibc module
                        setIntOption(accepted, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
                        return TCPConnection(descriptor: Descriptor(takingOwnershipOf: accepted),
                                             peer: peer.description, localPort: port)
                    }
                    let code = errno
                    switch code {
                    case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED, EPROTO: continue
                    case EINVAL, EBADF: throw TransportError.closed("listener on \(hostPort(host, port))")
                    default: throw TransportError.io(operation: operation, errno: code, message: errnoText(code))
                    }
                }
            }
        }
    }

    /// Stops listening. Idempotent; safe from any thread; wakes an `accept` in progress.
    public func close() {
        guard !descriptor.isClosed else { return }
        descriptor.close()
        _ = try? wakeWrite.use("wake pipe") { fd in
            var byte: UInt8 = 1
            _ = Glibc.write(fd, &byte, 1)
        }
    }

    deinit { close() }
}
