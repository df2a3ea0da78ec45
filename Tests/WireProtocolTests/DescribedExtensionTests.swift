import Foundation
import XCTest
@testable import WireProtocol
import WireCrypto
import StrictFormats

/// The shape most of this file's tests share.
private extension XCTestCase {
    /// One conversation both ways through a client and a server party of `described`, both holding
    /// `secrets`: the server must open `sent` from the client's first message, and the client must
    /// take the server's answer and be done. Returns that first message, for the caller to look into.
    @discardableResult
    func bothWays(_ described: ProtocolDescription, _ conversation: String, secrets: [String: Data], sent: Data,
                  _ label: String = "", file: StaticString = #filePath, line: UInt = #line) throws -> DescribedMessage {
        let client = try DescribedParty(description: described, conversation: conversation, role: .client, secrets: secrets, message: sent)
        let server = try DescribedParty(description: described, conversation: nil, role: .server, secrets: secrets)
        let message = try XCTUnwrap(try client.nextMessage(), label, file: file, line: line)
        try server.receive(message)
        XCTAssertEqual(server.received["message"], sent, label, file: file, line: line)
        try client.receive(try XCTUnwrap(try server.nextMessage(), label, file: file, line: line))
        XCTAssertTrue(client.isDone, label, file: file, line: line)
        return message
    }
}

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
        let fresh = DescribedParty.freshSecret(try XCTUnwrap(described.secrets["psk"]), in: described)
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

/// A sensor's JSON reading sealed to a server that answers a sealed constant (TiagoOliveiraSantos'
/// shape), and a bare ChaCha20 reading served as latin-1 text (Michael-Jimenez-C's).
final class DescribedReadingTests: XCTestCase {
    static let reading = """
    name = "fernet-reading"
    [transport]
    kind = "tcp"
    framing = "legacy"
    [secrets.psk]
    made_by = "preshared"
    bytes = 32
    [[conversation]]
    name = "report"
    [[conversation.step]]
    from = "client"
    send = { sealed = "psk", cipher = "fernet", carries = "json-fields", fields = { temperatura = "number", umidade = "integer" } }
    [[conversation.step]]
    from = "server"
    send = { sealed = "psk", cipher = "fernet", carries = "text:Dados registrados com sucesso" }
    then = "close"
    """

    func testJSONFieldsAndAConstantAnswer_bothWays_andWhatIsMissingIsRefused() throws {
        let described = try ProtocolDescription(toml: Self.reading)
        let psk = secureRandomBytes(32)
        let client = try DescribedParty(description: described, conversation: "report", role: .client, secrets: ["psk": psk])
        let server = try DescribedParty(description: described, conversation: "report", role: .server, secrets: ["psk": psk])
        XCTAssertNil(try runDescribed(client, server))
        XCTAssertTrue(client.isDone && server.isDone)
        let reading = try XCTUnwrap(server.received["message"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: reading) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["temperatura", "umidade"])

        let key = psk
        func token(_ text: String) throws -> DescribedMessage { .bytes(try Fernet.token(Data(text.utf8), key: key)) }
        let strict = try DescribedParty(description: described, conversation: "report", role: .server, secrets: ["psk": psk])
        XCTAssertThrowsError(try strict.receive(try token(#"{"temperatura": 21.5, "umidade": 40.5}"#))) { error in
            XCTAssertEqual((error as? DescribedRefusal)?.reason, #"the JSON plaintext has no integer field "umidade""#)
        }
        let answered = try DescribedParty(description: described, conversation: "report", role: .client, secrets: ["psk": psk])
        _ = try answered.nextMessage()
        XCTAssertThrowsError(try answered.receive(try token("Dados registrados"))) { error in
            XCTAssertTrue((error as? DescribedRefusal)?.reason.hasPrefix(#"the plaintext is not the stated text "Dados registrados com sucesso""#) ?? false, "\(error)")
        }
    }

    func testFieldsOnlyWithJSONFields() throws {
        let wrong = Self.reading.replacingOccurrences(of: #"carries = "json-fields""#, with: #"carries = "message""#)
        XCTAssertThrowsError(try ProtocolDescription(toml: wrong)) { error in
            XCTAssertTrue("\(error)".contains("conversation[1].step[1].send.fields"), "\(error)")
        }
        let badType = Self.reading.replacingOccurrences(of: #"umidade = "integer""#, with: #"umidade = "float""#)
        XCTAssertThrowsError(try ProtocolDescription(toml: badType)) { error in
            XCTAssertTrue("\(error)".contains("fields.umidade"), "\(error)")
        }
    }

    /// Tests/Descriptions/chacha20-latin1.toml.
    static let chacha = DescriptionFixture.text("chacha20-latin1")

    func testChaCha20WithoutATag_servedAsLatin1Text_matchesOpenSSLsStream() throws {
        let described = try ProtocolDescription(toml: Self.chacha)
        XCTAssertTrue(described.weaknesses.contains { $0.contains("a fixed IV") })
        let key = Data((0..<32).map { UInt8($0) })
        let client = try DescribedParty(description: described, conversation: "encrypted", role: .client, secrets: ["k": key])
        let server = try DescribedParty(description: described, conversation: "encrypted", role: .server, secrets: ["k": key])
        try server.receive(try client.nextMessage()!)
        guard case let .response(_, _, body)? = try server.nextMessage() else { return XCTFail("no response") }
        // The body is UTF-8 text of one character per ciphertext byte; the stream is RFC 8439's.
        let text = try XCTUnwrap(String(data: body, encoding: .utf8))
        let ciphertext = Data(text.unicodeScalars.map { UInt8($0.value) })
        let iv = Data(hexString: "00000000000000006f110e6600f9d90a")!
        let plaintext = try ChaCha20Unauthenticated.apply(ciphertext, key: key, iv: iv)
        XCTAssertTrue(String(decoding: plaintext, as: UTF8.self).hasPrefix("crosscheck reading "))
        try client.receive(.response(status: 200, headers: [:], body: body))
        XCTAssertEqual(client.received["message"], plaintext)
        // Text with a character over U+00FF is no latin-1 ciphertext.
        let other = try DescribedParty(description: described, conversation: "encrypted", role: .client, secrets: ["k": key])
        _ = try other.nextMessage()
        XCTAssertThrowsError(try other.receive(.response(status: 200, headers: [:], body: Data("\u{263A}".utf8))))
    }

    /// redbal/quick-scripts' shape: a constant sealed under AES-GCM with an 80-byte fixed nonce (the
    /// ASCII hex of base64 of text made from "localhost") and the tag dropped, answering a GET.
    static let gcmNoTag = """
    name = "gcm-no-tag"
    [transport]
    kind = "https"
    [secrets.k]
    made_by = "preshared"
    bytes = 16
    [[conversation]]
    name = "the-answer"
    [[conversation.step]]
    from = "client"
    request = "GET /"
    [[conversation.step]]
    from = "server"
    body = { sealed = "k", cipher = "aes-gcm", iv = "fixed:\(redbalNonce.hexString)", tag = "none", carries = "text:The answer is no", encoding = "base64" }
    """
    static let redbalNonce = Data("64484e76614778685932397364484e766148527a62327876593246736147397a6447787659324673".utf8)

    /// The ciphertext and tag PyCryptodome's `AES.new(b"Sixteen byte key", AES.MODE_GCM, nonce=…)
    /// .encrypt_and_digest(b"The answer is no")` gives (printed by the redbal server at start-up):
    /// an implementation crosscheck did not write.
    func testGCMWithoutItsTag_andAn80ByteNonce_matchesPyCryptodome() throws {
        let described = try ProtocolDescription(toml: Self.gcmNoTag)
        let key = Data("Sixteen byte key".utf8)
        let server = try DescribedParty(description: described, conversation: "the-answer", role: .server, secrets: ["k": key])
        let client = try DescribedParty(description: described, conversation: "the-answer", role: .client, secrets: ["k": key])
        try server.receive(try client.nextMessage()!)
        guard case let .response(_, _, body)? = try server.nextMessage() else { return XCTFail("no response") }
        XCTAssertEqual(Data(base64Encoded: body)?.hexString, "77818ffad32d68f64fbeca8071bc1468", "no tag after the 16 ciphertext bytes")
        try client.receive(.response(status: 200, headers: [:], body: body))
        // With the tag, SP 800-38D's GHASH-derived J0 gives PyCryptodome's tag too.
        let sealed = try GCMLongNonce.seal(key: [UInt8](key), nonce: [UInt8](Self.redbalNonce), plaintext: [UInt8]("The answer is no".utf8), aad: [])
        XCTAssertEqual(Data(sealed.tag).hexString, "406970556b29a4b5f307762db6034ccb")
        // Nothing authenticates it: a flipped bit opens to another text, which `text:` refuses.
        var flipped = Data(base64Encoded: body)!
        flipped[0] ^= 0x01
        let other = try DescribedParty(description: described, conversation: "the-answer", role: .client, secrets: ["k": key])
        _ = try other.nextMessage()
        XCTAssertThrowsError(try other.receive(.response(status: 200, headers: [:], body: Data(flipped.base64EncodedString().utf8)))) { error in
            XCTAssertTrue("\(error)".contains("The answer is no"), "\(error)")
        }
    }

    func testTagNone_isForAESGCMOnly_andAFixedGCMNonceIs8To128Bytes() throws {
        let chacha = Self.gcmNoTag.replacingOccurrences(of: #"cipher = "aes-gcm""#, with: #"cipher = "chacha20-poly1305""#)
            .replacingOccurrences(of: "bytes = 16", with: "bytes = 32").replacingOccurrences(of: Self.redbalNonce.hexString, with: String(repeating: "ab", count: 12))
        XCTAssertThrowsError(try ProtocolDescription(toml: chacha)) { error in
            XCTAssertTrue("\(error)".contains("aes-gcm only"), "\(error)")
        }
        for (count, allowed) in [(7, false), (8, true), (128, true), (129, false)] {
            let toml = Self.gcmNoTag.replacingOccurrences(of: Self.redbalNonce.hexString, with: String(repeating: "ab", count: count))
            if allowed { XCTAssertNoThrow(try ProtocolDescription(toml: toml), "\(count)") } else {
                XCTAssertThrowsError(try ProtocolDescription(toml: toml), "\(count)") { error in
                    XCTAssertTrue("\(error)".contains("8 to 128 bytes"), "\(error)")
                }
            }
        }
        // A fixed nonce of 16 bytes with the tag kept: sealed and opened, and a flipped tag refused.
        let tagged = Self.gcmNoTag.replacingOccurrences(of: #", tag = "none""#, with: "")
            .replacingOccurrences(of: Self.redbalNonce.hexString, with: String(repeating: "5a", count: 16))
        let described = try ProtocolDescription(toml: tagged)
        let key = secureRandomBytes(16)
        let server = try DescribedParty(description: described, conversation: "the-answer", role: .server, secrets: ["k": key])
        let client = try DescribedParty(description: described, conversation: "the-answer", role: .client, secrets: ["k": key])
        try server.receive(try client.nextMessage()!)
        guard case let .response(_, _, body)? = try server.nextMessage() else { return XCTFail("no response") }
        var bytes = Data(base64Encoded: body)!
        XCTAssertEqual(bytes.count, 16 + 16)
        bytes[bytes.endIndex - 1] ^= 0x80
        let other = try DescribedParty(description: described, conversation: "the-answer", role: .client, secrets: ["k": key])
        _ = try other.nextMessage()
        XCTAssertThrowsError(try other.receive(.response(status: 200, headers: [:], body: Data(bytes.base64EncodedString().utf8))))
        try client.receive(.response(status: 200, headers: [:], body: body))
    }

    /// arthuravianna/uff-web3-course's cipher server: Salsa20 (no MAC) under a preshared 16-byte key,
    /// its 8-byte nonce in a JSON field.
    /// Tests/Descriptions/salsa20-json-nonce.toml.
    static let salsa = DescriptionFixture.text("salsa20-json-nonce")

    func testSalsa20InAJSONField_bothWays_theStreamIsSalsa20s_andAKeyOf24BytesIsRefused() throws {
        let described = try ProtocolDescription(toml: Self.salsa)
        let key = Data("0123456789012345".utf8)
        let sent = Data("crosscheck salsa20 été".utf8)
        let request = try bothWays(described, "message", secrets: ["k": key], sent: sent)
        guard case let .request(_, _, _, body) = request, case let .object(fields)? = try? StrictJSON.parse(body),
              let nonce = fields["nonce"]?.stringValue.flatMap({ Data(base64Encoded: $0) }),
              let ciphertext = fields["message"]?.stringValue.flatMap({ Data(base64Encoded: $0) }) else { return XCTFail("not the JSON request: \(request)") }
        XCTAssertEqual(nonce.count, 8)
        XCTAssertEqual(try Salsa20.apply(ciphertext, key: key, nonce: nonce), sent)  // Salsa20Tests hold it to eSTREAM's vectors
        let wide = Self.salsa.replacingOccurrences(of: "bytes = 16", with: "bytes = 24")
        XCTAssertThrowsError(try ProtocolDescription(toml: wide)) { error in
            XCTAssertTrue("\(error)".contains("16- or 32-byte key"), "\(error)")
        }
        let fixed = Self.salsa.replacingOccurrences(of: #"iv = "field:nonce""#, with: #"iv = "fixed:0001020304050607""#)
            .replacingOccurrences(of: #", nonce = { nonce_of = "message", encoding = "base64" }"#, with: "")
        XCTAssertTrue(try ProtocolDescription(toml: fixed).weaknesses.contains { $0.contains("same keystream") })
    }

    /// AES-CFB with 128-bit and 8-bit segments, held to SP 800-38A's own examples (F.3.13 CFB128-AES128,
    /// F.3.7 CFB8-AES128): the same key and IV give the same first byte and then differ, as a
    /// PyCryptodome server's MODE_CFB (8-bit by default) and an iOS client's kCCModeCFB (128) do.
    /// Each both ways through a party, a refused IV length, and no MAC said.
    func testAESCFB_andCFB8_areSP800_38As_bothWays_andTellEachOtherApart() throws {
        let key = Data(hexString: "2b7e151628aed2a6abf7158809cf4f3c")!
        let iv = Data(hexString: "000102030405060708090a0b0c0d0e0f")!
        let plaintext = Data(hexString: "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51")!
        let cfb128 = try DescribedCipher.seal(plaintext, cipher: .aesCFB, padding: .pkcs7, key: key, iv: iv)
        XCTAssertEqual(cfb128.ciphertext, Data(hexString: "3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b")!)  // F.3.13
        let cfb8 = try DescribedCipher.seal(plaintext.prefix(18), cipher: .aesCFB8, padding: .pkcs7, key: key, iv: iv)
        XCTAssertEqual(cfb8.ciphertext, Data(hexString: "3b79424c9c0dd436bace9e0ed4586a4f32b9")!)  // F.3.7
        for cipher in [SealedCipher.aesCFB, .aesCFB8] {
            let sealed = try DescribedCipher.seal(plaintext.prefix(21), cipher: cipher, padding: .pkcs7, key: key, iv: iv)
            XCTAssertEqual(sealed.ciphertext.count, 21, "no padding")
            XCTAssertEqual(try DescribedCipher.open(sealed.ciphertext, cipher: cipher, padding: .pkcs7, key: key, iv: iv, tag: Data()), plaintext.prefix(21))
            XCTAssertThrowsError(try DescribedCipher.open(sealed.ciphertext, cipher: cipher, padding: .pkcs7, key: key, iv: iv.prefix(12), tag: Data()))
        }
        let mixed = try DescribedCipher.open(cfb128.ciphertext, cipher: .aesCFB8, padding: .pkcs7, key: key, iv: iv, tag: Data())
        XCTAssertEqual(mixed.first, plaintext.first, "the first byte agrees")
        XCTAssertNotEqual(mixed.dropFirst(), plaintext.dropFirst(), "the rest does not")

        let toml = DescriptionFixture.text("cfb8-line")
        let sent = Data("21.5 C, 40 % RH".utf8)
        for cipher in ["aes-cfb8", "aes-cfb"] {
            let described = try ProtocolDescription(toml: toml.replacingOccurrences(of: "aes-cfb8", with: cipher))
            let message = try bothWays(described, "reading", secrets: ["k": key], sent: sent, cipher)
            guard case let .bytes(line) = message, let raw = Data(base64Encoded: line) else { return XCTFail("not base64: \(message)") }
            XCTAssertEqual(raw.count, 16 + sent.count, "\(cipher): IV, then as many bytes as the message")
            let fixedIV = try ProtocolDescription(toml: toml.replacingOccurrences(of: "aes-cfb8", with: cipher)
                .replacingOccurrences(of: #"iv = "prefix""#, with: #"iv = "fixed:000102030405060708090a0b0c0d0e0f""#))
            XCTAssertTrue(fixedIV.weaknesses.contains { $0.contains("for \(cipher) the same first keystream segment") }, "\(fixedIV.weaknesses)")
        }
        XCTAssertThrowsError(try ProtocolDescription(toml: toml.replacingOccurrences(of: #"cipher = "aes-cfb8", iv = "prefix", carries = "message""#,
                                                                       with: #"cipher = "aes-cfb8", padding = "pkcs7", iv = "prefix", carries = "message""#))) { error in
            XCTAssertTrue("\(error)".contains("`padding` is for aes-cbc and aes-ecb only"), "\(error)")
        }
    }

    /// AES-EAX (PyCryptodome's MODE_EAX) in JSON fields, as PyCryptodome's own documentation writes
    /// nonce, ciphertext and tag: both ways through the parties (WireCrypto's AESEAX is held to the
    /// EAX paper's vectors in AESEAXTests), a changed tag refused as an authentication failure.
    func testAESEAXInJSONFields_bothWays_andAChangedTagIsAnAuthenticationRefusal() throws {
        let toml = """
        name = "eax-json"
        [transport]
        kind = "http"
        [secrets.k]
        made_by = "preshared"
        bytes = 16
        [[conversation]]
        name = "reading"
        error_status = 400
        [[conversation.step]]
        from = "client"
        request = "POST /reading"
        body = { json = { ciphertext = { sealed = "k", cipher = "aes-eax", iv = "field:nonce", tag = "field:tag", carries = "message", encoding = "base64" }, nonce = { nonce_of = "ciphertext", encoding = "base64" }, tag = { tag_of = "ciphertext", encoding = "base64" } } }
        [[conversation.step]]
        from = "server"
        body = { json = { message = { sealed = "k", cipher = "aes-eax", iv = "prefix", carries = "same", encoding = "base64" } } }
        """
        let described = try ProtocolDescription(toml: toml)
        let key = Data(0..<16)
        let sent = Data("crosscheck eax été".utf8)
        let request = try bothWays(described, "reading", secrets: ["k": key], sent: sent)
        guard case let .request(method, path, headers, body) = request, case let .object(fields)? = try? StrictJSON.parse(body),
              let nonce = fields["nonce"]?.stringValue.flatMap({ Data(base64Encoded: $0) }),
              let tag = fields["tag"]?.stringValue.flatMap({ Data(base64Encoded: $0) }),
              let ciphertext = fields["ciphertext"]?.stringValue.flatMap({ Data(base64Encoded: $0) }) else { return XCTFail("not the JSON request: \(request)") }
        XCTAssertEqual([nonce.count, tag.count, ciphertext.count], [16, 16, sent.count])
        XCTAssertEqual(try AESEAX.open(ciphertext, key: key, nonce: nonce, tag: tag), sent)

        var changed = tag
        changed[0] ^= 1
        let forged = String(decoding: body, as: UTF8.self).replacingOccurrences(of: tag.base64EncodedString(), with: changed.base64EncodedString())
        let other = try DescribedParty(description: described, conversation: nil, role: .server, secrets: ["k": key])
        XCTAssertThrowsError(try other.receive(.request(method: method, path: path, headers: headers, body: Data(forged.utf8)))) { error in
            XCTAssertEqual((error as? DescribedRefusal)?.kind, .authentication, "\(error)")
        }
    }

    /// `tag = "before"`: nonce ‖ tag ‖ ciphertext, the order PyCryptodome's documentation writes them
    /// in, for each AEAD, both ways; a value cut short of its tag is refused.
    func testATagBeforeTheCiphertext_isNonceTagCiphertext_bothWays() throws {
        for (cipher, size) in [("aes-eax", 16), ("aes-gcm", 16), ("chacha20-poly1305", 32)] {
            let toml = """
            name = "tag-before"
            [transport]
            kind = "tcp"
            framing = "length-prefix"
            [secrets.k]
            made_by = "preshared"
            bytes = \(size)
            [[conversation]]
            name = "echo"
            [[conversation.step]]
            from = "client"
            send = { sealed = "k", cipher = "\(cipher)", iv = "prefix", tag = "before", carries = "message" }
            [[conversation.step]]
            from = "server"
            send = { sealed = "k", cipher = "\(cipher)", iv = "prefix", tag = "before", carries = "same" }
            """
            let described = try ProtocolDescription(toml: toml)
            let key = Data(repeating: 7, count: size), sent = Data("crosscheck tag before".utf8)
            let message = try bothWays(described, "echo", secrets: ["k": key], sent: sent, cipher)
            guard case let .bytes(raw) = message else { return XCTFail("\(message)") }
            let nonceBytes = cipher == "aes-eax" ? 16 : 12
            XCTAssertEqual(raw.count, nonceBytes + 16 + sent.count, cipher)
            if cipher == "aes-eax" {
                XCTAssertEqual(try AESEAX.open(raw.dropFirst(32), key: key, nonce: raw.prefix(16), tag: raw.dropFirst(16).prefix(16)), sent)
            }
            let short = try DescribedParty(description: described, conversation: nil, role: .server, secrets: ["k": key])
            XCTAssertThrowsError(try short.receive(.bytes(raw.prefix(nonceBytes + 15))), cipher)
        }
    }

    /// Giridharaprasath/EncryptAndDecrypt's Salsa20 server: the key in the clear, the client's nonce
    /// as a message of its own (`iv = "secret:nonce"`), then the ciphertext.
    /// Tests/Descriptions/salsa20-nonce-alone.toml.
    static let nonceAlone = DescriptionFixture.text("salsa20-nonce-alone")

    func testANonceSentAlone_isTheNextCiphertextsIV_andTheReaderHoldsItToTheIVLength() throws {
        let described = try ProtocolDescription(toml: Self.nonceAlone)
        let sent = Data("crosscheck nonce alone".utf8)
        let client = try DescribedParty(description: described, conversation: "text", role: .client, message: sent)
        let server = try DescribedParty(description: described, conversation: nil, role: .server)
        guard case let .bytes(key)? = try server.nextMessage() else { return XCTFail("no key") }
        XCTAssertEqual(key.count, 32)
        try client.receive(.bytes(key))
        guard case let .bytes(nonce)? = try client.nextMessage() else { return XCTFail("no nonce") }
        XCTAssertEqual(nonce.count, 8)
        try server.receive(.bytes(nonce))
        guard case let .bytes(ciphertext)? = try client.nextMessage() else { return XCTFail("no ciphertext") }
        XCTAssertEqual(try Salsa20.apply(ciphertext, key: key, nonce: nonce), sent)
        try server.receive(.bytes(ciphertext))
        XCTAssertEqual(server.received["message"], sent)
        XCTAssertFalse(described.weaknesses.contains { $0.contains("IV") })

        func refused(_ toml: String, _ words: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertThrowsError(try ProtocolDescription(toml: toml), file: file, line: line) { error in
                XCTAssertTrue("\(error)".contains(words), "\(error)", file: file, line: line)
            }
        }
        refused(Self.nonceAlone.replacingOccurrences(of: "bytes = 8", with: "bytes = 12"), "needs a secret of the cipher's IV length (8 bytes")
        refused(Self.nonceAlone.replacingOccurrences(of: "bytes = 8", with: "bytes = 10"), "bytes")
        refused(Self.nonceAlone.replacingOccurrences(of: #"send = { secret = "nonce" }"#, with: #"send = { text = "hi" }"#), "which the server does not know yet")
        refused(Self.nonceAlone.replacingOccurrences(of: #"sealed = "k""#, with: #"sealed = "nonce""#), "is a nonce")
        // The key as the IV (a 16-byte AES-CBC key) and a preshared IV are weaknesses.
        let keyAsIV = Self.nonceAlone.replacingOccurrences(of: #"iv = "secret:nonce""#, with: #"iv = "secret:k""#)
            .replacingOccurrences(of: #"cipher = "salsa20""#, with: #"cipher = "aes-cbc""#).replacingOccurrences(of: "bytes = 32", with: "bytes = 16")
        XCTAssertTrue(try ProtocolDescription(toml: keyAsIV).weaknesses.contains { $0.contains("the IV is the key") })
        let preshared = Self.nonceAlone.replacingOccurrences(of: "made_by = \"client\"\nbytes = 8", with: "made_by = \"preshared\"\nbytes = 8")
        XCTAssertTrue(try ProtocolDescription(toml: preshared).weaknesses.contains { $0.contains("the IV is preshared secret nonce") })
    }

    /// Lock92/Cybersecurity-Sctipts: an IV alone, the message's length as one byte, then AES-CBC
    /// padded with 1 to 16 spaces (`data += " " * (16 - len(data) % 16)`).
    /// Tests/Descriptions/cbc-space-padded-length-byte.toml.
    static let spacePadded = DescriptionFixture.text("cbc-space-padded-length-byte")

    func testALengthByteAndSpacePadding_asTheSourceWritesThem_andAWrongLengthIsRefused() throws {
        let described = try ProtocolDescription(toml: Self.spacePadded)
        let key = Data("Sixteen byte key".utf8)
        for size in [15, 16, 17] {
            let sent = Data(repeating: 0x6d, count: size)
            let client = try DescribedParty(description: described, conversation: "text", role: .client, secrets: ["k": key], message: sent)
            let server = try DescribedParty(description: described, conversation: nil, role: .server, secrets: ["k": key])
            guard case let .bytes(iv)? = try client.nextMessage(), case let .bytes(length)? = try client.nextMessage(),
                  case let .bytes(ciphertext)? = try client.nextMessage() else { return XCTFail("three messages") }
            XCTAssertEqual(length, Data([UInt8(size)]))
            // The source's padding, encrypted by OpenSSL's CBC without padding of its own.
            let padded = sent + Data(repeating: 0x20, count: 16 - size % 16)
            XCTAssertEqual(ciphertext, Data(try AESBlockMode.cbc(iv: [UInt8](iv)).process(encrypt: true, key: [UInt8](key), input: [UInt8](padded))))
            for message in [iv, length, ciphertext] { try server.receive(.bytes(message)) }
            XCTAssertEqual(server.received["message"], sent)
        }
        let iv = Data(count: 16)
        let hello = Data(try AESBlockMode.cbc(iv: [UInt8](iv)).process(encrypt: true, key: [UInt8](key), input: [UInt8]("hello           ".utf8)))
        let server = try DescribedParty(description: described, conversation: nil, role: .server, secrets: ["k": key])
        try server.receive(.bytes(iv))
        try server.receive(.bytes(Data([6])))
        XCTAssertThrowsError(try server.receive(.bytes(hello))) { error in
            XCTAssertEqual((error as? DescribedRefusal)?.reason, "the length field says 6 bytes; the message has 5")
        }
        let noSpace = Data(try AESBlockMode.cbc(iv: [UInt8](iv)).process(encrypt: true, key: [UInt8](key), input: [UInt8]("hello world 1234".utf8)))
        let other = try DescribedParty(description: described, conversation: nil, role: .server, secrets: ["k": key])
        try other.receive(.bytes(iv))
        try other.receive(.bytes(Data([16])))
        XCTAssertThrowsError(try other.receive(.bytes(noSpace))) { error in
            XCTAssertEqual((error as? DescribedRefusal)?.kind, .padding)
        }
        XCTAssertThrowsError(try ProtocolDescription(toml: Self.spacePadded.replacingOccurrences(of: "bytes = 1 }", with: "bytes = 3 }")))
        XCTAssertThrowsError(try ProtocolDescription(toml: Self.spacePadded.replacingOccurrences(of: #"send = { length_of = "message", bytes = 1 }"#,
                                                                                                   with: #"send = { json = { n = { length_of = "message" } } }"#))) { error in
            XCTAssertTrue("\(error)".contains("cannot be a JSON field"), "\(error)")
        }
    }

    /// vitokhangnguyen/CBC-AES-MAC-Demo: a GET whose query carries a base64 IV, a base64 AES-CBC
    /// ciphertext padded 01 02 … n, and an AES-CMAC (hex) over the ciphertext's text.
    /// Tests/Descriptions/cbc-query-cmac.toml.
    static let queryCMAC = DescriptionFixture.text("cbc-query-cmac")

    func testAQueryStringWithACMACOverTheCiphertext_readByFoundation_andAChangedMACIsRefused() throws {
        let described = try ProtocolDescription(toml: Self.queryCMAC)
        let secrets = ["enc": Data("o9!zWW#anKpZJ(RT".utf8), "mac": Data("thxneXutL34RKSbe".utf8)]
        let sent = Data("crosscheck query".utf8)
        let client = try DescribedParty(description: described, conversation: "mac-decrypt", role: .client, secrets: secrets, message: sent)
        guard case let .request(method, path, _, body)? = try client.nextMessage() else { return XCTFail("no request") }
        XCTAssertEqual(method, "GET"); XCTAssertTrue(body.isEmpty)
        // Foundation's URL parser, not crosscheck's, reads the query.
        let items = try XCTUnwrap(URLComponents(string: "http://pi" + path)?.queryItems)
        XCTAssertEqual(items.map(\.name), ["iv", "encryptedMessage", "macTag"])
        let fields = Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
        let iv = try XCTUnwrap(Data(base64Encoded: fields["iv"]!)), ciphertext = try XCTUnwrap(Data(base64Encoded: fields["encryptedMessage"]!))
        let padded = Data(try AESBlockMode.cbc(iv: [UInt8](iv)).process(encrypt: false, key: [UInt8](secrets["enc"]!), input: [UInt8](ciphertext)))
        XCTAssertEqual(padded, sent + Data(1...16))
        XCTAssertEqual(fields["macTag"], try AESCMAC.authenticationCode(key: secrets["mac"]!, message: Data(fields["encryptedMessage"]!.utf8)).hexString)
        let server = try DescribedParty(description: described, conversation: nil, role: .server, secrets: secrets)
        try server.receive(.request(method: method, path: path, headers: [:], body: Data()))
        XCTAssertEqual(server.received["message"], sent)
        // requests' quote_plus writing ("+" a space, %2B a plus) reads the same; a changed MAC does not.
        var plusWritten = URLComponents(); plusWritten.queryItems = items
        let written = "/cbc-aes/mac-decrypt?" + (plusWritten.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        let other = try DescribedParty(description: described, conversation: nil, role: .server, secrets: secrets)
        try other.receive(.request(method: "GET", path: written, headers: [:], body: Data()))
        XCTAssertEqual(other.received["message"], sent)
        let tag = fields["macTag"]!
        let changed = path.replacingOccurrences(of: tag, with: (tag.first == "0" ? "1" : "0") + tag.dropFirst())
        let third = try DescribedParty(description: described, conversation: nil, role: .server, secrets: secrets)
        XCTAssertThrowsError(try third.receive(.request(method: "GET", path: changed, headers: [:], body: Data()))) { error in
            XCTAssertEqual((error as? DescribedRefusal)?.kind, .authentication)
        }
        XCTAssertThrowsError(try ProtocolDescription(toml: Self.queryCMAC.replacingOccurrences(of: #"algorithm = "cmac-aes", of = "encryptedMessage""#, with: #"algorithm = "cmac-aes", of = "nothing""#))) { error in
            XCTAssertTrue("\(error)".contains("names no sibling field"), "\(error)")
        }
        XCTAssertThrowsError(try ProtocolDescription(toml: Self.queryCMAC.replacingOccurrences(of: "query = { form = {", with: "query = { json = {")))
    }

    /// staugur/Python-SecureHTTP: an RSA-wrapped key and a ciphertext whose IV is that key, in one form.
    static let ivIsKey = """
    name = "iv-is-key"
    [transport]
    kind = "http"
    [keys.server]
    holder = "server"
    preshared = true
    [secrets.k]
    made_by = "client"
    bytes = 16
    [[conversation]]
    name = "post"
    [[conversation.step]]
    from = "client"
    request = "POST /"
    body = { form = { key = { rsa = "server", padding = "pkcs1", carries = "secret:k", encoding = "base64" }, value = { sealed = "k", cipher = "aes-cbc", iv = "secret:k", carries = "message", encoding = "base64" } } }
    [[conversation.step]]
    from = "server"
    body = { json = { data = { sealed = "k", cipher = "aes-cbc", iv = "secret:k", carries = "any-text", encoding = "base64" } } }
    """

    func testAnIVThatIsTheKey_arrivesWithTheWrappedKey_butANonceMustComeFirst() throws {
        let described = try ProtocolDescription(toml: Self.ivIsKey)
        XCTAssertTrue(described.weaknesses.contains { $0.contains("the IV is the key") })
        let serverKey = try RSAPrivateKey(bits: 2048)
        let sent = Data("crosscheck iv is key".utf8)
        let client = try DescribedParty(description: described, conversation: "post", role: .client, knownPublicKeys: ["server": serverKey.publicKey], message: sent)
        guard case let .request(method, path, headers, body)? = try client.nextMessage() else { return XCTFail("no request") }
        // Foundation reads the form; the IV is the key, read independently of the engine.
        let items = try XCTUnwrap(URLComponents(string: "http://pi/?" + String(decoding: body, as: UTF8.self))?.queryItems)
        let fields = Dictionary(uniqueKeysWithValues: items.map { ($0.name, ($0.value ?? "").replacingOccurrences(of: " ", with: "+")) })
        let key = try serverKey.decrypt(try XCTUnwrap(Data(base64Encoded: fields["key"] ?? "")), padding: ._WEAK_AND_INSECURE_PKCS_V1_5)
        XCTAssertEqual(key.count, 16)
        let padded = Data(try AESBlockMode.cbc(iv: [UInt8](key)).process(encrypt: false, key: [UInt8](key), input: [UInt8](try XCTUnwrap(Data(base64Encoded: fields["value"] ?? "")))))
        let pad = 16 - sent.count % 16
        XCTAssertEqual(padded, sent + Data(repeating: UInt8(pad), count: pad))
        let server = try DescribedParty(description: described, conversation: nil, role: .server, privateKeys: ["server": serverKey])
        try server.receive(.request(method: method, path: path, headers: headers, body: body))
        XCTAssertEqual(server.received["message"], sent)
        // Any other IV secret is a nonce, which must arrive before its ciphertext.
        let otherIV = Self.ivIsKey.replacingOccurrences(of: "[[conversation]]", with: "[secrets.n]\nmade_by = \"client\"\nbytes = 16\n[[conversation]]")
            .replacingOccurrences(of: #"value = { sealed = "k", cipher = "aes-cbc", iv = "secret:k""#, with: #"n = { secret = "n", encoding = "hex" }, value = { sealed = "k", cipher = "aes-cbc", iv = "secret:n""#)
        XCTAssertThrowsError(try ProtocolDescription(toml: otherIV)) { error in
            XCTAssertTrue("\(error)".contains("which the server does not know yet"), "\(error)")
        }
    }

    func testADecryptedMessageAnsweredInTheClear_isADecryptionOracle() throws {
        let service = """
        name = "decrypt-service"
        [transport]
        kind = "tcp"
        [keys.server]
        holder = "server"
        preshared = true
        [[conversation]]
        name = "decrypt"
        [[conversation.step]]
        from = "client"
        send = { rsa = "server", padding = "oaep-sha256", carries = "message" }
        [[conversation.step]]
        from = "server"
        send = { plain = "message" }
        """
        XCTAssertEqual(try ProtocolDescription(toml: service).weaknesses.filter { $0.contains("decryption oracle") },
                       ["conversation[1].step[2].send (line 14): the server answers in the clear the message the client sent encrypted: a decryption oracle (whoever replays a recorded ciphertext reads its plaintext)"])
        let echoed = service.replacingOccurrences(of: #"send = { rsa = "server", padding = "oaep-sha256", carries = "message" }"#, with: #"send = { plain = "message" }"#)
        XCTAssertTrue(try ProtocolDescription(toml: echoed).weaknesses.filter { $0.contains("decryption oracle") }.isEmpty)
    }

    /// What a second review found the readers disagreed on, or let through though it cannot work.
    func testDescriptionsThatCannotWork_areRefusedByKeyPath() throws {
        func refused(_ toml: String, _ path: String, _ words: String, line: UInt = #line) {
            XCTAssertThrowsError(try ProtocolDescription(toml: toml), line: line) { error in
                XCTAssertTrue("\(error)".contains(path) && "\(error)".contains(words), "\(error)", line: line)
            }
        }
        refused(Self.queryCMAC.replacingOccurrences(of: #"request = "GET /cbc-aes/mac-decrypt""#, with: #"request = "GET /cbc-aes/mac-decrypt?x=1""#),
                "step[1].request", "the path has a query")
        refused(Self.queryCMAC.replacingOccurrences(of: #"of = "encryptedMessage", encoding = "hex""#, with: #"of = "encryptedMessage", encoding = "latin1""#),
                "macTag", "a MAC is written as hex, base64 or base64url")
        refused(Self.queryCMAC.replacingOccurrences(of: "query = { form = { iv", with: "headers = { X = { form = { a = { text = \"b\" } } } }\nquery = { form = { iv"),
                "headers.X", "form")
        refused(Self.spacePadded.replacingOccurrences(of: #"carries = "message" }"#, with: #"carries = "any-text" }"#),
                "step[2].send", "states the length of the conversation's message")
        refused(Self.spacePadded.replacingOccurrences(of: "name = \"text\"", with: "name = \"text\"\nmessage = \"\(String(repeating: "m", count: 256))\""),
                "step[2].send", "more than a 1-byte length field holds")
        refused(Self.spacePadded.replacingOccurrences(of: "name = \"text\"", with: "name = \"text\"\nmessage = \"ends in a space \""),
                "step[3].send", "which space padding strips")
        refused(Self.nonceAlone.replacingOccurrences(of: #"send = { secret = "nonce" }"#, with: #"send = { text = "n" }"#)
                    .replacingOccurrences(of: #"send = { sealed = "k", cipher = "salsa20", iv = "secret:nonce", carries = "message" }"#,
                                          with: #"send = { concat = [ { secret = "nonce" }, { sealed = "k", cipher = "salsa20", iv = "secret:nonce" } ] }"#),
                "concat[2]", "which the server does not know yet")
        XCTAssertTrue(try ProtocolDescription(toml: Self.queryCMAC).weaknesses.contains { $0.contains("not its IV in field iv") })
    }

    /// Form fields as Python's parse_qsl (Flask's request.args) reads them.
    func testFormEscapes_readAsParseQslReadsThem() {
        XCTAssertEqual(DescribedBytes.formFields(Data("a=%+f&b=%zz&c=%4&d=%41%2B+&e".utf8)), ["a": "% f", "b": "%zz", "c": "%4", "d": "A+ ", "e": ""])
        XCTAssertEqual(DescribedBytes.formFields(Data("a=\u{301}&b=u".utf8)), ["a": "\u{301}", "b": "u"])  // a combining mark after "="
        for bad in ["a=1&a=2", "a=%ff"] { XCTAssertNil(DescribedBytes.formFields(Data(bad.utf8)), bad) }
        XCTAssertNil(DescribedBytes.formFields(Data([0xff, 0x3d, 0x31])))
    }

    /// Hex in either case is read (RFC 4648 §8: base16 is case-insensitive; `%02X` writes capitals),
    /// and written lowercase; what is not hex, or is of odd length, is refused.
    func testHex_readInEitherCase() throws {
        XCTAssertEqual(try DescribedBytes.decode(Data("0A0b".utf8), .hex, what: "x"), Data([0x0a, 0x0b]))
        XCTAssertEqual(DescribedBytes.encode(Data([0xab]), .hex), Data("ab".utf8))
        for bad in ["0g", "abc", "0x0a"] { XCTAssertThrowsError(try DescribedBytes.decode(Data(bad.utf8), .hex, what: "x"), bad) }
    }

    /// RFC 8439 §2.4.2's test vector through the bare stream: counter 1, the sunscreen text.
    func testChaCha20Unauthenticated_RFC8439Vector() throws {
        let key = Data((0..<32).map { UInt8($0) })
        let iv = Data([1, 0, 0, 0]) + Data(hexString: "000000000000004a00000000")!
        let plaintext = Data("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let ciphertext = try ChaCha20Unauthenticated.apply(plaintext, key: key, iv: iv)
        XCTAssertEqual(ciphertext.prefix(16).hexString, "6e2e359a2568f98041ba0728dd0d6981")
        XCTAssertEqual(try ChaCha20Unauthenticated.apply(ciphertext, key: key, iv: iv), plaintext)
    }
}

/// A refusal answered by its kind (`errors`): paste-bin/challenges' pudel answers "len" to a
/// ciphertext that is not whole blocks and "bad" to a bad padding.
final class DescribedErrorsTests: XCTestCase {
    static let pudel = """
    name = "pudel"
    [transport]
    kind = "tcp"
    framing = "legacy"
    [secrets.psk]
    made_by = "preshared"
    bytes = 16
    [[conversation]]
    name = "upload"
    error = { text = "bad\\n" }
    errors = { length = { text = "len\\n" }, authentication = { text = "auth\\n" } }
    [[conversation.step]]
    from = "client"
    send = { sealed = "psk", cipher = "aes-cbc", padding = "pkcs7", iv = "prefix", carries = "message" }
    [[conversation.step]]
    from = "server"
    send = { text = "kthx\\n" }
    then = "close"
    """

    func refusal(_ bytes: Data, psk: Data) throws -> (DescribedRefusal?, Data?) {
        let server = try DescribedParty(description: try ProtocolDescription(toml: Self.pudel), conversation: "upload", role: .server, secrets: ["psk": psk])
        do { try server.receive(.bytes(bytes)) } catch let refusal as DescribedRefusal {
            guard case let .bytes(answer)? = server.refusalMessage() else { return (refusal, nil) }
            return (refusal, answer)
        }
        return (nil, nil)
    }

    func testEachRefusalKindGetsItsAnswer_andTheRestTheError() throws {
        let psk = secureRandomBytes(16)
        let iv = secureRandomBytes(16)
        let good = iv + (try AESCBC.encrypt(Data("hello".utf8), key: psk, iv: iv))
        let (none, _) = try refusal(good, psk: psk)
        XCTAssertNil(none)
        let (short, shortAnswer) = try refusal(good.dropLast(), psk: psk)
        XCTAssertEqual(short?.kind, .length)
        XCTAssertEqual(shortAnswer, Data("len\n".utf8))
        // Whole blocks that decrypt to a last byte of 00: no PKCS#7 padding.
        let blocks = Data(try AESBlockMode.cbc(iv: [UInt8](iv)).process(encrypt: true, key: [UInt8](psk), input: [UInt8](Data(repeating: 0x41, count: 15) + Data([0]))))
        let (padding, paddingAnswer) = try refusal(iv + blocks, psk: psk)
        XCTAssertEqual(padding?.kind, .padding)
        XCTAssertEqual(paddingAnswer, Data("bad\n".utf8))
    }

    func testErrorsKeysAreTheKinds_andTCPOnly() throws {
        XCTAssertThrowsError(try ProtocolDescription(toml: Self.pudel.replacingOccurrences(of: "length = {", with: "size = {"))) { error in
            XCTAssertTrue("\(error)".contains("conversation[1].errors.size"), "\(error)")
            XCTAssertTrue("\(error)".contains("length"), "\(error)")
        }
    }
}

/// framing = "close" (adibhaider/Python-Client-Server): a message ends when its sender closes its side.
final class DescribedCloseFramingTests: XCTestCase {
    static let oneShot = """
    name = "one-shot"
    [transport]
    kind = "tcp"
    framing = "close"
    [secrets.key]
    made_by = "preshared"
    bytes = 32
    [[conversation]]
    name = "send"
    [[conversation.step]]
    from = "client"
    send = { sealed = "key", cipher = "fernet", carries = "message" }
    """

    /// The stop-49 review: a CRLF line of exactly max_message bytes holds max_message + 1 bytes
    /// before its "\n" arrives, and is taken; one more byte with no line end can never fit.
    func testALineOfMaxMessageBytesWhoseCRLFArrivesSplit_isTaken() throws {
        let framing = DescribedFraming(transport: ProtocolDescription.Transport(kind: .tcp, framing: .line, lengthBytes: 4, lineEnd: "\r\n", maxMessage: 8, port: nil))
        var decoder = framing.decoder()
        decoder.append(Data(repeating: 0x41, count: 8) + Data([0x0d]))
        XCTAssertNil(try decoder.next(expectedLength: nil))
        decoder.append(Data([0x0a]))
        XCTAssertEqual(try decoder.next(expectedLength: nil), Data(repeating: 0x41, count: 8))
        var over = framing.decoder()
        over.append(Data(repeating: 0x41, count: 10))
        XCTAssertThrowsError(try over.next(expectedLength: nil))
    }

    func testOnlyTheEndOfTheStreamEndsAMessage() throws {
        let framing = DescribedFraming(transport: try ProtocolDescription(toml: Self.oneShot).transport)
        XCTAssertEqual(try framing.encode(Data("abc".utf8)), Data("abc".utf8))
        var decoder = framing.decoder()
        decoder.append(Data("ab".utf8))
        XCTAssertNil(try decoder.next(expectedLength: 2), "a known length does not end it")
        XCTAssertNil(decoder.quietGap(), "nor does a pause")
        decoder.append(Data("c".utf8))
        XCTAssertEqual(decoder.endOfStream(), Data("abc".utf8))
    }

    func testASideSendsAtMostOneMessage() throws {
        let twice = Self.oneShot + "\n[[conversation.step]]\nfrom = \"client\"\nsend = { text = \"again\" }\n"
        XCTAssertThrowsError(try ProtocolDescription(toml: twice)) { error in
            XCTAssertTrue("\(error)".contains("conversation[1].step[2]"), "\(error)")
            XCTAssertTrue("\(error)".contains("sends at most one message"), "\(error)")
        }
    }
}
