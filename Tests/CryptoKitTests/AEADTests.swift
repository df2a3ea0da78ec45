import Foundation
import XCTest
import CryptoKit
import TestSupport

final class AESGCMTests: XCTestCase {
    // McGrew & Viega, "The Galois/Counter Mode of Operation" (the GCM specification submitted to
    // NIST), Test Case 3 (AES-128, 96-bit IV, no AAD) and Test Case 4 (the same with AAD and a
    // 60-byte message).
    let key = SymmetricKey(data: Data(hex: "feffe9928665731c6d6a8f9467308308"))
    let iv = Data(hex: "cafebabefacedbaddecaf888")
    let plaintext64 = Data(hex: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                              + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255")

    func testGCMSpecTestCase3_combinedForm() throws {
        let box = try AES.GCM.seal(plaintext64, using: key, nonce: AES.GCM.Nonce(data: iv))
        XCTAssertEqual(box.ciphertext.hex, "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
                                         + "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985")
        XCTAssertEqual(box.tag.hex, "4d5c2af327cd64a62cf35abd2ba6fab4")
        let combined = try XCTUnwrap(box.combined)
        XCTAssertEqual(combined.count, 12 + 64 + 16)
        XCTAssertEqual(combined.prefix(12), iv)
        XCTAssertEqual(try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key), plaintext64)
    }

    func testGCMSpecTestCase4_withAssociatedData_partsForm() throws {
        let aad = Data(hex: "feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let message = plaintext64.prefix(60)
        let box = try AES.GCM.seal(message, using: key, nonce: AES.GCM.Nonce(data: iv), authenticating: aad)
        XCTAssertEqual(box.tag.hex, "5bc94fbc3221a5db94fae95ae7121a47")
        XCTAssertEqual(box.ciphertext.prefix(16).hex, "42831ec2217774244b7221b784d0d49c")
        let rebuilt = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: iv), ciphertext: box.ciphertext, tag: box.tag)
        XCTAssertEqual(try AES.GCM.open(rebuilt, using: key, authenticating: aad), message)
        XCTAssertThrowsError(try AES.GCM.open(rebuilt, using: key)) { XCTAssertEqual($0 as? CryptoKitError, .authenticationFailure) }
    }

    /// Every Wycheproof AES-GCM vector CryptoKit's API can express (nonce ≥ 12 bytes, 16-byte tag)
    /// runs through the nonce/ciphertext/tag form; nonces under 12 bytes must be refused.
    func testWycheproofAESGCM_everyVectorTheAPICanExpress() throws {
        let cases = try loadWycheproofAEAD("aes_gcm_test.json")
        XCTAssertEqual(cases.count, 316)
        var ran = 0, nonStandardNonces = 0, refusedNonces = 0
        for test in cases {
            guard test.iv.count >= 12 else {
                XCTAssertThrowsError(try AES.GCM.Nonce(data: test.iv), "tc \(test.tcId)") {
                    XCTAssertEqual($0 as? CryptoKitError, .incorrectParameterSize)
                }
                refusedNonces += 1
                continue
            }
            XCTAssertEqual(test.tagBits, 128)
            let key = SymmetricKey(data: test.key)
            let nonce = try AES.GCM.Nonce(data: test.iv)
            let box = try AES.GCM.SealedBox(nonce: nonce, ciphertext: test.ct, tag: test.tag)
            if test.iv.count != 12 { nonStandardNonces += 1; XCTAssertNil(box.combined, "tc \(test.tcId)") }
            if test.valid {
                XCTAssertEqual(try AES.GCM.open(box, using: key, authenticating: test.aad), test.msg, "tc \(test.tcId)")
                let sealed = try AES.GCM.seal(test.msg, using: key, nonce: nonce, authenticating: test.aad)
                XCTAssertEqual(sealed.ciphertext, test.ct, "tc \(test.tcId)")
                XCTAssertEqual(sealed.tag, test.tag, "tc \(test.tcId)")
            } else {
                XCTAssertThrowsError(try AES.GCM.open(box, using: key, authenticating: test.aad), "tc \(test.tcId)") {
                    XCTAssertEqual($0 as? CryptoKitError, .authenticationFailure, "tc \(test.tcId)")
                }
            }
            ran += 1
        }
        XCTAssertEqual(ran, 273)
        XCTAssertEqual(nonStandardNonces, 76)
        XCTAssertEqual(refusedNonces, 43)
    }

    func testErrors_keySizeNonceSizeBoxSizeTagSizeAndTampering() throws {
        XCTAssertThrowsError(try AES.GCM.seal(Data("x".utf8), using: SymmetricKey(data: Data(count: 20)))) {
            XCTAssertEqual($0 as? CryptoKitError, .incorrectKeySize)
        }
        XCTAssertThrowsError(try AES.GCM.Nonce(data: Data(count: 11))) { XCTAssertEqual($0 as? CryptoKitError, .incorrectParameterSize) }
        XCTAssertThrowsError(try AES.GCM.SealedBox(combined: Data(count: 27))) { XCTAssertEqual($0 as? CryptoKitError, .incorrectParameterSize) }
        XCTAssertNoThrow(try AES.GCM.SealedBox(combined: Data(count: 28)))
        XCTAssertThrowsError(try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(), ciphertext: Data(), tag: Data(count: 15))) {
            XCTAssertEqual($0 as? CryptoKitError, .incorrectParameterSize)
        }
        for size in [SymmetricKeySize.bits128, .bits192, .bits256] {
            let key = SymmetricKey(size: size)
            XCTAssertEqual(key.bitCount, size.bitCount)
            let combined = try XCTUnwrap(AES.GCM.seal(Data("attack at dawn".utf8), using: key).combined)
            for index in [0, 12, combined.count - 1] {
                var tampered = combined
                tampered[index] ^= 0x01
                XCTAssertThrowsError(try AES.GCM.open(AES.GCM.SealedBox(combined: tampered), using: key)) {
                    XCTAssertEqual($0 as? CryptoKitError, .authenticationFailure)
                }
            }
            XCTAssertThrowsError(try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: SymmetricKey(size: size))) {
                XCTAssertEqual($0 as? CryptoKitError, .authenticationFailure)
            }
        }
    }

    func testLongNonce_sealsAndOpens_butHasNoCombinedForm() throws {
        let key = SymmetricKey(size: .bits256)
        let nonce = try AES.GCM.Nonce(data: Data(repeating: 7, count: 60))
        let box = try AES.GCM.seal(Data("hello".utf8), using: key, nonce: nonce)
        XCTAssertNil(box.combined)
        XCTAssertEqual(Array(box.nonce).count, 60)
        XCTAssertEqual(try AES.GCM.open(box, using: key), Data("hello".utf8))
    }

    /// CryptoKit's combined box opened by pyca/cryptography's AESGCM, and the reverse.
    func testInterop_withPycaCryptography_bothDirections() throws {
        let key = SymmetricKey(size: .bits256)
        let keyHex = key.withUnsafeBytes { Data($0).hex }
        let aad = Data("seed-003".utf8)
        let combined = try XCTUnwrap(AES.GCM.seal(Data("this is our golden secret. Encrypt it!".utf8), using: key, authenticating: aad).combined)
        let opened = try python("""
            import sys
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            key, blob, aad = (bytes.fromhex(x) for x in sys.stdin.read().split())
            print(AESGCM(key).decrypt(blob[:12], blob[12:], aad).decode())
            """, input: "\(keyHex) \(combined.hex) \(aad.hex)")
        XCTAssertEqual(opened, "this is our golden secret. Encrypt it!")
        let fromPython = try python("""
            import sys, os
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            key, aad = (bytes.fromhex(x) for x in sys.stdin.read().split())
            nonce = os.urandom(12)
            print((nonce + AESGCM(key).encrypt(nonce, b"from the Pi", aad)).hex())
            """, input: "\(keyHex) \(aad.hex)")
        XCTAssertEqual(try AES.GCM.open(AES.GCM.SealedBox(combined: Data(hex: fromPython)), using: key, authenticating: aad),
                       Data("from the Pi".utf8))
    }
}

final class ChaChaPolyTests: XCTestCase {
    // RFC 8439 §2.8.2: the AEAD_CHACHA20_POLY1305 example.
    func testRFC8439Example() throws {
        let key = SymmetricKey(data: Data((0x80...0x9f).map { UInt8($0) }))
        let nonce = try ChaChaPoly.Nonce(data: Data(hex: "070000004041424344454647"))
        let aad = Data(hex: "50515253c0c1c2c3c4c5c6c7")
        let plaintext = Data("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let box = try ChaChaPoly.seal(plaintext, using: key, nonce: nonce, authenticating: aad)
        XCTAssertEqual(box.ciphertext.prefix(16).hex, "d31a8d34648e60db7b86afbc53ef7ec2")
        XCTAssertEqual(box.tag.hex, "1ae10b594f09e26a7e902ecbd0600691")
        XCTAssertEqual(try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: box.combined), using: key, authenticating: aad), plaintext)
    }

    func testWycheproofChaCha20Poly1305_everyVectorTheAPICanExpress() throws {
        let cases = try loadWycheproofAEAD("chacha20_poly1305_test.json")
        var ran = 0, refused = 0
        for test in cases {
            guard test.iv.count == 12, test.key.count == 32, test.tagBits == 128 else {
                if test.iv.count != 12 { XCTAssertThrowsError(try ChaChaPoly.Nonce(data: test.iv)) }
                refused += 1
                continue
            }
            let key = SymmetricKey(data: test.key)
            let box = try ChaChaPoly.SealedBox(nonce: ChaChaPoly.Nonce(data: test.iv), ciphertext: test.ct, tag: test.tag)
            if test.valid {
                XCTAssertEqual(try ChaChaPoly.open(box, using: key, authenticating: test.aad), test.msg, "tc \(test.tcId)")
            } else {
                XCTAssertThrowsError(try ChaChaPoly.open(box, using: key, authenticating: test.aad), "tc \(test.tcId)") {
                    XCTAssertEqual($0 as? CryptoKitError, .authenticationFailure)
                }
            }
            ran += 1
        }
        XCTAssertGreaterThan(ran, 200)
        XCTAssertEqual(ran + refused, cases.count)
    }

    func testErrors() throws {
        XCTAssertThrowsError(try ChaChaPoly.seal(Data(), using: SymmetricKey(size: .bits128))) { XCTAssertEqual($0 as? CryptoKitError, .incorrectKeySize) }
        XCTAssertThrowsError(try ChaChaPoly.Nonce(data: Data(count: 13))) { XCTAssertEqual($0 as? CryptoKitError, .incorrectParameterSize) }
        XCTAssertThrowsError(try ChaChaPoly.SealedBox(combined: Data(count: 27))) { XCTAssertEqual($0 as? CryptoKitError, .incorrectParameterSize) }
        let key = SymmetricKey(size: .bits256)
        var combined = try ChaChaPoly.seal(Data("x".utf8), using: key).combined
        combined[13] ^= 0x80
        XCTAssertThrowsError(try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: combined), using: key)) {
            XCTAssertEqual($0 as? CryptoKitError, .authenticationFailure)
        }
    }
}

final class SymmetricKeyTests: XCTestCase {
    func testSizesRandomnessAndEquality() {
        XCTAssertEqual(SymmetricKey(size: .bits256).bitCount, 256)
        XCTAssertEqual(SymmetricKeySize(bitCount: 512).bitCount, 512)
        XCTAssertNotEqual(SymmetricKey(size: .bits128), SymmetricKey(size: .bits128))
        let bytes = Data((0..<32).map { UInt8($0) })
        XCTAssertEqual(SymmetricKey(data: bytes), SymmetricKey(data: [UInt8](bytes)))
        XCTAssertEqual(SymmetricKey(data: bytes).withUnsafeBytes { Data($0) }, bytes)
        XCTAssertNotEqual(SymmetricKey(data: bytes), SymmetricKey(data: bytes.prefix(31)))
    }
}

/// The Swift GHASH path for nonces over OpenSSL's 128-byte limit, checked against OpenSSL's own GCM
/// wherever both can run (nonces of 1…128 bytes; a different implementation, the same answers).
final class LongNonceGCMTests: XCTestCase {
    func testSwiftGHASHPath_agreesWithOpenSSL_forEveryNonceLengthBothTake() throws {
        for nonceLength in [1, 8, 12, 13, 16, 17, 60, 64, 127, 128] {
            for messageLength in [0, 1, 16, 33] {
                let key = [UInt8](SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
                let nonce = (0..<nonceLength).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
                let message = (0..<messageLength).map { UInt8(truncatingIfNeeded: $0) }
                let aad = [UInt8]("aad".utf8)
                let swift = try WireCryptoLongNonce.seal(key: key, nonce: nonce, plaintext: message, aad: aad)
                let openssl = try WireCryptoLongNonce.sealWithOpenSSL(key: key, nonce: nonce, plaintext: message, aad: aad)
                XCTAssertEqual(swift.ciphertext, openssl.ciphertext, "nonce \(nonceLength) message \(messageLength)")
                XCTAssertEqual(swift.tag, openssl.tag, "nonce \(nonceLength) message \(messageLength)")
            }
        }
    }
}
