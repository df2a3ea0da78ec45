import Foundation

/// Where two byte strings differ: the first and last differing offsets, how many bytes differ, both
/// lengths, and a window of both sides around the first difference in hex. A pure value: checks
/// compute it, reports only render the `text` it produces.
///
/// `text` is the contract with `Sources/Reports` (which has no dependencies and recognises it by its
/// first line, to highlight the bytes in HTML). For a 65,552-byte envelope that differs only in its
/// last byte:
///
///     byte diff: 1 of 65552 bytes differ (first at offset 65551, last at offset 65551); expected 65552 bytes, actual 65552 bytes
///       expected @65535  41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50
///       actual   @65535  41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50
///       expected @65551  51
///       actual   @65551  52
///                        ^^
///
/// A position one side does not have (it is shorter) shows `--` and counts as a difference. The
/// window holds `context` bytes before the first difference and `context` bytes from it; each row
/// holds at most 16 bytes and the first difference always starts a row, so it is easy to find.
public struct ByteDiff: Sendable, Equatable {
    public static let bytesPerRow = 16

    public let expectedCount: Int
    public let actualCount: Int
    /// Offset of the first position where the two differ (a byte differs, or one side has ended);
    /// nil when they are equal.
    public let firstDifference: Int?
    public let lastDifference: Int?
    /// Positions that differ, counting every byte only the longer side has.
    public let differingBytes: Int
    /// Offset of the first byte in the window.
    public let windowStart: Int
    /// The window's bytes of each side (shorter than the window where that side ends).
    public let expectedWindow: [UInt8]
    public let actualWindow: [UInt8]
    /// How many positions the window spans.
    public let windowLength: Int

    public init(expected: Data, actual: Data, context: Int = 16) {
        let expectedBytes = [UInt8](expected)
        let actualBytes = [UInt8](actual)
        expectedCount = expectedBytes.count
        actualCount = actualBytes.count
        let common = min(expectedBytes.count, actualBytes.count)
        let longest = max(expectedBytes.count, actualBytes.count)

        var first: Int?
        var last: Int?
        var differing = longest - common
        for index in 0..<common where expectedBytes[index] != actualBytes[index] {
            if first == nil { first = index }
            last = index
            differing += 1
        }
        if longest > common {
            if first == nil { first = common }
            last = longest - 1
        }
        firstDifference = first
        lastDifference = last
        differingBytes = differing

        let reach = max(1, context)
        let start = first.map { max(0, $0 - reach) } ?? 0
        let end = first.map { min(longest, $0 + reach) } ?? 0
        windowStart = start
        windowLength = end - start
        expectedWindow = Array(expectedBytes[min(start, expectedBytes.count)..<min(end, expectedBytes.count)])
        actualWindow = Array(actualBytes[min(start, actualBytes.count)..<min(end, actualBytes.count)])
    }

    public var isEqual: Bool { firstDifference == nil }

    /// One line: how many bytes differ, where, and both lengths — the words a failure message and
    /// the diff block (`summary`) both use.
    public var counts: String {
        guard let first = firstDifference, let last = lastDifference else { return "the \(expectedCount) bytes are equal" }
        let longest = max(expectedCount, actualCount)
        return "\(differingBytes) of \(longest) bytes differ (first at offset \(first), last at offset \(last)); "
            + "expected \(expectedCount) bytes, actual \(actualCount) bytes"
    }

    /// The diff block's first line: `byte diff: ` and `counts`.
    public var summary: String { "byte diff: \(counts)" }

    /// `summary`, then the window: rows of both sides in hex, `^^` under every differing position.
    public var text: String {
        guard let first = firstDifference else { return summary }
        // Rows: the context before the first difference, then rows starting at the first difference.
        var rowStarts: [Int] = []
        var position = windowStart
        while position < first {
            rowStarts.append(position)
            position = min(first, position + Self.bytesPerRow)
        }
        position = first
        while position < windowStart + windowLength {
            rowStarts.append(position)
            position += Self.bytesPerRow
        }
        let end = windowStart + windowLength
        let offsetWidth = rowStarts.map { String($0).count }.max() ?? 1
        var lines = [summary]
        for (index, rowStart) in rowStarts.enumerated() {
            let rowEnd = index + 1 < rowStarts.count ? rowStarts[index + 1] : end
            let offset = String(rowStart)
            let label = "@" + offset + String(repeating: " ", count: offsetWidth - offset.count)
            var expectedCells: [String] = []
            var actualCells: [String] = []
            var marks: [String] = []
            for at in rowStart..<rowEnd {
                let e = byte(expectedWindow, at)
                let a = byte(actualWindow, at)
                expectedCells.append(e.map(Self.hex) ?? "--")
                actualCells.append(a.map(Self.hex) ?? "--")
                marks.append(e == a ? "  " : "^^")
            }
            lines.append("  expected \(label)  " + expectedCells.joined(separator: " "))
            lines.append("  actual   \(label)  " + actualCells.joined(separator: " "))
            if marks.contains("^^") {
                let indent = String(repeating: " ", count: "  expected ".count + label.count + 2)
                var markLine = indent + marks.joined(separator: " ")
                while markLine.last == " " { markLine.removeLast() }
                lines.append(markLine)
            }
        }
        return lines.joined(separator: "\n")
    }

    private func byte(_ window: [UInt8], _ offset: Int) -> UInt8? {
        let index = offset - windowStart
        return index >= 0 && index < window.count ? window[index] : nil
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
