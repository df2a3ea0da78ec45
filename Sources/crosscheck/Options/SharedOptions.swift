import Foundation
import CommandLineKit
import Conformance
import PythonBridge

/// `--junit PATH --quiet`: where a command writes its report and whether it prints progress.
struct ReportOptions: ParsableArguments {
    @Option(name: "--junit", value: "PATH", help: "where to write the JUnit report (atomically; a partial report, marked partial, on SIGINT/SIGTERM)")
    var junit: String?
    @Flag(name: "--quiet", help: "no progress lines, only the summary")
    var quiet: Bool
    init() {}
}

/// `--seed N`: the seed of everything random in a run, recorded in its report.
struct SeedOption: ParsableArguments {
    @Option(name: "--seed", value: "N", help: "seed for plaintexts, keys, IVs and nonces (default: random; printed and recorded in the report)")
    var given: UInt64?
    /// Drawn once per run when not given.
    private let drawn = UInt64.random(in: 1...999_999)
    init() {}
    var value: UInt64 { given ?? drawn }
}

/// `--pythonref DIR --vectors DIR --python PATH`: where PythonRef, the vectors and the interpreter are.
struct FilesOptions: ParsableArguments {
    @Option(name: "--pythonref", value: "DIR", help: "the folder holding the pythonref package (default: $CROSSCHECK_PYTHONREF, else the PythonRef/ of the checkout crosscheck runs from)")
    var pythonRef: String?
    @Option(name: "--vectors", value: "DIR", help: "the Vectors/ folder (TLS certificates, OpenSSL and Wycheproof vectors, fuzz corpus; default: $CROSSCHECK_VECTORS, else the checkout's)")
    var vectors: String?
    @Option(name: "--python", value: "PATH", help: "the Debian interpreter whose installation crosscheck embeds")
    var executable = "/usr/bin/python3"
    init() {}

    func validate() throws {
        // --pythonref is checked when Python starts (exit 69 with the fix): commands that need no Python ignore it.
        if let vectors, !FileManager.default.fileExists(atPath: vectors + "/tls") {
            throw UsageError("--vectors \(vectors): not a crosscheck Vectors/ folder (it has no tls/)")
        }
        if $executable { try PythonExecutable.check(executable) }  // the default is checked when Python starts (exit 69)
    }

    var files: ProjectFiles { ProjectFiles.locate(pythonRef: pythonRef, vectors: vectors) }

    /// Starts the embedded interpreter, or ends the command with exit 69 and the fix.
    func interpreter() throws -> PythonInterpreter {
        do { return try PythonInterpreter.shared(pythonRefDirectory: files.pythonRef.path, executable: executable) } catch let error as PythonError {
            throw CommandExit(.unavailable, "crosscheck: environment not ready: \(error)")
        }
    }
}

/// `--python PATH` must name the Python crosscheck embeds: the embedded library takes its prefix and
/// standard library from that interpreter, so another program (or another Python version) would
/// start a mismatched interpreter, and the report would record the wrong one.
enum PythonExecutable {
    /// The Python version crosscheck was built against (Debian 12: 3.11; Debian 13: 3.13).
    static let embeddedVersion = PythonInterpreter.linkedVersion

    static func check(_ path: String) throws {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw UsageError("--python \(path): no executable there; give Debian's python3 (\(embeddedVersion)), e.g. /usr/bin/python3")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }  // set before run(): a quick exit must not be missed
        do { try process.run() } catch { throw UsageError("--python \(path): cannot run it (\(error))") }
        let deadline = DispatchTime.now() + 10
        if finished.wait(timeout: deadline) == .timedOut {
            process.terminate()
            throw UsageError("--python \(path): it did not answer 'python -c' within 10 s; give Debian's python3 (\(embeddedVersion))")
        }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, printed == embeddedVersion else {
            throw UsageError("--python \(path) is not Python \(embeddedVersion)" + (printed.isEmpty ? " (it is not a Python interpreter)" : " (it is Python \(printed))")
                             + "; crosscheck embeds Debian's python3 \(embeddedVersion): give /usr/bin/python3")
        }
    }
}

/// `--impl swift|python|both`: which implementations a command runs (Python starts only if asked).
enum Implementations: String, CaseIterable, ExpressibleByArgument {
    case swift, python, both

    func peers(_ files: FilesOptions) throws -> [CryptoPeer] {
        switch self {
        case .swift: return [SwiftPeer()]
        case .python: return [PythonPeer(interpreter: try files.interpreter())]
        case .both: return [SwiftPeer(), PythonPeer(interpreter: try files.interpreter())]
        }
    }
}

/// Writes to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
