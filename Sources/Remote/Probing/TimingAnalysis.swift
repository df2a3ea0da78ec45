import Foundation
import Conformance

extension RemoteRun {
    /// `--timing N` for one audit: N interleaved rounds over the classes the server refused,
    /// `latency(class, round)` per sample, and the signed-rank finding `name` (never gating). A
    /// sample that gets no answer ends the rounds; the finding says where. Returns the analysis
    /// (nil: fewer than two classes), for an audit whose verdict timing decides under `--strict`.
    @discardableResult
    func timingFinding<Class>(_ name: String, refused: [Class], named className: (Class) -> String, rounds count: Int,
                              latency: (_ probeClass: Class, _ round: Int) throws -> Double?) -> TimingAnalysis? {
        guard refused.count >= 2 else {
            finding(name, weak: false, gating: false, "timing: fewer than two refused classes to compare")
            return nil
        }
        var latencies: [String: [Double]] = [:]
        var stopped: String?
        rounds: for round in 0..<count {
            for probeClass in rotated(refused, by: round) {
                guard !shouldStop(), let sample = try? latency(probeClass, round) else {
                    stopped = "round \(round + 1): class \(className(probeClass)) got no answer"
                    break rounds
                }
                latencies[className(probeClass), default: []].append(sample)
            }
        }
        let report = TimingAnalysis(classes: refused.map(className), latencies: latencies)
        finding(name, weak: report.significant, gating: false, report.summary + (stopped.map { " (stopped early at \($0))" } ?? ""))
        return report
    }
}
