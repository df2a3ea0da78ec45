import Foundation

/// `--timing N`: are the latencies of two oracle classes told apart? Samples are taken in
/// interleaved rounds (one of each class per round), so round i of class A and round i of class B
/// form a pair and share whatever load the machine had then; each pair of classes gets a Wilcoxon
/// signed-rank test, as tlsfuzzer's timing analysis uses. The smallest p-value is held against
/// α = 0.05 divided by the number of pairs (Bonferroni). Reported in the audit testsuite only:
/// timing is never part of a verdict.
public struct TimingAnalysis: Sendable {
    public let classes: [String]
    public let latencies: [String: [Double]]
    public static let alpha = 0.05

    public init(classes: [String], latencies: [String: [Double]]) { self.classes = classes; self.latencies = latencies }

    public struct Comparison: Sendable {
        public let a: String, b: String
        public let test: SignedRankTest
    }

    public var comparisons: [Comparison] {
        var result: [Comparison] = []
        for (index, a) in classes.enumerated() {
            for b in classes.dropFirst(index + 1) {
                if let test = SignedRankTest(latencies[a] ?? [], latencies[b] ?? []) { result.append(Comparison(a: a, b: b, test: test)) }
            }
        }
        return result
    }

    public var threshold: Double { Self.alpha / Double(max(1, comparisons.count)) }

    /// The pair with the smallest p-value.
    public var strongest: Comparison? { comparisons.min { $0.test.pValue < $1.test.pValue } }

    public var significant: Bool { (strongest?.test.pValue ?? 1) < threshold }

    public var summary: String {
        let samples = classes.map { latencies[$0]?.count ?? 0 }.min() ?? 0
        let method = "Wilcoxon signed-rank test, pairs by round, normal approximation; \(samples) samples per class, "
            + "\(comparisons.count) pairs of classes, Bonferroni α = \(Self.alpha)/\(comparisons.count)"
        guard let strongest else { return "timing (\(method)): too few samples to compare" }
        let test = strongest.test
        let line = "smallest p = \(String(format: "%.3g", test.pValue)) for \(strongest.a) vs \(strongest.b) "
            + String(format: "(median difference %+.3f ms, effect size r = %.2f, n = %d non-zero pairs)",
                     test.medianDifference * 1000, test.effectSize, test.pairs)
        let caution = test.pairs < 20 ? "; under 20 pairs the normal approximation is rough" : ""
        return (significant ? "timing differs between padding classes: " : "timing: no significant difference between classes: ")
            + line + " (\(method)\(caution))"
    }
}

/// The Wilcoxon signed-rank test of paired samples (F. Wilcoxon, "Individual comparisons by
/// ranking methods", Biometrics Bulletin 1(6), 1945), two-sided, in its large-sample normal
/// approximation: differences dᵢ = aᵢ − bᵢ, zeros dropped (Wilcoxon's convention), |dᵢ| ranked
/// with average ranks for ties, W⁺ the sum of the ranks of positive dᵢ; under H₀
/// E[W⁺] = n(n+1)/4 and Var[W⁺] = n(n+1)(2n+1)/24 − Σ(t³ − t)/48 over groups of t tied |dᵢ|;
/// z = (|W⁺ − E| − ½)·sign / √Var with the continuity correction; p = erfc(|z|/√2). The formulas
/// as given in E. L. Lehmann, "Nonparametrics: Statistical Methods Based on Ranks" (1975), ch. 3,
/// and in the Wikipedia article "Wilcoxon signed-rank test" (sections "Normal approximation",
/// "Ties"). Effect size r = z/√n (the matched-pairs effect size of Rosenthal, 1991).
public struct SignedRankTest: Sendable {
    /// Non-zero differences.
    public let pairs: Int
    public let wPlus: Double
    public let z: Double
    public let pValue: Double
    public let effectSize: Double
    /// Median of aᵢ − bᵢ over all pairs, in the samples' unit.
    public let medianDifference: Double

    public init?(_ a: [Double], _ b: [Double]) {
        let differences = zip(a, b).map { $0 - $1 }
        let nonZero = differences.filter { $0 != 0 }
        let n = nonZero.count
        guard n >= 1 else { return nil }
        // Ranks of |d|, ties sharing the average of the ranks they span.
        let order = nonZero.indices.sorted { abs(nonZero[$0]) < abs(nonZero[$1]) }
        var ranks = [Double](repeating: 0, count: n)
        var tieCorrection = 0.0
        var start = 0
        while start < n {
            var end = start
            while end + 1 < n, abs(nonZero[order[end + 1]]) == abs(nonZero[order[start]]) { end += 1 }
            let average = Double(start + end + 2) / 2  // ranks are 1-based
            for position in start...end { ranks[order[position]] = average }
            let tied = Double(end - start + 1)
            tieCorrection += (tied * tied * tied - tied) / 48
            start = end + 1
        }
        let wPlus = zip(nonZero, ranks).filter { $0.0 > 0 }.map(\.1).reduce(0, +)
        let count = Double(n)
        let mean = count * (count + 1) / 4
        let variance = count * (count + 1) * (2 * count + 1) / 24 - tieCorrection
        let deviation = wPlus - mean
        let corrected = max(0, abs(deviation) - 0.5)
        let z = variance > 0 ? (deviation < 0 ? -corrected : corrected) / variance.squareRoot() : 0
        self.pairs = n
        self.wPlus = wPlus
        self.z = z
        self.pValue = min(1, erfc(abs(z) / 2.0.squareRoot()))
        self.effectSize = z / count.squareRoot()
        let sorted = differences.sorted()
        self.medianDifference = sorted.count % 2 == 1 ? sorted[sorted.count / 2]
            : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

/// `list` starting at index `by` mod its count: interleaved rounds that do not always send the
/// same class first.
public func rotated<T>(_ list: [T], by offset: Int) -> [T] {
    guard !list.isEmpty else { return list }
    let start = offset % list.count
    return Array(list[start...] + list[..<start])
}
