import Foundation

/// Which lines of the app's own files the checks ran (`crosscheck run --app DIR --app-coverage`):
/// the app is built instrumented (AppPackage.coverage), its host writes LLVM profiles
/// (`LLVM_PROFILE_FILE`, one per process, written when it exits), and `llvm-profdata merge` and
/// `llvm-cov report` give the lines covered per file, named by the team's paths. A file at 0 % is
/// code no check exercised.
public struct AppCoverage: Sendable {
    public let package: AppPackage
    /// The app's files, relative to its folder (as built).
    public let files: [String]
    /// Where the host writes its profiles.
    public let profiles: URL

    public init(package: AppPackage, files: [String], profiles: URL) {
        self.package = package; self.files = files; self.profiles = profiles
    }

    /// The host's environment with the profile path (%p: one file per process, so a restarted host adds its own).
    public func environment(_ base: [String: String]) -> [String: String] {
        var environment = base
        environment["LLVM_PROFILE_FILE"] = profiles.appendingPathComponent("app-%p.profraw").path
        return environment
    }

    public struct FileCoverage: Equatable, Sendable {
        public let file: String
        public let lines: Int
        public let missed: Int
        public var percent: Double { lines == 0 ? 100 : Double(lines - missed) * 100 / Double(lines) }
    }

    /// Per app file (the adapter's too), after the host has exited; throws what to install or what failed.
    public func report() throws -> [FileCoverage] {
        guard let profdata = Self.tool("llvm-profdata"), let cov = Self.tool("llvm-cov") else {
            throw AppCoverageError("llvm-profdata and llvm-cov are needed for --app-coverage (they come with the Swift toolchain; on Debian: apt-get install llvm)")
        }
        let raw = ((try? FileManager.default.contentsOfDirectory(atPath: profiles.path)) ?? []).filter { $0.hasSuffix(".profraw") }.sorted()
        guard !raw.isEmpty else { throw AppCoverageError("the app's host wrote no profile in \(profiles.path) (did it exit normally?)") }
        let merged = profiles.appendingPathComponent("app.profdata")
        _ = try Self.run(profdata, ["merge", "-sparse", "-o", merged.path] + raw.map { profiles.appendingPathComponent($0).path })
        let copies = files.map { package.appSources.appendingPathComponent($0).standardizedFileURL.path }
        let text = try Self.run(cov, ["report", package.executable.path, "-instr-profile", merged.path] + copies)
        return Self.parse(text, copies: copies, files: files)
    }

    /// `llvm-cov report`'s table: Filename, Regions, Missed Regions, Cover, Functions, Missed, Executed, Lines, Missed Lines, Cover, …
    static func parse(_ text: String, copies: [String], files: [String]) -> [FileCoverage] {
        var out: [FileCoverage] = []
        for line in text.split(separator: "\n") {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard columns.count >= 10, let index = copies.firstIndex(where: { $0.hasSuffix(columns[0]) || $0 == columns[0] }),
                  let lines = Int(columns[7]), let missed = Int(columns[8]) else { continue }
            out.append(FileCoverage(file: files[index], lines: lines, missed: missed))
        }
        return out
    }

    /// The toolchain's own tool (beside `swift`, whose compiler wrote the profile: another LLVM's
    /// llvm-profdata refuses its format version), else the one on PATH.
    static func tool(_ name: String) -> URL? {
        if let swift = AppPackage.locate("swift") {
            let beside = swift.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        }
        return AppPackage.locate(name)
    }

    static func run(_ tool: URL, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw AppCoverageError("\(tool.lastPathComponent) \(arguments.joined(separator: " ")) failed (exit \(process.terminationStatus)): \(text)") }
        return text
    }
}

public struct AppCoverageError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
