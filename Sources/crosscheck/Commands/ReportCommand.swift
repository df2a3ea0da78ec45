import Foundation
import CommandLineKit
import Reports

/// `crosscheck report`: review JUnit reports, gate CI on them, merge shards, render HTML, and
/// compare two runs.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "report", abstract: "Review JUnit reports: summary and CI gate, merge shards, a self-contained HTML page, a Markdown job summary, diff two runs.",
        synopsis: ["[--failures N] [--allow-partial] [--merge OUT] [--html OUT] [--markdown OUT] FILE...",
                   "--diff OLD NEW [--markdown OUT] [--failures N] [--allow-partial]"],
        discussion: """
        Prints the suites, totals and the first failures of the reports (each failure's message, the first
        lines of its body and its byte diff), and exits non-zero unless they are complete and passed.
        Several FILEs are merged first: a suite found in two of them is merged once when both copies are
        identical (the drop is reported) and refused when they differ, since it would be counted twice.
        --merge, --html and --markdown outputs are written before the exit status is decided, so a partial
        report can still be looked at. --markdown with --diff OLD adds the regressions against OLD.
        """,
        exitCodes: [.success, .checksFailed, .usage, .dataError, .noInput, .cannotCreate],
        exitNotes: [.success: "the reports are complete and have no failures or errors (--diff: no regressions)",
                    .checksFailed: "failures or errors (--diff: regressions)",
                    .dataError: "a report is partial or has no testcases (unless --allow-partial), or two inputs hold different suites of the same name",
                    .noInput: "an input is missing or not JUnit XML", .cannotCreate: "OUT not writable"])

    @Option(name: "--merge", value: "OUT", help: "also write the merged report to OUT (schema-valid JUnit, written atomically)")
    var merge: String?
    @Option(name: "--html", value: "OUT", help: "also write one self-contained HTML page (no external assets, works offline): coverage matrix (profile × relation), failures with byte diffs, every suite collapsible, a filter by name")
    var html: String?
    @Option(name: "--markdown", value: "OUT", help: "also write a GitHub-flavoured Markdown summary to OUT, for a CI job summary or a merge-request comment: totals, the coverage matrix, each failure with its message and byte diff, and with --diff the regressions against OLD; kept under 1 MiB (GitHub's job-summary limit)")
    var markdown: String?
    @Option(name: "--diff", value: "OLD", help: "compare OLD with the one FILE given (NEW), e.g. main's last report and this run's: regressions (new failures), fixed checks, newly skipped, new and removed checks; exit 1 on regressions")
    var diff: String?
    @Option(name: "--failures", value: "N", help: "how many failures (with --diff: entries per section) to list (default 10; 50 with --diff)")
    var shown: Int?
    @Flag(name: "--allow-partial", help: "accept a partial report (an interrupted run: property crosscheck.partial) or one with no testcases, instead of exiting 65")
    var allowPartial: Bool
    @Positionals(value: "FILE...", help: "JUnit XML reports")
    var files: [String]
    init() {}

    func validate() throws {
        if let shown, shown < 0 { throw UsageError("--failures takes a count of 0 or more, not \(shown)") }
        if diff != nil {
            guard merge == nil, html == nil else { throw UsageError("--diff compares two reports; it does not combine with --merge or --html (--markdown it does)") }
            guard files.count == 1 else { throw UsageError("--diff takes two reports, OLD and NEW (got \(files.count + 1))") }
        } else if files.isEmpty {
            throw UsageError("name at least one JUnit FILE")
        }
    }

    func run() throws -> ExitCode {
        if let diff { return try compare(old: diff, new: files[0]) }
        let inputs = try files.map { (source: $0, report: try Self.read($0)) }
        let merged: ReportMerge.Merged
        do { merged = try ReportMerge.merge(inputs) } catch {
            throw CommandExit(.dataError, "crosscheck report: \(error)")
        }
        for note in merged.dropped { printError("crosscheck report: \(note)") }
        let report = merged.report
        if let merge {
            do { try JUnitXML.write(report, to: URL(fileURLWithPath: merge)) } catch {
                throw CommandExit(.cannotCreate, "crosscheck report: \(error)")
            }
            print("merged \(files.count) report(s), \(report.suites.count) suite(s), \(report.tests) tests into \(merge)")
        }
        if let html {
            do { try HTMLReport.write(report, sources: files, notes: merged.dropped, to: URL(fileURLWithPath: html)) } catch {
                throw CommandExit(.cannotCreate, "crosscheck report: \(error)")
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: html)[.size] as? Int) ?? nil
            print("HTML report: \(html)\(size.map { " (\($0) bytes)" } ?? "")")
        }
        if let markdown { try writeMarkdown(report, notes: merged.dropped, baseline: nil, to: markdown) }
        print(Summary.text(report, failuresToShow: shown ?? 10), terminator: "")
        if let problem = Self.gate(inputs, allowPartial: allowPartial) { throw problem }
        return report.failures + report.errors == 0 ? .success : .checksFailed
    }

    /// `--diff OLD NEW`.
    func compare(old oldPath: String, new newPath: String) throws -> ExitCode {
        let old = try Self.read(oldPath)
        let new = try Self.read(newPath)
        let difference = ReportDiff(old: old, new: new)
        if let markdown {
            try writeMarkdown(new, notes: [], baseline: MarkdownReport.Baseline(name: oldPath, report: old), to: markdown)
        }
        print(difference.text(oldName: oldPath, old: old, newName: newPath, new: new, limit: shown ?? 50), terminator: "")
        if let problem = Self.gate([(oldPath, old), (newPath, new)], allowPartial: allowPartial) { throw problem }
        return difference.hasRegressions ? .checksFailed : .success
    }

    func writeMarkdown(_ report: JUnitReport, notes: [String], baseline: MarkdownReport.Baseline?, to path: String) throws {
        let sources = diff == nil ? files : [files[0]]
        do { try MarkdownReport.write(report, sources: sources, notes: notes, baseline: baseline, to: URL(fileURLWithPath: path)) } catch {
            throw CommandExit(.cannotCreate, "crosscheck report: \(error)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        print("Markdown summary: \(path)\(size.map { " (\($0) bytes)" } ?? "")")
    }

    static func read(_ path: String) throws -> JUnitReport {
        do { return try JUnitXML.read(from: URL(fileURLWithPath: path)) } catch {
            throw CommandExit(.noInput, "crosscheck report: \(error)")
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
        return CommandExit(.dataError, problems.map { "crosscheck report: \($0)." }.joined(separator: "\n")
            + "\nRerun to completion (check that --suite/--filter select checks and that the run wrote this file), "
            + "or pass --allow-partial to accept an incomplete report. Exit status 65.")
    }
}
