import Foundation
import AppUnderTest

/// The line channel to one host: its process (requests to its stdin, answers from its stdout, its
/// stderr into a log file) or, in tests, a thread running `AppHostServer.serve` over pipes. A
/// reader thread collects answers, so waiting for one always has a deadline.
public final class HostChannel: @unchecked Sendable {
    public enum Next: Equatable {
        case line(Data)
        case timedOut
        case ended
    }

    private let requests: FileHandle
    private let process: Process?
    /// Where the host's stderr goes (what app code prints, and crashes), for error messages.
    public let log: URL?
    private let condition = NSCondition()
    private var lines: [Data] = []
    private var ended = false
    private let exited = DispatchSemaphore(value: 0)

    private init(requests: FileHandle, answers: FileHandle, process: Process?, log: URL?) {
        self.requests = requests
        self.process = process
        self.log = log
        let thread = Thread { [self] in
            let reader = LineReader(answers)
            while let line = reader.next() {
                condition.lock(); lines.append(line); condition.broadcast(); condition.unlock()
            }
            condition.lock(); ended = true; condition.broadcast(); condition.unlock()
        }
        thread.name = "crosscheck app host reader"
        thread.start()
    }

    /// Starts `executable` (the built app) as a host; its stderr is appended to `log`.
    public static func launch(executable: URL, arguments: [String] = [], log: URL, environment: [String: String]? = nil) throws -> HostChannel {
        signal(SIGPIPE, SIG_IGN)  // a host that dies must not take crosscheck with it
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let toHost = Pipe(), fromHost = Pipe()
        process.standardInput = toHost
        process.standardOutput = fromHost
        if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        let logHandle = try FileHandle(forWritingTo: log)
        _ = try? logHandle.seekToEnd()
        process.standardError = logHandle
        let channel = HostChannel(requests: toHost.fileHandleForWriting, answers: fromHost.fileHandleForReading, process: process, log: log)
        process.terminationHandler = { [channel] _ in channel.exited.signal() }  // before run(): a quick exit must not be missed
        try process.run()
        try? toHost.fileHandleForReading.close()
        try? fromHost.fileHandleForWriting.close()
        try? logHandle.close()
        return channel
    }

    /// `app` served by `AppHostServer.serve` on a thread of this process, over pipes (for tests:
    /// the same protocol, no build).
    public static func inProcess(_ app: AppUnderTest) -> HostChannel {
        let toHost = Pipe(), fromHost = Pipe()
        let box = UncheckedApp(app)
        let server = Thread {
            AppHostServer.serve(box.app, input: toHost.fileHandleForReading, output: fromHost.fileHandleForWriting)
            try? fromHost.fileHandleForWriting.close()
        }
        server.name = "crosscheck in-process app host"
        server.start()
        return HostChannel(requests: toHost.fileHandleForWriting, answers: fromHost.fileHandleForReading, process: nil, log: nil)
    }

    func send(_ line: Data) throws { try requests.write(contentsOf: line) }

    /// The next line, or why there is none by `deadline`.
    func next(deadline: Date) -> Next {
        condition.lock(); defer { condition.unlock() }
        while lines.isEmpty && !ended {
            if !condition.wait(until: deadline) { return lines.isEmpty ? (ended ? .ended : .timedOut) : .line(lines.removeFirst()) }
        }
        return lines.isEmpty ? .ended : .line(lines.removeFirst())
    }

    /// Ends the host: its stdin closes, then SIGTERM, then SIGKILL if it is still there after 2 s.
    public func stop() {
        try? requests.close()
        guard let process, process.isRunning else { return }
        if exited.wait(timeout: .now() + 0.5) == .success { exited.signal(); return }
        process.terminate()
        if exited.wait(timeout: .now() + 2) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            _ = exited.wait(timeout: .now() + 2)
        }
        exited.signal()
    }

    /// How the host ended, once its exit is known (its pipe closes a moment before): waits for
    /// the exit up to `seconds`; nil if it still runs (or there is no process).
    func exitDescription(waitingUpTo seconds: TimeInterval) -> String? {
        guard process != nil else { return nil }
        if exited.wait(timeout: .now() + seconds) == .success { exited.signal() }
        return exitDescription
    }

    /// "exited with status 3", "was killed by signal 9", or nil while it runs (or without a process).
    var exitDescription: String? {
        guard let process, !process.isRunning else { return nil }
        switch process.terminationReason {
        case .exit: return "exited with status \(process.terminationStatus)"
        case .uncaughtSignal: return "was killed by signal \(process.terminationStatus)"
        @unknown default: return "ended"
        }
    }

    /// The last lines the host wrote to stderr (at most 1500 bytes), for error messages.
    public func logTail() -> String {
        guard let log, let data = FileManager.default.contents(atPath: log.path), !data.isEmpty else { return "" }
        return String(decoding: data.suffix(1500), as: UTF8.self)
    }
}

/// An app handed to the server thread (app code is used by that thread only).
private final class UncheckedApp: @unchecked Sendable {
    let app: AppUnderTest
    init(_ app: AppUnderTest) { self.app = app }
}
