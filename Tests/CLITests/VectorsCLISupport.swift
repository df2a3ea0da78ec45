import Foundation
import XCTest

/// Runs the built `crosscheck` binary (beside this test executable) from the checkout's root.
struct CrosscheckBinary {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Outcome { let status: Int32; let stdout: String; let stderr: String }

    static var url: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent().appendingPathComponent("crosscheck")
    }

    /// `home`: the HOME crosscheck runs with (default: this process's).
    /// `directory`: where it runs (default: the checkout's root); `environment`: variables set (or, as "", removed) for it.
    static func run(_ arguments: [String], executable: URL = url, home: URL? = nil, directory: URL = root,
                    environment extra: [String: String] = [:]) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if home != nil || !extra.isEmpty {
            var environment = ProcessInfo.processInfo.environment
            if let home {
                environment["HOME"] = home.path
                environment["CFFIXED_USER_HOME"] = home.path
                environment["XDG_CONFIG_HOME"] = nil
            }
            for (name, value) in extra { environment[name] = value.isEmpty ? nil : value }
            process.environment = environment
        }
        process.currentDirectoryURL = directory
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Both pipes are drained before waiting, so a chatty child never blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        // Closed here, not whenever Foundation releases the Process: tests that count open
        // descriptors must not see these close later, during their own run.
        try? out.fileHandleForReading.close()
        try? err.fileHandleForReading.close()
        return Outcome(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                       stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Starts crosscheck, waits until its stderr shows `announcement` (printed once its signal
    /// handlers are installed), sends SIGINT, and returns the exit status.
    static func interruptAfter(_ announcement: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.currentDirectoryURL = root
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains(announcement) {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        process.interrupt()
        _ = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? err.fileHandleForReading.close()
        return process.terminationStatus
    }

    /// `xmllint --schema` of a report against the vendored Ant JUnit schema; its exit status.
    static func validate(_ report: URL) throws -> Int32 {
        let xmllint = Process()
        xmllint.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
        xmllint.arguments = ["--noout", "--schema", root.appendingPathComponent("Vectors/junit/JUnit.xsd").path, report.path]
        xmllint.standardError = FileHandle.nullDevice
        try xmllint.run()
        xmllint.waitUntilExit()
        return xmllint.terminationStatus
    }

    /// The summary table's row for `suite`: tests, passed, failed, errors, skipped.
    static func summaryRow(_ stdout: String, suite: String) -> [Int]? {
        for line in stdout.split(separator: "\n") {
            let cells = line.split(separator: " ", omittingEmptySubsequences: true)
            if cells.first.map(String.init) == suite, cells.count >= 6 { return cells[1...5].compactMap { Int($0) } }
        }
        return nil
    }
}

extension XCTestCase {
    func makeTemporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}
