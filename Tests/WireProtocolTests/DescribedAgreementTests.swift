import Foundation
import XCTest
@testable import WireProtocol
import WireCrypto

/// `made_by = "agreement"`: ECDH on P-256/P-384 and X25519, then HKDF, X9.63 or the shared secret
/// itself. Each agreed key is checked against a derivation done here from the two parties' keys
/// with WireCrypto's primitives and RFC 5869's test vector, not against the engine's own result.
final class DescribedAgreementTests: XCTestCase {
    static let example: String = {
        (try? String(contentsOf: DescribedFixtures.root.appendingPathComponent("examples/protocols/ecdh-p384-hkdf-fernet.toml"), encoding: .utf8)) ?? ""
    }()

    /// A client and a server of `toml`, their key pairs made here (so the test knows them).
    func parties(_ toml: String, type: ProtocolDescription.KeyType, conversation: String) throws -> (DescribedParty, DescribedParty, CurvePrivateKey, CurvePrivateKey) {
        let described = try ProtocolDescription(toml: toml)
        let (clientKey, serverKey) = (try CurvePrivateKey(fresh: type), try CurvePrivateKey(fresh: type))
        let client = try DescribedParty(description: described, conversation: conversation, role: .client, curvePrivateKeys: ["client": clientKey],
                                        message: Data("agreed, then sealed".utf8))
        let server = try DescribedParty(description: described, conversation: nil, role: .server, curvePrivateKeys: ["server": serverKey])
        return (client, server, clientKey, serverKey)
    }

    func testTheExample_P384AndHKDF_agreesTheKeyAnIndependentDerivationGives() throws {
        let (client, server, clientKey, serverKey) = try parties(Self.example, type: .ecP384, conversation: "handshake-echo")
        XCTAssertNil(try runDescribed(client, server))
        XCTAssertTrue(client.isDone && server.isDone)
        XCTAssertEqual(server.received["message"], Data("agreed, then sealed".utf8))
        guard case let .ec(c) = clientKey, case let .ec(s) = serverKey else { return XCTFail("not EC keys") }
        let shared = try c.sharedSecret(with: s.publicKey)
        XCTAssertEqual(shared, try s.sharedSecret(with: c.publicKey))
        XCTAssertEqual(shared.count, 48, "P-384: the x-coordinate, 48 bytes (SEC 1 §3.3.1)")
        let expected = Data(try HKDF.deriveKey(digest: .sha256, inputKeyMaterial: shared, salt: Data(), info: Data("handshake data".utf8), outputByteCount: 32))
        XCTAssertEqual(client.knownSecrets["session"], expected)
        XCTAssertEqual(server.knownSecrets["session"], expected)
    }

    func testHKDF_isRFC5869_testCase1() throws {
        // RFC 5869 A.1: the KDF the engine calls, held to the RFC's own numbers.
        let ikm = Data(repeating: 0x0b, count: 22)
        let okm = try HKDF.deriveKey(digest: .sha256, inputKeyMaterial: ikm, salt: Data(hexString: "000102030405060708090a0b0c")!,
                                     info: Data(hexString: "f0f1f2f3f4f5f6f7f8f9")!, outputByteCount: 42)
        XCTAssertEqual(Data(okm).hexString, "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    /// One client key message, one server key message, one sealed message each way.
    static func inline(type: String, format: String, encoding: String = "raw", kdf: String, extra: String = "", bytes: Int = 32,
                       derive: String = "raw", cipher: String = "aes-gcm") -> String {
        let enc = encoding == "raw" ? "" : ", encoding = \"\(encoding)\""
        return """
        name = "agree"
        [transport]
        kind = "tcp"
        framing = "length-prefix"
        [keys.client]
        type = "\(type)"
        holder = "client"
        [keys.server]
        type = "\(type)"
        holder = "server"
        [secrets.k]
        made_by = "agreement"
        keys = ["client", "server"]
        kdf = "\(kdf)"
        bytes = \(bytes)
        derive = "\(derive)"
        \(extra)
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "client"
        send = { public_key = "client", format = "\(format)"\(enc) }
        [[conversation.step]]
        from = "server"
        send = { public_key = "server", format = "\(format)"\(enc) }
        [[conversation.step]]
        from = "client"
        send = { sealed = "k", cipher = "\(cipher)", carries = "message" }
        [[conversation.step]]
        from = "server"
        send = { sealed = "k", cipher = "\(cipher)", carries = "same" }
        """
    }

    func testEveryFormatCurveAndKDF_agreesTheKeyDerivedHere() throws {
        struct Case { var type: ProtocolDescription.KeyType; var format: String; var kdf: String; var extra = ""; var bytes = 32; var derive = "raw"; var cipher = "aes-gcm"; var encoding = "raw" }
        let cases = [
            Case(type: .ecP256, format: "x962", kdf: "hkdf-sha256", extra: "salt = \"000102\"\ninfo = \"notes\""),
            Case(type: .ecP256, format: "x962-compressed", kdf: "hkdf-sha384", bytes: 16, encoding: "base64"),
            Case(type: .ecP256, format: "raw", kdf: "x963-sha256", extra: "info = \"x963 info\"", cipher: "chacha20-poly1305"),
            Case(type: .ecP256, format: "der-spki", kdf: "none"),
            Case(type: .ecP384, format: "raw", kdf: "none", bytes: 48, derive: "sha256", encoding: "hex"),
            Case(type: .x25519, format: "raw", kdf: "hkdf-sha256", extra: "info = \"x25519\""),
            Case(type: .x25519, format: "pem-spki", kdf: "none", cipher: "chacha20-poly1305"),
        ]
        for item in cases {
            let label = "\(item.type.rawValue) \(item.format) \(item.kdf)"
            let toml = Self.inline(type: item.type.rawValue, format: item.format, encoding: item.encoding, kdf: item.kdf, extra: item.extra,
                                   bytes: item.bytes, derive: item.derive, cipher: item.cipher)
            let (client, server, clientKey, serverKey) = try parties(toml, type: item.type, conversation: "c")
            XCTAssertNil(try runDescribed(client, server), label)
            XCTAssertEqual(server.received["message"], Data("agreed, then sealed".utf8), label)
            let shared = try clientKey.sharedSecret(with: try serverKey.publicKey)
            let info = Data((item.extra.components(separatedBy: "info = \"").dropFirst().first?.prefix { $0 != "\"" }).map(String.init)?.utf8 ?? "".utf8)
            let expected: Data
            switch item.kdf {
            case "hkdf-sha256", "hkdf-sha384":
                let salt = item.extra.contains("salt") ? Data(hexString: "000102")! : Data()
                expected = Data(try HKDF.deriveKey(digest: item.kdf == "hkdf-sha384" ? .sha384 : .sha256, inputKeyMaterial: shared, salt: salt, info: info, outputByteCount: item.bytes))
            case "x963-sha256": expected = try X963KDF.derive(secret: shared, sharedInfo: info, digest: .sha256, byteCount: item.bytes)
            default: expected = shared
            }
            XCTAssertEqual(client.knownSecrets["k"], expected, label)
            XCTAssertEqual(server.knownSecrets["k"], expected, label)
        }
    }

    func testAPointOffTheCurve_orAnAllZeroX25519Key_isRefused() throws {
        // P-256, x962: a valid point with Y + 1 is on no point of the curve (y² = x³ + ax + b holds for one of Y, Y + 1 at most).
        let (_, server, clientKey, _) = try parties(Self.inline(type: "ec-p256", format: "x962", kdf: "hkdf-sha256"), type: .ecP256, conversation: "c")
        guard case let .ec(key) = clientKey else { return XCTFail() }
        var point = [UInt8](key.publicKey.x963Representation)
        point[point.count - 1] &+= 1
        XCTAssertThrowsError(try server.receive(.bytes(Data(point)))) { error in
            XCTAssertTrue("\(error)".contains("not a valid ec-p256 key"), "\(error)")
        }
        // The same in SubjectPublicKeyInfo PEM (OpenSSL's import checks the point too).
        let (_, pemServer, pemKey, _) = try parties(Self.inline(type: "ec-p256", format: "pem-spki", kdf: "hkdf-sha256"), type: .ecP256, conversation: "c")
        guard case let .ec(ec) = pemKey else { return XCTFail() }
        var der = [UInt8](try ec.publicKey.derRepresentation)
        der[der.count - 1] &+= 1
        let pem = "-----BEGIN PUBLIC KEY-----\n" + Data(der).base64EncodedString(options: .lineLength64Characters) + "\n-----END PUBLIC KEY-----\n"
        XCTAssertThrowsError(try pemServer.receive(.bytes(Data(pem.utf8))))
        // X25519: the key of order 1 (u = 0) makes an all-zero shared secret (RFC 7748 §6.1).
        let (_, x25519Server, _, _) = try parties(Self.inline(type: "x25519", format: "raw", kdf: "hkdf-sha256"), type: .x25519, conversation: "c")
        XCTAssertThrowsError(try x25519Server.receive(.bytes(Data(count: 32)))) { error in
            XCTAssertTrue("\(error)".contains("small-order") || "\(error)".contains("all zeros"), "\(error)")
        }
        // A P-384 key where the description says P-256.
        let (_, p256Server, _, _) = try parties(Self.inline(type: "ec-p256", format: "der-spki", kdf: "hkdf-sha256"), type: .ecP256, conversation: "c")
        let p384 = try ECPrivateKey(curve: .p384)
        XCTAssertThrowsError(try p256Server.receive(.bytes(try p384.publicKey.derRepresentation))) { error in
            XCTAssertTrue("\(error)".contains("P-384"), "\(error)")
        }
    }

    func testDescriptionsThatCannotWork_areRefusedByKeyPath() throws {
        func refused(_ toml: String, _ path: String, _ words: String, line: UInt = #line) {
            XCTAssertThrowsError(try ProtocolDescription(toml: toml), line: line) { error in
                XCTAssertTrue("\(error)".contains(path) && "\(error)".contains(words), "\(error)", line: line)
            }
        }
        let example = Self.example
        refused(example.replacingOccurrences(of: #"kdf = "hkdf-sha256""#, with: #"kdf = "md5""#), "secrets.session.kdf", "hkdf-sha256")
        refused(example.replacingOccurrences(of: #"keys = ["client", "server"]"#, with: #"keys = ["client"]"#), "secrets.session.keys", "names two keys")
        refused(example.replacingOccurrences(of: "type = \"ec-p384\"\nholder = \"server\"", with: "type = \"ec-p256\"\nholder = \"server\""),
                "secrets.session.keys", "two types")
        refused(example.replacingOccurrences(of: "holder = \"server\"", with: "holder = \"client\""), "secrets.session.keys", "both held by the client")
        refused(example.replacingOccurrences(of: #"kdf = "hkdf-sha256""#, with: "kdf = \"none\"\nsalt = \"00\""), "secrets.session.salt", "HKDF")
        refused(example.replacingOccurrences(of: "bytes = 32", with: "bytes = 48"), "secrets.session.bytes", "16, 24 or 32")
        refused(example.replacingOccurrences(of: #"kdf = "hkdf-sha256""#, with: #"kdf = "none""#).replacingOccurrences(of: "info = \"handshake data\"\n", with: ""),
                "secrets.session.bytes", "48 bytes")
        refused(example.replacingOccurrences(of: #"salt"#, with: "salt").replacingOccurrences(of: "kdf = \"hkdf-sha256\"", with: "kdf = \"hkdf-sha256\"\nsalt = \"0g\""),
                "secrets.session.salt", "hex")
        refused(example.replacingOccurrences(of: #"made_by = "agreement""#, with: #"made_by = "client""#), "secrets.session.keys", "for `made_by = \"agreement\"` only")
        refused(Self.inline(type: "x25519", format: "x962", kdf: "hkdf-sha256"), "step[1].send", "its public half is pem-spki, pem-spki-newline, der-spki, raw")
        refused(example.replacingOccurrences(of: "type = \"ec-p384\"\nholder = \"client\"", with: "type = \"ec-p384\"\nholder = \"client\"\nbits = 384"), "keys.client.bits", "remove `bits`")
        // With kdf = "none" the secret is the shared secret: P-384's 48 bytes unless `bytes` says otherwise (then refused above).
        let whole = try ProtocolDescription(toml: example.replacingOccurrences(of: #"kdf = "hkdf-sha256""#, with: "kdf = \"none\"\nderive = \"sha256\"")
            .replacingOccurrences(of: "info = \"handshake data\"\n", with: "").replacingOccurrences(of: "bytes = 32", with: ""))
        XCTAssertEqual(whole.secrets["session"]?.bytes, 48)
        XCTAssertEqual(whole.secrets["session"]?.keyBytes, 32, "sha256 of the shared secret")
        // The client seals before it has the server's key: it cannot know the agreed secret yet.
        let early = example.replacingOccurrences(of: """
        [[conversation.step]]
        from = "server"
        send = { public_key = "server", format = "pem-spki" }

        """, with: "").replacingOccurrences(of: "then = \"close\"\n", with: "") + """

        [[conversation.step]]
        from = "server"
        send = { public_key = "server", format = "pem-spki" }
        """
        refused(early, "conversation[1].step[2].send", "before it knows it")
        // An agreed secret is never sent: nobody makes it.
        refused(example.replacingOccurrences(of: #"send = { sealed = "session", cipher = "fernet", carries = "message" }"#, with: #"send = { secret = "session", encoding = "hex" }"#),
                "step[3].send", "agreed")
    }
}
