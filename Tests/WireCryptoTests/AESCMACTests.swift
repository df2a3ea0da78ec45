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

/// AES-EAX against the EAX paper's own test vectors (Bellare, Rogaway and Wagner, "The EAX Mode of
/// Operation", FSE 2004, appendix: the first three), both ways, and a tag that does not verify.
final class AESEAXTests: XCTestCase {
    func testEAX_paperVectors_bothWays_andEveryTagBitCounts() throws {
        let vectors: [(message: String, key: String, nonce: String, header: String, cipher: String)] = [
            ("", "233952DEE4D5ED5F9B9C6D6FF80FF478", "62EC67F9C3A4A407FCB2A8C49031A8B3", "6BFB914FD07EAE6B", "E037830E8389F27B025A2D6527E79D01"),
            ("F7FB", "91945D3F4DCBEE0BF45EF52255F095A4", "BECAF043B0A23D843194BA972C66DEBD", "FA3BFD4806EB53FA", "19DD5C4C9331049D0BDAB0277408F67967E5"),
            ("1A47CB4933", "01F74AD64077F2E704C0F60ADA3DD523", "70C3DB4F0D26368400A10ED05D2BFF5E", "234A3463C1264AC6", "D851D5BAE03A59F238A23E39199DC9266626C40F80"),
        ]
        for vector in vectors {
            let key = Data(hexString: vector.key)!, nonce = Data(hexString: vector.nonce)!, header = Data(hexString: vector.header)!
            let message = Data(hexString: vector.message) ?? Data()
            let sealed = try AESEAX.seal(message, key: key, nonce: nonce, header: header)
            XCTAssertEqual((sealed.ciphertext + sealed.tag).hexString.uppercased(), vector.cipher)
            XCTAssertEqual(try AESEAX.open(sealed.ciphertext, key: key, nonce: nonce, tag: sealed.tag, header: header), message)
            for bit in [0, 7, 127] {
                var tag = sealed.tag
                tag[bit / 8] ^= UInt8(1 << (bit % 8))
                XCTAssertThrowsError(try AESEAX.open(sealed.ciphertext, key: key, nonce: nonce, tag: tag, header: header))
            }
            XCTAssertThrowsError(try AESEAX.open(sealed.ciphertext, key: key, nonce: nonce, tag: sealed.tag.prefix(15), header: header))
        }
    }
}
