import Foundation
import XCTest
@testable import WireProtocol
import WireCrypto

/// The format's reach into public servers' protocols (issue 31's corpus): a message in the clear
/// (`plain`), a passphrase hashed to the key, PKCS#7 to 32-byte blocks, and a carried secret
/// written as text. Each both ways in memory, and what must be refused.
final class DescribedExtensionTests: XCTestCase {
    func description(_ toml: String) throws -> ProtocolDescription { try ProtocolDescription(toml: toml) }

    /// zip4ik/aes-decryptor's shape: the key in the request, the plaintext answered in the clear.
    static let keyInRequest = """
    name = "key-in-request"
    [transport]
    kind = "http"
    [secrets.k]
    made_by = "client"
    bytes = 16
    [[conversation]]
    name = "decrypt"
    [[conversation.step]]
    from = "client"
    request = "POST /decrypt"
    body = { json = { key = { secret = "k", encoding = "base64" }, nonce = { nonce_of = "ciphertext", encoding = "base64" }, ciphertext = { sealed = "k", cipher = "aes-gcm", iv = "field:nonce", encoding = "base64" } } }
    [[conversation.step]]
    from = "server"
    body = { json = { plaintext = { plain = "message", encoding = "utf8" } } }
    """

    func testPlainMessage_theServerAnswersWhatItDecrypted_andAnotherTextIsRefused() throws {
        let described = try description(Self.keyInRequest)
        let client = try DescribedParty(description: described, conversation: "decrypt", role: .client, message: Data("open sesame".utf8))
        let server = try DescribedParty(description: described, conversation: "decrypt", role: .server)
        XCTAssertNil(try runDescribed(client, server))
        XCTAssertTrue(client.isDone && server.isDone)
        XCTAssertEqual(server.received["message"], Data("open sesame".utf8))

        let client2 = try DescribedParty(description: described, conversation: "decrypt", role: .client, message: Data("open sesame".utf8))
        let server2 = try DescribedParty(description: described, conversation: "decrypt", role: .server)
        try server2.receive(try client2.nextMessage()!)
        guard case let .response(status, headers, body)? = try server2.nextMessage() else { return XCTFail("no response") }
        XCTAssertEqual(String(decoding: body, as: UTF8.self), #"{"plaintext":"open sesame"}"#)
        let other = DescribedMessage.response(status: status, headers: headers, body: Data(#"{"plaintext":"open sesamE"}"#.utf8))
        XCTAssertThrowsError(try client2.receive(other)) { error in
            XCTAssertEqual((error as? DescribedRefusal)?.reason, "the message in the clear is not the conversation's message")
        }
    }

    func testPlainMessage_onlyTheMessage_andInJSONItNeedsAnEncoding() throws {
        XCTAssertThrowsError(try description(Self.keyInRequest.replacingOccurrences(of: #"plain = "message""#, with: #"plain = "secret""#))) { error in
            XCTAssertTrue("\(error)".contains("conversation[1].step[2].body.json.plaintext.plain"), "\(error)")
        }
        XCTAssertThrowsError(try description(Self.keyInRequest.replacingOccurrences(of: #"plain = "message", encoding = "utf8""#, with: #"plain = "message""#))) { error in
            XCTAssertTrue("\(error)".contains("needs an `encoding`"), "\(error)")
        }
    }

    /// VasilyevAA/PHd_system's shape: key = SHA-256("TopSecretKey"), AES-256-CBC padded to 32.
    static let passphrase = """
    name = "passphrase-cbc32"
    [transport]
    kind = "tcp"
    framing = "legacy"
    [secrets.psk]
    made_by = "preshared"
    derive = "passphrase-sha256"
    [[conversation]]
    name = "report"
    [[conversation.step]]
    from = "client"
    send = { json = { data = { sealed = "psk", cipher = "aes-cbc", padding = "pkcs7-32", iv = "prefix", encoding = "base64" } } }
    [[conversation.step]]
    from = "server"
    send = { text = "OK" }
    """

    func testPassphraseAndPKCS7To32_bothWays_theKeyIsSHA256OfTheText_andAnotherPassphraseIsRefused() throws {
        let described = try description(Self.passphrase)
        XCTAssertEqual(described.secrets["psk"]?.keyBytes, 32)
        XCTAssertTrue(described.weaknesses.contains { $0.contains("secret psk is a passphrase hashed to a key (passphrase-sha256") })
        let psk = Data("TopSecretKey".utf8)
        let client = try DescribedParty(description: described, conversation: "report", role: .client, secrets: ["psk": psk], message: Data("temp=21".utf8))
        let server = try DescribedParty(description: described, conversation: "report", role: .server, secrets: ["psk": psk])
        guard case let .bytes(sent)? = try client.nextMessage() else { return XCTFail("nothing sent") }
        // 7 bytes of plaintext pad to 32 (25 bytes of 0x19): IV 16 + 32 bytes of ciphertext, in base64.
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: sent) as? [String: String])
        let box = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(object["data"])))
        XCTAssertEqual(box.count, 48)
        let key = Digest.sha256.hash(psk)
        let padded = Data(try AESBlockMode.cbc(iv: [UInt8](box.prefix(16))).process(encrypt: false, key: [UInt8](key), input: [UInt8](box.dropFirst(16))))
        XCTAssertEqual(padded, Data("temp=21".utf8) + Data(repeating: 0x19, count: 25))
        try server.receive(.bytes(sent))
        XCTAssertEqual(server.received["message"], Data("temp=21".utf8))

        let wrong = try DescribedParty(description: described, conversation: "report", role: .server, secrets: ["psk": Data("TopSecretKeY".utf8)])
        XCTAssertThrowsError(try wrong.receive(.bytes(sent)))
        // A good 16-byte PKCS#7 padding is no PKCS#7-32 padding when its last byte says more than it has.
        let bad = try AESCBC.encrypt(Data(repeating: 0x21, count: 15), key: key, iv: box.prefix(16))  // pads with one 0x01: fine
        let badObject = Data(#"{"data":""#.utf8) + Data((box.prefix(16) + bad).base64EncodedString().utf8) + Data(#""}"#.utf8)
        let server3 = try DescribedParty(description: described, conversation: "report", role: .server, secrets: ["psk": psk])
        XCTAssertNoThrow(try server3.receive(.bytes(badObject)), "a pad of 1 is a PKCS#7-32 padding too")
        // 48 bytes ending in 0x21 (33): a pad longer than 32 is no PKCS#7-32 padding.
        let over = Data(try AESBlockMode.cbc(iv: [UInt8](box.prefix(16))).process(encrypt: true, key: [UInt8](key), input: [UInt8](repeating: 0x21, count: 48)))
        let overObject = Data(#"{"data":""#.utf8) + Data((box.prefix(16) + over).base64EncodedString().utf8) + Data(#""}"#.utf8)
        let server4 = try DescribedParty(description: described, conversation: "report", role: .server, secrets: ["psk": psk])
        XCTAssertThrowsError(try server4.receive(.bytes(overObject))) { error in
            XCTAssertEqual((error as? DescribedRefusal)?.reason, "the PKCS#7-32 padding is invalid")
        }
    }

    func testPassphrase_bytesIsRefused_charsUpTo64() throws {
        XCTAssertThrowsError(try description(Self.passphrase.replacingOccurrences(of: #"derive = "passphrase-sha256""#, with: "derive = \"passphrase-sha256\"\nbytes = 32"))) { error in
            XCTAssertTrue("\(error)".contains("secrets.psk.bytes"), "\(error)")
            XCTAssertTrue("\(error)".contains("remove `bytes`"), "\(error)")
        }
        let made = Self.passphrase.replacingOccurrences(of: #"made_by = "preshared""#, with: "made_by = \"client\"\nchars = 40")
            .replacingOccurrences(of: #"derive = "passphrase-sha256""#, with: #"derive = "passphrase-sha256-128""#)
            .replacingOccurrences(of: #"send = { json = { data"#, with: #"send = { json = { key = { secret = "psk", encoding = "utf8" }, data"#)
        let described = try description(made)
        XCTAssertEqual(described.secrets["psk"]?.keyBytes, 16)
        let fresh = DescribedParty.freshSecret(try XCTUnwrap(described.secrets["psk"]))
        XCTAssertEqual(fresh.count, 40)
        XCTAssertTrue(fresh.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5a) || ($0 >= 0x61 && $0 <= 0x7a) })
        let client = try DescribedParty(description: described, conversation: "report", role: .client)
        let server = try DescribedParty(description: described, conversation: "report", role: .server)
        XCTAssertNil(try runDescribed(client, server))
        XCTAssertTrue(server.isDone)
    }

    /// DEVENDER-SINGH22's shape: RSA-OAEP-SHA256 of Fernet.generate_key() — the key's 44-character text.
    static let carriedText = """
    name = "fernet-key-text"
    [transport]
    kind = "tcp"
    framing = "legacy"
    [keys.server]
    holder = "server"
    bits = 2048
    [secrets.session]
    made_by = "client"
    bytes = 32
    [[conversation]]
    name = "send"
    [[conversation.step]]
    from = "server"
    send = { public_key = "server", format = "pem-spki" }
    [[conversation.step]]
    from = "client"
    send = { rsa = "server", padding = "oaep-sha256", carries = "secret:session", carries_as = "base64url-padded" }
    [[conversation.step]]
    from = "client"
    send = { sealed = "session", cipher = "fernet", carries = "message" }
    """

    func testCarriedSecretAsText_thePlaintextIsItsBase64urlWithPadding_andOtherTextIsRefused() throws {
        let described = try description(Self.carriedText)
        let serverKey = try RSAPrivateKey(bits: 2048)
        let client = try DescribedParty(description: described, conversation: "send", role: .client)
        let server = try DescribedParty(description: described, conversation: "send", role: .server, privateKeys: ["server": serverKey])
        try client.receive(try server.nextMessage()!)
        guard case let .bytes(wrapped)? = try client.nextMessage() else { return XCTFail("no key message") }
        let text = try serverKey.decrypt(wrapped, padding: .oaepSHA256)
        XCTAssertEqual(text.count, 44)
        XCTAssertTrue(String(decoding: text, as: UTF8.self).hasSuffix("="))
        try server.receive(.bytes(wrapped))
        XCTAssertNil(try runDescribed(client, server))
        XCTAssertTrue(server.isDone)
        XCTAssertNotNil(server.received["message"])

        // The same key without its padding is refused: the reader is strict.
        let unpadded = try serverKey.publicKey.encrypt(Data(String(decoding: text, as: UTF8.self).dropLast().utf8), padding: .oaepSHA256)
        let server2 = try DescribedParty(description: described, conversation: "send", role: .server, privateKeys: ["server": serverKey])
        _ = try server2.nextMessage()
        XCTAssertThrowsError(try server2.receive(.bytes(unpadded))) { error in
            XCTAssertEqual((error as? DescribedRefusal)?.reason, "the carried secret session is not base64url-padded")
        }
    }

    func testCarriesAs_onlyWithACarriedSecret() throws {
        let wrong = Self.carriedText.replacingOccurrences(of: #"carries = "message" }"#, with: #"carries = "message", carries_as = "hex" }"#)
        XCTAssertThrowsError(try description(wrong)) { error in
            XCTAssertTrue("\(error)".contains("conversation[1].step[3].send.carries_as"), "\(error)")
            XCTAssertTrue("\(error)".contains("it goes with `carries = \"secret:NAME\"` only"), "\(error)")
        }
    }
}
