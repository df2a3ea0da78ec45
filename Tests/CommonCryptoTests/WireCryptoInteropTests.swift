import Foundation
import XCTest
import CommonCrypto
import WireCrypto
import TestSupport

/// CCCrypt and WireCrypto's AESCBC (the harness's envelope code) read each other's ciphertexts.
final class CCCryptWireCryptoInteropTests: XCTestCase {
    func testAESCBCWithPKCS7_crossesBothWays() throws {
        for keyLength in [16, 24, 32] {
            let key = secureRandomBytes(keyLength), iv = AESCBC.randomIV()
            let message = Data("{\"example\":\"data\"}".utf8)
            let fromCC = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, input: message)
            XCTAssertEqual(try AESCBC.decrypt(fromCC.output, key: key, iv: iv), message)
            let fromWire = try AESCBC.encrypt(message, key: key, iv: iv)
            XCTAssertEqual(fromWire, fromCC.output)
            XCTAssertEqual(crypt(kCCDecrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, input: fromWire).output, message)
        }
    }
}
