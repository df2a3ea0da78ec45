import Foundation
import XCTest
@testable import WireProtocol
import WireCrypto

/// `type = "ec-p256"` keys, `signature` values and HTTP refusals of a kind answered their own way
/// (arthuravianna/uff-web3-course's ds_server: ECDSA P-256 r ‖ s over a text field, a bad signature
/// answered 200 with its own body). Checked against WireCrypto's ECDSA and OpenSSL's command line,
/// not against the engine's own signing.
final class DescribedSignatureTests: XCTestCase {
    /// The shipped example, read as a team's file is.
    static let signed: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("examples/protocols/ecdsa-signed-message.toml"), encoding: .utf8)) ?? ""
    }()

    func parties(_ toml: String = signed, message: Data) throws -> (DescribedParty, DescribedParty, ECPrivateKey) {
        let described = try ProtocolDescription(toml: toml)
        let key = try ECPrivateKey(curve: .p256)
        let client = try DescribedParty(description: described, conversation: "message", role: .client, curvePrivateKeys: ["signer": .ec(key)], message: message)
        let server = try DescribedParty(description: described, conversation: nil, role: .server, knownCurvePublicKeys: ["signer": .ec(key.publicKey)])
        return (client, server, key)
    }

    func testARawSignature_isRAndSOfTheFieldsText_verifiedByWireCrypto_andAnsweredAuthentic() throws {
        let text = Data("Grüße from the phone".utf8)
        let (client, server, key) = try parties(message: text)
        guard case let .request(_, _, _, body)? = try client.nextMessage() else { return XCTFail("no request") }
        let fields = try XCTUnwrap(try JSONSerialization.jsonObject(with: body) as? [String: String])
        XCTAssertEqual(fields["message"], "Grüße from the phone")
        let raw = try XCTUnwrap(Data(base64Encoded: fields["signature"]!))
        XCTAssertEqual(raw.count, 64, "r ‖ s, 32 bytes each")
        let der = try ECDSASignatureEncoding.der(fromRaw: raw, curve: .p256)
        XCTAssertTrue(key.publicKey.isValidSignature(der, for: Data(fields["message"]!.utf8), digest: .sha256))
        try server.receive(.request(method: "POST", path: "/message", headers: ["Content-Type": "application/json"], body: body))
        XCTAssertEqual(server.received["message"], text)
        guard case let .response(status, _, answer)? = try server.nextMessage() else { return XCTFail("no answer") }
        XCTAssertEqual(status, 200)
        XCTAssertEqual(try JSONSerialization.jsonObject(with: answer) as? [String: String], ["message": "The message is authentic!"])
        try client.receive(.response(status: status, headers: [:], body: answer))
        XCTAssertTrue(client.isDone)
    }

    func testAChangedSignatureOrText_isRefusedAsAuthentication_andAnsweredWithTheDeclaredBody() throws {
        for change in ["signature", "message"] {
            let (client, server, _) = try parties(message: Data("hello".utf8))
            guard case let .request(_, _, _, body)? = try client.nextMessage() else { return XCTFail("no request") }
            var fields = try XCTUnwrap(try JSONSerialization.jsonObject(with: body) as? [String: String])
            if change == "signature" {
                var raw = Data(base64Encoded: fields["signature"]!)!
                raw[raw.endIndex - 1] ^= 1
                fields["signature"] = raw.base64EncodedString()
            } else {
                fields["message"] = "hellO"
            }
            XCTAssertThrowsError(try server.receive(.request(method: "POST", path: "/message", headers: ["Content-Type": "application/json"], body: try JSONSerialization.data(withJSONObject: fields)))) { error in
                XCTAssertEqual((error as? DescribedRefusal)?.kind, .authentication, "\(change): \(error)")
            }
            guard case let .response(status, headers, answer)? = server.refusalMessage() else { return XCTFail("no refusal") }
            XCTAssertEqual(status, 200)
            XCTAssertEqual(headers["Content-Type"], "application/json")
            XCTAssertEqual(try JSONSerialization.jsonObject(with: answer) as? [String: String], ["message": "The message is not authentic!"])
            // The client tells that 200 from the answer it wanted: a refusal of kind authentication.
            XCTAssertThrowsError(try client.receive(.response(status: 200, headers: [:], body: answer))) { error in
                XCTAssertEqual((error as? DescribedRefusal)?.kind, .authentication)
                XCTAssertTrue("\(error)".contains("the server refused the message"), "\(error)")
            }
            XCTAssertEqual(client.declaredRefusalKind(status: 200, body: answer), .authentication)
            XCTAssertNil(client.declaredRefusalKind(status: 200, body: Data(#"{"message":"The message is authentic!"}"#.utf8)))
            XCTAssertNil(client.declaredRefusalKind(status: 401, body: answer))
            // A refusal is told first: an answer that matched both would count as the refusal.
            let both = try ProtocolDescription(toml: Self.signed.replacingOccurrences(of: "The message is authentic!", with: "The message is not authentic!"))
            let twin = try DescribedParty(description: both, conversation: "message", role: .client, curvePrivateKeys: ["signer": .ec(try ECPrivateKey(curve: .p256))])
            _ = try twin.nextMessage()
            XCTAssertThrowsError(try twin.receive(.response(status: 200, headers: [:], body: answer))) { error in
                XCTAssertEqual((error as? DescribedRefusal)?.kind, .authentication)
            }
        }
    }

    func testADERSignature_fromOpenSSLsCommandLine_verifies_andItsRawFormIsRefusedAsDER() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("described-sig-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try ECPrivateKey(curve: .p256)
        try Data(try key.pemRepresentation.utf8).write(to: directory.appendingPathComponent("key.pem"))
        try Data("signed by openssl".utf8).write(to: directory.appendingPathComponent("text"))
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["dgst", "-sha256", "-sign", directory.appendingPathComponent("key.pem").path, "-out", directory.appendingPathComponent("sig").path, directory.appendingPathComponent("text").path]
        try openssl.run(); openssl.waitUntilExit()
        XCTAssertEqual(openssl.terminationStatus, 0)
        let der = try Data(contentsOf: directory.appendingPathComponent("sig"))
        let derTOML = Self.signed.replacingOccurrences(of: #"format = "raw""#, with: #"format = "der""#)
        let described = try ProtocolDescription(toml: derTOML)
        func server() throws -> DescribedParty { try DescribedParty(description: described, conversation: nil, role: .server, knownCurvePublicKeys: ["signer": .ec(key.publicKey)]) }
        func body(_ signature: Data) -> Data { Data(#"{"message":"signed by openssl","signature":"\#(signature.base64EncodedString())"}"#.utf8) }
        let json = ["Content-Type": "application/json"]
        let taking = try server()
        try taking.receive(.request(method: "POST", path: "/message", headers: json, body: body(der)))
        XCTAssertEqual(taking.received["message"], Data("signed by openssl".utf8))
        XCTAssertThrowsError(try server().receive(.request(method: "POST", path: "/message", headers: json, body: body(try ECDSASignatureEncoding.raw(fromDER: der, curve: .p256)))))
    }

    func testDescriptionsThatCannotWork_areRefusedByKeyPath() throws {
        func refused(_ toml: String, _ path: String, _ words: String, line: UInt = #line) {
            XCTAssertThrowsError(try ProtocolDescription(toml: toml), line: line) { error in
                XCTAssertTrue("\(error)".contains(path) && "\(error)".contains(words), "\(error)", line: line)
            }
        }
        let signed = Self.signed
        refused(signed.replacingOccurrences(of: "type = \"ec-p256\"\n", with: ""), "body.json.signature", "is an RSA key")
        refused(signed.replacingOccurrences(of: "holder = \"client\"", with: "holder = \"server\""), "body.json.signature", "cannot sign with it")
        refused(signed.replacingOccurrences(of: "preshared = true", with: "preshared = false"), "body.json.signature", "does not know key signer's public half before this message")
        refused(signed.replacingOccurrences(of: "type = \"ec-p256\"", with: "type = \"ec-p256\"\nbits = 2048"), "keys.signer.bits", "remove `bits`")
        refused(signed.replacingOccurrences(of: #"of = "message""#, with: #"of = "nothing""#), "body.json.signature", "names no sibling field")
        refused(signed.replacingOccurrences(of: #", encoding = "base64" } } }"#, with: " } } }"), "signature.encoding", "base64, base64url or hex")
        refused(signed.replacingOccurrences(of: #", body = { json = { message = { text = "The message is not authentic!" } } }"#, with: ""),
                "errors.authentication.status", "give the refusal and the answer each a `body`")
        refused(signed.replacingOccurrences(of: #"{ json = { message = { text = "The message is not authentic!" } } }"#, with: #"{ config = "username" }"#),
                "errors.authentication.body", "a constant")
        refused(signed.replacingOccurrences(of: "status = 200, body", with: "body"), "errors.authentication.status", "status")
        // An answer step with no body beside a 200 refusal: any 200 would be both (a second review found it passing a wrong key).
        refused(signed.replacingOccurrences(of: #"body = { json = { message = { text = "The message is authentic!" } } }"#, with: ""),
                "errors.authentication.status", "each a `body`")
        refused(signed.replacingOccurrences(of: #"{ json = { message = { text = "The message is not authentic!" } } }"#, with: "{ json = { } }"),
                "errors.authentication.body", "one or more `text` fields")
        // The key in the same message as the signature it verifies: the receiver has not read it yet.
        refused(signed.replacingOccurrences(of: "preshared = true", with: "preshared = false")
                    .replacingOccurrences(of: "body = { json = { message = { plain", with: #"body = { json = { key = { public_key = "signer", encoding = "utf8" }, message = { plain"#),
                "body.json.signature", "before this message")
    }
}
