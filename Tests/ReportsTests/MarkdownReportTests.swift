import Foundation
import XCTest
import TestSupport
import Reports

/// `MarkdownReport`: what a CI job summary says, that report text cannot become markup, and the cap.
final class MarkdownReportTests: TemporaryDirectoryTestCase {
    static let diffBody = PlantedFailure.byteDiffBody

    func suite(_ name: String, _ cases: [JUnitCase], properties: [JUnitProperty] = []) -> JUnitSuite {
        JUnitSuite(name: name, package: "crosscheck", timestamp: Fixtures.timestamp, hostname: "ci", properties: properties, cases: cases)
    }

    func testFailureIsNamedWithItsMessageAndByteDiff() {
        let report = JUnitReport(suites: [suite("roundtrip.swift_to_python", [
            JUnitCase(name: "cbc128.envelope", classname: "crosscheck.aes-https.swift_to_python"),
            JUnitCase(name: "cbc256.envelope", classname: "crosscheck.aes-https.swift_to_python", time: 0.002,
                      outcome: .failed(message: "swift and python ciphertext differ at offset 31\nsecond line", type: "mismatch", details: Self.diffBody)),
        ])])
        let text = MarkdownReport.render(report, sources: ["reports/junit.xml"])
        XCTAssertTrue(text.hasPrefix("## crosscheck: 1 of 2 checks failed\n"), text)
        XCTAssertTrue(text.contains("| 2 | 1 | 1 | 0 | 0 | 0 | 0.002 s |"), text)
        XCTAssertTrue(text.contains("### Failures and errors (1)\n\n- **FAIL** crosscheck.aes-https.swift\\_to\\_python.cbc256.envelope — "
            + "swift and python ciphertext differ at offset 31\\\n  suite roundtrip.swift\\_to\\_python · type mismatch · 0.002 s\n"), text)
        XCTAssertFalse(text.contains("second line"), "a message is cut to its first line")
        XCTAssertTrue(text.contains("""
              byte diff: 1 of 32 bytes differ (first at offset 31, last at offset 31); expected 32 bytes, actual 32 bytes

              ```text
              expected @15  0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e
              actual   @15  0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e
              expected @31  1f
              actual   @31  20
                            ^^
              ```
            """), text)
        // The coverage matrix: the failing cell and the row total.
        XCTAssertTrue(text.contains("| **aes-https** | ❌ 1 fail, 1 pass | — | — | — | — | ❌ 1 fail, 1 pass |"), text)
    }

    func testPassingReport_saysSo_andListsNoFailures() {
        let report = JUnitReport(suites: [suite("vectors.openssl_to_swift", [
            JUnitCase(name: "a", classname: "crosscheck.openssl-cli.openssl_to_swift"),
            JUnitCase(name: "b", classname: "crosscheck.openssl-cli.openssl_to_swift", outcome: .skipped(message: "known: issue 9")),
        ])])
        let text = MarkdownReport.render(report, sources: ["a.xml"])
        XCTAssertTrue(text.hasPrefix("## crosscheck: all 2 checks passed (1 skipped)\n"), text)
        XCTAssertFalse(text.contains("Failures and errors"), text)
        XCTAssertTrue(text.contains("| **openssl-cli** | — | — | ✅ 1 pass, 1 known |"), text)
    }

    func testPartialAndEmptyReportsAreMarked() {
        let partial = JUnitReport(suites: [suite("fuzz.swift_vs_python", [JUnitCase(name: "a", classname: "crosscheck.sealed.swift_vs_python")],
                                                 properties: [JUnitProperty(name: JUnitReport.partialProperty, value: "interrupted after 1 of 9 checks")])])
        let text = MarkdownReport.render(partial, sources: ["p.xml"])
        XCTAssertTrue(text.contains("\n> **Partial report**: interrupted after 1 of 9 checks. Checks after the interruption did not run; missing checks are not passes.\n"), text)
        let empty = MarkdownReport.render(JUnitReport(suites: []), sources: ["e.xml"])
        XCTAssertTrue(empty.hasPrefix("## crosscheck: no testcases\n"), empty)
        XCTAssertTrue(empty.contains("> **No testcases**: nothing was checked"), empty)
        XCTAssertFalse(empty.contains("Coverage"), "no matrix without testcases")
    }

    /// Pipes, backticks, HTML, mentions, emphasis, link brackets and control characters from a
    /// hostile message stay text: one table row stays one row, no tag or code span opens.
    func testReportTextNeverBecomesMarkup() {
        let hostile = "a|b `code` <script>alert(1)</script> @everyone **bold** [x](http://e) ~~s~~ $x$ #12 \u{1B}[31m\\"
        let escaped = MarkdownReport.inline(hostile)
        XCTAssertEqual(escaped, "a\\|b \\`code\\` &lt;script&gt;alert(1)&lt;/script&gt; @\u{200B}everyone \\*\\*bold\\*\\* \\[x\\](http://e) "
            + "\\~\\~s\\~\\~ \\$x\\$ \\#12 \\\\x1B\\[31m\\\\")
        XCTAssertEqual(MarkdownReport.inline("line one\nline two"), "line one\\\\x0Aline two")

        let old = JUnitReport(suites: [suite("s", [JUnitCase(name: "n|1", classname: "crosscheck.keys.swift_to_python")])])
        let new = JUnitReport(suites: [suite("s", [JUnitCase(name: "n|1", classname: "crosscheck.keys.swift_to_python",
                                                             outcome: .error(message: hostile, type: "<b>", details: ""))])])
        let text = MarkdownReport.render(new, sources: ["new.xml"], baseline: .init(name: "main|old.xml", report: old))
        XCTAssertFalse(text.contains("<script>"), text)
        XCTAssertFalse(text.contains("<b>"), text)
        XCTAssertFalse(text.contains("@everyone"), text)
        let row = text.split(separator: "\n").first { $0.hasPrefix("| **ERROR** ") }.map(String.init) ?? ""
        // Five cells: the unescaped pipes are exactly the six borders.
        XCTAssertEqual(row.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count, 6, row)
        XCTAssertTrue(text.contains("### Regressions since main\\|old.xml: 1\n"), text)
    }

    func testBaseline_listsRegressionsOnly_andCountsOtherChanges() {
        let old = JUnitReport(suites: [suite("s", [
            JUnitCase(name: "a", classname: "crosscheck.keys.swift_to_python"),
            JUnitCase(name: "b", classname: "crosscheck.keys.swift_to_python", outcome: .failed(message: "old bug", type: "t", details: "")),
            JUnitCase(name: "c", classname: "crosscheck.keys.swift_to_python", outcome: .failed(message: "still", type: "t", details: "")),
        ])])
        let new = JUnitReport(suites: [suite("s", [
            JUnitCase(name: "a", classname: "crosscheck.keys.swift_to_python", outcome: .failed(message: "new bug", type: "t", details: "")),
            JUnitCase(name: "b", classname: "crosscheck.keys.swift_to_python"),
            JUnitCase(name: "c", classname: "crosscheck.keys.swift_to_python", outcome: .failed(message: "still", type: "t", details: "")),
            JUnitCase(name: "d", classname: "crosscheck.keys.swift_to_python"),
        ])])
        let text = MarkdownReport.render(new, sources: ["new.xml"], baseline: .init(name: "main.xml", report: old))
        XCTAssertTrue(text.contains("""
            ### Regressions since main.xml: 1

            | | testcase | suite | before | message |
            |---|---|---|---|---|
            | **FAIL** | crosscheck.keys.swift\\_to\\_python.a | s | PASS | new bug |

            fixed: 1 · newly skipped: 0 · no longer skipped: 0 · new checks: 1 · removed checks: 0 · still failing: 1
            """), text)
        let none = MarkdownReport.render(old, sources: ["old.xml"], baseline: .init(name: "old.xml", report: old))
        XCTAssertTrue(none.contains("### Regressions since old.xml: none\n"), none)
    }

    /// Thousands of failures stay under the cap, and the summary says how many were left out.
    func testSizeIsCapped_andWhatDidNotFitIsCounted() {
        let cases = (0..<5000).map { index in
            JUnitCase(name: "case\(index)", classname: "crosscheck.sealed.python_to_swift",
                      outcome: .failed(message: String(repeating: "x", count: 250), type: "t", details: Self.diffBody))
        }
        let report = JUnitReport(suites: [suite("roundtrip.python_to_swift", cases)])
        let limit = 200_000
        let text = MarkdownReport.render(report, sources: ["big.xml"], byteLimit: limit)
        XCTAssertLessThanOrEqual(text.utf8.count, limit)
        let shown = text.components(separatedBy: "\n- **FAIL** ").count - 1
        XCTAssertGreaterThan(shown, 100)
        XCTAssertLessThan(shown, 5000)
        XCTAssertTrue(text.hasSuffix("\n_… and \(5000 - shown) more failures and errors, left out to keep this summary under 195 KiB: "
            + "see the HTML report or the JUnit file._\n"), String(text.suffix(300)))
        XCTAssertLessThanOrEqual(MarkdownReport.render(report, sources: ["big.xml"]).utf8.count, MarkdownReport.defaultByteLimit)
    }

    func testWriteIsAtomicAndReportsAnUnwritablePath() throws {
        let target = directory.appendingPathComponent("summary.md")
        try MarkdownReport.write(Fixtures.report(), sources: ["x.xml"], to: target)
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), MarkdownReport.render(Fixtures.report(), sources: ["x.xml"]))
        XCTAssertThrowsError(try MarkdownReport.write(Fixtures.report(), sources: ["x.xml"], to: directory)) { error in
            guard case ReportError.cannotWrite = error else { return XCTFail("\(error)") }
        }
    }
}
