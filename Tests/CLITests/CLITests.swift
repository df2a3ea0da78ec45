import Foundation
import XCTest

/// End-to-end: the built `crosscheck` binary, its exit codes, output and report files.
final class CLITests: XCTestCase {
    static let root = CrosscheckBinary.root
    var binary: URL { CrosscheckBinary.url }

    func crosscheck(_ arguments: [String]) throws -> CrosscheckBinary.Outcome { try CrosscheckBinary.run(arguments) }
    func temporaryDirectory() throws -> URL { try makeTemporaryDirectory() }
    func validate(_ report: URL) throws -> Int32 { try CrosscheckBinary.validate(report) }

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

    /// `make bench`'s binary takes its settings from the environment: --help says so at once, and an
    /// argument is refused (it once started the whole run of several minutes for either).
    func testBenchBinary_helpExitsZero_andAnArgumentIsRefused() throws {
        let bench = binary.deletingLastPathComponent().appendingPathComponent("crosscheck-bench")
        let help = try CrosscheckBinary.run(["--help"], executable: bench)
        XCTAssertEqual(help.status, 0, help.stderr)
        XCTAssertTrue(help.stdout.hasPrefix("usage: crosscheck-bench"), help.stdout)
        XCTAssertTrue(help.stdout.contains("BENCH_ONLY="), help.stdout)
        let refused = try CrosscheckBinary.run(["--seconds", "1"], executable: bench)
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.stderr.contains("takes no arguments, found '--seconds 1'"), refused.stderr)
        XCTAssertEqual(refused.stdout, "", "nothing was measured")
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
        let status = try CrosscheckBinary.interruptAfter("checks, suites", ["run", "--seed", "5", "--junit", report.path])
        XCTAssertEqual(status, 130)
        XCTAssertEqual(try validate(report), 0)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains("crosscheck.partial"), "the report says it is partial")
    }
}
