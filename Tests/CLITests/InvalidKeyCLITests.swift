import Foundation
import XCTest

/// docs/PROTOCOL.md "Padding and keys" (RFC 8017 §3.1): a key with e = 1 is no RSA key, and
/// "encrypting" to it sends the message in the clear. Both reference servers must refuse such a
/// client key with `Server: ERROR` before encrypting, and `crosscheck remote` must send a server
/// that offers one nothing. The client here is a few lines of Python's socket module, not
/// PythonRef or crosscheck's own client.
final class InvalidKeyCLITests: XCTestCase {
    let servers = TestServers()
    override func tearDown() { servers.stopAll() }

    /// Sends `public_key=<PEM>\n` (e = 1, or a real key with `valid`) as a phone does in pi-to-phone
    /// and prints, in hex, every byte the server sends until it closes or 10 s pass.
    func answerToClientKey(port: UInt16, valid: Bool) throws -> Data {
        let script = #"""
import base64, socket, sys, time
from cryptography.hazmat.primitives.asymmetric import rsa
n = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key().public_numbers().n
e = 65537 if sys.argv[2] == "valid" else 1
def tlv(tag, content):
    size = len(content)
    if size < 0x80:
        return bytes([tag, size]) + content
    length = size.to_bytes((size.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(length)]) + length + content
def integer(value):
    return tlv(2, value.to_bytes(value.bit_length() // 8 + 1, "big"))
der = tlv(0x30, bytes.fromhex("300d06092a864886f70d0101010500") + tlv(3, b"\x00" + tlv(0x30, integer(n) + integer(e))))
text = base64.b64encode(der)
pem = b"-----BEGIN PUBLIC KEY-----\n" + b"".join(text[i:i + 64] + b"\n" for i in range(0, len(text), 64)) + b"-----END PUBLIC KEY-----"
sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
sock.sendall(b"public_key=" + pem + b"\n")
answer, deadline = b"", time.monotonic() + 10
while time.monotonic() < deadline and len(answer) < 256:
    sock.settimeout(max(0.01, deadline - time.monotonic()))
    try:
        chunk = sock.recv(4096)
    except socket.timeout:
        break
    if not chunk:
        break
    answer += chunk
print(answer.hex())
"""#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, String(port), valid ? "valid" : "exponent-1"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let hex = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "the test's client ran")
        let bytes = stride(from: 0, to: hex.count - 1, by: 2).compactMap { offset -> UInt8? in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)
        }
        XCTAssertEqual(bytes.count * 2, hex.count, "hex from the client: \(hex)")
        return Data(bytes)
    }

    func testClientKeyWithExponent1_getsServerErrorFromBothServers_andNoCiphertext() throws {
        let swiftPort = try servers.start(CrosscheckBinary.url.path, ["serve", "rsa-socket", "--padding", "pkcs1", "--port", "0"],
                                          in: CrosscheckBinary.root)
        let pythonPort = try servers.startPythonRef(["rsa-socket", "--padding", "pkcs1"])
        for (name, port) in [("crosscheck serve", swiftPort), ("pythonref serve", pythonPort)] {
            let refused = try answerToClientKey(port: port, valid: false)
            XCTAssertEqual(String(decoding: refused, as: UTF8.self), "Server: ERROR", "\(name) answers an e = 1 key")
            XCTAssertNil(refused.range(of: Data("Secret message".utf8)), "\(name) sent its message in the clear")
            // The control: a valid key gets a 256-byte ciphertext, so the refusal above is about e.
            let control = try answerToClientKey(port: port, valid: true)
            XCTAssertEqual(control.count, 256, "\(name) answers a valid key with its ciphertext")
        }
    }

    /// Tests/Zoo/rsa_socket/offers_exponent_1.py, written from docs/PROTOCOL.md: its key has e = 1,
    /// and it logs every `encrypted_message=` that reaches it.
    func testServerOfferingExponent1_failsNamingTheKey_andIsSentNothing() throws {
        let log = try makeTemporaryDirectory().appendingPathComponent("server.log")
        let port = try servers.start("/usr/bin/python3", ["Tests/Zoo/rsa_socket/offers_exponent_1.py", "--host", "127.0.0.1", "--port", "0"],
                                     in: CrosscheckBinary.root, errorLog: log)
        let report = try makeTemporaryDirectory().appendingPathComponent("remote.xml")
        let outcome = try CrosscheckBinary.run(["remote", "--host", "127.0.0.1", "--port", String(port), "--profile", "rsa-socket",
                                                "--client", "reference", "--timeout", "3", "--junit", report.path, "--quiet"])
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("e = 1: no RSA key"), outcome.stdout)
        servers.stopAll()
        let logged = try String(contentsOf: log, encoding: .utf8)
        XCTAssertFalse(logged.contains("received encrypted_message"), "crosscheck sent the e = 1 server a ciphertext: \(logged)")
    }
}
