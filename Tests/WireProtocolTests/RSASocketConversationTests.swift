import Foundation
import XCTest
@testable import WireProtocol
import WireCrypto

final class RSASocketConversationTests: XCTestCase {
    static let serverKey = try! RSAPrivateKey(bits: 1024)
    static let clientKey = try! RSAPrivateKey(bits: 1024)
    static let paddings: [RSAEncryptionPadding] = [._WEAK_AND_INSECURE_PKCS_V1_5, .oaepSHA1, .oaepSHA256]
    static let deliveries: [Conversation.Delivery] = [.whole, .joined, .chunks(1), .chunks(7)]

    func server(_ padding: RSAEncryptionPadding, _ framing: Framing, digest: Bool = false, quirk: RSASocketServerQuirk? = nil) -> RSASocketServer {
        RSASocketServer(config: RSASocketServerConfig(padding: padding, framing: framing, digest: digest, privateKey: Self.serverKey, quirk: quirk))
    }

    func client(_ direction: RSASocket.Direction, _ padding: RSAEncryptionPadding, _ framing: Framing, digest: Bool = false,
                plaintext: Data = Data("hello pi".utf8), keyFormat: ClientKeyFormat = .spkiPEM, quirk: RSASocketClientQuirk? = nil) -> RSASocketClient {
        RSASocketClient(config: RSASocketClientConfig(direction: direction, padding: padding, framing: framing, digest: digest,
                                                      privateKey: Self.clientKey, plaintext: plaintext, keyFormat: keyFormat, quirk: quirk))
    }

    func testPhoneToPi_everyPaddingFramingAndSplitCompletes() {
        for padding in Self.paddings {
            for framing in Framing.allCases {
                for delivery in Self.deliveries {
                    let label = "\(padding) \(framing) \(delivery)"
                    let transcript = Conversation.run(client: client(.phoneToPi, padding, framing), server: server(padding, framing), delivery: delivery)
                    XCTAssertEqual(transcript.serverEvents, [.decrypted(Data("hello pi".utf8)), .quit], label)
                    XCTAssertEqual(transcript.clientEvents, [.serverOK(digest: nil, verified: nil), .serverStopped], label)
                    XCTAssertTrue(transcript.clientClosed && transcript.serverClosed, label)
                }
            }
        }
    }

    func testPiToPhone_everyPaddingFramingAndSplitCompletes() {
        for padding in Self.paddings {
            for framing in Framing.allCases {
                for delivery in Self.deliveries {
                    let label = "\(padding) \(framing) \(delivery)"
                    let transcript = Conversation.run(client: client(.piToPhone, padding, framing), server: server(padding, framing), delivery: delivery)
                    XCTAssertEqual(transcript.clientEvents, [.decrypted(RSASocket.defaultMessage), .serverStopped], label)
                    XCTAssertEqual(transcript.serverEvents, [.sentCiphertext, .quit], label)
                }
            }
        }
    }

    func testLegacyBytes_matchTheSeedMessagesExactly() throws {
        let transcript = Conversation.run(client: client(.phoneToPi, .oaepSHA1, .legacy), server: server(.oaepSHA1, .legacy))
        let sent = transcript.clientSent
        XCTAssertTrue(sent.starts(with: Data("Client: OKencrypted_message=".utf8)))
        XCTAssertEqual(sent.count, "Client: OK".utf8.count + "encrypted_message=".utf8.count + 128 + "Quit".utf8.count)
        XCTAssertTrue(sent.suffix(4) == Data("Quit".utf8))
        let expectedKey = Data("public_key=".utf8) + (try Self.serverKey.publicKey.exported(.spkiPEM)) + Data("\n".utf8)
        XCTAssertEqual(transcript.serverSent, expectedKey + Data("Server: OKServer stopped\n".utf8))
    }

    func testFramedBytes_prefixEveryMessageWithItsLength() {
        let transcript = Conversation.run(client: client(.phoneToPi, .oaepSHA256, .framed), server: server(.oaepSHA256, .framed))
        XCTAssertEqual(transcript.clientSent.prefix(14), Data([0, 0, 0, 10]) + Data("Client: OK".utf8))
        XCTAssertEqual(transcript.serverSent.suffix(19), Data([0, 0, 0, 15]) + Data("Server stopped\n".utf8))
    }

    func testDigest_provesThePlaintextAndCatchesAMismatch() {
        let transcript = Conversation.run(client: client(.phoneToPi, .oaepSHA256, .legacy, digest: true), server: server(.oaepSHA256, .legacy, digest: true))
        let expected = Digest.sha256.hash(Data("hello pi".utf8)).hexString
        XCTAssertEqual(transcript.clientEvents.first, .serverOK(digest: expected, verified: true))
        // A server without the extension: the client waits for the quiet gap, then reports unverified.
        let plain = Conversation.run(client: client(.phoneToPi, .oaepSHA256, .legacy, digest: true), server: server(.oaepSHA256, .legacy), delivery: .chunks(3))
        XCTAssertEqual(plain.clientEvents, [.serverOK(digest: nil, verified: nil), .serverStopped])
        // A digest of other bytes is reported, not trusted.
        let liar = RSASocketClient(config: RSASocketClientConfig(direction: .phoneToPi, padding: .oaepSHA256, digest: true, plaintext: Data("x".utf8)))
        _ = liar.start()
        let keyMessage = Data("public_key=".utf8) + (try! Self.serverKey.publicKey.exported(.spkiPEM)) + Data("\n".utf8)
        _ = liar.receive(keyMessage)
        let actions = liar.receive(Data(("Server: OK sha256=" + String(repeating: "0", count: 64)).utf8))
        XCTAssertTrue(actions.contains(.event(.serverOK(digest: String(repeating: "0", count: 64), verified: false))))
    }

    func testEveryClientKeyFormat_isAcceptedByTheServer() {
        for format in ClientKeyFormat.allCases {
            let transcript = Conversation.run(client: client(.piToPhone, .oaepSHA1, .legacy, keyFormat: format), server: server(.oaepSHA1, .legacy), delivery: .chunks(5))
            XCTAssertEqual(transcript.clientEvents, [.decrypted(RSASocket.defaultMessage), .serverStopped], format.rawValue)
        }
    }

    func testPlantedBrokenPeers_areCaught() {
        let wrongHeader = Conversation.run(client: client(.piToPhone, .oaepSHA1, .legacy, quirk: ._WRONG_PEM_HEADER), server: server(.oaepSHA1, .legacy))
        XCTAssertEqual(wrongHeader.clientEvents, [.serverError])
        XCTAssertTrue(wrongHeader.serverSent == Data("Server: ERROR".utf8))
        let pkcs1 = Conversation.run(client: client(.piToPhone, .oaepSHA256, .legacy), server: server(.oaepSHA256, .legacy, quirk: ._PKCS1_DESPITE_OAEP))
        guard case .failed(let reason)? = pkcs1.clientEvents.first else { return XCTFail("\(pkcs1.clientEvents)") }
        XCTAssertTrue(reason.contains("cannot decrypt"), reason)
    }
}

final class RSASocketServerRobustnessTests: XCTestCase {
    static let key = try! RSAPrivateKey(bits: 1024)

    func feed(_ chunks: [Data], framing: Framing = .legacy, idleAfter: Bool = true, quirk: RSASocketServerQuirk? = nil) -> [SessionAction] {
        let server = RSASocketServer(config: RSASocketServerConfig(padding: .oaepSHA256, framing: framing, maxMessage: 1024, privateKey: Self.key, quirk: quirk))
        var actions = server.start()
        for chunk in chunks where !server.closed { actions += server.receive(chunk) }
        if idleAfter { actions += server.idle() }
        return actions
    }

    /// The wire bytes of `actions`, and whether they end in a close.
    func wire(_ actions: [SessionAction]) -> (bytes: Data, closed: Bool) {
        var bytes = Data()
        for case let .send(data) in actions { bytes += data }
        return (bytes, actions.last == .close)
    }

    func testMalformedInput_isAlwaysExactlyServerErrorThenClose() throws {
        let keyMessage = Data("public_key=".utf8) + (try Self.key.publicKey.exported(.spkiPEM))
        let cases: [(String, [Data], Framing)] = [
            ("garbage", [Data("GET / HTTP/1.1\r\n".utf8)], .legacy),
            ("binary garbage", [Data([0xff, 0x00, 0x13])], .legacy),
            ("half a hello then silence", [Data("Client: O".utf8)], .legacy),
            ("private key as public", [Data("public_key=".utf8) + (try Self.key.exported(.pkcs8PEM))], .legacy),
            ("not PEM after the prefix", [Data("public_key=hello".utf8)], .legacy),
            ("truncated PEM then silence", [keyMessage.prefix(100)], .legacy),
            ("ciphertext one byte short then silence", [Data("Client: OK".utf8), Data("encrypted_message=".utf8) + Data(count: 127)], .legacy),
            ("undecryptable ciphertext", [Data("Client: OK".utf8), Data("encrypted_message=".utf8) + Data(repeating: 0x42, count: 128)], .legacy),
            ("something other than Quit", [Data("Client: OK".utf8), Data("Quit".utf8)], .legacy),
            ("more than the limit", [Data("public_key=-----BEGIN PUBLIC KEY-----".utf8) + Data(repeating: 0x41, count: 2000)], .legacy),
            ("zero-length frame", [Data([0, 0, 0, 0])], .framed),
            ("frame over the limit", [Data([0, 1, 0, 0]) + Data(count: 10)], .framed),
            ("frame shorter than its length then silence", [Data([0, 0, 0, 20]) + Data("Client: OK".utf8)], .framed),
            ("two messages in one frame", [Framing.framed.encode(Data("Client: OKQuit".utf8))], .framed),
        ]
        for (name, chunks, framing) in cases {
            let (bytes, closed) = wire(feed(chunks, framing: framing))
            let keyReply = framing.encode(Data("public_key=".utf8) + (try Self.key.publicKey.exported(.spkiPEM)) + Data("\n".utf8))
            let errorReply = framing.encode(Data("Server: ERROR".utf8))
            XCTAssertTrue(bytes == errorReply || bytes == keyReply + errorReply, "\(name): \(String(decoding: bytes, as: UTF8.self))")
            XCTAssertTrue(closed, name)
        }
    }

    func testSilenceBeforeAnyByte_isNotAnError() {
        XCTAssertEqual(feed([], idleAfter: true), [])
    }

    /// A 1024-bit OAEP ciphertext that contains `\r\n`: found by encrypting until one does
    /// (about 0.2% of ciphertexts do), so the test does not depend on luck.
    func ciphertextContainingCRLF() throws -> (Data, Data) {
        for attempt in 0..<100_000 {
            let plaintext = Data("attempt \(attempt)".utf8)
            let ciphertext = try Self.key.publicKey.encrypt(plaintext, padding: .oaepSHA256)
            if ciphertext.firstRange(of: Data([0x0d, 0x0a])) != nil { return (plaintext, ciphertext) }
        }
        throw XCTSkip("no CRLF ciphertext found")
    }

    func testCiphertextWithCRLF_passesIntactAndTheTutorialQuirkCorruptsIt() throws {
        let (plaintext, ciphertext) = try ciphertextContainingCRLF()
        let message = Data("encrypted_message=".utf8) + ciphertext
        let good = feed([Data("Client: OK".utf8), message], idleAfter: false)
        XCTAssertTrue(good.contains(.event(.decrypted(plaintext))))
        XCTAssertEqual(wire(good).bytes.suffix(10), Data("Server: OK".utf8))
        let stripped = feed([Data("Client: OK".utf8), message], quirk: ._TUTORIAL_STRIP_CRLF)
        XCTAssertFalse(stripped.contains(.event(.decrypted(plaintext))))
        XCTAssertEqual(wire(stripped).bytes.suffix(13), Data("Server: ERROR".utf8))
    }
}

/// docs/PROTOCOL.md, "PEM line ends" (issue 14; `crosscheck fuzz --seed 4242` found a BEGIN line
/// ending in a lone CR): LF, CRLF or a lone CR; the BEGIN line must end in one; on the wire one line
/// end may follow the END line and belongs to the key message, in framed mode too.
final class PEMLineEndTests: XCTestCase {
    static let serverKey = try! RSAPrivateKey(bits: 1024)
    static let clientPEM = try! RSAPrivateKey(bits: 1024).publicKey.exported(.spkiPEM)

    func events(_ pem: Data, framing: Framing) -> [SessionEvent] {
        let server = RSASocketServer(config: RSASocketServerConfig(padding: .oaepSHA256, framing: framing, privateKey: Self.serverKey))
        var actions = server.receive(framing.encode(Data("public_key=".utf8) + pem))
        if !server.closed { actions += server.idle() }
        return actions.compactMap { if case let .event(event) = $0 { return event } else { return nil } }
    }

    func replacing(_ old: String, _ new: String, in data: Data, once: Bool = false) -> Data {
        let text = String(decoding: data, as: UTF8.self)
        guard once, let range = text.range(of: old) else { return Data(text.replacingOccurrences(of: old, with: new).utf8) }
        return Data(text.replacingCharacters(in: range, with: new).utf8)
    }

    func testLoneCRLineEnds_areLineEndsEverywhere() throws {
        let loneCRBegin = replacing("-----\n", "-----\r", in: Self.clientPEM, once: true)
        for (name, pem) in [("BEGIN line ends in CR", loneCRBegin), ("all CR", replacing("\n", "\r", in: Self.clientPEM)),
                            ("all CRLF", replacing("\n", "\r\n", in: Self.clientPEM))] {
            XCTAssertEqual(try RSAPublicKey(importing: pem).info, try RSAPublicKey(importing: Self.clientPEM).info, name)
            for framing in Framing.allCases { XCTAssertEqual(events(pem, framing: framing), [.sentCiphertext], "\(name) \(framing)") }
        }
    }

    func testBeginLineWithoutALineEnd_isRefused() {
        let glued = replacing("-----\n", "-----", in: Self.clientPEM, once: true)
        XCTAssertThrowsError(try RSAPublicKey(importing: glued)) {
            guard case WireCryptoError.malformedKey(let reason, _) = $0 else { return XCTFail("\($0)") }
            XCTAssertTrue(reason.contains("BEGIN line does not end in a line end"), reason)
        }
        guard case .error? = events(glued, framing: .legacy).first else { return XCTFail("\(events(glued, framing: .legacy))") }
    }

    func testOneLineEndAfterTheEndLine_belongsToTheKeyMessage() {
        for tail in ["\r", "\n", "\r\n"] {
            XCTAssertEqual(events(Self.clientPEM + Data(tail.utf8), framing: .framed), [.sentCiphertext], tail.debugDescription)
        }
        guard case .error? = events(Self.clientPEM + Data("\n\r".utf8), framing: .framed).first else {
            return XCTFail("two line ends after END in one frame must be an error")
        }
    }
}
