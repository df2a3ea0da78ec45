import Foundation
import XCTest
@testable import WireProtocol
import WireCrypto

final class AESHTTPSLogicTests: XCTestCase {
    func makeServer(_ mode: KeyDerivationMode = .base64Raw) -> AESHTTPSServer {
        let key = mode == .base64Raw ? secureRandomBytes(32).base64EncodedString() : "pi-secret"
        return AESHTTPSServer(config: AESHTTPSServerConfig(users: ["alice": "wonderland"], keyMode: mode, encryptionKey: key))
    }

    func testLoginThenSecureData_echoesTheParamsUnderAFreshIV() throws {
        for mode in KeyDerivationMode.allCases {
            let server = makeServer(mode)
            let (token, key) = try AESHTTPSClient.parseLogin(server.handle(AESHTTPSClient.loginRequest(username: "alice", password: "wonderland")), mode: mode)
            XCTAssertEqual(token.count, 32)
            let params = Data("{\"temperature\":21}".utf8)
            let request = try AESHTTPSClient.secureRequest(params: params, token: token, key: key)
            let response = server.handle(request)
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.headers["content-type"], "application/json")
            let echoed = try JSONSerialization.jsonObject(with: AESHTTPSClient.parseSecure(response, key: key)) as? [String: Any]
            XCTAssertEqual((echoed?["echo"] as? [String: Any])?["temperature"] as? Int, 21)
            XCTAssertNotEqual(try CBCEnvelope(json: response.body).iv, try CBCEnvelope(json: request.body).iv)
        }
    }

    func testCredentialsAndTokens_areChecked() throws {
        let server = makeServer()
        XCTAssertEqual(server.handle(AESHTTPSClient.loginRequest(username: "alice", password: "nope")).status, 401)
        XCTAssertEqual(server.handle(WebRequest(method: "POST", path: "/login", body: Data("[]".utf8))).status, 400)
        let key = secureRandomBytes(32)
        var request = try AESHTTPSClient.secureRequest(params: Data("{}".utf8), token: "unknown", key: key)
        XCTAssertEqual(server.handle(request).status, 401)
        request.headers["authorization"] = nil
        XCTAssertEqual(server.handle(request).status, 401)
        XCTAssertEqual(server.handle(WebRequest(method: "GET", path: "/login")).status, 405)
        XCTAssertEqual(server.handle(WebRequest(method: "POST", path: "/admin")).status, 404)
        XCTAssertEqual(server.handle(WebRequest(method: "POST", path: "/login", body: Data(count: (1 << 20) + 1))).status, 413)
    }

    func testEveryBadEnvelope_getsTheSame400Bytes() throws {
        let server = makeServer(.weakUTF8ZeroPad16)
        let (token, key) = try AESHTTPSClient.parseLogin(server.handle(AESHTTPSClient.loginRequest(username: "alice", password: "wonderland")), mode: .weakUTF8ZeroPad16)
        let good = try CBCEnvelope.seal(Data("{\"a\":1}".utf8), key: key)
        var badPadding = good; badPadding.iv[15] ^= 0x09
        let notJSON = try CBCEnvelope.seal(Data("not json".utf8), key: key)
        let bodies: [Data] = [
            Data("{".utf8), Data("{\"data\":1}".utf8), badPadding.jsonData, notJSON.jsonData,
            CBCEnvelope(ciphertext: good.ciphertext.dropLast(), iv: good.iv).jsonData,
            CBCEnvelope(ciphertext: good.ciphertext, iv: good.iv.prefix(15)).jsonData,
        ]
        let answers = bodies.map { server.handle(WebRequest(method: "POST", path: "/secure-data", headers: ["Authorization": token], body: $0)) }
        for answer in answers {
            XCTAssertEqual(answer.status, 400)
            XCTAssertEqual(answer.body, Data("{\"error\":\"bad request\"}".utf8))
        }
        XCTAssertEqual(server.handle(WebRequest(method: "POST", path: "/secure-data", headers: ["Authorization": token], body: good.jsonData)).status, 200)
    }
}
