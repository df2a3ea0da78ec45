import Foundation
import XCTest
import CommonCrypto

/// Issue 38: CommonCrypto answers as Apple's open-source CommonCrypto does where app code leans on it
/// (apple-oss-distributions/CommonCrypto; the table in docs/APPLE-MODULES.md).
final class CommonCryptoFidelityTests: XCTestCase {
    /// lib/CommonKeyDerivation.c:54 (`CCKeyDerivationPBKDF`): `if(!password || …) return kCCParamError;`
    /// — a NULL password is refused even with length 0 (an empty password is "" with length 0), and
    /// nothing is written.
    func testPBKDF2_nullPassword_isKCCParamError_evenWithLengthZero() {
        let salt = Array("salt".utf8)
        var key = [UInt8](repeating: 0, count: 20)
        XCTAssertEqual(CCKeyDerivationPBKDF(CCPBKDFAlgorithm(kCCPBKDF2), nil, 0, salt, salt.count,
                                            CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA1), 1, &key, key.count), Int32(kCCParamError))
        XCTAssertEqual(key, [UInt8](repeating: 0, count: 20))
        // The empty password, given as a pointer, is PBKDF2 of zero bytes (Python's
        // hashlib.pbkdf2_hmac("sha1", b"", b"salt", 1, 20)).
        XCTAssertEqual(CCKeyDerivationPBKDF(CCPBKDFAlgorithm(kCCPBKDF2), "", 0, salt, salt.count,
                                            CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA1), 1, &key, key.count), Int32(kCCSuccess))
        XCTAssertEqual(key.map { String(format: "%02x", $0) }.joined(), "a33dddc30478185515311f8752895d36ea4363a2")
        // A NULL salt with length 0 is allowed (line 55 refuses it only with a length).
        XCTAssertEqual(CCKeyDerivationPBKDF(CCPBKDFAlgorithm(kCCPBKDF2), "pw", 2, nil, 0,
                                            CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256), 1, &key, key.count), Int32(kCCSuccess))
    }
}
