import Foundation
import CommandLineKit

/// Issue 33: `crosscheck.toml` in a team's repository (written by `crosscheck init`), read by every
/// command from the working folder or the nearest folder above it that has one (so a broken file is
/// an error everywhere). It supplies `run` and `remote` the options their command line did not give
/// (the command line always wins); paths in it are relative to its folder. `CROSSCHECK_CONFIG=FILE` reads that file instead, `CROSSCHECK_CONFIG=none` none.
enum ProjectConfig {
    static let fileName = "crosscheck.toml"

    /// Every table and key the file may hold, and what each takes.
    static let schema: [String: [String: ConfigFile.Kind]] = [
        "checks": ["profile": .string, "protocol": .string, "client": .string, "known_failures": .string, "strict": .boolean, "timeout": .integer, "seed": .integer],
        "server": ["file": .string, "path": .string, "log": .string, "user": .string],
        "pi": ["hosts": .strings, "port": .integer, "pin": .string, "user": .string, "server_name": .string],
        "app": ["folder": .string],
    ]

    /// The file in force, or nil; a file that cannot be read is a usage error naming it.
    static func load(environment: [String: String] = ProcessInfo.processInfo.environment,
                     from directory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) throws -> ConfigFile? {
        let url: URL
        switch environment["CROSSCHECK_CONFIG"] {
        case "none": return nil
        case let path? where !path.isEmpty: url = URL(fileURLWithPath: path)
        default:
            guard let found = ConfigFile.find(fileName, from: directory) else { return nil }
            url = found
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw UsageError("\(url.path): cannot read it (CROSSCHECK_CONFIG names a missing file?)")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw UsageError("\(url.path): not UTF-8 text") }
        do { return try ConfigFile(text: text, url: url, schema: schema) } catch let error as ConfigFile.ReadError {
            throw UsageError("\(url.deletingLastPathComponent().path)/\(error.message)")
        }
    }

    /// What the file adds to `given` for a command that declares `declared`: only options that
    /// command has, and only those the command line left out. For `run`, the file's server (else
    /// its app) is the default subject, unless the command line picks one (--server, --app, --suite).
    static func arguments(_ config: ConfigFile, command: String, declared: Set<String>, given: [String]) -> [String] {
        let givenNames = Set(given.filter { $0.hasPrefix("--") }.map { String($0.split(separator: "=", maxSplits: 1)[0]) } + given.filter { $0.hasPrefix("-") && !$0.hasPrefix("--") })
        var added: [String] = []
        func add(_ option: String, _ value: String?) {
            guard let value, declared.contains(option), !givenNames.contains(option) else { return }
            added += [option, value]
        }
        func flag(_ option: String, _ value: Bool?) {
            guard value == true, declared.contains(option), !givenNames.contains(option) else { return }
            added.append(option)
        }
        var serverMode = givenNames.contains("--server")
        // A team's own protocol (issue 31): `protocol` names its description; the seed profiles'
        // options (profile, client) do not go with it; known failures do (patterns on its checks). The command line's
        // --profile or --protocol wins over it.
        let protocolFile = givenNames.isDisjoint(with: ["--profile", "--protocol"]) ? config.path("checks.protocol") : nil
        if command == "run", givenNames.isDisjoint(with: ["--server", "--app", "--suite"]) {
            if let file = config.string("server.file") {
                add("--server", absoluteSpec(file, in: config.folder))
                serverMode = true
            } else if let folder = config.string("app.folder"), protocolFile == nil {
                add("--app", folder.hasPrefix("seed-") ? folder : config.path("app.folder"))
            }
        }
        // Only `run` and `remote` take the file's settings: other commands' options of the same name
        // (fuzz's --seed, serve's --timeout) mean other things.
        guard command == "run" || command == "remote" else { return [] }
        if let protocolFile, command == "remote" || !givenNames.contains("--app") && !givenNames.contains("--suite") {
            add("--protocol", protocolFile)
        }
        if command == "remote" || serverMode {
            if protocolFile == nil {
                add("--profile", config.string("checks.profile"))
                add("--client", config.string("checks.client"))
            }
            add("--timeout", config.integer("checks.timeout").map(String.init))
        }
        if command == "run", serverMode {
            add("--server-path", config.path("server.path"))
            add("--server-log", config.path("server.log"))
            add("--user", config.string("server.user"))
        }
        if command == "remote" {
            if givenNames.isDisjoint(with: ["--host", "--targets"]), let hosts = config.strings("pi.hosts"), !hosts.isEmpty {
                if hosts.count == 1 { add("--host", hosts[0]) } else { add("--targets", targetsFile(hosts)) }
            }
            add("--port", config.integer("pi.port").map(String.init))
            // The aes-https settings go only to an aes-https run (remote refuses them for rsa-socket),
            // or to a described protocol (an https description needs the pin; `user` is its config).
            if protocolFile != nil || profile(given) ?? config.string("checks.profile") == "aes-https" {
                add("--pin", config.path("pi.pin"))
                add("--user", config.string("pi.user"))
                add("--server-name", config.string("pi.server_name"))
            }
        }
        add("--known-failures", config.path("checks.known_failures"))
        flag("--strict", config.boolean("checks.strict"))
        add("--seed", config.integer("checks.seed").map(String.init))
        return added
    }

    /// The `--profile` the command line gives (`--profile X` or `--profile=X`), if any.
    static func profile(_ given: [String]) -> String? {
        for (index, word) in given.enumerated() {
            if word.hasPrefix("--profile=") { return String(word.dropFirst("--profile=".count)) }
            if word == "--profile", index + 1 < given.count { return given[index + 1] }
        }
        return nil
    }

    /// `FILE.py:NAME` with FILE relative to the config's folder; a `MODULE:NAME` stays as it is.
    static func absoluteSpec(_ spec: String, in folder: URL) -> String {
        guard let colon = spec.lastIndex(of: ":"), spec[..<colon].hasSuffix(".py"), !spec.hasPrefix("/") else { return spec }
        return folder.appendingPathComponent(String(spec[..<colon])).standardizedFileURL.path + spec[colon...]
    }

    /// `pi.hosts` with more than one host, as the `--targets` file `remote` reads (in the temporary folder).
    static func targetsFile(_ hosts: [String]) -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-targets-\(getpid()).txt")
        try? (hosts.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }
}
