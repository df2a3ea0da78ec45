import Foundation
import XCTest
import Conformance
import Sessions
import WireCrypto
import WireProtocol

/// A factory that plants a quirk into every machine it makes: deliberately broken peers.
struct QuirkySessions: SessionFactory {
    let base: SessionFactory
    var serverQuirk: RSASocketServerQuirk?
    var clientQuirk: RSASocketClientQuirk?
    var name: String { base.name }

    func rsaSocketServer(_ spec: RSASocketServerSpec) throws -> SessionMachine {
        var spec = spec
        spec.quirk = serverQuirk
        return try base.rsaSocketServer(spec)
    }

    func rsaSocketClient(_ spec: RSASocketClientSpec) throws -> SessionMachine {
        var spec = spec
        spec.quirk = clientQuirk
        return try base.rsaSocketClient(spec)
    }
}

final class SessionSuiteTests: XCTestCase {
    func runSessions(swift: SessionFactory = SwiftSessions(), python: ((PythonPeer) -> SessionFactory)? = nil,
                     filter: String?) throws -> [CheckResult] {
        let peer = try pythonPeer()
        let pythonFactory = python?(peer) ?? PythonSessions(peer: peer)
        let context = SuiteContext(swift: SwiftPeer(), python: peer, seed: 5, files: checkoutFiles)
        let runner = Runner(filter: filter)
        // As `crosscheck run` does: the seed apps' own bugs are known failures, not these tests' subject.
        let known = try KnownFailures.load(from: checkoutFiles.vectors.appendingPathComponent("known-failures.json"))
        return known.apply(to: runner.run(runner.selected(SessionSuite.checks(context, options: SessionOptions(factories: [swift, pythonFactory])))))
    }

    func testSessions_everyPairingAgrees() throws {
        let results = try runSessions(filter: nil)
        XCTAssertGreaterThan(results.count, 150)
        XCTAssertEqual(results.filter(\.failed).map { "\($0.check.fullName): \($0.message)" }, [])
        let suites = Set(results.map(\.check.suite))
        for pairing in ["swift_client.swift_server", "swift_client.python_server", "python_client.swift_server", "python_client.python_server"] {
            XCTAssertTrue(suites.contains("sessions.\(pairing)"), pairing)
        }
        let names = Set(results.map(\.check.name))
        for expected in ["inprocess.phone-to-pi.framed.pkcs1.rsa1024", "inprocess.pi-to-phone.legacy.oaep-sha256.rsa2048.1-byte-chunks",
                         "inprocess.phone-to-pi.legacy.oaep-sha256.rsa2048.digest", "legacy.refuses-half-a-hello",
                         "legacy.binary-safety.ciphertexts-with-crlf", "framed.refuses-zero-length-frame"] {
            XCTAssertTrue(names.contains(expected), expected)
        }
    }

    func testSessionsOverLoopback_everyPairingAgreesAndEveryPinningRefusalHolds() throws {
        let peer = try pythonPeer()
        let transports = SessionOptions(factories: [SwiftSessions(), PythonSessions(peer: peer)], inProcess: false, loopback: true, timeout: 5)
        defer { transports.servers.shutdown() }
        let context = SuiteContext(swift: SwiftPeer(), python: peer, seed: 9, files: checkoutFiles)
        let results = Runner().run(SessionSuite.checks(context, options: transports))
        XCTAssertEqual(results.filter(\.failed).map { "\($0.check.fullName): \($0.message)" }, [])
        let names = Set(results.map(\.check.fullName))
        for server in ["swift", "python"] {
            for refusal in ["tls.refuses-impostor-certificate-for-the-same-name", "tls.refuses-pinned-certificate-under-another-host-name",
                            "tls.refuses-expired-certificate", "tls.refuses-plain-http"] {
                XCTAssertTrue(names.contains("crosscheck.aes-https.swift_client.\(server)_server.\(refusal)"), "\(server) \(refusal)")
            }
            for client in ["swift", "python"] {
                XCTAssertTrue(names.contains("crosscheck.rsa-socket.\(client)_client.\(server)_server.tcp.pi-to-phone.framed.oaep-sha256.rsa2048"))
                XCTAssertTrue(names.contains("crosscheck.aes-https.\(client)_client.\(server)_server.tls.pinned.login-and-echo.base64-raw"))
            }
        }
        XCTAssertFalse(names.contains { $0.contains(".inprocess.") }, "inProcess: false leaves the in-process checks out")
    }

    func testServerPaddingPKCS1DespiteOAEP_failsTheOAEPPiToPhoneChecks() throws {
        let results = try runSessions(python: { QuirkySessions(base: PythonSessions(peer: $0), serverQuirk: ._PKCS1_DESPITE_OAEP) },
                                      filter: "pi-to-phone.legacy")
        let failed = results.filter(\.failed)
        let named = failed.first { $0.check.fullName == "crosscheck.rsa-socket.swift_client.python_server.inprocess.pi-to-phone.legacy.oaep-sha256.rsa2048" }
        XCTAssertNotNil(named, "\(failed.map(\.check.fullName))")
        XCTAssertTrue(named?.message.contains("swift client: expected [decrypted(30 bytes), server-stopped], got [failed(cannot decrypt") ?? false,
                      named?.message ?? "")
        // Where PKCS#1 was configured the quirk changes nothing, so those checks still pass.
        XCTAssertFalse(failed.contains { $0.check.name == "inprocess.pi-to-phone.legacy.pkcs1.rsa2048" })
    }

    func testClientWithWrongPEMHeader_failsAgainstBothServers() throws {
        let results = try runSessions(swift: QuirkySessions(base: SwiftSessions(), clientQuirk: ._WRONG_PEM_HEADER), filter: "pi-to-phone.framed.oaep-sha1.rsa2048")
        let failedSuites = Set(results.filter(\.failed).map(\.check.suite))
        XCTAssertTrue(failedSuites.contains("sessions.swift_client.swift_server"), "\(failedSuites)")
        XCTAssertTrue(failedSuites.contains("sessions.swift_client.python_server"), "\(failedSuites)")
        XCTAssertFalse(failedSuites.contains("sessions.python_client.python_server"))
        let message = results.first { $0.check.suite == "sessions.swift_client.python_server" && $0.failed }?.message ?? ""
        XCTAssertTrue(message.contains("got [server-error]"), message)
    }

    func testServerThatStripsCRLF_failsTheBinarySafetyCheck() throws {
        let results = try runSessions(python: { QuirkySessions(base: PythonSessions(peer: $0), serverQuirk: ._TUTORIAL_STRIP_CRLF) },
                                      filter: "binary-safety")
        let verdicts = Dictionary(uniqueKeysWithValues: results.map { ($0.check.fullName, $0.failed) })
        XCTAssertEqual(verdicts["crosscheck.rsa-socket.python_server.legacy.binary-safety.ciphertexts-with-crlf"], true)
        XCTAssertEqual(verdicts["crosscheck.rsa-socket.python_server.legacy.binary-safety.ciphertexts-with-lf"], false, "a lone \\n is not stripped")
        XCTAssertEqual(verdicts["crosscheck.rsa-socket.swift_server.legacy.binary-safety.ciphertexts-with-crlf"], false)
        let message = results.first { $0.check.fullName.hasSuffix("python_server.legacy.binary-safety.ciphertexts-with-crlf") }?.message ?? ""
        XCTAssertTrue(message.hasPrefix("python server corrupted a ciphertext containing line-end bytes"), message)
    }
}
