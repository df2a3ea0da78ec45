import Foundation

/// The `openssl` command line as a third implementation and as the source of the generated
/// vectors; in the core because two capabilities run it (the `vectors` suite and the app checks).
/// Single runs for queries (`openssl version`); `batch` for the many decryptions and encryptions,
/// run by one `/bin/sh` in a few parallel lanes, since one `Process` per vector from Swift is the
/// slow part (the CLI itself takes a few milliseconds per call).
public struct OpenSSLTool: Sendable {
    public let executable: URL

    public init(executable: URL) { self.executable = executable }

    /// `path` (a path, or a name looked up in `$PATH`), else `$CROSSCHECK_OPENSSL`, else `openssl`.
    public static func locate(_ path: String? = nil) throws -> OpenSSLTool {
        let name = path ?? ProcessInfo.processInfo.environment["CROSSCHECK_OPENSSL"].flatMap { $0.isEmpty ? nil : $0 } ?? "openssl"
        if name.contains("/") {
            guard FileManager.default.isExecutableFile(atPath: name) else { throw OpenSSLToolError.notFound(name) }
            return OpenSSLTool(executable: URL(fileURLWithPath: name))
        }
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in searchPath.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return OpenSSLTool(executable: candidate) }
        }
        throw OpenSSLToolError.notFound(name)
    }

    /// What one command did.
    public struct ProcessOutput: Sendable {
        public var status: Int32
        public var stdout: Data
        public var stderr: String
        public var succeeded: Bool { status == 0 }
    }

    /// `openssl version`, e.g. "OpenSSL 3.0.19 27 Jan 2026 (Library: OpenSSL 3.0.19 27 Jan 2026)".
    public func version() throws -> String {
        let outcome = try run(["version"], in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        guard outcome.succeeded else { throw OpenSSLToolError.failed(command: Self.commandLine(["version"]), stderr: outcome.stderr) }
        return String(decoding: outcome.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs one command in `directory`.
    public func run(_ arguments: [String], in directory: URL) throws -> ProcessOutput {
        try batch([arguments], in: directory, lanes: 1)[0]
    }

    /// Runs every command (arguments after `openssl`) in `directory`, spread over `lanes`
    /// sequential lanes of one shell; outcomes come back in the order given. Commands in a batch
    /// must not depend on each other.
    public func batch(_ commands: [[String]], in directory: URL,
                      lanes: Int = max(2, ProcessInfo.processInfo.activeProcessorCount)) throws -> [ProcessOutput] {
        guard !commands.isEmpty else { return [] }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-openssl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        let laneCount = max(1, min(lanes, commands.count))
        var script = "cd \(Self.quoted(directory.path)) || exit 97\n"
        for lane in 0..<laneCount {
            script += "(\n"
            for index in stride(from: lane, to: commands.count, by: laneCount) {
                let base = Self.quoted(scratch.appendingPathComponent(String(index)).path)
                script += "  \(Self.quoted(executable.path)) \(commands[index].map(Self.quoted).joined(separator: " "))"
                script += " </dev/null >\(base).out 2>\(base).err; echo $? >\(base).rc\n"
            }
            script += ") &\n"
        }
        script += "wait\n"
        let scriptURL = scratch.appendingPathComponent("batch.sh")
        try Data(script.utf8).write(to: scriptURL)

        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = [scriptURL.path]
        let errors = Pipe()
        shell.standardError = errors
        shell.standardOutput = FileHandle.nullDevice
        shell.standardInput = FileHandle.nullDevice
        try shell.run()
        let shellErrors = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        try? errors.fileHandleForReading.close()  // now, not when Foundation lets go of the Process
        guard shell.terminationStatus == 0 else {
            throw OpenSSLToolError.failed(command: "/bin/sh \(scriptURL.path)", stderr: shellErrors)
        }
        return commands.indices.map { index in
            let base = scratch.appendingPathComponent(String(index))
            let rc = (try? String(contentsOf: base.appendingPathExtension("rc"), encoding: .utf8))
                .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? -1
            return ProcessOutput(status: rc, stdout: (try? Data(contentsOf: base.appendingPathExtension("out"))) ?? Data(),
                           stderr: (try? String(contentsOf: base.appendingPathExtension("err"), encoding: .utf8)) ?? "")
        }
    }

    /// `openssl …` as a person would type it (arguments quoted only where the shell needs it).
    public static func commandLine(_ arguments: [String]) -> String {
        (["openssl"] + arguments.map { argument in
            let plain = !argument.isEmpty && argument.unicodeScalars.allSatisfy {
                CharacterSet.alphanumerics.contains($0) || "-_./:=+,@%".unicodeScalars.contains($0)
            }
            return plain ? argument : quoted(argument)
        }).joined(separator: " ")
    }

    /// Single-quoted for /bin/sh.
    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}

public enum OpenSSLToolError: Error, Equatable, CustomStringConvertible {
    case notFound(String)
    case failed(command: String, stderr: String)

    public var description: String {
        switch self {
        case let .notFound(name):
            return "the openssl command '\(name)' was not found (install Debian's openssl package, or pass --openssl PATH)"
        case let .failed(command, stderr):
            return "\(command) failed: \(stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
    }
}
