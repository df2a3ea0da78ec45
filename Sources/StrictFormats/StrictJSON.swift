import Foundation

/// A JSON value as crosscheck's one strict reader parsed it. Numbers keep the text they were
/// written with (`canonicalText` decides when two numbers mean the same); strings are Unicode
/// scalars (a lone surrogate never parses). Duplicate object names: the last one counts, as in
/// Python's `json` and Foundation — but every value, overridden or not, must be valid.
public indirect enum JSONValue: Equatable, Sendable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    public subscript(key: String) -> JSONValue? {
        if case let .object(members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? { if case let .string(text) = self { return text }; return nil }
}

/// The one strict JSON reader both crosscheck's Swift side and its comparisons use: RFC 8259 in
/// UTF-8 without a byte order mark, nested at most 512 deep (the limit of Foundation's parser,
/// which PythonRef applies too). Foundation's `JSONSerialization` alone also takes trailing commas,
/// a BOM and UTF-16/32 text, which PythonRef refuses. Refused besides: a lone surrogate escape
/// anywhere (also inside a value a later duplicate name overrides), and a string that begins with
/// a raw U+FEFF, which Foundation silently drops (both found by `crosscheck fuzz`).
public enum StrictJSON {
    public static let maxDepth = 512

    /// Where and why a text is not strict JSON.
    public struct Invalid: Error, Equatable, Sendable, CustomStringConvertible {
        public let offset: Int
        public let reason: String
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    public static func parse(_ data: Data) throws -> JSONValue {
        var parser = Parser(bytes: [UInt8](data))
        parser.skipWhitespace()
        let value = try parser.value(depth: 1)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.invalid("text after the value") }
        return value
    }

    public static func isValid(_ data: Data) -> Bool { (try? parse(data)) != nil }

    /// The document as Foundation objects (dictionaries, arrays, NSNumber, NSNull), or nil if
    /// `data` is not strict JSON. Foundation builds the objects only after this reader said yes.
    public static func object(_ data: Data) -> Any? {
        guard isValid(data) else { return nil }
        return try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }

    /// One text per JSON *value*, so two implementations' outputs compare equal exactly when they
    /// mean the same; an invalid text gives `invalid JSON at byte N: …` with the start of the text.
    public static func canonical(_ data: Data) -> String {
        do { return try parse(data).canonicalText } catch {
            let shown = String(decoding: data.prefix(60), as: UTF8.self)
            let offset = (error as? Invalid)?.offset ?? 0
            return "invalid JSON at byte \(offset): \(shown)\(data.count > 60 ? "…" : "")"
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        func invalid(_ reason: String, at offset: Int? = nil) -> Invalid { Invalid(offset: offset ?? index, reason: reason) }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d { index += 1 }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        mutating func expect(_ byte: UInt8) throws {
            guard consume(byte) else { throw invalid("expected '\(Character(Unicode.Scalar(byte)))'") }
        }

        mutating func value(depth: Int) throws -> JSONValue {
            guard let byte = current else { throw invalid("unexpected end") }
            switch byte {
            case UInt8(ascii: "{"):
                guard depth <= StrictJSON.maxDepth else { throw invalid("nested deeper than \(StrictJSON.maxDepth)") }
                index += 1
                var members: [String: JSONValue] = [:]
                skipWhitespace()
                if consume(UInt8(ascii: "}")) { return .object(members) }
                repeat {
                    skipWhitespace()
                    let name = try string()
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"))
                    skipWhitespace()
                    members[name] = try value(depth: depth + 1)
                    skipWhitespace()
                } while consume(UInt8(ascii: ","))
                try expect(UInt8(ascii: "}"))
                return .object(members)
            case UInt8(ascii: "["):
                guard depth <= StrictJSON.maxDepth else { throw invalid("nested deeper than \(StrictJSON.maxDepth)") }
                index += 1
                var items: [JSONValue] = []
                skipWhitespace()
                if consume(UInt8(ascii: "]")) { return .array(items) }
                repeat {
                    skipWhitespace()
                    items.append(try value(depth: depth + 1))
                    skipWhitespace()
                } while consume(UInt8(ascii: ","))
                try expect(UInt8(ascii: "]"))
                return .array(items)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return .number(try number())
            }
        }

        mutating func literal(_ text: String) throws {
            let start = index
            guard text.utf8.allSatisfy({ consume($0) }) else { throw invalid("not a JSON value", at: start) }
        }

        /// A string: valid UTF-8 (RFC 3629), no raw control characters, valid escapes, surrogates
        /// in pairs, not starting with a raw U+FEFF (EF BB BF).
        mutating func string() throws -> String {
            try expect(UInt8(ascii: "\""))
            if bytes[index...].starts(with: [0xef, 0xbb, 0xbf]) { throw invalid("a string that begins with U+FEFF") }
            var scalars = String.UnicodeScalarView()
            var run = index  // start of raw bytes not yet copied into `scalars`
            func flush(upTo end: Int) {
                if run < end { scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars) }
            }
            while let byte = current {
                // Plain ASCII, the common case, by two comparisons: in the debug builds the tests
                // run, the range patterns below cost several times more per byte.
                if byte >= 0x20, byte < 0x80, byte != 0x22, byte != 0x5c { index += 1; continue }
                switch byte {
                case UInt8(ascii: "\""):
                    flush(upTo: index)
                    index += 1
                    return String(scalars)
                case 0x00..<0x20: throw invalid("a raw control character in a string")
                case UInt8(ascii: "\\"):
                    flush(upTo: index)
                    index += 1
                    scalars.append(try escape())
                    run = index
                case 0x80...0xff:
                    index += 1
                    try utf8Sequence(lead: byte)
                default: index += 1
                }
            }
            throw invalid("an unterminated string")
        }

        mutating func escape() throws -> Unicode.Scalar {
            guard let escape = current else { throw invalid("an unterminated escape") }
            index += 1
            switch escape {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0c}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let unit = try hex4()
                if (0xdc00..<0xe000).contains(unit) { throw invalid("a lone low surrogate escape") }
                if (0xd800..<0xdc00).contains(unit) {
                    guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")) else { throw invalid("a lone high surrogate escape") }
                    let low = try hex4()
                    guard (0xdc00..<0xe000).contains(low) else { throw invalid("a high surrogate without its low surrogate") }
                    return Unicode.Scalar(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00))!  // in range by construction
                }
                return Unicode.Scalar(unit)!  // not a surrogate, below 0x10000: always a scalar
            default: throw invalid("an unknown escape", at: index - 1)
            }
        }

        /// Exactly four hex digits (no sign, unlike `UInt32(_:radix:)`).
        mutating func hex4() throws -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = current, let digit = Self.hexDigit(byte) else { throw invalid("a \\u escape without four hex digits") }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        static func hexDigit(_ byte: UInt8) -> UInt32? { HexDigit.value(byte).map(UInt32.init) }

        /// The continuation bytes of a UTF-8 sequence whose lead byte was just read (RFC 3629:
        /// shortest form, no surrogates, at most U+10FFFF).
        mutating func utf8Sequence(lead: UInt8) throws {
            let count: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xbf
            switch lead {
            case 0xc2...0xdf: count = 1
            case 0xe0: count = 2; low = 0xa0
            case 0xe1...0xec, 0xee, 0xef: count = 2
            case 0xed: count = 2; high = 0x9f
            case 0xf0: count = 3; low = 0x90
            case 0xf1...0xf3: count = 3
            case 0xf4: count = 3; high = 0x8f
            default: throw invalid("invalid UTF-8", at: index - 1)
            }
            for position in 0..<count {
                guard let byte = current, (position == 0 ? low...high : 0x80...0xbf).contains(byte) else { throw invalid("invalid UTF-8") }
                index += 1
            }
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, returned as written.
        mutating func number() throws -> String {
            let start = index
            _ = consume(UInt8(ascii: "-"))
            guard let first = current, isDigit(first) else { throw invalid("not a JSON value", at: start) }
            index += 1
            if first != UInt8(ascii: "0") { while let byte = current, isDigit(byte) { index += 1 } }
            if consume(UInt8(ascii: ".")) {
                guard let byte = current, isDigit(byte) else { throw invalid("a fraction without digits") }
                while let byte = current, isDigit(byte) { index += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard let byte = current, isDigit(byte) else { throw invalid("an exponent without digits") }
                while let byte = current, isDigit(byte) { index += 1 }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            // docs/PROTOCOL.md: no number too large to be finite (RFC 8259 §6 lets a reader refuse a
            // number outside binary64; Foundation's parser, which app code uses, refuses it).
            guard let value = Double(text), value.isFinite else { throw invalid("a number too large to be finite", at: start) }
            return text
        }

        func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    }
}

extension JSONValue {
    /// The canonical text of this value: object names sorted, strings as Unicode scalars (escapes
    /// and `\/` do not matter), integers compared exactly (`12345678901234567890123` ≠
    /// `1.2345678901234568e22`), and numbers with a fraction or exponent as IEEE binary64 values
    /// (`1.0` = `1` = `1e0`, `-0` = `0`): RFC 8259 §6 lets a reader keep no more precision than
    /// binary64, and PythonRef reads them as Python floats while Foundation keeps them decimal.
    public var canonicalText: String {
        switch self {
        case let .object(members):
            return "{" + members.keys.sorted().map { Self.quote($0) + ":" + members[$0]!.canonicalText }.joined(separator: ",") + "}"
        case let .array(items): return "[" + items.map(\.canonicalText).joined(separator: ",") + "]"
        case let .string(text): return Self.quote(text)
        case let .number(text): return Self.canonicalNumber(text)
        case let .bool(flag): return flag ? "true" : "false"
        case .null: return "null"
        }
    }

    private static func quote(_ text: String) -> String {
        "\"" + text.unicodeScalars.map { $0.value < 0x20 || $0 == "\"" || $0 == "\\" ? String(format: "\\u%04x", $0.value) : String($0) }.joined() + "\""
    }

    /// An integer literal as an exact decimal; anything with a fraction or exponent as the exact
    /// decimal of its binary64 value (an out-of-range one as `Infinity`, which no JSON text means).
    private static func canonicalNumber(_ text: String) -> String {
        let isInteger = !text.contains { $0 == "." || $0 == "e" || $0 == "E" }
        if isInteger { return exactDecimal(text) }
        guard let value = Double(text), value.isFinite else { return "Infinity" }
        return exactDecimal(value.description.replacingOccurrences(of: "+", with: ""))
    }

    /// `-`? digits `e` exponent, without leading or trailing zeros, of a decimal text.
    private static func exactDecimal(_ text: String) -> String {
        var bytes = Substring(text).utf8[...]
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        var digits: [UInt8] = [], exponent = 0, seenPoint = false
        while let byte = bytes.first, byte == UInt8(ascii: ".") || (0x30...0x39).contains(byte) {
            if byte == UInt8(ascii: ".") { seenPoint = true } else { digits.append(byte); if seenPoint { exponent -= 1 } }
            bytes = bytes.dropFirst()
        }
        if let marker = bytes.first, marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            exponent += Int(String(decoding: bytes.dropFirst(), as: UTF8.self)) ?? 0
        }
        while digits.first == 0x30 { digits.removeFirst() }
        if digits.isEmpty { return "0" }
        while digits.last == 0x30 { digits.removeLast(); exponent += 1 }
        return (negative ? "-" : "") + String(decoding: digits, as: UTF8.self) + (exponent == 0 ? "" : "e\(exponent)")
    }
}
