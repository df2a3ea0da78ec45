import Foundation

/// "did you mean …?": the closest of `candidates` to what was typed, when it is close enough to be
/// a typo (edit distance at most a third of the longer word, at least 1; or one is a prefix of the other).
public func closest(to typed: String, among candidates: [String]) -> String? {
    let scored = candidates.map { ($0, editDistance(typed.lowercased(), $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    let limit = max(1, max(typed.count, best.0.count) / 3)
    if best.1 <= limit { return best.0 }
    let prefixed = candidates.filter { $0.hasPrefix(typed) && typed.count >= 3 }
    return prefixed.count == 1 ? prefixed[0] : nil
}

/// " (did you mean 'x'?)" or "".
public func didYouMean(_ typed: String, among candidates: [String]) -> String {
    closest(to: typed, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
}

/// Levenshtein distance, with a swap of two neighbouring characters counted as one edit.
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { rows[i][0] = i }
    for j in 0...b.count { rows[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1) }
        }
    }
    return rows[a.count][b.count]
}
