import Foundation

/// Exit statuses, as sysexits.h names them where one fits.
enum ExitCode: Int32 {
    case success = 0
    case checksFailed = 1
    case usage = 64
    case dataError = 65          // a report that cannot be trusted: partial, empty, or conflicting suites
    case noInput = 66            // an input file is missing or unreadable
    case unavailable = 69        // the environment is not ready; the message says how to fix it
    case software = 70           // a bug in crosscheck itself
    case cannotCreate = 73       // the report could not be written
    case interrupted = 130
}

/// A failure that ends the command with `code` after printing `message` to stderr.
struct CommandExit: Error {
    let code: ExitCode
    let message: String
    static func usage(_ message: String, command: Command.Type) -> CommandExit {
        CommandExit(code: .usage, message: "\(message)\nRun 'crosscheck \(command.name) --help' for the options.")
    }
}

/// One subcommand: a name, a one-line abstract, its help text, and how to run it.
protocol Command {
    static var name: String { get }
    static var abstract: String { get }
    static var usage: String { get }
    /// `arguments` excludes the subcommand name; `--help` has been handled already.
    static func run(_ arguments: inout Arguments) throws -> ExitCode
}

/// The arguments of one subcommand, consumed as options are read, so leftovers are reported.
struct Arguments {
    private(set) var remaining: [String]
    let command: Command.Type

    init(_ arguments: [String], command: Command.Type) { remaining = arguments; self.command = command }

    /// `--name VALUE` or `--name=VALUE`; the last occurrence wins.
    mutating func option(_ name: String) throws -> String? {
        var value: String?
        var index = 0
        while index < remaining.count {
            let argument = remaining[index]
            if argument == name {
                guard index + 1 < remaining.count else { throw CommandExit.usage("\(name) needs a value", command: command) }
                value = remaining[index + 1]
                remaining.removeSubrange(index...(index + 1))
            } else if argument.hasPrefix(name + "=") {
                value = String(argument.dropFirst(name.count + 1))
                remaining.remove(at: index)
            } else {
                index += 1
            }
        }
        return value
    }

    mutating func flag(_ name: String) -> Bool {
        let before = remaining.count
        remaining.removeAll { $0 == name }
        return remaining.count != before
    }

    mutating func integer<T: FixedWidthInteger>(_ name: String, as type: T.Type = Int.self) throws -> T? {
        guard let text = try option(name) else { return nil }
        guard let value = T(text) else { throw CommandExit.usage("\(name) takes a whole number, not '\(text)'", command: command) }
        return value
    }

    /// What is left, after every known option was read: only positionals may remain.
    mutating func positionals() throws -> [String] {
        if let unknown = remaining.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            throw CommandExit.usage("unknown option '\(unknown)'", command: command)
        }
        defer { remaining = [] }
        return remaining
    }

    mutating func noPositionals() throws {
        let rest = try positionals()
        if let first = rest.first { throw CommandExit.usage("unexpected argument '\(first)'", command: command) }
    }
}

/// Writes to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
