import Foundation
import XCTest
@testable import WireProtocol
import WireCrypto

/// Textbook RSA (`padding = "none"`, RFC 8017 §5.1.1/§5.1.2) and the `python2-tuple` encoding, as a
/// Python 2 server on PyCrypto 2.6.1 has them (corpus: pritish0803/ECC_ALGO server.py):
/// `str(pub.encrypt(message, 32))` on the wire, `key.decrypt(eval(text))` at the server.
final class DescribedTextbookRSATests: XCTestCase {
    /// A 1024-bit test key (openssl genrsa 1024), here only so that PyCrypto's ciphertexts below can
    /// be read back. It is public: it must never protect anything.
    static let pem = """
-----BEGIN PRIVATE KEY-----
MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBANjBhVDKMI4/azei
N66EtykqSuiaM3lUvXhFabT1ZOg4iJQC+m1zPn3XJ9CmGO1OwK1HwtedavNKfl9v
FOdQs1HUIe5/y0JcNW4CsKG74xEgbbM6hIiNZP/3nFB2EIP5MdPxBp9AqvbIZY62
WMAQWPCskXCNTg/Nm4MQc0x/gSt1AgMBAAECgYEAsp1981459u4xtw2Y3toEaQqt
4dE3+5Kl81cXzYOuHGKBwZ5WqRyfcWl8KMbGob8UrXYGDFFvEX7gdln+GsN4j7/6
gzNYBgRFkguwT9OYfDy5TLbSZHxI2JXqmtAt4dLVdFRyv80zykRAJpuYiauoUHTy
e+r8HaMDPsnO5I13YF0CQQD4hh2cykhL1HjaOS+WEVtbz25sTMqCoYf1n7CA81Zo
ByBNuaaJX08rtuAFy9h5U4CoGKMUqmj5Xl1pHXG4bKDrAkEA30bCh28xHc9aYGLg
Ei7xbbFZ5QI0NIAWBHI1lNXMa7BL/xPIimDcUbtBG/qrePVUWNqx+uI2E1x8dTLe
lRlNHwJAPsB+kaxx/NO1gESYQ2g2jUQfObFaIQnwbpDX3HeVBcdm3LlX16/9KaiP
gGcsTdZL0iYGZ51vzCeLppMMt+iV6QJAG9noxBojp1NJM8LBrqL6bLN1wjJPLslX
dcCFXIZ61GgOYsgl+NTyRqO0EHhpUVJQ7jCBiQkUs7+Sqs/oofKhAwJAOuEO2R4i
WkbsnnoI9QBk51/AtHkn4IVEHzEf2/kiHPdXt4LALZ42FylonX/+kmQDnUeCyhdD
Bh+uPwtNc3zhxQ==
-----END PRIVATE KEY-----
"""

    /// PyCrypto 2.6.1 under Debian 11's python2.7: `str(RSA.importKey(pem).publickey().encrypt(m, 32))`.
    /// The second ciphertext is 126 bytes: PyCrypto writes long_to_bytes(c), without c's two leading zero bytes.
    static let pyCrypto: [(message: String, text: String)] = [
        ("hello pi", #"('=\x0f7\x8bIE\xf2E\x163\xed\x06\xbe\xfa0\xb5\xe5?\x1f\xe3\xbd\xce4\xc1\x95\xf1i\x04\x92\x1e@\x1b\x13j\xd7s\x93\x80\x93\x03\x95\x8f\x88~\xe7+\'\xbe\xfd\xa8\x17GK\x03\xd0\xc3\xc4L\xec\xaa\xcb\xb7+a\xe1 \x8c~\x115eer\x8c\x1f6]\x0f,\xf8\xd1UG@p"\x05\n\xa7\x01E\xee}\xd5\xb5\xf5\xb6\n\x18\xb6K<c\xb8W\xd2$bm\xd6#q\xf3\n\xb3jAv\x84\xe7\xa3\x98\xca\x1f{\xa0\x03\xd6',)"#),
        ("message 46255", #"("\xcd\x8c\xfb\x89\x1f%l\x1b\xd9\x85\xb5$Vt\xd0T<vtPs\xe6\xf7\x17\x88 \xd9L;\xa6\xe0\xd8\x95t[\xe5\x9dX<\xffO\xbf2_]0\xb9\\N0'\x06\x8eZ\xae\xd6`9\xb7\xdf\xe1\xee\xf5\xf5\x17\xe8\x0egb\xd0\x99o\xec\x02\x13G\xc4\xc7\x00\xbc\xa4?\xf6.M'M\xa58\x82\xdb\x19 \x1d\xb1S\x0b\x8e\xaf\x85m\xd3\x9e\xb8\xa0\xe7}\xcaK\x83Z\xad\x05 \xfe1\xe0\tlq\xe7\nM\x8d\x1a\xfc",)"#),
    ]

    /// Python 2.7.18's own output for `str((data,))` (Objects/stringobject.c, PyString_Repr).
    static let python2Texts: [(bytes: [UInt8], text: String)] = [
        ([0x00, 0x7f, 0x80, 0xff, 0x27, 0x22, 0x5c, 0x09, 0x0a, 0x0d, 0x20, 0x61, 0x7e], #"('\x00\x7f\x80\xff\'"\\\t\n\r a~',)"#),
        (Array("it's".utf8), #"("it's",)"#),
        (Array(#"a"b"#.utf8), #"('a"b',)"#),
        ([], #"('',)"#),
    ]

    func testPython2Tuple_writesWhatPython2Writes_andReadsItBack() throws {
        for (bytes, text) in Self.python2Texts {
            XCTAssertEqual(String(decoding: DescribedBytes.encode(Data(bytes), .python2Tuple), as: UTF8.self), text)
            XCTAssertEqual(try DescribedBytes.decode(Data(text.utf8), .python2Tuple, what: "the value"), Data(bytes), text)
        }
    }

    func testPython2Tuple_readsNothingPython2WouldNotWrite() {
        let refused = [#"('\x41',)"#, #"('\X00',)"#, #"('\x0A',)"#, #"('\x09',)"#, #"(b'a',)"#, #"('a')"#, #""a",)"#, #"('a',) "#,
                       #" ('a',)"#, #"("a",)"#, #"('it\'s',)"#, #"('a\q',)"#, #"('a\',)"#, "('\u{7f}',)", "('\t',)", #"('a",)"#, "", "()"]
        for text in refused {
            XCTAssertThrowsError(try DescribedBytes.decode(Data(text.utf8), .python2Tuple, what: "the value"), text) { error in
                XCTAssertEqual((error as? DescribedRefusal)?.reason, "the value is not python2-tuple", text)
            }
        }
    }

    /// PyCrypto's ciphertexts, read as the description's receiver reads them, decrypt to the message.
    func testPyCryptoCiphertexts_decryptToTheirMessages() throws {
        let key = try RSAPrivateKey(pemRepresentation: Self.pem)
        for (message, text) in Self.pyCrypto {
            let ciphertext = try DescribedBytes.decode(Data(text.utf8), .python2Tuple, what: "the RSA ciphertext")
            XCTAssertEqual(try DescribedBytes.textbookDecrypt(ciphertext, with: key, name: "server"), Data(message.utf8))
        }
        XCTAssertEqual(try DescribedBytes.decode(Data(Self.pyCrypto[1].text.utf8), .python2Tuple, what: "").count, 126)
    }

    /// The fixture both ways through the described client and server: the client's ciphertext is
    /// exactly mᵉ mod n (textbook RSA is deterministic), written as Python 2 writes it.
    func testTextbookConversation_bothWays_theCiphertextIsMToTheE() throws {
        let description = try ProtocolDescription(toml: DescriptionFixture.text("textbook-rsa-python2-tuple"))
        let key = try RSAPrivateKey(pemRepresentation: Self.pem)
        let message = Data("hello pi".utf8)
        let client = try DescribedParty(description: description, conversation: "encrypted-message", role: .client, message: message)
        let server = try DescribedParty(description: description, conversation: nil, role: .server, privateKeys: ["server": key])
        try server.receive(try XCTUnwrap(try client.nextMessage()))
        try client.receive(try XCTUnwrap(try server.nextMessage()))
        let sent = try XCTUnwrap(try client.nextMessage())
        guard case let .bytes(bytes) = sent else { return XCTFail("not bytes") }
        let expected = Data("encrypted_message=".utf8) + DescribedBytes.python2Tuple(try key.publicKey._WEAK_AND_INSECURE_textbookEncrypt(message))
        XCTAssertEqual(bytes, expected)
        try server.receive(sent)
        XCTAssertEqual(server.received["message"], message)
        try client.receive(try XCTUnwrap(try server.nextMessage()))
        XCTAssertTrue(client.isDone)
        XCTAssertNil(server.refusal)
    }

    /// The server refuses a ciphertext not below n, an empty one and one longer than the modulus, and
    /// takes PyCrypto's shorter one.
    func testTextbookServer_refusesOutOfRange_andTakesAShortCiphertext() throws {
        let description = try ProtocolDescription(toml: DescriptionFixture.text("textbook-rsa-python2-tuple"))
        let key = try RSAPrivateKey(pemRepresentation: Self.pem)
        func offer(_ ciphertext: Data) throws -> DescribedParty {
            let server = try DescribedParty(description: description, conversation: nil, role: .server, privateKeys: ["server": key])
            try server.receive(.bytes(Data("Client: OK".utf8)))
            _ = try server.nextMessage()
            try? server.receive(.bytes(Data("encrypted_message=".utf8) + DescribedBytes.python2Tuple(ciphertext)))
            return server
        }
        let refusals: [(Data, String)] = [
            (Data(repeating: 0xff, count: 128), "the textbook RSA ciphertext is not below key server's modulus (RFC 8017 §5.1.2 step 1)"),
            (Data(), "the textbook RSA ciphertext has 0 bytes; key server takes 1 to 128"),
            (Data([0x01]) + Data(repeating: 0, count: 128), "the textbook RSA ciphertext has 129 bytes; key server takes 1 to 128"),
        ]
        for (ciphertext, reason) in refusals {
            XCTAssertEqual(try offer(ciphertext).refusal?.reason, reason)
        }
        let short = try DescribedBytes.decode(Data(Self.pyCrypto[1].text.utf8), .python2Tuple, what: "")
        let taker = try offer(short)
        XCTAssertNil(taker.refusal)
        XCTAssertEqual(taker.received["message"], Data("message 46255".utf8))
    }

    /// A probe that needs a ciphertext with a property (remote's rsa-plus-modulus: room for c + n)
    /// draws other messages, since textbook RSA gives one message one ciphertext; a stated message
    /// cannot be redrawn, and its one ciphertext is all there is.
    func testCiphertextWithAProperty_drawsOtherMessages_unlessTheMessageIsStated() throws {
        let fixture = DescriptionFixture.text("textbook-rsa-python2-tuple")
        let key = try RSAPrivateKey(pemRepresentation: Self.pem)
        let lowFirstByte: @Sendable (Data) -> Bool = { $0.first.map { $0 < 0x08 } ?? false }  // one ciphertext in 32
        func probed(_ toml: String) throws -> (DescribedParty, Data) {
            let description = try ProtocolDescription(toml: toml)
            let client = try DescribedParty(description: description, conversation: "encrypted-message", role: .client)
            let server = try DescribedParty(description: description, conversation: nil, role: .server, privateKeys: ["server": key])
            try server.receive(try XCTUnwrap(try client.nextMessage()))
            try client.receive(try XCTUnwrap(try server.nextMessage()))
            client.probe = .rsaCiphertextWhere(lowFirstByte)
            guard case let .bytes(bytes)? = try client.nextMessage() else { throw DescribedRefusal(reason: "no message") }
            return (client, bytes)
        }
        let (client, bytes) = try probed(fixture)
        let ciphertext = try DescribedBytes.decode(Data(bytes.dropFirst("encrypted_message=".utf8.count)), .python2Tuple, what: "")
        XCTAssertLessThan(ciphertext.first ?? 0xff, 0x08)
        XCTAssertEqual(try DescribedBytes.textbookDecrypt(ciphertext, with: key, name: "server"), client.message)

        // "hello pi"'s one ciphertext under this key begins 0x3d: no other message may be drawn.
        let stated = fixture.replacingOccurrences(of: "name = \"encrypted-message\"", with: "name = \"encrypted-message\"\nmessage = \"hello pi\"")
        XCTAssertThrowsError(try probed(stated)) { error in
            XCTAssertTrue("\(error)".contains("no ciphertext with the property in 1 draw (textbook RSA: a fixed message has one ciphertext)"), "\(error)")
        }
    }

    func testDescription_refusesWhatTextbookRSACannotCarry_andReportsItWeak() throws {
        let fixture = DescriptionFixture.text("textbook-rsa-python2-tuple")
        XCTAssertEqual(try ProtocolDescription(toml: fixture).weaknesses.filter { $0.contains("textbook") }, [
            "conversation[1].step[3].send.concat[2] (line 27): RSA to key server with no padding (textbook RSA, RFC 8017 §5.1.1): deterministic, and malleable (c·sᵉ decrypts to m·s)"])
        let startsWithZero = fixture.replacingOccurrences(of: "name = \"encrypted-message\"", with: "name = \"encrypted-message\"\nmessage = \"\\u0000hi\"")
        XCTAssertThrowsError(try ProtocolDescription(toml: startsWithZero)) { error in
            XCTAssertTrue("\(error)".contains("textbook RSA (padding none) to a 1024-bit key carries 1 to 127 bytes not starting with 0x00; the conversation's message has 3 and starts with 0x00"), "\(error)")
        }
        let tooLong = fixture.replacingOccurrences(of: "name = \"encrypted-message\"", with: "name = \"encrypted-message\"\nmessage = \"\(String(repeating: "x", count: 128))\"")
        XCTAssertThrowsError(try ProtocolDescription(toml: tooLong)) { error in
            XCTAssertTrue("\(error)".contains("the conversation's message has 128"), "\(error)")
        }
        let rawSecret = """
        name = "textbook-raw-secret"
        [transport]
        kind = "tcp"
        [keys.server]
        holder = "server"
        preshared = true
        [secrets.k]
        made_by = "client"
        bytes = 16
        [[conversation]]
        name = "wrap"
        [[conversation.step]]
        from = "client"
        send = { rsa = "server", padding = "none", carries = "secret:k" }
        """
        // Taken (ProPorygon/TheOgreProtocol's client sends pub.encrypt(aes_key, 0)): reported weak, and a
        // maker never draws a secret that begins with 0x00, which the receiver's integer would drop.
        let taken = try ProtocolDescription(toml: rawSecret)
        XCTAssertEqual(taken.textbookRawSecrets, ["k"])
        XCTAssertEqual(taken.weaknesses.filter { $0.contains("raw secret") }, [
            "conversation[1].step[1].send (line 14): textbook RSA of raw secret k (RFC 8017 §4.2: one secret in 256 begins with 0x00, which the receiver's integer drops; crosscheck's sender draws another)"])
        let secret = try XCTUnwrap(taken.secrets["k"])
        XCTAssertFalse((0..<4000).contains { _ in DescribedParty.freshSecret(secret, in: taken).first == 0 })
        let hex = try ProtocolDescription(toml: rawSecret.replacingOccurrences(of: "carries = \"secret:k\"", with: "carries = \"secret:k\", carries_as = \"hex\""))
        XCTAssertEqual(hex.textbookRawSecrets, [])
        XCTAssertTrue((0..<4000).contains { _ in DescribedParty.freshSecret(secret, in: hex).first == 0 })  // 1 − (255/256)^4000 ≈ 1 − 2·10⁻⁷
        // A text secret (letters and digits) never begins with 0x00: taken raw.
        XCTAssertNoThrow(try ProtocolDescription(toml: rawSecret.replacingOccurrences(of: "bytes = 16", with: "bytes = 16\nderive = \"utf8-zeropad16\"")))
    }

    /// A textbook RSA value (no known length) before a hex secret (a known one): the receiver splits
    /// the message by the secret's length. (Before, the party counted the secret as unknown too and
    /// sliced past the end of a short message: a trap.)
    func testConcat_textbookBeforeASecret_splitsByTheSecretsLength_andAShortMessageIsRefused() throws {
        let toml = """
        name = "textbook-then-secret"
        [transport]
        kind = "tcp"
        [keys.server]
        holder = "server"
        bits = 1024
        preshared = true
        [secrets.s]
        made_by = "client"
        bytes = 16
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "client"
        send = { concat = [{ text = "m=" }, { rsa = "server", padding = "none" }, { secret = "s", encoding = "hex" }] }
        """
        let description = try ProtocolDescription(toml: toml)
        let key = try RSAPrivateKey(pemRepresentation: Self.pem)
        let secret = Data(repeating: 0xab, count: 16)
        let client = try DescribedParty(description: description, conversation: "c", role: .client, knownPublicKeys: ["server": key.publicKey],
                                        secrets: ["s": secret], message: Data("hello pi".utf8))
        let sent = try XCTUnwrap(try client.nextMessage())
        let server = try DescribedParty(description: description, conversation: nil, role: .server, privateKeys: ["server": key])
        try server.receive(sent)
        XCTAssertNil(server.refusal)
        XCTAssertEqual(server.received["message"], Data("hello pi".utf8))
        for short in ["m=", "m=12345", "m=" + String(repeating: "a", count: 32)] {
            let refuser = try DescribedParty(description: description, conversation: nil, role: .server, privateKeys: ["server": key])
            try? refuser.receive(.bytes(Data(short.utf8)))
            XCTAssertNotNil(refuser.refusal, short)
        }
    }
}
