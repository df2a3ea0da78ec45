import Foundation

/// One self-contained HTML page for a report: inline CSS and JavaScript, no external assets, so it
/// opens offline from a CI artifact. In order:
///
/// 1. totals, and a banner for a partial or empty report;
/// 2. the coverage matrix (`CoverageMatrix`): profiles × relations, pass / fail / skip / known;
/// 3. failures and errors first, each with its message, byte diff (differing bytes marked), body
///    and properties;
/// 4. every suite, collapsed (`<details>`), its testcases grouped by classname, with a filter by
///    name (all words must match; `#filter=words` in the address sets it) and a switch for
///    problems only;
/// 5. the properties every suite shares (seed, versions).
///
/// Everything is rendered here, so the page reads the same without JavaScript; the script only
/// filters, opens and closes, and counts what is shown. Text from the report is HTML-escaped and
/// control characters are shown as `\x07`-style escapes.
public enum HTMLReport {
    /// At most this many failures get a full entry at the top (all stay listed in their suites).
    public static let maxFailureEntries = 1000
    /// A failure body longer than this is cut, saying how much more the JUnit file has.
    public static let maxBodyCharacters = 20_000

    /// The page for `report`, read from `sources` (file names shown in the heading); `notes` are
    /// shown under the totals (e.g. suites a merge dropped as duplicates).
    public static func render(_ report: JUnitReport, sources: [String], notes: [String] = []) -> String {
        var page = Page()
        let matrix = CoverageMatrix(report)
        let problems = report.failures + report.errors
        let title = "crosscheck report: \(report.tests) tests, \(problems == 0 ? "no failures" : "\(problems) failed")"
        page.add("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        page.add("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        page.add("<title>\(escape(title))</title>\n<style>\(HTMLAssets.css)</style>\n</head>\n<body>\n<main>\n")

        header(&page, report, sources: sources, notes: notes)
        matrixSection(&page, matrix)
        failuresSection(&page, report)
        // Properties every suite carries (the run's environment): shown once under Run, left out per suite.
        let shared = sharedProperties(report)
        suitesSection(&page, report, shared: shared)
        runSection(&page, shared: shared)

        page.add("</main>\n<script>\(HTMLAssets.script)</script>\n</body>\n</html>\n")
        return page.text
    }

    /// Renders and writes atomically (`ReportError.cannotWrite` on failure).
    public static func write(_ report: JUnitReport, sources: [String], notes: [String] = [], to url: URL) throws {
        try AtomicFile.write(Data(render(report, sources: sources, notes: notes).utf8), to: url)
    }

    // MARK: Sections

    static func header(_ page: inout Page, _ report: JUnitReport, sources: [String], notes: [String]) {
        page.add("<header>\n<h1>crosscheck report</h1>\n")
        let stamps = report.suites.map(\.timestamp)
        var sub = "from " + sources.map { "<code>\(escape($0))</code>" }.joined(separator: ", ")
        if let first = stamps.min(), let last = stamps.max() {
            sub += " · run " + escape(JUnitFormat.formatTimestamp(first)).replacingOccurrences(of: "T", with: " ")
            if last > first { sub += " to " + escape(JUnitFormat.formatTimestamp(last)).replacingOccurrences(of: "T", with: " ") }
            sub += " UTC"
        }
        let hosts = Array(Set(report.suites.map(\.hostname).filter { !$0.isEmpty })).sorted()
        if !hosts.isEmpty { sub += " on " + hosts.map(escape).joined(separator: ", ") }
        page.add("<p class=\"sub\">\(sub)</p>\n")

        page.add("<div class=\"totals\" id=\"totals\">")
        let boxes: [(String, String, Int)] = [
            ("tests", "tests", report.tests), ("passed", "pass", report.passed), ("failed", "fail", report.failures),
            ("errors", "error", report.errors), ("skipped", "skip", report.skipped), ("known", "known", report.known),
        ]
        for (label, kind, count) in boxes {
            page.add("<div class=\"tot \(kind)\(count > 0 && (kind == "fail" || kind == "error") ? " hot" : "")\" data-kind=\"\(kind)\" data-count=\"\(count)\"><b>\(count)</b>\(label)\(kind == "known" ? " (of the skipped)" : "")</div>")
        }
        page.add("<div class=\"tot time\" data-kind=\"time\"><b>\(JUnitFormat.formatTime(report.time))</b>seconds</div></div>\n")

        if report.isPartial {
            page.add("<div class=\"banner partial\" id=\"partial\">Partial report: \(escape(report.partialNotes.joined(separator: "; "))). "
                + "Checks after the interruption did not run; missing checks are not passes.</div>\n")
        }
        if report.tests == 0 {
            page.add("<div class=\"banner bad\" id=\"empty\">This report has no testcases: nothing was checked.</div>\n")
        } else if report.failures + report.errors > 0 {
            let parts = [(report.failures, "failed", "failed"), (report.errors, "error", "errors")]
                .filter { $0.0 > 0 }.map { "\($0.0) \($0.0 == 1 ? $0.1 : $0.2)" }
            page.add("<div class=\"banner bad\" id=\"verdict\">\(parts.joined(separator: " and ")) out of \(report.tests) testcases.</div>\n")
        } else {
            page.add("<div class=\"banner good\" id=\"verdict\">No failures or errors in \(report.tests) testcases"
                + "\(report.skipped > 0 ? " (\(report.skipped) skipped)" : "").</div>\n")
        }
        for note in notes { page.add("<p class=\"note\">\(escape(note))</p>\n") }
        page.add("</header>\n")
    }

    static func matrixSection(_ page: inout Page, _ matrix: CoverageMatrix) {
        page.add("<section id=\"coverage\">\n<h2>Coverage: profiles × relations</h2>\n")
        page.add("<div class=\"scroll\"><table id=\"matrix\">\n<thead><tr><th>profile (seed system)</th>")
        for relation in matrix.relations { page.add("<th>\(escape(relation.rawValue))</th>") }
        page.add("<th>all</th></tr></thead>\n<tbody>\n")
        for profile in matrix.profiles {
            page.add("<tr data-profile=\"\(escape(profile))\"><th>\(escape(profile))")
            if let seeds = CoverageMatrix.seeds(of: profile) { page.add("<small>\(escape(seeds))</small>") }
            page.add("</th>")
            for relation in matrix.relations {
                cell(&page, matrix.counts(profile, relation), profile: profile, relation: relation.rawValue)
            }
            cell(&page, matrix.rowTotal(profile), profile: profile, relation: "all")
            page.add("</tr>\n")
        }
        page.add("</tbody>\n<tfoot><tr><th>all</th>")
        for relation in matrix.relations { cell(&page, matrix.columnTotal(relation), profile: "all", relation: relation.rawValue) }
        cell(&page, matrix.total, profile: "all", relation: "all")
        page.add("</tr></tfoot>\n</table></div>\n")
        page.add("<p class=\"legend\">Rows come from the testcase classnames <code>crosscheck.&lt;profile&gt;.&lt;relation&gt;</code>, "
            + "columns from the relation and the suite. <span class=\"n pass\">pass</span> <span class=\"n fail\">fail</span> "
            + "(failures and errors) <span class=\"n skip\">skip</span> <span class=\"n known\">known</span> (a skip for a known "
            + "problem, message <code>known: …</code>); — no testcases.</p>\n</section>\n")
    }

    static func cell(_ page: inout Page, _ counts: CoverageMatrix.Counts, profile: String, relation: String) {
        let state = counts.total == 0 ? "empty" : counts.problems > 0 ? "bad" : counts.pass > 0 ? "ok" : "skipped"
        page.add("<td class=\"cell \(state)\" data-profile=\"\(escape(profile))\" data-relation=\"\(escape(relation))\" "
            + "data-pass=\"\(counts.pass)\" data-fail=\"\(counts.fail)\" data-error=\"\(counts.error)\" "
            + "data-skip=\"\(counts.skip)\" data-known=\"\(counts.known)\"")
        guard counts.total > 0 else { page.add(" title=\"no testcases\">—</td>"); return }
        page.add(" title=\"\(counts.pass) passed, \(counts.fail) failed, \(counts.error) errors, \(counts.skip) skipped, \(counts.known) known\">")
        if counts.problems > 0 { page.add("<span class=\"n fail\">\(counts.problems) fail</span>") }
        page.add("<span class=\"n pass\">\(counts.pass) pass</span>")
        if counts.skip > 0 { page.add("<span class=\"n skip\">\(counts.skip) skip</span>") }
        if counts.known > 0 { page.add("<span class=\"n known\">\(counts.known) known</span>") }
        page.add("</td>")
    }

    static func failuresSection(_ page: inout Page, _ report: JUnitReport) {
        var entries: [(JUnitSuite, JUnitCase)] = []
        for suite in report.suites {
            for testCase in suite.cases where testCase.outcome.verdict.isProblem { entries.append((suite, testCase)) }
        }
        page.add("<section id=\"failures\">\n<h2>Failures and errors (\(entries.count))</h2>\n")
        if entries.isEmpty { page.add("<p class=\"none\">None.</p>\n") } else {
            page.add("<p class=\"none\" id=\"nofail\" hidden>No failure matches the filter.</p>\n")
        }
        for (number, (suite, testCase)) in entries.prefix(maxFailureEntries).enumerated() {
            failure(&page, suite: suite, testCase: testCase, number: number)
        }
        if entries.count > maxFailureEntries {
            page.add("<p class=\"note\">… and \(entries.count - maxFailureEntries) more, listed in their suites below.</p>\n")
        }
        page.add("</section>\n")
    }

    static func failure(_ page: inout Page, suite: JUnitSuite, testCase: JUnitCase, number: Int) {
        let verdict = testCase.outcome.verdict
        let type = testCase.outcome.type
        page.add("<article class=\"f\" id=\"f\(number)\" data-suite=\"\(escape(suite.name))\">")
        page.add("<h3><span class=\"v \(verdict.rawValue)\">\(verdict.rawValue)</span> \(escape(testCase.id))</h3>")
        var whereText = "suite <code>\(escape(suite.name))</code>"
        if !type.isEmpty { whereText += " · type \(escape(type))" }
        whereText += " · \(JUnitFormat.formatTime(testCase.time)) s"
        page.add("<p class=\"where\">\(whereText)</p>")
        let message = testCase.outcome.message
        page.add("<p class=\"msg\">\(message.isEmpty ? "(no message)" : escape(message))</p>")

        var lines = Summary.bodyLines(testCase.outcome.details)
        if let diff = ByteDiffText.find(in: lines) {
            page.add(diffHTML(diff))
            lines.removeSubrange(diff.lineRange)
        }
        var body = lines.joined(separator: "\n")
        if body.count > maxBodyCharacters {
            let more = body.count - maxBodyCharacters
            body = String(body.prefix(maxBodyCharacters)) + "\n… (\(more) more characters in the JUnit file)"
        }
        if !body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            page.add("<pre class=\"body\">\(escape(body))</pre>")
        }
        if !testCase.properties.isEmpty { page.add(propertiesLine(testCase.properties)) }
        page.add("</article>\n")
    }

    /// The byte diff with every differing byte marked, both sides aligned.
    static func diffHTML(_ diff: ByteDiffText) -> String {
        var html = "<div class=\"diff\"><p>\(escape(diff.summary))</p><pre>"
        let width = diff.rows.map { String($0.offset).count }.max() ?? 1
        for row in diff.rows {
            let offset = String(row.offset)
            let label = "@" + offset + String(repeating: " ", count: width - offset.count)
            let differs = row.differs
            for (side, tokens) in [("expected", row.expected), ("actual  ", row.actual)] {
                html += "<span class=\"side\">\(side)</span> \(label)  "
                html += tokens.enumerated().map { index, token in
                    index < differs.count && differs[index] ? "<mark>\(escape(token))</mark>" : escape(token)
                }.joined(separator: " ")
                html += "\n"
            }
        }
        return html + "</pre></div>"
    }

    static func suitesSection(_ page: inout Page, _ report: JUnitReport, shared: [JUnitProperty]) {
        page.add("<section id=\"suites\">\n<h2>Suites (\(report.suites.count))</h2>\n")
        page.add("<div class=\"toolbar\"><input id=\"filter\" type=\"search\" placeholder=\"Filter by name: suite, class, testcase, tcId, flag…\" "
            + "aria-label=\"Filter by name\" autocomplete=\"off\"><label><input type=\"checkbox\" id=\"problems\"> failures only</label>"
            + "<button type=\"button\" id=\"expand\">Expand all</button><button type=\"button\" id=\"collapse\">Collapse all</button>"
            + "<span id=\"shown\">\(report.tests) testcases</span></div>\n")
        var failureNumber = 0
        for suite in report.suites {
            let bad = suite.failures + suite.errors > 0
            page.add("<details class=\"s\(bad ? " bad" : "")\" data-suite=\"\(escape(suite.name))\"><summary>")
            page.add("<span class=\"sn\">\(escape(suite.name))</span><span class=\"sc\">")
            if bad { page.add("<span class=\"n fail\">\(suite.failures + suite.errors) fail</span>") }
            page.add("<span class=\"n pass\">\(suite.passed) pass</span>")
            let known = suite.known
            if suite.skipped - known > 0 { page.add("<span class=\"n skip\">\(suite.skipped - known) skip</span>") }
            if known > 0 { page.add("<span class=\"n known\">\(known) known</span>") }
            page.add("</span><span class=\"st\">\(JUnitFormat.formatTime(suite.time)) s</span></summary>\n")

            let own = suite.properties.filter { !shared.contains($0) }
            if !own.isEmpty { page.add(propertiesLine(own, className: "sp")) }
            page.add("<table class=\"cases\">")
            var classname: String?
            for testCase in suite.cases {
                if testCase.classname != classname {
                    classname = testCase.classname
                    page.add("<tr class=\"g\"><td colspan=\"3\">\(escape(testCase.classname))</td></tr>")
                }
                let verdict = testCase.outcome.verdict
                page.add("<tr class=\"c\(verdict.isProblem ? " x" : "")\"><td><span class=\"v \(verdict.rawValue)\">\(verdict.rawValue)</span></td><td class=\"nm\">")
                if verdict.isProblem {
                    page.add(failureNumber < maxFailureEntries ? "<a href=\"#f\(failureNumber)\">\(escape(testCase.name))</a>" : "<span>\(escape(testCase.name))</span>")
                    failureNumber += 1
                } else {
                    page.add("<span>\(escape(testCase.name))</span>")
                }
                if verdict == .skip || verdict == .known {
                    page.add("<span class=\"pr\">\(escape(testCase.outcome.message))</span>")
                }
                if !testCase.properties.isEmpty {
                    page.add("<span class=\"pr\">" + testCase.properties.map { "\(escape($0.name)): \(escape($0.value))" }.joined(separator: " · ") + "</span>")
                }
                page.add("</td><td class=\"t\">\(JUnitFormat.formatTime(testCase.time))</td></tr>\n")
            }
            page.add("</table>")
            for (label, text) in [("system-out", suite.systemOut), ("system-err", suite.systemErr)]
            where !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                page.add("<p class=\"where\">\(label)</p><pre>\(escape(String(text.prefix(maxBodyCharacters))))</pre>")
            }
            page.add("</details>\n")
        }
        page.add("</section>\n")
    }

    static func runSection(_ page: inout Page, shared: [JUnitProperty]) {
        guard !shared.isEmpty else { return }
        page.add("<section id=\"run\">\n<h2>Run</h2>\n<table class=\"props\">")
        for property in shared {
            page.add("<tr><th>\(escape(property.name))</th><td>\(escape(property.value))</td></tr>")
        }
        page.add("</table>\n</section>\n")
    }

    // MARK: Helpers

    /// Properties every suite has with the same value (a run's seed and versions), in the first
    /// suite's order; the partial marker is shown in the banner instead.
    static func sharedProperties(_ report: JUnitReport) -> [JUnitProperty] {
        guard let first = report.suites.first else { return [] }
        return first.properties.filter { property in
            property.name != JUnitReport.partialProperty && report.suites.allSatisfy { $0.properties.contains(property) }
        }
    }

    static func propertiesLine(_ properties: [JUnitProperty], className: String = "pr") -> String {
        "<p class=\"\(className)\">" + properties.map { "<b>\(escape($0.name))</b> \(escape($0.value))" }.joined(separator: " · ") + "</p>"
    }

    /// HTML-escaped text, with control characters other than tab and line breaks shown as escapes.
    static func escape(_ text: String) -> String {
        JUnitFormat.replacing(text, keep: ["\t", "\n", "\r"]) { scalar in
            switch scalar {
            case "&": return "&amp;"
            case "<": return "&lt;"
            case ">": return "&gt;"
            case "\"": return "&quot;"
            case "'": return "&#39;"
            default: return nil
            }
        }
    }

    /// Appends to one string; pages get large (thousands of testcases).
    struct Page {
        var text = ""
        mutating func add(_ piece: String) { text += piece }
    }
}
