import Foundation
import XCTest
import Security
import WireCrypto
import TestSupport

/// Security's SecKey and WireCrypto (the harness's own Swift side) read each other's keys and ciphertexts.
final class SecKeyWireCryptoInteropTests: XCTestCase {
    func testCiphertextsAndKeys_crossBothWays() throws {
        let (privateKey, publicKey) = SecKeyTests.shared
        let privateDER = try XCTUnwrap(SecKeyCopyExternalRepresentation(privateKey, nil) as Data?)
        let wirePrivate = try RSAPrivateKey(importing: privateDER)
        let message = Data("crosses both ways".utf8)
        var error: Unmanaged<CFError>?
        for (algorithm, padding) in [(SecKeyAlgorithm.rsaEncryptionPKCS1, RSAEncryptionPadding._WEAK_AND_INSECURE_PKCS_V1_5),
                                     (.rsaEncryptionOAEPSHA1, .oaepSHA1), (.rsaEncryptionOAEPSHA256, .oaepSHA256)] {
            let fromSecKey = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, algorithm, message as CFData, &error) as Data?)
            XCTAssertEqual(try wirePrivate.decrypt(fromSecKey, padding: padding), message)
            let fromWire = try wirePrivate.encrypt(message, padding: padding)
            XCTAssertEqual(SecKeyCreateDecryptedData(privateKey, algorithm, fromWire as CFData, &error) as Data?, message)
        }
        // WireCrypto's bare PKCS#1 public DER is what SecKeyCopyExternalRepresentation gives.
        XCTAssertEqual(try wirePrivate.publicKey.exported(.pkcs1DER), SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)
    }
}
