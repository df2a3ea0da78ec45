import Foundation

/// Why a protocol description cannot be used, or a party cannot be made from it: each case names
/// the key (as a path, `conversation[1].step[3].send.rsa`, arrays counted from 1) and its line, and
/// says what to write instead (docs/PROTOCOL-DESCRIPTIONS.md, "What a description may not say").
public enum DescriptionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(path: String, reason: String)
    /// The text is not TOML (StrictTOML's reason).
    case syntax(line: Int, reason: String)
    /// A required key is absent from the table that begins at `line`.
    case missingKey(key: String, line: Int, meaning: String)
    /// A key the format does not have.
    case unknownKey(key: String, line: Int, suggestion: String?, allowed: [String])
    /// A value of the wrong TOML type.
    case wrongType(key: String, line: Int, expected: String, found: String)
    /// A value of the right type that is not one of the allowed ones.
    case notAllowed(key: String, line: Int, allowed: String, found: String)
    /// Each key is fine alone, but the description cannot work.
    case impossible(key: String, line: Int, reason: String)
    /// A party cannot be made for this run (a preshared secret or key not given, a role mismatch).
    case partySetup(reason: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason):
            return "cannot read the protocol description \(path): \(reason)"
        case let .syntax(line, reason):
            return "line \(line): \(reason); fix the TOML there"
        case let .missingKey(key, line, meaning):
            return "line \(line): `\(key)` is required (\(meaning)); add it"
        case let .unknownKey(key, line, suggestion, allowed):
            let hint = suggestion.map { " — did you mean `\($0)`?" } ?? ""
            return "line \(line): unknown key `\(key)`\(hint) (allowed here: \(allowed.joined(separator: ", ")))"
        case let .wrongType(key, line, expected, found):
            return "line \(line): `\(key)` must be \(expected); found \(found)"
        case let .notAllowed(key, line, allowed, found):
            return "line \(line): `\(key)` must be one of \(allowed); found \(found)"
        case let .impossible(key, line, reason):
            return "line \(line): `\(key)`: \(reason)"
        case let .partySetup(reason):
            return "cannot make the described party: \(reason)"
        }
    }

    /// The line the error names (0 when it names none).
    public var line: Int {
        switch self {
        case let .syntax(line, _), let .missingKey(_, line, _), let .unknownKey(_, line, _, _), let .wrongType(_, line, _, _),
             let .notAllowed(_, line, _, _), let .impossible(_, line, _):
            return line
        case .unreadable, .partySetup:
            return 0
        }
    }
}

/// Why a party refused the peer's message. The server then sends the conversation's `error` and
/// closes; the reason is for the harness, never on the wire.
/// Why a message was refused, where a conversation's `errors` can answer each differently.
public enum RefusalKind: String, Sendable, CaseIterable {
    /// A ciphertext that is not whole blocks, too short, or not its key's length.
    case length
    /// A block cipher padding that does not check.
    case padding
    /// A tag, HMAC or Fernet token that does not verify.
    case authentication
}

public struct DescribedRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    /// HTTP: the status the server answers (401 for a token it did not issue); nil: the conversation's `error_status`.
    public let httpStatus: Int?
    /// What kind of refusal, for a conversation's `errors` (nil: any other).
    public let kind: RefusalKind?
    public init(reason: String, httpStatus: Int? = nil, kind: RefusalKind? = nil) { self.reason = reason; self.httpStatus = httpStatus; self.kind = kind }
    public var description: String { "refused: \(reason)" }
}
