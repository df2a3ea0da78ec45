import Foundation
import XCTest
@testable import WireCrypto

final class RSAKeyTests: XCTestCase {
    // Key generation dominates; one key serves every test in this class.
    static let key1024 = try! RSAPrivateKey(bits: 1024)

    func testSPKIPEM_matchesTheIOSByteLayout() throws {
        let pem = try Self.key1024.publicKey.exported(.spkiPEM)
        let text = String(decoding: pem, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        XCTAssertTrue(text.hasSuffix("\n-----END PUBLIC KEY-----"), "no newline after the END line")
        let body = text.split(separator: "\n").dropFirst().dropLast()
        XCTAssertEqual(body.dropLast().map(\.count), Array(repeating: 64, count: body.count - 1))
        XCTAssertLessThanOrEqual(body.last!.count, 64)
        let der = Data(base64Encoded: body.joined())!
        XCTAssertEqual(der, try Self.key1024.publicKey.exported(.spkiDER))
        // The SPKI header the iOS code prepends for 1024-bit keys (protocol.md).
        XCTAssertEqual(der.prefix(22).hexString, "30819f300d06092a864886f70d010101050003818d00")
        XCTAssertEqual(der.count, 162)
    }

    func testPublicImport_acceptsEveryWireVariant() throws {
        let expected = Self.key1024.info
        let spkiPEM = try Self.key1024.publicKey.exported(.spkiPEM)
        let variants: [String: Data] = [
            "spki-pem": spkiPEM,
            "spki-pem+newline": spkiPEM + Data("\n".utf8),
            "spki-pem-crlf": Data(String(decoding: spkiPEM, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8),
            "spki-der": try Self.key1024.publicKey.exported(.spkiDER),
            "pkcs1-pem": try Self.key1024.publicKey.exported(.pkcs1PEM),
            "pkcs1-der": try Self.key1024.publicKey.exported(.pkcs1DER),
        ]
        for (name, bytes) in variants {
            XCTAssertEqual(try RSAPublicKey(importing: bytes).info, expected, name)
        }
        XCTAssertEqual(expected.bits, 1024)
        XCTAssertEqual(expected.publicExponent, 65537)
    }

    func testPublicImport_rejectsPrivateKeysGarbageAndTrailingBytes() throws {
        let cases: [String: Data] = [
            "private pem": try Self.key1024.exported(.pkcs8PEM),
            "garbage": Data("hello".utf8),
            "empty": Data(),
            "der+1": try Self.key1024.publicKey.exported(.spkiDER) + Data([0]),
            "truncated der": try Self.key1024.publicKey.exported(.spkiDER).dropLast(1),
            "spki under the pkcs1 label": Data(String(decoding: try Self.key1024.publicKey.exported(.spkiPEM), as: UTF8.self)
                .replacingOccurrences(of: "PUBLIC KEY-----", with: "RSA PUBLIC KEY-----").utf8),
            "pkcs1 under the spki label": Data(String(decoding: try Self.key1024.publicKey.exported(.pkcs1PEM), as: UTF8.self)
                .replacingOccurrences(of: "RSA PUBLIC KEY-----", with: "PUBLIC KEY-----").utf8),
            "wrong label": Data(String(decoding: try Self.key1024.publicKey.exported(.spkiPEM), as: UTF8.self)
                .replacingOccurrences(of: "PUBLIC KEY", with: "CERTIFICATE").utf8),
        ]
        for (name, bytes) in cases {
            XCTAssertThrowsError(try RSAPublicKey(importing: bytes), name) { error in
                guard case WireCryptoError.malformedKey = error else { return XCTFail("\(name): \(error)") }
            }
        }
    }

    func testPrivateExport_reimportsInEveryFormat() throws {
        let passphrase = Data("correct horse".utf8)
        for format in RSAPrivateKeyFormat.allCases {
            let bytes = try Self.key1024.exported(format, passphrase: passphrase)
            let back = try RSAPrivateKey(importing: bytes, passphrase: format == .pkcs8EncryptedPEM ? passphrase : nil)
            XCTAssertEqual(back.info, Self.key1024.info, format.rawValue)
        }
        let pkcs1 = String(decoding: try Self.key1024.exported(.pkcs1PEM), as: UTF8.self)
        XCTAssertTrue(pkcs1.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        let encrypted = String(decoding: try Self.key1024.exported(.pkcs8EncryptedPEM, passphrase: passphrase), as: UTF8.self)
        XCTAssertTrue(encrypted.hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----"))
    }

    func testEncryptedPrivateKey_wrongOrMissingPassphraseIsNamed() throws {
        let pem = try Self.key1024.exported(.pkcs8EncryptedPEM, passphrase: Data("right".utf8))
        XCTAssertThrowsError(try RSAPrivateKey(importing: pem, passphrase: Data("wrong".utf8))) {
            XCTAssertEqual($0 as? WireCryptoError, .wrongPassphrase)
        }
        XCTAssertThrowsError(try RSAPrivateKey(importing: pem)) {
            XCTAssertEqual($0 as? WireCryptoError, .wrongPassphrase)
        }
    }

    // Imports are remembered by what they were imported from *and* the passphrase: a key that
    // opened with the right passphrase must not come back for a wrong one, or for none.
    func testImportCache_neverHandsAKeyToAnotherPassphraseOrKind() throws {
        let pem = try Self.key1024.exported(.pkcs8EncryptedPEM, passphrase: Data("right".utf8))
        for _ in 0..<2 {
            XCTAssertEqual(try RSAPrivateKey(importing: pem, passphrase: Data("right".utf8)).info, Self.key1024.info)
            XCTAssertThrowsError(try RSAPrivateKey(importing: pem, passphrase: Data("wrong".utf8))) {
                XCTAssertEqual($0 as? WireCryptoError, .wrongPassphrase)
            }
            XCTAssertThrowsError(try RSAPrivateKey(importing: pem)) { XCTAssertEqual($0 as? WireCryptoError, .wrongPassphrase) }
            XCTAssertThrowsError(try RSAPrivateKey(importing: pem, passphrase: Data())) {
                XCTAssertEqual($0 as? WireCryptoError, .wrongPassphrase)
            }
        }
        // A public key imported first does not make the same bytes a private key, nor the reverse.
        let publicPEM = try Self.key1024.publicKey.exported(.spkiPEM), privatePEM = try Self.key1024.exported(.pkcs8PEM)
        XCTAssertEqual(try RSAPublicKey(importing: publicPEM).info, Self.key1024.info)
        XCTAssertThrowsError(try RSAPrivateKey(importing: publicPEM))
        XCTAssertEqual(try RSAPrivateKey(importing: privatePEM).info, Self.key1024.info)
        XCTAssertThrowsError(try RSAPublicKey(importing: privatePEM))
        // The SPKI encoding, made once per key, is the same bytes every time.
        let key = try RSAPrivateKey(importing: privatePEM)
        XCTAssertEqual(try key.publicKey.exported(.spkiDER), try key.publicKey.exported(.spkiDER))
        XCTAssertEqual(try key.publicKey.exported(.spkiPEM), publicPEM)
    }

    // A damaged key is refused whichever number is damaged (the arithmetic checks run before the
    // primality tests, and refuse only what the full check would).
    func testDamagedPrivateKeyNumbers_areRefused() throws {
        let der = try Self.key1024.exported(.pkcs8DER)
        var refused = 0
        for position in stride(from: 40, to: der.count - 4, by: 37) {
            var damaged = der
            damaged[position] ^= 0x04
            do {
                _ = try RSAPrivateKey(importing: damaged)
                XCTFail("byte \(position) flipped and the key still imports")
            } catch WireCryptoError.malformedKey(let reason, _) {
                refused += 1
                _ = reason
            }
        }
        XCTAssertGreaterThan(refused, 10)
        XCTAssertEqual(try RSAPrivateKey(importing: der).info, Self.key1024.info)
    }

    func testGenerate_refusesSizesOutsideTheRange() {
        XCTAssertThrowsError(try RSAPrivateKey(bits: 512)) {
            guard case WireCryptoError.unsupported = $0 else { return XCTFail("\($0)") }
        }
    }
}
