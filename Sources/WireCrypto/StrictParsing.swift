import Foundation

/// Standard base64 as the protocol means it: the standard alphabet, padding required (the length a
/// multiple of 4, at most two `=` and only at the end), nothing else — no whitespace. Foundation's
/// `Data(base64Encoded:)` alone also takes `YQ===` and `YQ=a`; PythonRef's `strict_b64decode`
/// takes neither, and the two must agree (found by `crosscheck fuzz`).
public enum StrictBase64 {
    public static func decode(_ text: String) -> Data? {
        let bytes = Array(text.utf8)
        guard bytes.count % 4 == 0 else { return nil }
        var padding = 0
        for byte in bytes {
            if byte == UInt8(ascii: "=") { padding += 1; continue }
            guard padding == 0, isAlphabet(byte) else { return nil }
        }
        guard padding <= 2 else { return nil }
        return Data(base64Encoded: text)
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"): return true
        default: return false
        }
    }
}

/// JSON as RFC 8259 defines it, in UTF-8 without a byte order mark, nested at most 512 deep (the
/// limit of Foundation's parser, which PythonRef applies too). Foundation's `JSONSerialization`
/// alone also takes trailing commas, a BOM and UTF-16/32 text, which PythonRef refuses; the aes-https
/// bodies and envelopes are checked here first so both sides read the same documents. A string that
/// begins with a raw U+FEFF is refused too: Foundation silently drops that character (found by
/// `crosscheck fuzz`), so such a document would not read back as written.
public enum StrictJSON {
    public static let maxDepth = 512

    /// The parsed document (Foundation types), or nil if `data` is not strict JSON.
    public static func object(_ data: Data) -> Any? {
        guard isValid(data) else { return nil }
        return try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }

    public static func isValid(_ data: Data) -> Bool {
        var scanner = Scanner(bytes: [UInt8](data))
        scanner.skipWhitespace()
        guard scanner.value(depth: 1) else { return false }
        scanner.skipWhitespace()
        return scanner.index == scanner.bytes.count
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d { index += 1 }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        mutating func literal(_ text: String) -> Bool { text.utf8.allSatisfy { consume($0) } }

        mutating func value(depth: Int) -> Bool {
            guard let byte = current else { return false }
            switch byte {
            case UInt8(ascii: "{"):
                guard depth <= StrictJSON.maxDepth else { return false }
                index += 1
                skipWhitespace()
                if consume(UInt8(ascii: "}")) { return true }
                repeat {
                    skipWhitespace()
                    guard string() else { return false }
                    skipWhitespace()
                    guard consume(UInt8(ascii: ":")) else { return false }
                    skipWhitespace()
                    guard value(depth: depth + 1) else { return false }
                    skipWhitespace()
                } while consume(UInt8(ascii: ","))
                return consume(UInt8(ascii: "}"))
            case UInt8(ascii: "["):
                guard depth <= StrictJSON.maxDepth else { return false }
                index += 1
                skipWhitespace()
                if consume(UInt8(ascii: "]")) { return true }
                repeat {
                    skipWhitespace()
                    guard value(depth: depth + 1) else { return false }
                    skipWhitespace()
                } while consume(UInt8(ascii: ","))
                return consume(UInt8(ascii: "]"))
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        /// A string: valid UTF-8, no raw control characters, valid escapes, surrogates in pairs, not
        /// starting with a raw U+FEFF (EF BB BF).
        mutating func string() -> Bool {
            guard consume(UInt8(ascii: "\"")) else { return false }
            if bytes[index...].starts(with: [0xef, 0xbb, 0xbf]) { return false }
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return true
                case 0x00..<0x20: return false
                case UInt8(ascii: "\\"):
                    guard let escape = current else { return false }
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"): continue
                    case UInt8(ascii: "u"):
                        guard let unit = hex4() else { return false }
                        if (0xdc00..<0xe000).contains(unit) { return false }
                        if (0xd800..<0xdc00).contains(unit) {
                            guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), let low = hex4(), (0xdc00..<0xe000).contains(low) else { return false }
                        }
                    default: return false
                    }
                case 0x80...0xff:
                    guard utf8Sequence(lead: byte) else { return false }
                default: continue
                }
            }
            return false
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[index..<(index + 4)] {
                guard let digit = hexDigit(byte) else { return nil }
                value = value << 4 | digit
            }
            index += 4
            return value
        }

        func hexDigit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }

        /// The continuation bytes of a UTF-8 sequence whose lead byte was just read (RFC 3629:
        /// shortest form, no surrogates, at most U+10FFFF).
        mutating func utf8Sequence(lead: UInt8) -> Bool {
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
            default: return false
            }
            for position in 0..<count {
                guard let byte = current else { return false }
                if position == 0 { guard (low...high).contains(byte) else { return false } } else { guard (0x80...0xbf).contains(byte) else { return false } }
                index += 1
            }
            return true
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        mutating func number() -> Bool {
            _ = consume(UInt8(ascii: "-"))
            guard let first = current, isDigit(first) else { return false }
            index += 1
            if first != UInt8(ascii: "0") { while let byte = current, isDigit(byte) { index += 1 } }
            if consume(UInt8(ascii: ".")) {
                guard let byte = current, isDigit(byte) else { return false }
                while let byte = current, isDigit(byte) { index += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard let byte = current, isDigit(byte) else { return false }
                while let byte = current, isDigit(byte) { index += 1 }
            }
            return true
        }

        func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    }
}
