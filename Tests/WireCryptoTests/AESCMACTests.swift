import Foundation
import XCTest
import WireCrypto

/// AES-CMAC against RFC 4493 §4's examples (AES-128 key 2b7e1516…, messages of 0, 16, 40 and 64 bytes).
final class AESCMACTests: XCTestCase {
    static let key = Data(hexString: "2b7e151628aed2a6abf7158809cf4f3c")!
    static let message = Data(hexString: "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")!

    func testRFC4493Examples() throws {
        let expected = [0: "bb1d6929e95937287fa37d129b756746", 16: "070a16b46b4d4144f79bdd9dd04a287c",
                        40: "dfa66747de9ae63030ca32611497c827", 64: "51f0bebf7e3b9d92fc49741779363cfe"]
        for (length, tag) in expected {
            XCTAssertEqual(try AESCMAC.authenticationCode(key: Self.key, message: Self.message.prefix(length)).hexString, tag, "\(length) bytes")
        }
    }

    func testAKeyThatIsNoAESKeyIsRefused() {
        XCTAssertThrowsError(try AESCMAC.authenticationCode(key: Data(count: 15), message: Data())) {
            XCTAssertEqual($0 as? WireCryptoError, .incorrectKeySize(bytes: 15, allowed: [16, 24, 32]))
        }
    }
}
