import Foundation
import Reports

/// `crosscheck report`: review JUnit reports, gate CI on them, merge shards, render HTML, and
/// compare two runs.
enum ReportCommand: Command {
    static let name = "report"
    static let abstract = "Review JUnit reports: summary and CI gate, merge shards, a self-contained HTML page, diff two runs."
    static let usage = """
    USAGE: crosscheck report [--failures N] [--allow-partial] [--merge OUT] [--html OUT] FILE...
           crosscheck report --diff OLD NEW [--failures N] [--allow-partial]

    Prints the suites, totals and the first failures of the reports (each failure's message, the first
    lines of its body and its byte diff), and exits non-zero unless they are complete and passed.
    Several FILEs are merged first: a suite found in two of them is merged once when both copies are
    identical (the drop is reported) and refused when they differ, since it would be counted twice.

    OPTIONS:
      --merge OUT      also write the merged report to OUT (schema-valid JUnit, written atomically)
      --html OUT       also write one self-contained HTML page (no external assets, works offline):
                       coverage matrix (profile × relation), failures with byte diffs, every suite
                       collapsible, a filter by name
      --diff OLD NEW   compare two reports (e.g. main's last report and this run's): regressions (new
                       failures), fixed checks, newly skipped, new and removed checks; exit 1 on regressions
      --failures N     how many failures (with --diff: entries per section) to list (default 10; 50 with --diff)
      --allow-partial  accept a partial report (an interrupted run: property crosscheck.partial) or one
                       with no testcases, instead of exiting 65
      -h, --help       this help

    EXIT STATUS: 0 the reports are complete and have no failures or errors (--diff: no regressions),
    1 failures or errors (--diff: regressions), 64 usage error, 65 a report is partial or has no
    testcases (unless --allow-partial), or two inputs hold different suites of the same name,
    66 an input is missing or not JUnit XML, 73 OUT not writable. --merge and --html outputs are
    written before the exit status is decided, so a partial report can still be looked at.
    """

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        let merge = try arguments.option("--merge")
        let html = try arguments.option("--html")
        let diff = try arguments.option("--diff")
        let shown = try arguments.integer("--failures")
        let allowPartial = arguments.flag("--allow-partial")
        var files = try arguments.positionals()
        if let shown, shown < 0 { throw CommandExit.usage("--failures takes a count of 0 or more", command: self) }

        if let diff {
            guard merge == nil, html == nil else {
                throw CommandExit.usage("--diff compares two reports; it does not combine with --merge or --html", command: self)
            }
            files.insert(diff, at: 0)
            guard files.count == 2 else {
                throw CommandExit.usage("--diff takes two reports, OLD and NEW (got \(files.count))", command: self)
            }
            return try compare(old: files[0], new: files[1], limit: shown ?? 50, allowPartial: allowPartial)
        }

        guard !files.isEmpty else { throw CommandExit.usage("name at least one JUnit file", command: self) }
        let inputs = try files.map { (source: $0, report: try read($0)) }
        let merged: ReportMerge.Merged
        do { merged = try ReportMerge.merge(inputs) } catch {
            throw CommandExit(code: .dataError, message: "crosscheck report: \(error)")
        }
        for note in merged.dropped { printError("crosscheck report: \(note)") }
        let report = merged.report
        if let merge {
            do { try JUnitXML.write(report, to: URL(fileURLWithPath: merge)) } catch {
                throw CommandExit(code: .cannotCreate, message: "crosscheck report: \(error)")
            }
            print("merged \(files.count) report(s), \(report.suites.count) suite(s), \(report.tests) tests into \(merge)")
        }
        if let html {
            do { try HTMLReport.write(report, sources: files, notes: merged.dropped, to: URL(fileURLWithPath: html)) } catch {
                throw CommandExit(code: .cannotCreate, message: "crosscheck report: \(error)")
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: html)[.size] as? Int) ?? nil
            print("HTML report: \(html)\(size.map { " (\($0) bytes)" } ?? "")")
        }
        print(Summary.text(report, failuresToShow: shown ?? 10), terminator: "")
        if let problem = gate(inputs, allowPartial: allowPartial) { throw problem }
        return report.failures + report.errors == 0 ? .success : .checksFailed
    }

    /// `--diff OLD NEW`.
    static func compare(old oldPath: String, new newPath: String, limit: Int, allowPartial: Bool) throws -> ExitCode {
        let old = try read(oldPath)
        let new = try read(newPath)
        let diff = ReportDiff(old: old, new: new)
        print(diff.text(oldName: oldPath, old: old, newName: newPath, new: new, limit: limit), terminator: "")
        if let problem = gate([(oldPath, old), (newPath, new)], allowPartial: allowPartial) { throw problem }
        return diff.hasRegressions ? .checksFailed : .success
    }

    static func read(_ path: String) throws -> JUnitReport {
        do { return try JUnitXML.read(from: URL(fileURLWithPath: path)) } catch {
            throw CommandExit(code: .noInput, message: "crosscheck report: \(error)")
        }
    }

    /// Exit 65 for a partial report or one with no testcases, naming each such input, unless allowed.
    static func gate(_ inputs: [(source: String, report: JUnitReport)], allowPartial: Bool) -> CommandExit? {
        var problems: [String] = []
        for (source, report) in inputs {
            if report.isPartial {
                problems.append("\(source) is a partial report (\(report.partialNotes.joined(separator: "; "))): "
                    + "the checks that did not run are not passes")
            }
            if report.tests == 0 {
                problems.append("\(source) has no testcases: nothing was checked, so nothing passed")
            }
        }
        guard !problems.isEmpty, !allowPartial else { return nil }
        return CommandExit(code: .dataError, message: problems.map { "crosscheck report: \($0)." }.joined(separator: "\n")
            + "\nRerun to completion (check that --suite/--filter select checks and that the run wrote this file), "
            + "or pass --allow-partial to accept an incomplete report. Exit status 65.")
    }
}
