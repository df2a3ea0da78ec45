import Foundation
import XCTest
@testable import WireCrypto

private func hex(_ text: String) -> [UInt8] { [UInt8](Data(hexString: text)!) }
private func bytes(_ range: ClosedRange<UInt8>) -> [UInt8] { Array(range) }

final class HKDFTests: XCTestCase {
    /// RFC 5869 Appendix A: test cases 1–3 (SHA-256) and 4–7 (SHA-1). Case 7 has no salt at all,
    /// which is the same as an empty one (§2.2), so it runs with an empty salt.
    private let rfc5869: [(name: String, digest: Digest, ikm: [UInt8], salt: [UInt8], info: [UInt8], length: Int, prk: String, okm: String)] = [
        ("A.1", .sha256, [UInt8](repeating: 0x0b, count: 22), bytes(0x00...0x0c), bytes(0xf0...0xf9), 42,
         "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
         "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        ("A.2", .sha256, bytes(0x00...0x4f), bytes(0x60...0xaf), bytes(0xb0...0xff), 82,
         "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
         "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da32"
         + "75600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"),
        ("A.3", .sha256, [UInt8](repeating: 0x0b, count: 22), [], [], 42,
         "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
         "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
        ("A.4", .sha1, [UInt8](repeating: 0x0b, count: 11), bytes(0x00...0x0c), bytes(0xf0...0xf9), 42,
         "9b6c18c432a7bf8f0e71c8eb88f4b30baa2ba243",
         "085a01ea1b10f36933068b56efa5ad81a4f14b822f5b091568a9cdd4f155fda2c22e422478d305f3f896"),
        ("A.5", .sha1, bytes(0x00...0x4f), bytes(0x60...0xaf), bytes(0xb0...0xff), 82,
         "8adae09a2a307059478d309b26c4115a224cfaf6",
         "0bd770a74d1160f7c9f12cd5912a06ebff6adcae899d92191fe4305673ba2ffe8fa3f1a4e5ad79f3f334b3b202b2173c486e"
         + "a37ce3d397ed034c7f9dfeb15c5e927336d0441f4c4300e2cff0d0900b52d3b4"),
        ("A.6", .sha1, [UInt8](repeating: 0x0b, count: 22), [], [], 42,
         "da8c8a73c7fa77288ec6f5e7c297786aa0d32d01",
         "0ac1af7002b3d761d1e55298da9d0506b9ae52057220a306e07b6b87e8df21d0ea00033de03984d34918"),
        ("A.7", .sha1, [UInt8](repeating: 0x0c, count: 22), [], [], 42,
         "2adccada18779e7c2077ad2eb19d3f3e731385dd",
         "2c91117204d745f3500d636a62f64f0ab3bae548aa53d423b0d1f27ebba6f5e5673a081d70cce7acfc48"),
    ]

    func testExtractExpandAndBoth_matchRFC5869AppendixA() throws {
        for vector in rfc5869 {
            let prk = try HKDF.extract(digest: vector.digest, inputKeyMaterial: vector.ikm, salt: vector.salt)
            XCTAssertEqual(Data(prk).hexString, vector.prk, "RFC 5869 \(vector.name) PRK")
            let expanded = try HKDF.expand(digest: vector.digest, pseudoRandomKey: prk, info: vector.info, outputByteCount: vector.length)
            XCTAssertEqual(Data(expanded).hexString, vector.okm, "RFC 5869 \(vector.name) OKM from expand")
            let derived = try HKDF.deriveKey(digest: vector.digest, inputKeyMaterial: vector.ikm, salt: vector.salt,
                                             info: vector.info, outputByteCount: vector.length)
            XCTAssertEqual(Data(derived).hexString, vector.okm, "RFC 5869 \(vector.name) OKM in one call")
        }
    }

    func testDerive_emptyInputKeyMaterialIsAKeyNotAnError() throws {
        // The PRK is HMAC-SHA256 with a zero-length key over an empty message, from Python's
        // standard library: `hmac.new(b"", b"", hashlib.sha256).hexdigest()`.
        let prk = try HKDF.extract(digest: .sha256, inputKeyMaterial: [UInt8](), salt: [UInt8]())
        XCTAssertEqual(Data(prk).hexString, "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
        XCTAssertEqual(try HKDF.deriveKey(digest: .sha256, inputKeyMaterial: [UInt8](), salt: [UInt8](), info: [UInt8](), outputByteCount: 32),
                       try HKDF.expand(digest: .sha256, pseudoRandomKey: prk, info: [UInt8](), outputByteCount: 32))
    }

    func testOutputLength_limitsAre1To255Blocks() throws {
        for digest in Digest.allCases {
            let longest = try HKDF.deriveKey(digest: digest, inputKeyMaterial: [1, 2, 3], salt: [UInt8](), info: [UInt8](),
                                             outputByteCount: 255 * digest.byteCount)
            XCTAssertEqual(longest.count, 255 * digest.byteCount, "\(digest)")
            // A shorter output is a prefix of a longer one (T(1) ‖ T(2) ‖ …).
            let short = try HKDF.deriveKey(digest: digest, inputKeyMaterial: [1, 2, 3], salt: [UInt8](), info: [UInt8](), outputByteCount: 5)
            XCTAssertEqual(short, Array(longest.prefix(5)), "\(digest)")
            for bad in [0, -1, 255 * digest.byteCount + 1] {
                XCTAssertThrowsError(try HKDF.deriveKey(digest: digest, inputKeyMaterial: [1], salt: [UInt8](), info: [UInt8](), outputByteCount: bad)) {
                    guard case WireCryptoError.invalidLength(_, bad, _) = $0 else { return XCTFail("\(digest) \(bad): \($0)") }
                }
                XCTAssertThrowsError(try HKDF.expand(digest: digest, pseudoRandomKey: [UInt8](repeating: 7, count: 32), info: [UInt8](), outputByteCount: bad))
            }
        }
    }
}

final class AESKeyWrapTests: XCTestCase {
    /// RFC 3394 §4.1–4.6: every KEK size with every key-data size it can wrap.
    private let rfc3394: [(section: String, kek: [UInt8], key: String, wrapped: String)] = [
        ("4.1", bytes(0x00...0x0f), "00112233445566778899aabbccddeeff", "1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5"),
        ("4.2", bytes(0x00...0x17), "00112233445566778899aabbccddeeff", "96778b25ae6ca435f92b5b97c050aed2468ab8a17ad84e5d"),
        ("4.3", bytes(0x00...0x1f), "00112233445566778899aabbccddeeff", "64e8c3f9ce0f5ba263e9777905818a2a93c8191e7d6e8ae7"),
        ("4.4", bytes(0x00...0x17), "00112233445566778899aabbccddeeff0001020304050607",
         "031d33264e15d33268f24ec260743edce1c6c7ddee725a936ba814915c6762d2"),
        ("4.5", bytes(0x00...0x1f), "00112233445566778899aabbccddeeff0001020304050607",
         "a8f9bc1612c68b3ff6e6f4fbe30e71e4769c8b80a32cb8958cd5d17d6b254da1"),
        ("4.6", bytes(0x00...0x1f), "00112233445566778899aabbccddeeff000102030405060708090a0b0c0d0e0f",
         "28c9f404c4b810f4cbccb35cfb87f8263f5786e2d80ed326cbc7f0e71a99f43bfb988b9b7a02dd21"),
    ]

    func testWrapAndUnwrap_matchRFC3394Section4() throws {
        for vector in rfc3394 {
            XCTAssertEqual(Data(try AESKeyWrap.wrap(hex(vector.key), kek: vector.kek)).hexString, vector.wrapped, "RFC 3394 §\(vector.section)")
            XCTAssertEqual(Data(try AESKeyWrap.unwrap(hex(vector.wrapped), kek: vector.kek)).hexString, vector.key, "RFC 3394 §\(vector.section)")
        }
    }

    func testUnwrap_refusesEveryFlippedBitAndTheWrongKEK() throws {
        let vector = rfc3394[0]
        let wrapped = hex(vector.wrapped)
        for index in wrapped.indices {
            var tampered = wrapped
            tampered[index] ^= 0x01
            XCTAssertThrowsError(try AESKeyWrap.unwrap(tampered, kek: vector.kek)) {
                XCTAssertEqual($0 as? WireCryptoError, .authenticationFailure, "byte \(index)")
            }
        }
        var otherKEK = vector.kek
        otherKEK[0] ^= 0x80
        XCTAssertThrowsError(try AESKeyWrap.unwrap(wrapped, kek: otherKEK)) {
            XCTAssertEqual($0 as? WireCryptoError, .authenticationFailure)
        }
    }

    func testLengthsAndKEKSizes_outsideRFC3394AreRefused() throws {
        let kek = bytes(0x00...0x0f)
        for length in [0, 8, 15, 17, 23] {
            XCTAssertThrowsError(try AESKeyWrap.wrap([UInt8](repeating: 1, count: length), kek: kek)) {
                guard case WireCryptoError.invalidLength(_, length, _) = $0 else { return XCTFail("wrap \(length): \($0)") }
            }
        }
        for length in [0, 16, 23, 25] {
            XCTAssertThrowsError(try AESKeyWrap.unwrap([UInt8](repeating: 1, count: length), kek: kek)) {
                guard case WireCryptoError.invalidLength(_, length, _) = $0 else { return XCTFail("unwrap \(length): \($0)") }
            }
        }
        for size in [0, 8, 15, 20, 33] {
            XCTAssertThrowsError(try AESKeyWrap.wrap([UInt8](repeating: 1, count: 16), kek: [UInt8](repeating: 2, count: size))) {
                XCTAssertEqual($0 as? WireCryptoError, .incorrectKeySize(bytes: size, allowed: [16, 24, 32]))
            }
        }
        // The longest key a CryptoKit app wraps in practice, and an odd number of blocks, round-trip.
        for length in [24, 40, 64, 4096] {
            let key = [UInt8](secureRandomBytes(length))
            let wrapped = try AESKeyWrap.wrap(key, kek: kek)
            XCTAssertEqual(wrapped.count, length + 8)
            XCTAssertEqual(try AESKeyWrap.unwrap(wrapped, kek: kek), key)
        }
    }
}
