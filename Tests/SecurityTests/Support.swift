import Foundation
import XCTest

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

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A scratch directory for files the openssl command line reads and writes; removed at deinit.
final class Scratch {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("security-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func write(_ name: String, _ data: Data) throws { try data.write(to: url.appendingPathComponent(name)) }
    func read(_ name: String) throws -> Data { try Data(contentsOf: url.appendingPathComponent(name)) }

    /// Runs `openssl arguments` in this directory; throws with stderr when it fails.
    @discardableResult
    func openssl(_ arguments: [String], input: Data = Data()) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = url
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin; process.standardOutput = stdout; process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(domain: "openssl", code: Int(process.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments.joined(separator: " ")): \(String(decoding: errors, as: UTF8.self))"])
        }
        return output
    }
}

/// Test certificates made with the openssl command line: a CA, a server it signed (SAN localhost
/// and 127.0.0.1, serverAuth EKU, 365 days), an intermediate chain, an impostor CA and its server
/// for the same names, a server without EKU, a server without SAN (CN only), and a 30-year server.
final class CertificateFactory {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try makeCA("ca")
        try makeCA("impostor-ca")
        try makeCA("root2")
        try makeLeaf("server", ca: "ca", extensions: Self.serverExtensions)
        try makeLeaf("impostor", ca: "impostor-ca", extensions: Self.serverExtensions)
        try makeLeaf("no-eku", ca: "ca", extensions: "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")
        try makeLeaf("cn-only", ca: "ca", extensions: "extendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
        try makeLeaf("long-lived", ca: "ca", extensions: Self.serverExtensions, days: 10950)
        try makeLeaf("intermediate", ca: "root2", extensions: "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n",
                     commonName: "intermediate")
        try makeLeaf("chained", ca: "intermediate", extensions: Self.serverExtensions)
    }

    static let serverExtensions = "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n"

    private func makeCA(_ name: String) throws {
        try scratch.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(name).key", "-out", "\(name).pem",
                             "-days", "365", "-subj", "/O=crosscheck test/CN=\(name)",
                             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try scratch.openssl(["x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"])
    }

    private func makeLeaf(_ name: String, ca: String, extensions: String, days: Int = 365, commonName: String = "localhost") throws {
        try scratch.openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(name).key", "-out", "\(name).csr",
                             "-subj", "/O=crosscheck test/CN=\(commonName)"])
        try scratch.write("\(name).ext", Data(extensions.utf8))
        try scratch.openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "\(ca).pem", "-CAkey", "\(ca).key", "-CAcreateserial",
                             "-out", "\(name).pem", "-days", "\(days)", "-sha256", "-extfile", "\(name).ext"])
        try scratch.openssl(["x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"])
    }

    func der(_ name: String) throws -> Data { try scratch.read("\(name).der") }
}
