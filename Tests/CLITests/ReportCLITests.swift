import Foundation
import XCTest
import TestSupport

/// `crosscheck report`, end to end: gates on partial and empty reports, merges that would count a
/// suite twice, `--diff` between two runs, and the exit status of each.
final class ReportCLITests: XCTestCase {
    static let plantedCase = #"<testcase name="kdf.base64-raw.aes128.envelope" classname="crosscheck.aes-https.swift_to_python""#
    static let plantedDiff = PlantedFailure.byteDiffBody

    /// A real report of 22 checks (seed 3), written by `crosscheck run`. `run` 1 or 2: two separate
    /// runs (a diff of a run against a rerun), each made once per test process and copied to
    /// `directory` (the reports are only read or changed in their copies; each run costs a start of
    /// the embedded Python).
    static func realReport(in directory: URL, name: String = "run.xml", run: Int = 1) throws -> URL {
        let report = directory.appendingPathComponent(name)
        try reportRuns.withLock { runs in
            if let bytes = runs[run] { return try bytes.write(to: report) }
            let outcome = try CrosscheckBinary.run(["run", "--filter", "kdf.", "--seed", "3", "--quiet", "--junit", report.path])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            runs[run] = try Data(contentsOf: report)
        }
        return report
    }
    private static let reportRuns = ReportRuns()
    private final class ReportRuns: @unchecked Sendable {
        private let lock = NSLock()
        private var runs: [Int: Data] = [:]
        func withLock<T>(_ body: (inout [Int: Data]) throws -> T) rethrows -> T {
            lock.lock(); defer { lock.unlock() }
            return try body(&runs)
        }
    }

    func realReport(in directory: URL, name: String = "run.xml", run: Int = 1) throws -> URL { try Self.realReport(in: directory, name: name, run: run) }
    func plantRegression(_ source: URL, into target: URL) throws { try Self.plantRegression(source, into: target) }

    /// `source` with one passing testcase turned into a failure whose body holds a byte diff.
    static func plantRegression(_ source: URL, into target: URL) throws {
        var xml = try String(contentsOf: source, encoding: .utf8)
        guard let start = xml.range(of: Self.plantedCase), let end = xml.range(of: "</testcase>", range: start.upperBound..<xml.endIndex) else {
            return XCTFail("the report no longer has \(Self.plantedCase)")
        }
        let element = Self.plantedCase + #" time="0.001"><failure message="swift and python AES-CBC ciphertext: 1 of 32 bytes differ, the first at offset 31" type="mismatch">"#
            + Self.plantedDiff + "</failure></testcase>"
        xml.replaceSubrange(start.lowerBound..<end.upperBound, with: element)
        // The suite's own count, for consumers that trust it (crosscheck recounts).
        if let suite = xml.range(of: #"<testsuite name="roundtrip.swift_to_python""#),
           let count = xml.range(of: #" failures="0""#, range: suite.upperBound..<xml.endIndex) {
            xml.replaceSubrange(count, with: #" failures="1""#)
        }
        try Data(xml.utf8).write(to: target)
    }

    func testCompleteReport_exitsZeroAndSaysSo() throws {
        let report = try realReport(in: try makeTemporaryDirectory())
        let outcome = try CrosscheckBinary.run(["report", report.path])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("\n22 passed, 0 failed, 0 errors, 0 skipped\n"), outcome.stdout)
        XCTAssertEqual(outcome.stderr, "")
    }

    func testFailureShowsItsBodyAndByteDiff_andExitsOne() throws {
        let directory = try makeTemporaryDirectory()
        let planted = directory.appendingPathComponent("planted.xml")
        try plantRegression(try realReport(in: directory), into: planted)
        let outcome = try CrosscheckBinary.run(["report", planted.path])
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("\n21 passed, 1 failed, 0 errors, 0 skipped\n"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("""
              FAIL  crosscheck.aes-https.swift_to_python.kdf.base64-raw.aes128.envelope: swift and python AES-CBC ciphertext: 1 of 32 bytes differ, the first at offset 31
                    byte diff: 1 of 32 bytes differ (first at offset 31, last at offset 31); expected 32 bytes, actual 32 bytes
                      expected @15  0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e
            """), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("\n          actual   @31  20\n                        ^^\n"), outcome.stdout)
    }

    func testPartialReport_exits65WithAClearMessage_unlessAllowed() throws {
        let directory = try makeTemporaryDirectory()
        let partial = directory.appendingPathComponent("partial.xml")
        var xml = try String(contentsOf: try realReport(in: directory), encoding: .utf8)
        xml = xml.replacingOccurrences(of: "<properties>\n", with: "<properties>\n<property name=\"crosscheck.partial\" value=\"interrupted after 22 of 4001 checks\"/>\n")
        try Data(xml.utf8).write(to: partial)

        let outcome = try CrosscheckBinary.run(["report", partial.path])
        XCTAssertEqual(outcome.status, 65, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("crosscheck report: \(partial.path) is a partial report (interrupted after 22 of 4001 checks): the checks that did not run are not passes."), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("--allow-partial"), outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("PARTIAL REPORT: interrupted after 22 of 4001 checks"), outcome.stdout)

        let allowed = try CrosscheckBinary.run(["report", "--allow-partial", partial.path])
        XCTAssertEqual(allowed.status, 0, allowed.stdout + allowed.stderr)
    }

    func testReportWithNoTestcases_exits65_unlessAllowed() throws {
        let directory = try makeTemporaryDirectory()
        for (name, xml) in [("empty.xml", "<?xml version=\"1.0\"?>\n<testsuites/>\n"),
                            ("no-cases.xml", "<testsuites><testsuite name=\"s\" tests=\"0\" failures=\"0\" errors=\"0\" time=\"0\"/></testsuites>")] {
            let file = directory.appendingPathComponent(name)
            try Data(xml.utf8).write(to: file)
            let outcome = try CrosscheckBinary.run(["report", file.path])
            XCTAssertEqual(outcome.status, 65, name + outcome.stdout + outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains("\(file.path) has no testcases: nothing was checked, so nothing passed."), outcome.stderr)
            XCTAssertEqual(try CrosscheckBinary.run(["report", "--allow-partial", file.path]).status, 0, name)
        }
    }

    func testMerge_sameFileTwiceIsMergedOnce_differentRunsOfOneSuiteAreRefused() throws {
        let directory = try makeTemporaryDirectory()
        let report = try realReport(in: directory)
        let merged = directory.appendingPathComponent("merged.xml")
        let twice = try CrosscheckBinary.run(["report", "--merge", merged.path, report.path, report.path])
        XCTAssertEqual(twice.status, 0, twice.stdout + twice.stderr)
        XCTAssertTrue(twice.stderr.contains("dropped suite roundtrip.swift_to_python from \(report.path): identical to the one from \(report.path)"), twice.stderr)
        XCTAssertTrue(twice.stdout.contains("\n22 passed, 0 failed"), "counted once: \(twice.stdout)")
        XCTAssertEqual(try CrosscheckBinary.validate(merged), 0)
        XCTAssertEqual(try String(contentsOf: merged, encoding: .utf8).components(separatedBy: "<testcase ").count - 1, 22)

        let planted = directory.appendingPathComponent("planted.xml")
        try plantRegression(report, into: planted)
        let conflicting = try CrosscheckBinary.run(["report", report.path, planted.path])
        XCTAssertEqual(conflicting.status, 65, conflicting.stdout + conflicting.stderr)
        XCTAssertTrue(conflicting.stderr.contains("Suite roundtrip.swift_to_python is in both \(report.path) and \(planted.path) with different results"), conflicting.stderr)
    }

    func testDiff_plantedRegressionExitsOne_identicalRunsExitZero() throws {
        let directory = try makeTemporaryDirectory()
        let old = try realReport(in: directory, name: "old.xml")
        let new = directory.appendingPathComponent("new.xml")
        try plantRegression(try realReport(in: directory, name: "rerun.xml", run: 2), into: new)

        let regressed = try CrosscheckBinary.run(["report", "--diff", old.path, new.path])
        XCTAssertEqual(regressed.status, 1, regressed.stdout + regressed.stderr)
        XCTAssertTrue(regressed.stdout.contains("""
            Regressions (new failures): 1
              FAIL  roundtrip.swift_to_python: crosscheck.aes-https.swift_to_python.kdf.base64-raw.aes128.envelope (was PASS)
                    swift and python AES-CBC ciphertext: 1 of 32 bytes differ, the first at offset 31
            Fixed: none
            Newly skipped: none
            """), regressed.stdout)
        XCTAssertTrue(regressed.stdout.hasSuffix("\n1 regression\n"), regressed.stdout)

        let fixed = try CrosscheckBinary.run(["report", "--diff", new.path, old.path])
        XCTAssertEqual(fixed.status, 0, fixed.stdout)
        XCTAssertTrue(fixed.stdout.contains("Fixed: 1\n  PASS  roundtrip.swift_to_python: crosscheck.aes-https.swift_to_python.kdf.base64-raw.aes128.envelope (was FAIL)\n"), fixed.stdout)

        // Fewer checks in the new run: removed, not a regression; the old run's extra checks are listed.
        let fewer = directory.appendingPathComponent("fewer.xml")
        XCTAssertEqual(try CrosscheckBinary.run(["run", "--filter", "kdf.base64", "--seed", "3", "--quiet", "--junit", fewer.path]).status, 0)
        let removed = try CrosscheckBinary.run(["report", "--diff", old.path, fewer.path])
        XCTAssertEqual(removed.status, 0, removed.stdout)
        XCTAssertTrue(removed.stdout.contains("\nRemoved checks: 13\n"), removed.stdout)
    }

    func testDiff_aPartialNewReportIsNotAPass() throws {
        let directory = try makeTemporaryDirectory()
        let old = try realReport(in: directory)
        let empty = directory.appendingPathComponent("empty.xml")
        try Data("<testsuites/>".utf8).write(to: empty)
        let outcome = try CrosscheckBinary.run(["report", "--diff", old.path, empty.path])
        XCTAssertEqual(outcome.status, 65, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("Removed checks: 22"), outcome.stdout)
        XCTAssertTrue(outcome.stderr.contains("has no testcases"), outcome.stderr)
    }

    func testUsageErrors_exit64_missingInputs_exit66() throws {
        for arguments in [["report"], ["report", "--diff", "a.xml"], ["report", "--diff", "a", "b", "c"],
                          ["report", "--diff", "a", "b", "--merge", "m.xml"], ["report", "--failures", "-1", "x.xml"], ["report", "--bogus", "x.xml"]] {
            let outcome = try CrosscheckBinary.run(arguments)
            XCTAssertEqual(outcome.status, 64, "\(arguments): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains("crosscheck report --help"), outcome.stderr)
        }
        let missing = try CrosscheckBinary.run(["report", "/nonexistent/report.xml"])
        XCTAssertEqual(missing.status, 66, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("/nonexistent/report.xml"), missing.stderr)
        let help = try CrosscheckBinary.run(["report", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("65   a report is partial or has no"), help.stdout)
    }

    /// A suite's counts and time are the same in the progress lines, the run's summary table and
    /// `crosscheck report` on the file: sessions suites come in several runs of checks, and the last
    /// progress line of each holds its totals.
    func testProgressTableAndReportAgreeOnEverySuite() throws {
        let report = try makeTemporaryDirectory().appendingPathComponent("sessions.xml")
        let run = try CrosscheckBinary.run(["run", "--suite", "sessions", "--transport", "inprocess", "--seed", "2", "--junit", report.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        var progress: [String: (counts: [Int], time: String)] = [:]
        let line = try NSRegularExpression(pattern: #"^  (\S+): (\d+) passed, (\d+) failed, (\d+) errors, (\d+) skipped(?: \(\d+ known\))? \((\d+\.\d{3})s\)$"#)
        for text in run.stderr.split(separator: "\n").map(String.init) {
            guard let match = line.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { continue }
            let group = { (index: Int) in String(text[Range(match.range(at: index), in: text)!]) }
            progress[group(1)] = ((2...5).map { Int(group($0))! }, group(6))
        }
        let reread = try CrosscheckBinary.run(["report", report.path])
        XCTAssertEqual(reread.status, 0, reread.stderr)
        func rows(_ table: String) -> [String: (counts: [Int], time: String)] {
            var rows: [String: (counts: [Int], time: String)] = [:]
            for text in table.split(separator: "\n") {
                let cells = text.split(separator: " ").map(String.init)
                guard cells.count == 7, cells[0].hasPrefix("sessions."), cells[6].hasSuffix("s") else { continue }
                rows[cells[0]] = (cells[2...5].compactMap { Int($0) }, String(cells[6].dropLast()))
            }
            return rows
        }
        let table = rows(run.stdout)
        let fromFile = rows(reread.stdout)
        XCTAssertGreaterThanOrEqual(table.count, 6, run.stdout)
        XCTAssertEqual(Set(progress.keys), Set(table.keys), run.stderr)
        for (suite, row) in table {
            XCTAssertEqual(progress[suite]?.counts, row.counts, suite)
            XCTAssertEqual(progress[suite]?.time, row.time, suite)
            XCTAssertEqual(fromFile[suite]?.counts, row.counts, suite)
            XCTAssertEqual(fromFile[suite]?.time, row.time, suite)
        }
    }
}
