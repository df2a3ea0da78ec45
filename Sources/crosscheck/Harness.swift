import Foundation
import Conformance
import PythonBridge
import WireCrypto

/// Options every command that embeds Python shares: where PythonRef and the interpreter are.
struct PythonOptions {
    static let help = """
      --pythonref DIR     folder holding the pythonref package (default: $CROSSCHECK_PYTHONREF, else
                          the PythonRef/ of the checkout crosscheck was built in or run from)
      --python PATH       the Debian interpreter whose installation is embedded (default /usr/bin/python3)
    """
    var pythonRef: String?
    var executable = "/usr/bin/python3"

    init(_ arguments: inout Arguments) throws {
        pythonRef = try arguments.option("--pythonref")
        executable = try arguments.option("--python") ?? executable
    }

    /// The first of: --pythonref, $CROSSCHECK_PYTHONREF, a PythonRef/ above the executable or the
    /// working directory, the checkout this binary was compiled from.
    func resolvedPythonRef() -> String {
        if let pythonRef { return pythonRef }
        if let fromEnvironment = ProcessInfo.processInfo.environment["CROSSCHECK_PYTHONREF"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        let executableDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let starts = [executableDirectory, URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        for start in starts {
            var directory = start
            for _ in 0..<6 {
                let candidate = directory.appendingPathComponent("PythonRef")
                if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("pythonref/__init__.py").path) {
                    return candidate.path
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("PythonRef").path
    }

    /// Starts the embedded interpreter, or ends the command with exit 69 and the fix.
    func interpreter() throws -> PythonInterpreter {
        do { return try PythonInterpreter.shared(pythonRefDirectory: resolvedPythonRef(), executable: executable) } catch let error as PythonError {
            throw CommandExit(code: .unavailable, message: "crosscheck: environment not ready: \(error)")
        }
    }
}

/// A SIGINT/SIGTERM latch: the first signal asks the run to stop after the current check, so a
/// partial report can still be written; a second one exits at once.
final class InterruptLatch: @unchecked Sendable {
    private let lock = NSLock()
    private var signalNumber: Int32?
    private var sources: [DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.receive(number) }
            source.resume()
            sources.append(source)
        }
    }

    private func receive(_ number: Int32) {
        lock.lock(); defer { lock.unlock() }
        if signalNumber != nil { exit(ExitCode.interrupted.rawValue) }
        signalNumber = number
        printError("\ncrosscheck: interrupted; finishing the current check and writing a partial report (again to quit now)")
    }

    var interrupted: Bool { lock.lock(); defer { lock.unlock() }; return signalNumber != nil }
}

/// Prints progress on long runs: a line per finished suite and for every failure, to stderr.
struct ProgressPrinter {
    let quiet: Bool
    private var lastSuite: String?
    private var suiteStart = Date()
    private var counts = (passed: 0, failed: 0, skipped: 0)

    init(quiet: Bool) { self.quiet = quiet }

    mutating func record(done: Int, total: Int, result: CheckResult) {
        if lastSuite != result.check.suite {
            finishSuite()
            lastSuite = result.check.suite
            suiteStart = Date()
        }
        switch result.outcome {
        case .passed: counts.passed += 1
        case .skipped: counts.skipped += 1
        case let .failed(message, _), let .error(message, _):
            counts.failed += 1
            if !quiet { printError("  FAIL \(result.check.fullName): \(message)") }
        }
        if done == total { finishSuite() }
    }

    private mutating func finishSuite() {
        guard let suite = lastSuite else { return }
        if !quiet {
            printError(String(format: "  %@: %d passed, %d failed, %d skipped (%.1fs)", suite, counts.passed, counts.failed,
                              counts.skipped, Date().timeIntervalSince(suiteStart)))
        }
        counts = (0, 0, 0)
        lastSuite = nil
    }
}
