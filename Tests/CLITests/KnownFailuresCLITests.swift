import Foundation
import XCTest

/// The known-failures list kept honest end to end: listed seed-app bugs are skipped `known:` (exit
/// 0), a listed check that passes fails the run, a stale entry fails the run, and
/// --no-known-failures shows the bugs as the failures they are.
final class KnownFailuresCLITests: XCTestCase {
    func run(_ extra: [String]) throws -> CrosscheckBinary.Outcome {
        let report = try makeTemporaryDirectory().appendingPathComponent("r.xml")
        return try CrosscheckBinary.run(["run", "--suite", "sessions", "--transport", "inprocess", "--filter", "seed-app_client.swift_server",
                                         "--seed", "4", "--quiet", "--junit", report.path] + extra)
    }

    func list(_ entries: [(String, String)]) throws -> String {
        let file = try makeTemporaryDirectory().appendingPathComponent("known.json")
        let items = entries.map { #"{"pattern": "\#($0.0)", "reason": "\#($0.1)", "seed": "seed 000: a line"}"# }
        try #"{"known_failures": [\#(items.joined(separator: ","))]}"#.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    func testCheckedInList_turnsTheSeedAppsBugsIntoKnownSkips() throws {
        let outcome = try run([])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("KNOWN crosscheck.rsa-socket.seed-app_client.swift_server.inprocess.pi-to-phone.legacy.pkcs1.rsa2048"), outcome.stdout)
        let without = try run(["--no-known-failures"])
        XCTAssertEqual(without.status, 1)
        XCTAssertTrue(without.stdout.contains("seed-app_client.swift_server.inprocess.pi-to-phone.legacy.pkcs1.rsa2048: seed-app client: expected"), without.stdout)
        XCTAssertFalse(without.stdout.contains("KNOWN "), without.stdout)
    }

    func testAListedCheckThatPasses_failsTheRun() throws {
        let path = try list([("crosscheck.rsa-socket.seed-app_client.*_server.inprocess.pi-to-phone.legacy.pkcs1.rsa1024", "claimed broken")])
        let outcome = try run(["--known-failures", path])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.stdout.contains("known failure fixed"), outcome.stdout)
    }

    func testAStaleEntry_failsTheRun() throws {
        let path = try list([("crosscheck.rsa-socket.no-such-check", "nothing")])
        let outcome = try run(["--known-failures", path])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.stdout.contains("stale known-failures entry: 'crosscheck.rsa-socket.no-such-check'"), outcome.stdout)
    }

    func testAMalformedList_exits66() throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("bad.json")
        try #"{"known_failures": [{"pattern": "x"}]}"#.write(to: file, atomically: true, encoding: .utf8)
        let outcome = try run(["--known-failures", file.path])
        XCTAssertEqual(outcome.status, 66, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("exactly non-empty \"pattern\", \"reason\" and \"seed\""), outcome.stderr)
    }
}
