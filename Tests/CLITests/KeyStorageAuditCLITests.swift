import Foundation
import XCTest

/// `crosscheck run`'s audit suite end to end: the seed apps in containers of their own (their
/// writes under reports/app-containers/, none in the harness's home), seed 004's key in
/// UserDefaults reported as seed 003's finding, seed 003's permanent RSA key's accessibility, and --strict failing the run.
final class KeyStorageAuditCLITests: XCTestCase {
    func testSeed004_keyInUserDefaultsIsAFinding_strictExits1() throws {
        let home = try makeTemporaryDirectory().appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let report = try makeTemporaryDirectory().appendingPathComponent("audit.xml")
        let outcome = try CrosscheckBinary.run(["run", "--app", "seed-004", "--suite", "audit", "--quiet", "--junit", report.path], home: home)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "audit.seed-004"), [5, 4, 0, 0, 1], outcome.stdout)
        let xml = try String(contentsOf: report, encoding: .utf8)
        XCTAssertTrue(xml.contains(#"<testcase name="seed-004.key-storage.user-defaults" classname="crosscheck.audit.key-storage""#), xml)
        XCTAssertTrue(xml.contains("weakness: UserDefaults key &quot;encryptionKey&quot; (Library/Preferences/crosscheck.plist) holds the app&apos;s file-sealing key")
                      || xml.contains("weakness: UserDefaults key &quot;encryptionKey&quot; (Library/Preferences/crosscheck.plist) holds the app's file-sealing key"), xml)
        XCTAssertTrue(xml.contains("use of file-based key storage"), xml)
        // The seed's defaults went to its container, not to the harness's home.
        // (reports/app-containers/seed-004, or seed-004-N while another run holds that one.)
        let containers = CrosscheckBinary.root.appendingPathComponent("reports/app-containers")
        let seed004 = try FileManager.default.contentsOfDirectory(atPath: containers.path).filter { $0 == "seed-004" || $0.hasPrefix("seed-004-") }
        XCTAssertTrue(seed004.contains { FileManager.default.fileExists(atPath: containers.appendingPathComponent("\($0)/home/Library/Preferences/crosscheck.plist").path) },
                      "\(seed004)")
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: home.path), [], "the harness's home stays clean")

        let strict = try CrosscheckBinary.run(["run", "--app", "seed-004", "--suite", "audit", "--strict", "--quiet", "--junit", report.path], home: home)
        XCTAssertEqual(strict.status, 1, strict.stdout + strict.stderr)
        XCTAssertEqual(CrosscheckBinary.summaryRow(strict.stdout, suite: "audit.seed-004"), [5, 4, 1, 0, 0], strict.stdout)
        XCTAssertTrue(strict.stdout.contains("FAIL  crosscheck.audit.key-storage.seed-004.key-storage.user-defaults: weakness (--strict): UserDefaults key \"encryptionKey\""),
                      strict.stdout)
    }

    /// Seed 003's key store is clean; its RSA snippet's permanent private key has the default
    /// accessibility (WhenUnlocked, which migrates): one finding, which --strict fails (issue 36:
    /// one rule however a key was added).
    func testSeed003_onlyItsPermanentRSAKeysAccessibilityIsFlagged() throws {
        let outcome = try CrosscheckBinary.run(["run", "--app", "seed-003", "--suite", "audit", "--quiet"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertEqual(CrosscheckBinary.summaryRow(outcome.stdout, suite: "audit.seed-003"), [5, 4, 0, 0, 1], outcome.stdout)
        let strict = try CrosscheckBinary.run(["run", "--app", "seed-003", "--suite", "audit", "--strict", "--quiet"])
        XCTAssertEqual(strict.status, 1, strict.stdout + strict.stderr)
        XCTAssertTrue(strict.stdout.contains("seed-003.key-storage.keychain-accessibility: weakness (--strict): "), strict.stdout)
    }
}
