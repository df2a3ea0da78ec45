import Foundation

/// JSON text → one canonical text per JSON *value*, so two implementations' outputs compare equal
/// exactly when they mean the same thing: object keys sorted, strings compared by their Unicode
/// scalars (escapes and `\/` do not matter), integers compared exactly (`12345678901234567890123`
/// ≠ `1.2345678901234568e22`), and numbers with a fraction or exponent as IEEE binary64 values
/// (`1.0` = `1` = `1e0`, `-0` = `0`; `123456789.123456789` = `123456789.12345679`): RFC 8259 §6 lets
/// a reader keep no more precision than binary64, and PythonRef reads them as Python floats while
/// Foundation keeps them decimal. RFC 8259 strictly:
/// `NaN`, `Infinity`, leading zeros, lone surrogates and invalid UTF-8 make the text invalid,
/// which is a result of its own (`invalid JSON …`). Duplicate keys: the last one counts.
enum CanonicalJSON {
    static func canonical(_ data: Data) -> String {
        var parser = Parser(bytes: [UInt8](data))
        do {
            parser.skipWhitespace()
            let value = try parser.value(depth: 0)
            parser.skipWhitespace()
            guard parser.index == parser.bytes.count else { throw Parser.Invalid(at: parser.index) }
            return value
        } catch let invalid as Parser.Invalid {
            let shown = String(decoding: data.prefix(60), as: UTF8.self)
            return "invalid JSON at byte \(invalid.at): \(shown)\(data.count > 60 ? "…" : "")"
        } catch {
            return "invalid JSON"
        }
    }

    private struct Parser {
        struct Invalid: Error { let at: Int }
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[index]) { index += 1 }
        }

        mutating func expect(_ byte: UInt8) throws {
            guard index < bytes.count, bytes[index] == byte else { throw Invalid(at: index) }
            index += 1
        }

        mutating func value(depth: Int) throws -> String {
            guard depth < 10_000, index < bytes.count else { throw Invalid(at: index) }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [String: String] = [:]
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return "{}" }
                while true {
                    skipWhitespace()
                    let key = try string()
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"))
                    skipWhitespace()
                    members[key] = try value(depth: depth + 1)
                    skipWhitespace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    try expect(UInt8(ascii: "}"))
                    return "{" + members.keys.sorted().map { quote($0) + ":" + members[$0]! }.joined(separator: ",") + "}"
                }
            case UInt8(ascii: "["):
                index += 1
                var items: [String] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return "[]" }
                while true {
                    skipWhitespace()
                    items.append(try value(depth: depth + 1))
                    skipWhitespace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    try expect(UInt8(ascii: "]"))
                    return "[" + items.joined(separator: ",") + "]"
                }
            case UInt8(ascii: "\""): return quote(try string())
            case UInt8(ascii: "t"): try literal("true"); return "true"
            case UInt8(ascii: "f"): try literal("false"); return "false"
            case UInt8(ascii: "n"): try literal("null"); return "null"
            default: return try number()
            }
        }

        mutating func literal(_ text: String) throws {
            for byte in text.utf8 { try expect(byte) }
        }

        /// A string's Unicode scalars (escapes resolved; invalid UTF-8 or a lone surrogate is invalid).
        mutating func string() throws -> String {
            try expect(UInt8(ascii: "\""))
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() throws {
                guard !raw.isEmpty else { return }
                guard let text = String(validating: raw, as: UTF8.self) else { throw Invalid(at: index) }
                scalars.append(contentsOf: text.unicodeScalars)
                raw = []
            }
            while true {
                guard index < bytes.count else { throw Invalid(at: index) }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { try flush(); return String(scalars) }
                if byte < 0x20 { throw Invalid(at: index - 1) }
                guard byte == UInt8(ascii: "\\") else { raw.append(byte); continue }
                try flush()
                guard index < bytes.count else { throw Invalid(at: index) }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0c}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    let unit = try hex4()
                    if (0xd800..<0xdc00).contains(unit) {
                        try expect(UInt8(ascii: "\\")); try expect(UInt8(ascii: "u"))
                        let low = try hex4()
                        guard (0xdc00..<0xe000).contains(low) else { throw Invalid(at: index) }
                        scalars.append(Unicode.Scalar(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00))!)
                    } else {
                        guard let scalar = Unicode.Scalar(unit) else { throw Invalid(at: index) }
                        scalars.append(scalar)
                    }
                default: throw Invalid(at: index - 1)
                }
            }
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16) else {
                throw Invalid(at: index)
            }
            index += 4
            return value
        }

        /// A number as an exact decimal: `-`? digits `e` exponent, without leading or trailing zeros.
        mutating func number() throws -> String {
            let start = index
            var negative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
            var digits: [UInt8] = []
            var exponent = 0
            func digitRun() -> [UInt8] {
                var run: [UInt8] = []
                while index < bytes.count, (0x30...0x39).contains(bytes[index]) { run.append(bytes[index]); index += 1 }
                return run
            }
            let integer = digitRun()
            guard !integer.isEmpty, !(integer.count > 1 && integer[0] == 0x30) else { throw Invalid(at: start) }
            digits = integer
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                let fraction = digitRun()
                guard !fraction.isEmpty else { throw Invalid(at: index) }
                digits += fraction
                exponent -= fraction.count
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                var sign = 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                    index += 1
                }
                let run = digitRun()
                guard !run.isEmpty else { throw Invalid(at: index) }
                let value = Int(String(decoding: run.suffix(9), as: UTF8.self)) ?? 0
                exponent += sign * (run.count > 9 ? 999_999_999 : value)
            }
            if exponent != 0 || index - start != integer.count + (negative ? 1 : 0) {
                // A fraction or an exponent: the binary64 value, in its shortest exact form.
                guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else { throw Invalid(at: start) }
                var shortest = Parser(bytes: Array(value.description.replacingOccurrences(of: "+", with: "").utf8))
                return try shortest.exactDecimal()
            }
            return Self.normalized(negative: negative, digits: digits, exponent: exponent)
        }

        /// A number text read as an exact decimal (for `Double.description`'s output).
        mutating func exactDecimal() throws -> String {
            var negative = false
            if bytes.first == UInt8(ascii: "-") { negative = true; index += 1 }
            var digits: [UInt8] = [], exponent = 0, seenPoint = false
            while index < bytes.count {
                let byte = bytes[index]
                if (0x30...0x39).contains(byte) { digits.append(byte); if seenPoint { exponent -= 1 } } else if byte == UInt8(ascii: ".") { seenPoint = true } else { break }
                index += 1
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                exponent += Int(String(decoding: bytes[(index + 1)...], as: UTF8.self)) ?? 0
            }
            return Self.normalized(negative: negative, digits: digits, exponent: exponent)
        }

        static func normalized(negative: Bool, digits: [UInt8], exponent: Int) -> String {
            var digits = digits, exponent = exponent
            while digits.first == 0x30 { digits.removeFirst() }
            if digits.isEmpty { return "0" }
            while digits.last == 0x30 { digits.removeLast(); exponent += 1 }
            return (negative ? "-" : "") + String(decoding: digits, as: UTF8.self) + (exponent == 0 ? "" : "e\(exponent)")
        }

        func quote(_ text: String) -> String {
            "\"" + text.unicodeScalars.map { $0.value < 0x20 || $0 == "\"" || $0 == "\\" ? String(format: "\\u%04x", $0.value) : String($0) }.joined() + "\""
        }
    }
}
