import Foundation
import XCTest
@testable import WireProtocol
import WireCrypto

/// `length_of = "next"` (a length prefix inside a message) and textbook RSA of a raw secret, as
/// ProPorygon/TheOgreProtocol's directory authority has them: "r", then struct.pack("!I", len(ct)) + ct,
/// ct = PyCrypto's pub.encrypt(aes_key, 0)[0] (long_to_bytes: a leading zero byte dropped).
final class DescribedLengthToldTests: XCTestCase {
    func fixture() throws -> ProtocolDescription { try ProtocolDescription(toml: DescriptionFixture.text("length-told-textbook-secret")) }
    func key() throws -> RSAPrivateKey { try RSAPrivateKey(pemRepresentation: DescribedTextbookRSATests.pem) }

    func testSplitAndJoin_byTheLengthField() throws {
        let parts = try XCTUnwrap({ () -> [DescribedValue]? in
            if case let .concat(parts)? = try fixture().conversations[0].steps[0].send?.kind { return parts }
            return nil
        }())
        let description = try fixture()
        for ciphertext in [Data(repeating: 0x11, count: 128), Data(repeating: 0x22, count: 127), Data([0x33])] {
            let body = try XCTUnwrap(DescribedConcat.join(parts, [Data("r".utf8), Data(), ciphertext]))
            XCTAssertEqual(body, Data("r".utf8) + Data([0, 0, 0, UInt8(ciphertext.count)]) + ciphertext)
            XCTAssertEqual(DescribedConcat.split(parts, body, fixedLength: description.fixedLength(of:)), [Data("r".utf8), Data([0, 0, 0, UInt8(ciphertext.count)]), ciphertext])
        }
        // A length that runs past the end, or leaves bytes after the part: no split.
        for (length, count) in [(200, 128), (100, 128), (0, 1)] {
            let body = Data("r".utf8) + Data([0, 0, 0, UInt8(length)]) + Data(repeating: 0x44, count: count)
            XCTAssertNil(DescribedConcat.split(parts, body, fixedLength: description.fixedLength(of:)), "\(length) for \(count)")
        }
        // A part longer than its length field holds cannot be joined.
        let oneByte = [DescribedValue(kind: .lengthOfNext(bytes: 1), line: 1, keyPath: "length"), DescribedValue(kind: .text("x"), line: 1, keyPath: "part")]
        XCTAssertEqual(DescribedConcat.join(oneByte, [Data(), Data(count: 255)])?.first, 255)
        XCTAssertNil(DescribedConcat.join(oneByte, [Data(), Data(count: 256)]))
    }

    /// The fixture through both parties: the client's message is "r", the ciphertext's length and the
    /// ciphertext; the server learns the 32-byte key, and answers its length-told AES-CBC (IV "0" * 16).
    func testFixture_conversation() throws {
        let description = try fixture()
        let key = try key()
        let client = try DescribedParty(description: description, conversation: "route", role: .client, knownPublicKeys: ["directory": key.publicKey])
        let server = try DescribedParty(description: description, conversation: nil, role: .server, privateKeys: ["directory": key])
        guard case let .bytes(sent)? = try client.nextMessage() else { return XCTFail("no message") }
        XCTAssertEqual(sent.prefix(5), Data("r".utf8) + Data([0, 0, 0, 128]))
        XCTAssertEqual(sent.count, 133)
        try server.receive(.bytes(sent))
        guard case let .bytes(answer)? = try server.nextMessage() else { return XCTFail("no answer") }
        let length = answer.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        XCTAssertEqual(length, answer.count - 4)
        XCTAssertEqual(length % 16, 0)
        try client.receive(.bytes(answer))
        XCTAssertTrue(client.isDone && server.isDone)
        XCTAssertNil(client.refusal)
    }

    /// PyCrypto writes long_to_bytes(c): one ciphertext in 256 is 127 bytes, told as such. The server
    /// takes it; a secret that begins with 0x00 arrives as 31 bytes and is refused.
    func testServer_takesAShortCiphertext_andRefusesAShortSecret() throws {
        let description = try fixture()
        let key = try key()
        func offer(_ secret: Data, cut: Bool) throws -> DescribedParty {
            var ciphertext = try key.publicKey._WEAK_AND_INSECURE_textbookEncrypt(secret)
            if cut { ciphertext = Data(ciphertext.drop { $0 == 0 }) }
            let server = try DescribedParty(description: description, conversation: nil, role: .server, privateKeys: ["directory": key])
            try? server.receive(.bytes(Data("r".utf8) + Data([0, 0, 0, UInt8(ciphertext.count)]) + ciphertext))
            return server
        }
        var short: Data?
        for _ in 0..<20_000 {
            let secret = Data([0x01]) + secureRandomBytes(31)
            if try key.publicKey._WEAK_AND_INSECURE_textbookEncrypt(secret).first == 0 { short = secret; break }
        }
        let secret = try XCTUnwrap(short)
        let taken = try offer(secret, cut: true)
        XCTAssertNil(taken.refusal)
        guard case .bytes? = try taken.nextMessage() else { return XCTFail("no answer") }
        let refused = try offer(Data([0x00]) + secureRandomBytes(31), cut: false)
        XCTAssertEqual(refused.refusal?.reason, "secret k arrived as 31 bytes; the description says 32")
    }

    /// A probe that needs a ciphertext with a property (remote's c + n) draws other secrets of the
    /// party's own: textbook RSA gives one secret one ciphertext. The secret drawn is the one learned.
    func testCiphertextWithAProperty_drawsAnotherSecret() throws {
        let description = try fixture()
        let key = try key()
        let lowFirstByte: @Sendable (Data) -> Bool = { $0.first.map { $0 < 0x04 } ?? false }  // one ciphertext in 64
        let client = try DescribedParty(description: description, conversation: "route", role: .client, knownPublicKeys: ["directory": key.publicKey])
        client.probe = .rsaCiphertextWhere(lowFirstByte)
        guard case let .bytes(sent)? = try client.nextMessage() else { return XCTFail("no message") }
        let ciphertext = Data(sent.dropFirst(5))
        XCTAssertLessThan(ciphertext.first ?? 0xff, 0x04)
        let server = try DescribedParty(description: description, conversation: nil, role: .server, privateKeys: ["directory": key])
        try server.receive(.bytes(sent))
        XCTAssertEqual(server.knownSecrets["k"], client.knownSecrets["k"])
        XCTAssertEqual(try DescribedBytes.textbookDecrypt(ciphertext, with: key, name: "directory"), client.knownSecrets["k"])
    }

    func testDescription_rules() throws {
        let fixture = DescriptionFixture.text("length-told-textbook-secret")
        let refused: [(String, String, String)] = [
            ("{ length_of = \"next\" }, { rsa = \"directory\", padding = \"none\", carries = \"secret:k\" }",
             "{ rsa = \"directory\", padding = \"none\", carries = \"secret:k\" }, { rsa = \"directory\", padding = \"none\", carries = \"secret:k\" }",
             "a `concat` can have one part of unknown length"),
            ("[{ text = \"r\" }, { length_of = \"next\" }, { rsa = \"directory\", padding = \"none\", carries = \"secret:k\" }]",
             "[{ text = \"r\" }, { rsa = \"directory\", padding = \"none\", carries = \"secret:k\" }, { length_of = \"next\" }]", "this one has none"),
            ("{ length_of = \"next\" }, { rsa", "{ length_of = \"next\" }, { length_of = \"next\" }, { rsa", "this one has another length after it"),
            ("send = { concat = [{ length_of = \"next\" }, { sealed", "send = { concat = [{ sealed = \"k\", cipher = \"aes-ecb\" }, { length_of = \"next\" }, { sealed", "cannot come after"),
            ("length_of = \"next\" }, { rsa", "length_of = \"next\", bytes = 3 }, { rsa", "bytes"),
        ]
        assertRefused(fixture, refused)
        let alone = fixture.replacingOccurrences(of: "send = { concat = [{ length_of = \"next\" }, { sealed = \"k\", cipher = \"aes-cbc\", iv = \"fixed:30303030303030303030303030303030\", carries = \"any-text\" }] }",
                                                 with: "send = { length_of = \"next\" }")
        XCTAssertNotEqual(alone, fixture)
        XCTAssertThrowsError(try ProtocolDescription(toml: alone)) { error in
            XCTAssertTrue("\(error)".contains("is a part of a `concat`"), "\(error)")
        }
    }
}
