import Foundation

/// Recognises the byte diff a check puts in a failure body (the text `ByteDiff` in
/// Sources/Conformance/ByteDiff.swift renders; Reports depends on nothing, so the text is the
/// contract) so the terminal summary can always show it and the HTML can highlight the bytes:
///
///     byte diff: 1 of 65552 bytes differ (first at offset 65551, last at offset 65551); expected 65552 bytes, actual 65552 bytes
///       expected @65535  41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50
///       actual   @65535  41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50
///       expected @65551  51
///       actual   @65551  52
///                        ^^
public struct ByteDiffText: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        public let offset: Int
        /// Two hex digits per byte, `--` where that side has no byte.
        public let expected: [String]
        public let actual: [String]
        /// Whether each position differs.
        public var differs: [Bool] {
            (0..<max(expected.count, actual.count)).map { index in
                (index < expected.count ? expected[index] : "--") != (index < actual.count ? actual[index] : "--")
            }
        }
    }

    /// The first line, as written ("byte diff: …").
    public let summary: String
    public let rows: [Row]
    /// Which lines of the body the block occupies.
    public let lineRange: Range<Int>

    static let headerPrefix = "byte diff: "

    /// The first byte diff block in `lines`, if any.
    public static func find(in lines: [String]) -> ByteDiffText? {
        guard let start = lines.firstIndex(where: { $0.hasPrefix(headerPrefix) }) else { return nil }
        var rows: [Row] = []
        var index = start + 1
        while index < lines.count {
            let line = lines[index]
            if let (offset, expected) = rowLine(line, side: "expected"), index + 1 < lines.count,
               let (actualOffset, actual) = rowLine(lines[index + 1], side: "actual"), actualOffset == offset {
                rows.append(Row(offset: offset, expected: expected, actual: actual))
                index += 2
            } else if isMarkLine(line) {
                index += 1
            } else {
                break
            }
        }
        return ByteDiffText(summary: lines[start], rows: rows, lineRange: start..<index)
    }

    /// "  expected @123  41 42" → (123, ["41", "42"]); nil for any other line.
    static func rowLine(_ line: String, side: String) -> (Int, [String])? {
        let prefix = "  " + side.padding(toLength: 8, withPad: " ", startingAt: 0) + " @"
        guard line.hasPrefix(prefix) else { return nil }
        let rest = line.dropFirst(prefix.count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard let offset = Int(digits) else { return nil }
        let tokens = rest.dropFirst(digits.count).split(separator: " ").map(String.init)
        guard tokens.allSatisfy({ $0 == "--" || ($0.count == 2 && $0.allSatisfy(\.isHexDigit)) }) else { return nil }
        return (offset, tokens)
    }

    static func isMarkLine(_ line: String) -> Bool {
        line.contains("^^") && line.allSatisfy { $0 == " " || $0 == "^" }
    }
}
