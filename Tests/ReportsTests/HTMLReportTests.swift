import Foundation
import XCTest
import Reports

final class CoverageMatrixTests: XCTestCase {
    func cell(_ classname: String, _ suite: String) -> String {
        let cell = CoverageMatrix.cell(classname: classname, suite: suite)
        return "\(cell.profile) | \(cell.relation.rawValue)"
    }

    /// Every suite and classname crosscheck writes today, and the forms other issues will add.
    func testRowsAndColumnsComeFromClassnamesAndSuites() {
        XCTAssertEqual(cell("crosscheck.rsa-socket.swift_to_python", "roundtrip.swift_to_python"), "rsa-socket | swift → python")
        XCTAssertEqual(cell("crosscheck.sealed.python_to_swift", "roundtrip.python_to_swift"), "sealed | python → swift")
        XCTAssertEqual(cell("crosscheck.keys.swift_vs_python", "roundtrip.swift_vs_python"), "keys | swift vs python")
        XCTAssertEqual(cell("crosscheck.aes-https.swift_client.python_server", "sessions.swift_client.python_server"), "aes-https | swift → python")
        XCTAssertEqual(cell("crosscheck.rsa-socket.python_client.swift_server", "sessions.python_client.swift_server"), "rsa-socket | python → swift")
        XCTAssertEqual(cell("crosscheck.rsa-socket.swift_client.swift_server", "sessions.swift_client.swift_server"), "rsa-socket | controls & probes")
        XCTAssertEqual(cell("crosscheck.aes-https.python_server", "sessions.python_server"), "aes-https | controls & probes")
        XCTAssertEqual(cell("crosscheck.openssl-cli.openssl_to_swift", "vectors.openssl_to_swift"), "openssl-cli | OpenSSL CLI")
        XCTAssertEqual(cell("crosscheck.openssl-cli.python_to_openssl", "vectors.python_to_openssl"), "openssl-cli | OpenSSL CLI")
        XCTAssertEqual(cell("crosscheck.openssl-cli.manifest", "vectors.manifest"), "openssl-cli | OpenSSL CLI")
        XCTAssertEqual(cell("crosscheck.sealed.wycheproof_to_python", "wycheproof.aes_gcm_test.python"), "sealed | Wycheproof vectors")
        XCTAssertEqual(cell("crosscheck.rsa-socket.swift_vs_python", "wycheproof.rsa_pkcs1_2048_test.swift_vs_python"), "rsa-socket | Wycheproof vectors")
        XCTAssertEqual(cell("crosscheck.wycheproof.load", "wycheproof.aes_gcm_test"), "wycheproof | Wycheproof vectors")
        XCTAssertEqual(cell("crosscheck.aes-https.swift_vs_python", "fuzz.swift_vs_python"), "aes-https | swift vs python")
        XCTAssertEqual(cell("crosscheck.rsa-socket.python_vs_remote", "fuzz.python_vs_remote"), "rsa-socket | remote targets")
        XCTAssertEqual(cell("crosscheck.remote.rsa-socket", "remote.127.0.0.1:9876"), "rsa-socket | remote targets")
        XCTAssertEqual(cell("crosscheck.remote.aes-https", "audit.pi.local:8443"), "aes-https | remote targets")
        XCTAssertEqual(cell("crosscheck.aes-https.app_to_python", "app.login"), "aes-https | app under test")
        XCTAssertEqual(cell("crosscheck.rsa-socket.python_client.app_server", "sessions.python_client.app_server"), "rsa-socket | app under test")
        XCTAssertEqual(cell("tests.test_x", "pytest"), "other | other")
    }

    func testCountsPerCellRowColumnAndTotal() {
        let report = JUnitReport(suites: [
            JUnitSuite(name: "roundtrip.swift_to_python", package: "p", timestamp: Fixtures.timestamp, hostname: "h", cases: [
                JUnitCase(name: "a", classname: "crosscheck.rsa-socket.swift_to_python"),
                JUnitCase(name: "b", classname: "crosscheck.rsa-socket.swift_to_python", outcome: .failed(message: "m", type: "t", details: "")),
                JUnitCase(name: "c", classname: "crosscheck.rsa-socket.swift_to_python", outcome: .error(message: "m", type: "t", details: "")),
                JUnitCase(name: "d", classname: "crosscheck.sealed.swift_to_python", outcome: .skipped(message: "unsupported")),
                JUnitCase(name: "e", classname: "crosscheck.sealed.swift_to_python", outcome: .skipped(message: "known: issue 4")),
                JUnitCase(name: "f", classname: "crosscheck.mystery.swift_to_python"),
            ]),
        ])
        let matrix = CoverageMatrix(report)
        XCTAssertEqual(matrix.profiles, ["rsa-socket", "sealed", "mystery"])
        XCTAssertEqual(matrix.relations.map(\.rawValue), ["swift → python", "python → swift", "OpenSSL CLI", "app under test", "remote targets"],
                       "the headline columns always, the others only when used")
        let rsa = matrix.counts("rsa-socket", .swiftToPython)
        XCTAssertEqual([rsa.pass, rsa.fail, rsa.error, rsa.skip, rsa.known], [1, 1, 1, 0, 0])
        let sealed = matrix.counts("sealed", .swiftToPython)
        XCTAssertEqual([sealed.pass, sealed.fail, sealed.error, sealed.skip, sealed.known], [0, 0, 0, 1, 1])
        XCTAssertEqual(matrix.counts("rsa-socket", .pythonToSwift).total, 0)
        XCTAssertEqual(matrix.columnTotal(.swiftToPython).total, 6)
        XCTAssertEqual(matrix.rowTotal("sealed").total, 2)
        XCTAssertEqual(matrix.total.problems, 2)
    }
}

final class HTMLReportTests: XCTestCase {
    func page(_ report: JUnitReport = Fixtures.report(), notes: [String] = []) -> String {
        HTMLReport.render(report, sources: ["reports/junit.xml"], notes: notes)
    }

    func testPageIsSelfContained() {
        let html = page()
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        XCTAssertTrue(html.contains("<style>") && html.contains("<script>"))
        for external in ["<link", " src=", "http://", "https://", "@import", "url("] {
            XCTAssertFalse(html.contains(external), external)
        }
    }

    func testTotalsFailuresFirstAndEveryCaseListed() throws {
        let html = page()
        XCTAssertTrue(html.contains(#"data-kind="tests" data-count="6""#))
        XCTAssertTrue(html.contains(#"data-kind="fail" data-count="1""#))
        XCTAssertTrue(html.contains(#"<div class="banner bad" id="verdict">1 failed and 1 error out of 6 testcases.</div>"#), html)
        let failures = try XCTUnwrap(html.range(of: "<section id=\"failures\">"))
        let suites = try XCTUnwrap(html.range(of: "<section id=\"suites\">"))
        XCTAssertLessThan(failures.lowerBound, suites.lowerBound)
        let failureSection = html[failures.lowerBound..<suites.lowerBound]
        XCTAssertTrue(failureSection.contains("<h2>Failures and errors (2)</h2>"))
        XCTAssertTrue(failureSection.contains(#"<span class="v FAIL">FAIL</span> crosscheck.rsa.swift_to_python.rsa_pss_sign</h3>"#))
        XCTAssertTrue(failureSection.contains(#"<span class="v ERROR">ERROR</span> crosscheck.rsa.swift_to_python.rsa_oaep_decrypt</h3>"#))
        XCTAssertTrue(failureSection.contains("<pre class=\"body\">expected: 3f a1 09\nactual:   3f a1 0a\n  at rsa_pss_sign</pre>"), String(failureSection))
        XCTAssertTrue(failureSection.contains("<b>key_bits</b> 2048"))
        XCTAssertEqual(html.components(separatedBy: "<tr class=\"c").count - 1, 6, "every testcase in its suite")
        XCTAssertTrue(html.contains(##"<a href="#f0">rsa_pss_sign</a>"##), "a failing row links to its entry")
        XCTAssertTrue(html.contains(#"<span>sha256 &lt;empty&gt; &amp; &quot;quoted&quot;</span>"#), "names are escaped")
        XCTAssertTrue(html.contains(#"<details class="s bad" data-suite="roundtrip.swift_to_python">"#), "suites are collapsed")
    }

    func testByteDiffBytesAreMarked() {
        let details = """
            byte diff: 2 of 4 bytes differ (first at offset 0, last at offset 2); expected 4 bytes, actual 4 bytes
              expected @0  01 02 03 04
              actual   @0  09 02 08 04
                           ^^    ^^
            the rest of the body
            """
        let report = JUnitReport(suites: [JUnitSuite(name: "s", package: "p", timestamp: Fixtures.timestamp, hostname: "h", cases: [
            JUnitCase(name: "c", classname: "k", outcome: .failed(message: "bytes", type: "mismatch", details: details)),
        ])])
        let html = page(report)
        XCTAssertTrue(html.contains("<div class=\"diff\"><p>byte diff: 2 of 4 bytes differ (first at offset 0, last at offset 2); expected 4 bytes, actual 4 bytes</p><pre>"
            + "<span class=\"side\">expected</span> @0  <mark>01</mark> 02 <mark>03</mark> 04\n"
            + "<span class=\"side\">actual  </span> @0  <mark>09</mark> 02 <mark>08</mark> 04\n</pre></div>"), html)
        XCTAssertTrue(html.contains("<pre class=\"body\">the rest of the body</pre>"), "the diff is not repeated in the body")
    }

    func testPartialEmptyAndNotesAreShown() {
        var suite = Fixtures.emptySuite()
        suite.properties.append(JUnitProperty(name: "crosscheck.partial", value: "interrupted after 0 of 12 checks"))
        let html = page(JUnitReport(suites: [suite]), notes: ["dropped suite x from b.xml: identical to the one from a.xml"])
        XCTAssertTrue(html.contains("<div class=\"banner partial\" id=\"partial\">Partial report: interrupted after 0 of 12 checks."), html)
        XCTAssertTrue(html.contains("<div class=\"banner bad\" id=\"empty\">This report has no testcases: nothing was checked.</div>"))
        XCTAssertTrue(html.contains("<p class=\"note\">dropped suite x from b.xml: identical to the one from a.xml</p>"))
    }

    func testHostileTextIsEscaped() {
        let report = JUnitReport(suites: [JUnitSuite(name: "<script>alert(1)</script>", package: "p", timestamp: Fixtures.timestamp, hostname: "h", cases: [
            JUnitCase(name: "\"><img onerror=x>", classname: "k", outcome: .error(message: "</pre><script>x()</script>\u{1B}[2J", type: "t", details: "\u{7}")),
        ])])
        let html = page(report)
        XCTAssertFalse(html.contains("<script>alert"))
        XCTAssertFalse(html.contains("<img"))
        XCTAssertFalse(html.contains("</pre><script>x()"))
        XCTAssertFalse(html.unicodeScalars.contains("\u{1B}"))
        XCTAssertTrue(html.contains("&lt;/pre&gt;&lt;script&gt;x()&lt;/script&gt;\\x1B[2J"), html)
        XCTAssertEqual(html.components(separatedBy: "<script>").count - 1, 1, "only the page's own script")
    }

    func testSharedPropertiesAreShownOnceAndSuiteOwnOnesInTheSuite() {
        var second = Fixtures.roundtripSuite()
        second.name = "roundtrip.python_to_swift"
        second.properties = [JUnitProperty(name: "python.version", value: "3.11.2"), JUnitProperty(name: "only.here", value: "x")]
        let html = page(JUnitReport(suites: [Fixtures.roundtripSuite(), second]))
        XCTAssertTrue(html.contains("<section id=\"run\">\n<h2>Run</h2>\n<table class=\"props\"><tr><th>python.version</th><td>3.11.2</td></tr></table>"), html)
        XCTAssertTrue(html.contains("<p class=\"sp\"><b>only.here</b> x</p>"))
    }
}
