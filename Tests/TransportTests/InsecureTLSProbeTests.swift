import Foundation
import XCTest
@testable import Transport

/// The TLS probe against the Swift HTTPS server (TLS 1.2 or later, Debian's default suites): each
/// version on its own, a suite list it must refuse, the chain it presents, and a port nobody serves.
final class InsecureTLSProbeTests: XCTestCase {
    private var fixtures: TLSFixtures!
    private var server: HTTPServer?

    override func setUpWithError() throws { fixtures = try TLSFixtures.load() }
    override func tearDown() { server?.stop() }

    private func start() throws -> UInt16 {
        let server = HTTPServer(tls: fixtures.identity("pinned"), handler: echoHandler)
        self.server = server
        return try server.start()
    }

    func testVersions_1_0And1_1Refused_1_2And1_3Accepted_withWhatTheServerChose() throws {
        let port = try start()
        for version in [TLSProtocolVersion.tls1_0, .tls1_1] {
            XCTAssertNil(try InsecureTLSProbe.handshake(host: "127.0.0.1", port: port, offering: version, serverName: "localhost", timeout: 5),
                         "\(version.rawValue): the server's minimum is TLS 1.2")
        }
        let tls12 = try XCTUnwrap(InsecureTLSProbe.handshake(host: "127.0.0.1", port: port, offering: .tls1_2, serverName: "localhost", timeout: 5))
        XCTAssertEqual(tls12.version, .tls1_2)
        XCTAssertTrue(tls12.cipher.forwardSecrecy, tls12.cipher.standardName)
        let tls13 = try XCTUnwrap(InsecureTLSProbe.handshake(host: "127.0.0.1", port: port, offering: .tls1_3, serverName: "localhost", timeout: 5))
        XCTAssertEqual(tls13.version, .tls1_3)
        XCTAssertTrue(tls13.cipher.standardName.hasPrefix("TLS_AES_") || tls13.cipher.standardName.hasPrefix("TLS_CHACHA20_"), tls13.cipher.standardName)
        XCTAssertEqual(tls13.cipher.keyExchange, "any")
        // The chain is the server's certificate, byte for byte.
        let pem = try String(contentsOfFile: fixtures.certificate("pinned"), encoding: .utf8)
        let body = pem.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") }.joined()
        XCTAssertEqual(tls13.peerChain.first, Data(base64Encoded: body))
    }

    func testOfferOfOneSuite_isTheServersChoiceOrItsRefusal() throws {
        let port = try start()
        // AES128-SHA (RSA key exchange) alone: Debian's server defaults at security level 2 still
        // include it, so the server accepts it and the probe reports RSA key exchange, no forward secrecy.
        let facts = try XCTUnwrap(InsecureTLSProbe.handshake(host: "127.0.0.1", port: port, offering: .tls1_2, suites: ["AES128-SHA"],
                                                             serverName: "localhost", timeout: 5))
        XCTAssertEqual(facts.cipher.standardName, "TLS_RSA_WITH_AES_128_CBC_SHA")
        XCTAssertEqual(facts.cipher.keyExchange, "RSA")
        XCTAssertFalse(facts.cipher.forwardSecrecy)
        XCTAssertFalse(facts.cipher.aead)
        // A suite no server here has (NULL encryption): refused, not an error.
        XCTAssertNil(try InsecureTLSProbe.handshake(host: "127.0.0.1", port: port, offering: .tls1_2, suites: ["NULL-SHA256"],
                                                   serverName: "localhost", timeout: 5))
    }

    func testSupportedSuites_includeTheWeakOnesAtSecurityLevel0() throws {
        let tls10 = try InsecureTLSProbe.supportedSuites(for: .tls1_0).map(\.standardName)
        XCTAssertTrue(tls10.contains("TLS_RSA_WITH_AES_128_CBC_SHA"), "\(tls10)")
        let tls13 = try InsecureTLSProbe.supportedSuites(for: .tls1_3).map(\.standardName)
        XCTAssertEqual(Set(tls13), ["TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256", "TLS_AES_128_GCM_SHA256",
                                    "TLS_AES_128_CCM_SHA256", "TLS_AES_128_CCM_8_SHA256"])
    }

    func testNothingListening_throwsConnectionRefused() throws {
        XCTAssertThrowsError(try InsecureTLSProbe.handshake(host: "127.0.0.1", port: 9, offering: .tls1_2, serverName: nil, timeout: 2)) { error in
            guard case .connectionRefused? = error as? TransportError else { return XCTFail("\(error)") }
        }
    }
}
