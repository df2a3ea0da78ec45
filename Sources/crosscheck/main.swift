import Foundation

// crosscheck: a table of subcommands. Each lives in its own file; this file only dispatches.

enum CommandTable {
    nonisolated(unsafe) static let all: [Command.Type] = [RunCommand.self, SuitesCommand.self, WycheproofCommand.self, VectorsCommand.self, RemoteCommand.self, ReportCommand.self, FuzzCommand.self, ReplayCommand.self]
}

func topLevelHelp() -> String {
    let width = CommandTable.all.map { $0.name.count }.max() ?? 0
    let rows = CommandTable.all.map { "  \($0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\($0.abstract)" }
    return """
    crosscheck: proof that a Swift client and a Python server speak the same crypto.

    USAGE: crosscheck <command> [options]

    COMMANDS:
    \(rows.joined(separator: "\n"))

    Run 'crosscheck <command> --help' for a command's options.
    """
}

func main() -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard let name = arguments.first else {
        printError(topLevelHelp())
        return ExitCode.usage.rawValue
    }
    if ["-h", "--help", "help"].contains(name) {
        if name == "help", arguments.count > 1, let command = CommandTable.all.first(where: { $0.name == arguments[1] }) {
            print(command.usage)
        } else {
            print(topLevelHelp())
        }
        return ExitCode.success.rawValue
    }
    guard let command = CommandTable.all.first(where: { $0.name == name }) else {
        printError("crosscheck: unknown command '\(name)'\n\n" + topLevelHelp())
        return ExitCode.usage.rawValue
    }
    arguments.removeFirst()
    if arguments.contains("--help") || arguments.contains("-h") {
        print(command.usage)
        return ExitCode.success.rawValue
    }
    var parsed = Arguments(arguments, command: command)
    do {
        return try command.run(&parsed).rawValue
    } catch let exit as CommandExit {
        printError(exit.message)
        return exit.code.rawValue
    } catch {
        printError("crosscheck: \(error)")
        return ExitCode.software.rawValue
    }
}

exit(main())
