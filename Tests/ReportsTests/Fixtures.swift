import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
import Reports

/// Shared sample data and helpers for the Reports tests.
enum Fixtures {
    /// 2026-11-30T06:10:00Z
    static let timestamp = Date(timeIntervalSince1970: 1_796_019_000)

    /// 3 passed, 1 failed, 1 error, 1 skipped; suite and case properties; output on both streams.
    static func roundtripSuite() -> JUnitSuite {
        JUnitSuite(
            name: "roundtrip.swift_to_python",
            package: "crosscheck.roundtrip",
            timestamp: timestamp,
            hostname: "ci-runner-7",
            properties: [
                JUnitProperty(name: "python.version", value: "3.11.2"),
                JUnitProperty(name: "openssl.version", value: "OpenSSL 3.0.11 19 Sep 2023"),
                JUnitProperty(name: "seed", value: "42"),
            ],
            cases: [
                JUnitCase(name: "aes_gcm_256", classname: "crosscheck.aead.swift_to_python", time: 0.125),
                JUnitCase(name: "chacha20_poly1305", classname: "crosscheck.aead.swift_to_python", time: 0.004,
                          properties: [JUnitProperty(name: "vector", value: "rfc8439-2.8.2")]),
                JUnitCase(name: "sha256 <empty> & \"quoted\"", classname: "crosscheck.digest.swift_to_python", time: 0),
                JUnitCase(name: "rsa_pss_sign", classname: "crosscheck.rsa.swift_to_python", time: 1.5,
                          outcome: .failed(message: "signature does not verify on the Python side",
                                           type: "SignatureMismatch",
                                           details: "expected: 3f a1 09\nactual:   3f a1 0a\n  at rsa_pss_sign\n"),
                          properties: [JUnitProperty(name: "key_bits", value: "2048"),
                                       JUnitProperty(name: "salt", value: "")]),
                JUnitCase(name: "rsa_oaep_decrypt", classname: "crosscheck.rsa.swift_to_python", time: 30.0,
                          outcome: .error(message: "python server timed out after 30 s", type: "Timeout",
                                          details: "")),
                JUnitCase(name: "ed448", classname: "crosscheck.eddsa.swift_to_python", time: 0,
                          outcome: .skipped(message: "OpenSSL build has no Ed448"),
                          properties: [JUnitProperty(name: "reason", value: "provider missing")]),
            ],
            systemOut: "started python server on port 50123\n  <ready>\n",
            systemErr: "warning: slow host & busy CPU\n")
    }

    static func emptySuite() -> JUnitSuite {
        JUnitSuite(name: "bench.smoke", package: "crosscheck.bench",
                   timestamp: timestamp.addingTimeInterval(3600), hostname: "ci-runner-7")
    }

    static func report() -> JUnitReport {
        JUnitReport(suites: [roundtripSuite(), emptySuite()])
    }

    /// The package root, found from this file's location (Tests/ReportsTests/Fixtures.swift).
    static func packageRoot(file: StaticString = #filePath) -> URL {
        URL(fileURLWithPath: "\(file)")
            .deletingLastPathComponent()  // ReportsTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
    }

    static var schema: URL {
        packageRoot().appendingPathComponent("Vectors/junit/JUnit.xsd")
    }

    static let xmllint = "/usr/bin/xmllint"

    /// Runs `xmllint --noout --schema Vectors/junit/JUnit.xsd file`; returns its exit status and
    /// what it printed.
    static func validate(_ file: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: xmllint)
        process.arguments = ["--noout", "--schema", schema.path, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// Writes `data` to a file in `directory` and validates it.
    static func validate(_ data: Data, in directory: URL, name: String = "report.xml") throws -> (status: Int32, output: String) {
        let file = directory.appendingPathComponent(name)
        try data.write(to: file)
        return try validate(file)
    }
}

/// Base class giving each test a fresh temporary directory, removed afterwards.
class TemporaryDirectoryTestCase: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ReportsTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let directory {
            // Restore permissions a test may have removed, so the directory can be deleted.
            _ = try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            try? FileManager.default.removeItem(at: directory)
        }
        try super.tearDownWithError()
    }

    func requireXmllint(file: StaticString = #filePath, line: UInt = #line) throws {
        guard FileManager.default.isExecutableFile(atPath: Fixtures.xmllint) else {
            XCTFail("\(Fixtures.xmllint) is missing: install libxml2-utils to validate reports", file: file, line: line)
            throw XCTSkip("xmllint missing")
        }
        guard FileManager.default.fileExists(atPath: Fixtures.schema.path) else {
            XCTFail("schema missing at \(Fixtures.schema.path)", file: file, line: line)
            throw XCTSkip("schema missing")
        }
    }

    func contents(of directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }
}
