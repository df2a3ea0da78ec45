import Foundation

/// What changed between two reports of the same checks (a CI job's report against main's last
/// one). A testcase is identified by its suite, classname and name (and, should one report repeat
/// that triple, by which occurrence it is).
///
/// - regressions: failing (FAIL or ERROR) in the new report and not in the old one, whether it
///   passed, was skipped or did not exist there;
/// - fixed: failing in the old report, passed in the new one;
/// - newly skipped: skipped (or known) in the new report, run in the old one;
/// - no longer skipped: skipped in the old report, passed in the new one;
/// - new checks / removed checks: in only one of the two;
/// - still failing: failing in both (not a regression, but still a problem).
public struct ReportDiff: Sendable {
    public struct Key: Hashable, Sendable, Comparable {
        public let suite: String
        public let classname: String
        public let name: String
        public let occurrence: Int

        public var id: String { JUnitCase.id(classname: classname, name: name) }

        public static func < (a: Key, b: Key) -> Bool {
            (a.suite, a.classname, a.name, a.occurrence) < (b.suite, b.classname, b.name, b.occurrence)
        }
    }

    public struct Change: Sendable {
        public let key: Key
        /// nil: not in that report.
        public let old: Verdict?
        public let new: Verdict?
        /// The message of the side that matters (the new one when there is one).
        public let message: String
    }

    public let regressions: [Change]
    public let fixed: [Change]
    public let newlySkipped: [Change]
    public let noLongerSkipped: [Change]
    public let added: [Change]
    public let removed: [Change]
    public let stillFailing: [Change]

    public var hasRegressions: Bool { !regressions.isEmpty }

    public init(old: JUnitReport, new: JUnitReport) {
        let before = Self.index(old)
        let after = Self.index(new)
        var regressions: [Change] = [], fixed: [Change] = [], newlySkipped: [Change] = [], noLongerSkipped: [Change] = []
        var added: [Change] = [], removed: [Change] = [], stillFailing: [Change] = []
        for (key, now) in after.order.map({ ($0, after.cases[$0]!) }) {
            let was = before.cases[key]
            let change = Change(key: key, old: was?.outcome.verdict, new: now.outcome.verdict,
                                message: now.outcome.message.isEmpty ? (was?.outcome.message ?? "") : now.outcome.message)
            let wasVerdict = was?.outcome.verdict
            let nowVerdict = now.outcome.verdict
            if was == nil { added.append(change) }
            if nowVerdict.isProblem {
                if wasVerdict?.isProblem == true { stillFailing.append(change) } else { regressions.append(change) }
            } else if nowVerdict == .pass {
                if wasVerdict?.isProblem == true { fixed.append(change) }
                if wasVerdict == .skip || wasVerdict == .known { noLongerSkipped.append(change) }
            } else if let wasVerdict, wasVerdict == .pass || wasVerdict.isProblem {
                newlySkipped.append(change)
            }
        }
        for key in before.order where after.cases[key] == nil {
            let was = before.cases[key]!
            removed.append(Change(key: key, old: was.outcome.verdict, new: nil, message: was.outcome.message))
        }
        self.regressions = regressions
        self.fixed = fixed
        self.newlySkipped = newlySkipped
        self.noLongerSkipped = noLongerSkipped
        self.added = added
        self.removed = removed
        self.stillFailing = stillFailing
    }

    static func index(_ report: JUnitReport) -> (order: [Key], cases: [Key: JUnitCase]) {
        var order: [Key] = []
        var cases: [Key: JUnitCase] = [:]
        var seen: [Key: Int] = [:]
        for suite in report.suites {
            for testCase in suite.cases {
                let base = Key(suite: suite.name, classname: testCase.classname, name: testCase.name, occurrence: 0)
                let occurrence = seen[base, default: 0]
                seen[base] = occurrence + 1
                let key = Key(suite: suite.name, classname: testCase.classname, name: testCase.name, occurrence: occurrence)
                order.append(key)
                cases[key] = testCase
            }
        }
        return (order, cases)
    }

    /// The diff for the terminal: a line naming both reports with their totals, then each kind of
    /// change with up to `limit` entries, then the verdict line.
    public func text(oldName: String, old: JUnitReport, newName: String, new: JUnitReport, limit: Int = 50) -> String {
        func totals(_ report: JUnitReport) -> String {
            "\(report.tests) tests: " + Summary.countsLine(passed: report.passed, failed: report.failures, errors: report.errors,
                                                          skipped: report.skipped, known: report.known)
        }
        var lines = ["old: \(Summary.printable(oldName))  (\(totals(old)))",
                     "new: \(Summary.printable(newName))  (\(totals(new)))", ""]
        func section(_ title: String, _ changes: [Change], showOld: Bool) {
            lines.append("\(title): \(changes.isEmpty ? "none" : String(changes.count))")
            for change in changes.prefix(max(0, limit)) {
                let verdict = (change.new ?? change.old ?? .pass).padded
                var line = "  \(verdict) \(Summary.printable(change.key.suite)): \(Summary.printable(change.key.id))"
                if change.key.occurrence > 0 { line += " (#\(change.key.occurrence + 1))" }
                if showOld { line += change.old.map { " (was \($0.rawValue))" } ?? " (new check)" }
                lines.append(Summary.clip(line))
                let message = change.message.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
                if !message.isEmpty { lines.append("        " + Summary.clip(Summary.printable(message))) }
            }
            if changes.count > limit { lines.append("  ... and \(changes.count - max(0, limit)) more") }
        }
        section("Regressions (new failures)", regressions, showOld: true)
        section("Fixed", fixed, showOld: true)
        section("Newly skipped", newlySkipped, showOld: true)
        section("No longer skipped", noLongerSkipped, showOld: true)
        section("New checks", added, showOld: false)
        section("Removed checks", removed, showOld: false)
        section("Still failing", stillFailing, showOld: false)
        lines.append("")
        lines.append(hasRegressions
            ? "\(regressions.count) regression\(regressions.count == 1 ? "" : "s")"
            : "no regressions")
        return lines.joined(separator: "\n") + "\n"
    }
}
