import Foundation
import XCTest
import CryptoKit
import TestSupport

/// SHA-2/SHA-1 and HMAC against published vectors: FIPS 180-4's examples (NIST CSRC "Example
/// Algorithms": "abc", the 448-bit two-block message, one million 'a'), RFC 4231 (HMAC-SHA-2) and
/// RFC 2202 (HMAC-SHA-1).
final class HashTests: XCTestCase {
    func testSHA2_matchesFIPS180Examples() {
        let abc = Data("abc".utf8)
        XCTAssertEqual(SHA256.hash(data: abc).hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA384.hash(data: abc).hex, "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
        XCTAssertEqual(SHA512.hash(data: abc).hex, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        XCTAssertEqual(Insecure.SHA1.hash(data: abc).hex, "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(SHA256.hash(data: Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)).hex,
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hash(data: Data()).hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    func testIncrementalUpdates_oneMillionA_inUnevenChunks() {
        var hasher = SHA256()
        var fed = 0
        var chunk = 1
        while fed < 1_000_000 {
            let count = min(chunk, 1_000_000 - fed)
            hasher.update(data: Data(repeating: UInt8(ascii: "a"), count: count))
            fed += count
            chunk = chunk * 3 + 1
        }
        XCTAssertEqual(hasher.finalize().hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testHashFunctionsAreValues_aCopyHashesOnItsOwn() {
        var first = SHA256()
        first.update(data: Data("ab".utf8))
        var second = first
        second.update(data: Data("c".utf8))
        XCTAssertEqual(second.finalize().hex, SHA256.hash(data: Data("abc".utf8)).hex)
        XCTAssertEqual(first.finalize().hex, SHA256.hash(data: Data("ab".utf8)).hex)
        // finalize does not consume: the hasher can go on.
        first.update(data: Data("c".utf8))
        XCTAssertEqual(first.finalize(), SHA256.hash(data: Data("abc".utf8)))
    }

    func testDigestShape_sizesDescriptionAndComparisonWithData() {
        let digest = SHA256.hash(data: Data("abc".utf8))
        XCTAssertEqual(SHA256.Digest.byteCount, 32)
        XCTAssertEqual(SHA384.byteCount, 48)
        XCTAssertEqual(SHA512.blockByteCount, 128)
        XCTAssertEqual(Array(digest).count, 32)
        XCTAssertEqual(digest.description, "SHA256 digest: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertTrue(digest == Data(hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        XCTAssertFalse(digest == Data(hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ae"))
        XCTAssertEqual(Set([digest, SHA256.hash(data: Data("abc".utf8))]).count, 1)
    }
}

final class HMACTests: XCTestCase {
    func testRFC4231_testCases1_2_6() {
        let key1 = SymmetricKey(data: Data(repeating: 0x0b, count: 20))
        let hiThere = Data("Hi There".utf8)
        XCTAssertEqual(HMAC<SHA256>.authenticationCode(for: hiThere, using: key1).hex,
                       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        XCTAssertEqual(HMAC<SHA384>.authenticationCode(for: hiThere, using: key1).hex,
                       "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6")
        XCTAssertEqual(HMAC<SHA512>.authenticationCode(for: hiThere, using: key1).hex,
                       "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854")
        XCTAssertEqual(HMAC<SHA256>.authenticationCode(for: Data("what do ya want for nothing?".utf8), using: SymmetricKey(data: Data("Jefe".utf8))).hex,
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Test case 6: a 131-byte key, longer than the block, is hashed first.
        let longKey = SymmetricKey(data: Data(repeating: 0xaa, count: 131))
        let message = Data("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        XCTAssertEqual(HMAC<SHA256>.authenticationCode(for: message, using: longKey).hex,
                       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        XCTAssertEqual(HMAC<SHA512>.authenticationCode(for: message, using: longKey).hex,
                       "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598")
    }

    func testRFC2202_HMACSHA1_testCase1() {
        XCTAssertEqual(HMAC<Insecure.SHA1>.authenticationCode(for: Data("Hi There".utf8), using: SymmetricKey(data: Data(repeating: 0x0b, count: 20))).hex,
                       "b617318655057264e28bc0b6fb378c8ef146be00")
    }

    func testIncrementalAndValidation() {
        let key = SymmetricKey(data: Data("Jefe".utf8))
        var hmac = HMAC<SHA256>(key: key)
        hmac.update(data: Data("what do ya ".utf8))
        hmac.update(data: Data("want for nothing?".utf8))
        let mac = hmac.finalize()
        XCTAssertEqual(mac.hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        XCTAssertEqual(mac.byteCount, 32)
        XCTAssertTrue(mac.description.hasPrefix("HMAC with SHA256: 5bdcc146"))
        let message = Data("what do ya want for nothing?".utf8)
        XCTAssertTrue(HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: message, using: key))
        XCTAssertTrue(HMAC<SHA256>.isValidAuthenticationCode(Data(mac), authenticating: message, using: key))
        XCTAssertFalse(HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: message + Data([0]), using: key))
        XCTAssertFalse(HMAC<SHA256>.isValidAuthenticationCode(Data(mac.dropLast()), authenticating: message, using: key))
        XCTAssertFalse(HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: message, using: SymmetricKey(data: Data("Jeff".utf8))))
    }
}
