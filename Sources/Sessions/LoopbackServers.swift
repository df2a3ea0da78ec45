import Foundation
import Conformance
import Transport

/// A PythonRef server in its own process (`python3 -m pythonref serve …`), as it would run on a Pi.
/// Started on port 0; its "listening on HOST:PORT" line says where. `stop()` terminates it.
final class PythonServerProcess: @unchecked Sendable {
    let child: PythonRefProcess
    let port: UInt16

    init(_ context: SessionContext, arguments: [String]) throws {
        child = try context.startPythonRef(["serve"] + arguments + ["--host", "127.0.0.1", "--port", "0"])
        do { port = try child.announcedPort(prefix: "listening on ", within: max(context.options.timeout, 10)) } catch {
            throw PeerFailure(.internal, "pythonref serve did not start: \(error)")
        }
    }

    func stop() { child.stop() }
}

/// Something a run started that must be stopped when the run ends.
protocol RunningServer: AnyObject, Sendable {
    var port: UInt16 { get }
    func stop()
}

extension SessionMachineServer: RunningServer {}
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
