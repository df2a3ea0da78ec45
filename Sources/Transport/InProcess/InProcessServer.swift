import Foundation
import Glibc
import WireProtocol

/// A server reached without the network: code loaded into this process (a team's Python server
/// under `crosscheck run --server`). A check that would open a TCP connection or send an HTTPS
/// request gets the same thing from here instead, so the same check code decides the verdict
/// in-process and over the network.
public protocol InProcessServer: AnyObject, Sendable {
    /// How reports name the server, e.g. `server:Handler`.
    var name: String { get }
    /// rsa-socket: a new connection whose other end the server is serving in this process.
    /// `watchingReads`: the server's reads are reported (`watchPeerReads`), so a read ends at once
    /// when it waits for input; false for a connection that only passes bytes on (a relay).
    func connect(timeout: TimeInterval, watchingReads: Bool) throws -> TCPConnection
    /// aes-https: one request answered by the server's application. Plain HTTP in-process: TLS and
    /// pinning belong to the live server (checked by `crosscheck remote`).
    func exchange(_ request: HTTPRequest, timeout: TimeInterval) throws -> HTTPResponse
    /// Called when a check ends: closes what the check opened and says what went wrong inside the
    /// server meanwhile (an exception it raised, a handler that had to be cut off).
    func checkEnded() -> [InProcessServerProblem]
}

extension InProcessServer {
    /// A connection whose reads know when the server waits for input (what every check wants).
    public func connect(timeout: TimeInterval) throws -> TCPConnection { try connect(timeout: timeout, watchingReads: true) }

    /// aes-https: a protocol request answered by the server's application.
    public func exchange(_ request: WebRequest, timeout: TimeInterval) throws -> WebResponse {
        WebResponse(try exchange(HTTPRequest(request), timeout: timeout))
    }
}

/// Something the server's own code did wrong while a check ran.
public struct InProcessServerProblem: Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The handler (or application) raised; `details` is the traceback.
        case raised
        /// The handler still ran `--timeout` seconds after the client had gone: it was cut off.
        case blocked
    }
    public let kind: Kind
    public let message: String
    public let details: String

    public init(kind: Kind, message: String, details: String) {
        self.kind = kind; self.message = message; self.details = details
    }

    public var description: String { message }
}

extension TCPConnection {
    /// Socket pairs only: returns once the other end has read every byte written so far (the
    /// kernel's count of this side's unread bytes, TIOCOUTQ, is zero), so the next write reaches
    /// the server as a read of its own: a split the server really sees. Polled under `timeout`.
    /// - Throws: `.timedOut` if the server stopped reading; `.io` if the count cannot be asked.
    public func waitUntilPeerRead(timeout: TimeInterval) throws {
        let operation = "wait until \(peerDescription) has read what was written"
        let end = Date().addingTimeInterval(timeout)
        try descriptor.use("connection to \(peerDescription)") { fd in
            while true {
                var unread: CInt = 0
                guard ioctl(fd, UInt(TIOCOUTQ), &unread) == 0 else {
                    let code = errno
                    throw TransportError.io(operation: operation, errno: code, message: errnoText(code))
                }
                if unread == 0 { return }
                guard Date() < end else { throw TransportError.timedOut(operation: operation, seconds: timeout) }
                // The reader is another thread of this process; give it the CPU rather than spin.
                sched_yield()
            }
        }
    }

    /// Socket pairs only: a pipe through which the host of the server's code reports each read the
    /// server makes on its end (the write end, returned, goes to that host; `PeerReadWatch` says
    /// the record format). From then on a read here that would wait for bytes the server cannot
    /// send (it is blocked reading, has read every byte written here, and its own read deadline
    /// lies beyond this read's) throws `.peerAwaitsInput` at once instead of waiting out its
    /// timeout: in-process, "the server has said all it will say" is known, not guessed from a
    /// quiet gap. Without records (a server that reads another way) reads wait as over TCP.
    public func watchPeerReads() throws -> Int32 {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            let code = errno
            throw TransportError.io(operation: "pipe for the reads of \(peerDescription)", errno: code, message: errnoText(code))
        }
        fds.forEach { setNonBlockingAndCloseOnExec($0) }  // non-blocking: a full pipe never blocks the server
        peerReads.withLock { $0.watch = PeerReadWatch(descriptor: fds[0]) }
        return fds[1]
    }

    /// A connected pair of stream sockets (AF_UNIX) for a server served in this process: this side
    /// is a `TCPConnection` like any other (non-blocking, deadlines); the other is a plain blocking
    /// descriptor the caller must hand on (e.g. to Python's `socket.socket(fileno=)`) or close.
    public static func socketPair(describedAs peer: String) throws -> (TCPConnection, serverDescriptor: Int32) {
        ignoreSIGPIPE()
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else {
            let code = errno
            throw TransportError.io(operation: "socketpair", errno: code, message: errnoText(code))
        }
        setNonBlockingAndCloseOnExec(fds[0])
        return (TCPConnection(descriptor: Descriptor(takingOwnershipOf: fds[0]), peer: peer, localPort: 0), fds[1])
    }
}

/// What the host of an in-process server reports of the server's reads, one 24-byte record each
/// (little-endian; written whole, as pipe writes of at most PIPE_BUF bytes are atomic):
/// byte 0 is 1 when the server is about to block in a read and 0 when the read has returned,
/// bytes 8-15 the count of bytes it has read so far, bytes 16-23 its read's deadline in
/// CLOCK_MONOTONIC seconds (a double; infinity when it waits without one). A full pipe drops
/// records: the last one read here may be old, which only ever makes a read wait longer (an old
/// "blocked" record carries an old count, below what has been written since).
struct PeerReadWatch {
    static let recordSize = 24
    /// The pipe's read end (non-blocking); -1 once every writer has closed it (the server's
    /// handler ended): then reads wait as over TCP.
    private(set) var descriptor: Int32
    private var partial: [UInt8] = []
    private var blocked = false
    private var consumed: UInt64 = 0
    private var deadline = Double.infinity

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Reads every record waiting in the pipe; the newest is the server's state.
    mutating func drain() {
        guard descriptor >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                partial += buffer[0..<count]
                continue
            }
            if count == 0 { close() }  // the host closed its end: the handler has ended
            else if errno == EINTR { continue }
            break
        }
        let whole = partial.count / Self.recordSize * Self.recordSize
        guard whole > 0 else { return }
        let record = partial[(whole - Self.recordSize)..<whole].map { $0 }
        partial.removeFirst(whole)
        func uint64(at offset: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(record[offset + $1]) << (8 * UInt64($1)) } }
        blocked = record[0] == 1
        consumed = uint64(at: 8)
        deadline = Double(bitPattern: uint64(at: 16))
    }

    /// The server is blocked reading, has read all `written` bytes, and will not stop waiting by
    /// `end` (CLOCK_MONOTONIC seconds; nil: never) of its own accord.
    func awaitsInput(written: UInt64, until end: Double?) -> Bool {
        guard descriptor >= 0, blocked, consumed == written else { return false }
        guard let end else { return deadline.isInfinite }
        return deadline > end
    }

    mutating func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }
}
