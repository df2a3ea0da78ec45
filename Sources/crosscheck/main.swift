import Foundation
import CommandLineKit

// crosscheck: a table of subCommandTable.all. Each lives in its own file; this file only dispatches.

enum CommandTable {
    static var all: [any ParsableCommand.Type] {
        [RunCommand.self, SuitesCommand.self, WycheproofCommand.self, VectorsCommand.self, RemoteCommand.self,
         ReportCommand.self, FuzzCommand.self, ReplayCommand.self, ServeCommand.self, AppHostCommand.self, ATSCommand.self,
         InitCommand.self]
    }
}

func topLevelHelp() -> String {
    let width = CommandTable.all.map { $0.configuration.name.count }.max() ?? 0
    let rows = CommandTable.all.map { "  \($0.configuration.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\($0.configuration.abstract)" }
    let codes = ExitCode.allCases.map { "  \(String($0.rawValue).padding(toLength: 5, withPad: " ", startingAt: 0))\($0.meaning)" }
    return """
    crosscheck: proof that a Swift client and a Python server speak the same crypto.

    USAGE: crosscheck <command> [options]
           crosscheck --version

    COMMANDS:
    \(rows.joined(separator: "\n"))

    Run 'crosscheck <command> --help' for a command's options.

    EXIT STATUS (each command's --help lists the ones it uses):
    \(codes.joined(separator: "\n"))
    """
}

func commandNames() -> [String] { CommandTable.all.map { $0.configuration.name } }

func main() -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard let name = arguments.first else {
        printError(topLevelHelp())
        return ExitCode.usage.rawValue
    }
    if ["--version", "-V", "version"].contains(name) {
        print(Version.text())
        return ExitCode.success.rawValue
    }
    if ["-h", "--help", "help"].contains(name) {
        if name == "help", arguments.count > 1 {
            guard let command = CommandTable.all.first(where: { $0.configuration.name == arguments[1] }) else {
                printError("crosscheck: unknown command '\(arguments[1])'\(didYouMean(arguments[1], among: commandNames()))\n\n" + topLevelHelp())
                return ExitCode.usage.rawValue
            }
            print(command.helpText)
        } else {
            print(topLevelHelp())
        }
        return ExitCode.success.rawValue
    }
    guard let command = CommandTable.all.first(where: { $0.configuration.name == name }) else {
        printError("crosscheck: unknown command '\(name)'\(didYouMean(name, among: commandNames() + ["--version"]))\n\n" + topLevelHelp())
        return ExitCode.usage.rawValue
    }
    arguments.removeFirst()
    if arguments.contains("--help") || arguments.contains("-h") {
        print(command.helpText)
        return ExitCode.success.rawValue
    }
    return execute(command, withConfig(command, arguments)).rawValue
}

/// The command line with what crosscheck.toml adds in front (the command line's own options come
/// later, so they win). A file that cannot be read ends the command (exit 64, naming its line).
func withConfig(_ command: any ParsableCommand.Type, _ arguments: [String]) -> [String] {
    let name = command.configuration.name
    guard name != "init", name != "app-host" else { return arguments }
    do {
        guard let config = try ProjectConfig.load() else { return arguments }
        let added = ProjectConfig.arguments(config, command: name, declared: command.optionNames, given: arguments)
        if !added.isEmpty, !arguments.contains("--quiet") {
            printError("crosscheck \(name): from \(config.url.path): \(added.joined(separator: " "))")
        }
        return added + arguments
    } catch {
        printError("crosscheck \(name): \(error)\nFix the file (crosscheck init --help says what it takes), or run with CROSSCHECK_CONFIG=none.")
        exit(ExitCode.usage.rawValue)
    }
}

/// Parses, validates and runs one command; every error becomes a message and a documented exit code.
func execute(_ type: any ParsableCommand.Type, _ arguments: [String]) -> ExitCode {
    let name = type.configuration.name
    do {
        return try type.parse(arguments).run()
    } catch let usage as UsageError {
        printError("crosscheck \(name): \(usage.message)\nRun 'crosscheck \(name) --help' for the options.")
        return .usage
    } catch let exit as CommandExit {
        printError(exit.message)
        return exit.code
    } catch {
        printError("crosscheck \(name): internal error: \(error)")
        return .software
    }
}

exit(main())
