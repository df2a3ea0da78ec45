import Foundation
import XCTest
@testable import Transport

final class HTTPCodecTests: XCTestCase {
    private let login = Data("POST /login HTTP/1.1\r\nHost: localhost:8443\r\nContent-Type: application/json\r\nContent-Length: 36\r\nX-Trace: a\r\nx-trace: b\r\n\r\n{\"username\":\"u\",\"password\":\"secret\"}".utf8)

    func testParse_validPOST_lowercasesNamesAndReadsTheContentLengthBody() throws {
        let request = try HTTPRequestParser.parse(login)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.path, "/login")
        XCTAssertEqual(request.headers["content-type"], "application/json")
        XCTAssertEqual(request.headers["host"], "localhost:8443")
        XCTAssertEqual(request.headers["x-trace"], "a, b")
        XCTAssertEqual(request.body, Data(#"{"username":"u","password":"secret"}"#.utf8))
    }

    func testParse_fedOneByteAtATime_givesTheSameRequestOnlyAtTheLastByte() throws {
        var parser = HTTPRequestParser()
        var result: HTTPRequest?
        for (index, byte) in login.enumerated() {
            result = try parser.consume(Data([byte]))
            if index < login.count - 1 { XCTAssertNil(result, "complete too early at byte \(index)") }
        }
        XCTAssertEqual(result, try HTTPRequestParser.parse(login))
    }

    /// A chunked response is decoded (RFC 9112 §7.1: a recipient must parse chunked), extensions and
    /// trailers read past; a truncated or malformed one, or another transfer coding, is refused.
    func testParseResponse_chunkedBodyIsDecoded() throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        let response = try HTTPResponse.parse(Data((head + "5;x=1\r\n{\"a\":\r\nA\r\n1234567890\r\n1\r\n}\r\n0\r\nX-Trailer: t\r\n\r\n").utf8))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, Data("{\"a\":1234567890}".utf8))
        XCTAssertEqual(response.headers["content-length"], "16")
        XCTAssertNil(response.headers["transfer-encoding"])
        for (broken, said) in [(head + "5\r\nabc", "truncated"), (head + "zz\r\nabc\r\n0\r\n\r\n", "no chunk size"), (head + "3\r\nabcXY0\r\n\r\n", "no CRLF"),
                               (head + "3\r\nabc\r\n", "ends in the middle"),
                               ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nxyz", "chunked bodies only")] {
            XCTAssertThrowsError(try HTTPResponse.parse(Data(broken.utf8)), broken) { error in
                XCTAssertTrue("\(error)".contains(said), "\(error)")
            }
        }
    }

    func testParse_bytesAfterTheBody_areIgnored() throws {
        let request = try HTTPRequestParser.parse(login + Data("GET / HTTP/1.1\r\n\r\n".utf8))
        XCTAssertEqual(request.body.count, 36)
    }

    func testParse_headOverTheLimit_throwsTooLargeHead_evenWithoutTheBlankLine() {
        let limits = HTTPLimits(maxHeadBytes: 1024, maxBodyBytes: 1 << 20)
        let big = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 2000))\r\n"
        for tail in ["", "\r\n"] {
            assertTransportError(try HTTPRequestParser.parse(Data((big + tail).utf8), limits: limits)) {
                $0 == .tooLarge(.requestHead, limit: 1024)
            }
        }
    }

    func testParse_defaultHeadLimit_is16KiB() throws {
        let filler = String(repeating: "a", count: 16 * 1024)
        assertTransportError(try HTTPRequestParser.parse(Data("GET / HTTP/1.1\r\nHost: x\r\nX: \(filler)\r\n\r\n".utf8))) {
            $0 == .tooLarge(.requestHead, limit: 16 * 1024)
        }
        XCTAssertNoThrow(try HTTPRequestParser.parse(Data("GET / HTTP/1.1\r\nHost: x\r\nX: \(filler.prefix(16000))\r\n\r\n".utf8)))
    }

    func testParse_contentLengthOverTheLimit_throwsTooLargeBody_beforeAnyBodyArrives() {
        var parser = HTTPRequestParser()  // default body limit: 1 MiB
        let head = Data("POST /secure-data HTTP/1.1\r\nHost: x\r\nContent-Length: \((1 << 20) + 1)\r\n\r\n".utf8)
        assertTransportError(try parser.consume(head)) { $0 == .tooLarge(.requestBody, limit: 1 << 20) }
        XCTAssertNoThrow(try HTTPRequestParser.parse(
            Data("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(1 << 20)\r\n\r\n".utf8) + Data(count: 1 << 20)))
    }

    func testParse_chunkedBody_isRefused() {
        let chunked = Data("POST /login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n".utf8)
        assertTransportError(try HTTPRequestParser.parse(chunked)) { $0 == .transferEncodingRefused(encoding: "chunked") }
    }

    func testParse_malformedRequests_throwHTTPProtocolErrors() {
        let cases: [(String, String)] = [
            ("garbage", "hello there\r\n\r\n"),
            ("binary", "\u{01}\u{02}\u{03}\r\n\r\n"),
            ("no version", "GET /\r\nHost: x\r\n\r\n"),
            ("HTTP/2.0", "GET / HTTP/2.0\r\nHost: x\r\n\r\n"),
            ("absolute target", "GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n"),
            ("double space", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n"),
            ("bare LF", "GET / HTTP/1.1\nHost: x\r\n\r\n"),
            ("bare CR", "GET / HTTP/1.1\r\nHost: x\ry: z\r\n\r\n"),
            ("obs-fold", "GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  continued\r\n\r\n"),
            ("space before colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n"),
            ("no colon", "GET / HTTP/1.1\r\nHost x\r\n\r\n"),
            ("missing Host", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n"),
            ("two Content-Lengths", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"),
            ("negative Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"),
            ("list Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1, 1\r\n\r\nb"),
            ("control character in value", "GET / HTTP/1.1\r\nHost: x\r\nX: a\u{7F}b\r\n\r\n"),
        ]
        for (name, text) in cases {
            assertTransportError(try HTTPRequestParser.parse(Data(text.utf8)), name) {
                if case .httpProtocol = $0 { return true }
                return false
            }
        }
        assertTransportError(try HTTPRequestParser.parse(Data([0x47, 0x45, 0x54, 0x20, 0x2F, 0xFF, 0x20]) + Data(" HTTP/1.1\r\n\r\n".utf8))) {
            if case .httpProtocol = $0 { return true }
            return false
        }
    }

    func testParse_incompleteRequest_isAnErrorForTheOneShotParser() {
        assertTransportError(try HTTPRequestParser.parse(Data("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab".utf8))) {
            $0 == .httpProtocol(detail: "the request is incomplete")
        }
    }

    func testSerializedResponse_hasStatusLineContentLengthAndConnectionClose() throws {
        let response = HTTPResponse.json(status: 200, #"{"ok":true}"#)
        let text = String(decoding: try response.serialized(), as: UTF8.self)
        XCTAssertEqual(text, "HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 11\r\ncontent-type: application/json\r\n\r\n{\"ok\":true}")
    }

    func testSerializedResponse_overridesCallerFramingHeaders_andOmitsTheBodyFor204() throws {
        var response = HTTPResponse(status: 200, headers: ["Content-Length": "999", "Connection": "keep-alive"], body: Data("abc".utf8))
        var text = String(decoding: try response.serialized(), as: UTF8.self)
        XCTAssertTrue(text.contains("content-length: 3\r\n"))
        XCTAssertTrue(text.contains("connection: close\r\n"))
        XCTAssertFalse(text.contains("999"))
        response = HTTPResponse(status: 204, body: Data("ignored".utf8))
        text = String(decoding: try response.serialized(), as: UTF8.self)
        XCTAssertEqual(text, "HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
    }

    func testSerializedResponse_refusesHeaderInjectionAndImpossibleStatus() {
        assertTransportError(try HTTPResponse(status: 200, headers: ["x-a": "1\r\nset-cookie: evil"]).serialized()) {
            if case .httpProtocol = $0 { return true }
            return false
        }
        assertTransportError(try HTTPResponse(status: 200, headers: ["bad name": "1"]).serialized()) {
            if case .httpProtocol = $0 { return true }
            return false
        }
        assertTransportError(try HTTPResponse(status: 42).serialized()) {
            if case .httpProtocol = $0 { return true }
            return false
        }
    }

    func testResponse_serializeThenParse_roundTrips() throws {
        let response = HTTPResponse(status: 401, headers: ["Content-Type": "application/json", "X-A": "b"],
                                    body: Data(#"{"error":"unauthorized"}"#.utf8))
        let parsed = try HTTPResponse.parse(try response.serialized())
        XCTAssertEqual(parsed.status, 401)
        XCTAssertEqual(parsed.body, response.body)
        XCTAssertEqual(parsed.headers["content-type"], "application/json")
        XCTAssertEqual(parsed.headers["x-a"], "b")
        XCTAssertEqual(parsed.headers["connection"], "close")
    }

    func testRequest_serializedForARawClient_parsesBackToTheSameRequest() throws {
        let request = HTTPRequest(method: "POST", path: "/secure-data", headers: ["Authorization": "abc"], body: Data("{}".utf8))
        let parsed = try HTTPRequestParser.parse(try request.serialized(host: "localhost:8443"))
        XCTAssertEqual(parsed.method, "POST")
        XCTAssertEqual(parsed.path, "/secure-data")
        XCTAssertEqual(parsed.headers["authorization"], "abc")
        XCTAssertEqual(parsed.headers["host"], "localhost:8443")
        XCTAssertEqual(parsed.body, Data("{}".utf8))
    }

    func testRejecting_mapsEachParserRefusalToItsStatus() {
        XCTAssertEqual(HTTPResponse.rejecting(.tooLarge(.requestBody, limit: 1)).status, 413)
        XCTAssertEqual(HTTPResponse.rejecting(.tooLarge(.requestHead, limit: 1)).status, 431)
        XCTAssertEqual(HTTPResponse.rejecting(.transferEncodingRefused(encoding: "chunked")).status, 411)
        XCTAssertEqual(HTTPResponse.rejecting(.httpProtocol(detail: "x")).status, 400)
        XCTAssertEqual(HTTPResponse.rejecting(.tooLarge(.requestBody, limit: 1)).body, Data(#"{"error":"too large"}"#.utf8))
    }

    func testErrorDescriptions_sayWhatToDo() {
        XCTAssertEqual(TransportError.tooLarge(.requestBody, limit: 1 << 20).description,
                       "request body exceeds the limit of 1048576 bytes")
        XCTAssertEqual(TransportError.plainHTTPRefused(url: "http://x/").description,
                       "refused to send to http://x/: this client speaks only https://")
        XCTAssertTrue(TransportError.certificateRefused(.expired, detail: "").description.contains("has expired"))
        XCTAssertTrue(TransportError.transferEncodingRefused(encoding: "chunked").description.contains("Content-Length"))
        XCTAssertTrue(TransportError.connectionRefused(host: "::1", port: 8443).description.hasPrefix("connection refused by [::1]:8443:"))
    }
}
