import Foundation

/// The block of per-testcase properties at the end of a suite's `<system-out>` (the format is
/// described on `JUnitXML`). Works on UTF-8 bytes: every delimiter is ASCII, so a name starting
/// with a combining mark cannot merge with the space before it.
enum CasePropertyBlock {
    static let start = "--- testcase properties (crosscheck) ---"
    static let end = "--- end of testcase properties ---"

    /// `output` followed by the block for `cases` (unchanged when no case has properties).
    static func append(to output: String, cases: [JUnitCase]) -> String {
        guard cases.contains(where: { !$0.properties.isEmpty }) else { return output }
        var lines: [String] = [start]
        for (index, testCase) in cases.enumerated() where !testCase.properties.isEmpty {
            lines.append("testcase \(index) \(escape(testCase.name, isName: false))")
            for property in testCase.properties {
                lines.append("  \(escape(property.name, isName: true)) = \(escape(property.value, isName: false))")
            }
        }
        lines.append(end)
        let block = lines.joined(separator: "\n") + "\n"
        return output.isEmpty ? block : output + "\n" + block
    }

    /// Splits a suite's `<system-out>` into the suite's own output and the properties of each case
    /// (by index), or nil when it does not end with a block whose every index and name match `cases`.
    static func split(_ text: String, cases: [JUnitCase]) -> (output: String, properties: [(Int, [JUnitProperty])])? {
        let bytes = Array(text.utf8)
        let startBytes = Array((start + "\n").utf8)
        var body = bytes[...]
        while body.last == UInt8(ascii: "\n") { body = body.dropLast() }
        guard body.last != nil else { return nil }
        // The block is the last thing in the text: find the last start marker at a line start.
        var blockStart: Int?
        var position = body.endIndex - startBytes.count
        while position >= body.startIndex {
            if (position == body.startIndex || bytes[position - 1] == UInt8(ascii: "\n"))
                && bytes[position..<(position + startBytes.count)].elementsEqual(startBytes) {
                blockStart = position
                break
            }
            position -= 1
        }
        guard let blockStart else { return nil }
        let lines = body[(blockStart + startBytes.count)...].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard let last = lines.last, String(decoding: last, as: UTF8.self) == end else { return nil }

        var result: [(Int, [JUnitProperty])] = []
        let casePrefix = Array("testcase ".utf8)
        for line in lines.dropLast() {
            if line.starts(with: casePrefix) {
                let rest = line.dropFirst(casePrefix.count)
                guard let space = rest.firstIndex(of: UInt8(ascii: " ")),
                      let index = Int(String(decoding: rest[..<space], as: UTF8.self)),
                      index >= 0, index < cases.count,
                      unescape(rest[(space + 1)...]) == cases[index].name,
                      !result.contains(where: { $0.0 == index }) else { return nil }
                result.append((index, []))
            } else if line.starts(with: [UInt8(ascii: " "), UInt8(ascii: " ")]), !result.isEmpty {
                let rest = line.dropFirst(2)
                // Names hold no raw "=", so the first one is the separator " = ".
                guard let equals = rest.firstIndex(of: UInt8(ascii: "=")), equals > rest.startIndex,
                      rest[equals - 1] == UInt8(ascii: " ") else { return nil }
                let name = unescape(rest[..<(equals - 1)])
                var valueStart = equals + 1
                if valueStart < rest.endIndex {
                    guard rest[valueStart] == UInt8(ascii: " ") else { return nil }
                    valueStart += 1
                }
                let value = unescape(rest[valueStart...])
                result[result.count - 1].1.append(JUnitProperty(name: name, value: value))
            } else {
                return nil
            }
        }
        var output = bytes[..<blockStart]
        // The writer put exactly one line feed between the suite's output and the block.
        if !output.isEmpty {
            guard output.last == UInt8(ascii: "\n") else { return nil }
            output = output.dropLast()
        }
        return (String(decoding: output, as: UTF8.self), result)
    }

    static func escape(_ text: String, isName: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "=" where isName: out += "\\e"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func unescape(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\"), index + 1 < bytes.endIndex {
                switch bytes[index + 1] {
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); index += 2; continue
                case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n")); index += 2; continue
                case UInt8(ascii: "r"): out.append(UInt8(ascii: "\r")); index += 2; continue
                case UInt8(ascii: "e"): out.append(UInt8(ascii: "=")); index += 2; continue
                default: break
                }
            }
            out.append(byte)
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
