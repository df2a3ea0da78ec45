import Foundation
import XCTest
@testable import WireProtocol
import WireCrypto
import StrictFormats

/// What seed 001's app really sends (AFNetworking), against the Swift aes-https server: the same
/// cases as PythonRef/tests/test_aes_https.py, so both servers are held to one rule
/// (docs/PROTOCOL.md, aes-https: "What a server must accept" and "aes-https as implemented").
/// The form bodies are written out by hand from AFNetworking's rules (AFPercentEscapedStringFromString:
/// ASCII letters, digits and -._~/? stay, every other UTF-8 byte is %HH; parameters sorted by name),
/// not made with the code under test.
final class AESHTTPSSeedAppTests: XCTestCase {
    static let users = ["testuser": "testpassword", "ana maría": "p@ss w+rd/?&=ü", "x": ""]
    static let formType = "application/x-www-form-urlencoded"

    func server(_ mode: KeyDerivationMode = .weakUTF8ZeroPad16) -> AESHTTPSServer {
        AESHTTPSServer(config: AESHTTPSServerConfig(users: Self.users, keyMode: mode))
    }

    func login(_ body: String, contentType: String? = formType, to server: AESHTTPSServer) -> WebResponse {
        server.handle(WebRequest(method: "POST", path: "/login", headers: contentType.map { ["Content-Type": $0] } ?? [:],
                                 body: Data(body.utf8)))
    }

    func testAFormEncodedLogin_isAccepted() throws {
        let cases: [(String, String)] = [
            ("password=testpassword&username=testuser", "seed 001's own example account"),
            ("password=p%40ss%20w%2Brd/?%26%3D%C3%BC&username=ana%20mar%C3%ADa", "escaped as AFNetworking escapes"),
            ("password=p%40ss+w%2Brd/?%26%3D%c3%bc&username=ana+mar%c3%ada", "+ as a space, lower-case hex"),
            ("username=testuser&password=testpassword", "any order"),
            ("&username=testuser&&password=testpassword&", "empty pairs skipped"),
            ("username=nobody&password=testpassword&username=testuser", "the last one counts"),
            ("password=testpassword&username=testuser&remember=1&flag", "other fields ignored"),
            ("password&username=x", "no '=': an empty value"),
            ("password=&username=x", "an empty password"),
            ("%70assword=testpassword&%75sername=testuser", "escaped names"),
        ]
        let server = server()
        for (body, why) in cases {
            for contentType in [Self.formType, Self.formType + "; charset=utf-8", nil, "text/plain"] {
                let answer = login(body, contentType: contentType, to: server)
                XCTAssertEqual(answer.status, 200, "\(why): \(body) with \(contentType ?? "no Content-Type")")
                XCTAssertEqual(answer.headers["content-type"], "application/json")
                let fields = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
                XCTAssertEqual(fields.map { Set($0.keys) }, ["token", "encryptionKey"])
            }
        }
    }

    func testAFormLoginThatIsWrongOrMalformed_isRefused() {
        let cases: [(String, Int)] = [
            ("password=wrong&username=testuser", 401),
            ("password=testpassword&username=TestUser", 401),
            ("password=testpassword%20&username=testuser", 401),
            ("password=testpassword", 400),
            ("username=testuser", 400),
            ("", 400),
            ("testuser:testpassword", 400),
            ("password=test%GGpassword&username=testuser", 400),
            ("password=testpassword%&username=testuser", 400),
            ("password=testpassword%4&username=testuser", 400),
            ("password=%FF&username=testuser", 400),
            ("password=%ED%A0%80&username=testuser", 400),  // an encoded surrogate is not UTF-8
            ("password=%C0%AF&username=testuser", 400),  // nor an overlong form
            (#"["testuser","testpassword"]"#, 400),
            (#"  {"username":"testuser","password":"testpassword""#, 400),  // starts like JSON: read as JSON
        ]
        let server = server()
        for (body, status) in cases {
            let answer = login(body, to: server)
            XCTAssertEqual(answer.status, status, body)
            XCTAssertEqual(answer.body, Data((status == 400 ? #"{"error":"bad request"}"# : #"{"error":"unauthorized"}"#).utf8), body)
            XCTAssertEqual(answer.headers["content-type"], "application/json")
        }
    }

    func testAJSONLogin_isReadAsJSONWhateverItsContentType() {
        let server = server()
        let body = " \r\n\t{\"username\":\"testuser\",\"password\":\"testpassword\"}"
        for contentType in ["application/json", Self.formType, nil] {
            XCTAssertEqual(login(body, contentType: contentType, to: server).status, 200, contentType ?? "none")
        }
    }

    func testCredentials_areComparedAsUTF8Bytes() {
        // A precomposed é and e + U+0301 are equal as Swift Strings, but not as bytes; PythonRef
        // compares bytes, and so must this server, or the two answer the same login differently.
        let server = AESHTTPSServer(config: AESHTTPSServerConfig(users: ["jos\u{e9}": "caf\u{e9}"], keyMode: .base64Raw))
        XCTAssertEqual(login("password=caf%C3%A9&username=jos%C3%A9", to: server).status, 200)
        XCTAssertEqual(login("password=cafe%CC%81&username=jos%C3%A9", to: server).status, 401)
        XCTAssertEqual(login("password=caf%C3%A9&username=jose%CC%81", to: server).status, 401)
    }

    func testAFPercentEscaping_matchesAFNetworking() {
        XCTAssertEqual(AESHTTPSClient.afPercentEscaped("testpassword"), "testpassword")
        XCTAssertEqual(AESHTTPSClient.afPercentEscaped("a-b._~/?c"), "a-b._~/?c")
        XCTAssertEqual(AESHTTPSClient.afPercentEscaped(":#[]@!$&'()*+,;= %\"<>\\^`{|}\n"),
                       "%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D%20%25%22%3C%3E%5C%5E%60%7B%7C%7D%0A")
        XCTAssertEqual(AESHTTPSClient.afPercentEscaped("ü😀"), "%C3%BC%F0%9F%98%80")
    }

    func testFormLoginRequest_isWhatTheSeedAppSends() throws {
        let request = AESHTTPSClient.loginRequest(username: "ana maría", password: "p@ss w+rd/?&=ü", encoding: .form)
        XCTAssertEqual(request.headers, ["content-type": Self.formType])
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self), "password=p%40ss%20w%2Brd/?%26%3D%C3%BC&username=ana%20mar%C3%ADa")
        let (token, key) = try AESHTTPSClient.parseLogin(server().handle(request), mode: .weakUTF8ZeroPad16)
        XCTAssertEqual(token.count, 32)
        XCTAssertEqual(key.count, 16)
    }

    func testTheEncryptedBody_needsNoContentType() throws {
        let server = server()
        let (token, key) = try AESHTTPSClient.parseLogin(login("password=testpassword&username=testuser", to: server), mode: .weakUTF8ZeroPad16)
        let sealed = try CBCEnvelope.seal(Data(#"{"example":"data"}"#.utf8), key: key).jsonData
        for headers in [["Authorization": token], ["Authorization": token, "Content-Type": Self.formType],
                        ["Authorization": token, "Content-Type": "text/plain"]] {
            let answer = server.handle(WebRequest(method: "POST", path: "/secure-data", headers: headers, body: sealed))
            XCTAssertEqual(answer.status, 200, "\(headers)")
            XCTAssertEqual(answer.headers["content-type"], "application/json")
            let echo = try JSONSerialization.jsonObject(with: AESHTTPSClient.parseSecure(answer, key: key)) as? [String: Any]
            XCTAssertEqual((echo?["echo"] as? [String: Any])?["example"] as? String, "data")
        }
    }

    /// Seed 001's key handling, written from its code: `getCString(&keyBytes, maxLength: 17,
    /// encoding: .utf8)` into a 16-byte zeroed buffer; with its NUL the string must fit in 16 bytes.
    func seedGetCStringKey(_ encryptionKey: String) -> Data? {
        let bytes = Data(encryptionKey.utf8)
        return bytes.count + 1 > 16 ? nil : bytes + Data(count: 16 - bytes.count)
    }

    func testFreshUTF8ZeroPad16Keys_areKeysTheSeedAppCanUse() throws {
        for _ in 0..<200 {
            let server = server()
            let answer = login("password=testpassword&username=testuser", to: server)
            let fields = try XCTUnwrap(JSONSerialization.jsonObject(with: answer.body) as? [String: String])
            let issued = try XCTUnwrap(fields["encryptionKey"])
            let seedKey = try XCTUnwrap(seedGetCStringKey(issued), issued)
            XCTAssertEqual(issued.utf8.count, 12)
            let request = try AESHTTPSClient.secureRequest(params: Data(#"{"n":1}"#.utf8), token: try XCTUnwrap(fields["token"]), key: seedKey)
            XCTAssertEqual(server.handle(request).status, 200)
        }
        XCTAssertNil(seedGetCStringKey("ünïcödé-keys"))  // 16 UTF-8 bytes: the seed's buffer has no room
        XCTAssertEqual(try KeyDerivationMode.weakUTF8ZeroPad16.deriveKey(from: "ünïcödé-key"), seedGetCStringKey("ünïcödé-key"))
        XCTAssertEqual(StrictBase64.decode(AESHTTPSServerConfig.freshEncryptionKey(for: .base64Raw))?.count, 32)
    }
}
