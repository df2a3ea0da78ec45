import Foundation
import XCTest

/// `crosscheck report --markdown`, end to end on real reports of `crosscheck run`: the summary a CI
/// job page shows, with and without a baseline, and on a partial report.
final class ReportMarkdownCLITests: XCTestCase {
    static let plantedName = "crosscheck.aes-https.swift\\_to\\_python.kdf.base64-raw.aes128.envelope"

    func testFailingTestcaseIsNamedWithItsMessageAndByteDiff_exitsOne() throws {
        let directory = try makeTemporaryDirectory()
        let planted = directory.appendingPathComponent("planted.xml")
        try ReportCLITests.plantRegression(try ReportCLITests.realReport(in: directory), into: planted)
        let summary = directory.appendingPathComponent("out/summary.md")
        let outcome = try CrosscheckBinary.run(["report", "--markdown", summary.path, planted.path])
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.hasPrefix("Markdown summary: \(summary.path) ("), outcome.stdout)
        let text = try String(contentsOf: summary, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("## crosscheck: 1 of 22 checks failed\n"), text)
        XCTAssertTrue(text.contains("| 22 | 21 | 1 | 0 | 0 | 0 | "), text)
        XCTAssertTrue(text.contains("\n- **FAIL** \(Self.plantedName) — swift and python AES-CBC ciphertext: 1 of 32 bytes differ, the first at offset 31\\\n"
            + "  suite roundtrip.swift\\_to\\_python · type mismatch · 0.001 s\n\n"
            + "  byte diff: 1 of 32 bytes differ (first at offset 31, last at offset 31); expected 32 bytes, actual 32 bytes\n"), text)
        XCTAssertTrue(text.contains("  expected @31  1f\n  actual   @31  20\n                ^^\n  ```\n"), text)
        XCTAssertTrue(text.contains("| **aes-https** | ❌ 1 fail, 5 pass | ✅ 6 |"), text)
    }

    func testWithDiff_listsTheRegression_andExitsAsTheDiffDoes() throws {
        let directory = try makeTemporaryDirectory()
        let old = try ReportCLITests.realReport(in: directory, name: "main.xml")
        let new = directory.appendingPathComponent("new.xml")
        try ReportCLITests.plantRegression(try ReportCLITests.realReport(in: directory, name: "rerun.xml", run: 2), into: new)
        let summary = directory.appendingPathComponent("summary.md")

        let regressed = try CrosscheckBinary.run(["report", "--diff", old.path, "--markdown", summary.path, new.path])
        XCTAssertEqual(regressed.status, 1, regressed.stdout + regressed.stderr)
        XCTAssertTrue(regressed.stdout.hasSuffix("\n1 regression\n"), regressed.stdout)
        let text = try String(contentsOf: summary, encoding: .utf8)
        XCTAssertTrue(text.contains("From \(new.path).\n"), text)
        XCTAssertTrue(text.contains("### Regressions since \(old.path): 1\n"), text)
        XCTAssertTrue(text.contains("| **FAIL** | \(Self.plantedName) | roundtrip.swift\\_to\\_python | PASS | "
            + "swift and python AES-CBC ciphertext: 1 of 32 bytes differ, the first at offset 31 |"), text)

        // The same failure in the baseline: still failing, no regression, exit 0.
        let steady = try CrosscheckBinary.run(["report", "--diff", new.path, "--markdown", summary.path, new.path])
        XCTAssertEqual(steady.status, 0, steady.stdout + steady.stderr)
        let again = try String(contentsOf: summary, encoding: .utf8)
        XCTAssertTrue(again.contains("### Regressions since \(new.path): none\n"), again)
        XCTAssertTrue(again.contains("still failing: 1"), again)
        XCTAssertTrue(again.contains("\n- **FAIL** \(Self.plantedName) — "), "the failure is still listed: \(again)")
    }

    func testPartialReport_isMarkedPartial_andStillExits65() throws {
        let directory = try makeTemporaryDirectory()
        let partial = directory.appendingPathComponent("partial.xml")
        var xml = try String(contentsOf: try ReportCLITests.realReport(in: directory), encoding: .utf8)
        xml = xml.replacingOccurrences(of: "<properties>\n", with: "<properties>\n<property name=\"crosscheck.partial\" value=\"interrupted after 22 of 4001 checks\"/>\n")
        try Data(xml.utf8).write(to: partial)
        let summary = directory.appendingPathComponent("summary.md")
        let outcome = try CrosscheckBinary.run(["report", "--markdown", summary.path, partial.path])
        XCTAssertEqual(outcome.status, 65, outcome.stdout + outcome.stderr)
        let text = try String(contentsOf: summary, encoding: .utf8)
        XCTAssertTrue(text.contains("\n> **Partial report**: interrupted after 22 of 4001 checks. Checks after the interruption did not run"), text)
    }

    func testUnwritableOut_exits73_andMarkdownDoesNotCombineWithMergeOnlyDiff() throws {
        let directory = try makeTemporaryDirectory()
        let report = try ReportCLITests.realReport(in: directory)
        let blocked = directory.appendingPathComponent("file")
        try Data().write(to: blocked)
        let outcome = try CrosscheckBinary.run(["report", "--markdown", blocked.appendingPathComponent("summary.md").path, report.path])
        XCTAssertEqual(outcome.status, 73, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("is not a directory"), outcome.stderr)
        let usage = try CrosscheckBinary.run(["report", "--diff", report.path, "--html", "x.html", "--markdown", "x.md", report.path])
        XCTAssertEqual(usage.status, 64, usage.stderr)
        let help = try CrosscheckBinary.run(["report", "--help"])
        XCTAssertTrue(help.stdout.contains("--markdown OUT"), help.stdout)
    }
}
