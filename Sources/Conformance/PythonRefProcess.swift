import Foundation

/// `python3 -m pythonref COMMAND …` as a process of its own, as a server or client runs on a Pi:
/// the one way crosscheck starts PythonRef's command line (the sessions suite's `serve`, the
/// described suite's and the app checks' `described-server` and `described-client`). Its output is
/// read line by line on background threads from the start, so a chatty child never blocks on a
/// full pipe; every wait on a line has a deadline, so a child that never says it is ready cannot
/// hang the run; `stop()` terminates and reaps it (also on deinit).
public final class PythonRefProcess: @unchecked Sendable {
    public let process = Process()
    public let lines = LineCollector()
    /// The command line, for messages.
    public let commandLine: String
    private let exit = ExitFlag()

    /// Starts `python -m pythonref ARGUMENTS` in `pythonRef` (PYTHONPATH set to it, no bytecode written).
    public init(python: String, pythonRef: URL, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-m", "pythonref"] + arguments
        process.currentDirectoryURL = pythonRef
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = pythonRef.path
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        commandLine = ([python, "-m", "pythonref"] + arguments).joined(separator: " ")
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        lines.collect(out.fileHandleForReading, stream: .out)
        lines.collect(err.fileHandleForReading, stream: .err)
        process.terminationHandler = { [exit] _ in exit.set() }
        do { try process.run() } catch {
            throw PythonRefProcessError.notStarted(commandLine: commandLine, reason: "\(error)")
        }
    }

    deinit { stop() }

    /// The port a server announces on stdout with a line `PREFIX…PORT` (the last `:`- or
    /// space-separated field), within `seconds`; else the child is stopped and what it said thrown.
    public func announcedPort(prefix: String, within seconds: TimeInterval) throws -> UInt16 {
        let line = lines.first(where: { $0.stream == .out && $0.text.hasPrefix(prefix) }, deadline: Date().addingTimeInterval(seconds))
        let field = line?.text.split(whereSeparator: { $0 == ":" || $0 == " " }).last
        guard let field, let port = UInt16(field) else {
            stop()
            throw PythonRefProcessError.notReady(commandLine: commandLine, expected: prefix, seconds: seconds, said: lastLines())
        }
        return port
    }

    /// The last `count` lines it wrote, both streams in the order they were read.
    public func lastLines(_ count: Int = 20) -> String {
        lines.all.suffix(count).map(\.text).joined(separator: "\n")
    }

    /// Waits up to `seconds` for the child to exit by itself, and then briefly for the rest of its
    /// output; true when it has exited.
    public func waitForExit(within seconds: TimeInterval) -> Bool {
        guard exit.wait(until: Date().addingTimeInterval(seconds)) else { return false }
        lines.waitUntilEnded(deadline: Date().addingTimeInterval(2))
        return true
    }

    /// Terminates the child if it still runs (SIGTERM, then SIGKILL after `grace` seconds: PythonRef's
    /// servers handle SIGTERM, and one that hangs in it must not hang the run), and reaps it. Idempotent.
    public func stop(grace: TimeInterval = 5) {
        guard process.processIdentifier != 0 else { return }  // never started
        if process.isRunning {
            process.terminate()
            if !exit.wait(until: Date().addingTimeInterval(grace)) { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
    }
}

/// Set once the process has exited (by its termination handler); waiting on it has a deadline.
private final class ExitFlag: @unchecked Sendable {
    private let condition = NSCondition()
    private var exited = false

    func set() { condition.withLock { exited = true; condition.broadcast() } }

    /// True when it is set by `deadline`.
    func wait(until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !exited { if !condition.wait(until: deadline) { return exited } }
        return true
    }
}

/// What went wrong starting PythonRef's command line, and what to do.
public enum PythonRefProcessError: Error, CustomStringConvertible {
    case notStarted(commandLine: String, reason: String)
    case notReady(commandLine: String, expected: String, seconds: TimeInterval, said: String)

    public var description: String {
        switch self {
        case let .notStarted(commandLine, reason):
            return "could not start \(commandLine): \(reason) (run `make deps`, or give the interpreter with --python)"
        case let .notReady(commandLine, expected, seconds, said):
            return "\(commandLine) did not print its '\(expected)' line within \(Int(seconds.rounded(.up))) s (run `make deps`; "
                + "`python3 -m pythonref --help` shows whether PythonRef loads); it said:\n\(said.isEmpty ? "(nothing)" : said)"
        }
    }
}

/// Lines a process writes, collected on background threads; waiting for one has a deadline. A
/// long-lived chatty child keeps its first `kept` lines (a readiness line is among them) and its last.
public final class LineCollector: @unchecked Sendable {
    public enum Stream: Sendable { case out, err }
    public struct Line: Sendable { public let stream: Stream; public let text: String }
    private let condition = NSCondition()
    private var lines: [Line] = []
    private var open = 0
    private let kept = 2000

    public init() {}

    /// Reads `handle` to its end on a thread of its own, a line at a time.
    public func collect(_ handle: FileHandle, stream: Stream) {
        condition.withLock { open += 1 }
        Thread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending += chunk
                while let end = pending.firstIndex(of: 0x0a) {
                    let text = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
                    pending = Data(pending[(end + 1)...])
                    condition.withLock {
                        lines.append(Line(stream: stream, text: text))
                        if lines.count > 2 * kept { lines.removeSubrange(kept..<(lines.count - kept)) }
                        condition.broadcast()
                    }
                }
            }
            condition.withLock {
                if !pending.isEmpty { lines.append(Line(stream: stream, text: String(decoding: pending, as: UTF8.self))) }
                open -= 1
                condition.broadcast()
            }
        }.start()
    }

    public var all: [Line] { condition.withLock { lines } }

    /// Returns when every stream has ended, or at `deadline`.
    public func waitUntilEnded(deadline: Date) {
        condition.lock()
        defer { condition.unlock() }
        while open > 0 { if !condition.wait(until: deadline) { return } }
    }

    /// The first line that matches, waiting until `deadline` or until every stream has ended.
    public func first(where matches: (Line) -> Bool, deadline: Date) -> Line? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let found = lines.first(where: matches) { return found }
            if open == 0 || !condition.wait(until: deadline) { return lines.first(where: matches) }
        }
    }
}
