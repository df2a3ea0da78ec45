import Foundation

/// A short plain-text summary of a report for the terminal:
///
///     suite                        tests  passed  failed  errors  skipped     time
///     roundtrip.swift_to_python        6       3       1       1        1   1.234s
///     total                            6       3       1       1        1   1.234s
///     3 passed, 1 failed, 1 errors, 1 skipped
///
///     Failures and errors (2):
///       FAIL  crosscheck.rsa.swift_to_python.sign_pss: signature does not verify
///             byte diff: 1 of 256 bytes differ (first at offset 255, last at offset 255); …
///             expected @239  …
///       ERROR crosscheck.rsa.swift_to_python.decrypt_oaep: python server timed out
///
/// Each failure shows its message and the first lines of its body (and the whole byte diff when
/// the body has one), so a cause written in the body ("pythonref serve did not start: cannot load
/// --cert/--key") is on screen. The words are those of `Verdict`, the same as the progress lines.
/// A suite's time is `JUnitSuite.time`, the same figure everywhere.
///
/// Lines are cut to `messageWidth` characters, and control characters (terminal escape sequences
/// included) are shown escaped, so a hostile message cannot garble the terminal.
public struct Summary: Sendable {
    static let messageWidth = 200
    /// Body lines shown under each failure (besides a byte diff, always shown whole).
    public static let bodyLines = 6

    public static func text(_ report: JUnitReport, failuresToShow: Int = 10) -> String {
        var lines: [String] = []

        let header = ["tests", "passed", "failed", "errors", "skipped", "time"]
        var rows: [(String, [String])] = report.suites.map { suite in
            (printable(suite.name), counts(suite.tests, suite.passed, suite.failures, suite.errors, suite.skipped, suite.time))
        }
        if report.suites.count != 1 {
            rows.append(("total", counts(report.tests, report.passed, report.failures, report.errors, report.skipped, report.time)))
        }
        let nameWidth = max("suite".count, rows.map(\.0.count).max() ?? 0)
        var widths = header.map(\.count)
        for (_, cells) in rows {
            for (column, cell) in cells.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ name: String, _ cells: [String]) -> String {
            var text = name + String(repeating: " ", count: nameWidth - name.count)
            for (column, cell) in cells.enumerated() {
                text += "  " + String(repeating: " ", count: widths[column] - cell.count) + cell
            }
            return text
        }
        lines.append(line("suite", header))
        for (name, cells) in rows { lines.append(line(name, cells)) }

        lines.append(countsLine(passed: report.passed, failed: report.failures, errors: report.errors,
                                skipped: report.skipped, known: report.known))
        if report.isPartial {
            lines.append("PARTIAL REPORT: \(clip(printable(report.partialNotes.joined(separator: "; ")))); the suites above are incomplete")
        }

        // Issue 33: a fleet's suites (remote.HOST:PORT, audit.HOST:PORT, …) share their checks' names;
        // each failure then says which testsuite, so which Pi, it came from.
        // Only suites named after a target (KIND.HOST:PORT) count: a run's roundtrip.swift_to_python and
        // roundtrip.python_to_swift name their direction in the check's own name already.
        let kinds = report.suites.map { suite -> String in
            let parts = suite.name.split(separator: ".", maxSplits: 1).map(String.init)
            return parts.count == 2 && parts[1].contains(":") ? parts[0] : suite.name
        }
        let several = Set(kinds.filter { kind in kinds.filter { $0 == kind }.count > 1 })
        var problems: [[String]] = []
        for (suite, kind) in zip(report.suites, kinds) {
            for testCase in suite.cases where testCase.outcome.verdict.isProblem {
                problems.append(failureLines(testCase, suite: several.contains(kind) ? suite.name : nil))
            }
        }
        if !problems.isEmpty && failuresToShow > 0 {
            lines.append("")
            let shown = min(failuresToShow, problems.count)
            lines.append(shown == problems.count
                ? "Failures and errors (\(problems.count)):"
                : "Failures and errors (first \(shown) of \(problems.count)):")
            for problem in problems.prefix(shown) { lines.append(contentsOf: problem) }
            if shown < problems.count { lines.append("  ... and \(problems.count - shown) more") }
        }
        // Issue 33: what the audits found (weaknesses, findings) by name, not only "7 skipped".
        let findings = zip(report.suites, kinds).filter { $0.0.name == "audit" || $0.0.name.hasPrefix("audit.") }.flatMap { suite, kind in
            suite.cases.filter { $0.outcome.isSkipped && !$0.outcome.isKnown }.map { testCase in
                // Typed parts and one interpolation: as a `+` chain of interpolations and a ternary this
                // line took the type checker 30 s of the build (-warn-long-function-bodies).
                let place: String = several.contains(kind) ? " [\(printable(suite.name))]" : ""
                let first: String = testCase.outcome.message.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
                return "  SKIP  \(printable(testCase.name))\(place): \(clip(printable(first)))"
            }
        }
        if !findings.isEmpty && failuresToShow > 0 {
            lines.append("")
            let shown = min(max(failuresToShow, 20), findings.count)
            lines.append("Weaknesses and findings of the audits (\(findings.count), skipped: --strict fails the weaknesses):")
            lines += findings.prefix(shown)
            if shown < findings.count { lines.append("  ... and \(findings.count - shown) more") }
        }
        lines.append(contentsOf: weaknessLines(report, limit: max(failuresToShow, 0)))
        return lines.joined(separator: "\n") + "\n"
    }

    /// "Weaknesses (n):": what passed or was skipped but is weak, so it is on screen and not only in
    /// the report: each finding (a skip "weakness: …", as the audits write them) with its place,
    /// and each weakness checks carry (their "weakness" property, e.g. PKCS#1 v1.5) once, with how
    /// many checks and the first of them. Empty when there are none.
    static func weaknessLines(_ report: JUnitReport, limit: Int) -> [String] {
        var findings: [String] = []
        var carried: [(weakness: String, count: Int, first: String)] = []
        for suite in report.suites {
            // The audits' own findings are listed above, by testsuite ("Weaknesses and findings of the audits").
            let isAudit = suite.name == "audit" || suite.name.hasPrefix("audit.")
            for testCase in suite.cases {
                if !isAudit, case let .skipped(message) = testCase.outcome, message.hasPrefix("weakness: ") {
                    findings.append("  WEAK  \(printable(testCase.id)): \(clip(printable(String(message.dropFirst("weakness: ".count)))))")
                }
                guard !testCase.outcome.verdict.isProblem else { continue }
                for property in testCase.properties where property.name == "weakness" {
                    for weakness in property.value.components(separatedBy: "; ") where !weakness.isEmpty {
                        if let index = carried.firstIndex(where: { $0.weakness == weakness }) { carried[index].count += 1 } else {
                            carried.append((weakness, 1, testCase.id))
                        }
                    }
                }
            }
        }
        let entries = findings + carried.map { "  WEAK  \(clip(printable($0.weakness))): \($0.count) check\($0.count == 1 ? "" : "s") (\(printable($0.first))\($0.count > 1 ? ", …" : ""))" }
        guard !entries.isEmpty, limit > 0 else { return [] }
        let shown = min(limit, entries.count)
        var lines = ["", shown == entries.count ? "Weaknesses (\(entries.count)):" : "Weaknesses (first \(shown) of \(entries.count)):"]
        lines.append(contentsOf: entries.prefix(shown))
        if shown < entries.count { lines.append("  ... and \(entries.count - shown) more (the report has them all)") }
        return lines
    }

    /// "3 passed, 1 failed, 1 errors, 1 skipped", with " (1 known)" when some skips are known
    /// problems: the totals line of the summary and of every progress line.
    public static func countsLine(passed: Int, failed: Int, errors: Int, skipped: Int, known: Int = 0) -> String {
        "\(passed) passed, \(failed) failed, \(errors) errors, \(skipped) skipped" + (known > 0 ? " (\(known) known)" : "")
    }

    /// "FAIL  crosscheck.x.y.name: message", then the first body lines (and any byte diff), indented.
    static func failureLines(_ testCase: JUnitCase, suite: String? = nil) -> [String] {
        let verdict = testCase.outcome.verdict
        let id = testCase.id
        let type = testCase.outcome.type
        let message = testCase.outcome.message
        var body = bodyLines(testCase.outcome.details)
        var first = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        if first.trimmingCharacters(in: .whitespaces).isEmpty {
            // No message: the body's first line stands in for it (and is not repeated below).
            if let index = body.firstIndex(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                first = body[index]
                body.removeSubrange(...index)
            } else {
                first = type.isEmpty ? "(no message)" : type
            }
        }
        let place = suite.map { " [\(printable($0))]" } ?? ""
        var lines = ["  \(verdict.padded) \(printable(id))\(place): \(clip(printable(first)))"]
        let indent = String(repeating: " ", count: 2 + 5 + 1)
        for line in excerpt(body) { lines.append(indent + clip(printable(line))) }
        return lines
    }

    /// The body's lines without trailing blank ones.
    static func bodyLines(_ details: String) -> [String] {
        var lines = details.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { String($0).replacingOccurrences(of: "\r", with: "") }
        while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
        while let first = lines.first, first.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeFirst() }
        return lines
    }

    /// The first `bodyLines` lines, plus a byte diff block wherever it is, with "…" for what is left out.
    static func excerpt(_ lines: [String]) -> [String] {
        var keep = Set(0..<min(bodyLines, lines.count))
        if let diff = ByteDiffText.find(in: lines) { keep.formUnion(diff.lineRange) }
        var out: [String] = []
        var skipped = 0
        for (index, line) in lines.enumerated() {
            if keep.contains(index) {
                if skipped > 0 { out.append("… (\(skipped) more line\(skipped == 1 ? "" : "s"))"); skipped = 0 }
                out.append(line)
            } else {
                skipped += 1
            }
        }
        if skipped > 0 { out.append("… (\(skipped) more line\(skipped == 1 ? "" : "s") in the report)") }
        return out
    }

    static func counts(_ tests: Int, _ passed: Int, _ failed: Int, _ errors: Int, _ skipped: Int,
                       _ time: TimeInterval) -> [String] {
        [String(tests), String(passed), String(failed), String(errors), String(skipped),
         JUnitFormat.formatTime(time) + "s"]
    }

    /// Control characters (C0, DEL, C1: the bytes terminals act on) shown as `\x1B` and the like,
    /// so names and messages cannot move the cursor or recolour the terminal.
    public static func printable(_ text: String) -> String {
        JUnitFormat.replacing(text) { _ in nil }
    }

    static func clip(_ text: String) -> String {
        text.count <= messageWidth ? text : String(text.prefix(messageWidth - 1)) + "…"
    }
}
