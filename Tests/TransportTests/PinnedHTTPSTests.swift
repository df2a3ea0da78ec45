import Foundation
import XCTest
@testable import Transport

/// The Swift HTTPS server and the pinned libcurl client: the seed 002 round trip and its four
/// refusals, each checked as a refusal for the right reason, with a control showing the server was up.
final class PinnedHTTPSTests: XCTestCase {
    private var fixtures: TLSFixtures!
    private var servers: [HTTPServer] = []

    override func setUpWithError() throws {
        fixtures = try TLSFixtures.load()
    }

    override func tearDown() {
        servers.forEach { $0.stop() }
        servers = []
    }

    private func startServer(_ identity: String?, limits: HTTPServerLimits = HTTPServerLimits()) throws -> (HTTPServer, UInt16) {
        let server = HTTPServer(tls: identity.map(fixtures.identity), limits: limits, handler: echoHandler)
        servers.append(server)
        return (server, try server.start())
    }

    private func pinnedClient(_ name: String = "pinned", timeout: TimeInterval = 5) throws -> PinnedHTTPSClient {
        try PinnedHTTPSClient(pinnedCertificatePath: fixtures.certificate(name), timeout: timeout)
    }

    private let postJSON = HTTPRequest(method: "POST", path: "/echo", headers: ["Content-Type": "application/json"],
                                       body: Data(#"{"username":"alice","password":"wonderland"}"#.utf8))

    private func url(_ host: String, _ port: UInt16, scheme: String = "https") -> URL {
        URL(string: "\(scheme)://\(host):\(port)")!
    }

    // MARK: The accepted case

    func testPinnedClient_POSTsJSONToThePinnedServer_andGets200() throws {
        let (server, port) = try startServer("pinned")
        let response = try pinnedClient().send(postJSON, to: url("localhost", port))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, postJSON.body)
        XCTAssertEqual(response.headers["content-type"], "application/json")
        XCTAssertEqual(server.statistics.handledRequests, 1)
    }

    func testPinnedClient_reachesThePinnedServerByIPAddress_whichTheCertificateNames() throws {
        let (_, port) = try startServer("pinned")
        XCTAssertEqual(try pinnedClient().send(postJSON, to: url("127.0.0.1", port)).status, 200)
    }

    func testPinnedClient_appendsThePathToABaseURL_andReturnsNon200Statuses() throws {
        let (_, port) = try startServer("pinned")
        let response = try pinnedClient().send(HTTPRequest(method: "GET", path: "/missing"),
                                               to: URL(string: "https://localhost:\(port)/")!)
        XCTAssertEqual(response.status, 404)
        XCTAssertEqual(response.body, Data(#"{"error":"not found"}"#.utf8))
    }

    // MARK: Seed 002's four refusals

    func testRefusal_impostorCertificateForTheSameName_isUnknownIssuer_whileTheServerAnswersAnInsecureClient() throws {
        let (_, port) = try startServer("impostor")
        let error = assertTransportError(try pinnedClient().send(postJSON, to: url("localhost", port))) {
            if case .certificateRefused(.unknownIssuer, _) = $0 { return true }
            return false
        }
        XCTAssertTrue(error?.description.contains("self-signed") ?? false, "\(String(describing: error))")
        // Control: the same server is up and speaking TLS.
        let control = try PinnedHTTPSClient._INSECURE_acceptingAnyCertificate(timeout: 5).send(postJSON, to: url("localhost", port))
        XCTAssertEqual(control.status, 200)
    }

    func testRefusal_pinnedCertificateUnderAnotherHostName_isHostNameMismatch_whileLocalhostIsAccepted() throws {
        let (_, port) = try startServer("pinned")
        let error = assertTransportError(try pinnedClient().send(postJSON, to: url("pi.invalid", port),
                                                                 resolve: (host: "pi.invalid", address: "127.0.0.1"))) {
            if case .certificateRefused(.hostNameMismatch, _) = $0 { return true }
            return false
        }
        XCTAssertTrue(error?.description.contains("pi.invalid") ?? false, "\(String(describing: error))")
        // Control: the same server, the same pinned client, the name the certificate carries.
        XCTAssertEqual(try pinnedClient().send(postJSON, to: url("localhost", port),
                                               resolve: (host: "localhost", address: "127.0.0.1")).status, 200)
    }

    func testRefusal_expiredPinnedCertificate_isExpired_whileTheServerAnswersAnInsecureClient() throws {
        let (_, port) = try startServer("expired")
        assertTransportError(try pinnedClient("expired").send(postJSON, to: url("localhost", port))) {
            if case .certificateRefused(.expired, _) = $0 { return true }
            return false
        }
        let control = try PinnedHTTPSClient._INSECURE_acceptingAnyCertificate(timeout: 5).send(postJSON, to: url("localhost", port))
        XCTAssertEqual(control.status, 200)
    }

    func testRefusal_plainHTTP_isRefusedBeforeConnecting_whileARawRequestToThatServerGets200() throws {
        let (server, port) = try startServer(nil)
        assertTransportError(try pinnedClient().send(postJSON, to: url("127.0.0.1", port, scheme: "http"))) {
            $0 == .plainHTTPRefused(url: "http://127.0.0.1:\(port)/echo")
        }
        // Even the insecure control client speaks only https.
        assertTransportError(try PinnedHTTPSClient._INSECURE_acceptingAnyCertificate().send(postJSON, to: url("127.0.0.1", port, scheme: "http"))) {
            if case .plainHTTPRefused = $0 { return true }
            return false
        }
        XCTAssertEqual(server.acceptedConnectionCount, 0)
        // Control: the plain server is up. Had the client connected, its connection would have been
        // accepted before this one, and the count would be 2.
        let response = try rawHTTPExchange(port: port, try postJSON.serialized(host: "127.0.0.1:\(port)"))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, postJSON.body)
        XCTAssertEqual(server.acceptedConnectionCount, 1)
    }

    // MARK: Deadlines and other failures

    func testServer_dropsAClientThatSaysNothingAtTheHandshakeDeadline_whileServingAnother() throws {
        let handshakeTimeout = 2.0
        let (server, port) = try startServer("pinned", limits: HTTPServerLimits(handshakeTimeout: handshakeTimeout))
        let start = monotonicSeconds()
        let silent = try TCPConnection.connect(host: "127.0.0.1", port: port, timeout: 5)
        defer { silent.close() }

        XCTAssertEqual(try pinnedClient().send(postJSON, to: url("localhost", port)).status, 200)
        XCTAssertEqual(server.statistics.timedOutConnections, 0, "the silent client was dropped before the other was served")

        // The event: the server closes the silent connection (end of stream), which the read's own
        // generous deadline would otherwise turn into a timeout error; and not before its deadline.
        XCTAssertEqual(try silent.read(upTo: 1, timeout: handshakeTimeout + 30), Data(), "the server closes the silent connection")
        XCTAssertGreaterThanOrEqual(monotonicSeconds() - start, handshakeTimeout * 0.9, "a deadline never fires early")
        XCTAssertEqual(server.statistics.timedOutConnections, 1)
        XCTAssertEqual(server.statistics.acceptedConnections, 2)
    }

    func testPinnedClient_toAServerThatNeverAnswersTheHandshake_timesOut() throws {
        let listener = try TCPListener()  // the kernel completes TCP connects; nobody ever reads
        defer { listener.close() }
        let timeout = 0.5
        let start = monotonicSeconds()
        assertTransportError(try pinnedClient(timeout: timeout).send(postJSON, to: url("127.0.0.1", listener.port))) {
            if case .timedOut(_, let seconds) = $0 { return seconds == timeout }
            return false
        }
        XCTAssertLessThan(monotonicSeconds() - start, timeout + 30, "a hang detector only: a loaded machine may be late, never stuck")
    }

    func testPinnedClient_toAClosedPort_isConnectionRefused() throws {
        let listener = try TCPListener()
        let port = listener.port
        listener.close()
        assertTransportError(try pinnedClient().send(postJSON, to: url("127.0.0.1", port))) {
            $0 == .connectionRefused(host: "127.0.0.1", port: port)
        }
    }

    func testPinnedClient_responseOverItsLimit_isTooLarge() throws {
        let (_, port) = try startServer("pinned")
        let client = try PinnedHTTPSClient(pinnedCertificatePath: fixtures.certificate("pinned"), timeout: 5, maxResponseBytes: 1000)
        let big = HTTPRequest(method: "POST", path: "/echo", body: Data(repeating: 0x61, count: 5000))
        assertTransportError(try client.send(big, to: url("localhost", port))) { $0 == .tooLarge(.responseBody, limit: 1000) }
    }

    func testPinnedClient_bodyOverTheServersLimit_gets413() throws {
        let limits = HTTPServerLimits(http: HTTPLimits(maxHeadBytes: 16 * 1024, maxBodyBytes: 1024))
        let (_, port) = try startServer("pinned", limits: limits)
        let big = HTTPRequest(method: "POST", path: "/echo", body: Data(repeating: 0x61, count: 4096))
        let response = try pinnedClient().send(big, to: url("localhost", port))
        XCTAssertEqual(response.status, 413)
    }

    func testPinnedClient_withAMissingOrNonCertificateFile_failsAtInit() throws {
        assertTransportError(try PinnedHTTPSClient(pinnedCertificatePath: "/nonexistent/pinned.crt.pem", timeout: 1)) {
            if case .tlsConfiguration(let path, _) = $0 { return path == "/nonexistent/pinned.crt.pem" }
            return false
        }
        assertTransportError(try PinnedHTTPSClient(pinnedCertificatePath: fixtures.key("pinned"), timeout: 1)) {
            if case .tlsConfiguration = $0 { return true }
            return false
        }
    }

    func testServer_withAKeyThatDoesNotMatchTheCertificate_failsToStart() {
        let mismatched = TLSServerIdentity(certificatePath: fixtures.certificate("pinned"), privateKeyPath: fixtures.key("impostor"))
        let server = HTTPServer(tls: mismatched, handler: echoHandler)
        assertTransportError(try server.start()) {
            if case .tlsConfiguration(let path, let reason) = $0 {
                return path == mismatched.privateKeyPath && reason.contains("does not match")
            }
            return false
        }
        XCTAssertNil(server.port)
    }

    func testServer_recordsTheHandshakeFailureOfAClientThatRefusedItsCertificate() throws {
        let (server, port) = try startServer("impostor")
        _ = try? pinnedClient().send(postJSON, to: url("localhost", port))
        server.stop()  // joins the connection thread, so its failure is recorded
        XCTAssertEqual(server.statistics.tlsHandshakeFailures, 1)
        XCTAssertTrue(server.recentFailures.contains {
            if case .tlsHandshakeFailed(let detail) = $0 { return detail.contains("unknown ca") || detail.contains("alert") }
            return false
        }, "\(server.recentFailures)")
    }

    func testServerAndClient_leaveNoFileDescriptorsOpen_afterRequestsRefusalsAndStop() throws {
        let warmUp = HTTPServer(tls: fixtures.identity("pinned"), handler: echoHandler)
        _ = try pinnedClient().send(postJSON, to: url("localhost", try warmUp.start()))  // one-time library setup
        warmUp.stop()
        let before = try Self.openSockets()

        let server = HTTPServer(tls: fixtures.identity("impostor"), limits: HTTPServerLimits(handshakeTimeout: 5), handler: echoHandler)
        let port = try server.start()
        let silent = try TCPConnection.connect(host: "127.0.0.1", port: port, timeout: 5)
        // Accepted in order: once this request is answered, the silent connection has its thread.
        XCTAssertEqual(try PinnedHTTPSClient._INSECURE_acceptingAnyCertificate().send(postJSON, to: url("localhost", port)).status, 200)
        _ = try? pinnedClient().send(postJSON, to: url("localhost", port))
        XCTAssertGreaterThan(try Self.openSockets(), before, "the listener and the silent connection are open")
        server.stop()
        silent.close()
        XCTAssertEqual(server.statistics.acceptedConnections, 3)
        XCTAssertEqual(try Self.openSockets(), before)
    }

    /// Socket descriptors of this process. Only sockets: other tests in the same process close
    /// pipes of their child processes whenever Foundation releases them, which made a count of every
    /// descriptor flaky.
    static func openSockets() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)"))?.hasPrefix("socket:[") ?? false
        }.count
    }
}
