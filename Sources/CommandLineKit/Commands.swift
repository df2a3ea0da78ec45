import Foundation

/// A set of declared options: a command, or a group several commands share.
public protocol ParsableArguments {
    init()
    /// Checks that need more than one option, or the file system; throw `UsageError` to refuse.
    func validate() throws
}

extension ParsableArguments {
    public func validate() throws {}

    /// Validates every group inside, then this value.
    func validateAll() throws {
        for case let group as any GroupValidating in Mirror(reflecting: self).children.map(\.value) { try group.validate() }
        try validate()
    }
}

protocol GroupValidating { func validate() throws }
extension OptionGroup: GroupValidating {}

/// Exit statuses, as sysexits.h names them where one fits; every command documents the ones it uses.
public enum ExitCode: Int32, CaseIterable, Sendable {
    case success = 0
    case checksFailed = 1
    case usage = 64
    case dataError = 65          // an input crosscheck cannot vouch for (a partial or empty report)
    case noInput = 66            // an input file is missing, unreadable or damaged
    case unavailable = 69        // the environment is not ready; the message says how to fix it
    case software = 70           // a bug in crosscheck itself
    case cannotCreate = 73       // the report could not be written
    case interrupted = 130

    public var meaning: String {
        switch self {
        case .success: return "success: every check passed (skips allowed)"
        case .checksFailed: return "a check failed or errored"
        case .usage: return "usage error: a bad option or argument (the message says which)"
        case .dataError: return "a report crosscheck cannot vouch for: partial, without testcases, or with conflicting suites"
        case .noInput: return "an input file is missing, unreadable or not in the expected format"
        case .unavailable: return "environment not ready: a tool or package is missing (the message says what to install)"
        case .software: return "an internal error in crosscheck (please report it)"
        case .cannotCreate: return "the report or output could not be written"
        case .interrupted: return "interrupted by SIGINT/SIGTERM; a partial report, marked partial, was written first"
        }
    }
}

/// A failure that ends the command with `code` after printing `message` to stderr.
public struct CommandExit: Error {
    public let code: ExitCode
    public let message: String
    public init(_ code: ExitCode, _ message: String) { self.code = code; self.message = message }
}

/// Name, one-line abstract, the text under USAGE, and the exit statuses a command uses.
public struct CommandConfiguration: Sendable {
    public let name: String
    public let abstract: String
    /// Synopsis lines after "crosscheck NAME" (e.g. "[options] FILE..."); default "[options]".
    public let synopsis: [String]
    public let discussion: String
    public let exitCodes: [ExitCode]
    /// Extra words per exit code where the general meaning is not enough.
    public let exitNotes: [ExitCode: String]

    public init(name: String, abstract: String, synopsis: [String] = ["[options]"], discussion: String = "",
                exitCodes: [ExitCode] = [.success, .checksFailed, .usage, .interrupted], exitNotes: [ExitCode: String] = [:]) {
        self.name = name; self.abstract = abstract; self.synopsis = synopsis; self.discussion = discussion
        self.exitCodes = exitCodes; self.exitNotes = exitNotes
    }
}

/// A subcommand: its declarations, configuration and what it does.
public protocol ParsableCommand: ParsableArguments {
    static var configuration: CommandConfiguration { get }
    func run() throws -> ExitCode
}

extension ParsableCommand {
    /// Parses `arguments` (without the command name) into a fresh command, then validates it.
    public static func parse(_ arguments: [String]) throws -> Self {
        let command = Self()
        let specs = declarations(in: command).flatMap(\.specs)
        var byName: [String: ArgumentSpec] = [:]
        for spec in specs { for name in spec.names { byName[name] = spec } }
        let positional = specs.first { $0.kind == .positional }
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                guard let positional else { throw UsageError("unexpected argument '\(argument)'") }
                try positional.accept(argument)
                continue
            }
            if argument == "--" { onlyPositionals = true; continue }
            let (name, inline) = argument.firstIndex(of: "=").map { (String(argument[..<$0]), Optional(String(argument[argument.index(after: $0)...]))) }
                ?? (argument, nil)
            guard let spec = byName[name] else {
                throw UsageError("unknown option '\(name)'" + didYouMean(name, among: specs.filter { !$0.hidden }.flatMap(\.names)))
            }
            spec.given.value = true
            switch spec.kind {
            case .flag:
                guard inline == nil else { throw UsageError("\(name) takes no value") }
                spec.set()
            case .option:
                if let inline { try spec.accept(inline); continue }
                guard index < arguments.count else { throw UsageError("\(name) needs a value") }
                try spec.accept(arguments[index])
                index += 1
            case .positional: break
            }
        }
        try command.validateAll()
        return command
    }

    /// The help text, built from the declarations.
    public static var helpText: String {
        let config = configuration
        let specs = declarations(in: Self()).flatMap(\.specs).filter { !$0.hidden }
        var lines = config.synopsis.enumerated().map { ($0.offset == 0 ? "USAGE: " : "       ") + "crosscheck \(config.name) \($0.element)" }
        lines.append("")
        lines.append(config.abstract)
        if !config.discussion.isEmpty { lines += ["", config.discussion] }
        let rows = specs.map { spec -> (String, String) in
            let left: String
            switch spec.kind {
            case .flag: left = spec.names.joined(separator: ", ")
            case .option: left = spec.names.map { "\($0) \(spec.valueName)" }.joined(separator: ", ")
            case .positional: left = spec.valueName
            }
            return (left, spec.help + (spec.defaultText.map { " (default: \($0))" } ?? ""))
        } + [("-h, --help", "show this help")]
        let width = min(24, rows.map(\.0.count).max() ?? 0)
        lines += ["", "OPTIONS:"]
        for (left, right) in rows {
            let wrapped = wrap(right, width: 100 - width - 4)
            if left.count > width {
                lines.append("  \(left)")
                lines += wrapped.map { String(repeating: " ", count: width + 4) + $0 }
            } else {
                lines.append("  " + left.padding(toLength: width + 2, withPad: " ", startingAt: 0) + (wrapped.first ?? ""))
                lines += wrapped.dropFirst().map { String(repeating: " ", count: width + 4) + $0 }
            }
        }
        lines += ["", "EXIT STATUS:"]
        for code in config.exitCodes {
            lines.append("  " + String(code.rawValue).padding(toLength: 5, withPad: " ", startingAt: 0) + (config.exitNotes[code] ?? code.meaning))
        }
        return lines.joined(separator: "\n")
    }
}

/// Words of `text` in lines of at most `width` characters (a word longer than that gets its own line).
func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
        var line = ""
        for word in paragraph.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width { lines.append(line); line = "" }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
    }
    return lines
}
