import Foundation
import XCTest
@testable import WireProtocol
import WireCrypto

/// Runs a described client against a described server in memory, message by message; `tamper`
/// may change any message on its way. Returns the refusal that ended it, if one did.
@discardableResult
func runDescribed(_ client: DescribedParty, _ server: DescribedParty,
                  tamper: (DescribedMessage, ProtocolDescription.Role) -> DescribedMessage = { message, _ in message }) throws -> DescribedRefusal? {
    for _ in 0..<100 {
        if let message = try client.nextMessage() {
            do { try server.receive(tamper(message, .client)) } catch let refusal as DescribedRefusal { return refusal }
        } else if let message = try server.nextMessage() {
            do { try client.receive(tamper(message, .server)) } catch let refusal as DescribedRefusal { return refusal }
        } else {
            break
        }
    }
    return nil
}

enum DescribedFixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let serverKey = try! RSAPrivateKey(bits: 1024)
    static let clientKey = try! RSAPrivateKey(bits: 1024)
    static let config = ["username": "alice", "password": "wonderland"]

    static func seed(_ name: String) throws -> ProtocolDescription {
        try ProtocolDescription(contentsOfFile: root.appendingPathComponent("protocols/\(name).toml").path)
    }

    static func parties(_ description: ProtocolDescription, _ conversation: String, serverPicks: Bool = false,
                        message: Data? = nil) throws -> (client: DescribedParty, server: DescribedParty) {
        let client = try DescribedParty(description: description, conversation: conversation, role: .client,
                                        privateKeys: ["client": clientKey, "server": clientKey].filter { description.keys[$0.key]?.holder == .client },
                                        message: message, config: config)
        let server = try DescribedParty(description: description, conversation: serverPicks ? nil : conversation, role: .server,
                                        privateKeys: ["server": serverKey, "client": serverKey].filter { description.keys[$0.key]?.holder == .server },
                                        config: config)
        return (client, server)
    }
}

final class DescribedConversationTests: XCTestCase {
    func testRSASocket_bothDirectionsComplete_andTheServerPicksTheConversation() throws {
        let description = try DescribedFixtures.seed("rsa-socket")
        let (client, server) = try DescribedFixtures.parties(description, "phone-to-pi", serverPicks: true, message: Data("hello pi".utf8))
        XCTAssertNil(try runDescribed(client, server))
        XCTAssertEqual(server.conversation?.name, "phone-to-pi")
        XCTAssertEqual(server.received["message"], Data("hello pi".utf8))
        XCTAssertTrue(client.isDone && server.isDone)

        let (client2, server2) = try DescribedFixtures.parties(description, "pi-to-phone", serverPicks: true)
        XCTAssertNil(try runDescribed(client2, server2))
        XCTAssertEqual(server2.conversation?.name, "pi-to-phone")
        XCTAssertEqual(client2.received["message"], Data("Secret message from RPi server".utf8))
        XCTAssertTrue(client2.isDone && server2.isDone)
    }

    /// `also_accepts = ["pem-pkcs1"]` on the seed's client key: the client sends SPKI PEM, and the
    /// server also takes PKCS#1 PEM (docs/PROTOCOL.md "Padding and keys"), but not DER; without
    /// `also_accepts` it takes SPKI PEM only.
    func testRSASocket_clientKeyAlsoAcceptedAsPKCS1PEM_notOtherwise() throws {
        let description = try DescribedFixtures.seed("rsa-socket")
        let key = DescribedFixtures.clientKey.publicKey
        func serverTakes(_ pem: Data, in description: ProtocolDescription) throws -> Bool {
            let (_, server) = try DescribedFixtures.parties(description, "pi-to-phone", serverPicks: true)
            do { try server.receive(.bytes(Data("public_key=".utf8) + pem)) } catch is DescribedRefusal { return false }
            return try server.nextMessage().map { if case let .bytes(data) = $0 { return data.count == 128 }; return false } ?? false
        }
        let (client, _) = try DescribedFixtures.parties(description, "pi-to-phone")
        XCTAssertEqual(try client.nextMessage(), .bytes(Data("public_key=".utf8) + (try key.exported(.spkiPEM))), "a sender sends `format`")
        XCTAssertTrue(try serverTakes(try key.exported(.spkiPEM), in: description))
        XCTAssertTrue(try serverTakes(try key.exported(.pkcs1PEM), in: description))
        XCTAssertFalse(try serverTakes(try key.exported(.spkiDER), in: description))
        let text = try String(contentsOf: DescribedFixtures.root.appendingPathComponent("protocols/rsa-socket.toml"), encoding: .utf8)
        XCTAssertTrue(text.contains(#", also_accepts = ["pem-pkcs1"]"#))
        let without = try ProtocolDescription(toml: text.replacingOccurrences(of: #", also_accepts = ["pem-pkcs1"]"#, with: ""))
        XCTAssertFalse(try serverTakes(try key.exported(.pkcs1PEM), in: without))
        XCTAssertTrue(try serverTakes(try key.exported(.spkiPEM), in: without))
    }

    func testRSASocket_bytesAreTheSeedsBytes() throws {
        let description = try DescribedFixtures.seed("rsa-socket")
        let (client, server) = try DescribedFixtures.parties(description, "phone-to-pi")
        XCTAssertEqual(try client.nextMessage(), .bytes(Data("Client: OK".utf8)))
        try server.receive(.bytes(Data("Client: OK".utf8)))
        let expectedKey = Data("public_key=".utf8) + (try DescribedFixtures.serverKey.publicKey.exported(.spkiPEM)) + Data("\n".utf8)
        XCTAssertEqual(try server.nextMessage(), .bytes(expectedKey))
        XCTAssertNil(try server.nextMessage(), "the server waits for the client's turn")
        try client.receive(.bytes(expectedKey))
        XCTAssertEqual(client.expectedLength, nil)
        guard case let .bytes(encrypted)? = try client.nextMessage() else { return XCTFail() }
        XCTAssertEqual(server.expectedLength, 18 + 128)
        XCTAssertEqual(encrypted.count, 18 + 128)
        XCTAssertTrue(encrypted.starts(with: Data("encrypted_message=".utf8)))
    }

    func testAESHTTPS_loginThenSealedEcho() throws {
        let description = try DescribedFixtures.seed("aes-https")
        let (client, server) = try DescribedFixtures.parties(description, "secure-data", message: Data("{\"temperature\": 21}".utf8))
        var seen: [DescribedMessage] = []
        XCTAssertNil(try runDescribed(client, server) { message, _ in seen.append(message); return message })
        XCTAssertEqual(seen.count, 4)
        guard case let .request(method, path, _, body) = seen[0], case let .response(status, _, loginBody) = seen[1],
              case let .request(_, _, headers, _) = seen[2] else { return XCTFail("\(seen)") }
        XCTAssertEqual([method, path], ["POST", "/login"])
        XCTAssertEqual(String(decoding: body, as: UTF8.self), "{\"username\":\"alice\",\"password\":\"wonderland\"}")
        XCTAssertEqual(status, 200)
        let login = try JSONSerialization.jsonObject(with: loginBody) as? [String: String]
        XCTAssertEqual(login?["encryptionKey"]?.count, 12)
        XCTAssertEqual(headers["Authorization"], login?["token"])
        XCTAssertEqual(server.received["message"], Data("{\"temperature\": 21}".utf8))
        XCTAssertTrue(client.isDone && server.isDone)
    }

    func testAESHTTPS_unknownTokenAndWrongPassword_areRefused() throws {
        let description = try DescribedFixtures.seed("aes-https")
        let (client, server) = try DescribedFixtures.parties(description, "secure-data")
        let refusal = try runDescribed(client, server) { message, _ in
            guard case .request(let method, let path, var headers, let body) = message, path == "/secure-data" else { return message }
            headers["Authorization"] = "0000"
            return .request(method: method, path: path, headers: headers, body: body)
        }
        XCTAssertTrue(refusal?.reason.contains("unknown token") == true, "\(String(describing: refusal))")
        XCTAssertEqual(server.refusalMessage().map { if case let .response(status, _, _) = $0 { return status }; return 0 }, 401)

        let wrongPassword = try DescribedParty(description: description, conversation: "secure-data", role: .server, config: ["username": "alice", "password": "other"])
        let (client2, _) = try DescribedFixtures.parties(description, "secure-data")
        XCTAssertNotNil(try runDescribed(client2, wrongPassword))
        XCTAssertEqual(wrongPassword.refusalMessage().map { if case let .response(status, _, _) = $0 { return status }; return 0 }, 400)
    }

    static func inline(_ transport: String = "kind = \"tcp\"", keys: String = "", secrets: String, steps: String) throws -> ProtocolDescription {
        try ProtocolDescription(toml: """
        name = "inline"
        [transport]
        \(transport)
        \(keys)
        \(secrets)
        [[conversation]]
        name = "c"
        error = { text = "ERR" }
        \(steps)
        """)
    }

    /// A session key wrapped to the server's RSA key, then one sealed message each way.
    static func wrapped(cipher: String, extra: String = "", bytes: Int = 32, encoding: String = "base64", derive: String = "raw") throws -> ProtocolDescription {
        let enc = cipher == "fernet" ? "" : ", encoding = \"\(encoding)\""
        return try inline(keys: "[keys.server]\nholder = \"server\"\nbits = 1024\n",
                          secrets: "[secrets.session]\nmade_by = \"client\"\nbytes = \(bytes)\nderive = \"\(derive)\"\n", steps: """
        [[conversation.step]]
        from = "client"
        send = { text = "hello" }
        [[conversation.step]]
        from = "server"
        send = { public_key = "server", format = "jwk" }
        [[conversation.step]]
        from = "client"
        send = { concat = [ { rsa = "server", padding = "oaep-sha256", carries = "secret:session" }, { sealed = "session", cipher = "\(cipher)"\(extra), carries = "message"\(enc) } ] }
        [[conversation.step]]
        from = "server"
        send = { sealed = "session", cipher = "\(cipher)"\(extra), carries = "same"\(enc) }
        """)
    }

    func testWrappedSessionKey_everyCipherRoundTrips() throws {
        let variants: [(String, String, Int, String)] = [
            ("aes-gcm", "", 32, "raw"), ("aes-gcm", "", 16, "sha256"), ("chacha20-poly1305", "", 32, "raw"), ("aes-cbc", "", 24, "raw"),
            ("aes-cbc", ", padding = \"zero\"", 16, "raw"), ("aes-ctr", "", 32, "raw"), ("aes-ecb", "", 16, "raw"),
            ("aes-ecb", ", padding = \"zero\"", 32, "raw"), ("fernet", "", 32, "raw"), ("aes-cbc", ", iv = \"fixed:000102030405060708090a0b0c0d0e0f\"", 16, "raw"),
        ]
        for (cipher, extra, bytes, derive) in variants {
            for encoding in ["base64", "hex", "base64url", "raw"] {
                let label = "\(cipher)\(extra) \(bytes) \(derive) \(encoding)"
                let description = try Self.wrapped(cipher: cipher, extra: extra, bytes: bytes, encoding: encoding, derive: derive)
                let (client, server) = try DescribedFixtures.parties(description, "c", message: Data("a message of some length".utf8))
                XCTAssertNil(try runDescribed(client, server), label)
                XCTAssertEqual(server.received["message"], Data("a message of some length".utf8), label)
                XCTAssertTrue(client.isDone && server.isDone, label)
            }
        }
    }

    func testGCMTagAndNonceInJSONFields() throws {
        let description = try Self.inline(secrets: "[secrets.k]\nmade_by = \"preshared\"\nbytes = 32\n", steps: """
        [[conversation.step]]
        from = "client"
        send = { json = { ct = { sealed = "k", cipher = "aes-gcm", iv = "field:nonce", tag = "field:tag", carries = "json-message", encoding = "base64" }, nonce = { nonce_of = "ct", encoding = "hex" }, tag = { tag_of = "ct", encoding = "base64url" } } }
        [[conversation.step]]
        from = "server"
        send = { json = { ct = { sealed = "k", cipher = "chacha20-poly1305", iv = "field:n", carries = "echo", encoding = "base64" }, n = { nonce_of = "ct", encoding = "base64" } } }
        [[conversation.step]]
        from = "server"
        send = { digest = "sha256" }
        """)
        let key = secureRandomBytes(32)
        let client = try DescribedParty(description: description, conversation: "c", role: .client, secrets: ["k": key], message: Data("hi \"there\"".utf8))
        let server = try DescribedParty(description: description, conversation: "c", role: .server, secrets: ["k": key])
        guard case let .bytes(first)? = try client.nextMessage() else { return XCTFail() }
        let fields = try JSONSerialization.jsonObject(with: first) as? [String: String]
        XCTAssertEqual(fields?.keys.sorted(), ["ct", "nonce", "tag"])
        XCTAssertEqual(fields?["nonce"]?.count, 24)
        XCTAssertTrue(String(decoding: first, as: UTF8.self).hasPrefix("{\"ct\":"))
        try server.receive(.bytes(first))
        XCTAssertNil(try runDescribed(client, server))
        XCTAssertEqual(server.received["message"], Data("hi \"there\"".utf8))
        XCTAssertEqual(client.received["echo"], Data("{\"message\":\"hi \\\"there\\\"\"}".utf8))
        XCTAssertTrue(client.isDone && server.isDone)
    }

    func testKeyFormats_everyOneIsSentAndImported() throws {
        for format in PublicKeyFormat.allowed(for: .rsa) {
            let description = try Self.inline(keys: "[keys.client]\nholder = \"client\"\nbits = 1024\n", secrets: "", steps: """
            [[conversation.step]]
            from = "client"
            send = { public_key = "client", format = "\(format.rawValue)", encoding = "\(format.isText ? "raw" : "base64")" }
            [[conversation.step]]
            from = "server"
            send = { rsa = "client", padding = "oaep-sha1", carries = "message", encoding = "hex" }
            """)
            let (client, server) = try DescribedFixtures.parties(description, "c", message: Data("m".utf8))
            let serverMessage = Data("from the server".utf8)
            let server2 = try DescribedParty(description: description, conversation: "c", role: .server, message: serverMessage)
            _ = server
            XCTAssertNil(try runDescribed(client, server2), format.rawValue)
            XCTAssertEqual(client.received["message"], serverMessage, format.rawValue)
        }
        XCTAssertEqual(DescribedBytes.decimal(Data([0x01, 0x00, 0x01])), "65537")
        XCTAssertEqual(DescribedBytes.bytes(ofDecimal: "65537"), Data([0x01, 0x00, 0x01]))
        let json = try DescribedBytes.export(DescribedFixtures.clientKey.publicKey, .jsonNE)
        let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
        XCTAssertEqual(object?["e"] as? Int, 65537)
    }

    func testFernet_matchesPycasTokenLayout() throws {
        let key = Data((0..<32).map { UInt8($0) })
        let iv = Data(repeating: 0x41, count: 16)
        let token = try Fernet.token(Data("hi".utf8), key: key, now: Date(timeIntervalSince1970: 1_000), iv: iv)
        let body = try XCTUnwrap(DescribedBytes.decodeBase64url(String(decoding: token, as: UTF8.self), padded: true))
        XCTAssertEqual(body.first, 0x80)
        XCTAssertEqual(Data(body.dropFirst(1).prefix(8)), Data([0, 0, 0, 0, 0, 0, 0x03, 0xe8]))
        XCTAssertEqual(Data(body.dropFirst(9).prefix(16)), iv)
        XCTAssertEqual(body.count, 1 + 8 + 16 + 16 + 32)
        XCTAssertEqual(Data(body.suffix(32)), HMACDigest.authenticationCode(.sha256, key: key.prefix(16), message: Data(body.dropLast(32))))
        XCTAssertEqual(try AESCBC.decrypt(Data(body.dropFirst(25).dropLast(32)), key: key.suffix(16), iv: iv), Data("hi".utf8))
        XCTAssertEqual(try Fernet.open(token, key: key), Data("hi".utf8))
        // RFC 4231 test case 2: HMAC-SHA256 with key "Jefe".
        XCTAssertEqual(HMACDigest.authenticationCode(.sha256, key: Data("Jefe".utf8), message: Data("what do ya want for nothing?".utf8)).hexString,
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    func testPlantedFailures_areCaught() throws {
        func flip(_ message: DescribedMessage, at offset: Int) -> DescribedMessage {
            guard case var .bytes(bytes) = message else { return message }
            let index = bytes.index(bytes.startIndex, offsetBy: offset < 0 ? bytes.count + offset : offset)
            bytes[index] ^= 0x01
            return .bytes(bytes)
        }
        // Tampered ciphertext, for every authenticated or padded cipher.
        for cipher in ["aes-gcm", "chacha20-poly1305", "fernet"] {
            let description = try Self.wrapped(cipher: cipher, encoding: "raw")
            let (client, server) = try DescribedFixtures.parties(description, "c")
            var sent = 0
            let refusal = try runDescribed(client, server) { message, role in
                guard role == .client else { return message }
                sent += 1
                return sent == 2 ? flip(message, at: -3) : message
            }
            XCTAssertNotNil(refusal, cipher)
            XCTAssertEqual(server.refusalMessage(), .bytes(Data("ERR".utf8)), cipher)
        }
        // The wrong RSA padding: a server that pads with PKCS#1 v1.5 where OAEP is described.
        let rsaSocket = try DescribedFixtures.seed("rsa-socket")
        let (client, server) = try DescribedFixtures.parties(rsaSocket, "pi-to-phone")
        let refusal = try runDescribed(client, server) { message, role in
            guard role == .server, case let .bytes(bytes) = message, bytes.count == 128 else { return message }
            return .bytes(try! DescribedFixtures.clientKey.publicKey.encrypt(Data("x".utf8), padding: .oaepSHA1))
        }
        XCTAssertTrue(refusal?.reason.contains("does not decrypt") == true, "\(String(describing: refusal))")
        // The wrong key: the two sides were given different preshared secrets.
        let preshared = try Self.inline(secrets: "[secrets.k]\nmade_by = \"preshared\"\n", steps: """
        [[conversation.step]]
        from = "client"
        send = { sealed = "k", cipher = "aes-gcm", carries = "message" }
        """)
        let keyed = try DescribedParty(description: preshared, conversation: "c", role: .client, secrets: ["k": secureRandomBytes(32)])
        let otherKey = try DescribedParty(description: preshared, conversation: "c", role: .server, secrets: ["k": secureRandomBytes(32)])
        XCTAssertThrowsError(try otherKey.receive(try keyed.nextMessage()!)) { error in
            XCTAssertTrue("\(error)".contains("does not decrypt"), "\(error)")
        }
        XCTAssertTrue(otherKey.isDone)
        // Wrong echo and wrong digest.
        let echo = try Self.inline(secrets: "[secrets.k]\nmade_by = \"preshared\"\nbytes = 16\n", steps: """
        [[conversation.step]]
        from = "client"
        send = { sealed = "k", cipher = "aes-cbc", carries = "json-message" }
        [[conversation.step]]
        from = "server"
        send = { concat = [ { digest = "sha256" }, { sealed = "k", cipher = "aes-cbc", carries = "echo" } ] }
        """)
        let key = secureRandomBytes(16)
        let echoClient = try DescribedParty(description: echo, conversation: "c", role: .client, secrets: ["k": key], message: Data("m".utf8))
        let echoServer = try DescribedParty(description: echo, conversation: "c", role: .server, secrets: ["k": key])
        let liar = try DescribedParty(description: echo, conversation: "c", role: .client, secrets: ["k": key], message: Data("other".utf8))
        try echoServer.receive(try liar.nextMessage()!)
        _ = try echoClient.nextMessage()
        XCTAssertThrowsError(try echoClient.receive(try echoServer.nextMessage()!)) { error in
            XCTAssertTrue("\(error)".contains("digest"), "\(error)")
        }
        let echoClient2 = try DescribedParty(description: echo, conversation: "c", role: .client, secrets: ["k": key], message: Data("m".utf8))
        _ = try echoClient2.nextMessage()
        let digest = Data(Digest.sha256.hash(Data("m".utf8)).hexString.utf8)
        let wrongEcho = try DescribedCipher.seal(Data("{\"echo\":{\"message\":\"other\"}}".utf8), cipher: .aesCBC, padding: .pkcs7, key: key, iv: nil)
        XCTAssertThrowsError(try echoClient2.receive(.bytes(digest + wrongEcho.iv + wrongEcho.ciphertext))) { error in
            XCTAssertTrue("\(error)".contains("wrong echo"), "\(error)")
        }
    }

    func testPresharedKey_andAServerMadeSessionKeyWrappedToTheClient() throws {
        let description = try Self.inline(keys: """
        [keys.server]
        holder = "server"
        bits = 1024
        preshared = true
        [keys.client]
        holder = "client"
        bits = 1024
        """, secrets: "[secrets.s]\nmade_by = \"server\"\nbytes = 16\nderive = \"sha256\"\n", steps: """
        [[conversation.step]]
        from = "client"
        send = { concat = [ { rsa = "server", padding = "oaep-sha256", carries = "message", encoding = "base64url" }, { public_key = "client", format = "der-pkcs1" } ] }
        [[conversation.step]]
        from = "server"
        send = { concat = [ { rsa = "client", padding = "oaep-sha1", carries = "secret:s" }, { sealed = "s", cipher = "aes-ctr", carries = "same", encoding = "hex" } ] }
        """)
        let client = try DescribedParty(description: description, conversation: "c", role: .client, privateKeys: ["client": DescribedFixtures.clientKey],
                                        knownPublicKeys: ["server": DescribedFixtures.serverKey.publicKey], message: Data("preshared".utf8))
        let server = try DescribedParty(description: description, conversation: nil, role: .server, privateKeys: ["server": DescribedFixtures.serverKey])
        XCTAssertNil(try runDescribed(client, server))
        XCTAssertEqual(server.received["message"], Data("preshared".utf8))
        XCTAssertTrue(client.isDone && server.isDone)
        XCTAssertThrowsError(try DescribedParty(description: description, conversation: "c", role: .client)) { error in
            XCTAssertTrue("\(error)".contains("preshared"), "\(error)")
        }
    }

    func testFramings_encodeAndDecodeInAnySplit() throws {
        let transports = [
            "kind = \"tcp\"\nframing = \"length-prefix\"", "kind = \"tcp\"\nframing = \"length-prefix\"\nlength_bytes = 2",
            "kind = \"tcp\"\nframing = \"line\"", "kind = \"tcp\"\nframing = \"line\"\nline_end = \"\\r\\n\"",
        ]
        for transport in transports {
            let description = try Self.inline(transport, secrets: "[secrets.k]\nmade_by = \"preshared\"\n", steps: """
            [[conversation.step]]
            from = "client"
            send = { sealed = "k", cipher = "aes-gcm", carries = "message", encoding = "base64" }
            [[conversation.step]]
            from = "server"
            send = { text = "ok" }
            """)
            let framing = DescribedFraming(transport: description.transport)
            let key = secureRandomBytes(32)
            let client = try DescribedParty(description: description, conversation: "c", role: .client, secrets: ["k": key], message: Data("m\n".utf8))
            let server = try DescribedParty(description: description, conversation: "c", role: .server, secrets: ["k": key])
            guard case let .bytes(message)? = try client.nextMessage() else { return XCTFail() }
            let wire = try framing.encode(message) + framing.encode(Data("next".utf8))
            for size in [1, 3, wire.count] {
                var decoder = framing.decoder()
                var got: [Data] = []
                var offset = 0
                while offset < wire.count {
                    decoder.append(wire.subdata(in: offset..<min(wire.count, offset + size)))
                    offset += size
                    while let one = try decoder.next() { got.append(one) }
                }
                XCTAssertEqual(got, [message, Data("next".utf8)], "\(transport) \(size)")
            }
            try server.receive(.bytes(message))
            XCTAssertEqual(server.received["message"], Data("m\n".utf8))
        }
        // legacy: a known length is taken exactly; otherwise the quiet gap ends the message.
        let legacy = DescribedFraming(transport: try DescribedFixtures.seed("rsa-socket").transport)
        var decoder = legacy.decoder()
        decoder.append(Data("Client: OKQuit".utf8))
        XCTAssertEqual(try decoder.next(expectedLength: 10), Data("Client: OK".utf8))
        XCTAssertNil(try decoder.next())
        XCTAssertEqual(decoder.quietGap(), Data("Quit".utf8))
        // Refusals: a zero length, an over-long message, a line end inside a line.
        let prefixed = DescribedFraming(transport: try Self.inline("kind = \"tcp\"\nframing = \"length-prefix\"\nmax_message = 8", secrets: "", steps: "[[conversation.step]]\nfrom = \"client\"\nsend = { text = \"x\" }").transport)
        var zero = prefixed.decoder(); zero.append(Data(count: 4))
        XCTAssertThrowsError(try zero.next())
        var long = prefixed.decoder(); long.append(Data([0, 0, 0, 9]))
        XCTAssertThrowsError(try long.next())
        XCTAssertThrowsError(try prefixed.encode(Data(count: 9)))
        let lines = DescribedFraming(transport: try Self.inline("kind = \"tcp\"\nframing = \"line\"", secrets: "", steps: "[[conversation.step]]\nfrom = \"client\"\nsend = { text = \"x\" }").transport)
        XCTAssertThrowsError(try lines.encode(Data("a\nb".utf8)))
    }
}
