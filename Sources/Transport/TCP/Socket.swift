import Foundation
import Glibc

// MARK: - Deadlines

/// A point on the monotonic clock by which an operation must finish. `timeout` is kept for messages.
struct Deadline: Sendable {
    /// nil: no deadline (an infinite timeout).
    private let end: UInt64?
    let timeout: TimeInterval

    static func after(_ timeout: TimeInterval) -> Deadline { Deadline(timeout: timeout) }

    private init(timeout: TimeInterval) {
        // NaN and negative timeouts mean "now": check once, do not wait.
        let seconds = timeout.isNaN || timeout < 0 ? 0 : timeout
        self.timeout = seconds
        if seconds.isInfinite || seconds > 1e9 {
            end = nil
        } else {
            end = Deadline.now() &+ UInt64((seconds * 1e9).rounded(.up))
        }
    }

    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// The deadline in CLOCK_MONOTONIC seconds (nil: none).
    var endSeconds: Double? { end.map { Double($0) / 1e9 } }

    var hasPassed: Bool {
        guard let end else { return false }
        return Deadline.now() >= end
    }

    /// For poll(2): -1 without a deadline, 0 once it has passed, else milliseconds rounded up.
    var pollMilliseconds: Int32 {
        guard let end else { return -1 }
        let now = Deadline.now()
        guard end > now else { return 0 }
        let ms = (end - now + 999_999) / 1_000_000
        return Int32(clamping: ms)
    }
}

// MARK: - SIGPIPE

/// A write to a socket the peer has closed raises SIGPIPE, which kills the process by default.
/// Sends use MSG_NOSIGNAL, but libssl and libcurl write with write(2), so the signal is ignored
/// process-wide the first time Transport opens a socket.
private let sigpipeIgnored: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()

func ignoreSIGPIPE() { _ = sigpipeIgnored }

// MARK: - Owning a file descriptor

/// Owns one file descriptor, shared between the thread that does I/O and threads that close.
///
/// `close()` may be called from any thread while another is inside `use`: it then shuts the socket
/// down (which wakes a `poll` in progress) and releases the descriptor number only once the last
/// `use` has returned, so no thread ever polls a number that was closed and reused.
final class Descriptor: @unchecked Sendable {
    private struct State {
        var fd: Int32
        var closed = false
        var users = 0
    }
    private let state: Locked<State>
    private let isSocket: Bool

    init(takingOwnershipOf fd: Int32, isSocket: Bool = true) {
        state = Locked(State(fd: fd))
        self.isSocket = isSocket
    }

    deinit {
        let fd = state.withLock { $0.fd }
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Runs `body` with the descriptor; throws `.closed(what)` if it has been closed.
    func use<T>(_ what: @autoclosure () -> String, _ body: (Int32) throws -> T) throws -> T {
        let fd: Int32? = state.withLock { state in
            guard !state.closed, state.fd >= 0 else { return nil }
            state.users += 1
            return state.fd
        }
        guard let fd else { throw TransportError.closed(what()) }
        defer { leave() }
        return try body(fd)
    }

    private func leave() {
        let toClose: Int32? = state.withLock { state in
            state.users -= 1
            guard state.closed, state.users == 0, state.fd >= 0 else { return nil }
            defer { state.fd = -1 }
            return state.fd
        }
        if let toClose { _ = Glibc.close(toClose) }
    }

    /// Idempotent. While another thread is using the descriptor, a socket is first shut down in
    /// both directions (waking its poll) and released when that thread is done; otherwise this is
    /// close(2) itself (a FIN, or a reset if received bytes were left unread).
    func close() {
        let toClose: Int32? = state.withLock { state in
            guard !state.closed else { return nil }
            state.closed = true
            if isSocket, state.users > 0, state.fd >= 0 { _ = shutdown(state.fd, Int32(SHUT_RDWR)) }
            guard state.users == 0, state.fd >= 0 else { return nil }
            defer { state.fd = -1 }
            return state.fd
        }
        if let toClose { _ = Glibc.close(toClose) }
    }
}

// MARK: - poll(2)

enum Readiness {
    case readable, writable
    var events: Int16 { self == .readable ? Int16(POLLIN) : Int16(POLLOUT) }
}

/// Waits until `fd` is ready (or in error/hang-up, which the next call will report) or `wake`
/// becomes readable (returns false), or throws `.timedOut(operation)` at the deadline.
@discardableResult
func waitUntil(_ fd: Int32, is readiness: Readiness, by deadline: Deadline,
               operation: @autoclosure () -> String, wake: Int32? = nil) throws -> Bool {
    var fds = [pollfd(fd: fd, events: readiness.events, revents: 0)]
    if let wake { fds.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0)) }
    while true {
        let result = poll(&fds, nfds_t(fds.count), deadline.pollMilliseconds)
        if result < 0 {
            let code = errno
            if code == EINTR { continue }
            throw TransportError.io(operation: "poll while waiting to \(operation())", errno: code, message: errnoText(code))
        }
        if result == 0 {
            if deadline.hasPassed { throw TransportError.timedOut(operation: operation(), seconds: deadline.timeout) }
            continue  // woke a little early (millisecond rounding); wait for the rest
        }
        if fds.count > 1, fds[1].revents != 0 { return false }
        if fds[0].revents & Int16(POLLNVAL) != 0 { throw TransportError.closed(operation()) }
        if fds[0].revents != 0 { return true }
    }
}

// MARK: - Addresses

/// A resolved socket address (IPv4 or IPv6).
struct SocketAddress: CustomStringConvertible {
    var storage = sockaddr_storage()
    var length: socklen_t = 0

    var family: Int32 { Int32(storage.ss_family) }

    /// Resolves an IPv4 or IPv6 literal (brackets allowed) or `localhost` (127.0.0.1, then ::1).
    /// No name lookups: getaddrinfo on a name has no deadline, and tests stay on loopback.
    static func resolve(host: String, port: UInt16) throws -> [SocketAddress] {
        var literal = host
        if literal.hasPrefix("[") && literal.hasSuffix("]") && literal.count >= 2 {
            literal = String(literal.dropFirst().dropLast())
        }
        if literal.lowercased() == "localhost" {
            return try resolve(host: "127.0.0.1", port: port) + resolve(host: "::1", port: port)
        }
        guard !literal.isEmpty else { throw TransportError.invalidAddress(host, reason: "empty host") }
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(literal, String(port), &hints, &list)
        guard status == 0, let list else {
            let reason = status == EAI_NONAME
                ? "not an IPv4 or IPv6 literal nor 'localhost' (Transport does no name lookups)"
                : String(cString: gai_strerror(status))
            throw TransportError.invalidAddress(host, reason: reason)
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let entry = cursor {
            if let source = entry.pointee.ai_addr, entry.pointee.ai_addrlen <= MemoryLayout<sockaddr_storage>.size {
                var address = SocketAddress()
                withUnsafeMutableBytes(of: &address.storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: source, count: Int(entry.pointee.ai_addrlen)))
                }
                address.length = entry.pointee.ai_addrlen
                addresses.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw TransportError.invalidAddress(host, reason: "no usable address") }
        return addresses
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }

    /// The numeric host (IPv6 without brackets).
    var host: String {
        var hostBuffer = [CChar](repeating: 0, count: 256)
        let status = withSockaddr { pointer, length in
            getnameinfo(pointer, length, &hostBuffer, socklen_t(hostBuffer.count), nil, 0, NI_NUMERICHOST)
        }
        guard status == 0 else { return "?" }
        return String(decoding: hostBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    var port: UInt16 {
        withUnsafeBytes(of: storage) { raw -> UInt16 in
            switch family {
            case AF_INET: return UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
            case AF_INET6: return UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
            default: return 0
            }
        }
    }

    /// `127.0.0.1:8443` or `[::1]:8443`.
    var description: String { hostPort(host, port) }

    /// The local or remote address of a socket.
    static func of(_ fd: Int32, peer: Bool) -> SocketAddress? {
        var address = SocketAddress()
        address.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutableBytes(of: &address.storage) { raw in
            let pointer = raw.baseAddress!.assumingMemoryBound(to: sockaddr.self)
            return peer ? getpeername(fd, pointer, &address.length) : getsockname(fd, pointer, &address.length)
        }
        return status == 0 ? address : nil
    }
}

/// A new non-blocking, close-on-exec TCP socket.
func makeSocket(family: Int32) throws -> Descriptor {
    ignoreSIGPIPE()
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    let fd = socket(family, type, 0)
    guard fd >= 0 else {
        let code = errno
        throw TransportError.io(operation: "socket", errno: code, message: errnoText(code))
    }
    return Descriptor(takingOwnershipOf: fd)
}

func setIntOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
    var value = value
    _ = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
}

func setNonBlockingAndCloseOnExec(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    let descriptorFlags = fcntl(fd, F_GETFD)
    if descriptorFlags >= 0 { _ = fcntl(fd, F_SETFD, descriptorFlags | FD_CLOEXEC) }
}

/// A value behind a pthread mutex (NSLock). Used rather than Synchronization.Mutex, whose futex
/// on Linux ThreadSanitizer cannot see: with this, `--sanitize=thread` runs report only real races.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
