import Foundation
import XCTest
import CommonCrypto
import TestSupport

/// CommonDigest, CommonHMAC, CommonKeyDerivation and CommonRandom, called as app code calls them:
/// published known answers, then the same values from pyca/cryptography and the openssl command.
final class CommonDigestHMACKDFTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// `CC_<H>(data, CC_LONG(count), &out)` as app extensions write it.
    private func oneShot(_ function: (UnsafeRawPointer?, CC_LONG, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?,
                         _ length: Int32, _ data: Data) -> String {
        var digest = [UInt8](repeating: 0, count: Int(length))
        data.withUnsafeBytes { _ = function($0.baseAddress, CC_LONG(data.count), &digest) }
        return hex(digest)
    }

    /// "abc" from RFC 1321 (MD5) and FIPS 180-2 appendices (SHA-1, SHA-224/256/384/512), and the empty string.
    func testDigests_knownAnswers() {
        let abc = Data("abc".utf8)
        XCTAssertEqual(oneShot(CC_MD5, CC_MD5_DIGEST_LENGTH, abc), "900150983cd24fb0d6963f7d28e17f72")
        XCTAssertEqual(oneShot(CC_SHA1, CC_SHA1_DIGEST_LENGTH, abc), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(oneShot(CC_SHA224, CC_SHA224_DIGEST_LENGTH, abc), "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7")
        XCTAssertEqual(oneShot(CC_SHA256, CC_SHA256_DIGEST_LENGTH, abc), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(oneShot(CC_SHA384, CC_SHA384_DIGEST_LENGTH, abc),
                       "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
        XCTAssertEqual(oneShot(CC_SHA512, CC_SHA512_DIGEST_LENGTH, abc),
                       "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        XCTAssertEqual(oneShot(CC_SHA256, CC_SHA256_DIGEST_LENGTH, Data()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(oneShot(CC_MD5, CC_MD5_DIGEST_LENGTH, Data()), "d41d8cd98f00b204e9800998ecf8427e")
        // The one-shot returns its md argument, as the C function does.
        var out = [UInt8](repeating: 0, count: 32)
        out.withUnsafeMutableBufferPointer { buffer in
            XCTAssertEqual(CC_SHA256("x", 1, buffer.baseAddress), buffer.baseAddress)
        }
    }

    /// Init/Update/Final in pieces equals the one-shot; a context copied mid-stream goes on on its
    /// own (C contexts are values); a finished context can be started again.
    func testContexts_piecesCopiesAndRestart() {
        let message = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        var context = CC_SHA256_CTX()
        XCTAssertEqual(CC_SHA256_Init(&context), 1)
        message.prefix(333).withUnsafeBytes { _ = CC_SHA256_Update(&context, $0.baseAddress, CC_LONG($0.count)) }
        var branch = context
        message.dropFirst(333).withUnsafeBytes { _ = CC_SHA256_Update(&context, $0.baseAddress, CC_LONG($0.count)) }
        var digest = [UInt8](repeating: 0, count: Int(CC_SHA256_DIGEST_LENGTH))
        XCTAssertEqual(CC_SHA256_Final(&digest, &context), 1)
        XCTAssertEqual(hex(digest), oneShot(CC_SHA256, CC_SHA256_DIGEST_LENGTH, message))
        var branchDigest = [UInt8](repeating: 0, count: 32)
        CC_SHA256_Final(&branchDigest, &branch)
        XCTAssertEqual(hex(branchDigest), oneShot(CC_SHA256, CC_SHA256_DIGEST_LENGTH, message.prefix(333)))

        var c384 = CC_SHA512_CTX(), c512 = CC_SHA512_CTX()
        for round in 0..<2 {  // the second round restarts the finished contexts
            CC_SHA384_Init(&c384); CC_SHA512_Init(&c512)
            message.withUnsafeBytes { bytes in
                for start in stride(from: 0, to: bytes.count, by: 100) {
                    let count = CC_LONG(min(100, bytes.count - start))
                    CC_SHA384_Update(&c384, bytes.baseAddress! + start, count)
                    CC_SHA512_Update(&c512, bytes.baseAddress! + start, count)
                }
            }
            var out384 = [UInt8](repeating: 0, count: Int(CC_SHA384_DIGEST_LENGTH)), out512 = [UInt8](repeating: 0, count: Int(CC_SHA512_DIGEST_LENGTH))
            CC_SHA384_Final(&out384, &c384); CC_SHA512_Final(&out512, &c512)
            XCTAssertEqual(hex(out384), oneShot(CC_SHA384, CC_SHA384_DIGEST_LENGTH, message), "round \(round)")
            XCTAssertEqual(hex(out512), oneShot(CC_SHA512, CC_SHA512_DIGEST_LENGTH, message), "round \(round)")
        }
        var md5 = CC_MD5_CTX(), sha1 = CC_SHA1_CTX(), sha224 = CC_SHA256_CTX()
        CC_MD5_Init(&md5); CC_SHA1_Init(&sha1); CC_SHA224_Init(&sha224)
        CC_MD5_Update(&md5, "abc", 3); CC_SHA1_Update(&sha1, "abc", 3); CC_SHA224_Update(&sha224, "abc", 3)
        var out16 = [UInt8](repeating: 0, count: 16), out20 = [UInt8](repeating: 0, count: 20), out28 = [UInt8](repeating: 0, count: 28)
        CC_MD5_Final(&out16, &md5); CC_SHA1_Final(&out20, &sha1); CC_SHA224_Final(&out28, &sha224)
        XCTAssertEqual(hex(out16), "900150983cd24fb0d6963f7d28e17f72")
        XCTAssertEqual(hex(out20), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(hex(out28), "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7")
    }

    private func hmac(_ algorithm: Int, key: [UInt8], data: [UInt8], length: Int) -> String {
        var mac = [UInt8](repeating: 0, count: length)
        CCHmac(CCHmacAlgorithm(algorithm), key, key.count, data, data.count, &mac)
        return hex(mac)
    }

    /// RFC 2202 (MD5, SHA-1) and RFC 4231 (SHA-2) test case 2 ("Jefe"), and RFC 4231 test case 6
    /// (a 131-byte key, hashed first).
    func testHMAC_knownAnswers() {
        let jefe = Array("Jefe".utf8), what = Array("what do ya want for nothing?".utf8)
        XCTAssertEqual(hmac(kCCHmacAlgMD5, key: jefe, data: what, length: 16), "750c783e6ab0b503eaa86e310a5db738")
        XCTAssertEqual(hmac(kCCHmacAlgSHA1, key: jefe, data: what, length: 20), "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        XCTAssertEqual(hmac(kCCHmacAlgSHA224, key: jefe, data: what, length: 28), "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44")
        XCTAssertEqual(hmac(kCCHmacAlgSHA256, key: jefe, data: what, length: 32), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        XCTAssertEqual(hmac(kCCHmacAlgSHA384, key: jefe, data: what, length: 48),
                       "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649")
        XCTAssertEqual(hmac(kCCHmacAlgSHA512, key: jefe, data: what, length: 64),
                       "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737")
        let longKey = [UInt8](repeating: 0xaa, count: 131)
        let test6 = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        XCTAssertEqual(hmac(kCCHmacAlgSHA256, key: longKey, data: test6, length: 32), "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        // As app code writes it: Strings passed straight through as key and data.
        var digest = [UInt8](repeating: 0, count: Int(CC_SHA256_DIGEST_LENGTH))
        CCHmac(CCHmacAlgorithm(kCCHmacAlgSHA256), "Jefe", 4, "what do ya want for nothing?", 28, &digest)
        XCTAssertEqual(hex(digest), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Init/Update/Final in pieces, and a context copied mid-stream.
        var context = CCHmacContext()
        CCHmacInit(&context, CCHmacAlgorithm(kCCHmacAlgSHA256), jefe, jefe.count)
        CCHmacUpdate(&context, Array(what.prefix(10)), 10)
        var branch = context
        CCHmacUpdate(&context, Array(what.dropFirst(10)), what.count - 10)
        var mac = [UInt8](repeating: 0, count: 32)
        CCHmacFinal(&context, &mac)
        XCTAssertEqual(hex(mac), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        CCHmacFinal(&branch, &mac)
        XCTAssertEqual(hex(mac), hmac(kCCHmacAlgSHA256, key: jefe, data: Array(what.prefix(10)), length: 32))
    }

    private func pbkdf2(_ password: String, _ salt: [UInt8], prf: Int, rounds: UInt32, length: Int) -> (Int32, String) {
        var key = [UInt8](repeating: 0, count: length)
        let status = CCKeyDerivationPBKDF(CCPBKDFAlgorithm(kCCPBKDF2), password, password.utf8.count, salt, salt.count,
                                          CCPseudoRandomAlgorithm(prf), rounds, &key, key.count)
        return (status, hex(key))
    }

    /// RFC 6070 (PBKDF2-HMAC-SHA1) and RFC 7914 §11 (PBKDF2-HMAC-SHA256); the parameters Apple refuses.
    func testPBKDF2_knownAnswers_andRefusals() {
        let salt = Array("salt".utf8)
        XCTAssertEqual(pbkdf2("password", salt, prf: kCCPRFHmacAlgSHA1, rounds: 1, length: 20).1, "0c60c80f961f0e71f3a9b524af6012062fe037a6")
        XCTAssertEqual(pbkdf2("password", salt, prf: kCCPRFHmacAlgSHA1, rounds: 4096, length: 20).1, "4b007901b765489abead49d926f721d065a429c1")
        XCTAssertEqual(pbkdf2("passwordPASSWORDpassword", Array("saltSALTsaltSALTsaltSALTsaltSALTsalt".utf8), prf: kCCPRFHmacAlgSHA1,
                              rounds: 4096, length: 25).1, "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038")
        let sha256 = pbkdf2("passwd", salt, prf: kCCPRFHmacAlgSHA256, rounds: 1, length: 64)
        XCTAssertEqual(sha256.0, Int32(kCCSuccess))
        XCTAssertEqual(sha256.1, "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
        XCTAssertEqual(pbkdf2("password", salt, prf: kCCPRFHmacAlgSHA1, rounds: 0, length: 20).0, Int32(kCCParamError), "0 rounds")
        XCTAssertEqual(pbkdf2("password", salt, prf: 9, rounds: 1, length: 20).0, Int32(kCCParamError), "unknown PRF")
        XCTAssertEqual(pbkdf2("password", salt, prf: kCCPRFHmacAlgSHA1, rounds: 1, length: 0).0, Int32(kCCParamError), "no output")
        var key = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(CCKeyDerivationPBKDF(1, "pw", 2, salt, salt.count, CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA1), 1, &key, 16),
                       Int32(kCCParamError), "an algorithm other than kCCPBKDF2")
        XCTAssertEqual(key, [UInt8](repeating: 0, count: 16), "a refused call writes nothing")
        XCTAssertGreaterThan(CCCalibratePBKDF(CCPBKDFAlgorithm(kCCPBKDF2), 8, 8, CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256), 32, 10), 0)
    }

    func testRandomBytes() {
        var a = [UInt8](repeating: 0, count: 32), b = [UInt8](repeating: 0, count: 32)
        XCTAssertEqual(CCRandomGenerateBytes(&a, a.count), CCRNGStatus(kCCSuccess))
        XCTAssertEqual(CCRandomGenerateBytes(&b, b.count), CCRNGStatus(kCCSuccess))
        XCTAssertNotEqual(a, b)
        XCTAssertNotEqual(a, [UInt8](repeating: 0, count: 32))
        XCTAssertEqual(CCRandomGenerateBytes(nil, 16), CCRNGStatus(kCCParamError))
        XCTAssertEqual(CCRandomGenerateBytes(nil, 0), CCRNGStatus(kCCSuccess))
    }

    /// Random inputs: pyca/cryptography (PythonRef's library) and the openssl command compute the
    /// same digests, HMACs and PBKDF2 keys as these functions.
    func testInterop_withPycaAndOpenSSL() throws {
        var generator = SystemRandomNumberGenerator()
        let message = Data((0..<(1000 + Int.random(in: 0..<100, using: &generator))).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let key = Data((0..<37).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let salt = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let password = "pässwörd-\(UInt32.random(in: 0...UInt32.max, using: &generator))"
        let rounds: UInt32 = 1000 + UInt32.random(in: 0..<500, using: &generator)
        let functions: [(name: String, cc: (UnsafeRawPointer?, CC_LONG, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?,
                         length: Int32, hmac: Int, prf: Int?)] = [
            ("MD5", CC_MD5, CC_MD5_DIGEST_LENGTH, kCCHmacAlgMD5, nil),
            ("SHA1", CC_SHA1, CC_SHA1_DIGEST_LENGTH, kCCHmacAlgSHA1, kCCPRFHmacAlgSHA1),
            ("SHA224", CC_SHA224, CC_SHA224_DIGEST_LENGTH, kCCHmacAlgSHA224, kCCPRFHmacAlgSHA224),
            ("SHA256", CC_SHA256, CC_SHA256_DIGEST_LENGTH, kCCHmacAlgSHA256, kCCPRFHmacAlgSHA256),
            ("SHA384", CC_SHA384, CC_SHA384_DIGEST_LENGTH, kCCHmacAlgSHA384, kCCPRFHmacAlgSHA384),
            ("SHA512", CC_SHA512, CC_SHA512_DIGEST_LENGTH, kCCHmacAlgSHA512, kCCPRFHmacAlgSHA512),
        ]
        let script = """
            import sys, binascii
            from cryptography.hazmat.primitives import hashes, hmac
            from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC
            m, k, s, pw, rounds = sys.stdin.read().split()
            m, k, s, pw = (binascii.unhexlify(x) for x in (m, k, s, pw))
            for name in ["MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512"]:
                algorithm = getattr(hashes, name)
                h = hashes.Hash(algorithm()); h.update(m)
                mac = hmac.HMAC(k, algorithm()); mac.update(m)
                kdf = "-" if name == "MD5" else PBKDF2HMAC(algorithm(), 32, s, int(rounds)).derive(pw).hex()
                print(name, h.finalize().hex(), mac.finalize().hex(), kdf)
            """
        let input = [message, key, salt, Data(password.utf8)].map { $0.map { String(format: "%02x", $0) }.joined() }.joined(separator: " ")
            + " \(rounds)"
        let pyca = Dictionary(uniqueKeysWithValues: try python(script, input: input).split(separator: "\n").map { line -> (String, [String]) in
            let fields = line.split(separator: " ").map(String.init)
            return (fields[0], Array(fields.dropFirst()))
        })
        let scratch = try Scratch()
        try scratch.write("message", message)
        for function in functions {
            let digest = oneShot(function.cc, function.length, message)
            let mac = hmac(function.hmac, key: Array(key), data: Array(message), length: Int(function.length))
            XCTAssertEqual(pyca[function.name]?[0], digest, "\(function.name) digest, pyca")
            XCTAssertEqual(pyca[function.name]?[1], mac, "\(function.name) HMAC, pyca")
            let dgst = String(decoding: try scratch.openssl(["dgst", "-\(function.name.lowercased())", "-r", "message"]), as: UTF8.self)
            XCTAssertEqual(dgst.split(separator: " ").first.map(String.init), digest, "\(function.name) digest, openssl dgst")
            let macOut = String(decoding: try scratch.openssl(["dgst", "-\(function.name.lowercased())", "-mac", "HMAC", "-macopt",
                                                               "hexkey:\(hex(Array(key)))", "-r", "message"]), as: UTF8.self)
            XCTAssertEqual(macOut.split(separator: " ").first.map(String.init), mac, "\(function.name) HMAC, openssl dgst -mac HMAC")
            guard let prf = function.prf else { continue }
            let derived = pbkdf2(password, Array(salt), prf: prf, rounds: rounds, length: 32)
            XCTAssertEqual(derived.0, Int32(kCCSuccess))
            XCTAssertEqual(pyca[function.name]?[2], derived.1, "\(function.name) PBKDF2, pyca")
            let kdf = String(decoding: try scratch.openssl(["kdf", "-keylen", "32", "-kdfopt", "digest:\(function.name)",
                                                            "-kdfopt", "hexpass:\(hex(Array(password.utf8)))", "-kdfopt", "hexsalt:\(hex(Array(salt)))",
                                                            "-kdfopt", "iter:\(rounds)", "PBKDF2"]), as: UTF8.self)
            XCTAssertEqual(kdf.replacingOccurrences(of: ":", with: "").trimmingCharacters(in: .whitespacesAndNewlines).lowercased(),
                           derived.1, "\(function.name) PBKDF2, openssl kdf")
        }
    }
}
