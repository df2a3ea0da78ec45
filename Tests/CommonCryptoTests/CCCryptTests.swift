import Foundation
import XCTest
import CommonCrypto
import TestSupport

/// One CCCrypt call the way iOS code writes it, returning status, dataOutMoved and the output.
func crypt(_ op: Int, options: Int, key: Data, iv: Data?, input: Data, outputSize: Int? = nil,
           algorithm: Int = kCCAlgorithmAES128) -> (status: CCCryptorStatus, moved: Int, output: Data) {
    let keyBytes = [UInt8](key)
    let ivBytes = iv.map { [UInt8]($0) }
    var buffer = [UInt8](repeating: 0, count: outputSize ?? input.count + kCCBlockSizeAES128)
    var moved: size_t = -1
    let status: CCCryptorStatus
    if let ivBytes {
        status = CCCrypt(CCOperation(op), CCAlgorithm(algorithm), CCOptions(options), keyBytes, keyBytes.count, ivBytes,
                         [UInt8](input), input.count, &buffer, buffer.count, &moved)
    } else {
        status = CCCrypt(CCOperation(op), CCAlgorithm(algorithm), CCOptions(options), keyBytes, keyBytes.count, nil,
                         [UInt8](input), input.count, &buffer, buffer.count, &moved)
    }
    return (status, moved, Data(buffer.prefix(max(0, min(moved, buffer.count)))))
}

/// Known answers from NIST SP 800-38A Appendix F (F.1.1 ECB-AES128, F.2.1 CBC-AES128, F.2.5 CBC-AES256).
final class CCCryptKnownAnswerTests: XCTestCase {
    let key128 = Data(hex: "2b7e151628aed2a6abf7158809cf4f3c")
    let key256 = Data(hex: "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
    let iv = Data(hex: "000102030405060708090a0b0c0d0e0f")
    let plaintext = Data(hex: "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                            + "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")

    func testCBC_AES128_and_AES256_noPadding() {
        let c128 = crypt(kCCEncrypt, options: 0, key: key128, iv: iv, input: plaintext)
        XCTAssertEqual(c128.status, CCCryptorStatus(kCCSuccess))
        XCTAssertEqual(c128.output.hex, "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
                                      + "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7")
        let c256 = crypt(kCCEncrypt, options: 0, key: key256, iv: iv, input: plaintext)
        XCTAssertEqual(c256.output.hex, "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"
                                      + "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b")
        let back = crypt(kCCDecrypt, options: 0, key: key256, iv: iv, input: c256.output)
        XCTAssertEqual(back.status, CCCryptorStatus(kCCSuccess))
        XCTAssertEqual(back.output, plaintext)
    }

    func testECB_AES128_noPadding_ignoresTheIV() {
        let expected = "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
                     + "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4"
        XCTAssertEqual(crypt(kCCEncrypt, options: kCCOptionECBMode, key: key128, iv: nil, input: plaintext).output.hex, expected)
        XCTAssertEqual(crypt(kCCEncrypt, options: kCCOptionECBMode, key: key128, iv: iv, input: plaintext).output.hex, expected)
    }

    func testPKCS7_addsOneWholeBlockToAlignedInput_andRoundTrips() {
        let sealed = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key128, iv: iv, input: plaintext)
        XCTAssertEqual(sealed.status, CCCryptorStatus(kCCSuccess))
        XCTAssertEqual(sealed.moved, 80)
        XCTAssertEqual(sealed.output.prefix(64).hex, "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
                                                   + "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7")
        let opened = crypt(kCCDecrypt, options: kCCOptionPKCS7Padding, key: key128, iv: iv, input: sealed.output)
        XCTAssertEqual(opened.status, CCCryptorStatus(kCCSuccess))
        XCTAssertEqual(opened.output, plaintext)
    }

    func testNilIV_isAZeroIV() {
        let zero = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key128, iv: Data(count: 16), input: Data("abc".utf8))
        let none = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key128, iv: nil, input: Data("abc".utf8))
        XCTAssertEqual(zero.output, none.output)
        XCTAssertEqual(none.moved, 16)
    }
}

/// CCCrypt against the openssl command line (an independent implementation of the same modes).
final class CCCryptOpenSSLCLITests: XCTestCase {
    func testEncryptsWhatOpenSSLDecrypts_andDecryptsWhatOpenSSLEncrypts() throws {
        for (cipher, keyLength) in [("aes-128-cbc", 16), ("aes-192-cbc", 24), ("aes-256-cbc", 32)] {
            for length in [0, 1, 15, 16, 17, 100] {
                let key = Data((0..<keyLength).map { (i: Int) -> UInt8 in UInt8((i * 13 + length) % 256) })
                let iv = Data((0..<16).map { (i: Int) -> UInt8 in UInt8((i * 7 + 3) % 256) })
                let message = Data((0..<length).map { (i: Int) -> UInt8 in UInt8((i * 5 + 1) % 256) })
                let ours = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, input: message)
                XCTAssertEqual(ours.status, CCCryptorStatus(kCCSuccess))
                let decrypted = try runProgram("/usr/bin/openssl", ["enc", "-d", "-\(cipher)", "-K", key.hex, "-iv", iv.hex], input: ours.output)
                XCTAssertEqual(decrypted.status, 0, "\(cipher) \(length)")
                XCTAssertEqual(decrypted.output, message, "\(cipher) \(length)")
                let theirs = try runProgram("/usr/bin/openssl", ["enc", "-e", "-\(cipher)", "-K", key.hex, "-iv", iv.hex], input: message)
                XCTAssertEqual(theirs.output, ours.output, "\(cipher) \(length)")
                let opened = crypt(kCCDecrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, input: theirs.output)
                XCTAssertEqual(opened.output, message)
            }
        }
        let key = Data(count: 16)
        let ecb = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding | kCCOptionECBMode, key: key, iv: nil, input: Data("ecb mode".utf8))
        XCTAssertEqual(try runProgram("/usr/bin/openssl", ["enc", "-d", "-aes-128-ecb", "-K", key.hex], input: ecb.output).output, Data("ecb mode".utf8))
    }
}

/// Each CCCryptorStatus where Apple's CommonCrypto returns it.
final class CCCryptStatusTests: XCTestCase {
    let key = Data(hex: "000102030405060708090a0b0c0d0e0f")
    let iv = Data(count: 16)

    func testBufferTooSmall_reportsTheSizeNeeded() {
        let encrypt = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, input: Data(count: 17), outputSize: 31)
        XCTAssertEqual(encrypt.status, CCCryptorStatus(kCCBufferTooSmall))
        XCTAssertEqual(encrypt.moved, 32)
        let aligned = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, input: Data(count: 32), outputSize: 47)
        XCTAssertEqual(aligned.status, CCCryptorStatus(kCCBufferTooSmall))
        XCTAssertEqual(aligned.moved, 48)
        // Decrypting with padding needs room for the whole input, even though the result is shorter.
        let sealed = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, input: Data("short".utf8)).output
        let decrypt = crypt(kCCDecrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, input: sealed, outputSize: 15)
        XCTAssertEqual(decrypt.status, CCCryptorStatus(kCCBufferTooSmall))
        XCTAssertEqual(decrypt.moved, 16)
        let exact = crypt(kCCDecrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, input: sealed, outputSize: 16)
        XCTAssertEqual(exact.status, CCCryptorStatus(kCCSuccess))
        XCTAssertEqual(exact.output, Data("short".utf8))
        // Without padding: the input rounded down to whole blocks.
        let noPad = crypt(kCCEncrypt, options: 0, key: key, iv: iv, input: Data(count: 40), outputSize: 31)
        XCTAssertEqual(noPad.status, CCCryptorStatus(kCCBufferTooSmall))
        XCTAssertEqual(noPad.moved, 32)
    }

    func testKeySizeError_leavesDataOutMovedAlone() {
        for bad in [0, 15, 17, 20, 33] {
            let result = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: Data(count: bad), iv: iv, input: Data("x".utf8))
            XCTAssertEqual(result.status, CCCryptorStatus(kCCKeySizeError), "key \(bad)")
            XCTAssertEqual(result.moved, -1, "key \(bad)")
        }
    }

    func testParamErrorAndUnimplemented() {
        XCTAssertEqual(crypt(kCCEncrypt, options: 0, key: key, iv: iv, input: Data(count: 16), algorithm: 7).status, CCCryptorStatus(kCCParamError))
        XCTAssertEqual(crypt(2, options: 0, key: key, iv: iv, input: Data(count: 16)).status, CCCryptorStatus(kCCParamError))
        for other in [kCCAlgorithmDES, kCCAlgorithm3DES, kCCAlgorithmCAST, kCCAlgorithmRC4, kCCAlgorithmRC2, kCCAlgorithmBlowfish] {
            XCTAssertEqual(crypt(kCCEncrypt, options: 0, key: Data(count: 8), iv: iv, input: Data(count: 16), algorithm: other).status,
                           CCCryptorStatus(kCCUnimplemented), "algorithm \(other)")
        }
        var moved = 0
        var out = [UInt8](repeating: 0, count: 32)
        XCTAssertEqual(CCCrypt(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), 0, nil, 16, nil, [UInt8](repeating: 0, count: 16), 16, &out, 32, &moved),
                       CCCryptorStatus(kCCParamError))
    }

    func testAlignmentError_withoutPadding_keepsTheWholeBlocks() {
        let input = Data((0..<20).map { UInt8($0) })
        let encrypt = crypt(kCCEncrypt, options: 0, key: key, iv: iv, input: input)
        XCTAssertEqual(encrypt.status, CCCryptorStatus(kCCAlignmentError))
        XCTAssertEqual(encrypt.moved, 16)
        XCTAssertEqual(encrypt.output, crypt(kCCEncrypt, options: 0, key: key, iv: iv, input: input.prefix(16)).output)
        let decrypt = crypt(kCCDecrypt, options: 0, key: key, iv: iv, input: input)
        XCTAssertEqual(decrypt.status, CCCryptorStatus(kCCAlignmentError))
        XCTAssertEqual(decrypt.moved, 16)
        // With padding, a ciphertext that is not whole blocks (or empty) is refused too.
        XCTAssertEqual(crypt(kCCDecrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, input: input).status, CCCryptorStatus(kCCAlignmentError))
        XCTAssertEqual(crypt(kCCDecrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, input: Data()).status, CCCryptorStatus(kCCAlignmentError))
        // Encrypting nothing without padding is fine and gives nothing.
        let empty = crypt(kCCEncrypt, options: 0, key: key, iv: iv, input: Data())
        XCTAssertEqual(empty.status, CCCryptorStatus(kCCSuccess))
        XCTAssertEqual(empty.moved, 0)
    }

    /// iOS's CommonCrypto does not report bad padding (corecrypto's ccpad_pkcs7_decode reads the
    /// last byte only). The expected lengths come from openssl's raw (-nopad) decryption.
    func testBadPadding_isSuccess_withTheLastByteRule() throws {
        let sealed = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, input: Data("attack at dawn, bring snacks".utf8)).output
        for seed in 0..<40 {
            let wrongKey = Data((0..<16).map { UInt8(($0 * 29 + seed * 11 + 1) % 256) })
            let raw = try runProgram("/usr/bin/openssl", ["enc", "-d", "-aes-128-cbc", "-nopad", "-K", wrongKey.hex, "-iv", iv.hex], input: sealed).output
            XCTAssertEqual(raw.count, sealed.count)
            let last = Int(raw.last!)
            let expectedLength = (1...16).contains(last) ? raw.count - last : raw.count
            let opened = crypt(kCCDecrypt, options: kCCOptionPKCS7Padding, key: wrongKey, iv: iv, input: sealed)
            XCTAssertEqual(opened.status, CCCryptorStatus(kCCSuccess), "wrong key \(seed)")
            XCTAssertEqual(opened.moved, expectedLength, "wrong key \(seed)")
            XCTAssertEqual(opened.output, raw.prefix(expectedLength), "wrong key \(seed)")
        }
        // A padding whose last byte is valid but whose other bytes are not: only the last counts.
        let forged = Data((0..<13).map { UInt8($0) } + [0x05, 0x05, 0x03])
        let block = crypt(kCCEncrypt, options: 0, key: key, iv: iv, input: forged).output
        let opened = crypt(kCCDecrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, input: block)
        XCTAssertEqual(opened.status, CCCryptorStatus(kCCSuccess))
        XCTAssertEqual(opened.output, forged.prefix(13))
    }

    /// The exact call shape seed 001 uses compiles and works (Int constants converted, Int32 status
    /// compared with an Int constant).
    func testSeedStyleCall() {
        let keyLength = kCCKeySizeAES128
        var keyBytes = [CChar](repeating: 0, count: keyLength)
        _ = "password123".getCString(&keyBytes, maxLength: keyLength + 1, encoding: .utf8)
        let ivBytes = [UInt8](repeating: 7, count: kCCBlockSizeAES128)
        let data = Data("{\"example\":\"data\"}".utf8)
        let bufferSize = data.count + kCCBlockSizeAES128
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        var numBytesCrypted: size_t = 0
        let cryptStatus = CCCrypt(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES128), CCOptions(kCCOptionPKCS7Padding),
                                  keyBytes, keyLength, ivBytes, [UInt8](data), data.count, &buffer, bufferSize, &numBytesCrypted)
        XCTAssertTrue(cryptStatus == kCCSuccess)
        XCTAssertEqual(numBytesCrypted, 32)
    }
}
