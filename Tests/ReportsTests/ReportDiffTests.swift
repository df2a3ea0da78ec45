import Foundation
import XCTest
import Reports

final class ReportDiffTests: XCTestCase {
    static func suite(_ name: String, _ cases: [JUnitCase]) -> JUnitSuite {
        JUnitSuite(name: name, package: "crosscheck", timestamp: Fixtures.timestamp, hostname: "h", cases: cases)
    }
    static func pass(_ name: String, _ classname: String = "crosscheck.rsa-socket.swift_to_python") -> JUnitCase {
        JUnitCase(name: name, classname: classname)
    }
    static func fail(_ name: String, _ message: String = "mismatch") -> JUnitCase {
        JUnitCase(name: name, classname: "crosscheck.rsa-socket.swift_to_python", outcome: .failed(message: message, type: "mismatch", details: ""))
    }
    static func skip(_ name: String, _ message: String = "unsupported") -> JUnitCase {
        JUnitCase(name: name, classname: "crosscheck.rsa-socket.swift_to_python", outcome: .skipped(message: message))
    }

    func testEveryKindOfChangeIsSortedIntoItsList() {
        let old = JUnitReport(suites: [Self.suite("roundtrip.swift_to_python", [
            Self.pass("stays"), Self.pass("regresses"), Self.fail("gets-fixed"), Self.pass("gets-skipped"),
            Self.skip("gets-unskipped"), Self.fail("still-broken"), Self.pass("removed"), Self.skip("known-then-failing", "known: issue 9"),
        ])])
        let new = JUnitReport(suites: [Self.suite("roundtrip.swift_to_python", [
            Self.pass("stays"), Self.fail("regresses", "python failed to decrypt swift's ciphertext: DecryptFailed"), Self.pass("gets-fixed"),
            Self.skip("gets-skipped"), Self.pass("gets-unskipped"), Self.fail("still-broken"), Self.fail("added-failing"), Self.pass("added"),
            JUnitCase(name: "known-then-failing", classname: "crosscheck.rsa-socket.swift_to_python",
                      outcome: .error(message: "timeout", type: "error", details: "")),
        ])])
        let diff = ReportDiff(old: old, new: new)
        XCTAssertEqual(diff.regressions.map(\.key.name), ["regresses", "added-failing", "known-then-failing"])
        XCTAssertEqual(diff.regressions.map(\.old), [.pass, nil, .known])
        XCTAssertEqual(diff.fixed.map(\.key.name), ["gets-fixed"])
        XCTAssertEqual(diff.newlySkipped.map(\.key.name), ["gets-skipped"])
        XCTAssertEqual(diff.noLongerSkipped.map(\.key.name), ["gets-unskipped"])
        XCTAssertEqual(diff.added.map(\.key.name), ["added-failing", "added"])
        XCTAssertEqual(diff.removed.map(\.key.name), ["removed"])
        XCTAssertEqual(diff.stillFailing.map(\.key.name), ["still-broken"])
        XCTAssertTrue(diff.hasRegressions)

        let text = diff.text(oldName: "main.xml", old: old, newName: "pr.xml", new: new)
        XCTAssertTrue(text.hasPrefix("""
            old: main.xml  (8 tests: 4 passed, 2 failed, 0 errors, 2 skipped (1 known))
            new: pr.xml  (9 tests: 4 passed, 3 failed, 1 errors, 1 skipped)

            Regressions (new failures): 3
              FAIL  roundtrip.swift_to_python: crosscheck.rsa-socket.swift_to_python.regresses (was PASS)
                    python failed to decrypt swift's ciphertext: DecryptFailed
              FAIL  roundtrip.swift_to_python: crosscheck.rsa-socket.swift_to_python.added-failing (new check)
            """), text)
        XCTAssertTrue(text.contains("\nFixed: 1\n  PASS  roundtrip.swift_to_python: crosscheck.rsa-socket.swift_to_python.gets-fixed (was FAIL)\n"), text)
        XCTAssertTrue(text.contains("\nNewly skipped: 1\n  SKIP  roundtrip.swift_to_python: crosscheck.rsa-socket.swift_to_python.gets-skipped (was PASS)\n"), text)
        XCTAssertTrue(text.contains("\nRemoved checks: 1\n  PASS  roundtrip.swift_to_python: crosscheck.rsa-socket.swift_to_python.removed\n"), text)
        XCTAssertTrue(text.hasSuffix("\n3 regressions\n"), text)
    }

    func testIdenticalReportsHaveNoChanges() {
        let report = Fixtures.report()
        let diff = ReportDiff(old: report, new: report)
        XCTAssertFalse(diff.hasRegressions)
        XCTAssertTrue(diff.fixed.isEmpty && diff.added.isEmpty && diff.removed.isEmpty && diff.newlySkipped.isEmpty)
        XCTAssertEqual(diff.stillFailing.count, 2, "the fixture's failure and error")
        let text = diff.text(oldName: "a", old: report, newName: "b", new: report)
        XCTAssertTrue(text.contains("Regressions (new failures): none\nFixed: none\n"), text)
        XCTAssertTrue(text.hasSuffix("\nno regressions\n"), text)
    }

    /// A testcase is its suite, class and name: the same name in another suite is another check.
    func testTheSameNameInAnotherSuiteOrClassIsAnotherCheck() {
        let old = JUnitReport(suites: [Self.suite("a", [Self.pass("x")])])
        let new = JUnitReport(suites: [Self.suite("b", [Self.pass("x")]), Self.suite("a", [Self.pass("x", "crosscheck.keys.swift_to_python")])])
        let diff = ReportDiff(old: old, new: new)
        XCTAssertEqual(diff.added.count, 2)
        XCTAssertEqual(diff.removed.count, 1)
    }

    func testRepeatedTestcasesArePairedInOrder() {
        let old = JUnitReport(suites: [Self.suite("a", [Self.pass("twin"), Self.pass("twin")])])
        let new = JUnitReport(suites: [Self.suite("a", [Self.pass("twin"), Self.fail("twin")])])
        let diff = ReportDiff(old: old, new: new)
        XCTAssertEqual(diff.regressions.map(\.key.occurrence), [1])
        XCTAssertTrue(diff.text(oldName: "o", old: old, newName: "n", new: new).contains(".twin (#2) (was PASS)"))
    }

    func testListsAreCutAtTheLimit() {
        let old = JUnitReport(suites: [Self.suite("a", (0..<30).map { Self.pass("c\($0)") })])
        let new = JUnitReport(suites: [Self.suite("a", (0..<30).map { Self.fail("c\($0)") })])
        let text = ReportDiff(old: old, new: new).text(oldName: "o", old: old, newName: "n", new: new, limit: 5)
        XCTAssertTrue(text.contains("Regressions (new failures): 30\n"), text)
        XCTAssertTrue(text.contains(".c4 (was PASS)"))
        XCTAssertFalse(text.contains(".c5 (was PASS)"))
        XCTAssertTrue(text.contains("  ... and 25 more\n"), text)
    }
}
