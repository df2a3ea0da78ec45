import Foundation
import XCTest
@testable import WireCrypto

final class RSACipherTests: XCTestCase {
    static let key = try! RSAPrivateKey(bits: 1024)
    static let paddings: [RSAEncryptionPadding] = [._WEAK_AND_INSECURE_PKCS_V1_5, .oaepSHA1, .oaepSHA256]

    func testRoundTrip_everyPaddingAtZeroOneAndTheLimit() throws {
        for padding in Self.paddings {
            let limit = padding.maxPlaintextLength(modulusBytes: 128)
            for length in [0, 1, limit] {
                let plaintext = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) })
                let ciphertext = try Self.key.publicKey.encrypt(plaintext, padding: padding)
                XCTAssertEqual(ciphertext.count, 128)
                XCTAssertEqual(try Self.key.decrypt(ciphertext, padding: padding), plaintext, "\(padding) \(length)")
            }
        }
        XCTAssertEqual(RSAEncryptionPadding._WEAK_AND_INSECURE_PKCS_V1_5.maxPlaintextLength(modulusBytes: 128), 117)
        XCTAssertEqual(RSAEncryptionPadding.oaepSHA1.maxPlaintextLength(modulusBytes: 128), 86)
        XCTAssertEqual(RSAEncryptionPadding.oaepSHA256.maxPlaintextLength(modulusBytes: 128), 62)
    }

    func testEncrypt_overTheLimitStatesTheLimit() {
        XCTAssertThrowsError(try Self.key.publicKey.encrypt(Data(count: 63), padding: .oaepSHA256)) { error in
            XCTAssertEqual(error as? WireCryptoError,
                           .plaintextTooLong(length: 63, limit: 62, padding: "oaep-sha256", keyBits: 1024))
            XCTAssertTrue("\(error)".contains("at most 62"), "\(error)")
        }
    }

    func testDecrypt_wrongLengthIsALengthError() {
        XCTAssertThrowsError(try Self.key.decrypt(Data(count: 127), padding: .oaepSHA1)) { error in
            guard case WireCryptoError.invalidLength(_, 127, _) = error else { return XCTFail("\(error)") }
        }
    }

    func testDecrypt_mismatchedPaddingMGFOrLabelAllFailAlike() throws {
        let plaintext = Data("Secret message from RPi server".utf8)
        let oaep256 = try Self.key.publicKey.encrypt(plaintext, padding: .oaepSHA256)
        let mismatches: [(String, RSAEncryptionPadding)] = [
            ("pkcs1", ._WEAK_AND_INSECURE_PKCS_V1_5),
            ("oaep-sha1", .oaepSHA1),
            ("mgf1-sha1", .oaep(hash: .sha256, mgf1: .sha1)),
            ("label", .oaep(hash: .sha256, mgf1: .sha256, label: Data("x".utf8))),
        ]
        for (name, padding) in mismatches {
            XCTAssertThrowsError(try Self.key.decrypt(oaep256, padding: padding), name) {
                XCTAssertEqual($0 as? WireCryptoError, .decryptionFailed, name)
            }
        }
        let labelled = RSAEncryptionPadding.oaep(hash: .sha256, mgf1: .sha256, label: Data("label".utf8))
        let withLabel = try Self.key.publicKey.encrypt(plaintext, padding: labelled)
        XCTAssertEqual(try Self.key.decrypt(withLabel, padding: labelled), plaintext)
    }

    func testPaddingNames_parseAndRejectUnknown() throws {
        XCTAssertEqual(try RSAEncryptionPadding(name: "pkcs1"), ._WEAK_AND_INSECURE_PKCS_V1_5)
        XCTAssertEqual(try RSAEncryptionPadding(name: "oaep-sha256").description, "oaep-sha256")
        XCTAssertTrue(RSAEncryptionPadding._WEAK_AND_INSECURE_PKCS_V1_5.isWeak)
        XCTAssertThrowsError(try RSAEncryptionPadding(name: "oaep-md5"))
    }
}
