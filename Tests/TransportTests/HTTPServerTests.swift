import Foundation
import XCTest
@testable import Transport

/// The server over plain HTTP (TLS is covered in PinnedHTTPSTests): parsing refusals on the wire.
final class HTTPServerTests: XCTestCase {
    private var server: HTTPServer!
    private var port: UInt16 = 0

    override func setUpWithError() throws {
        server = HTTPServer(tls: nil, handler: echoHandler)
        port = try server.start()
    }

    override func tearDown() {
        server.stop()
        server = nil
    }

    func testPlainServer_answersAWellFormedRequestWithTheHandlersResponse() throws {
        let request = HTTPRequest(method: "POST", path: "/echo", headers: ["content-type": "application/json"],
                                  body: Data(#"{"a":1}"#.utf8))
        let response = try rawHTTPExchange(port: port, try request.serialized(host: "127.0.0.1:\(port)"))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, Data(#"{"a":1}"#.utf8))
        XCTAssertEqual(response.headers["content-type"], "application/json")
        XCTAssertEqual(response.headers["connection"], "close")
        XCTAssertEqual(server.statistics.handledRequests, 1)
    }

    func testPlainServer_answersGarbageWith400() throws {
        let response = try rawHTTPExchange(port: port, Data("this is not HTTP\r\n\r\n".utf8))
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.body, Data(#"{"error":"bad request"}"#.utf8))
        XCTAssertEqual(server.statistics.handledRequests, 0)
    }

    func testPlainServer_answersAnOversizedBodyWith413_beforeReadingIt() throws {
        // The client announces 2 MiB but sends only part of it and keeps its side open:
        // the answer must come from the announced length alone.
        let head = Data("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(2 << 20)\r\n\r\n".utf8)
        let response = try rawHTTPExchange(port: port, head + Data(count: 100_000), halfClose: false)
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.body, Data(#"{"error":"too large"}"#.utf8))
    }

    func testPlainServer_answersOversizedHeadersWith431() throws {
        let head = "GET /echo HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 20_000))\r\n\r\n"
        XCTAssertEqual(try rawHTTPExchange(port: port, Data(head.utf8), halfClose: false).status, 431)
    }

    func testPlainServer_answersAChunkedRequestWith411() throws {
        let chunked = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
        XCTAssertEqual(try rawHTTPExchange(port: port, Data(chunked.utf8)).status, 411)
    }

    func testPlainServer_requestCutShort_isClosedWithoutAnswerAndWithoutCallingTheHandler() throws {
        let partial = Data("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc".utf8)
        let connection = try TCPConnection.connect(host: "127.0.0.1", port: port, timeout: 5)
        defer { connection.close() }
        try connection.write(partial, timeout: 5)
        connection.shutdownWrite()
        XCTAssertEqual(try connection.read(upTo: 100, timeout: 5), Data())
        XCTAssertEqual(server.statistics.handledRequests, 0)
    }

    func testPlainServer_slowRequest_isAnswered408AtTheRequestDeadline() throws {
        let slow = HTTPServer(tls: nil, limits: HTTPServerLimits(requestTimeout: 0.3), handler: echoHandler)
        let slowPort = try slow.start()
        defer { slow.stop() }
        let response = try rawHTTPExchange(port: slowPort, Data("GET /echo HTTP/1.1\r\nHost: x\r\n".utf8), halfClose: false)
        XCTAssertEqual(response.status, 408)
        XCTAssertEqual(slow.statistics.timedOutConnections, 1)
    }

    func testStop_isIdempotent_closesThePort_andStartAfterStopThrows() throws {
        server.stop()
        server.stop()
        assertTransportError(try TCPConnection.connect(host: "127.0.0.1", port: port, timeout: 5)) {
            $0 == .connectionRefused(host: "127.0.0.1", port: port)
        }
        assertTransportError(try server.start()) { if case .closed = $0 { return true }; return false }
    }

    func testStop_withAClientConnectedAndSilent_returnsWithoutWaitingForTheDeadline() throws {
        let patient = HTTPServer(tls: nil, limits: HTTPServerLimits(requestTimeout: 60), handler: echoHandler)
        let patientPort = try patient.start()
        let silent = try TCPConnection.connect(host: "127.0.0.1", port: patientPort, timeout: 5)
        defer { silent.close() }
        // Once a request has been served, the silent connection (accepted first) has its thread.
        _ = try rawHTTPExchange(port: patientPort, try HTTPRequest(method: "POST", path: "/echo").serialized(host: "x"))
        let stopping = Background { patient.stop() }
        try stopping.result(timeout: 10)
        XCTAssertEqual(try silent.read(upTo: 10, timeout: 5), Data())
    }
}
