import Foundation
import XCTest

extension Data {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
    init(hex: String) {
        var bytes = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }
}

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

struct ToolFailure: Error, CustomStringConvertible { let description: String }

/// Runs a program with `input` on stdin; returns stdout, or throws with stderr on a non-zero exit.
@discardableResult
func run(_ executable: String, _ arguments: [String], input: Data = Data(), in directory: URL? = nil) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin; process.standardOutput = stdout; process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(input)
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    let errors = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw ToolFailure(description: "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(String(decoding: errors, as: UTF8.self))")
    }
    return output
}

/// Debian's Python with pyca/cryptography: an independent peer for every interop check here.
func python(_ script: String, input: String = "") throws -> String {
    String(decoding: try run("/usr/bin/python3", ["-c", script], input: Data(input.utf8)), as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
}

@discardableResult
func openssl(_ arguments: [String], in directory: URL, input: Data = Data()) throws -> Data {
    try run("/usr/bin/openssl", arguments, input: input, in: directory)
}

/// A directory for one test's files, removed when the test object goes away.
final class Scratch {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("seedapps-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// The base64 body of the first PEM block in a file of Vectors/tls.
func vectorCertificateDER(_ name: String) throws -> Data {
    let pem = try String(contentsOf: repositoryRoot.appendingPathComponent("Vectors/tls/\(name).crt.pem"), encoding: .utf8)
    return Data(base64Encoded: pem.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") }.joined())!
}
