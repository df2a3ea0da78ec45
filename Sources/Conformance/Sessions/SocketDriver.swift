import Foundation
import Transport
import WireProtocol

/// Drives one protocol machine over a real TCP connection: what it sends is written, what arrives
/// is fed to it, and a read that times out after `quietGap` is the quiet line (`idle()`). Ends
/// when the machine closes, the peer closes, or `deadline` passes; never hangs.
enum SocketDriver {
    struct Outcome {
        var events: [SessionEvent] = []
        var sent = Data()
        var received = Data()
        var closedByMachine = false
        var closedByPeer = false
        /// A transport failure, or the deadline, that ended the conversation early.
        var transportError: String?
    }

    static func drive(_ machine: SessionMachine, over connection: TCPConnection, quietGap: TimeInterval,
                      timeout: TimeInterval, deadline: TimeInterval) -> Outcome {
        var outcome = Outcome()
        let end = Date().addingTimeInterval(deadline)
        var lastHeard = Date()

        func apply(_ actions: [SessionAction]) throws {
            for action in actions {
                switch action {
                case let .send(bytes):
                    outcome.sent += bytes
                    try connection.write(bytes, timeout: timeout)
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
                    let data = try connection.read(upTo: 65536, timeout: quietGap)
                    if data.isEmpty {
                        outcome.closedByPeer = true
                        try apply(machine.idle())
                        break
                    }
                    lastHeard = Date()
                    outcome.received += data
                    try apply(machine.receive(data))
                } catch TransportError.timedOut {
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

/// A Swift rsa-socket server on a loopback port: a fresh machine per connection, a thread per
/// connection, every connection under the same deadlines. `stop()` closes the listener and waits.
final class LoopbackSwiftServer: @unchecked Sendable {
    let listener: TCPListener
    private let makeMachine: @Sendable () throws -> SessionMachine
    private let options: SessionOptions
    private let group = DispatchGroup()
    private let lock = NSLock()
    private var stopped = false

    init(options: SessionOptions, makeMachine: @escaping @Sendable () throws -> SessionMachine) throws {
        listener = try TCPListener(host: "127.0.0.1", port: 0)
        self.makeMachine = makeMachine
        self.options = options
        let thread = Thread { [weak self] in self?.acceptLoop() }
        group.enter()
        thread.start()
    }

    var port: UInt16 { listener.port }

    private func acceptLoop() {
        defer { group.leave() }
        while !isStopped {
            guard let connection = try? listener.accept(timeout: 0.5) else { continue }
            group.enter()
            let (options, makeMachine) = (self.options, self.makeMachine)
            Thread { [group] in
                defer { group.leave() }
                // Each connection gets its own machine, made on its own thread.
                guard let machine = try? makeMachine() else { connection.close(); return }
                _ = SocketDriver.drive(machine, over: connection, quietGap: options.quietGap, timeout: options.timeout,
                                       deadline: options.timeout * 2)
            }.start()
        }
    }

    private var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    func stop() {
        lock.lock(); stopped = true; lock.unlock()
        listener.close()
        group.wait()
    }
}

/// A PythonRef server in its own process (`python3 -m pythonref serve …`), as it would run on a Pi.
/// Started on port 0; its "listening on HOST:PORT" line says where. `stop()` terminates it.
final class PythonServerProcess: @unchecked Sendable {
    let process = Process()
    let port: UInt16
    private let stdout = Pipe()
    private let stderr = Pipe()

    init(options: SessionOptions, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: options.pythonExecutable)
        process.arguments = ["-m", "pythonref", "serve"] + arguments + ["--host", "127.0.0.1", "--port", "0"]
        process.currentDirectoryURL = URL(fileURLWithPath: options.pythonRefDirectory)
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = options.pythonRefDirectory
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = environment
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Wait for the readiness line (bounded: the read ends when the process exits).
        var text = ""
        let deadline = Date().addingTimeInterval(max(options.timeout, 10))
        while !text.contains("\n"), Date() < deadline {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
              let portText = line.split(separator: ":").last, let port = UInt16(portText) else {
            process.terminate()
            let errorText = String(decoding: stderr.fileHandleForReading.availableData, as: UTF8.self)
            throw PeerFailure(.internal, "pythonref serve did not start: \(text) \(errorText)")
        }
        self.port = port
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// Something a run started that must be stopped when the run ends.
protocol RunningServer: AnyObject, Sendable {
    var port: UInt16 { get }
    func stop()
}

extension LoopbackSwiftServer: RunningServer {}
extension PythonServerProcess: RunningServer {}

/// Servers a run started, one per configuration, stopped when the run ends (also after failures
/// and interrupts).
public final class ServerPool: @unchecked Sendable {
    private let lock = NSLock()
    private let filesLock = NSLock()  // separate: files are made while `lock` is held
    private var servers: [String: RunningServer] = [:]
    private var temporaryFiles: [URL] = []

    public init() {}

    /// The server for `id`, started by `make` on first use.
    func server<S: RunningServer>(_ id: String, make: () throws -> S) throws -> S {
        lock.lock(); defer { lock.unlock() }
        if let server = servers[id] as? S { return server }
        let server = try make()
        servers[id] = server
        return server
    }

    /// A private temporary file holding `data` (a key for a server process), removed at shutdown.
    func temporaryFile(_ data: Data, name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-\(getpid())-\(name)")
        guard FileManager.default.createFile(atPath: url.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw PeerFailure(.internal, "cannot write \(url.path) for a server process")
        }
        filesLock.lock(); temporaryFiles.append(url); filesLock.unlock()
        return url
    }

    public func shutdown() {
        lock.lock()
        let running = Array(servers.values)
        servers = [:]
        lock.unlock()
        running.forEach { $0.stop() }
        filesLock.lock()
        let files = temporaryFiles
        temporaryFiles = []
        filesLock.unlock()
        files.forEach { try? FileManager.default.removeItem(at: $0) }
    }

    deinit { shutdown() }
}
