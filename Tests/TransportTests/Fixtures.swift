import Foundation
import XCTest
@testable import Transport

/// The test certificates: `Vectors/tls/{pinned,impostor,expired}.{crt,key}.pem` when the checkout
/// has them, else equivalents generated once per run into a temporary directory (openssl CLI for
/// pinned and impostor, pyca/cryptography for the expired one, which needs a past validity).
struct TLSFixtures: Sendable {
    let directory: URL
    let generated: Bool

    func certificate(_ name: String) -> String { directory.appendingPathComponent("\(name).crt.pem").path }
    func key(_ name: String) -> String { directory.appendingPathComponent("\(name).key.pem").path }
    func identity(_ name: String) -> TLSServerIdentity {
        TLSServerIdentity(certificatePath: certificate(name), privateKeyPath: key(name))
    }

    static let names = ["pinned", "impostor", "expired"]

    /// The repository's Vectors/tls, found from this file's path (Tests/TransportTests/Fixtures.swift).
    static let vectorsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors/tls")

    static func load() throws -> TLSFixtures {
        switch shared {
        case .success(let fixtures): return fixtures
        case .failure(let error): throw error
        }
    }

    private static let shared: Result<TLSFixtures, FixtureError> = {
        let vectors = TLSFixtures(directory: vectorsDirectory, generated: false)
        let files = names.flatMap { [vectors.certificate($0), vectors.key($0)] }
        if files.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) { return .success(vectors) }
        do { return .success(try generate()) } catch let error as FixtureError { return .failure(error) } catch {
            return .failure(FixtureError(message: "\(error)"))
        }
    }()

    private static func generate() throws -> TLSFixtures {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("crosscheck-transport-tls-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fixtures = TLSFixtures(directory: directory, generated: true)
        for name in ["pinned", "impostor"] {
            try run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256",
                                         "-keyout", fixtures.key(name), "-out", fixtures.certificate(name),
                                         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                                         "-days", "3650"])
        }
        let script = """
        import datetime, ipaddress, sys
        from cryptography import x509
        from cryptography.x509.oid import NameOID
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(datetime.datetime(2020, 1, 1)).not_valid_after(datetime.datetime(2021, 1, 1))
                .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                               x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .sign(key, hashes.SHA256()))
        open(sys.argv[1], "wb").write(cert.public_bytes(serialization.Encoding.PEM))
        open(sys.argv[2], "wb").write(key.private_bytes(serialization.Encoding.PEM,
              serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        """
        try run("/usr/bin/python3", ["-c", script, fixtures.certificate("expired"), fixtures.key("expired")])
        return fixtures
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { throw FixtureError(message: "cannot run \(tool): \(error)") }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError(message: "\(tool) \(arguments.prefix(3).joined(separator: " ")) … failed: \(text)")
        }
    }
}

struct FixtureError: Error, Sendable, CustomStringConvertible {
    let message: String
    var description: String { "cannot prepare TLS test certificates: \(message)" }
}

/// Runs `body` on its own thread; `result(timeout:)` waits for it (a deadline, not a sleep).
final class Background<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let outcome = Locked<Result<T, Error>?>(nil)

    init(_ body: @escaping @Sendable () throws -> T) {
        let thread = Thread { [self] in
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            done.signal()
        }
        thread.start()
    }

    func result(timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line) throws -> T {
        guard done.wait(timeout: .now() + timeout) == .success else {
            XCTFail("background work did not finish within \(timeout) s", file: file, line: line)
            throw FixtureError(message: "background timeout")
        }
        return try outcome.withLock { $0! }.get()
    }
}

/// Asserts that `body` throws a TransportError matching `matches`, and returns it.
@discardableResult
func assertTransportError<T>(_ body: @autoclosure () throws -> T, _ message: String = "",
                             file: StaticString = #filePath, line: UInt = #line,
                             matches: (TransportError) -> Bool) -> TransportError? {
    do {
        let value = try body()
        XCTFail("expected a TransportError, got \(value). \(message)", file: file, line: line)
        return nil
    } catch let error as TransportError {
        XCTAssertTrue(matches(error), "unexpected error: \(error). \(message)", file: file, line: line)
        return error
    } catch {
        XCTFail("expected a TransportError, got \(type(of: error)): \(error). \(message)", file: file, line: line)
        return nil
    }
}

/// Seconds on the monotonic clock, for elapsed-time bounds.
func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// Sends raw bytes to a plain server, reads until it closes, and parses the response.
func rawHTTPExchange(port: UInt16, _ bytes: Data, halfClose: Bool = true) throws -> HTTPResponse {
    let connection = try TCPConnection.connect(host: "127.0.0.1", port: port, timeout: 5)
    defer { connection.close() }
    try connection.write(bytes, timeout: 5)
    if halfClose { connection.shutdownWrite() }
    var received = Data()
    while true {
        let chunk = try connection.read(upTo: 64 * 1024, timeout: 5)
        if chunk.isEmpty { break }
        received.append(chunk)
    }
    return try HTTPResponse.parse(received)
}

/// A handler that answers `POST /echo` with the request body as JSON and other paths with 404.
let echoHandler: @Sendable (HTTPRequest) -> HTTPResponse = { request in
    guard request.path == "/echo" else { return .json(status: 404, #"{"error":"not found"}"#) }
    guard request.method == "POST" else { return .json(status: 405, #"{"error":"method not allowed"}"#) }
    return .json(status: 200, request.body)
}
