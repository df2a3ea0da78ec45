import Foundation
import XCTest
@testable import WireProtocol
import WireCrypto

/// The seed descriptions spoken by the described engine against the built-in machines
/// (RSASocketServer/Client, AESHTTPSServer/Client), both directions: the same bytes either way.
final class DescribedInteropTests: XCTestCase {
    /// Hands a whole message to a built-in machine (then a quiet gap, as `legacy` readers wait for
    /// one), returning its sends and whether it closed.
    func deliver(_ data: Data, to machine: SessionMachine, events: inout [SessionEvent]) -> [Data] {
        var actions = machine.receive(data)
        if !actions.contains(where: { if case .send = $0 { return true }; return false }), !machine.closed { actions += machine.idle() }
        var sends: [Data] = []
        for action in actions {
            switch action {
            case let .send(bytes): sends.append(bytes)
            case let .event(event): events.append(event)
            case .close: break
            }
        }
        return sends
    }

    func builtInServer(message: Data = RSASocket.defaultMessage) -> RSASocketServer {
        RSASocketServer(config: RSASocketServerConfig(padding: ._WEAK_AND_INSECURE_PKCS_V1_5, privateKey: DescribedFixtures.serverKey, message: message))
    }

    /// A described client against a built-in server: each described message in, each built-in send out.
    func describedClientAgainstBuiltIn(_ conversation: String, message: Data? = nil) throws -> (DescribedParty, [SessionEvent], RSASocketServer) {
        let description = try DescribedFixtures.seed("rsa-socket")
        let client = try DescribedParty(description: description, conversation: conversation, role: .client,
                                        privateKeys: ["client": DescribedFixtures.clientKey], message: message)
        let server = builtInServer()
        var events: [SessionEvent] = []
        _ = server.start()
        while let outgoing = try client.nextMessage() {
            guard case let .bytes(bytes) = outgoing else { XCTFail("not bytes"); break }
            for reply in deliver(bytes, to: server, events: &events) where !client.isDone { try client.receive(.bytes(reply)) }
        }
        return (client, events, server)
    }

    func testDescribedRSASocketClient_isAcceptedByTheBuiltInServer() throws {
        let (client, events, server) = try describedClientAgainstBuiltIn("phone-to-pi", message: Data("hello pi".utf8))
        XCTAssertEqual(events, [.decrypted(Data("hello pi".utf8)), .quit])
        XCTAssertTrue(client.isDone && server.closed)
        XCTAssertNil(client.refusal)

        let (client2, events2, server2) = try describedClientAgainstBuiltIn("pi-to-phone")
        XCTAssertEqual(events2, [.sentCiphertext, .quit])
        XCTAssertEqual(client2.received["message"], RSASocket.defaultMessage)
        XCTAssertTrue(client2.isDone && server2.closed)
    }

    /// A built-in client against a described server that picks the conversation itself.
    func builtInClientAgainstDescribed(_ direction: RSASocket.Direction) throws -> ([SessionEvent], DescribedParty) {
        let description = try DescribedFixtures.seed("rsa-socket")
        let server = try DescribedParty(description: description, conversation: nil, role: .server, privateKeys: ["server": DescribedFixtures.serverKey])
        let client = RSASocketClient(config: RSASocketClientConfig(direction: direction, padding: ._WEAK_AND_INSECURE_PKCS_V1_5,
                                                                   privateKey: DescribedFixtures.clientKey, plaintext: Data("from swift".utf8)))
        var events: [SessionEvent] = []
        var pending: [Data] = client.start().compactMap { if case let .send(bytes) = $0 { return bytes }; return nil }
        var rounds = 0
        while !pending.isEmpty, rounds < 20 {
            rounds += 1
            try server.receive(.bytes(pending.removeFirst()))
            while let answer = try server.nextMessage() {
                guard case let .bytes(bytes) = answer else { break }
                pending += deliver(bytes, to: client, events: &events)
            }
        }
        return (events, server)
    }

    func testBuiltInRSASocketClient_isAcceptedByADescribedServer() throws {
        let (events, server) = try builtInClientAgainstDescribed(.phoneToPi)
        XCTAssertEqual(server.conversation?.name, "phone-to-pi")
        XCTAssertEqual(server.received["message"], Data("from swift".utf8))
        XCTAssertEqual(events, [.serverOK(digest: nil, verified: nil), .serverStopped])
        XCTAssertTrue(server.isDone)

        let (events2, server2) = try builtInClientAgainstDescribed(.piToPhone)
        XCTAssertEqual(server2.conversation?.name, "pi-to-phone")
        XCTAssertEqual(events2, [.decrypted(RSASocket.defaultMessage), .serverStopped])
        XCTAssertTrue(server2.isDone)
    }

    func testBuiltInServer_refusesATamperedDescribedCiphertext_andADescribedServerRefusesTheBuiltInOne() throws {
        let description = try DescribedFixtures.seed("rsa-socket")
        let client = try DescribedParty(description: description, conversation: "phone-to-pi", role: .client)
        let server = builtInServer()
        var events: [SessionEvent] = []
        guard case let .bytes(hello)? = try client.nextMessage() else { return XCTFail() }
        try client.receive(.bytes(deliver(hello, to: server, events: &events)[0]))
        guard case var .bytes(encrypted)? = try client.nextMessage() else { return XCTFail() }
        encrypted[encrypted.count - 1] ^= 0x01
        XCTAssertEqual(deliver(encrypted, to: server, events: &events), [Data("Server: ERROR".utf8)])
        XCTAssertThrowsError(try client.receive(.bytes(Data("Server: ERROR".utf8))))

        // A described server given a ciphertext under the wrong key refuses and answers its error.
        let described = try DescribedParty(description: description, conversation: "phone-to-pi", role: .server, privateKeys: ["server": DescribedFixtures.serverKey])
        try described.receive(.bytes(Data("Client: OK".utf8)))
        _ = try described.nextMessage()
        let wrong = try DescribedFixtures.clientKey.publicKey.encrypt(Data("x".utf8), padding: ._WEAK_AND_INSECURE_PKCS_V1_5)
        XCTAssertThrowsError(try described.receive(.bytes(Data("encrypted_message=".utf8) + wrong)))
        XCTAssertEqual(described.refusalMessage(), .bytes(Data("Server: ERROR".utf8)))
    }

    func webRequest(_ message: DescribedMessage) -> WebRequest {
        guard case let .request(method, path, headers, body) = message else { XCTFail("not a request"); return WebRequest(method: "", path: "") }
        return WebRequest(method: method, path: path, headers: headers, body: body)
    }

    func testDescribedAESHTTPSClient_isAcceptedByTheBuiltInServer() throws {
        let description = try DescribedFixtures.seed("aes-https")
        let server = AESHTTPSServer(config: AESHTTPSServerConfig(users: ["alice": "wonderland"], keyMode: .weakUTF8ZeroPad16))
        let client = try DescribedParty(description: description, conversation: "secure-data", role: .client,
                                        message: Data("21 degrees".utf8), config: DescribedFixtures.config)
        var statuses: [Int] = []
        while let request = try client.nextMessage() {
            let response = server.handle(webRequest(request))
            statuses.append(response.status)
            try client.receive(.response(status: response.status, headers: response.headers, body: response.body))
        }
        XCTAssertEqual(statuses, [200, 200])
        XCTAssertEqual(client.received["echo"], Data("{\"message\":\"21 degrees\"}".utf8))
        XCTAssertTrue(client.isDone)

        // The built-in server's answer to a tampered envelope is a 400 the described client refuses.
        let client2 = try DescribedParty(description: description, conversation: "secure-data", role: .client, config: DescribedFixtures.config)
        let login = server.handle(webRequest(try client2.nextMessage()!))
        try client2.receive(.response(status: login.status, headers: login.headers, body: login.body))
        var secure = webRequest(try client2.nextMessage()!)
        var body = try JSONSerialization.jsonObject(with: secure.body) as! [String: String]
        var iv = Data(base64Encoded: body["iv"]!)!
        iv[15] ^= 0x7f
        body["iv"] = iv.base64EncodedString()
        secure.body = try JSONSerialization.data(withJSONObject: body)
        let answer = server.handle(secure)
        XCTAssertThrowsError(try client2.receive(.response(status: answer.status, headers: answer.headers, body: answer.body)))
    }

    func testBuiltInAESHTTPSClient_isAcceptedByADescribedServer() throws {
        let description = try DescribedFixtures.seed("aes-https")
        let server = try DescribedParty(description: description, conversation: "secure-data", role: .server, config: DescribedFixtures.config)
        func exchange(_ request: WebRequest) throws -> WebResponse {
            try server.receive(.request(method: request.method, path: request.path, headers: request.headers, body: request.body))
            guard case let .response(status, headers, body)? = try server.nextMessage() else { XCTFail("no response"); return WebResponse(status: 0) }
            return WebResponse(status: status, headers: headers, body: body)
        }
        let (token, key) = try AESHTTPSClient.parseLogin(try exchange(AESHTTPSClient.loginRequest(username: "alice", password: "wonderland")), mode: .weakUTF8ZeroPad16)
        let params = Data("{\"message\":\"from the app\"}".utf8)
        let echoed = try AESHTTPSClient.parseSecure(try exchange(try AESHTTPSClient.secureRequest(params: params, token: token, key: key)), key: key)
        XCTAssertEqual(String(decoding: echoed, as: UTF8.self), "{\"echo\":{\"message\":\"from the app\"}}")
        XCTAssertEqual(server.received["message"], Data("from the app".utf8))
        XCTAssertTrue(server.isDone)

        // A built-in client's form login is not what the description says (JSON): refused, 400.
        let strict = try DescribedParty(description: description, conversation: "secure-data", role: .server, config: DescribedFixtures.config)
        let form = AESHTTPSClient.loginRequest(username: "alice", password: "wonderland", encoding: .form)
        XCTAssertThrowsError(try strict.receive(.request(method: form.method, path: form.path, headers: form.headers, body: form.body)))
        XCTAssertEqual(strict.refusalMessage().map { if case let .response(status, _, _) = $0 { return status }; return 0 }, 400)
    }
}

/// Described parties as byte-level session machines (`DescribedSession`), against the built-in
/// machines and each other, with every split TCP could make.
final class DescribedSessionTests: XCTestCase {
    static let deliveries: [Conversation.Delivery] = [.whole, .joined, .chunks(1), .chunks(7)]

    func session(_ conversation: String?, _ role: ProtocolDescription.Role, message: Data? = nil) throws -> DescribedSession {
        let description = try DescribedFixtures.seed("rsa-socket")
        let keys = role == .server ? ["server": DescribedFixtures.serverKey] : ["client": DescribedFixtures.clientKey]
        return DescribedSession(party: try DescribedParty(description: description, conversation: conversation, role: role, privateKeys: keys, message: message))
    }

    func builtInServer() -> RSASocketServer {
        RSASocketServer(config: RSASocketServerConfig(padding: ._WEAK_AND_INSECURE_PKCS_V1_5, privateKey: DescribedFixtures.serverKey))
    }

    func builtInClient(_ direction: RSASocket.Direction) -> RSASocketClient {
        RSASocketClient(config: RSASocketClientConfig(direction: direction, padding: ._WEAK_AND_INSECURE_PKCS_V1_5,
                                                      privateKey: DescribedFixtures.clientKey, plaintext: Data("hello pi".utf8)))
    }

    /// `error_then = "keep-open"` with a `starts_with` error (quqiOnfree/rsa-encryption-server's loop):
    /// the server answers its error's beginning and reads on; by default it closes.
    func testAKeepOpenServer_readsOnAfterItsError_andTheDefaultCloses() throws {
        let toml = """
        name = "keep-open"
        [transport]
        kind = "tcp"
        framing = "line"
        [[conversation]]
        name = "greet"
        error = { starts_with = "ERR " }
        error_then = "keep-open"
        [[conversation.step]]
        from = "client"
        send = { text = "hello" }
        [[conversation.step]]
        from = "server"
        send = { text = "hi" }
        """
        let description = try ProtocolDescription(toml: toml)
        XCTAssertEqual(description.conversations[0].errorThen, .keepOpen)
        let serve = { try DescribedParty(description: description, conversation: nil, role: .server) }
        let session = DescribedSession(party: try serve(), restart: serve)
        XCTAssertEqual(session.start(), [])
        let refused = session.receive(Data("nonsense\n".utf8))
        XCTAssertEqual(refused.compactMap { if case let .send(data) = $0 { return data }; return nil }, [Data("ERR \n".utf8)])
        XCTAssertFalse(refused.contains(.close))
        XCTAssertFalse(session.closed)
        XCTAssertEqual(session.receive(Data("hello\n".utf8)).filter { $0 != .close }, [.send(Data("hi\n".utf8))])
        // Without error_then the server closes after its error.
        let closing = try ProtocolDescription(toml: toml.replacingOccurrences(of: "error_then = \"keep-open\"\n", with: ""))
        XCTAssertEqual(closing.conversations[0].errorThen, .close)
        let once = DescribedSession(party: try DescribedParty(description: closing, conversation: nil, role: .server), restart: serve)
        XCTAssertTrue(once.receive(Data("nonsense\n".utf8)).contains(.close))
        // The client takes the error as no answer (the remote checks know it by its beginning); starts_with
        // is an error value only, and whole.
        let client = try DescribedParty(description: description, conversation: "greet", role: .client)
        _ = try client.nextMessage()
        XCTAssertThrowsError(try client.receive(.bytes(Data("ERR no such greeting: 'nonsense'".utf8))))
        for (broken, words) in [(toml.replacingOccurrences(of: #"send = { text = "hi" }"#, with: #"send = { starts_with = "hi" }"#), "starts_with is only a tcp conversation's error"),
                                (toml.replacingOccurrences(of: #"error = { starts_with = "ERR " }"#, with: #"error = { concat = [{ starts_with = "ERR " }] }"#), "starts_with is a whole error value"),
                                (toml.replacingOccurrences(of: "keep-open", with: "linger"), "error_then"),
                                (toml.replacingOccurrences(of: #"starts_with = "ERR ""#, with: #"starts_with = """#), "an empty beginning matches every answer"),
                                (toml.replacingOccurrences(of: #"starts_with = "ERR ""#, with: #"starts_with = "h""#), "cannot be told apart"),
                                (toml.replacingOccurrences(of: #"framing = "line""#, with: #"framing = "close""#), "nothing is read after an error"),
                                (toml.replacingOccurrences(of: "[[conversation.step]]\nfrom = \"client\"", with: "[[conversation.step]]\nfrom = \"server\"\nsend = { text = \"welcome\" }\n[[conversation.step]]\nfrom = \"client\""),
                                 "must begin with the client's step"),
                                (toml.replacingOccurrences(of: #"error = { starts_with = "ERR " }"#, with: #"error = { config = "username" }"#), "an error value is fixed text")] {
            XCTAssertThrowsError(try ProtocolDescription(toml: broken)) { error in XCTAssertTrue("\(error)".contains(words), "\(error)") }
        }
    }

    func testDescribedClient_againstTheBuiltInServer_inEverySplit() throws {
        for delivery in Self.deliveries {
            let phoneToPi = Conversation.run(client: try session("phone-to-pi", .client, message: Data("hello pi".utf8)), server: builtInServer(), delivery: delivery)
            XCTAssertEqual(phoneToPi.serverEvents, [.decrypted(Data("hello pi".utf8)), .quit], "\(delivery)")
            XCTAssertTrue(phoneToPi.clientClosed && phoneToPi.serverClosed, "\(delivery)")
            XCTAssertEqual(phoneToPi.clientEvents, [], "\(delivery)")

            let piToPhone = Conversation.run(client: try session("pi-to-phone", .client), server: builtInServer(), delivery: delivery)
            XCTAssertEqual(piToPhone.clientEvents, [.decrypted(RSASocket.defaultMessage)], "\(delivery)")
            XCTAssertEqual(piToPhone.serverEvents, [.sentCiphertext, .quit], "\(delivery)")
            XCTAssertTrue(piToPhone.clientClosed && piToPhone.serverClosed, "\(delivery)")
        }
    }

    func testBuiltInClient_againstADescribedServer_inEverySplit() throws {
        for delivery in Self.deliveries {
            let phoneToPi = Conversation.run(client: builtInClient(.phoneToPi), server: try session(nil, .server), delivery: delivery)
            XCTAssertEqual(phoneToPi.serverEvents, [.decrypted(Data("hello pi".utf8))], "\(delivery)")
            XCTAssertEqual(phoneToPi.clientEvents, [.serverOK(digest: nil, verified: nil), .serverStopped], "\(delivery)")

            let piToPhone = Conversation.run(client: builtInClient(.piToPhone), server: try session(nil, .server), delivery: delivery)
            XCTAssertEqual(piToPhone.clientEvents, [.decrypted(RSASocket.defaultMessage), .serverStopped], "\(delivery)")
            XCTAssertTrue(piToPhone.serverClosed, "\(delivery)")
        }
    }

    func testBothSidesDescribed_legacyBytesMatchTheBuiltInPair() throws {
        let described = Conversation.run(client: try session("phone-to-pi", .client, message: Data("hello pi".utf8)), server: try session(nil, .server))
        let builtIn = Conversation.run(client: builtInClient(.phoneToPi), server: builtInServer())
        XCTAssertEqual(described.serverSent, builtIn.serverSent)
        XCTAssertEqual(described.clientSent.count, builtIn.clientSent.count)
        XCTAssertTrue(described.clientSent.starts(with: Data("Client: OKencrypted_message=".utf8)))
    }

    func testAPlantedBadMessage_getsTheDescribedErrorAndAClose() throws {
        let server = try session(nil, .server)
        let actions = server.receive(Data("GET / HTTP/1.1\r\n".utf8)) + server.idle()
        XCTAssertEqual(actions.filter { if case .send = $0 { return true }; return false }, [.send(Data("Server: ERROR".utf8))])
        XCTAssertEqual(actions.last, .close)
        XCTAssertTrue(server.closed)
    }
}
