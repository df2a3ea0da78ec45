import Foundation
import XCTest

/// `crosscheck vectors generate|check`, end to end.
final class VectorsCLITests: XCTestCase {
    func testCheck_committedVectors_passWithAValidReport() throws {
        let report = try makeTemporaryDirectory().appendingPathComponent("vectors.xml")
        let outcome = try CrosscheckBinary.run(["vectors", "check", "--seed", "3", "--quiet", "--junit", report.path])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "vectors.openssl_to_python"), [86, 86, 0, 0, 0])
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "vectors.swift_to_openssl"), [24, 24, 0, 0, 0])
        XCTAssertTrue(outcome.stdout.contains("224 passed, 0 failed, 0 errors, 0 skipped"), outcome.stdout)
        XCTAssertEqual(try CrosscheckBinary.validate(report), 0)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains(#"<property name="vectors.openssl.recorded" value="OpenSSL 3."#), "the report names the OpenSSL that made them")
    }

    func testCheck_tamperedCopy_exits1NamingEachFileAndRepairsNothing() throws {
        let copy = try makeTemporaryDirectory().appendingPathComponent("openssl")
        try FileManager.default.copyItem(at: CrosscheckBinary.root.appendingPathComponent("Vectors/openssl"), to: copy)
        let edited = copy.appendingPathComponent("aes/aes128-cbc-login.bin")
        try Data("not what openssl wrote".utf8).write(to: edited)
        try Data("x".utf8).write(to: copy.appendingPathComponent("extra.txt"))
        let outcome = try CrosscheckBinary.run(["vectors", "check", "--dir", copy.path, "--impl", "swift", "--quiet"])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.stdout.contains("does not match its manifest: edited since generation: aes/aes128-cbc-login.bin; not in the manifest: extra.txt"),
                      outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("aes/aes128-cbc-login.bin was edited since generation"), outcome.stdout)
        XCTAssertEqual(try String(contentsOf: edited, encoding: .utf8), "not what openssl wrote")
        XCTAssertTrue(FileManager.default.fileExists(atPath: copy.appendingPathComponent("extra.txt").path))
    }

    func testGenerateTwice_AESFilesComeOutByteIdenticalAndTheResultChecks() throws {
        let root = try makeTemporaryDirectory()
        var aes: [[String: Data]] = []
        for name in ["first", "second"] {
            let directory = root.appendingPathComponent(name)
            let outcome = try CrosscheckBinary.run(["vectors", "generate", "--dir", directory.path, "--key-sizes", "1024,2048"])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            XCTAssertTrue(outcome.stdout.contains("18 AES-CBC ciphertexts (deterministic"), outcome.stdout)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("aes").path)
            aes.append(Dictionary(uniqueKeysWithValues: try files.map { ($0, try Data(contentsOf: directory.appendingPathComponent("aes/\($0)"))) }))
        }
        XCTAssertEqual(aes[0].count, 18)
        XCTAssertEqual(aes[0], aes[1])
        XCTAssertNotEqual(try Data(contentsOf: root.appendingPathComponent("first/rsa2048/private-pkcs8.pem")),
                          try Data(contentsOf: root.appendingPathComponent("second/rsa2048/private-pkcs8.pem")))
        let check = try CrosscheckBinary.run(["vectors", "check", "--dir", root.appendingPathComponent("second").path, "--quiet"])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
    }

    func testGenerate_withoutOpenSSL_exits69() throws {
        let outcome = try CrosscheckBinary.run(["vectors", "generate", "--dir", try makeTemporaryDirectory().path, "--openssl", "/nonexistent/openssl"])
        XCTAssertEqual(outcome.status, 69)
        XCTAssertTrue(outcome.stderr.contains("'/nonexistent/openssl' was not found"), outcome.stderr)
    }

    func testUsageErrors_exit64() throws {
        for arguments in [["vectors"], ["vectors", "regenerate"], ["vectors", "check", "--impl", "go"],
                          ["vectors", "generate", "--key-sizes", "512"], ["vectors", "generate", "extra"], ["vectors", "generate", "--seed", "3"]] {
            let outcome = try CrosscheckBinary.run(arguments)
            XCTAssertEqual(outcome.status, 64, "\(arguments): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains("crosscheck vectors --help"), outcome.stderr)
        }
        let missing = try CrosscheckBinary.run(["vectors", "--dir", "/nonexistent/vectors", "check", "--impl", "swift"])
        XCTAssertEqual(missing.status, 66, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("no vector folder at /nonexistent/vectors"), missing.stderr)
        let help = try CrosscheckBinary.run(["vectors", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.hasPrefix("USAGE: crosscheck vectors generate"), help.stdout)
    }

    func testRunWithoutSuite_includesVectorsAndWycheproof() throws {
        let suites = try CrosscheckBinary.run(["suites"])
        XCTAssertEqual(suites.status, 0)
        let names = suites.stdout.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" }
        XCTAssertTrue(names.contains("vectors") && names.contains("wycheproof"), suites.stdout)
        let run = try CrosscheckBinary.run(["run", "--quiet", "--seed", "2", "--filter", "rsa_oaep_2048_sha1", "--junit",
                                            try makeTemporaryDirectory().appendingPathComponent("r.xml").path])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertEqual(CrosscheckBinary.summaryRow(run.stdout, suite: "wycheproof.rsa_oaep_2048_sha1_mgf1sha1_test.python"), [37, 37, 0, 0, 0])
    }
}
