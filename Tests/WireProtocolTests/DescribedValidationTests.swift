import Foundation
import XCTest
@testable import WireProtocol

/// Every refusal of docs/PROTOCOL-DESCRIPTIONS.md ("What a description may not say") names the key
/// and its line, and says what is wrong.
final class DescribedValidationTests: XCTestCase {
    func refusal(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> DescriptionError? {
        do {
            _ = try ProtocolDescription(toml: text)
            XCTFail("accepted:\n\(text)", file: file, line: line)
            return nil
        } catch let error as DescriptionError {
            return error
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    func expect(_ text: String, line: Int, key: String, words: [String], file: StaticString = #filePath, sourceLine: UInt = #line) {
        guard let error = refusal(text, file: file, line: sourceLine) else { return }
        XCTAssertEqual(error.line, line, "\(error)", file: file, line: sourceLine)
        let message = error.description
        for word in [key] + words { XCTAssertTrue(message.contains(word), "'\(word)' not in: \(message)", file: file, line: sourceLine) }
    }

    static let tcp = "name = \"x\"\n[transport]\nkind = \"tcp\"\n"          // lines 1-3
    static let session = "[secrets.s]\nmade_by = \"preshared\"\n"              // 2 lines
    static let serverKey = "[keys.server]\nholder = \"server\"\n"           // 2 lines

    /// `max_message` written out is a claim `remote` probes; the default is only the engines' bound.
    func testMaxMessage_statedOrDefault() throws {
        let seed = try String(contentsOf: DescribedFixtures.root.appendingPathComponent("protocols/rsa-socket.toml"), encoding: .utf8)
        let framed = seed.replacingOccurrences(of: "framing = \"legacy\"\n", with: "framing = \"length-prefix\"\n")
        XCTAssertNotEqual(framed, seed)
        let stated = try ProtocolDescription(toml: framed.replacingOccurrences(of: "framing = \"length-prefix\"\n", with: "framing = \"length-prefix\"\nmax_message = 4096\n"))
        XCTAssertEqual(stated.transport.maxMessage, 4096)
        XCTAssertTrue(stated.transport.statesMaxMessage)
        let left = try ProtocolDescription(toml: framed)
        XCTAssertEqual(left.transport.maxMessage, 65536)
        XCTAssertFalse(left.transport.statesMaxMessage)
    }

    /// `also_accepts`: RSA keys only, RSA formats, none repeated, text with text and binary with binary.
    func testAlsoAccepts_mistakesNameTheKeyAndLine() throws {
        let seed = try String(contentsOf: DescribedFixtures.root.appendingPathComponent("protocols/rsa-socket.toml"), encoding: .utf8)
        let written = #"also_accepts = ["pem-pkcs1"]"#
        let line = seed.components(separatedBy: "\n").firstIndex { $0.contains(written) }.map { $0 + 1 } ?? 0
        XCTAssertGreaterThan(line, 0)
        let key = "conversation[2].step[1].send.concat[2].also_accepts"
        for (list, words) in [(#"["der-spki"]"#, ["must be text as format \"pem-spki\" is", "pem-pkcs1"]),
                              (#"["pem-pkcs1", "pem-pkcs1"]"#, ["repeats a format (\"pem-pkcs1\")"]),
                              (#"["pem-spki"]"#, ["repeats a format (\"pem-spki\")"]),
                              (#"["x962"]"#, ["lists RSA public-key formats", "found \"x962\""]),
                              (#"["pem-pkcs2"]"#, ["lists RSA public-key formats", "found \"pem-pkcs2\""]),
                              ("[]", ["a list of one or more public-key formats"]),
                              (#""pem-pkcs1""#, ["a list of one or more public-key formats"])] {
            expect(seed.replacingOccurrences(of: written, with: "also_accepts = \(list)"), line: line, key: key, words: words)
        }
    }

    func testSeedDescriptions_areAccepted() throws {
        let rsaSocket = try DescribedFixtures.seed("rsa-socket")
        XCTAssertEqual(rsaSocket.conversations.map(\.name), ["phone-to-pi", "pi-to-phone"])
        XCTAssertEqual(rsaSocket.transport, ProtocolDescription.Transport(kind: .tcp, framing: .legacy, lengthBytes: 4, lineEnd: "\n", maxMessage: 65536, port: 9876))
        XCTAssertFalse(rsaSocket.transport.statesMaxMessage)
        XCTAssertEqual(rsaSocket.keys["server"]?.bits, 2048)
        XCTAssertEqual(rsaSocket.conversations[1].message, Data("Secret message from RPi server".utf8))
        XCTAssertEqual(rsaSocket.conversations[0].steps.last?.closes, true)
        let aesHTTPS = try DescribedFixtures.seed("aes-https")
        XCTAssertEqual(aesHTTPS.secrets["session"], ProtocolDescription.Secret(name: "session", madeBy: .server, bytes: 16, derive: .utf8ZeroPad16, chars: 12, line: 12))
        XCTAssertEqual(aesHTTPS.conversations[0].steps[2].path, "/secure-data")
        XCTAssertEqual(rsaSocket.weaknesses.count, 2, "\(rsaSocket.weaknesses)")
        XCTAssertTrue(rsaSocket.weaknesses.allSatisfy { $0.contains("PKCS#1 v1.5") })
        XCTAssertEqual(aesHTTPS.weaknesses.count, 1)
        XCTAssertTrue(aesHTTPS.weaknesses[0].contains("a password, not a key"))
    }

    func testGCMWithoutIV_isRefused() {
        expect(Self.tcp + Self.session + """
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "client"
        send = { sealed = "s", cipher = "aes-gcm", iv = "none" }
        """, line: 10, key: "conversation[1].step[1].send.iv", words: ["aes-gcm needs an IV", "only for aes-ecb and fernet"])
    }

    func testNonceOfWithoutASiblingThatNamesIt_isRefused() {
        expect(Self.tcp + Self.session + """
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "client"
        send = { json = { data = { sealed = "s", cipher = "aes-cbc", encoding = "base64" }, iv = { nonce_of = "data", encoding = "base64" } } }
        """, line: 10, key: "send.json.iv", words: ["no sibling JSON field \"data\"", "iv = \"field:iv\""])
        expect(Self.tcp + Self.session + """
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "client"
        send = { json = { data = { sealed = "s", cipher = "aes-cbc", iv = "field:nonce", encoding = "base64" } } }
        """, line: 10, key: "send.json.data", words: ["field \"nonce\"", "nonce_of"])
    }

    func testRSAToAKeyTheSenderNeverLearns_isRefused() {
        expect(Self.tcp + Self.serverKey + """
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "client"
        send = { rsa = "server", carries = "message" }
        """, line: 10, key: "conversation[1].step[1].send", words: ["never learns its public half", "public_key = \"server\"", "preshared = true"])
    }

    func testSecretCarriedByASideThatDoesNotMakeIt_isRefused() {
        expect(Self.tcp + Self.session + Self.serverKey + """
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "client"
        send = { text = "hi" }
        [[conversation.step]]
        from = "server"
        send = { public_key = "server" }
        [[conversation.step]]
        from = "server"
        send = { rsa = "server", carries = "secret:s" }
        """, line: 18, key: "step[3].send", words: ["private half is the server's"])
        expect(Self.tcp + "[secrets.s]\nmade_by = \"server\"\n[keys.server]\nholder = \"server\"\npreshared = true\n" + """
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "client"
        send = { rsa = "server", carries = "secret:s" }
        """, line: 13, key: "step[1].send", words: ["carries secret s", "the server makes it", "made_by = \"client\""])
    }

    func testConcatWithTwoPartsOfUnknownLength_isRefused() {
        expect(Self.tcp + Self.serverKey + """
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "server"
        send = { concat = [ { text = "k=" }, { public_key = "server" },
                            { public_key = "server", format = "jwk" } ] }
        """, line: 11, key: "send.concat[3]", words: ["one part of unknown length", "send.concat[2] already is one"])
    }

    func testFramingOnHTTP_isRefused() {
        expect("name = \"x\"\n[transport]\nkind = \"https\"\nframing = \"line\"\n", line: 4, key: "transport.framing", words: ["for `kind = \"tcp\"` only"])
    }

    func testServerFirstInHTTP_isRefused() {
        expect("name = \"x\"\n[transport]\nkind = \"http\"\n" + """
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "server"
        body = { text = "hello" }
        """, line: 6, key: "conversation[1].step[1].from", words: ["begins with the client's request"])
    }

    func testUnknownKeys_suggestTheKnownOne() {
        expect("name = \"x\"\n[transport]\nkind = \"tcp\"\nframming = \"legacy\"\n", line: 4, key: "transport.framming", words: ["did you mean `framing`?"])
        expect(Self.tcp + Self.session + """
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "client"
        send = { sealed = "s", cipher = "aes-cbc", carrys = "message" }
        """, line: 10, key: "send.carrys", words: ["did you mean `carries`?"])
        expect(Self.tcp + "[[conversation]]\nname = \"c\"\n[[conversation.step]]\nfrom = \"client\"\nsend = { txt = \"hi\" }\n",
               line: 8, key: "send.txt", words: ["did you mean `text`?"])
    }

    func testWrongTypesAndValues_nameTheKeyAndWhatIsAllowed() {
        expect(Self.tcp + "[keys.server]\nholder = \"server\"\nbits = 1000\n", line: 6, key: "`keys.server.bits` must be one of 1024, 2048, 3072, 4096; found 1000", words: [])
        expect(Self.tcp + "[keys.server]\nholder = \"server\"\nbits = \"2048\"\n", line: 6, key: "keys.server.bits", words: ["must be an integer; found the string \"2048\""])
        expect("name = \"x\"\n[transport]\nkind = \"udp\"\n", line: 3, key: "transport.kind", words: ["\"tcp\", \"http\", \"https\"", "found \"udp\""])
        expect("name = \"X Y\"\n[transport]\nkind = \"tcp\"\n", line: 1, key: "name", words: ["a-z, 0-9"])
        expect(Self.tcp + "[[conversation]]\nname = \"c\"\n[[conversation.step]]\nfrom = \"client\"\nsend = \"hi\"\n",
               line: 8, key: "conversation[1].step[1].send", words: ["inline table", "the string \"hi\""])
        expect(Self.tcp + "[[conversation]]\nname = \"c\"\n[[conversation.step]]\nfrom = \"client\"\n", line: 6, key: "conversation[1].step[1].send", words: ["is required"])
        expect(Self.tcp + "[secrets.s]\nmade_by = \"client\"\nbytes = 32\n" + """
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "client"
        send = { sealed = "s", cipher = "aes-cbc", tag = "appended" }
        """, line: 11, key: "send.tag", words: ["aes-gcm, chacha20-poly1305 and aes-eax only"])
        expect(Self.tcp + "[secrets.s]\nmade_by = \"preshared\"\nbytes = 16\n" + """
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "client"
        send = { sealed = "s", cipher = "chacha20-poly1305" }
        """, line: 11, key: "send", words: ["needs a 32-byte key"])
        expect("name = \"x\"\n[transport]\nkind = \"tcp\"\nmax_message = 0\n", line: 4, key: "transport.max_message", words: ["1 … 16777216"])
    }

    func testStepsAfterAClose_areRefused() {
        expect(Self.tcp + "[[conversation]]\nname = \"c\"\n[[conversation.step]]\nfrom = \"client\"\nsend = { text = \"a\" }\nthen = \"close\"\n[[conversation.step]]\nfrom = \"server\"\nsend = { text = \"b\" }\n",
               line: 6, key: "conversation[1].step[1].then", words: ["can never happen"])
    }

    func testSyntaxErrors_nameTheLine() {
        expect("name = \"x\"\n[transport]\nkind = \"tcp\n", line: 3, key: "line 3", words: ["not closed"])
    }

    func testOtherImpossibilities() {
        // A sealed value the receiver cannot open: it never learns the secret.
        expect(Self.tcp + "[secrets.s]\nmade_by = \"client\"\n" + """
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "client"
        send = { sealed = "s", cipher = "aes-gcm" }
        """, line: 10, key: "send", words: ["the server never learns secret s"])
        // A binary value in JSON without an encoding.
        expect(Self.tcp + "[secrets.s]\nmade_by = \"preshared\"\n" + """
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "client"
        send = { json = { d = { sealed = "s", cipher = "aes-gcm" } } }
        """, line: 10, key: "send.json.d", words: ["needs an `encoding`"])
        // A key that does not exist.
        expect(Self.tcp + Self.serverKey + "[[conversation]]\nname = \"c\"\n[[conversation.step]]\nfrom = \"server\"\nsend = { public_key = \"sever\" }\n",
               line: 10, key: "send", words: ["no key \"sever\"", "did you mean \"server\"?"])
    }
}
