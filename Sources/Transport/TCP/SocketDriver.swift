import Foundation
import WireProtocol

/// Drives one protocol machine over a real TCP connection: what it sends is written, what arrives
/// is fed to it, and a read that times out after `quietGap` (or, in-process, finds the peer
/// waiting for input: `TransportError.peerAwaitsInput`) is the quiet line (`idle()`). Ends
/// when the machine closes, the peer closes, or `deadline` passes; never hangs.
public enum SocketDriver {
    public struct Transcript {
        public var events: [SessionEvent] = []
        public var sent = Data()
        public var received = Data()
        public var closedByMachine = false
        public var closedByPeer = false
        /// A transport failure, or the deadline, that ended the conversation early.
        public var transportError: String?
    }

    /// `splitInto`: (socket pairs only) every send goes out in pieces of that many bytes, each
    /// written only once the peer has read the one before (`waitUntilPeerRead`).
    public static func drive(_ machine: SessionMachine, over connection: TCPConnection, quietGap: TimeInterval,
                      timeout: TimeInterval, deadline: TimeInterval, splitInto pieceSize: Int? = nil) -> Transcript {
        var outcome = Transcript()
        let end = Date().addingTimeInterval(deadline)
        var lastHeard = Date()
        /// In-process, after a quiet line the client had nothing to say to: the rest of the
        /// `timeout` of silence that over TCP ends a conversation, read out once.
        var stallWait: TimeInterval?

        func apply(_ actions: [SessionAction]) throws {
            for action in actions {
                switch action {
                case let .send(bytes):
                    outcome.sent += bytes
                    guard let pieceSize, pieceSize > 0 else {
                        try connection.write(bytes, timeout: timeout)
                        continue
                    }
                    for start in stride(from: bytes.startIndex, to: bytes.endIndex, by: pieceSize) {
                        try connection.write(bytes[start..<min(start + pieceSize, bytes.endIndex)], timeout: timeout)
                        try connection.waitUntilPeerRead(timeout: timeout)
                    }
                case .close:
                    outcome.closedByMachine = true
                    connection.close()
                case let .event(event):
                    outcome.events.append(event)
                }
            }
        }

        do {
            try apply(machine.start())
            while !machine.closed {
                guard Date() < end else {
                    outcome.transportError = "no end of conversation within \(deadline) s"
                    break
                }
                do {
                    let data = try connection.read(upTo: 65536, timeout: stallWait ?? quietGap)
                    stallWait = nil
                    if data.isEmpty {
                        outcome.closedByPeer = true
                        try apply(machine.idle())
                        break
                    }
                    lastHeard = Date()
                    outcome.received += data
                    try apply(machine.receive(data))
                } catch TransportError.peerAwaitsInput {
                    if stallWait != nil {
                        // Its own read outlasts the whole silence window too: nothing will come.
                        outcome.transportError = "the peer sent nothing for \(timeout) s: it is waiting for input the client does not send"
                        break
                    }
                    // In-process, the quiet line is known at once: the server waits for the machine.
                    let actions = machine.idle()
                    try apply(actions)
                    let sends = actions.contains { if case .send = $0 { return true } else { return false } }
                    if !machine.closed, !sends {
                        // A server may still answer when its own read gives up (a quiet gap of its
                        // own): wait, as over TCP, until `timeout` of silence.
                        stallWait = max(0.001, timeout - Date().timeIntervalSince(lastHeard))
                    }
                } catch TransportError.timedOut {
                    stallWait = nil
                    try apply(machine.idle())
                    // A peer that says nothing for a whole timeout is stalled, whatever the machine waits for.
                    if !machine.closed, Date().timeIntervalSince(lastHeard) >= timeout {
                        outcome.transportError = "the peer sent nothing for \(timeout) s"
                        break
                    }
                }
            }
        } catch {
            outcome.transportError = "\(error)"
        }
        connection.close()
        return outcome
    }
}

/// A server for any session machine on a loopback port: a fresh machine per connection, a thread
/// per connection, every connection under the same deadlines. `stop()` closes the listener and waits.
public final class SessionMachineServer: @unchecked Sendable {
    let listener: TCPListener
    private let makeMachine: @Sendable () throws -> SessionMachine
    private let timeout: TimeInterval
    private let quietGap: TimeInterval
    private let group = DispatchGroup()
    private let lock = NSLock()
    private var stopped = false

    /// Listens on `host`:`port` (default: 127.0.0.1, a port the system picks; see `port`). Every read,
    /// write and quiet line runs under `timeout` and `quietGap`; a conversation ends after
    /// `2 × timeout` at the latest.
    public init(host: String = "127.0.0.1", port: UInt16 = 0, timeout: TimeInterval, quietGap: TimeInterval,
                makeMachine: @escaping @Sendable () throws -> SessionMachine) throws {
        listener = try TCPListener(host: host, port: port)
        self.makeMachine = makeMachine
        self.timeout = timeout
        self.quietGap = quietGap
        let thread = Thread { [weak self] in self?.acceptLoop() }
        group.enter()
        thread.start()
    }

    public var port: UInt16 { listener.port }

    private func acceptLoop() {
        defer { group.leave() }
        while !isStopped {
            guard let connection = try? listener.accept(timeout: 0.5) else { continue }
            group.enter()
            let (timeout, quietGap, makeMachine) = (self.timeout, self.quietGap, self.makeMachine)
            Thread { [group] in
                defer { group.leave() }
                // Each connection gets its own machine, made on its own thread.
                guard let machine = try? makeMachine() else { connection.close(); return }
                _ = SocketDriver.drive(machine, over: connection, quietGap: quietGap, timeout: timeout, deadline: timeout * 2)
            }.start()
        }
    }

    private var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    public func stop() {
        lock.lock(); stopped = true; lock.unlock()
        listener.close()
        group.wait()
    }
}
