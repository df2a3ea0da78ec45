import Foundation
import XCTest
import WireCrypto

/// Probe ciphertexts (textbook RSA over hand-built encodings) decrypt exactly as built: the valid
/// encodings to their message, every malformed class to a decryption failure.
final class RSAProbeTests: XCTestCase {
    func testProbeCiphertexts_decryptExactlyAsBuilt() throws {
        let key = try RSAPrivateKey(bits: 1024)
        let k = key.modulusByteCount
        var random = SystemRandomNumberGenerator()
        for padding in [RSAEncryptionPadding._WEAK_AND_INSECURE_PKCS_V1_5, .oaepSHA1, .oaepSHA256] {
            for probe in RSAPaddingProbe.applicable(to: padding) {
                let message = Data("a probe message".utf8)
                let ciphertext = try key.publicKey._WEAK_AND_INSECURE_textbookEncrypt(probe.encode(message, k: k, padding: padding, random: &random))
                XCTAssertEqual(ciphertext.count, k)
                let result = Result { try key.decrypt(ciphertext, padding: padding) }
                switch probe {
                case .valid: XCTAssertEqual(try result.get(), message, "\(padding) \(probe)")
                case .validEmptyMessage: XCTAssertEqual(try result.get(), Data(), "\(padding) \(probe)")
                case .validMaximumMessage: XCTAssertEqual(try result.get().count, padding.maxPlaintextLength(modulusBytes: k))
                default:
                    XCTAssertThrowsError(try result.get(), "\(padding) \(probe) must not decrypt") {
                        XCTAssertEqual($0 as? WireCryptoError, .decryptionFailed)
                    }
                }
            }
        }
    }

    func testTextbookEncrypt_isModularExponentiation() throws {
        let key = try RSAPrivateKey(bits: 1024)
        let k = key.modulusByteCount
        // 1^e = 1, and 0^e = 0, whatever the key.
        XCTAssertEqual(try key.publicKey._WEAK_AND_INSECURE_textbookEncrypt(Data([1])), Data(count: k - 1) + Data([1]))
        XCTAssertEqual(try key.publicKey._WEAK_AND_INSECURE_textbookEncrypt(Data(count: k)), Data(count: k))
        // n itself reduces to 0 mod n.
        XCTAssertEqual(try key.publicKey._WEAK_AND_INSECURE_textbookEncrypt(key.publicKey.modulus), Data(count: k))
        XCTAssertThrowsError(try key.publicKey._WEAK_AND_INSECURE_textbookEncrypt(Data(count: k + 1)))
    }
}
