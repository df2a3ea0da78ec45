// CommandLineKit — declare an option once, get its parsing, help text and validation from the
// declaration (the shape of swift-argument-parser's @Option/@Flag/@Argument/@OptionGroup and
// validate(), written here because that package cannot be fetched). No dependencies.
import Foundation

/// A value an option or positional argument can hold, with what it expects in words for help
/// and errors ("a whole number from 1 to 65535").
public protocol ExpressibleByArgument {
    init?(argument: String)
    /// What a valid value looks like, for messages: "--port takes <expectation>, not '…'".
    static var expectation: String { get }
    /// The value as it would be written on the command line (help shows defaults this way).
    var argumentText: String { get }
}

extension ExpressibleByArgument {
    public var argumentText: String { "\(self)" }
}

extension String: ExpressibleByArgument {
    public init?(argument: String) { self = argument }
    public static var expectation: String { "text" }
}

extension ExpressibleByArgument where Self: FixedWidthInteger {
    public init?(argument: String) {
        // Only digits (and a leading minus for signed types): Swift's parser also takes a leading '+'.
        guard !argument.hasPrefix("+"), let value = Self(argument, radix: 10) else { return nil }
        self = value
    }
    public static var expectation: String { "a whole number from \(Self.min) to \(Self.max)" }
}
extension Int: ExpressibleByArgument {}
extension UInt64: ExpressibleByArgument {}
extension UInt16: ExpressibleByArgument {}

extension Double: ExpressibleByArgument {
    public init?(argument: String) {
        guard let value = Double(argument), value.isFinite else { return nil }
        self = value
    }
    public static var expectation: String { "a number" }
}

/// String-backed enumerations list their cases: "--profile takes rsa-socket or aes-https".
extension ExpressibleByArgument where Self: CaseIterable & RawRepresentable, RawValue == String {
    public init?(argument: String) { self.init(rawValue: argument) }
    public static var expectation: String { choices(allCases.map(\.rawValue)) }
    public var argumentText: String { rawValue }
}

/// "a", "a or b", "a, b or c".
public func choices(_ names: [String]) -> String {
    names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
}

/// A comma-separated list, e.g. `--key-bits 1024,2048`; empty items are refused.
public struct ArgumentList<Element: ExpressibleByArgument>: ExpressibleByArgument {
    public var items: [Element]
    public init(_ items: [Element]) { self.items = items }
    public init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !parts.contains(where: \.isEmpty) else { return nil }
        var items: [Element] = []
        for part in parts {
            guard let item = Element(argument: part) else { return nil }
            items.append(item)
        }
        self.items = items
    }
    public static var expectation: String { "a comma-separated list of \(Element.expectation)" }
    public var argumentText: String { items.map(\.argumentText).joined(separator: ",") }
}

/// A TCP port: a whole number from 1 to 65535 (0, "any port", is not an address to connect to).
public struct PortNumber: ExpressibleByArgument, Equatable, Sendable {
    public let value: UInt16
    public init(_ value: UInt16) { self.value = value }
    public init?(argument: String) {
        guard let number = UInt16(argument: argument), number > 0 else { return nil }
        value = number
    }
    public static var expectation: String { "a port number from 1 to 65535" }
    public var argumentText: String { String(value) }
}

/// Seconds, more than zero.
public struct Seconds: ExpressibleByArgument, Equatable, Sendable {
    public let value: TimeInterval
    public init(_ value: TimeInterval) { self.value = value }
    public init?(argument: String) {
        guard let number = Double(argument: argument), number > 0 else { return nil }
        value = number
    }
    public static var expectation: String { "a number of seconds above 0" }
    public var argumentText: String { value == value.rounded() ? String(Int(value)) : String(value) }
}

/// Shared storage between a declaration inside a command value and the parser, which sees the
/// command only through `Mirror` (a copy): both hold the same box.
final class Box<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// What the parser needs to know about one declared option, flag or positional.
struct ArgumentSpec {
    enum Kind { case option, flag, positional }
    let kind: Kind
    /// `--name` (and a short `-x`, if any); empty for positionals.
    let names: [String]
    /// The metavariable in help: `--port P`.
    let valueName: String
    let help: String
    /// Shown as "(default: …)" in help; nil when there is nothing worth saying.
    let defaultText: String?
    /// Stores one value from the command line; throws a usage message if it is not valid.
    let accept: (String) throws -> Void
    /// Flags: sets the flag.
    let set: () -> Void
    /// Marks that the command line gave it (for `isGiven`).
    let given: Box<Bool>
    /// Parsed but left out of help: an option crosscheck gives itself (a worker process's range).
    var hidden = false
}

/// Something `Mirror` finds in a command and asks for its specs.
protocol ArgumentDeclaration {
    var specs: [ArgumentSpec] { get }
}

/// An error the user can fix; the runner prints it with a pointer to `--help` and exits 64.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// `--name VALUE` (or `--name=VALUE`), parsed into `Value`; the last occurrence wins.
@propertyWrapper
public struct Option<Value>: ArgumentDeclaration {
    private let box: Box<Value>
    private let given = Box(false)
    private let name: String
    private let short: String?
    private let valueName: String
    private let help: String
    private let defaultText: String?
    private let parse: (String) -> Value?
    private let expectation: String
    private let hidden: Bool

    public var wrappedValue: Value {
        get { box.value }
        nonmutating set { box.value = newValue }
    }
    /// `$option`: whether the command line gave this option.
    public var projectedValue: Bool { given.value }

    /// An option with a default, e.g. `@Option(name: "--timeout", value: "SECONDS", help: "…") var timeout = Seconds(5)`.
    public init(wrappedValue: Value, name: String, short: String? = nil, value: String = "VALUE", help: String,
                defaultText: String? = nil, hidden: Bool = false) where Value: ExpressibleByArgument {
        box = Box(wrappedValue); self.name = name; self.short = short; self.valueName = value; self.help = help
        self.defaultText = defaultText ?? wrappedValue.argumentText; parse = { Value(argument: $0) }; expectation = Value.expectation
        self.hidden = hidden
    }

    /// An option without a default: nil unless given.
    /// `hidden`: parsed, but not in help (an option crosscheck gives to itself).
    public init<Wrapped: ExpressibleByArgument>(name: String, short: String? = nil, value: String = "VALUE", help: String,
                                                defaultText: String? = nil, hidden: Bool = false) where Value == Wrapped? {
        box = Box(nil); self.name = name; self.short = short; self.valueName = value; self.help = help
        // `.map(Optional.some)`: a bare `Wrapped?` would become `.some(nil)` as a `Value?`, i.e. "parsed".
        self.defaultText = defaultText; parse = { Wrapped(argument: $0).map(Optional.some) }; expectation = Wrapped.expectation
        self.hidden = hidden
    }

    var specs: [ArgumentSpec] {
        let (box, parse, name, expectation) = (self.box, self.parse, self.name, self.expectation)
        return [ArgumentSpec(kind: .option, names: [name] + (short.map { [$0] } ?? []), valueName: valueName, help: help,
                             defaultText: defaultText, accept: { text in
                                 guard !text.isEmpty else { throw UsageError("\(name) needs a value: \(expectation)") }
                                 guard let value = parse(text) else { throw UsageError("\(name) takes \(expectation), not '\(text)'") }
                                 box.value = value
                             }, set: {}, given: given, hidden: hidden)]
    }
}

/// `--name VALUE`, repeatable: every occurrence, in order (e.g. `--server-arg --port --server-arg 9000`).
@propertyWrapper
public struct RepeatedOption: ArgumentDeclaration {
    private let box = Box<[String]>([])
    private let given = Box(false)
    private let name: String
    private let valueName: String
    private let help: String

    public var wrappedValue: [String] {
        get { box.value }
        nonmutating set { box.value = newValue }
    }
    /// `$option`: whether the command line gave this option at least once.
    public var projectedValue: Bool { given.value }

    public init(name: String, value: String = "VALUE", help: String) {
        self.name = name; self.valueName = value; self.help = help
    }

    var specs: [ArgumentSpec] {
        let box = self.box
        return [ArgumentSpec(kind: .option, names: [name], valueName: valueName, help: help + " (repeatable)", defaultText: nil,
                             accept: { box.value.append($0) }, set: {}, given: given)]
    }
}

/// `--name`: false unless given.
@propertyWrapper
public struct Flag: ArgumentDeclaration {
    private let box = Box(false)
    private let given = Box(false)
    private let name: String
    private let help: String
    private let hidden: Bool

    public var wrappedValue: Bool {
        get { box.value }
        nonmutating set { box.value = newValue }
    }

    /// `hidden`: parsed, but not in help (a flag crosscheck gives to itself).
    public init(name: String, help: String, hidden: Bool = false) { self.name = name; self.help = help; self.hidden = hidden }

    var specs: [ArgumentSpec] {
        let box = self.box
        return [ArgumentSpec(kind: .flag, names: [name], valueName: "", help: help, defaultText: nil, accept: { _ in }, set: { box.value = true },
                             given: given, hidden: hidden)]
    }
}

/// The positional arguments (everything that is not an option), e.g. `FILE...`.
@propertyWrapper
public struct Positionals: ArgumentDeclaration {
    private let box = Box<[String]>([])
    private let given = Box(false)
    private let valueName: String
    private let help: String

    public var wrappedValue: [String] {
        get { box.value }
        nonmutating set { box.value = newValue }
    }

    public init(value: String, help: String) { self.valueName = value; self.help = help }

    var specs: [ArgumentSpec] {
        let box = self.box
        return [ArgumentSpec(kind: .positional, names: [], valueName: valueName, help: help, defaultText: nil,
                             accept: { box.value.append($0) }, set: {}, given: given)]
    }
}

/// A group of options shared by several commands (`--junit`/`--quiet`, `--pythonref`/`--python`),
/// declared once as a `ParsableArguments` type.
@propertyWrapper
public struct OptionGroup<Group: ParsableArguments>: ArgumentDeclaration {
    private let box: Box<Group>

    public var wrappedValue: Group {
        get { box.value }
        nonmutating set { box.value = newValue }
    }

    public init() { box = Box(Group()) }
    public init(wrappedValue: Group) { box = Box(wrappedValue) }

    var specs: [ArgumentSpec] { declarations(in: box.value).flatMap(\.specs) }
    func validate() throws { try box.value.validateAll() }
}

/// The declarations inside `value`, in declaration order.
func declarations(in value: Any) -> [ArgumentDeclaration] {
    Mirror(reflecting: value).children.compactMap { $0.value as? ArgumentDeclaration }
}
