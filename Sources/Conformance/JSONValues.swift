import Foundation
import PythonBridge
import WireCrypto
import StrictFormats

/// JSON ⇄ `PythonValue`, so both implementations' JSON can be compared as values, not bytes.
/// Reading goes through the one strict reader (`StrictJSON`); nothing is guessed or stringified.
public enum JSONValues {
    /// Why a JSON text has no `PythonValue` form.
    public enum Unrepresentable: Error, Equatable, CustomStringConvertible {
        /// An integer beyond 64 bits: `PythonValue.int` cannot hold it, and a float would round it.
        case integerOutOfRange(String)
        public var description: String {
            switch self {
            case let .integerOutOfRange(text): return "the integer \(text) does not fit in 64 bits"
            }
        }
    }

    public static func encode(_ value: PythonValue) throws -> Data {
        try JSONSerialization.data(withJSONObject: foundation(value), options: [.sortedKeys, .fragmentsAllowed])
    }

    /// The value of a strict JSON text; throws `StrictJSON.Invalid` or `Unrepresentable`.
    public static func decode(_ data: Data) throws -> PythonValue {
        try value(try StrictJSON.parse(data))
    }

    static func value(_ json: JSONValue) throws -> PythonValue {
        switch json {
        case .null: return .none
        case let .bool(flag): return .bool(flag)
        case let .string(text): return .string(text)
        case let .array(items): return .list(try items.map(value))
        case let .object(members): return .dict(try members.mapValues(value))
        case let .number(text):
            if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                guard let integer = Int(text) else { throw Unrepresentable.integerOutOfRange(text) }
                return .int(integer)
            }
            return .float(Double(text) ?? .nan)  // a valid JSON number always parses as a Double
        }
    }

    private static func foundation(_ value: PythonValue) -> Any {
        switch value {
        case .none: return NSNull()
        case let .bool(flag): return flag
        case let .int(number): return number
        case let .float(number): return number
        case let .bytes(data): return data.base64EncodedString()
        case let .string(text): return text
        case let .list(items): return items.map(foundation)
        case let .dict(fields): return fields.mapValues(foundation)
        }
    }
}
