import Foundation

/// Merging reports (shards of one run, or runs of different suites) into one.
public enum ReportMerge {
    /// The merged report and what was left out of it.
    public struct Merged: Sendable, Equatable {
        public var report: JUnitReport
        /// One line per suite dropped because an identical copy was already merged, e.g.
        /// "dropped suite roundtrip.swift_to_python from b.xml: identical to the one from a.xml".
        public var dropped: [String]
    }

    /// Concatenates the suites of all inputs in order. Suite ids are positions, assigned when a
    /// report is written, so the merged report is numbered 0, 1, 2, ... again.
    ///
    /// A suite name seen in an earlier input is never merged twice: an identical copy (the same
    /// file given twice, say) is dropped and said so in `dropped`; a suite of that name with other
    /// contents is an error, since adding both would count its testcases twice and keeping either
    /// would hide the other's results. Repeated names inside one input are kept as they are.
    /// - Throws: `ReportError.duplicateSuite` naming the suite and both inputs.
    public static func merge(_ inputs: [(source: String, report: JUnitReport)]) throws -> Merged {
        var suites: [JUnitSuite] = []
        var seen: [String: (source: String, index: Int)] = [:]
        var dropped: [String] = []
        for (source, report) in inputs {
            var namesInThisInput: Set<String> = []
            for suite in report.suites {
                if let earlier = seen[suite.name], !namesInThisInput.contains(suite.name) {
                    guard suites[earlier.index] == suite else {
                        throw ReportError.duplicateSuite(name: suite.name, firstPath: earlier.source, secondPath: source)
                    }
                    dropped.append("dropped suite \(suite.name) from \(source): identical to the one from \(earlier.source)")
                    continue
                }
                namesInThisInput.insert(suite.name)
                if seen[suite.name] == nil { seen[suite.name] = (source, suites.count) }
                suites.append(suite)
            }
        }
        return Merged(report: JUnitReport(suites: suites), dropped: dropped)
    }
}
