import Foundation
import XCTest
import CommonCrypto
import TestSupport

/// A cryptor's whole run: create, feed `input` in `chunks`, final. Every update's output length is
/// checked against what CCCryptorGetOutputLength promised just before it.
private struct CryptorRun {
    var status: CCCryptorStatus = CCCryptorStatus(kCCSuccess)
    var output = Data()
}

private func runCryptor(_ op: Int, mode: Int, padding: Int = ccNoPadding, key: Data, iv: Data?, input: Data,
                        chunks: [Int]? = nil, file: StaticString = #filePath, line: UInt = #line) -> CryptorRun {
    var run = CryptorRun()
    var cryptor: CCCryptorRef?
    run.status = key.withUnsafeBytes { k in
        withOptionalBytes(iv) { v in
            CCCryptorCreateWithMode(CCOperation(op), CCMode(mode), CCAlgorithm(kCCAlgorithmAES), CCPadding(padding), v,
                                    k.baseAddress, key.count, nil, 0, 0, CCModeOptions(kCCModeOptionCTR_BE), &cryptor)
        }
    }
    guard run.status == CCCryptorStatus(kCCSuccess), let cryptor else { return run }
    defer { CCCryptorRelease(cryptor) }
    var offset = 0
    var sizes = chunks ?? [input.count]
    while offset < input.count {
        let size = min(sizes.isEmpty ? input.count - offset : sizes.removeFirst(), input.count - offset)
        let promised = CCCryptorGetOutputLength(cryptor, size, false)
        var out = [UInt8](repeating: 0, count: promised + 32)
        var moved = -1
        run.status = input.withUnsafeBytes { CCCryptorUpdate(cryptor, $0.baseAddress! + offset, size, &out, out.count, &moved) }
        guard run.status == CCCryptorStatus(kCCSuccess) else { return run }
        XCTAssertEqual(moved, promised, "update of \(size) at \(offset)", file: file, line: line)
        run.output += out.prefix(moved)
        offset += size
    }
    let finalPromised = CCCryptorGetOutputLength(cryptor, 0, true)
    var out = [UInt8](repeating: 0, count: 32)
    var moved = -1
    run.status = CCCryptorFinal(cryptor, &out, out.count, &moved)
    XCTAssertLessThanOrEqual(moved, finalPromised, file: file, line: line)
    run.output += out.prefix(max(moved, 0))
    return run
}

private func withOptionalBytes<R>(_ data: Data?, _ body: (UnsafeRawPointer?) -> R) -> R {
    guard let data else { return body(nil) }
    return data.withUnsafeBytes { body($0.baseAddress) }
}

private func randomData(_ count: Int) -> Data { Data((0..<count).map { _ in UInt8.random(in: 0...255) }) }

/// Splits `total` into random chunk sizes (some 0-free, some under a block, some over).
private func randomChunks(_ total: Int) -> [Int] {
    var chunks: [Int] = [], left = total
    while left > 0 { let size = min(left, Int.random(in: 1...40)); chunks.append(size); left -= size }
    return chunks
}

final class CCCryptorKnownAnswerTests: XCTestCase {
    // NIST SP 800-38A Appendix F: AES-128, the same four-block plaintext in every mode.
    let key = Data(hex: "2b7e151628aed2a6abf7158809cf4f3c")
    let iv = Data(hex: "000102030405060708090a0b0c0d0e0f")
    let plaintext = Data(hex: "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                            + "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")

    func testEveryMode_matchesSP800_38A_inOneUpdateAndInPieces() {
        let vectors: [(section: String, mode: Int, iv: Data, ciphertext: String)] = [
            ("F.1.1 ECB", kCCModeECB, iv, "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
                                        + "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4"),
            ("F.2.1 CBC", kCCModeCBC, iv, "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
                                        + "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7"),
            ("F.3.13 CFB128", kCCModeCFB, iv, "3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b"
                                            + "26751f67a3cbb140b1808cf187a4f4dfc04b05357c5d1c0eeac4c66f9ff7f2e6"),
            ("F.4.1 OFB", kCCModeOFB, iv, "3b3fd92eb72dad20333449f8e83cfb4a7789508d16918f03f53c52dac54ed825"
                                        + "9740051e9c5fecf64344f7a82260edcc304c6528f659c77866a510d9c1d6ae5e"),
            ("F.5.1 CTR", kCCModeCTR, Data(hex: "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"),
             "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
             + "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee"),
        ]
        for vector in vectors {
            for chunks in [nil, [1, 15, 16, 17, 3, 12], [64]] as [[Int]?] {
                let sealed = runCryptor(kCCEncrypt, mode: vector.mode, key: key, iv: vector.iv, input: plaintext, chunks: chunks)
                XCTAssertEqual(sealed.status, CCCryptorStatus(kCCSuccess), vector.section)
                XCTAssertEqual(sealed.output.hex, vector.ciphertext, "\(vector.section) chunks \(chunks ?? [])")
                let opened = runCryptor(kCCDecrypt, mode: vector.mode, key: key, iv: vector.iv, input: Data(hex: vector.ciphertext), chunks: chunks)
                XCTAssertEqual(opened.status, CCCryptorStatus(kCCSuccess), vector.section)
                XCTAssertEqual(opened.output, plaintext, "\(vector.section) chunks \(chunks ?? [])")
            }
        }
        // F.3.7 CFB8: 18 bytes, one byte at a time.
        let cfb8 = runCryptor(kCCEncrypt, mode: kCCModeCFB8, key: key, iv: iv, input: plaintext.prefix(18), chunks: Array(repeating: 1, count: 18))
        XCTAssertEqual(cfb8.output.hex, "3b79424c9c0dd436bace9e0ed4586a4f32b9")
    }

    /// CCCryptorCreate (the old options) is CBC or ECB, and CCCrypt is Create/Update/Final over it.
    func testCCCryptorCreate_isCBCorECB_andAgreesWithCCCrypt() {
        for options in [0, kCCOptionPKCS7Padding, kCCOptionECBMode, kCCOptionECBMode | kCCOptionPKCS7Padding] {
            let input = randomData(options & kCCOptionPKCS7Padding != 0 ? 37 : 48)
            var cryptor: CCCryptorRef?
            XCTAssertEqual(CCCryptorCreate(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(options),
                                           [UInt8](key), key.count, [UInt8](iv), &cryptor), CCCryptorStatus(kCCSuccess))
            var out = [UInt8](repeating: 0, count: 64)
            var updated = 0, finished = 0
            XCTAssertEqual(CCCryptorUpdate(cryptor, [UInt8](input), input.count, &out, out.count, &updated), CCCryptorStatus(kCCSuccess))
            let finalStatus = out.withUnsafeMutableBytes { CCCryptorFinal(cryptor, $0.baseAddress! + updated, $0.count - updated, &finished) }
            XCTAssertEqual(finalStatus, CCCryptorStatus(kCCSuccess))
            XCTAssertEqual(CCCryptorRelease(cryptor), CCCryptorStatus(kCCSuccess))
            var oneShot = [UInt8](repeating: 0, count: 64)
            var moved = 0
            XCTAssertEqual(CCCrypt(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(options), [UInt8](key), key.count,
                                   [UInt8](iv), [UInt8](input), input.count, &oneShot, oneShot.count, &moved), CCCryptorStatus(kCCSuccess))
            XCTAssertEqual(Array(out.prefix(updated + finished)), Array(oneShot.prefix(moved)), "options \(options)")
            let mode = options & kCCOptionECBMode != 0 ? kCCModeECB : kCCModeCBC
            let viaMode = runCryptor(kCCEncrypt, mode: mode, padding: options & kCCOptionPKCS7Padding != 0 ? ccPKCS7Padding : ccNoPadding,
                                     key: key, iv: iv, input: input)
            XCTAssertEqual(viaMode.output, Data(oneShot.prefix(moved)), "options \(options)")
        }
    }
}

final class CCCryptorStreamingTests: XCTestCase {
    /// CBC with PKCS#7 in random pieces: the output equals openssl's, each update writes what
    /// CCCryptorGetOutputLength said, and decrypting in other random pieces gives the input back.
    func testPaddedCBC_inRandomPieces_equalsOpenSSL() throws {
        for keySize in [16, 24, 32] {
            for length in [0, 1, 15, 16, 17, 31, 32, 33, 100, 1000] {
                let key = randomData(keySize), iv = randomData(16), input = randomData(length)
                let sealed = runCryptor(kCCEncrypt, mode: kCCModeCBC, padding: ccPKCS7Padding, key: key, iv: iv, input: input, chunks: randomChunks(length))
                XCTAssertEqual(sealed.status, CCCryptorStatus(kCCSuccess))
                let expected = try openssl(["enc", "-aes-\(keySize * 8)-cbc", "-K", key.hex, "-iv", iv.hex], input: input)
                XCTAssertEqual(sealed.output, expected, "AES-\(keySize * 8)-CBC, \(length) bytes")
                let opened = runCryptor(kCCDecrypt, mode: kCCModeCBC, padding: ccPKCS7Padding, key: key, iv: iv, input: sealed.output,
                                        chunks: randomChunks(sealed.output.count))
                XCTAssertEqual(opened.status, CCCryptorStatus(kCCSuccess))
                XCTAssertEqual(opened.output, input, "AES-\(keySize * 8)-CBC, \(length) bytes")
            }
        }
    }

    /// The stream modes take any length per update; what openssl enc writes, the cryptor reads,
    /// and the reverse.
    func testStreamModes_interopWithOpenSSLBothWays() throws {
        let modes: [(mode: Int, name: String)] = [(kCCModeCTR, "ctr"), (kCCModeCFB, "cfb"), (kCCModeCFB8, "cfb8"), (kCCModeOFB, "ofb")]
        for (mode, name) in modes {
            for keySize in [16, 24, 32] {
                let key = randomData(keySize), iv = randomData(16), input = randomData(Int.random(in: 1...300))
                let arguments = ["enc", "-aes-\(keySize * 8)-\(name)", "-K", key.hex, "-iv", iv.hex]
                let ours = runCryptor(kCCEncrypt, mode: mode, key: key, iv: iv, input: input, chunks: randomChunks(input.count))
                XCTAssertEqual(ours.output.count, input.count)
                XCTAssertEqual(try openssl(arguments + ["-d"], input: ours.output), input, "openssl reads AES-\(keySize * 8)-\(name)")
                let theirs = try openssl(arguments, input: input)
                XCTAssertEqual(runCryptor(kCCDecrypt, mode: mode, key: key, iv: iv, input: theirs, chunks: randomChunks(theirs.count)).output,
                               input, "cryptor reads openssl's AES-\(keySize * 8)-\(name)")
            }
        }
    }

    /// CTR with pyca/cryptography (PythonRef's library), both ways, including a counter that wraps
    /// past 2^128 - 1 (big-endian, the whole block, as corecrypto and SP 800-38A's standard
    /// incrementing function do).
    func testCTR_interopWithPyca_includingCounterWrap() throws {
        let script = """
        import sys
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        for line in sys.stdin:
            key, iv, data = (bytes.fromhex(x) for x in line.split())
            e = Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor()
            print((e.update(data) + e.finalize()).hex())
        """
        var lines: [String] = [], ours: [Data] = []
        for ivHex in ["ffffffffffffffffffffffffffffffff", "fffffffffffffffffffffffffffffffe", "00000000000000000000000000000000",
                      randomData(16).hex] {
            let key = randomData(32), input = randomData(77)
            ours.append(runCryptor(kCCEncrypt, mode: kCCModeCTR, key: key, iv: Data(hex: ivHex), input: input, chunks: randomChunks(77)).output)
            lines.append("\(key.hex) \(ivHex) \(input.hex)")
            // pyca's ciphertext read back by the cryptor is checked through the same line below.
        }
        let pyca = try python(script, input: lines.joined(separator: "\n") + "\n").split(separator: "\n").map(String.init)
        XCTAssertEqual(pyca, ours.map(\.hex))
        for (index, line) in lines.enumerated() {
            let parts = line.split(separator: " ").map(String.init)
            let opened = runCryptor(kCCDecrypt, mode: kCCModeCTR, key: Data(hex: parts[0]), iv: Data(hex: parts[1]), input: Data(hex: pyca[index]))
            XCTAssertEqual(opened.output.hex, parts[2])
        }
    }
}

final class CCCryptorStatusTests: XCTestCase {
    let key = [UInt8](repeating: 0x42, count: 16)
    let iv = [UInt8](repeating: 0x24, count: 16)

    private func make(_ op: Int, _ mode: Int, padding: Int = ccNoPadding) -> CCCryptorRef {
        var cryptor: CCCryptorRef?
        let status = CCCryptorCreateWithMode(CCOperation(op), CCMode(mode), CCAlgorithm(kCCAlgorithmAES), CCPadding(padding), iv, key,
                                             key.count, nil, 0, 0, 0, &cryptor)
        precondition(status == CCCryptorStatus(kCCSuccess) && cryptor != nil, "test setup: \(status)")
        return cryptor!
    }

    func testCreate_statusesAsCommonCryptorC() {
        var cryptor: CCCryptorRef? = OpaquePointer(bitPattern: 0x10)
        func create(op: Int = kCCEncrypt, mode: Int = kCCModeCBC, alg: Int = kCCAlgorithmAES, keyLength: Int = 16) -> CCCryptorStatus {
            cryptor = OpaquePointer(bitPattern: 0x10)
            return CCCryptorCreateWithMode(CCOperation(op), CCMode(mode), CCAlgorithm(alg), CCPadding(ccPKCS7Padding), nil,
                                           [UInt8](repeating: 1, count: 64), keyLength, nil, 0, 0, 0, &cryptor)
        }
        XCTAssertEqual(create(keyLength: 20), CCCryptorStatus(kCCKeySizeError))
        XCTAssertNil(cryptor, "a failed create leaves no cryptor")
        XCTAssertEqual(create(keyLength: 0), CCCryptorStatus(kCCKeySizeError))
        XCTAssertEqual(create(alg: 7), CCCryptorStatus(kCCParamError))
        XCTAssertEqual(create(op: 2), CCCryptorStatus(kCCParamError))
        XCTAssertEqual(create(mode: 5), CCCryptorStatus(kCCParamError), "kCCModeF8 is gone from CommonCryptor")
        XCTAssertEqual(create(mode: 0), CCCryptorStatus(kCCParamError))
        XCTAssertEqual(create(mode: kCCModeRC4), CCCryptorStatus(kCCParamError), "RC4 is a mode of the RC4 algorithm only")
        for spi in [8, 11, 12] { XCTAssertEqual(create(mode: spi), CCCryptorStatus(kCCUnimplemented), "XTS/GCM/CCM \(spi)") }
        for other in [kCCAlgorithmDES, kCCAlgorithm3DES, kCCAlgorithmCAST, kCCAlgorithmRC4, kCCAlgorithmRC2, kCCAlgorithmBlowfish] {
            XCTAssertEqual(create(alg: other, keyLength: 8), CCCryptorStatus(kCCUnimplemented), "algorithm \(other)")
        }
        XCTAssertEqual(CCCryptorCreate(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), 0, nil, 16, nil, &cryptor),
                       CCCryptorStatus(kCCParamError))
        XCTAssertEqual(CCCryptorCreate(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), 0, key, 16, nil, nil),
                       CCCryptorStatus(kCCParamError))
    }

    func testNilCryptor_asAppleAnswersIt() {
        var out = [UInt8](repeating: 0, count: 16)
        var moved = 7
        XCTAssertEqual(CCCryptorUpdate(nil, key, 16, &out, 16, &moved), CCCryptorStatus(kCCParamError))
        XCTAssertEqual(CCCryptorFinal(nil, &out, 16, &moved), CCCryptorStatus(kCCSuccess))
        XCTAssertEqual(CCCryptorRelease(nil), CCCryptorStatus(kCCSuccess))
        XCTAssertEqual(CCCryptorReset(nil, iv), CCCryptorStatus(kCCParamError))
        XCTAssertEqual(CCCryptorGetOutputLength(nil, 16, true), kCCParamError)
    }

    /// corecryptoSymmetricBridge.c's padlen, for each padding and direction.
    func testGetOutputLength_followsApplesPadlen() {
        let table: [(op: Int, padding: Int, input: Int, final: Bool, expected: Int)] = [
            (kCCEncrypt, ccPKCS7Padding, 0, true, 16), (kCCEncrypt, ccPKCS7Padding, 15, true, 16), (kCCEncrypt, ccPKCS7Padding, 16, true, 32),
            (kCCEncrypt, ccPKCS7Padding, 17, false, 16), (kCCEncrypt, ccPKCS7Padding, 15, false, 0),
            (kCCDecrypt, ccPKCS7Padding, 32, true, 32), (kCCDecrypt, ccPKCS7Padding, 16, false, 0), (kCCDecrypt, ccPKCS7Padding, 32, false, 16),
            (kCCDecrypt, ccPKCS7Padding, 33, false, 32), (kCCDecrypt, ccPKCS7Padding, 0, false, 0),
            (kCCEncrypt, ccNoPadding, 31, true, 16), (kCCDecrypt, ccNoPadding, 48, false, 48), (kCCEncrypt, ccNoPadding, 15, false, 0),
        ]
        for row in table {
            let cryptor = make(row.op, kCCModeCBC, padding: row.padding)
            defer { CCCryptorRelease(cryptor) }
            XCTAssertEqual(CCCryptorGetOutputLength(cryptor, row.input, row.final), row.expected, "\(row)")
        }
        let ctr = make(kCCEncrypt, kCCModeCTR, padding: ccPKCS7Padding)
        defer { CCCryptorRelease(ctr) }
        XCTAssertEqual(CCCryptorGetOutputLength(ctr, 13, true), 13, "stream modes ignore the padding")
        // Held bytes count: 10 bytes in, then 10 more make one block.
        let cbc = make(kCCEncrypt, kCCModeCBC)
        defer { CCCryptorRelease(cbc) }
        var out = [UInt8](repeating: 0, count: 32)
        var moved = -1
        XCTAssertEqual(CCCryptorUpdate(cbc, key, 10, &out, out.count, &moved), CCCryptorStatus(kCCSuccess))
        XCTAssertEqual(moved, 0)
        XCTAssertEqual(CCCryptorGetOutputLength(cbc, 10, false), 16)
    }

    func testBufferTooSmall_reportsTheSizeNeeded_andAlignmentErrorAtFinal() {
        let cryptor = make(kCCEncrypt, kCCModeCBC, padding: ccPKCS7Padding)
        defer { CCCryptorRelease(cryptor) }
        var out = [UInt8](repeating: 0, count: 64)
        var moved = -1
        let input = [UInt8](repeating: 9, count: 40)
        XCTAssertEqual(CCCryptorUpdate(cryptor, input, 40, &out, 31, &moved), CCCryptorStatus(kCCBufferTooSmall))
        XCTAssertEqual(moved, 32)
        XCTAssertEqual(CCCryptorUpdate(cryptor, input, 40, &out, 32, &moved), CCCryptorStatus(kCCSuccess))
        XCTAssertEqual(moved, 32)
        XCTAssertEqual(CCCryptorFinal(cryptor, &out, 15, &moved), CCCryptorStatus(kCCBufferTooSmall))
        XCTAssertEqual(moved, 0)

        let noPadding = make(kCCDecrypt, kCCModeECB)
        defer { CCCryptorRelease(noPadding) }
        XCTAssertEqual(CCCryptorUpdate(noPadding, input, 20, &out, 64, &moved), CCCryptorStatus(kCCSuccess))
        XCTAssertEqual(moved, 16)
        XCTAssertEqual(CCCryptorFinal(noPadding, &out, 64, &moved), CCCryptorStatus(kCCAlignmentError))
        XCTAssertEqual(moved, 0)

        let padded = make(kCCDecrypt, kCCModeCBC, padding: ccPKCS7Padding)
        defer { CCCryptorRelease(padded) }
        XCTAssertEqual(CCCryptorFinal(padded, &out, 64, &moved), CCCryptorStatus(kCCAlignmentError), "nothing to unpad")
        XCTAssertEqual(CCCryptorUpdate(padded, nil, 16, &out, 64, &moved), CCCryptorStatus(kCCParamError))
        XCTAssertEqual(CCCryptorUpdate(padded, input, 0, nil, 0, &moved), CCCryptorStatus(kCCSuccess), "an empty update does nothing")
    }

    /// Reset restarts CBC and CTR from a new IV (dropping held input); other modes are
    /// kCCUnimplemented, as since iOS 11.
    func testReset_restartsCBCAndCTR_only() {
        let message = [UInt8](repeating: 0x5a, count: 48)
        for mode in [kCCModeCBC, kCCModeCTR] {
            let cryptor = make(kCCEncrypt, mode)
            defer { CCCryptorRelease(cryptor) }
            var first = [UInt8](repeating: 0, count: 48), second = [UInt8](repeating: 0, count: 48), moved = 0
            XCTAssertEqual(CCCryptorUpdate(cryptor, message, 48, &first, 48, &moved), CCCryptorStatus(kCCSuccess))
            XCTAssertEqual(CCCryptorUpdate(cryptor, message, 7, &second, 48, &moved), CCCryptorStatus(kCCSuccess))  // partial, dropped by reset
            XCTAssertEqual(CCCryptorReset(cryptor, iv), CCCryptorStatus(kCCSuccess))
            XCTAssertEqual(CCCryptorUpdate(cryptor, message, 48, &second, 48, &moved), CCCryptorStatus(kCCSuccess))
            XCTAssertEqual(second, first, "mode \(mode): after a reset to the same IV, the same output")
            XCTAssertEqual(CCCryptorReset(cryptor, nil), CCCryptorStatus(kCCSuccess))
            XCTAssertEqual(CCCryptorUpdate(cryptor, message, 48, &second, 48, &moved), CCCryptorStatus(kCCSuccess))
            XCTAssertEqual(Data(second), runCryptor(kCCEncrypt, mode: mode, key: Data(key), iv: nil, input: Data(message)).output,
                           "mode \(mode): a nil IV is zeros")
        }
        for mode in [kCCModeECB, kCCModeCFB, kCCModeCFB8, kCCModeOFB] {
            let cryptor = make(kCCEncrypt, mode)
            defer { CCCryptorRelease(cryptor) }
            XCTAssertEqual(CCCryptorReset(cryptor, iv), CCCryptorStatus(kCCUnimplemented), "mode \(mode)")
        }
    }

    /// The shape tutorials write for AES-CTR (a `CCCryptorRef?` filled through `&`, the Int
    /// constants converted to CommonCrypto's types), compiled and run unchanged.
    func testTutorialStyleCTR() {
        let keyData = Data(repeating: 0x11, count: kCCKeySizeAES256)
        let ivData = Data(repeating: 0x22, count: kCCBlockSizeAES128)
        let data = Data("counter mode, as a tutorial writes it".utf8)
        var cryptorRef: CCCryptorRef?
        var status = keyData.withUnsafeBytes { keyBytes in
            ivData.withUnsafeBytes { ivBytes in
                CCCryptorCreateWithMode(CCOperation(kCCEncrypt), CCMode(kCCModeCTR), CCAlgorithm(kCCAlgorithmAES),
                                        CCPadding(ccNoPadding), ivBytes.baseAddress, keyBytes.baseAddress, kCCKeySizeAES256,
                                        nil, 0, 0, CCModeOptions(kCCModeOptionCTR_BE), &cryptorRef)
            }
        }
        XCTAssertTrue(status == kCCSuccess)
        var output = Data(count: CCCryptorGetOutputLength(cryptorRef, data.count, true))
        var moved = 0
        status = output.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { CCCryptorUpdate(cryptorRef, $0.baseAddress, data.count, out.baseAddress, out.count, &moved) }
        }
        XCTAssertTrue(status == kCCSuccess)
        XCTAssertEqual(moved, data.count)
        XCTAssertTrue(CCCryptorFinal(cryptorRef, nil, 0, &moved) == kCCSuccess)
        CCCryptorRelease(cryptorRef)
        XCTAssertEqual(output, try openssl(["enc", "-aes-256-ctr", "-K", keyData.hex, "-iv", ivData.hex], input: data))
    }
}
