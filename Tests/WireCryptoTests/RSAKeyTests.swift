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

    // docs/PROTOCOL.md "Padding and keys" (RFC 8017 §3.1, X.690 §10): a key that is not a valid RSA
    // key, or not DER, is refused at import, before anything can be encrypted to it. The same planted
    // keys as PythonRef's tests/test_fuzz_findings.py `_NOT_KEYS`.
    func testInvalidRSAKeys_areRefusedNamingTheDefect() throws {
        let numbers = try XCTUnwrap(Self.modulusAndExponent(try Self.key1024.publicKey.exported(.pkcs1DER)))
        let n = numbers.modulus
        let rsaEncryption = Data(hexString: "300d06092a864886f70d0101010500")!
        func spki(_ pkcs1: Data, algorithm: Data = rsaEncryption, unusedBits: UInt8 = 0) -> Data {
            DER.tlv(0x30, algorithm + DER.tlv(0x03, Data([unusedBits]) + pkcs1))
        }
        func pkcs1(_ modulus: Data, _ exponent: Data) -> Data { DER.tlv(0x30, DER.tlv(0x02, modulus) + DER.tlv(0x02, exponent)) }
        var evenN = n; evenN[evenN.index(before: evenN.endIndex)] &= 0xfe
        // 1016 bits: the modulus without its top byte, its new top bit set (so its INTEGER is minimal).
        var shortN = Data(n.dropFirst(2)); shortN[shortN.startIndex] |= 0x80
        let cases: [(String, Data, String)] = [
            ("e=1", spki(pkcs1(n, Data([1]))), "e = 1"),
            ("e=0", spki(pkcs1(n, Data([0]))), "e = 0"),
            ("e=2", spki(pkcs1(n, Data([2]))), "is even"),
            ("e=65536", spki(pkcs1(n, Data([1, 0, 0]))), "is even"),
            ("e=-65537", spki(pkcs1(n, Data([0xfe, 0xff, 0xff]))), "negative INTEGER"),
            ("n even", spki(pkcs1(evenN, Data([1, 0, 1]))), "n is even"),
            ("n of 1016 bits", spki(pkcs1(Data([0]) + shortN, Data([1, 0, 1]))), "1016 bits"),
            ("e=n", spki(pkcs1(n, n)), "not below n"),
            ("n negative", spki(pkcs1(n.dropFirst(), Data([1, 0, 1]))), "negative INTEGER"),
            ("n with leading zeros", spki(pkcs1(Data([0, 0]) + n, Data([1, 0, 1]))), "redundant leading byte"),
            ("non-minimal length", Self.longOuterLength(spki(pkcs1(n, Data([1, 0, 1])))), "more bytes than it needs"),
            ("bit string with unused bits", spki(pkcs1(n, Data([1, 0, 1])), unusedBits: 1), "1 unused bits"),
            ("algorithm parameters absent", spki(pkcs1(n, Data([1, 0, 1])), algorithm: Data(hexString: "300b06092a864886f70d010101")!), "not DER"),
            ("pkcs1 e=1", pkcs1(n, Data([1])), "e = 1"),
        ]
        XCTAssertEqual(try RSAPublicKey(importing: spki(pkcs1(n, Data([1, 0, 1])))).info, Self.key1024.info, "the control imports")
        for (name, der, words) in cases {
            let label = der[der.index(der.startIndex, offsetBy: 2)] == 0x02 || der[der.index(der.startIndex, offsetBy: 3)] == 0x02
                ? "RSA PUBLIC KEY" : "PUBLIC KEY"
            for bytes in [der, PEM.iOSStyle(label: label, der: der)] {
                XCTAssertThrowsError(try RSAPublicKey(importing: bytes), name) { error in
                    guard case WireCryptoError.malformedKey(let reason, _) = error else { return XCTFail("\(name): \(error)") }
                    XCTAssertTrue(reason.contains(words), "\(name): \(reason)")
                }
            }
        }
    }

    func testPrivateKeyVersions_otherThan0Or1_areRefused() throws {
        let pkcs1 = try PEM.body(of: try Self.key1024.exported(.pkcs1PEM), label: "RSA PRIVATE KEY")
        let pkcs8 = try Self.key1024.exported(.pkcs8DER)
        XCTAssertEqual(pkcs1[4..<7].hexString, "020100")
        var version5 = pkcs1; version5[6] = 5
        for bytes in [version5, PEM.iOSStyle(label: "RSA PRIVATE KEY", der: version5)] {
            XCTAssertThrowsError(try RSAPrivateKey(importing: bytes)) { error in
                guard case WireCryptoError.malformedKey(let reason, _) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(reason.contains("version is 5"), reason)
            }
        }
        XCTAssertEqual(pkcs8[4..<7].hexString, "020100")
        var version16 = pkcs8; version16[6] = 16
        XCTAssertThrowsError(try RSAPrivateKey(importing: version16))
        XCTAssertEqual(try RSAPrivateKey(importing: pkcs8).info, Self.key1024.info)
    }

    /// (n, e) of a PKCS#1 RSAPublicKey DER, each INTEGER's content as written.
    static func modulusAndExponent(_ der: Data) -> (modulus: Data, exponent: Data)? {
        let bytes = [UInt8](der)
        func element(_ index: Int) -> (start: Int, end: Int)? {
            guard index + 2 <= bytes.count else { return nil }
            var length = Int(bytes[index + 1]), start = index + 2
            if length & 0x80 != 0 {
                let count = length & 0x7f
                length = bytes[start..<(start + count)].reduce(0) { $0 << 8 | Int($1) }
                start += count
            }
            return (start, start + length)
        }
        guard let outer = element(0), let n = element(outer.start), let e = element(n.end) else { return nil }
        return (Data(bytes[n.start..<n.end]), Data(bytes[e.start..<e.end]))
    }

    /// The outer length written with one more length byte than it needs (BER, not DER).
    static func longOuterLength(_ der: Data) -> Data {
        let bytes = [UInt8](der)
        let header = bytes[1] < 0x80 ? 2 : 2 + Int(bytes[1] & 0x7f)
        let size = bytes.count - header
        let sizeBytes: [UInt8] = size > 0xff ? [UInt8(size >> 8), UInt8(size & 0xff)] : [UInt8(size)]
        return Data([bytes[0], 0x80 | UInt8(sizeBytes.count + 1), 0] + sizeBytes + bytes[header...])
    }

    func testGenerate_refusesSizesOutsideTheRange() {
        XCTAssertThrowsError(try RSAPrivateKey(bits: 512)) {
            guard case WireCryptoError.unsupported = $0 else { return XCTFail("\($0)") }
        }
    }
}

/// DER's tag-length-value, for the planted keys above.
private enum DER {
    static func tlv(_ tag: UInt8, _ content: Data) -> Data {
        let count = content.count
        let length: [UInt8] = count < 0x80 ? [UInt8(count)] : count <= 0xff ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xff)]
        return Data([tag] + length) + content
    }
}
