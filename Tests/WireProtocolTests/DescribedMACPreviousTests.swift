import Foundation
import XCTest
@testable import WireProtocol
import WireCrypto

/// An agreement secret that `skip`s the KDF's first bytes, and a `mac` with `of = "previous"` in a
/// concat, as wenyupeng/securex has them: one HKDF-SHA256 of 64 bytes (AES key 0-31, HMAC key 32-63),
/// frames of a type byte, a length and nonce ‖ GCM ciphertext ‖ tag ‖ HMAC-SHA256 of those.
final class DescribedMACPreviousTests: XCTestCase {
    func fixture() throws -> ProtocolDescription { try ProtocolDescription(toml: DescriptionFixture.text("ecdh-gcm-hmac-frames")) }

    /// RFC 5869 §2.3: a secret that skips 32 bytes is the last 32 of a 64-byte derive, and one that skips none its first 32.
    func testSkip_takesTheKDFsLaterBytes() throws {
        let description = try fixture()
        let shared = Data((0..<32).map { UInt8($0) })
        let whole = Data(try HKDF.deriveKey(digest: .sha256, inputKeyMaterial: shared, salt: Data(), info: Data("SecureX-v1".utf8), outputByteCount: 64))
        XCTAssertEqual(try DescribedBytes.agreed(try XCTUnwrap(description.secrets["aes"]), shared: shared), whole.prefix(32))
        XCTAssertEqual(try DescribedBytes.agreed(try XCTUnwrap(description.secrets["hmac"]), shared: shared), whole.suffix(32))
        XCTAssertEqual(description.secrets["hmac"]?.agreement?.skip, 32)
    }

    /// The fixture through both parties: the data frame is 0x01, its length, and the GCM box with the
    /// HMAC-SHA256 of it under the second half of the HKDF; a changed HMAC or ciphertext is refused by
    /// the HMAC, before the box is opened.
    func testFixture_frameLayout_andItsMAC() throws {
        let description = try fixture()
        func session() throws -> (DescribedParty, DescribedParty, Data) {
            let client = try DescribedParty(description: description, conversation: "data", role: .client, message: Data("hello pi".utf8))
            let server = try DescribedParty(description: description, conversation: nil, role: .server)
            try server.receive(try XCTUnwrap(try client.nextMessage()))
            try client.receive(try XCTUnwrap(try server.nextMessage()))
            guard case let .bytes(frame)? = try client.nextMessage() else { throw DescribedRefusal(reason: "no frame") }
            return (client, server, frame)
        }
        let (client, server, frame) = try session()
        XCTAssertEqual(frame.first, 1)
        XCTAssertEqual(frame.dropFirst().prefix(4).reduce(0) { $0 << 8 | Int($1) }, frame.count - 5)
        let payload = Data(frame.dropFirst(5))
        XCTAssertEqual(payload.count, 12 + "hello pi".utf8.count + 16 + 32)
        let (box, code) = (Data(payload.dropLast(32)), Data(payload.suffix(32)))
        let macKey = try XCTUnwrap(client.knownSecrets["hmac"])
        XCTAssertEqual(HMACDigest.authenticationCode(.sha256, key: macKey, message: box), code)
        XCTAssertEqual(try AES.GCM.open(try AES.GCM.SealedBox(combined: box), using: SymmetricKey(data: try XCTUnwrap(client.knownSecrets["aes"]))), Data("hello pi".utf8))
        try server.receive(.bytes(frame))
        XCTAssertEqual(server.received["message"], Data("hello pi".utf8))
        guard case let .bytes(close)? = try client.nextMessage() else { return XCTFail("no close frame") }
        XCTAssertEqual(close, Data([2, 0, 0, 0, 5]) + Data("close".utf8))
        try server.receive(.bytes(close))
        XCTAssertTrue(server.isDone)

        for position in [frame.count - 1, 5 + 12] {                 // the HMAC's last byte; the ciphertext's first
            let (_, fresh, good) = try session()
            var changed = good
            changed[position] ^= 0x01
            XCTAssertThrowsError(try fresh.receive(.bytes(changed))) { error in
                let refusal = error as? DescribedRefusal
                XCTAssertEqual(refusal?.kind, .authentication)
                XCTAssertEqual(refusal?.reason, "the hmac-sha256 after conversation[1].step[3].send.concat[3].concat[1] does not verify over it (wrong key or tampered)")
            }
        }
    }

    func testDescription_rules() throws {
        let fixture = DescriptionFixture.text("ecdh-gcm-hmac-frames")
        let refused: [(String, String, String)] = [
            ("{ concat = [{ sealed = \"aes\", cipher = \"aes-gcm\" }, { mac = \"hmac\", algorithm = \"hmac-sha256\", of = \"previous\", encoding = \"raw\" }] }",
             "{ concat = [{ mac = \"hmac\", algorithm = \"hmac-sha256\", of = \"previous\", encoding = \"raw\" }, { sealed = \"aes\", cipher = \"aes-gcm\" }] }",
             "covers the part before it in its concat; this one has none to cover"),
            ("send = { concat = [{ text = \"\\u0002\" }, { length_of = \"next\" }, { text = \"close\" }] }",
             "send = { mac = \"hmac\", algorithm = \"hmac-sha256\", of = \"previous\" }", "is a `mac` in a `concat`, after the part it covers"),
            ("skip = 32", "skip = 32\nkdf = \"none\"", "with `kdf = \"none\"` there is none"),
            ("skip = 32", "skip = 5000", "skip"),
        ]
        assertRefused(fixture, refused)
        let notAgreed = """
        name = "x"
        [transport]
        kind = "tcp"
        [secrets.s]
        made_by = "client"
        skip = 32
        [[conversation]]
        name = "c"
        [[conversation.step]]
        from = "client"
        send = { text = "x" }
        """
        XCTAssertThrowsError(try ProtocolDescription(toml: notAgreed)) { error in
            XCTAssertTrue("\(error)".contains("`skip` is for `made_by = \"agreement\"` only"), "\(error)")
        }
    }
}
