import Foundation
import Glibc

/// A server reached without the network: code loaded into this process (a team's Python server
/// under `crosscheck run --server`). A check that would open a TCP connection or send an HTTPS
/// request gets the same thing from here instead, so the same check code decides the verdict
/// in-process and over the network.
public protocol InProcessServer: AnyObject, Sendable {
    /// How reports name the server, e.g. `server:Handler`.
    var name: String { get }
    /// rsa-socket: a new connection whose other end the server is serving in this process.
    func connect(timeout: TimeInterval) throws -> TCPConnection
    /// aes-https: one request answered by the server's application. Plain HTTP in-process: TLS and
    /// pinning belong to the live server (checked by `crosscheck remote`).
    func exchange(_ request: HTTPRequest, timeout: TimeInterval) throws -> HTTPResponse
    /// Called when a check ends: closes what the check opened and says what went wrong inside the
    /// server meanwhile (an exception it raised, a handler that had to be cut off).
    func checkEnded() -> [InProcessServerProblem]
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
