import Foundation
import XCTest
import COpenSSL
@testable import WireCrypto

/// The Swift side rejects a bad PKCS#1 v1.5 padding with an error, as iOS does, whatever the
/// linked OpenSSL: ≥ 3.2 would otherwise answer with a synthetic plaintext (implicit rejection).
final class PKCS1RejectionTests: XCTestCase {
    /// The detection agrees with the linked library's version: 3.2 added the switch.
    func testDetectionMatchesTheLinkedOpenSSLVersion() {
        let version = OpenSSL_version_num()
        XCTAssertEqual(PKCS1Rejection.linkedOpenSSLHasImplicitRejection, version >= 0x3020_0000,
                       "OpenSSL \(String(cString: OpenSSL_version(OPENSSL_VERSION)))")
        if !PKCS1Rejection.linkedOpenSSLHasImplicitRejection {
            print("PKCS1RejectionTests: the linked \(String(cString: OpenSSL_version(OPENSSL_VERSION))) predates implicit rejection (3.2): nothing to turn off; the error below comes from the library itself")
        }
        XCTAssertTrue(PKCS1Rejection.description.hasPrefix("explicit"))
    }

    /// Every class of bad padding is an error, never bytes, and each is the same error.
    func testEveryBadPaddingIsAnError() throws {
        let key = try RSAPrivateKey(bits: 1024)
        let padding = RSAEncryptionPadding._WEAK_AND_INSECURE_PKCS_V1_5
        var random = SystemRandomNumberGenerator()
        let bad: [RSAPaddingProbe] = [.firstByteNotZero, .blockTypeOne, .blockTypeZero, .noSeparator, .separatorTooEarly, .otherScheme]
        for probe in bad {
            for _ in 0..<8 {
                let block = probe.encode(Data("message".utf8), k: key.modulusByteCount, padding: padding, random: &random)
                if probe == .otherScheme, block[1] == 0x02 { continue }  // an OAEP block that happens to be PKCS#1-conforming
                let ciphertext = try key.publicKey._WEAK_AND_INSECURE_textbookEncrypt(block)
                XCTAssertThrowsError(try key.decrypt(ciphertext, padding: padding), "\(probe)") { error in
                    XCTAssertEqual(error as? WireCryptoError, .decryptionFailed, "\(probe)")
                }
            }
        }
        // The control: a good block decrypts.
        let good = try key.publicKey._WEAK_AND_INSECURE_textbookEncrypt(RSAPaddingProbe.valid.encode(Data("message".utf8), k: key.modulusByteCount, padding: padding, random: &random))
        XCTAssertEqual(try key.decrypt(good, padding: padding), Data("message".utf8))
    }
}
