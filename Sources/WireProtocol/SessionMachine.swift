import Foundation

/// What a protocol state machine asks its driver to do. Machines never do I/O themselves: sockets,
/// the in-process transport and tests all drive the same machines (docs/PROTOCOL.md).
public enum SessionAction: Equatable, Sendable {
    /// Bytes to put on the wire, already framed.
    case send(Data)
    /// Close the connection; the machine reads nothing more.
    case close
    /// Something the harness wants to know (a decrypted plaintext, an error and why).
    case event(SessionEvent)
}

/// Events of the rsa-socket roles, named as in docs/PROTOCOL.md.
public enum SessionEvent: Equatable, Sendable, CustomStringConvertible {
    /// Client (pi-to-phone) or server (phone-to-pi) recovered this plaintext.
    case decrypted(Data)
    /// The server acknowledged; `verified` is nil when it gave no digest.
    case serverOK(digest: String?, verified: Bool?)
    case serverError
    case serverStopped
    /// The client gave up; the reason is for the harness.
    case failed(String)
    /// The server sent its ciphertext (pi-to-phone).
    case sentCiphertext
    /// The server received `Quit`.
    case quit
    /// The server refused something; the reason is for the harness, never on the wire.
    case error(String)

    /// The protocol's name for the event (`decrypted`, `server-ok`, …).
    public var name: String {
        switch self {
        case .decrypted: return "decrypted"
        case .serverOK: return "server-ok"
        case .serverError: return "server-error"
        case .serverStopped: return "server-stopped"
        case .failed: return "failed"
        case .sentCiphertext: return "sent-ciphertext"
        case .quit: return "quit"
        case .error: return "error"
        }
    }

    public var description: String {
        switch self {
        case let .decrypted(plaintext): return "decrypted(\(plaintext.count) bytes)"
        case let .serverOK(digest, verified):
            return "server-ok" + (digest.map { " sha256=\($0.prefix(12))…" } ?? "") + (verified.map { $0 ? " verified" : " MISMATCH" } ?? " unverified")
        case let .failed(reason): return "failed(\(reason))"
        case let .error(reason): return "error(\(reason))"
        default: return name
        }
    }
}

/// A sans-I/O protocol role.
public protocol SessionMachine: AnyObject {
    /// What to do when the connection opens.
    func start() -> [SessionAction]
    /// Bytes arrived (any split: one byte, a whole message, several joined).
    func receive(_ data: Data) -> [SessionAction]
    /// The line has been quiet for the quiet gap.
    func idle() -> [SessionAction]
    /// True once the machine has asked to close.
    var closed: Bool { get }
}
