import Foundation
import XCTest
import Reports

final class SummaryTests: XCTestCase {

    func testTotalsLineAndSuiteRows() {
        let text = Summary.text(Fixtures.report())
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(lines.contains("3 passed, 1 failed, 1 errors, 1 skipped"), text)

        let header = lines[0].split(separator: " ").map(String.init)
        XCTAssertEqual(header, ["suite", "tests", "passed", "failed", "errors", "skipped", "time"])
        let row = lines.first { $0.hasPrefix("roundtrip.swift_to_python ") }
        XCTAssertEqual(row?.split(separator: " ").map(String.init),
                       ["roundtrip.swift_to_python", "6", "3", "1", "1", "1", "31.629s"])
        let empty = lines.first { $0.hasPrefix("bench.smoke ") }
        XCTAssertEqual(empty?.split(separator: " ").map(String.init), ["bench.smoke", "0", "0", "0", "0", "0", "0.000s"])
        let total = lines.first { $0.hasPrefix("total ") }
        XCTAssertEqual(total?.split(separator: " ").map(String.init), ["total", "6", "3", "1", "1", "1", "31.629s"])
        // Columns line up: every table row has the same length.
        XCTAssertEqual(Set(lines.prefix(4).map(\.count)).count, 1, text)
    }

    func testFailuresAreListedWithMessages() {
        let text = Summary.text(Fixtures.report())
        XCTAssertTrue(text.contains(
            "FAILED crosscheck.rsa.swift_to_python.rsa_pss_sign: signature does not verify on the Python side"), text)
        XCTAssertTrue(text.contains(
            "ERROR  crosscheck.rsa.swift_to_python.rsa_oaep_decrypt: python server timed out after 30 s"), text)
        XCTAssertFalse(text.contains("ed448"), "skipped cases are not listed as failures")
        XCTAssertFalse(text.contains("at rsa_pss_sign"), "only the message's first line is shown")
    }

    func testFailureListIsLimited() {
        let cases = (0..<15).map { index in
            JUnitCase(name: "case\(index)", classname: "k", time: 0.1,
                      outcome: .failed(message: "message \(index)\nsecond line", type: "T", details: ""))
        }
        let report = JUnitReport(suites: [JUnitSuite(name: "many", package: "p", timestamp: Fixtures.timestamp,
                                                     hostname: "h", cases: cases)])
        let text = Summary.text(report, failuresToShow: 3)
        XCTAssertTrue(text.contains("0 passed, 15 failed, 0 errors, 0 skipped"), text)
        XCTAssertTrue(text.contains("k.case2: message 2"), text)
        XCTAssertFalse(text.contains("k.case3:"), text)
        XCTAssertTrue(text.contains("... and 12 more"), text)
        XCTAssertFalse(text.contains("second line"), text)
        XCTAssertFalse(text.contains("total "), "one suite needs no total row")

        XCTAssertEqual(Summary.text(report).components(separatedBy: "  FAILED ").count - 1, 10, "default shows 10")
        XCTAssertFalse(Summary.text(report, failuresToShow: 0).contains("FAILED"))
    }

    func testMessagesCannotDriveTheTerminal() {
        let report = JUnitReport(suites: [JUnitSuite(
            name: "s\u{1B}[2J", package: "p", timestamp: Fixtures.timestamp, hostname: "h",
            cases: [JUnitCase(name: "c", classname: "k",
                              outcome: .error(message: "\u{1B}[31mred\u{7}", type: "T", details: "")),
                    JUnitCase(name: "quiet", classname: "k",
                              outcome: .failed(message: "", type: "", details: "\n\nfrom details\nmore"))])])
        let text = Summary.text(report)
        XCTAssertFalse(text.unicodeScalars.contains("\u{1B}"))
        XCTAssertFalse(text.unicodeScalars.contains("\u{7}"))
        XCTAssertTrue(text.contains("k.c: \\x1B[31mred\\x07"), text)
        XCTAssertTrue(text.contains("k.quiet: from details"), text)
        XCTAssertTrue(text.contains("0 passed, 1 failed, 1 errors, 0 skipped"), text)
    }

    func testEmptyReport() {
        let text = Summary.text(JUnitReport(suites: []))
        XCTAssertTrue(text.contains("0 passed, 0 failed, 0 errors, 0 skipped"), text)
    }
}
