import Foundation
import XCTest
@testable import WireProtocol
import WireCrypto

/// `pickle = [...]` values and per-character RSA's `offset`, as NithinYesudas/Networking_Lab_Python's
/// rsa_client.py and rsa_server.py have them: `pickle.dumps((e, n, msg))`, answered with
/// `chr(pow(ord(c) - ord('A'), e, n))` for each character.
final class DescribedPickleTests: XCTestCase {
    typealias Item = DescribedPickle.Item

    static func integer(_ value: Int) -> Item {
        var bytes: [UInt8] = []
        var rest = value
        while rest > 0 { bytes.insert(UInt8(rest & 0xff), at: 0); rest >>= 8 }
        return .integer(Data(bytes))
    }

    /// CPython 3.11's own `pickle.dumps(obj, protocol=4).hex()` (and protocol 5 for the last).
    static let written: [([Item], String)] = [
        ([integer(7), integer(77), .text("HELLO")], "8004950f000000000000004b074b4d8c0548454c4c4f9487942e"),
        ([integer(431), integer(589), .text("Hola é")], "80049513000000000000004daf014d4d028c07486f6c6120c3a99487942e"),
        ([integer(0), integer(255), integer(256), integer(65535), integer(65536), integer(0x7fff_ffff), integer(0x8000_0000)],
         "8004951f00000000000000284b004bff4d00014dffff4a000001004affffff7f8a05000000800074942e"),
    ]

    func testWriter_writesWhatCPythonWrites() throws {
        for (items, hex) in Self.written {
            XCTAssertEqual(DescribedPickle.encode(items)?.hexString, hex)
            XCTAssertEqual(DescribedPickle.decode(try XCTUnwrap(Data(hexString: hex))), items)
        }
        // (65537, 2**40, 'x' * 300): LONG1 and BINUNICODE.
        let long = DescribedPickle.encode([Self.integer(65537), Self.integer(1 << 40), .text(String(repeating: "x", count: 300))])
        XCTAssertEqual(long?.prefix(29).hexString, "80049542010000000000004a010001008a06000000000001582c010000")
        // (3, int('c' * 512, 16), ''): a 2048-bit n with its top bit set, LONG4 of 257 bytes.
        let n = Data(repeating: 0xcc, count: 256)
        let big = try XCTUnwrap(DescribedPickle.encode([Self.integer(3), .integer(n), .text("")]))
        XCTAssertEqual(big.prefix(18).hexString, "8004950e010000000000004b038b01010000")
        XCTAssertEqual(big.suffix(7).hexString, "008c009487942e")
        XCTAssertEqual(DescribedPickle.decode(big), [Self.integer(3), .integer(n), .text("")])
        // Protocol 5 (CPython 3.14's default): ('é',).
        XCTAssertEqual(DescribedPickle.decode(try XCTUnwrap(Data(hexString: "80059508000000000000008c02c3a99485942e"))), [.text("é")])
    }

    func testReader_takesNothingElse() throws {
        let refused = [
            "80034b074b4d580500000048454c4c4f71008771012e",                       // protocol 3 (no frame, BINPUT)
            "80024b074b4d580500000048454c4c4f71008771012e",                       // protocol 2
            "8004951c000000000000004b074b4d8c086275696c74696e73948c057072696e7494939487942e",  // a global: builtins.print
            "8004950b000000000000004b078c014194680087942e",                       // a repeated str as BINGET
            "80049512000000000000004afbffffff4b4d8c0548454c4c4f9487942e",         // a negative int
            "8004950f000000000000004b074b4d8c0548454c4c4f9487942e00",             // a byte after STOP
            "8004950e000000000000004b074b4d8c0548454c4c4f9487942e",               // a frame length that is not the frame's
            "8004950f000000000000004b074b4d8c0548454c4c4f9487",                   // cut short
            "8004950f000000000000004b074b4d8c05ff454c4c4f9487942e",               // not UTF-8
            "",
        ]
        for hex in refused {
            XCTAssertNil(DescribedPickle.decode(try XCTUnwrap(Data(hexString: hex))), hex)
        }
    }

    /// The fixture through the described client and server: the client's pickle is (e, n, message),
    /// and the answer is Nithin's chr(pow(ord(c) - 65, e, n)), which the client reads back.
    func testFixture_conversation_withItsOffset() throws {
        let description = try ProtocolDescription(toml: DescriptionFixture.text("pickled-key-per-character"))
        let key = try RSAPrivateKey._INSECURE_toyKey(p: 11, q: 13, e: 7)
        let client = try DescribedParty(description: description, conversation: "encrypt-for-me", role: .client, privateKeys: ["client": key])
        let server = try DescribedParty(description: description, conversation: nil, role: .server)
        let sent = try XCTUnwrap(try client.nextMessage())
        XCTAssertEqual(sent, .bytes(try XCTUnwrap(DescribedPickle.encode([Self.integer(7), Self.integer(143), .text("HELLOPI")]))))
        try server.receive(sent)
        XCTAssertEqual(server.knownPublicKeys["client"]?.toyNumbers?.n, 143)
        let answer = try XCTUnwrap(try server.nextMessage())
        // Python: ''.join(chr(pow(ord(c) - 65, 7, 143)) for c in 'HELLOPI').encode().hex()
        XCTAssertEqual(answer, .bytes(try XCTUnwrap(Data(hexString: "0652c284c284357339"))))
        try client.receive(answer)
        XCTAssertTrue(client.isDone && server.isDone)
        XCTAssertEqual(client.received["message"], Data("HELLOPI".utf8))

        // The answer without the offset (ord(c) itself) reads back as another text: refused.
        let unshifted = try key.publicKey._WEAK_AND_INSECURE_perCharacterEncrypt("HELLOPI")
        let again = try DescribedParty(description: description, conversation: "encrypt-for-me", role: .client, privateKeys: ["client": key])
        _ = try again.nextMessage()
        XCTAssertThrowsError(try again.receive(.bytes(Data(unshifted.utf8))))
    }

    func testServer_refusesAPickleItDoesNotTake() throws {
        let description = try ProtocolDescription(toml: DescriptionFixture.text("pickled-key-per-character"))
        func refusal(_ items: [Item]) throws -> String? {
            let server = try DescribedParty(description: description, conversation: nil, role: .server)
            try? server.receive(.bytes(try XCTUnwrap(DescribedPickle.encode(items))))
            return server.refusal?.reason
        }
        XCTAssertEqual(try refusal([Self.integer(7), Self.integer(143)]), "the message is not a pickle of 3 items (int, int, str) as pickle.dumps writes one")
        XCTAssertEqual(try refusal([Self.integer(7), .text("143"), .text("HELLOPI")]), "item 2 of the pickle is a str where an int is wanted")
        XCTAssertTrue(try refusal([Self.integer(1), Self.integer(143), .text("HELLOPI")])?.hasPrefix("the key's numbers are not a valid RSA key") ?? false)
        XCTAssertTrue(try refusal([Self.integer(7), Self.integer(1 << 20), .text("HELLOPI")])?.hasPrefix("the key's numbers are not a valid RSA key") ?? false)
        XCTAssertEqual(try refusal([Self.integer(7), Self.integer(143), .text("HELLO")]), "the message in the clear is not the conversation's message")
    }

    func testDescription_rules_andWeakness() throws {
        let fixture = DescriptionFixture.text("pickled-key-per-character")
        XCTAssertEqual(try ProtocolDescription(toml: fixture).weaknesses.filter { $0.contains("pickle") }, [
            "conversation[1].step[1].send (line 20): a Python pickle (a server that reads it with pickle.loads runs whatever code a client sends)"])
        let refused: [(String, String, String)] = [
            ("{ public_key = \"client\", format = \"n\" }, ", "", "a pickle holds key client's e and n once each"),
            ("format = \"n\"", "format = \"pem-spki\"", "format = \"e\" or \"n\""),
            ("{ plain = \"message\" }", "{ digest = \"sha256\" }", "a pickle item is a key's e or n, or text"),
            ("{ plain = \"message\" }", "{ plain = \"message\", encoding = \"hex\" }", "a pickle item is a key's e or n, or text"),
            ("offset = 65, ", "offset = -1, ", "offset"),
            ("message = \"HELLOPI\"", "message = \"hello pi\"", "carries characters from 65 to 192"),
            ("padding = \"per-character\", offset = 65", "padding = \"oaep-sha256\", offset = 65", "offset is for padding = \"per-character\" only"),
        ]
        assertRefused(fixture, refused)
        // e and n are pickle items only.
        let alone = fixture.replacingOccurrences(of: "send = { pickle = [{ public_key = \"client\", format = \"e\" }, { public_key = \"client\", format = \"n\" }, { plain = \"message\" }] }",
                                                 with: "send = { public_key = \"client\", format = \"e\" }")
        XCTAssertNotEqual(alone, fixture)
        XCTAssertThrowsError(try ProtocolDescription(toml: alone))
    }
}
