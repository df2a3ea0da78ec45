import Foundation
import XCTest

/// Every bad input a new user tried (issue 9) gets a clear message that echoes what was wrong and
/// says what to do, with a documented exit code — never a trap, never Swift's internals.
final class BadInputTests: XCTestCase {
    func expect(_ arguments: [String], status: Int32, saying fragments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let outcome = try CrosscheckBinary.run(arguments)
        XCTAssertEqual(outcome.status, status, "\(arguments): \(outcome.stderr)", file: file, line: line)
        for fragment in fragments {
            XCTAssertTrue(outcome.stderr.contains(fragment), "\(arguments): '\(fragment)' missing from: \(outcome.stderr)", file: file, line: line)
        }
        for leaked in ["Swift runtime failure", "Fatal error", "DecodingError", "CodingKeys", "Context(codingPath"] {
            XCTAssertFalse(outcome.stderr.contains(leaked), "\(arguments): \(outcome.stderr)", file: file, line: line)
        }
    }

    func testOptionValues_areEchoedWithWhatIsExpected() throws {
        let targets = try makeTemporaryDirectory().appendingPathComponent("fleet.txt")
        try "127.0.0.1:9876\n".write(to: targets, atomically: true, encoding: .utf8)
        try expect(["remote", "--targets", targets.path, "--shard", "1/0", "--profile", "rsa-socket"], status: 64,
                   saying: ["--shard takes K/N with 1 ≤ K ≤ N (e.g. 1/4), not '1/0'"])
        try expect(["remote", "--host", "127.0.0.1", "--port", "99999", "--profile", "rsa-socket"], status: 64,
                   saying: ["--port takes a port number from 1 to 65535, not '99999'"])
        try expect(["run", "--suite", ""], status: 64, saying: ["--suite needs a value"])
        try expect(["run", "--suite", "roundtrip,nosuch"], status: 64, saying: ["not 'roundtrip,nosuch'", "roundtrip, vectors"])
        try expect(["run", "--suite", ""], status: 64, saying: ["--suite needs a value: a comma-separated list of roundtrip, vectors"])
        try expect(["remote", "--host", "127.0.0.1", "--profile", "nosuch"], status: 64,
                   saying: ["--profile takes rsa-socket or aes-https, not 'nosuch'"])
        try expect(["run", "--python", "/usr/bin/perl"], status: 64, saying: ["--python /usr/bin/perl is not Python 3.11", "/usr/bin/python3"])
        try expect(["remote", "--host", "bad host", "--profile", "rsa-socket"], status: 64, saying: ["'bad host'", "not HOST:PORT"])
    }

    func testMissingInputFiles_exit66InEveryCommand() throws {
        try expect(["report", "/nonexistent/report.xml"], status: 66, saying: ["/nonexistent/report.xml"])
        try expect(["replay", "/nonexistent/reproducer.json"], status: 66, saying: ["/nonexistent/reproducer.json", "no such file"])
        try expect(["wycheproof", "--impl", "swift", "/nonexistent/aes_gcm_test.json"], status: 66, saying: ["/nonexistent/aes_gcm_test.json"])
        try expect(["remote", "--targets", "/nonexistent/fleet.txt", "--profile", "rsa-socket"], status: 66, saying: ["/nonexistent/fleet.txt"])
    }

    func testDamagedReproducer_saysWhichFieldInPlainWords() throws {
        let directory = try makeTemporaryDirectory()
        let damaged = directory.appendingPathComponent("damaged.json")
        try #"{"format":"crosscheck-fuzz-reproducer/1","kind":"disagreement","family":"no-such-family","seed":1,"ordinal":2}"#
            .write(to: damaged, atomically: true, encoding: .utf8)
        try expect(["replay", damaged.path], status: 66, saying: ["not a fuzz reproducer", "'family'", "written by 'crosscheck fuzz'"])
        let notJSON = directory.appendingPathComponent("notjson.json")
        try "garbage".write(to: notJSON, atomically: true, encoding: .utf8)
        try expect(["replay", notJSON.path], status: 66, saying: ["not a fuzz reproducer (not JSON)"])
    }

    func testWycheproofGlob_picksOnlyTestFiles() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: CrosscheckBinary.root.appendingPathComponent("Vectors/wycheproof").path)
            .filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertFalse(files.isEmpty)
        XCTAssertTrue(files.allSatisfy { $0.hasSuffix("_test.json") }, "schemas live in schemas/: \(files)")
        // The CLI takes several files and passes them: two small ones here. Every vendored file is run
        // by WycheproofSuiteTests (both implementations) and by `make test-junit`'s whole run; all of
        // them again in a debug binary costs a lane half a minute of CPU and shows nothing more.
        let small = ["hkdf_sha1_test.json", "rsa_oaep_2048_sha1_mgf1sha1_test.json"]
        XCTAssertEqual(small.filter(files.contains), small)
        let outcome = try CrosscheckBinary.run(["wycheproof", "--impl", "swift"] + small.map { "Vectors/wycheproof/\($0)" })
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("wycheproof.hkdf_sha1_test.swift") && outcome.stdout.contains("wycheproof.rsa_oaep_2048_sha1_mgf1sha1_test.swift"), outcome.stdout)
    }

    func testClosedPort_isOneErrorWithItsAdviceOnce() throws {
        let report = try makeTemporaryDirectory().appendingPathComponent("closed.xml")
        // Port 9 (discard) has no listener on a test machine: the connection is refused at once.
        let outcome = try CrosscheckBinary.run(["remote", "--host", "127.0.0.1", "--port", "9", "--profile", "rsa-socket", "--timeout", "2",
                                                "--quiet", "--junit", report.path])
        XCTAssertEqual(outcome.status, 1, outcome.stderr)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "remote.127.0.0.1:9"), [1, 0, 0, 1, 0], outcome.stdout)
        XCTAssertFalse(outcome.stdout.contains("audit."), "no audit findings for a server that never answered: \(outcome.stdout)")
        XCTAssertFalse(outcome.stdout.contains("stopped answering"), outcome.stdout)
        XCTAssertEqual(outcome.stdout.components(separatedBy: "is the server running").count - 1, 1, "advice once: \(outcome.stdout)")
    }

    func testPythonRefOutsideTheCheckout_stillFindsTheTLSCertificates() throws {
        let copy = try makeTemporaryDirectory().appendingPathComponent("PythonRef")
        try FileManager.default.copyItem(at: CrosscheckBinary.root.appendingPathComponent("PythonRef"), to: copy)
        let outcome = try CrosscheckBinary.run(["run", "--suite", "sessions", "--transport", "loopback", "--filter", "tls.refuses",
                                                "--pythonref", copy.path, "--quiet", "--junit", copy.deletingLastPathComponent().appendingPathComponent("r.xml").path])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("0 failed, 0 errors"), outcome.stdout)
        XCTAssertFalse(outcome.stdout.contains("cannot use"), outcome.stdout)
    }
}

/// `crosscheck serve`: the Swift reference server on a real socket, for clients crosscheck does
/// not drive (here: curl's form-encoded login, as seed 001's app sends it).
final class ServeCLITests: XCTestCase {
    let servers = TestServers()
    override func tearDown() { servers.stopAll() }

    func testServeAESHTTPS_acceptsTheSeedAppsFormLogin() throws {
        let port = try servers.start(CrosscheckBinary.url.path, ["serve", "aes-https", "--cert", "Vectors/tls/pinned.crt.pem", "--key",
                                                                 "Vectors/tls/pinned.key.pem", "--key-mode", "utf8-zeropad16",
                                                                 "--user", "testuser:testpassword"], in: CrosscheckBinary.root)
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-sS", "-i", "--max-time", "30", "--cacert", CrosscheckBinary.root.appendingPathComponent("Vectors/tls/pinned.crt.pem").path,
                          "--data", "password=testpassword&username=testuser", "https://localhost:\(port)/login"]
        let answer = Pipe()
        curl.standardOutput = answer
        try curl.run()
        let text = String(decoding: answer.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        curl.waitUntilExit()
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200"), text)
        XCTAssertTrue(text.lowercased().contains("content-type: application/json"), text)
        XCTAssertTrue(text.contains("\"encryptionKey\":\""), text)
    }
}
