import Foundation
import XCTest

/// Server processes a CLI test starts on 127.0.0.1 (PythonRef's `serve`, the zoo's servers,
/// `crosscheck serve`, a test's own script on cli_test_server.py), each found ready by the first
/// line it prints, and stopped at tearDown.
final class TestServers {
    private var processes: [Process] = []
    static let plumbing = CrosscheckBinary.root.appendingPathComponent("Tests/CLITests")

    struct DidNotStart: Error, CustomStringConvertible {
        let output: String
        var description: String { "a test server did not print its port (the test fails, it is not skipped): \(output)" }
    }

    /// Runs `executable ARGUMENTS` in `directory` and returns the port at the end of its first
    /// line (`listening on HOST:PORT` or `LISTENING PORT`). One that prints none within 60 s is killed.
    /// `errorLog`: a file that gets what it writes to stderr (default: nowhere).
    func start(_ executable: String, _ arguments: [String], in directory: URL, errorLog: URL? = nil) throws -> UInt16 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        // A test's own Python server imports its plumbing from cli_test_server.py, beside this file.
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = ([Self.plumbing.path] + [environment["PYTHONPATH"]].compactMap { $0 }).joined(separator: ":")
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        if let errorLog {
            _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errorLog)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        processes.append(process)
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }  // ends the read below
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        defer { watchdog.cancel() }
        var text = ""
        while !text.contains("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = text.prefix { $0 != "\n" }
        guard let port = line.split(whereSeparator: { $0 == ":" || $0 == " " }).last.flatMap({ UInt16($0) }) else {
            throw DidNotStart(output: text)
        }
        return port
    }

    /// `python3 -m pythonref serve …` on a free port.
    func startPythonRef(_ arguments: [String]) throws -> UInt16 {
        try start("/usr/bin/python3", ["-m", "pythonref", "serve"] + arguments + ["--host", "127.0.0.1", "--port", "0", "--quiet"],
                  in: CrosscheckBinary.root.appendingPathComponent("PythonRef"))
    }

    /// `python3 -m pythonref described-server --protocol DESCRIPTION` on a free port (a relative
    /// DESCRIPTION is read from PythonRef/, the server's folder).
    func startDescribedPythonRef(_ description: String) throws -> UInt16 {
        try start("/usr/bin/python3", ["-m", "pythonref", "described-server", "--protocol", description, "--host", "127.0.0.1", "--port", "0", "--quiet"],
                  in: CrosscheckBinary.root.appendingPathComponent("PythonRef"))
    }

    func stopAll() {
        for process in processes where process.isRunning { process.terminate(); process.waitUntilExit() }
        processes = []
    }
}
