import Foundation

/// The values that cross between Swift and the embedded Python: the JSON-like subset the
/// PythonRef handlers take and return, plus bytes.
public enum PythonValue: Equatable, Sendable, CustomStringConvertible {
    case none
    case bool(Bool)
    case int(Int)
    case float(Double)
    case bytes(Data)
    case string(String)
    case list([PythonValue])
    case dict([String: PythonValue])

    public subscript(key: String) -> PythonValue? {
        if case let .dict(fields) = self { return fields[key] }
        return nil
    }

    public var bytesValue: Data? { if case let .bytes(value) = self { return value }; return nil }
    public var stringValue: String? { if case let .string(value) = self { return value }; return nil }
    public var intValue: Int? { if case let .int(value) = self { return value }; return nil }

    public var description: String {
        switch self {
        case .none: return "None"
        case let .bool(value): return value ? "True" : "False"
        case let .int(value): return String(value)
        case let .float(value): return String(value)
        case let .bytes(value): return "bytes(\(value.count))"
        case let .string(value): return "\"\(value)\""
        case let .list(values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        case let .dict(fields):
            return "{" + fields.keys.sorted().map { "\($0): \(fields[$0]!)" }.joined(separator: ", ") + "}"
        }
    }
}

extension PythonValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(dictionaryLiteral elements: (String, PythonValue)...) {
        self = .dict(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(arrayLiteral elements: PythonValue...) { self = .list(elements) }
    public init(nilLiteral: ()) { self = .none }
}
