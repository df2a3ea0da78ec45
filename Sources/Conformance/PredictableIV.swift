import Foundation

/// Rules for IVs an observer could foretell. NIST SP 800-38A, appendix C: "for the CBC and CFB
/// modes, the IVs must be unpredictable". The aes-https profile's reuse audit (Remote) and a
/// described protocol's `fresh-per-conversation` (Described) judge a counter by this one rule.
public enum PredictableIV {
    /// Whether `b` is a counter's next value after `a`, or the one before it. Both are read as 128-bit
    /// integers, big-endian (or little-endian, with `bigEndian` false), and must differ by more than 0
    /// and less than 2³². A random 16-byte pair does so with a chance of about 2⁻⁹⁵.
    public static func isCounterStep(_ a: Data, _ b: Data, bigEndian: Bool) -> Bool {
        guard a.count == 16, b.count == 16 else { return false }
        let (x, y) = bigEndian ? (Array(a), Array(b)) : (Array(a.reversed()), Array(b.reversed()))
        guard let step = difference(y, x) ?? difference(x, y) else { return false }
        return step.prefix(12).allSatisfy { $0 == 0 }
    }

    /// `x − y` as 128-bit big-endian integers when `x > y`, else nil.
    private static func difference(_ x: [UInt8], _ y: [UInt8]) -> [UInt8]? {
        var result = [UInt8](repeating: 0, count: 16), borrow = 0
        for index in stride(from: 15, through: 0, by: -1) {
            var value = Int(x[index]) - Int(y[index]) - borrow
            borrow = value < 0 ? 1 : 0
            if value < 0 { value += 256 }
            result[index] = UInt8(value)
        }
        return borrow == 0 && result.contains(where: { $0 != 0 }) ? result : nil
    }
}
