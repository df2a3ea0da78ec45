import Foundation

/// The TOML that protocol descriptions use (docs/PROTOCOL-DESCRIPTIONS.md), read strictly and with
/// every value's line kept, so that an error about a description names where to look: comments;
/// bare, quoted and dotted keys; `[table]`, `[a.b]`, `[[array.of.tables]]` (a header below an array
/// of tables names its last element, as `[[conversation.step]]` under `[[conversation]]`); basic
/// strings with escapes, literal strings, integers, booleans, arrays (over several lines, trailing
/// comma allowed) and inline tables. Floats, dates and multi-line strings are refused by name:
/// descriptions have no use for them. What it accepts, it reads as Python's `tomllib` does.
public enum StrictTOML {
    /// A value and the line (1-based) where it begins.
    public struct Value: Equatable, Sendable {
        public let line: Int
        public let kind: Kind
        public init(line: Int, kind: Kind) { self.line = line; self.kind = kind }

        public indirect enum Kind: Equatable, Sendable {
            case string(String)
            case integer(Int)
            case boolean(Bool)
            case array([Value])
            case table(Table)
        }

        /// "a string", "an integer", …: for error messages.
        public var typeName: String {
            switch kind {
            case .string: return "a string"
            case .integer: return "an integer"
            case .boolean: return "a boolean"
            case .array: return "an array"
            case .table: return "a table"
            }
        }
    }

    /// A table: its keys in the order they were written, each with its value.
    public struct Table: Equatable, Sendable {
        public let line: Int
        public let keys: [String]
        public let values: [String: Value]
        public init(line: Int, keys: [String], values: [String: Value]) { self.line = line; self.keys = keys; self.values = values }
        public subscript(key: String) -> Value? { values[key] }
    }

    /// Why a text is not TOML this reader takes, and where.
    public struct Error: Swift.Error, Equatable, Sendable, CustomStringConvertible {
        public let line: Int
        public let reason: String
        public init(line: Int, reason: String) { self.line = line; self.reason = reason }
        public var description: String { "TOML line \(line): \(reason)" }
    }

    /// The document's root table.
    public static func parse(_ text: String) throws -> Table {
        var parser = Parser(scalars: Array(text.unicodeScalars))
        return try parser.document()
    }

    /// The same, from UTF-8 bytes (anything else is refused).
    public static func parse(_ data: Data) throws -> Table {
        guard let text = String(validating: [UInt8](data), as: UTF8.self) else {
            throw Error(line: 1, reason: "the file is not UTF-8 text")
        }
        return try parse(text)
    }
}

// MARK: - Building: tables are shared references while the document is read.

private final class Building {
    var line: Int
    var keys: [String] = []
    var entries: [String: Entry] = [:]
    /// Defined by a `[header]` (a second one is an error) or closed (an inline table).
    var headerDefined = false
    var closed = false
    /// Made by a dotted key in a key/value line: a `[header]` may not define it again.
    var madeByDottedKey = false
    init(line: Int) { self.line = line }

    enum Entry {
        case value(StrictTOML.Value)
        case table(Building)
        case tableArray(TableArray)
    }

    func frozen() -> StrictTOML.Table {
        var values: [String: StrictTOML.Value] = [:]
        for key in keys {
            switch entries[key]! {
            case let .value(value): values[key] = value
            case let .table(table): values[key] = StrictTOML.Value(line: table.line, kind: .table(table.frozen()))
            case let .tableArray(array):
                values[key] = StrictTOML.Value(line: array.line, kind: .array(array.tables.map {
                    StrictTOML.Value(line: $0.line, kind: .table($0.frozen()))
                }))
            }
        }
        return StrictTOML.Table(line: line, keys: keys, values: values)
    }
}

private final class TableArray {
    let line: Int
    var tables: [Building] = []
    init(line: Int) { self.line = line }
}

private struct Parser {
    let scalars: [Unicode.Scalar]
    var index = 0
    var line = 1

    init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

    var atEnd: Bool { index >= scalars.count }
    var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
    func peek(_ offset: Int) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }

    func error(_ reason: String) -> StrictTOML.Error { StrictTOML.Error(line: line, reason: reason) }

    mutating func advance() {
        if scalars[index] == "\n" { line += 1 }
        index += 1
    }

    mutating func skipSpaces() {
        while let c = current, c == " " || c == "\t" { advance() }
    }

    /// Spaces, then an optional comment; not the newline.
    mutating func skipComment() throws {
        skipSpaces()
        guard current == "#" else { return }
        while let c = current, c != "\n" {
            if c == "\r" && peek(1) == "\n" { break }
            if isControl(c) && c != "\t" { throw error("a control character (U+\(hex(c))) in a comment") }
            advance()
        }
    }

    /// The end of a line (after spaces and a comment): a newline or the end of the text.
    mutating func endOfLine() throws {
        try skipComment()
        guard let c = current else { return }
        if c == "\n" { advance(); return }
        if c == "\r" && peek(1) == "\n" { advance(); advance(); return }
        throw error("unexpected '\(printable(c))' after the value; one key = value per line")
    }

    /// Whitespace, newlines and comments, as between the elements of an array.
    mutating func skipBlank() throws {
        while true {
            try skipComment()
            if current == "\n" { advance(); continue }
            if current == "\r" && peek(1) == "\n" { advance(); advance(); continue }
            return
        }
    }

    mutating func document() throws -> StrictTOML.Table {
        let root = Building(line: 1)
        var target = root
        while true {
            try skipBlank()
            guard let c = current else { break }
            if c == "[" {
                let headerLine = line
                if peek(1) == "[" {
                    advance(); advance()
                    skipSpaces()
                    let key = try dottedKey()
                    skipSpaces()
                    guard current == "]", peek(1) == "]" else { throw error("an array-of-tables header must end with ']]'") }
                    advance(); advance()
                    try endOfLine()
                    target = try appendTableArray(root: root, key: key, line: headerLine)
                } else {
                    advance()
                    skipSpaces()
                    let key = try dottedKey()
                    skipSpaces()
                    guard current == "]" else { throw error("a table header must end with ']'") }
                    advance()
                    try endOfLine()
                    target = try defineTable(root: root, key: key, line: headerLine)
                }
            } else {
                try keyValue(into: target)
                try endOfLine()
            }
        }
        return root.frozen()
    }

    // MARK: Keys

    mutating func dottedKey() throws -> [String] {
        var parts = [try simpleKey()]
        while true {
            skipSpaces()
            guard current == "." else { return parts }
            advance()
            skipSpaces()
            parts.append(try simpleKey())
        }
    }

    mutating func simpleKey() throws -> String {
        guard let c = current else { throw error("a key was expected at the end of the text") }
        if c == "\"" { return try basicString() }
        if c == "'" { return try literalString() }
        var key = ""
        while let c = current, isBareKeyCharacter(c) { key.unicodeScalars.append(c); advance() }
        if key.isEmpty { throw error("a key was expected, found '\(printable(c))' (bare keys are letters, digits, '_' and '-')") }
        return key
    }

    func isBareKeyCharacter(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "_" || c == "-"
    }

    // MARK: Tables

    /// Walks `path` from `root`, making tables as needed; an array of tables stands for its last one.
    func walk(_ root: Building, _ path: ArraySlice<String>, line: Int) throws -> Building {
        var table = root
        for key in path {
            switch table.entries[key] {
            case nil:
                let made = Building(line: line)
                table.keys.append(key); table.entries[key] = .table(made)
                table = made
            case let .table(existing)?:
                if existing.closed { throw StrictTOML.Error(line: line, reason: "'\(key)' is an inline table; it cannot be extended") }
                table = existing
            case let .tableArray(array)?:
                table = array.tables[array.tables.count - 1]
            case let .value(value)?:
                throw StrictTOML.Error(line: line, reason: "'\(key)' is already \(value.typeName) (line \(value.line)), not a table")
            }
        }
        return table
    }

    func defineTable(root: Building, key: [String], line: Int) throws -> Building {
        let parent = try walk(root, key.dropLast(), line: line)
        let last = key[key.count - 1]
        switch parent.entries[last] {
        case nil:
            let made = Building(line: line)
            made.headerDefined = true
            parent.keys.append(last); parent.entries[last] = .table(made)
            return made
        case let .table(existing)?:
            if existing.headerDefined || existing.closed || existing.madeByDottedKey {
                throw StrictTOML.Error(line: line, reason: "table [\(key.joined(separator: "."))] is defined twice (first at line \(existing.line))")
            }
            existing.headerDefined = true
            return existing
        case let .tableArray(array)?:
            throw StrictTOML.Error(line: line, reason: "'\(last)' is an array of tables (line \(array.line)); write [[\(key.joined(separator: "."))]]")
        case let .value(value)?:
            throw StrictTOML.Error(line: line, reason: "'\(last)' is already \(value.typeName) (line \(value.line)), not a table")
        }
    }

    func appendTableArray(root: Building, key: [String], line: Int) throws -> Building {
        let parent = try walk(root, key.dropLast(), line: line)
        let last = key[key.count - 1]
        let made = Building(line: line)
        made.headerDefined = true
        switch parent.entries[last] {
        case nil:
            let array = TableArray(line: line)
            array.tables.append(made)
            parent.keys.append(last); parent.entries[last] = .tableArray(array)
        case let .tableArray(array)?:
            array.tables.append(made)
        case .table?:
            throw StrictTOML.Error(line: line, reason: "'\(last)' is a table, not an array of tables; write [\(key.joined(separator: "."))]")
        case let .value(value)?:
            throw StrictTOML.Error(line: line, reason: "'\(last)' is already \(value.typeName) (line \(value.line)); an array of tables cannot extend it")
        }
        return made
    }

    /// `key = value` into `table` (dotted keys make the tables between).
    mutating func keyValue(into table: Building) throws {
        let keyLine = line
        let key = try dottedKey()
        skipSpaces()
        guard current == "=" else { throw error("'=' was expected after the key '\(key.joined(separator: "."))'") }
        advance()
        skipSpaces()
        let value = try value()
        var parent = table
        for part in key.dropLast() {
            switch parent.entries[part] {
            case nil:
                let made = Building(line: keyLine)
                made.madeByDottedKey = true
                parent.keys.append(part); parent.entries[part] = .table(made)
                parent = made
            case let .table(existing)? where !existing.closed && (existing.madeByDottedKey || existing === table):
                parent = existing
            default:
                throw StrictTOML.Error(line: keyLine, reason: "the dotted key '\(key.joined(separator: "."))' extends '\(part)', defined elsewhere")
            }
        }
        let last = key[key.count - 1]
        if parent.entries[last] != nil {
            throw StrictTOML.Error(line: keyLine, reason: "the key '\(key.joined(separator: "."))' is given twice")
        }
        parent.keys.append(last)
        parent.entries[last] = .value(value)
    }

    // MARK: Values

    mutating func value() throws -> StrictTOML.Value {
        let start = line
        guard let c = current else { throw error("a value was expected at the end of the text") }
        switch c {
        case "\"":
            if peek(1) == "\"" && peek(2) == "\"" { throw error("multi-line strings (\"\"\") are not used in descriptions; write \\n in a basic string") }
            return StrictTOML.Value(line: start, kind: .string(try basicString()))
        case "'":
            if peek(1) == "'" && peek(2) == "'" { throw error("multi-line literal strings (''') are not used in descriptions") }
            return StrictTOML.Value(line: start, kind: .string(try literalString()))
        case "[": return StrictTOML.Value(line: start, kind: .array(try array()))
        case "{": return StrictTOML.Value(line: start, kind: .table(try inlineTable()))
        case "t", "f":
            var word = ""
            while let c = current, isBareKeyCharacter(c) { word.unicodeScalars.append(c); advance() }
            if word == "true" { return StrictTOML.Value(line: start, kind: .boolean(true)) }
            if word == "false" { return StrictTOML.Value(line: start, kind: .boolean(false)) }
            throw StrictTOML.Error(line: start, reason: "'\(word)' is not a value (strings are quoted; booleans are true and false)")
        default:
            return StrictTOML.Value(line: start, kind: .integer(try integer()))
        }
    }

    mutating func integer() throws -> Int {
        var text = ""
        while let c = current, isBareKeyCharacter(c) || c == "+" || c == "." || c == ":" { text.unicodeScalars.append(c); advance() }
        if text.isEmpty { throw error("a value was expected, found '\(printable(current ?? " "))'") }
        if !text.unicodeScalars.contains(where: { ("0"..."9").contains($0) }) {
            throw error("'\(text)' is not a value (strings are quoted; booleans are true and false)")
        }
        if text.contains(".") || text.contains(":") || text.contains("e") || text.contains("E") || text == "inf" || text == "nan" {
            if Int(text.filter { $0 != "_" }) == nil {
                throw error("'\(text)' is not an integer (floats and dates are not used in descriptions)")
            }
        }
        var digits = Substring(text)
        var sign = ""
        if let first = digits.first, first == "+" || first == "-" { sign = first == "-" ? "-" : ""; digits = digits.dropFirst() }
        let valid = !digits.isEmpty && digits.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "_") }
            && digits.first != "_" && digits.last != "_" && !digits.contains("__")
            && !(digits.count > 1 && digits.first == "0")
        guard valid, let number = Int(sign + digits.filter { $0 != "_" }) else {
            throw error("'\(text)' is not an integer (decimal digits, no leading zeros; strings are quoted)")
        }
        return number
    }

    mutating func basicString() throws -> String {
        advance()  // the opening quote
        var out = String.UnicodeScalarView()
        while true {
            guard let c = current else { throw error("a string is not closed (a '\"' is missing)") }
            if c == "\n" || c == "\r" { throw error("a string is not closed on its line (a '\"' is missing)") }
            if c == "\"" { advance(); return String(out) }
            if c == "\\" {
                advance()
                guard let e = current else { throw error("a string ends in '\\'") }
                advance()
                switch e {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "b": out.append("\u{08}")
                case "f": out.append("\u{0C}")
                case "\"": out.append("\"")
                case "\\": out.append("\\")
                case "u", "U":
                    let count = e == "u" ? 4 : 8
                    var hexDigits = ""
                    for _ in 0..<count {
                        guard let h = current, h.isASCII, HexDigit.value(UInt8(h.value)) != nil else {
                            throw error("'\\\(e)' needs \(count) hex digits")
                        }
                        hexDigits.unicodeScalars.append(h); advance()
                    }
                    guard let scalar = UInt32(hexDigits, radix: 16).flatMap(Unicode.Scalar.init) else {
                        throw error("'\\\(e)\(hexDigits)' is not a Unicode scalar value")
                    }
                    out.append(scalar)
                default:
                    throw error("'\\\(printable(e))' is not an escape TOML knows (\\n \\t \\r \\\" \\\\ \\uXXXX)")
                }
                continue
            }
            if isControl(c) && c != "\t" { throw error("a control character (U+\(hex(c))) in a string; write it as an escape") }
            out.append(c)
            advance()
        }
    }

    mutating func literalString() throws -> String {
        advance()
        var out = String.UnicodeScalarView()
        while true {
            guard let c = current, c != "\n", c != "\r" else { throw error("a literal string is not closed on its line (a \"'\" is missing)") }
            advance()
            if c == "'" { return String(out) }
            if isControl(c) && c != "\t" { throw error("a control character (U+\(hex(c))) in a literal string") }
            out.append(c)
        }
    }

    mutating func array() throws -> [StrictTOML.Value] {
        advance()
        var elements: [StrictTOML.Value] = []
        while true {
            try skipBlank()
            guard let c = current else { throw error("an array is not closed (a ']' is missing)") }
            if c == "]" { advance(); return elements }
            elements.append(try value())
            try skipBlank()
            if current == "," { advance(); continue }
            if current == "]" { advance(); return elements }
            guard let c = current else { throw error("an array is not closed (a ']' is missing)") }
            throw error("',' or ']' was expected in the array, found '\(printable(c))'")
        }
    }

    mutating func inlineTable() throws -> StrictTOML.Table {
        let table = Building(line: line)
        advance()
        skipSpaces()
        if current == "}" { advance(); table.closed = true; return table.frozen() }
        while true {
            skipSpaces()
            if current == "\n" || current == "\r" { throw error("an inline table must stay on one line (arrays inside it may span lines)") }
            try keyValue(into: table)
            skipSpaces()
            if current == "," { advance(); continue }
            if current == "}" { advance(); break }
            if current == "\n" || current == "\r" || current == "#" { throw error("an inline table must close with '}' on its line") }
            throw error("',' or '}' was expected in the inline table, found \(current.map { "'\(printable($0))'" } ?? "the end of the text")")
        }
        table.closed = true
        markClosed(table)
        return table.frozen()
    }

    func markClosed(_ table: Building) {
        table.closed = true
        for case let .table(inner) in table.entries.values { markClosed(inner) }
    }

    func isControl(_ c: Unicode.Scalar) -> Bool { c.value < 0x20 || c.value == 0x7F }
    func hex(_ c: Unicode.Scalar) -> String { String(format: "%04X", c.value) }
    func printable(_ c: Unicode.Scalar) -> String { isControl(c) ? "U+\(hex(c))" : String(c) }
}
