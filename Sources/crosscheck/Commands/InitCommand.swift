import Foundation
import CommandLineKit

/// `crosscheck init`: a commented crosscheck.toml in a team's repository, so every later command
/// there needs no options (docs/REFERENCE.md, "crosscheck.toml").
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "init", abstract: "Write a commented crosscheck.toml here: your protocol, server file, app folder, Pi hosts, known failures, strictness.",
        discussion: """
        Every crosscheck command reads crosscheck.toml from the folder it runs in or the nearest folder
        above it; run and remote take from it the options their command line leaves out (the command line wins).
        What you give here is written in; the rest is written commented out, with what it does.
        Paths in the file are relative to its folder. CROSSCHECK_CONFIG=FILE reads another file,
        CROSSCHECK_CONFIG=none none.
        """,
        exitCodes: [.success, .usage, .cannotCreate],
        exitNotes: [.usage: "a bad option, or crosscheck.toml is already there (--force replaces it)",
                    .cannotCreate: "crosscheck.toml could not be written"])

    @Option(name: "--profile", value: "NAME", help: "the protocol your Pi speaks: rsa-socket or aes-https")
    var profile: ProfileName?
    @Option(name: "--protocol", value: "FILE", help: "your own protocol's description (docs/PROTOCOL-DESCRIPTIONS.md), instead of a --profile")
    var protocolFile: String?
    @Option(name: "--server", value: "FILE.py:NAME", help: "your server file and the handler class or WSGI app in it (run --server)")
    var server: String?
    @Option(name: "--app", value: "DIR", help: "the folder of your app's crypto code and its adapter (run --app)")
    var app: String?
    @Option(name: "--host", value: "LIST", help: "your Pi or Pis, comma-separated host or host:port (remote)")
    var hosts: ArgumentList<String>?
    @Option(name: "--dir", value: "DIR", help: "where to write crosscheck.toml")
    var directory = "."
    @Flag(name: "--force", help: "replace an existing crosscheck.toml")
    var force: Bool
    init() {}

    enum ProfileName: String, CaseIterable, ExpressibleByArgument { case rsaSocket = "rsa-socket", aesHTTPS = "aes-https" }

    func validate() throws {
        if profile != nil, protocolFile != nil {
            throw UsageError("--profile names a seed protocol and --protocol your own description: give one")
        }
        if let server, !server.contains(":") {
            throw UsageError("--server takes FILE.py:NAME (the file and the handler class or WSGI app in it), not '\(server)'")
        }
    }

    func run() throws -> ExitCode {
        let url = URL(fileURLWithPath: directory).appendingPathComponent(ProjectConfig.fileName)
        if FileManager.default.fileExists(atPath: url.path), !force {
            throw UsageError("\(url.path) is already there; edit it, or --force to write a new one")
        }
        let text = Self.template(profile: profile?.rawValue, protocolFile: protocolFile, server: server, app: app, hosts: hosts?.items ?? [])
        do { try Data(text.utf8).write(to: url, options: .atomic) } catch {
            throw CommandExit(.cannotCreate, "crosscheck init: cannot write \(url.path): \(error.localizedDescription)")
        }
        // What was written must read back: the template and the reader are kept in step by this.
        _ = try ConfigFile(text: text, url: url, schema: ProjectConfig.schema)
        print("crosscheck init: wrote \(url.path)")
        print("next:")
        print("  crosscheck remote\(hosts == nil ? " --host raspberrypi.local" : "")\(profile == nil && protocolFile == nil ? " --profile rsa-socket" : "")   # your live Pi")
        print("  crosscheck run\(server == nil ? " --server server.py:Handler" : "")   # your server file, in-process")
        print("  crosscheck run --app \(app ?? "DIR")   # your app's crypto code")
        return .success
    }

    /// The file: each setting with a line saying what it does; the ones not given commented out.
    static func template(profile: String?, protocolFile: String? = nil, server: String?, app: String?, hosts: [String]) -> String {
        func line(_ key: String, _ value: String?, example: String) -> String {
            value.map { "\(key) = \($0)" } ?? "# \(key) = \(example)"
        }
        func quoted(_ text: String?) -> String? { text.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" } }
        return """
        # crosscheck.toml — read by every crosscheck command run in this folder or below it.
        # crosscheck run and remote use a setting here when the command line leaves that option out; the command line wins.
        # Paths are relative to this file's folder. `crosscheck init --help` and docs/REFERENCE.md say more.

        [checks]
        # The protocol your Pi speaks: "rsa-socket" (RSA key exchange over TCP) or "aes-https" (AES-CBC JSON envelopes over HTTPS).
        \(line("profile", quoted(profile), example: "\"rsa-socket\""))
        # Or your own protocol, described in one file (docs/PROTOCOL-DESCRIPTIONS.md): every check speaks it,
        # in place of profile (and of client, which belongs to the seed profiles).
        \(line("protocol", quoted(protocolFile), example: "\"protocols/our-pi.toml\""))
        # Who talks to your server: "reference" (crosscheck's client: the protocol, every check and audit),
        # "seed-app" (the tutorial's seed apps as they ship) or "both".
        # client = "reference"
        # Failures you know about: listed failing checks are reported as skipped "known: <reason>" (same format as Vectors/known-failures.json).
        # known_failures = "known-failures.json"
        # true: the weaknesses the audit names (PKCS#1 v1.5, RSA < 2048, CBC without a MAC, …) fail the run too.
        # strict = false
        # Seconds for every connect, read and write (and for a handler in-process).
        # timeout = 5
        # The seed of the probes' bytes and keys: the same seed, the same run.
        # seed = 1

        [server]
        # Your Pi server's file and the socketserver handler class, handle(conn, addr) or WSGI app (Flask's app) in it: crosscheck run.
        \(line("file", quoted(server), example: "\"server.py:Handler\""))
        # The folder to import a MODULE:NAME from, when file is not a FILE.py.
        # path = "."
        # Where the server's prints and tracebacks go.
        # log = "reports/server.log"
        # aes-https: the account the checks log in with.
        # user = "user:password"

        [pi]
        # Your live Pi(s), host or host:port: crosscheck remote (more than one: each is checked, a testsuite per host).
        \(line("hosts", hosts.isEmpty ? nil : "[" + hosts.compactMap { quoted($0) }.joined(separator: ", ") + "]", example: "[\"raspberrypi.local\"]"))
        # The port, when hosts do not say (default 9876 for rsa-socket, 8443 for aes-https).
        # port = 9876
        # aes-https: the certificate your app bundles (DER or PEM), e.g. what `pythonref server-cert` wrote.
        # pin = "server.crt.der"
        # aes-https: the account the checks log in with.
        # user = "user:password"
        # aes-https: verify the certificate for this name.
        # server_name = "raspberrypi.local"

        [app]
        # Your app's crypto code (Swift files, unchanged) and its adapter: crosscheck run uses it when [server] file is not set.
        \(line("folder", quoted(app), example: "\"App/Crypto\""))

        """
    }
}
