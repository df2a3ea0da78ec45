import Foundation
import XCTest

/// End-to-end: the built `crosscheck` binary, its exit codes, output and report files.
final class CLITests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The binary beside this test executable (`swift build --build-tests` builds both).
    var binary: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent().appendingPathComponent("crosscheck")
    }

    struct Outcome { let status: Int32; let stdout: String; let stderr: String }

    func crosscheck(_ arguments: [String], environment: [String: String]? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = Self.root
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes to the end before waiting, so a chatty child can never block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                       stderr: String(decoding: errData, as: UTF8.self))
    }

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func validate(_ report: URL) throws -> Int32 {
        let xmllint = Process()
        xmllint.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
        xmllint.arguments = ["--noout", "--schema", Self.root.appendingPathComponent("Vectors/junit/JUnit.xsd").path, report.path]
        xmllint.standardError = FileHandle.nullDevice
        try xmllint.run()
        xmllint.waitUntilExit()
        return xmllint.terminationStatus
    }

    func testHelp_everywhereExitsZero() throws {
        let top = try crosscheck(["--help"])
        XCTAssertEqual(top.status, 0)
        XCTAssertTrue(top.stdout.contains("run "), top.stdout)
        for command in ["run", "suites"] {
            let help = try crosscheck([command, "--help"])
            XCTAssertEqual(help.status, 0, command)
            XCTAssertTrue(help.stdout.hasPrefix("USAGE: crosscheck \(command)"), help.stdout)
        }
    }

    func testUsageErrors_exit64WithAHint() throws {
        for arguments in [["frobnicate"], ["run", "--bogus"], ["run", "--seed", "abc"], ["run", "--suite", "nope"], [], ["run", "extra"]] {
            let outcome = try crosscheck(arguments)
            XCTAssertEqual(outcome.status, 64, "\(arguments): \(outcome.stderr)")
            XCTAssertFalse(outcome.stderr.isEmpty, "\(arguments)")
        }
    }

    func testMissingPythonRef_exits69AndSaysHowToFixIt() throws {
        let outcome = try crosscheck(["run", "--pythonref", "/nonexistent/PythonRef"])
        XCTAssertEqual(outcome.status, 69)
        XCTAssertTrue(outcome.stderr.contains("Fix:"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("/nonexistent/PythonRef"), outcome.stderr)
    }

    func testRun_writesASchemaValidReportWithTheSeed() throws {
        let report = try temporaryDirectory().appendingPathComponent("nested/junit.xml")
        let outcome = try crosscheck(["run", "--filter", "kdf.", "--seed", "3", "--junit", report.path])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("0 failed, 0 errors"), outcome.stdout)
        XCTAssertEqual(try validate(report), 0)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains("<property name=\"crosscheck.seed\" value=\"3\">"), xml)
        XCTAssertTrue(xml.contains("classname=\"crosscheck.aes-https.swift_to_python\""))
        XCTAssertEqual(xml.components(separatedBy: "<testcase ").count - 1, 22)
    }

    func testRun_unwritableReportPathExits73() throws {
        let directory = try temporaryDirectory()
        let blocker = directory.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let outcome = try crosscheck(["run", "--filter", "kdf.base64", "--quiet", "--junit", blocker.appendingPathComponent("junit.xml").path])
        XCTAssertEqual(outcome.status, 73, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains(blocker.path), outcome.stderr)
    }

    func testInterruptedRun_writesAValidPartialReport() throws {
        let report = try temporaryDirectory().appendingPathComponent("partial.xml")
        let process = Process()
        process.executableURL = binary
        process.arguments = ["run", "--seed", "5", "--junit", report.path]
        process.currentDirectoryURL = Self.root
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Wait for the run to announce itself (its signal handlers are installed by then).
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("checks, suites") {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        process.interrupt()
        _ = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertEqual(try validate(report), 0)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains("crosscheck.partial"), "the report says it is partial")
    }
}
