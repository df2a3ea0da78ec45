import Foundation
import XCTest

/// `crosscheck report --html`, checked in a real browser: Debian's chromium loads the page headless,
/// runs its script, and the DOM it dumps must hold the right counts, failures and matrix cells. A
/// screenshot goes to reports/html-report.png (with the page and its JUnit input beside it) for a
/// person to look at.
final class ReportHTMLBrowserTests: XCTestCase {
    static let chromium = URL(fileURLWithPath: "/usr/bin/chromium")
    static let reports = CrosscheckBinary.root.appendingPathComponent("reports")

    /// Runs chromium headless with its own profile directory, killed if it runs past `deadline`.
    func chromium(_ arguments: [String], deadline: TimeInterval = 90) throws -> (status: Int32, stdout: String) {
        let profile = try makeTemporaryDirectory().appendingPathComponent("profile")
        let process = Process()
        process.executableURL = Self.chromium
        // --no-sandbox: the sandbox needs user namespaces or setuid, which a root CI container lacks.
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                             "--user-data-dir=\(profile.path)"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let timer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline, execute: timer)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        timer.cancel()
        try? out.fileHandleForReading.close()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func dumpDOM(_ page: URL, fragment: String = "") throws -> String {
        let url = page.absoluteString + fragment
        let result = try chromium(["--dump-dom", url])
        XCTAssertEqual(result.status, 0, "chromium --dump-dom \(url)")
        return result.stdout
    }

    /// Builds the page from real runs: 22 roundtrip checks (one planted failure with a byte diff, one
    /// planted known skip) and the 137 checks of one Wycheproof file.
    func makePage() throws -> (html: URL, xml: URL) {
        let directory = try makeTemporaryDirectory()
        let planted = directory.appendingPathComponent("planted.xml")
        try ReportCLITests.plantRegression(try ReportCLITests.realReport(in: directory), into: planted)
        var xml = try String(contentsOf: planted, encoding: .utf8)
        let knownCase = #"<testcase name="kdf.base64-raw.aes256.envelope" classname="crosscheck.aes-https.python_to_swift""#
        let start = try XCTUnwrap(xml.range(of: knownCase))
        let end = try XCTUnwrap(xml.range(of: "</testcase>", range: start.upperBound..<xml.endIndex))
        xml.replaceSubrange(start.lowerBound..<end.upperBound, with: knownCase
            + #" time="0.000"><skipped message="known: the app under test pins the wrong certificate (issue 21)"></skipped></testcase>"#)
        try Data(xml.utf8).write(to: planted)

        let wycheproof = directory.appendingPathComponent("wycheproof.xml")
        let run = try CrosscheckBinary.run(["wycheproof", "--impl", "both", "--quiet", "--junit", wycheproof.path,
                                            "Vectors/wycheproof/rsa_pkcs1_2048_test.json"])
        XCTAssertEqual(run.status, 0, run.stderr)

        // Merged (and so rewritten) by crosscheck: this is also a report the junitparser stage reads.
        let merged = Self.reports.appendingPathComponent("html-report.xml")
        let merge = try CrosscheckBinary.run(["report", "--merge", merged.path, planted.path, wycheproof.path])
        XCTAssertEqual(merge.status, 1, "one failure: \(merge.stdout)\(merge.stderr)")
        XCTAssertEqual(try CrosscheckBinary.validate(merged), 0)
        let html = Self.reports.appendingPathComponent("html-report.html")
        let render = try CrosscheckBinary.run(["report", "--html", html.path, merged.path])
        XCTAssertEqual(render.status, 1, render.stderr)
        XCTAssertTrue(render.stdout.hasPrefix("HTML report: \(html.path) ("), render.stdout)
        return (html, merged)
    }

    func testHTMLReport_inHeadlessChromium_showsCountsFailuresAndMatrix() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.chromium.path) else {
            return XCTFail("\(Self.chromium.path) is missing: `make deps` installs Debian's chromium (apt-get install chromium)")
        }
        let (html, _) = try makePage()
        let page = try String(contentsOf: html, encoding: .utf8)
        for external in ["<link", " src=", "http://", "https://", "@import", "url("] {
            XCTAssertFalse(page.contains(external), "self-contained: no \(external)")
        }

        let dom = try dumpDOM(html)
        XCTAssertTrue(dom.contains(#"<body data-ready="1">"#), "the page's script ran")
        XCTAssertTrue(dom.contains(#"<span id="shown" data-shown="159">159 testcases</span>"#))
        for (kind, count) in [("tests", 159), ("pass", 157), ("fail", 1), ("error", 0), ("skip", 1), ("known", 1)] {
            XCTAssertTrue(dom.contains(#"data-kind="\#(kind)" data-count="\#(count)""#), "\(kind) = \(count)")
        }
        XCTAssertTrue(dom.contains(#"<div class="banner bad" id="verdict">1 failed out of 159 testcases.</div>"#))

        // The matrix: profile × relation cells with pass / fail / error / skip / known.
        func cell(_ profile: String, _ relation: String, _ counts: [Int]) -> String {
            #"data-profile="\#(profile)" data-relation="\#(relation)" data-pass="\#(counts[0])" data-fail="\#(counts[1])" "#
                + #"data-error="\#(counts[2])" data-skip="\#(counts[3])" data-known="\#(counts[4])""#
        }
        XCTAssertTrue(dom.contains(#"<td class="cell bad" "# + cell("aes-https", "swift → python", [5, 1, 0, 0, 0])), "the planted failure")
        XCTAssertTrue(dom.contains(#"<td class="cell ok" "# + cell("aes-https", "python → swift", [5, 0, 0, 0, 1])), "the known skip")
        XCTAssertTrue(dom.contains(#"<td class="cell ok" "# + cell("aes-https", "swift vs python", [10, 0, 0, 0, 0])))
        XCTAssertTrue(dom.contains(#"<td class="cell ok" "# + cell("rsa-socket", "Wycheproof vectors", [137, 0, 0, 0, 0])))
        for relation in ["OpenSSL CLI", "app under test", "remote targets"] {
            XCTAssertTrue(dom.contains(#"<td class="cell empty" "# + cell("aes-https", relation, [0, 0, 0, 0, 0])), relation)
        }
        XCTAssertTrue(dom.contains(#"<td class="cell bad" "# + cell("all", "all", [157, 1, 0, 0, 1])))

        // Failures first: the message, and the byte diff with the differing byte marked on both sides.
        let failures = try XCTUnwrap(dom.range(of: #"<section id="failures">"#))
        let suites = try XCTUnwrap(dom.range(of: #"<section id="suites">"#))
        XCTAssertLessThan(failures.lowerBound, suites.lowerBound)
        let failureSection = String(dom[failures.lowerBound..<suites.lowerBound])
        XCTAssertTrue(failureSection.contains("<h2>Failures and errors (1)</h2>"), failureSection)
        XCTAssertTrue(failureSection.contains("crosscheck.aes-https.swift_to_python.kdf.base64-raw.aes128.envelope</h3>"), failureSection)
        XCTAssertTrue(failureSection.contains(#"<p class="msg">swift and python AES-CBC ciphertext: 1 of 32 bytes differ, the first at offset 31</p>"#))
        XCTAssertTrue(failureSection.contains("<p>byte diff: 1 of 32 bytes differ (first at offset 31, last at offset 31); expected 32 bytes, actual 32 bytes</p>"))
        XCTAssertTrue(failureSection.contains(#"<span class="side">expected</span> @31  <mark>1f</mark>"#), failureSection)
        XCTAssertTrue(failureSection.contains(#"<span class="side">actual  </span> @31  <mark>20</mark>"#), failureSection)
        XCTAssertTrue(failureSection.contains(#"<pre class="body">expected: 32 bytes 000102</pre>"#), "the rest of the body")

        // Suites are collapsible, Wycheproof comments and flags are next to each tcId.
        XCTAssertEqual(dom.components(separatedBy: "<details class=\"s").count - 1, 6)
        XCTAssertTrue(dom.contains("<span>rsa_pkcs1_2048_test.tc9 (invalid; InvalidPkcs1Padding): The padding string is all 0.</span>"))
        XCTAssertTrue(dom.contains("outcome: error DecryptFailed (RSA decryption failed)"))

        // The filter, set from the address: every word must match.
        let filtered = try dumpDOM(html, fragment: "#filter=tc9%20InvalidPkcs1")
        XCTAssertTrue(filtered.contains(#"<span id="shown" data-shown="2">2 of 159 testcases match</span>"#))
        XCTAssertEqual(filtered.components(separatedBy: "<tr class=\"c\">").count - 1, 2, "two rows left visible")
        XCTAssertTrue(filtered.contains(#"<details class="s bad" data-suite="roundtrip.swift_to_python" hidden="">"#), "other suites hidden")
        XCTAssertTrue(filtered.contains(#"<details class="s" data-suite="wycheproof.rsa_pkcs1_2048_test.swift" open="">"#), "matching suites opened")

        // A screenshot for a person to look at.
        let screenshot = Self.reports.appendingPathComponent("html-report.png")
        try? FileManager.default.removeItem(at: screenshot)
        let shot = try chromium(["--hide-scrollbars", "--window-size=1280,1500", "--screenshot=\(screenshot.path)", html.absoluteString])
        XCTAssertEqual(shot.status, 0)
        let png = try Data(contentsOf: screenshot)
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG")
        func bigEndian(_ range: Range<Int>) -> UInt32 { png.subdata(in: range).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        XCTAssertEqual(bigEndian(16..<20), 1280, "IHDR width")
        XCTAssertEqual(bigEndian(20..<24), 1500, "IHDR height")
        // And one with the filter applied, suites opened, Wycheproof comments and flags in view.
        let filteredShot = Self.reports.appendingPathComponent("html-report-filtered.png")
        XCTAssertEqual(try chromium(["--hide-scrollbars", "--window-size=1280,1500", "--screenshot=\(filteredShot.path)",
                                     html.absoluteString + "#filter=tc1%20InvalidPkcs1Padding"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: filteredShot.path))
    }

    /// python3-junitparser, a real consumer, counts what crosscheck counts in the reports this file and
    /// ReportCLITests write (make test-reports does the same over reports/*.xml).
    func testJunitparserCountsWhatCrosscheckCounts() throws {
        let (_, merged) = try makePage()
        let directory = try makeTemporaryDirectory()
        let run = try ReportCLITests.realReport(in: directory)
        let consumer = Process()
        consumer.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        consumer.arguments = [CrosscheckBinary.root.appendingPathComponent("scripts/junit_consumer.py").path, CrosscheckBinary.url.path,
                              merged.path, run.path]
        let out = Pipe()
        consumer.standardOutput = out
        try consumer.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        consumer.waitUntilExit()
        try? out.fileHandleForReading.close()
        XCTAssertEqual(consumer.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("agree    \(merged.path): 159 tests in 6 suites: 157 passed, 1 failed, 0 errors, 1 skipped (junitparser = crosscheck)"), text)
        XCTAssertTrue(text.contains("junit_consumer: 2 of 2 reports agree"), text)

        // And it can disagree: a report whose suite attribute lies about its testcases.
        let lying = directory.appendingPathComponent("lying.xml")
        try Data(String(contentsOf: run, encoding: .utf8).replacingOccurrences(of: #"tests="6" failures="0""#, with: #"tests="6" failures="2""#).utf8)
            .write(to: lying)
        let check = Process()
        check.executableURL = consumer.executableURL
        check.arguments = [consumer.arguments![0], CrosscheckBinary.url.path, lying.path]
        check.standardOutput = FileHandle.nullDevice
        try check.run()
        check.waitUntilExit()
        XCTAssertEqual(check.terminationStatus, 1)
    }
}
