import Foundation

/// A short GitHub-flavoured Markdown summary of a report for a CI job page: a GitHub Actions job
/// summary (`$GITHUB_STEP_SUMMARY`) or a merge-request comment. In order:
///
/// 1. a heading with the verdict, the totals as a table, and a quoted warning for a partial or
///    empty report;
/// 2. with a baseline (main's last report), the regressions against it, as `ReportDiff` finds
///    them, and the counts of the other kinds of change;
/// 3. the coverage matrix (`CoverageMatrix`): profiles × relations with pass / fail / skip counts;
/// 4. each failure and error: its name, suite, message, and byte diff (the summary line and the
///    rows, differing bytes marked) when the body has one.
///
/// Text from the report is never trusted as Markdown: `|`, backticks, emphasis, brackets and HTML
/// are escaped, `@` is followed by a zero-width space (no one is mentioned by a message), control
/// characters are shown as `\x07`-style escapes, and a message is cut to its first line. Byte diffs
/// are rebuilt from their parsed hex rows inside a fenced block, so nothing of the body reaches
/// the page as markup.
///
/// GitHub refuses a job summary over 1 MiB, so the text is capped at `byteLimit` (UTF-8 bytes):
/// failures that do not fit are counted in a last line that points to the HTML and JUnit files.
public enum MarkdownReport {
    /// Under GitHub's 1 MiB job-summary limit, with room for what else a step appends.
    public static let defaultByteLimit = 1_000_000
    /// Entries listed per kind of change against a baseline.
    public static let maxChangeEntries = 50
    /// A message is cut to this many characters.
    static let messageWidth = 300

    public struct Baseline: Sendable {
        public let name: String
        public let report: JUnitReport
        public init(name: String, report: JUnitReport) { self.name = name; self.report = report }
    }

    /// The summary of `report` (read from `sources`); `notes` are shown under the totals (suites a
    /// merge dropped), `baseline` adds the regressions against it.
    public static func render(_ report: JUnitReport, sources: [String], notes: [String] = [],
                              baseline: Baseline? = nil, byteLimit: Int = defaultByteLimit) -> String {
        var head: [String] = []
        let problems = report.failures + report.errors
        let verdict: String
        if report.tests == 0 {
            verdict = "no testcases"
        } else if problems == 0 {
            verdict = "all \(report.tests) checks passed" + (report.skipped > 0 ? " (\(report.skipped) skipped)" : "")
        } else {
            verdict = "\(problems) of \(report.tests) checks failed"
        }
        head.append("## crosscheck: \(verdict)")
        head.append("")
        head.append("From " + sources.map(inline).joined(separator: ", ") + ".")
        head.append("")
        head.append("| tests | passed | failed | errors | skipped | known | time |")
        head.append("|---:|---:|---:|---:|---:|---:|---:|")
        head.append("| \(report.tests) | \(report.passed) | \(report.failures) | \(report.errors) | \(report.skipped) | \(report.known) | "
            + "\(JUnitFormat.formatTime(report.time)) s |")
        if report.isPartial {
            head.append("")
            head.append("> **Partial report**: " + inline(report.partialNotes.joined(separator: "; "))
                + ". Checks after the interruption did not run; missing checks are not passes.")
        }
        if report.tests == 0 {
            head.append("")
            head.append("> **No testcases**: nothing was checked, so nothing passed.")
        }
        for note in notes {
            head.append("")
            head.append("Note: " + inline(note))
        }
        if let baseline { head += baselineSection(baseline, report: report) }
        head += matrixSection(CoverageMatrix(report))

        var text = head.joined(separator: "\n") + "\n"
        let entries = report.suites.flatMap { suite in
            suite.cases.filter(\.outcome.verdict.isProblem).map { (suite, $0) }
        }
        guard !entries.isEmpty else { return text }
        text += "\n### Failures and errors (\(entries.count))\n\n"
        // Room kept for the closing line that counts what did not fit.
        let reserve = 400
        var shown = 0
        for (suite, testCase) in entries {
            let entry = failureEntry(suite: suite, testCase: testCase)
            if text.utf8.count + entry.utf8.count > byteLimit - reserve { break }
            text += entry
            shown += 1
        }
        if shown < entries.count {
            text += "\n_… and \(entries.count - shown) more failures and errors, left out to keep this summary under "
                + "\(byteLimit / 1024) KiB: see the HTML report or the JUnit file._\n"
        }
        return text
    }

    /// Renders and writes atomically (`ReportError.cannotWrite` on failure).
    public static func write(_ report: JUnitReport, sources: [String], notes: [String] = [], baseline: Baseline? = nil,
                             to url: URL) throws {
        try AtomicFile.write(Data(render(report, sources: sources, notes: notes, baseline: baseline).utf8), to: url)
    }

    // MARK: Sections

    static func baselineSection(_ baseline: Baseline, report: JUnitReport) -> [String] {
        let diff = ReportDiff(old: baseline.report, new: report)
        var lines = ["", "### Regressions since \(inline(baseline.name)): \(diff.regressions.isEmpty ? "none" : String(diff.regressions.count))"]
        if baseline.report.isPartial {
            lines += ["", "> **The baseline is a partial report**: " + inline(baseline.report.partialNotes.joined(separator: "; ")) + "."]
        }
        if !diff.regressions.isEmpty {
            lines += ["", "| | testcase | suite | before | message |", "|---|---|---|---|---|"]
            for change in diff.regressions.prefix(maxChangeEntries) {
                var name = inline(change.key.id)
                if change.key.occurrence > 0 { name += " (#\(change.key.occurrence + 1))" }
                lines.append("| **\(change.new?.rawValue ?? "")** | \(name) | \(inline(change.key.suite)) | "
                    + "\(change.old?.rawValue ?? "new check") | \(inline(firstLine(change.message))) |")
            }
            if diff.regressions.count > maxChangeEntries {
                lines.append("")
                lines.append("_… and \(diff.regressions.count - maxChangeEntries) more regressions._")
            }
        }
        let others: [(String, Int)] = [("fixed", diff.fixed.count), ("newly skipped", diff.newlySkipped.count),
                                       ("no longer skipped", diff.noLongerSkipped.count), ("new checks", diff.added.count),
                                       ("removed checks", diff.removed.count), ("still failing", diff.stillFailing.count)]
        lines += ["", others.map { "\($0.0): \($0.1)" }.joined(separator: " · ")]
        return lines
    }

    static func matrixSection(_ matrix: CoverageMatrix) -> [String] {
        guard !matrix.profiles.isEmpty else { return [] }
        var lines = ["", "### Coverage: profile × relation", ""]
        lines.append("| profile | " + matrix.relations.map { inline($0.rawValue) }.joined(separator: " | ") + " | all |")
        lines.append("|---|" + String(repeating: "---:|", count: matrix.relations.count + 1))
        for profile in matrix.profiles {
            let cells = matrix.relations.map { cell(matrix.counts(profile, $0)) } + [cell(matrix.rowTotal(profile))]
            lines.append("| **\(inline(profile))** | " + cells.joined(separator: " | ") + " |")
        }
        let totals = matrix.relations.map { cell(matrix.columnTotal($0)) } + [cell(matrix.total)]
        lines.append("| all | " + totals.joined(separator: " | ") + " |")
        return lines
    }

    /// "—", "✅ 12", or "❌ 2 fail, 10 pass", with skip and known counts when there are some.
    static func cell(_ counts: CoverageMatrix.Counts) -> String {
        guard counts.total > 0 else { return "—" }
        var parts: [String] = []
        if counts.problems > 0 { parts.append("\(counts.problems) fail") }
        if counts.problems > 0 || counts.pass > 0 { parts.append("\(counts.pass) pass") }
        if counts.skip > 0 { parts.append("\(counts.skip) skip") }
        if counts.known > 0 { parts.append("\(counts.known) known") }
        let mark = counts.problems > 0 ? "❌" : counts.pass > 0 ? "✅" : "⏭️"
        if counts.problems == 0, counts.skip == 0, counts.known == 0 { return "\(mark) \(counts.pass)" }
        return "\(mark) " + parts.joined(separator: ", ")
    }

    /// One list item: verdict, name and message; then suite and type; then the byte diff.
    static func failureEntry(suite: JUnitSuite, testCase: JUnitCase) -> String {
        let outcome = testCase.outcome
        var body = Summary.bodyLines(outcome.details)
        let diff = ByteDiffText.find(in: body)
        if let diff { body.removeSubrange(diff.lineRange) }
        var message = firstLine(outcome.message)
        if message.isEmpty {
            message = body.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? (outcome.type.isEmpty ? "(no message)" : outcome.type)
        }
        var text = "- **\(outcome.verdict.rawValue)** \(inline(testCase.id)) — \(inline(message))\\\n"
        text += "  suite \(inline(suite.name))" + (outcome.type.isEmpty ? "" : " · type \(inline(outcome.type))")
            + " · \(JUnitFormat.formatTime(testCase.time)) s\n"
        if let diff {
            text += "\n  \(inline(diff.summary))\n\n"
            text += "  ```text\n"
            let width = diff.rows.map { String($0.offset).count }.max() ?? 1
            for row in diff.rows {
                let offset = String(row.offset)
                let label = "@" + offset + String(repeating: " ", count: width - offset.count)
                text += "  expected \(label)  " + row.expected.map(hexToken).joined(separator: " ") + "\n"
                text += "  actual   \(label)  " + row.actual.map(hexToken).joined(separator: " ") + "\n"
                let marks = row.differs.map { $0 ? "^^" : "  " }.joined(separator: " ")
                if marks.contains("^") {
                    text += "  " + String(repeating: " ", count: "expected ".count + label.count + 2) + marks
                        .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + "\n"
                }
            }
            text += "  ```\n"
        }
        return text
    }

    // MARK: Escaping

    /// A hex token as `ByteDiffText` parsed it (two hex digits or `--`); anything else is replaced,
    /// so the fenced block cannot be closed from inside.
    static func hexToken(_ token: String) -> String {
        token == "--" || (token.count == 2 && token.allSatisfy(\.isHexDigit)) ? token : "??"
    }

    /// The first line of `text`, without surrounding blanks, cut to `messageWidth` characters.
    static func firstLine(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return line.count <= messageWidth ? line : String(line.prefix(messageWidth - 1)) + "…"
    }

    /// `text` as literal inline Markdown, safe in a paragraph, a list item and a table cell:
    /// control characters escaped (line breaks included, so it stays one line); what Markdown acts on
    /// inside a line backslash-escaped (code spans, emphasis, links, table cells, strikethrough,
    /// GitHub's `$` maths, `#`); `&`, `<`, `>` as entities; a zero-width space after `@`, since
    /// GitHub and GitLab find mentions in the rendered text, where an entity is an `@` again.
    /// Callers never start a line with it, so list and heading markers need no escape.
    public static func inline(_ text: String) -> String {
        JUnitFormat.replacing(text, controlPrefix: "\\") { scalar in
            switch scalar {
            case "&": return "&amp;"
            case "<": return "&lt;"
            case ">": return "&gt;"
            case "@": return "@\u{200B}"
            case "\\", "`", "*", "_", "[", "]", "|", "~", "$", "#": return "\\" + String(scalar)
            default: return nil
            }
        }
    }
}
