import Foundation
import XCTest
@testable import WireCrypto
import StrictFormats

private func hex(_ text: String) -> Data { Data(hexString: text)! }

final class Salsa20Tests: XCTestCase {
    /// eSTREAM (ECRYPT) Salsa20 verified test vectors, ecrypt/trunk/submissions/salsa20/full/
    /// verified.test-vectors (https://www.ecrypt.eu.org/stream/svn/viewcvs.cgi/ecrypt/trunk/submissions/salsa20/full/),
    /// 128-bit and 256-bit key files: the key stream is the encryption of zero bytes. Set 1 has a zero
    /// nonce; Set 6 has a nonzero one and samples blocks 1023 and 1024.
    private let estream: [(name: String, key: String, nonce: String, offset: Int, stream: String)] = [
        ("128-bit Set 1, vector# 0, stream[0..63]", "80000000000000000000000000000000", "0000000000000000", 0,
         "4DFA5E481DA23EA09A31022050859936DA52FCEE218005164F267CB65F5CFD7F"
         + "2B4F97E0FF16924A52DF269515110A07F9E460BC65EF95DA58F740B7D1DBB0AA"),
        ("128-bit Set 1, vector# 0, stream[448..511]", "80000000000000000000000000000000", "0000000000000000", 448,
         "B375703739DACED4DD4059FD71C3C47FC2F9939670FAD4A46066ADCC6A564578"
         + "3308B90FFB72BE04A6B147CBE38CC0C3B9267C296A92A7C69873F9F263BE9703"),
        ("128-bit Set 6, vector# 0, stream[0..63]", "0053A6F94C9FF24598EB3E91E4378ADD", "0D74DB42A91077DE", 0,
         "05E1E7BEB697D999656BF37C1B978806735D0B903A6007BD329927EFBE1B0E2A"
         + "8137C1AE291493AA83A821755BEE0B06CD14855A67E46703EBF8F3114B584CBA"),
        ("128-bit Set 6, vector# 0, stream[65472..65535]", "0053A6F94C9FF24598EB3E91E4378ADD", "0D74DB42A91077DE", 65472,
         "1A70A37B1C9CA11CD3BF988D3EE4612D15F1A08D683FCCC6558ECF2089388B8E"
         + "555E7619BF82EE71348F4F8D0D2AE464339D66BFC3A003BF229C0FC0AB6AE1C6"),
        ("256-bit Set 1, vector# 0, stream[0..63]", "8000000000000000000000000000000000000000000000000000000000000000", "0000000000000000", 0,
         "E3BE8FDD8BECA2E3EA8EF9475B29A6E7003951E1097A5C38D23B7A5FAD9F6844"
         + "B22C97559E2723C7CBBD3FE4FC8D9A0744652A83E72A9C461876AF4D7EF1A117"),
        ("256-bit Set 1, vector# 0, stream[192..255]", "8000000000000000000000000000000000000000000000000000000000000000", "0000000000000000", 192,
         "57BE81F47B17D9AE7C4FF15429A73E10ACF250ED3A90A93C711308A74C6216A9"
         + "ED84CD126DA7F28E8ABF8BB63517E1CA98E712F4FB2E1A6AED9FDC73291FAA17"),
        ("256-bit Set 1, vector# 0, stream[448..511]", "8000000000000000000000000000000000000000000000000000000000000000", "0000000000000000", 448,
         "696AFCFD0CDDCC83C7E77F11A649D79ACDC3354E9635FF137E929933A0BD6F53"
         + "77EFA105A3A4266B7C0D089D08F1E855CC32B15B93784A36E56A76CC64BC8477"),
        ("256-bit Set 6, vector# 0, stream[0..63]", "0053A6F94C9FF24598EB3E91E4378ADD3083D6297CCF2275C81B6EC11467BA0D", "0D74DB42A91077DE", 0,
         "F5FAD53F79F9DF58C4AEA0D0ED9A9601F278112CA7180D565B420A48019670EA"
         + "F24CE493A86263F677B46ACE1924773D2BB25571E1AA8593758FC382B1280B71"),
        ("256-bit Set 6, vector# 0, stream[65536..65599]", "0053A6F94C9FF24598EB3E91E4378ADD3083D6297CCF2275C81B6EC11467BA0D", "0D74DB42A91077DE", 65536,
         "81582C65D7562B80AEC2F1A673A9D01C9F892A23D4919F6AB47B9154E08E699B"
         + "4117D7C666477B60F8391481682F5D95D96623DBC489D88DAA6956B9F0646B6E"),
    ]

    func testKeyStream_matchesESTREAMVerifiedVectors() throws {
        for vector in estream {
            let stream = try Salsa20.apply(Data(count: vector.offset + 64), key: hex(vector.key), nonce: hex(vector.nonce))
            XCTAssertEqual(stream.suffix(64).hexString, vector.stream.lowercased(), vector.name)
        }
    }

    func testEncrypt_isPlaintextXORTheKeyStream() throws {
        // eSTREAM 256-bit Set 6, vector# 0, stream[0..63], XORed with a plaintext of 0x5a bytes.
        let key = hex("0053A6F94C9FF24598EB3E91E4378ADD3083D6297CCF2275C81B6EC11467BA0D"), nonce = hex("0D74DB42A91077DE")
        let stream = hex("F5FAD53F79F9DF58C4AEA0D0ED9A9601F278112CA7180D565B420A48019670EA"
                       + "F24CE493A86263F677B46ACE1924773D2BB25571E1AA8593758FC382B1280B71")
        let plaintext = Data(repeating: 0x5a, count: 64)
        XCTAssertEqual(try Salsa20.apply(plaintext, key: key, nonce: nonce), Data(zip(plaintext, stream).map { $0 ^ $1 }))
    }

    /// "Salsa20 specification" (https://cr.yp.to/snuffle/spec.pdf) §8, the second example of the hash function.
    func testHash_matchesSpecSection8() {
        let input: [UInt8] = [211, 159, 13, 115, 76, 55, 82, 183, 3, 117, 222, 37, 191, 187, 234, 136,
                              49, 237, 179, 48, 1, 106, 178, 219, 175, 199, 166, 48, 86, 16, 179, 207,
                              31, 240, 32, 63, 15, 83, 93, 161, 116, 147, 48, 113, 238, 55, 204, 36,
                              79, 201, 235, 79, 3, 81, 156, 47, 203, 26, 244, 243, 88, 118, 104, 54]
        let expected: [UInt8] = [109, 42, 178, 168, 156, 240, 248, 238, 168, 196, 190, 203, 26, 110, 170, 154,
                                 29, 29, 150, 26, 150, 30, 235, 249, 190, 163, 251, 48, 69, 144, 51, 57,
                                 118, 40, 152, 157, 180, 57, 27, 94, 107, 42, 236, 35, 27, 111, 114, 114,
                                 219, 236, 232, 135, 111, 155, 110, 18, 24, 232, 95, 158, 179, 19, 48, 202]
        let words: [UInt32] = stride(from: 0, to: 64, by: 4).map { i in
            input[i..<i + 4].reversed().reduce(UInt32(0)) { word, byte in word << 8 | UInt32(byte) }
        }
        var output = [UInt32](repeating: 0, count: 16)
        Salsa20.hash(words, into: &output)
        XCTAssertEqual(output.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }, expected)
    }

    /// "Salsa20 specification" §9, both examples of the expansion function: k0 = 1…16, k1 = 201…216,
    /// n = 101…116, for a 32-byte key (k0, k1) and a 16-byte key (k0).
    func testExpansion_matchesSpecSection9() {
        let k0 = [UInt8](1...16), k1 = [UInt8](201...216), n = [UInt8](101...116)
        XCTAssertEqual(Salsa20.expansion(key: k0 + k1, n: n), [
            69, 37, 68, 39, 41, 15, 107, 193, 255, 139, 122, 6, 170, 233, 217, 98,
            89, 144, 182, 106, 21, 51, 200, 65, 239, 49, 222, 34, 215, 114, 40, 126,
            104, 197, 7, 225, 197, 153, 31, 2, 102, 78, 76, 176, 84, 245, 246, 184,
            177, 160, 133, 130, 6, 72, 149, 119, 192, 195, 132, 236, 234, 103, 246, 74,
        ])
        XCTAssertEqual(Salsa20.expansion(key: k0, n: n), [
            39, 173, 46, 248, 30, 200, 82, 17, 48, 67, 254, 239, 37, 18, 13, 247,
            241, 200, 61, 144, 10, 55, 50, 185, 6, 47, 246, 253, 143, 86, 187, 225,
            134, 85, 110, 246, 161, 163, 43, 235, 231, 94, 171, 51, 145, 214, 112, 29,
            14, 232, 5, 16, 151, 140, 183, 141, 171, 9, 122, 181, 104, 182, 177, 193,
        ])
    }

    func testRoundTrip_bothKeySizesAcrossBlockBoundaries() throws {
        for keySize in [16, 32] {
            let key = secureRandomBytes(keySize), nonce = secureRandomBytes(Salsa20.nonceBytes)
            let stream = try Salsa20.apply(Data(count: 1000), key: key, nonce: nonce)
            for length in [0, 1, 63, 64, 65, 1000] {
                let plaintext = secureRandomBytes(length)
                let ciphertext = try Salsa20.apply(plaintext, key: key, nonce: nonce)
                XCTAssertEqual(ciphertext.count, length)
                // Every length takes the same key stream from its start: no block is skipped or reused.
                XCTAssertEqual(ciphertext, Data(zip(plaintext, stream).map { $0 ^ $1 }), "\(keySize)-byte key, \(length) bytes")
                XCTAssertEqual(try Salsa20.apply(ciphertext, key: key, nonce: nonce), plaintext)
            }
        }
    }

    func testApply_takesDataSlices() throws {
        let key = secureRandomBytes(32), nonce = secureRandomBytes(8), buffer = secureRandomBytes(200)
        let slice = buffer[7..<150]
        XCTAssertEqual(try Salsa20.apply(slice, key: key[...], nonce: nonce[...]), try Salsa20.apply(Data(slice), key: key, nonce: nonce))
    }

    func testApply_rejectsWrongKeyAndNonceSizes() {
        for size in [0, 15, 17, 24, 31, 33, 64] {
            XCTAssertThrowsError(try Salsa20.apply(Data(count: 10), key: Data(count: size), nonce: Data(count: 8))) {
                XCTAssertEqual($0 as? WireCryptoError, .incorrectKeySize(bytes: size, allowed: [16, 32]))
            }
        }
        for size in [0, 7, 9, 12, 16, 24] {
            XCTAssertThrowsError(try Salsa20.apply(Data(count: 10), key: Data(count: 32), nonce: Data(count: size))) {
                XCTAssertEqual($0 as? WireCryptoError, .invalidLength(what: "Salsa20 nonce", length: size, expected: "8"))
            }
        }
        // Both wrong: the key is reported, as PyCryptodome does.
        XCTAssertThrowsError(try Salsa20.apply(Data(), key: Data(count: 20), nonce: Data(count: 12))) {
            XCTAssertEqual($0 as? WireCryptoError, .incorrectKeySize(bytes: 20, allowed: [16, 32]))
        }
    }
}
