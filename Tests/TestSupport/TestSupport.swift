// TestSupport: what the test targets share — hex for vectors, the repository root, scratch
// directories, and running the independent peers (Debian's python3 with pyca/cryptography and the
// openssl command line). It depends on Foundation only, never on the code under test.
import Foundation

/// The repository root, found from this file's path (tests read vendored vectors from it).
public let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

extension Data {
    /// Bytes from a hex literal in a test; a malformed literal is a bug in the test, so it traps.
    public init(hex: String) {
        precondition(hex.count % 2 == 0, "odd-length hex literal in a test: \(hex)")
        var bytes = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { preconditionFailure("not hex in a test: \(hex)") }
            bytes.append(byte)
            index = next
        }
        self.init(bytes)
    }
}

extension Sequence where Element == UInt8 {
    /// Lowercase hex, two digits per byte.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        for byte in self { text.append(digits[Int(byte >> 4)]); text.append(digits[Int(byte & 0x0f)]) }
        return String(decoding: text, as: UTF8.self)
    }
}

/// What a program printed and how it exited.
public struct ProgramResult: Sendable {
    public let output: Data
    public let errors: Data
    public let status: Int32
    public var errorText: String { String(decoding: errors, as: UTF8.self) }
}

/// A program that exited non-zero, with its command line and stderr.
public struct ProgramFailure: Error, CustomStringConvertible {
    public let description: String
}

/// Runs `executable` with `input` on stdin (written and read concurrently, so large inputs and
/// outputs cannot fill a pipe and stall); never throws for a non-zero exit.
public func runProgram(_ executable: String, _ arguments: [String], input: Data = Data(), in directory: URL? = nil) throws -> ProgramResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin; process.standardOutput = stdout; process.standardError = stderr
    try process.run()
    let writer = Thread {
        stdin.fileHandleForWriting.write(input)
        try? stdin.fileHandleForWriting.close()
    }
    writer.start()
    let errorsBox = DataBox()
    let errorsRead = DispatchSemaphore(value: 0)
    Thread {
        errorsBox.data = stderr.fileHandleForReading.readDataToEndOfFile()
        errorsRead.signal()
    }.start()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    errorsRead.wait()
    process.waitUntilExit()
    return ProgramResult(output: output, errors: errorsBox.data, status: process.terminationStatus)
}

/// Runs a program and returns its stdout; throws with its stderr when it exits non-zero.
@discardableResult
public func runChecked(_ executable: String, _ arguments: [String], input: Data = Data(), in directory: URL? = nil) throws -> Data {
    let result = try runProgram(executable, arguments, input: input, in: directory)
    guard result.status == 0 else {
        throw ProgramFailure(description: "\(executable) \(arguments.joined(separator: " ")) exited \(result.status): \(result.errorText)")
    }
    return result.output
}

/// Debian's /usr/bin/python3 with pyca/cryptography on `script`: an independent peer for interop
/// checks. Returns stdout without surrounding whitespace.
public func python(_ script: String, input: String = "") throws -> String {
    String(decoding: try runChecked("/usr/bin/python3", ["-c", script], input: Data(input.utf8)), as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The openssl command line; throws with its stderr when it exits non-zero.
@discardableResult
public func openssl(_ arguments: [String], input: Data = Data(), in directory: URL? = nil) throws -> Data {
    try runChecked("/usr/bin/openssl", arguments, input: input, in: directory)
}

/// A directory for one test's files, removed when the object goes away.
public final class Scratch {
    public let url: URL
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("crosscheck-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }
    public func path(_ name: String) -> String { file(name).path }
    public func write(_ name: String, _ data: Data) throws { try data.write(to: file(name)) }
    public func read(_ name: String) throws -> Data { try Data(contentsOf: file(name)) }

    /// `openssl arguments` run in this directory.
    @discardableResult
    public func openssl(_ arguments: [String], input: Data = Data()) throws -> Data {
        try TestSupport.openssl(arguments, input: input, in: url)
    }
}

/// Holds what a reader thread collected until the caller has waited for it.
private final class DataBox: @unchecked Sendable {
    var data = Data()
}

/// The body of a failure with a byte diff as crosscheck writes it (AES-CBC ciphertexts whose last
/// byte differs): report tests plant it into JUnit files and check how each renderer shows it.
public enum PlantedFailure {
    public static let byteDiffBody = """
        byte diff: 1 of 32 bytes differ (first at offset 31, last at offset 31); expected 32 bytes, actual 32 bytes
          expected @15  0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e
          actual   @15  0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e
          expected @31  1f
          actual   @31  20
                        ^^
        expected: 32 bytes 000102
        """
}
