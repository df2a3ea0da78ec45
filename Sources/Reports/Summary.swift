import Foundation

/// A short plain-text summary of a report for the terminal:
///
///     suite                        tests  passed  failed  errors  skipped     time
///     roundtrip.swift_to_python        6       3       1       1        1   1.234s
///     total                            6       3       1       1        1   1.234s
///     3 passed, 1 failed, 1 errors, 1 skipped
///
///     Failures and errors (2):
///       FAILED crosscheck.rsa.swift_to_python.sign_pss: signature does not verify
///       ERROR  crosscheck.rsa.swift_to_python.decrypt_oaep: python server timed out
///
/// Messages are cut to their first line and to `messageWidth` characters, and control characters
/// (terminal escape sequences included) are shown escaped, so a hostile message cannot garble the
/// terminal.
public struct Summary: Sendable {
    static let messageWidth = 200

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

        lines.append("\(report.passed) passed, \(report.failures) failed, \(report.errors) errors, \(report.skipped) skipped")

        var problems: [String] = []
        for suite in report.suites {
            for testCase in suite.cases {
                let label: String
                let message: String
                let type: String
                let details: String
                switch testCase.outcome {
                case .failed(let m, let t, let d): (label, message, type, details) = ("FAILED", m, t, d)
                case .error(let m, let t, let d): (label, message, type, details) = ("ERROR ", m, t, d)
                case .passed, .skipped: continue
                }
                let id = testCase.classname.isEmpty ? testCase.name : testCase.classname + "." + testCase.name
                let firstLine = [message, details, type].lazy
                    .map { $0.split(whereSeparator: \.isNewline).first.map(String.init) ?? "" }
                    .first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? "(no message)"
                problems.append("  \(label) \(printable(id)): \(clip(printable(firstLine)))")
            }
        }
        if !problems.isEmpty && failuresToShow > 0 {
            lines.append("")
            let shown = min(failuresToShow, problems.count)
            lines.append(shown == problems.count
                ? "Failures and errors (\(problems.count)):"
                : "Failures and errors (first \(shown) of \(problems.count)):")
            lines.append(contentsOf: problems.prefix(shown))
            if shown < problems.count { lines.append("  ... and \(problems.count - shown) more") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func counts(_ tests: Int, _ passed: Int, _ failed: Int, _ errors: Int, _ skipped: Int,
                       _ time: TimeInterval) -> [String] {
        [String(tests), String(passed), String(failed), String(errors), String(skipped),
         JUnitFormat.formatTime(time) + "s"]
    }

    /// Control characters (C0, DEL, C1: the bytes terminals act on) shown as `\x1B` and the like,
    /// so names and messages cannot move the cursor or recolour the terminal.
    static func printable(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F:
                out.append(contentsOf: JUnitFormat.escape(scalar).unicodeScalars)
            default:
                out.append(scalar)
            }
        }
        return String(out)
    }

    static func clip(_ text: String) -> String {
        text.count <= messageWidth ? text : String(text.prefix(messageWidth - 1)) + "…"
    }
}
