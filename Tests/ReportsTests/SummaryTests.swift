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
            "  FAIL  crosscheck.rsa.swift_to_python.rsa_pss_sign: signature does not verify on the Python side"), text)
        XCTAssertTrue(text.contains(
            "  ERROR crosscheck.rsa.swift_to_python.rsa_oaep_decrypt: python server timed out after 30 s"), text)
        XCTAssertFalse(text.contains("ed448"), "skipped cases are not listed as failures")
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
        XCTAssertFalse(text.contains("second line"), "only the message's first line is shown")
        XCTAssertFalse(text.contains("total "), "one suite needs no total row")

        XCTAssertEqual(Summary.text(report).components(separatedBy: "  FAIL  ").count - 1, 10, "default shows 10")
        XCTAssertFalse(Summary.text(report, failuresToShow: 0).contains("FAIL "))
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

    /// "unexpected refusal: Internal" alone hides the cause; the body's first lines show it.
    func testFailuresShowTheFirstLinesOfTheirBody() {
        let body = (1...9).map { "line \($0)" }.joined(separator: "\n")
        let report = JUnitReport(suites: [JUnitSuite(name: "s", package: "p", timestamp: Fixtures.timestamp, hostname: "h", cases: [
            JUnitCase(name: "serve", classname: "crosscheck.aes-https.swift_client.python_server",
                      outcome: .error(message: "unexpected refusal: Internal", type: "error",
                                      details: "pythonref serve did not start: cannot load --cert/--key\n" + body)),
        ])])
        let lines = Summary.text(report).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try? XCTUnwrap(lines.firstIndex(of: "  ERROR crosscheck.aes-https.swift_client.python_server.serve: unexpected refusal: Internal"))
        guard let start else { return XCTFail(lines.joined(separator: "\n")) }
        XCTAssertEqual(Array(lines[(start + 1)...(start + 7)]), [
            "        pythonref serve did not start: cannot load --cert/--key",
            "        line 1", "        line 2", "        line 3", "        line 4", "        line 5",
            "        … (4 more lines in the report)",
        ])
    }

    /// A byte diff is shown whole wherever it is in the body, with the lines left out counted.
    func testAByteDiffDeepInTheBodyIsShownWhole() {
        let diff = """
            byte diff: 1 of 65552 bytes differ (first at offset 65551, last at offset 65551); expected 65552 bytes, actual 65552 bytes
              expected @65535  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
              actual   @65535  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
              expected @65551  51
              actual   @65551  52
                               ^^
            """
        let details = (1...8).map { "context \($0)" }.joined(separator: "\n") + "\n" + diff + "\nexpected: 65552 bytes 0000…"
        let report = JUnitReport(suites: [JUnitSuite(name: "s", package: "p", timestamp: Fixtures.timestamp, hostname: "h", cases: [
            JUnitCase(name: "cbc", classname: "k", outcome: .failed(message: "ciphertext: 1 of 65552 bytes differ", type: "mismatch", details: details)),
        ])])
        let text = Summary.text(report)
        XCTAssertTrue(text.contains("        context 6\n        … (2 more lines)\n        byte diff: 1 of 65552 bytes differ"), text)
        XCTAssertTrue(text.contains("        actual   @65551  52\n" + String(repeating: " ", count: 8 + 19) + "^^\n        … (1 more line in the report)\n"), text)
    }

    func testKnownSkipsAndPartialReportsAreSaidInTheTotals() {
        var suite = Fixtures.roundtripSuite()
        suite.cases.append(JUnitCase(name: "app-pinning", classname: "crosscheck.aes-https.app_to_python",
                                     outcome: .skipped(message: "known: the app ships without pinning (issue 21)")))
        suite.properties.append(JUnitProperty(name: "crosscheck.partial", value: "interrupted after 7 of 90 checks"))
        let report = JUnitReport(suites: [suite])
        XCTAssertEqual(report.known, 1)
        XCTAssertEqual(report.skipped, 2)
        let text = Summary.text(report)
        XCTAssertTrue(text.contains("\n3 passed, 1 failed, 1 errors, 2 skipped (1 known)\n"), text)
        XCTAssertTrue(text.contains("\nPARTIAL REPORT: interrupted after 7 of 90 checks; the suites above are incomplete\n"), text)
    }

    /// One definition of a suite's time: the sum of its testcase times in whole microseconds, the
    /// same before writing, in the file, and after reading back; many fast cases still add up.
    func testSuiteTimeIsTheSameInTheModelTheFileAndAfterReading() throws {
        let times: [TimeInterval] = [0.0004, 0.0004, 0.0004, 1.2345, 0.0016, 0.00000049, -1, .nan] + Array(repeating: 0.0004, count: 216)
        let suite = JUnitSuite(name: "t", package: "p", timestamp: Fixtures.timestamp, hostname: "h",
                               cases: times.enumerated().map { JUnitCase(name: "c\($0.offset)", classname: "k", time: $0.element) })
        XCTAssertEqual(suite.time, 1.3237, accuracy: 1e-9, "each case counts as written: 1.2 ms + 1.2345 + 1.6 ms + 0 + 86.4 ms")
        XCTAssertEqual(JUnitFormat.suiteTime(times), suite.time)
        let data = JUnitXML.data(JUnitReport(suites: [suite]))
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains(#"tests="224" failures="0" errors="0" skipped="0" time="1.324""#), text)
        XCTAssertTrue(text.contains(#"<testcase name="c0" classname="k" time="0.0004">"#))
        XCTAssertTrue(text.contains(#"<testcase name="c3" classname="k" time="1.2345">"#))
        XCTAssertTrue(text.contains(#"<testcase name="c5" classname="k" time="0.000">"#))
        let back = try JUnitXML.parse(data)
        XCTAssertEqual(back.suites[0].time, suite.time)
        XCTAssertTrue(Summary.text(back).contains(" 1.324s"))
        XCTAssertEqual(JUnitFormat.formatCaseTime(30), "30.000")
        XCTAssertEqual(JUnitFormat.formatCaseTime(0.0000125), "0.000013")
    }

    func testWeaknessesAreListed_findingsAndCarriedWeaknessesOnce() {
        let weak = JUnitProperty(name: "weakness", value: "PKCS#1 v1.5 encryption (Bleichenbacher/ROBOT padding oracles)")
        let cases = [
            JUnitCase(name: "app.key-storage.user-defaults", classname: "crosscheck.audit.app", outcome: .skipped(message: "weakness: user-defaults: a key under \"aesKey\"")),
            JUnitCase(name: "rsa.len0", classname: "crosscheck.rsa.app_to_python", outcome: .passed, properties: [weak]),
            JUnitCase(name: "rsa.len1", classname: "crosscheck.rsa.app_to_python", outcome: .passed, properties: [weak]),
            JUnitCase(name: "plain-skip", classname: "k", outcome: .skipped(message: "no openssl")),
        ]
        let report = JUnitReport(suites: [JUnitSuite(name: "s", package: "p", timestamp: Fixtures.timestamp, hostname: "h", cases: cases)])
        let text = Summary.text(report)
        XCTAssertTrue(text.hasSuffix("""

            Weaknesses (2):
              WEAK  crosscheck.audit.app.app.key-storage.user-defaults: user-defaults: a key under "aesKey"
              WEAK  PKCS#1 v1.5 encryption (Bleichenbacher/ROBOT padding oracles): 2 checks (crosscheck.rsa.app_to_python.rsa.len0, …)

            """), text)
        XCTAssertFalse(text.contains("no openssl"))
        XCTAssertFalse(Summary.text(Fixtures.report()).contains("Weaknesses"), "none, no section")
    }

    /// Issue 33: a fleet's failure names its Pi; the audit's weaknesses are listed by name.
    func testFleetFailuresNameTheirHost_andTheAuditsFindingsAreListed() {
        func suite(_ name: String, _ cases: [JUnitCase]) -> JUnitSuite {
            JUnitSuite(name: name, package: "p", timestamp: Fixtures.timestamp, hostname: "h", cases: cases)
        }
        let fail = JUnitCase(name: "digest.phone-to-pi", classname: "crosscheck.remote.rsa-socket",
                             outcome: .failed(message: "wrong digest", type: "T", details: ""))
        let pass = JUnitCase(name: "digest.phone-to-pi", classname: "crosscheck.remote.rsa-socket", outcome: .passed)
        let weak = JUnitCase(name: "pkcs1-encryption", classname: "crosscheck.remote.rsa-socket.audit",
                             outcome: .skipped(message: "weakness: the server uses PKCS#1 v1.5 encryption\nwhy it matters"))
        let known = JUnitCase(name: "x", classname: "k", outcome: .skipped(message: JUnitCase.knownPrefix + " listed"))
        let fleet = JUnitReport(suites: [suite("remote.pi-1:9876", [pass]), suite("audit.pi-1:9876", [weak]),
                                         suite("remote.pi-2:9876", [fail]), suite("audit.pi-2:9876", [known])])
        let text = Summary.text(fleet)
        XCTAssertTrue(text.contains("  FAIL  crosscheck.remote.rsa-socket.digest.phone-to-pi [remote.pi-2:9876]: wrong digest\n"), text)
        XCTAssertTrue(text.contains("Weaknesses and findings of the audits (1, skipped: --strict fails the weaknesses):\n"
                                    + "  SKIP  pkcs1-encryption [audit.pi-1:9876]: weakness: the server uses PKCS#1 v1.5 encryption\n"), text)
        XCTAssertFalse(text.contains("SKIP  x"), "a known failure is not a finding: \(text)")

        // One target: no testsuite in the lines (the run has one Pi).
        let single = Summary.text(JUnitReport(suites: [suite("remote.pi-2:9876", [fail]), suite("audit.pi-2:9876", [weak])]))
        XCTAssertTrue(single.contains("  FAIL  crosscheck.remote.rsa-socket.digest.phone-to-pi: wrong digest\n"), single)
        XCTAssertTrue(single.contains("  SKIP  pkcs1-encryption: weakness: the server uses PKCS#1 v1.5 encryption\n"), single)

        // Suites that are not per target (a run's directions) never get the tag; the run's audit suite is listed.
        let run = Summary.text(JUnitReport(suites: [suite("roundtrip.swift_to_python", [fail]), suite("roundtrip.python_to_swift", [pass]),
                                                    suite("audit.seed-003", [weak])]))
        XCTAssertTrue(run.contains("  FAIL  crosscheck.remote.rsa-socket.digest.phone-to-pi: wrong digest\n"), run)
        XCTAssertTrue(run.contains("  SKIP  pkcs1-encryption: weakness:"), run)
    }
}
