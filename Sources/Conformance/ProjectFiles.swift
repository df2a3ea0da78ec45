import Foundation

/// Where crosscheck finds its data: `PythonRef/` (the reference package it embeds and runs as
/// servers) and `Vectors/` (openssl/, wycheproof/, frames/, tls/, junit/). The one rule, applied
/// to each folder on its own, first match wins:
/// 1. an explicit path (`--pythonref DIR`, `--vectors DIR`);
/// 2. the environment (`$CROSSCHECK_PYTHONREF`, `$CROSSCHECK_VECTORS`);
/// 3. an installed crosscheck (`make install PREFIX=…`): `PREFIX/share/crosscheck/<folder>` beside
///    the executable's `PREFIX/bin/`;
/// 4. the checkout holding the running executable (its folder and up to six above it);
/// 5. the working directory and up to six folders above it;
/// 6. the checkout this binary was compiled from.
/// A folder counts only if it holds what marks it (`pythonref/__init__.py`, `wycheproof/` or `tls/`).
public struct ProjectFiles: Sendable, Equatable {
    public let pythonRef: URL
    public let vectors: URL

    public init(pythonRef: URL, vectors: URL) { self.pythonRef = pythonRef; self.vectors = vectors }

    /// The checkout at `root` (tests use this: no search).
    public init(checkout root: URL) {
        self.init(pythonRef: root.appendingPathComponent("PythonRef"), vectors: root.appendingPathComponent("Vectors"))
    }

    /// `executable`: the running program's path (tests give another to show the search).
    public static func locate(pythonRef: String? = nil, vectors: String? = nil,
                              environment: [String: String] = ProcessInfo.processInfo.environment,
                              executable: String = CommandLine.arguments.first ?? ".") -> ProjectFiles {
        let executable = executablePath(executable, environment: environment)
        return ProjectFiles(
            pythonRef: find("PythonRef", explicit: pythonRef, variable: environment["CROSSCHECK_PYTHONREF"], marks: ["pythonref/__init__.py"],
                            executable: executable),
            vectors: find("Vectors", explicit: vectors, variable: environment["CROSSCHECK_VECTORS"], marks: ["wycheproof", "tls"],
                          executable: executable))
    }

    /// The folder an installed crosscheck keeps its data in, relative to `PREFIX/bin/crosscheck`.
    public static let installedData = "share/crosscheck"

    /// `argv[0]` as a path: a bare name (`crosscheck`, found on `PATH`) is looked up in `PATH`.
    static func executablePath(_ argument: String, environment: [String: String]) -> URL {
        if argument.contains("/") { return URL(fileURLWithPath: argument) }
        for directory in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(argument)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return URL(fileURLWithPath: argument)
    }

    public var openSSL: URL { vectors.appendingPathComponent("openssl") }
    public var wycheproof: URL { vectors.appendingPathComponent("wycheproof") }
    public var frames: URL { vectors.appendingPathComponent("frames") }
    /// The TLS test certificates and keys (`pinned`, `impostor`, `expired`, … `.crt.pem`/`.key.pem`).
    public var tls: URL { vectors.appendingPathComponent("tls") }
    public var junitSchema: URL { vectors.appendingPathComponent("junit/JUnit.xsd") }

    /// The checkout this file was compiled in (Sources/Conformance/ProjectFiles.swift → its root).
    public static let compiledCheckout = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private static func find(_ folder: String, explicit: String?, variable: String?, marks: [String], executable: URL) -> URL {
        if let explicit, !explicit.isEmpty { return URL(fileURLWithPath: explicit) }
        if let variable, !variable.isEmpty { return URL(fileURLWithPath: variable) }
        let executable = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        let installed = executable.deletingLastPathComponent().appendingPathComponent(installedData).appendingPathComponent(folder)
        if marks.contains(where: { FileManager.default.fileExists(atPath: installed.appendingPathComponent($0).path) }) { return installed }
        for start in [executable, URL(fileURLWithPath: FileManager.default.currentDirectoryPath)] {
            var directory = start
            for _ in 0...6 {
                let candidate = directory.appendingPathComponent(folder)
                if marks.contains(where: { FileManager.default.fileExists(atPath: candidate.appendingPathComponent($0).path) }) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        return compiledCheckout.appendingPathComponent(folder)
    }
}
