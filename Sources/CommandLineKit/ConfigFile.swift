import Foundation

/// `crosscheck.toml`, read strictly: the subset `crosscheck init` writes — `[tables]`, `key = value`
/// with a string ("…", escapes \" \\ \n \t), a whole number, true/false or an array of strings on one
/// line, and `#` comments. Anything else, a key twice, or a table or key the schema does not know is an
/// error naming the file, line and key (with "did you mean" for a misspelt name).
public struct ConfigFile: Equatable, Sendable {
    public enum Value: Equatable, Sendable {
        case string(String), integer(Int), boolean(Bool), strings([String])

        var kind: Kind {
            switch self {
            case .string: .string
            case .integer: .integer
            case .boolean: .boolean
            case .strings: .strings
            }
        }
    }

    public enum Kind: String, Sendable {
        case string = "a string in double quotes", integer = "a whole number", boolean = "true or false",
             strings = "an array of strings, e.g. [\"a\", \"b\"]"
    }

    /// One value and the line it came from.
    public struct Entry: Equatable, Sendable {
        public let value: Value
        public let line: Int
    }

    /// Where it was read from (paths in it are relative to its folder).
    public let url: URL
    /// `table.key` → entry.
    public let entries: [String: Entry]

    public var folder: URL { url.deletingLastPathComponent() }

    public func string(_ key: String) -> String? { if case let .string(v)? = entries[key]?.value { return v } else { return nil } }
    public func integer(_ key: String) -> Int? { if case let .integer(v)? = entries[key]?.value { return v } else { return nil } }
    public func boolean(_ key: String) -> Bool? { if case let .boolean(v)? = entries[key]?.value { return v } else { return nil } }
    public func strings(_ key: String) -> [String]? { if case let .strings(v)? = entries[key]?.value { return v } else { return nil } }

    /// A path from the file, made absolute against the file's folder.
    public func path(_ key: String) -> String? {
        guard let text = string(key) else { return nil }
        return text.hasPrefix("/") ? text : folder.appendingPathComponent(text).standardizedFileURL.path
    }

    public struct ReadError: Error, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// Reads `text` against `schema` (`table` → `key` → kind).
    public init(text: String, url: URL, schema: [String: [String: Kind]]) throws {
        self.url = url
        var entries: [String: Entry] = [:]
        var table: String?
        var seen: Set<String> = []
        let name = url.lastPathComponent
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            func fail(_ what: String) -> ReadError { ReadError(message: "\(name):\(number): \(what)") }
            let line = try Self.stripComment(String(raw), fail: fail).trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), !line.hasPrefix("[["), line.count > 2 else {
                    throw fail("a table header is [name], not '\(line)'")
                }
                let header = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                guard schema[header] != nil else {
                    throw fail("unknown table [\(header)]" + (closest(to: header, among: Array(schema.keys)).map { " (did you mean [\($0)]?)" }
                                                             ?? "; the tables are " + choices(schema.keys.sorted().map { "[\($0)]" })))
                }
                guard seen.insert(header).inserted else { throw fail("table [\(header)] appears twice") }
                table = header
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { throw fail("expected key = value or [table], not '\(line)'") }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let valueText = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                throw fail("'\(key)' is not a key (letters, digits, _ and -)")
            }
            guard let table else { throw fail("\(key) is outside any table; put it under one of " + choices(schema.keys.sorted().map { "[\($0)]" })) }
            let keys = schema[table] ?? [:]
            guard let kind = keys[key] else {
                throw fail("unknown key \(key) in [\(table)]" + (closest(to: key, among: Array(keys.keys)).map { " (did you mean \($0)?)" }
                                                               ?? "; [\(table)] takes " + choices(keys.keys.sorted())))
            }
            guard entries["\(table).\(key)"] == nil else { throw fail("\(key) is given twice in [\(table)]") }
            guard !valueText.isEmpty else { throw fail("\(key) has no value; it takes \(kind.rawValue)") }
            let value: Value
            do { value = try Self.value(valueText) } catch let error as ReadError { throw fail("\(key): \(error.message)") }
            guard value.kind == kind else { throw fail("\(key) takes \(kind.rawValue), not \(valueText)") }
            entries["\(table).\(key)"] = Entry(value: value, line: number)
        }
        self.entries = entries
    }

    /// The line without a `#` comment (a `#` inside a string stays).
    static func stripComment(_ line: String, fail: (String) -> ReadError) throws -> String {
        var inString = false, escaped = false
        for (index, character) in zip(line.indices, line) {
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "#" {
                return String(line[..<index])
            }
        }
        return line
    }

    static func value(_ text: String) throws -> Value {
        if text == "true" { return .boolean(true) }
        if text == "false" { return .boolean(false) }
        if text.hasPrefix("\"") {
            let (string, rest) = try readString(Substring(text))
            guard rest.trimmingCharacters(in: .whitespaces).isEmpty else { throw ReadError(message: "text after the string: '\(rest)'") }
            return .string(string)
        }
        if text.hasPrefix("[") {
            guard text.hasSuffix("]") else { throw ReadError(message: "an array ends with ] on the same line") }
            var rest = text.dropFirst().dropLast().drop(while: { $0 == " " })
            var items: [String] = []
            while !rest.isEmpty {
                guard rest.hasPrefix("\"") else { throw ReadError(message: "arrays hold strings in double quotes, not '\(rest)'") }
                let (item, after) = try readString(rest)
                items.append(item)
                rest = after.drop(while: { $0 == " " })
                if rest.hasPrefix(",") { rest = rest.dropFirst().drop(while: { $0 == " " }) } else if !rest.isEmpty {
                    throw ReadError(message: "expected , or ] after \"\(item)\", not '\(rest)'")
                }
            }
            return .strings(items)
        }
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        if !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let number = Int(text) { return .integer(number) }
        throw ReadError(message: "'\(text)' is not a value crosscheck.toml takes (a string in double quotes, a whole number, true/false, an array of strings)")
    }

    /// A double-quoted string at the start of `text`, and what follows it.
    static func readString(_ text: Substring) throws -> (String, Substring) {
        var result = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" { return (result, text[text.index(after: index)...]) }
            if character == "\\" {
                index = text.index(after: index)
                guard index < text.endIndex else { break }
                switch text[index] {
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                case "n": result.append("\n")
                case "t": result.append("\t")
                default: throw ReadError(message: "unknown escape \\\(text[index]) in a string (\\\" \\\\ \\n \\t)")
                }
            } else {
                result.append(character)
            }
            index = text.index(after: index)
        }
        throw ReadError(message: "a string without its closing \"")
    }

    /// The first `name` in `start` or a folder above it.
    public static func find(_ name: String, from start: URL) -> URL? {
        var directory = start.standardizedFileURL
        while true {
            let candidate = directory.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue { return candidate }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { return nil }
            directory = parent
        }
    }
}
