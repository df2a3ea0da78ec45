import Foundation
import XCTest
@testable import WireProtocol
import WireCrypto

/// Per-character RSA with a toy key (`padding = "per-character"`, `bits` 8 to 15) and `repeat =
/// "received"`, as a teaching server has them (corpus: dianaxime/Lab6-Cifrado-PublicKeyEncription,
/// rsa.py `chr(ord(c) ** e % n)`, server.py `sc.send(recibido)`).
final class DescribedPerCharacterRSATests: XCTestCase {
    /// dianaxime's committed servpub.key and servpriv.key: e = d = 431, n = 589 = 19 · 31
    /// (431² = 185761 = 344 · 540 + 1, φ = 540).
    func dianaximeKey() throws -> RSAPrivateKey { try RSAPrivateKey._INSECURE_toyKey(p: 19, q: 31, e: 431) }

    /// Python's own `''.join(chr(pow(ord(c), 431, 589)) for c in 'Hello, Pi!').encode().hex()`.
    static let helloCiphertextHex = "c8a2c3a1c8bdc8bdc78ec49ac7b1c39615c499"

    func testPerCharacter_knownAnswers_bothWays() throws {
        let key = try dianaximeKey()
        let ciphertext = try DescribedBytes.rsaEncrypt(Data("Hello, Pi!".utf8), to: key.publicKey, padding: .perCharacter)
        XCTAssertEqual(ciphertext.hexString, Self.helloCiphertextHex)
        XCTAssertEqual(try DescribedBytes.perCharacterDecrypt(ciphertext, with: key, name: "server"), Data("Hello, Pi!".utf8))
        // pow(ord(c), 431, 589) for "hola", as Python computes it.
        XCTAssertEqual(try key.publicKey._WEAK_AND_INSECURE_perCharacterEncrypt("hola").unicodeScalars.map(\.value), [55, 462, 573, 314])
        let fromFile = try RSAPublicKey(_INSECURE_toyModulus: 589, exponent: 431)
        XCTAssertEqual(try fromFile._WEAK_AND_INSECURE_perCharacterEncrypt("Hello, Pi!"), String(decoding: ciphertext, as: UTF8.self))
        XCTAssertEqual(fromFile.toyNumbers?.n, 589)
        XCTAssertNil(try RSAPrivateKey(bits: 2048).publicKey.toyNumbers)
    }

    func testToyKeys_haveTheirBits_andCarryEveryASCIICharacter() throws {
        let ascii = String(String.UnicodeScalarView((0..<128).map { Unicode.Scalar(UInt8($0)) }))
        for bits in ToyRSA.bits {
            for _ in 0..<12 {
                let key = try RSAPrivateKey._INSECURE_toyKey(bits: bits)
                let (n, e) = try XCTUnwrap(key.publicKey.toyNumbers)
                XCTAssertEqual(Int.bitWidth - n.leadingZeroBitCount, bits)
                XCTAssertTrue(ToyRSA.moduli.contains(n) && e >= 3 && e < n && e % 2 == 1, "n = \(n), e = \(e)")
                let ciphertext = try key.publicKey._WEAK_AND_INSECURE_perCharacterEncrypt(ascii)
                XCTAssertEqual(try key._WEAK_AND_INSECURE_perCharacterDecrypt(ciphertext), ascii, "n = \(n), e = \(e)")
                // A toy key travels as PEM, as every key of a cast does to PythonRef.
                XCTAssertTrue(String(decoding: try key.exported(.pkcs8PEM), as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
            }
        }
        XCTAssertThrowsError(try RSAPrivateKey._INSECURE_toyKey(bits: 16))
        XCTAssertThrowsError(try RSAPrivateKey._INSECURE_toyKey(p: 19, q: 31, e: 5))   // gcd(5, 540) = 5
        XCTAssertThrowsError(try RSAPublicKey(_INSECURE_toyModulus: 589, exponent: 1))
        XCTAssertThrowsError(try RSAPublicKey(_INSECURE_toyModulus: 91, exponent: 5))    // n below 128
        XCTAssertThrowsError(try RSAPublicKey(_INSECURE_toyModulus: 40_001, exponent: 7)) // ciphertexts could reach the surrogates
        // Every other import keeps its floor: a toy key's PEM is not an RSA key crosscheck takes from a peer.
        XCTAssertThrowsError(try RSAPublicKey(importing: try dianaximeKey().publicKey.exported(.spkiPEM)))
    }

    /// The fixture through the described client and server: the ciphertext is each character's
    /// cᵉ mod n, and the server's answer is those bytes again.
    func testFixture_conversation_isEchoed() throws {
        let description = try ProtocolDescription(toml: DescriptionFixture.text("per-character-rsa-echo"))
        let key = try dianaximeKey()
        let client = try DescribedParty(description: description, conversation: "echoed", role: .client,
                                        knownPublicKeys: ["server": key.publicKey], message: Data("Hello, Pi!".utf8))
        let server = try DescribedParty(description: description, conversation: nil, role: .server, privateKeys: ["server": key])
        let sent = try XCTUnwrap(try client.nextMessage())
        XCTAssertEqual(sent, .bytes(try XCTUnwrap(Data(hexString: Self.helloCiphertextHex))))
        try server.receive(sent)
        XCTAssertEqual(server.received["message"], Data("Hello, Pi!".utf8))
        let answer = try XCTUnwrap(try server.nextMessage())
        XCTAssertEqual(answer, sent)
        try client.receive(answer)
        XCTAssertTrue(client.isDone && server.isDone)
        XCTAssertNil(client.refusal)
    }

    func testRefusals_badText_aCharacterNotBelowN_empty_andAnAnswerThatDiffers() throws {
        let description = try ProtocolDescription(toml: DescriptionFixture.text("per-character-rsa-echo"))
        let key = try dianaximeKey()
        func serverRefusal(_ bytes: Data) throws -> String? {
            let server = try DescribedParty(description: description, conversation: nil, role: .server, privateKeys: ["server": key])
            try? server.receive(.bytes(bytes))
            return server.refusal?.reason
        }
        XCTAssertEqual(try serverRefusal(Data([0xc8])), "the per-character RSA ciphertext is not UTF-8 text")
        XCTAssertEqual(try serverRefusal(Data()), "the per-character RSA ciphertext is empty")
        XCTAssertEqual(try serverRefusal(Data("a\u{24d}".utf8)), "the per-character RSA ciphertext has a character not below n = 589 (U+024D)")  // U+024D = 589 = n
        XCTAssertNil(try serverRefusal(Data("\u{24c}".utf8)))  // n − 1 decrypts

        let client = try DescribedParty(description: description, conversation: "echoed", role: .client, knownPublicKeys: ["server": key.publicKey])
        guard case let .bytes(sent)? = try client.nextMessage() else { return XCTFail("no message") }
        XCTAssertThrowsError(try client.receive(.bytes(sent.dropLast()))) { error in
            XCTAssertTrue((error as? DescribedRefusal)?.reason.hasPrefix("the answer is not the message sent") ?? false, "\(error)")
        }
    }

    /// The shipped example (dianaxime's server as it is) reads as the fixture does.
    func testExample_reads_andIsReportedWeak() throws {
        let path = DescribedFixtures.root.appendingPathComponent("examples/protocols/per-character-rsa-echo.toml").path
        let example = try ProtocolDescription(contentsOfFile: path)
        XCTAssertEqual(example.keys["server"]?.isToy, true)
        XCTAssertEqual(example.transport.port, 9999)
        XCTAssertEqual(example.weaknesses.filter { $0.contains("per character with a toy key of 10 bits") }.count, 1)
    }

    func testDescription_rules_andWeakness() throws {
        let fixture = DescriptionFixture.text("per-character-rsa-echo")
        XCTAssertEqual(try ProtocolDescription(toml: fixture).weaknesses.filter { $0.contains("per character") }, [
            "conversation[1].step[1].send (line 20): RSA to key server per character with a toy key of 10 bits (each character encrypted alone: a substitution table, read by factoring n or trying each character)"])
        let refused: [(String, String, String)] = [
            ("padding = \"per-character\"", "padding = \"pkcs1\"", "which only padding = \"per-character\" values use"),
            ("bits = 10", "bits = 2048", "padding = \"per-character\" needs a toy key (bits 8 to 15 in [keys.server]); key server has 2048 bits"),
            ("bits = 10", "bits = 16", "keys.server.bits"),
            ("padding = \"per-character\" }", "padding = \"per-character\", carries = \"json-message\" }", "per-character RSA carries text"),
            ("name = \"echoed\"", "name = \"echoed\"\nmessage = \"olé\"", "carries characters below 128"),
            ("padding = \"per-character\" }", "padding = \"per-character\", carries = \"text:ñ\" }", "carries characters below 128"),
            ("send = { repeat = \"received\" }", "send = { repeat = \"sent\" }", "repeat"),
            ("send = { repeat = \"received\" }", "send = { concat = [{ text = \"> \" }, { repeat = \"received\" }] }", "a whole message"),
        ]
        assertRefused(fixture, refused)
        // A server that repeats before it has received anything.
        let first = fixture.replacingOccurrences(of: "from = \"client\"\nsend = { rsa", with: "from = \"server\"\nsend = { repeat = \"received\" }\n\n[[conversation.step]]\nfrom = \"client\"\nsend = { rsa")
        XCTAssertNotEqual(first, fixture)
        XCTAssertThrowsError(try ProtocolDescription(toml: first)) { error in
            XCTAssertTrue("\(error)".contains("the server has received none before this step"), "\(error)")
        }
    }
}
