import Foundation
import XCTest

/// Lowercase hex and hex parsing for test vectors.
extension Data {
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
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

extension Sequence where Element == UInt8 {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

/// The repository root, found from this file's path (the tests read vendored vectors from it).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Runs Debian's /usr/bin/python3 (with python3-cryptography) on `script`, feeding `input` on
/// stdin; returns stdout. An independent peer: pyca/cryptography, not our Swift.
func runPython(_ script: String, input: String = "") throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", script]
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin; process.standardOutput = stdout; process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    let errors = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw NSError(domain: "python", code: Int(process.terminationStatus),
                      userInfo: [NSLocalizedDescriptionKey: String(decoding: errors, as: UTF8.self)])
    }
    return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// One Wycheproof AEAD test (Vectors/wycheproof, Apache-2.0, google/wycheproof v0.9rc5).
struct WycheproofAEADCase {
    let tcId: Int, key: Data, iv: Data, aad: Data, msg: Data, ct: Data, tag: Data, valid: Bool, tagBits: Int
}

func loadWycheproofAEAD(_ file: String) throws -> [WycheproofAEADCase] {
    let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("Vectors/wycheproof/\(file)"))
    let root = try JSONSerialization.jsonObject(with: data) as! [String: Any]
    var cases: [WycheproofAEADCase] = []
    for group in root["testGroups"] as! [[String: Any]] {
        let tagBits = group["tagSize"] as! Int
        for test in group["tests"] as! [[String: Any]] {
            cases.append(WycheproofAEADCase(
                tcId: test["tcId"] as! Int, key: Data(hex: test["key"] as! String), iv: Data(hex: test["iv"] as! String),
                aad: Data(hex: test["aad"] as! String), msg: Data(hex: test["msg"] as! String),
                ct: Data(hex: test["ct"] as! String), tag: Data(hex: test["tag"] as! String),
                valid: (test["result"] as! String) != "invalid", tagBits: tagBits))
        }
    }
    return cases
}
