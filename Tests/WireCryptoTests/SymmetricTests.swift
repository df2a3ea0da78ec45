import Foundation
import XCTest
@testable import WireCrypto
import StrictFormats

final class AESCBCTests: XCTestCase {
    // NIST SP 800-38A, Appendix F.2.1 (CBC-AES128.Encrypt): four blocks, then our PKCS#7 block.
    func testEncrypt_matchesNISTSP800_38A() throws {
        let key = Data(hexString: "2b7e151628aed2a6abf7158809cf4f3c")!
        let iv = Data(hexString: "000102030405060708090a0b0c0d0e0f")!
        let plaintext = Data(hexString: "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                                      + "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")!
        let ciphertext = try AESCBC.encrypt(plaintext, key: key, iv: iv)
        XCTAssertEqual(ciphertext.count, 80)
        XCTAssertEqual(ciphertext.prefix(64).hexString,
                       "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
                     + "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7")
        XCTAssertEqual(try AESCBC.decrypt(ciphertext, key: key, iv: iv), plaintext)
    }

    func testRoundTrip_everyKeySizeAndAwkwardLengths() throws {
        for keySize in [16, 24, 32] {
            let key = secureRandomBytes(keySize)
            for length in [0, 1, 15, 16, 17, 31, 1027] {
                let plaintext = secureRandomBytes(length)
                let iv = AESCBC.randomIV()
                let ciphertext = try AESCBC.encrypt(plaintext, key: key, iv: iv)
                XCTAssertEqual(ciphertext.count, (length / 16 + 1) * 16)
                XCTAssertEqual(try AESCBC.decrypt(ciphertext, key: key, iv: iv), plaintext)
            }
        }
    }

    func testDecrypt_rejectsBadLengthsKeysAndPadding() throws {
        let key = secureRandomBytes(16), iv = AESCBC.randomIV()
        XCTAssertThrowsError(try AESCBC.decrypt(Data(count: 15), key: key, iv: iv)) {
            guard case WireCryptoError.invalidLength = $0 else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try AESCBC.decrypt(Data(), key: key, iv: iv))
        XCTAssertThrowsError(try AESCBC.encrypt(Data(), key: Data(count: 20), iv: iv)) {
            XCTAssertEqual($0 as? WireCryptoError, .incorrectKeySize(bytes: 20, allowed: [16, 24, 32]))
        }
        XCTAssertThrowsError(try AESCBC.encrypt(Data(), key: key, iv: Data(count: 15))) {
            XCTAssertEqual($0 as? WireCryptoError, .invalidLength(what: "AES-CBC IV", length: 15, expected: "16"))
        }
        // A last block whose padding byte is 0x00 can never be valid PKCS#7.
        var ciphertext = try AESCBC.encrypt(Data("{\"a\":1}".utf8), key: key, iv: iv)
        var tampered = iv
        let plainLastByte: UInt8 = 16 - 7
        tampered[15] ^= plainLastByte  // turns the final padding byte into 0x00
        XCTAssertThrowsError(try AESCBC.decrypt(ciphertext, key: key, iv: tampered)) {
            XCTAssertEqual($0 as? WireCryptoError, .badPadding)
        }
        ciphertext[0] ^= 1
        XCTAssertNotEqual(try? AESCBC.decrypt(ciphertext, key: key, iv: iv), Data("{\"a\":1}".utf8))
    }
}

final class EnvelopeTests: XCTestCase {
    func testEnvelope_roundTripsThroughJSONWithFreshIVs() throws {
        let key = secureRandomBytes(32)
        let params = Data("{\"temperature\":21.5}".utf8)
        let first = try CBCEnvelope.seal(params, key: key)
        let second = try CBCEnvelope.seal(params, key: key)
        XCTAssertNotEqual(first.iv, second.iv, "every message gets its own IV")
        let parsed = try CBCEnvelope(json: first.jsonData)
        XCTAssertEqual(parsed, first)
        XCTAssertEqual(try parsed.open(key: key), params)
        XCTAssertTrue(String(decoding: first.jsonData, as: UTF8.self).hasPrefix("{\"data\":\""))
    }

    func testEnvelope_malformedJSONNamesTheProblem() {
        let cases: [(String, String)] = [
            ("[1]", "not a JSON object"), ("{", "not JSON"), ("{\"iv\":\"AAAA\"}", "no \"data\" field"),
            ("{\"data\":1,\"iv\":\"AAAA\"}", "\"data\" is not a string"),
            ("{\"data\":\"!!\",\"iv\":\"AAAA\"}", "\"data\" is not standard base64"),
        ]
        for (json, reason) in cases {
            XCTAssertThrowsError(try CBCEnvelope(json: Data(json.utf8))) {
                XCTAssertEqual($0 as? WireCryptoError, .malformedEnvelope(reason: reason), json)
            }
        }
    }

    /// docs/PROTOCOL.md: the last of duplicate names counts, but validity is the whole text's, so an
    /// overridden member must be valid too (issue 14; `crosscheck fuzz --seed 90001`: an overridden
    /// "iv" with a lone surrogate).
    func testStrictJSON_anOverriddenMemberMustBeValidToo() throws {
        for text in [#"{"iv":"\ud800","iv":"AAAAAAAAAAAAAAAAAAAAAA=="}"#, #"{"a":{"b":"\udc00","b":1},"a":2}"#,
                     #"{"a":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + #","a":1}"#] {
            XCTAssertFalse(StrictJSON.isValid(Data(text.utf8)), String(text.prefix(60)))
        }
        XCTAssertEqual(try StrictJSON.parse(Data(#"{"a":"\ud83d\ude00","a":{"b":1,"b":[2]}}"#.utf8)),
                       .object(["a": .object(["b": .array([.number("2")])])]))
    }

    /// docs/PROTOCOL.md: no number too large to be finite, integers included (issue 37: Foundation
    /// refuses 10^309, PythonRef took it up to 4,300 digits, and no mutator made one).
    func testStrictJSON_anIntegerTooLargeToBeFiniteIsNotJSON() throws {
        let huge = "1" + String(repeating: "0", count: 309)
        for text in [#"{"n":"# + huge + "}", #"{"n":-"# + huge + "}", "[" + huge + "]"] {
            XCTAssertThrowsError(try StrictJSON.parse(Data(text.utf8))) { error in
                XCTAssertTrue("\(error)".contains("too large to be finite"), "\(error)")
            }
        }
        let largestFinite = "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368"
        XCTAssertTrue(StrictJSON.isValid(Data(#"{"n":\#(largestFinite)}"#.utf8)))
        XCTAssertNotNil(StrictJSON.object(Data(#"{"n":\#(largestFinite)}"#.utf8)), "Foundation takes DBL_MAX too")
    }

    func testKeyDerivation_utf8ZeroPad16AndItsSixteenByteFailure() throws {
        XCTAssertEqual(try KeyDerivationMode.weakUTF8ZeroPad16.deriveKey(from: "abc").hexString,
                       "61626300000000000000000000000000")
        XCTAssertEqual(try KeyDerivationMode.weakUTF8ZeroPad16.deriveKey(from: "é").count, 16)
        XCTAssertEqual(try KeyDerivationMode.weakUTF8ZeroPad16.deriveKey(from: String(repeating: "k", count: 15)).last, 0)
        for bad in ["", String(repeating: "k", count: 16), String(repeating: "é", count: 8)] {
            XCTAssertThrowsError(try KeyDerivationMode.weakUTF8ZeroPad16.deriveKey(from: bad), bad) {
                guard case WireCryptoError.keyDerivation(mode: "utf8-zeropad16", _) = $0 else { return XCTFail("\($0)") }
            }
        }
        XCTAssertTrue(KeyDerivationMode.weakUTF8ZeroPad16.isWeak)
    }

    func testKeyDerivation_base64RawTakesOnlyAESKeySizes() throws {
        let key = secureRandomBytes(24)
        XCTAssertEqual(try KeyDerivationMode.base64Raw.deriveKey(from: key.base64EncodedString()), key)
        for bad in [Data(count: 20).base64EncodedString(), "not base64!", ""] {
            XCTAssertThrowsError(try KeyDerivationMode.base64Raw.deriveKey(from: bad), bad)
        }
    }
}

final class AEADTests: XCTestCase {
    // McGrew & Viega, "The Galois/Counter Mode of Operation", Test Case 3 (AES-128, 96-bit IV).
    func testAESGCM_matchesTheGCMSpecTestCase3() throws {
        let key = SymmetricKey(data: Data(hexString: "feffe9928665731c6d6a8f9467308308")!)
        let nonce = try AES.GCM.Nonce(data: Data(hexString: "cafebabefacedbaddecaf888")!)
        let plaintext = Data(hexString: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                                      + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255")!
        let box = try AES.GCM.seal(plaintext, using: key, nonce: nonce)
        XCTAssertEqual(box.ciphertext.hexString, "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
                                              + "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985")
        XCTAssertEqual(box.tag.hexString, "4d5c2af327cd64a62cf35abd2ba6fab4")
        XCTAssertEqual(box.combined?.prefix(12).hexString, "cafebabefacedbaddecaf888")
        XCTAssertEqual(try AES.GCM.open(AES.GCM.SealedBox(combined: box.combined!), using: key), plaintext)
    }

    // RFC 8439 §2.8.2: the AEAD_CHACHA20_POLY1305 example.
    func testChaChaPoly_matchesRFC8439() throws {
        let key = SymmetricKey(data: Data((0x80...0x9f).map { UInt8($0) }))
        let nonce = try ChaChaPoly.Nonce(data: Data(hexString: "070000004041424344454647")!)
        let aad = Data(hexString: "50515253c0c1c2c3c4c5c6c7")!
        let plaintext = Data("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let box = try ChaChaPoly.seal(plaintext, using: key, nonce: nonce, authenticating: aad)
        XCTAssertEqual(box.ciphertext.prefix(16).hexString, "d31a8d34648e60db7b86afbc53ef7ec2")
        XCTAssertEqual(box.tag.hexString, "1ae10b594f09e26a7e902ecbd0600691")
        XCTAssertEqual(try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: box.combined), using: key, authenticating: aad), plaintext)
    }

    func testOpen_rejectsEveryTamperWithoutPlaintext() throws {
        let key = SymmetricKey(size: .bits256)
        let aad = Data("header".utf8)
        let gcm = try AES.GCM.seal(Data("attack at dawn".utf8), using: key, authenticating: aad).combined!
        let chacha = try ChaChaPoly.seal(Data("attack at dawn".utf8), using: key, authenticating: aad).combined
        for (name, combined, open) in [
            ("gcm", gcm, { (blob: Data, key: SymmetricKey, aad: Data) in try AES.GCM.open(AES.GCM.SealedBox(combined: blob), using: key, authenticating: aad) }),
            ("chacha", chacha, { (blob: Data, key: SymmetricKey, aad: Data) in try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: blob), using: key, authenticating: aad) }),
        ] as [(String, Data, (Data, SymmetricKey, Data) throws -> Data)] {
            XCTAssertEqual(try open(combined, key, aad), Data("attack at dawn".utf8))
            for bit in stride(from: 0, to: combined.count * 8, by: 13) {
                var flipped = combined
                flipped[bit / 8] ^= UInt8(1 << (bit % 8))
                XCTAssertThrowsError(try open(flipped, key, aad), "\(name) bit \(bit)") {
                    XCTAssertEqual($0 as? CryptoKitError, .authenticationFailure)
                }
            }
            XCTAssertThrowsError(try open(combined, SymmetricKey(size: .bits256), aad)) {
                XCTAssertEqual($0 as? CryptoKitError, .authenticationFailure)
            }
            XCTAssertThrowsError(try open(combined, key, Data("other".utf8))) {
                XCTAssertEqual($0 as? CryptoKitError, .authenticationFailure)
            }
            XCTAssertThrowsError(try open(combined.dropLast(1), key, aad), "\(name) truncated")
            XCTAssertThrowsError(try open(Data(combined.prefix(27)), key, aad)) {
                guard case CryptoKitError.incorrectParameterSize = $0 else { return XCTFail("\($0)") }
            }
        }
    }

    func testContextReuse_switchingKeysAndFailuresNeverLeakState() throws {
        let first = SymmetricKey(size: .bits256), second = SymmetricKey(size: .bits256)
        let message = Data("reuse".utf8)
        let a1 = try AES.GCM.seal(message, using: first).combined!
        let b1 = try AES.GCM.seal(message, using: second).combined!
        let a2 = try AES.GCM.seal(message, using: first).combined!
        XCTAssertNotEqual(a1.prefix(12), a2.prefix(12), "fresh nonce per seal")
        XCTAssertThrowsError(try AES.GCM.open(AES.GCM.SealedBox(combined: b1), using: first))
        // After a failed open the same key still opens what it sealed.
        for (box, key) in [(a1, first), (b1, second), (a2, first)] {
            XCTAssertEqual(try AES.GCM.open(AES.GCM.SealedBox(combined: box), using: key), message)
        }
        // Same key bytes, other key size: AES-128 vs AES-256 never share a context.
        let short = SymmetricKey(data: Data(repeating: 1, count: 16)), long = SymmetricKey(data: Data(repeating: 1, count: 32))
        let fixed = try AES.GCM.Nonce(data: Data(count: 12))
        XCTAssertNotEqual(try AES.GCM.seal(message, using: short, nonce: fixed).ciphertext,
                          try AES.GCM.seal(message, using: long, nonce: fixed).ciphertext)
        // Many threads sealing and opening with their own keys at once.
        let failures = NSLock()
        nonisolated(unsafe) var failed = 0
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let key = SymmetricKey(data: Data(repeating: UInt8(index), count: 32))
            for round in 0..<200 {
                let plaintext = Data("\(index)-\(round)".utf8)
                let ok = (try? AES.GCM.open(AES.GCM.seal(plaintext, using: key), using: key)) == plaintext
                if !ok { failures.lock(); failed += 1; failures.unlock() }
            }
        }
        XCTAssertEqual(failed, 0)
    }

    // A sealed box keeps nonce ‖ ciphertext ‖ tag in one buffer, as swift-crypto does: the parts are
    // slices of it (their indices are where they sit), and `combined` is that buffer.
    func testSealedBox_partsAreSlicesOfTheCombinedBytes() throws {
        let key = SymmetricKey(size: .bits256)
        let plaintext = Data((0..<100).map { UInt8($0) })
        let box = try AES.GCM.seal(plaintext, using: key)
        let combined = try XCTUnwrap(box.combined)
        XCTAssertEqual(combined.count, 12 + 100 + 16)
        XCTAssertEqual(box.ciphertext.startIndex, 12)
        XCTAssertEqual(Data(box.ciphertext), Data(combined[12..<112]))
        XCTAssertEqual(Data(box.tag), Data(combined.suffix(16)))
        XCTAssertEqual(Data(box.nonce), Data(combined.prefix(12)))
        // Rebuilt from its parts, the box is the same bytes and opens.
        let rebuilt = try AES.GCM.SealedBox(nonce: box.nonce, ciphertext: box.ciphertext, tag: box.tag)
        XCTAssertEqual(rebuilt.combined, combined)
        XCTAssertEqual(try AES.GCM.open(rebuilt, using: key), plaintext)
        let chacha = try ChaChaPoly.seal(plaintext, using: key)
        XCTAssertEqual(chacha.combined.count, 128)
        XCTAssertEqual(try ChaChaPoly.open(ChaChaPoly.SealedBox(nonce: chacha.nonce, ciphertext: chacha.ciphertext, tag: chacha.tag), using: key),
                       plaintext)
        // A 13-byte nonce: no combined form, as in CryptoKit; still seals and opens.
        let long = try AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce(data: Data(repeating: 7, count: 13)))
        XCTAssertNil(long.combined)
        XCTAssertEqual(long.ciphertext.count, 100)
        XCTAssertEqual(try AES.GCM.open(long, using: key), plaintext)
    }

    func testSealInto_refusesBuffersTooSmall() throws {
        let key = Data(count: 32), nonce = Data(count: 12), plaintext = Data(count: 64)
        var output = Data(count: 63), tag = Data(count: 16)
        XCTAssertThrowsError(try key.withUnsafeBytes { k in try nonce.withUnsafeBytes { n in try plaintext.withUnsafeBytes { p in
            try output.withUnsafeMutableBytes { o in try tag.withUnsafeMutableBytes { t in
                try AEADCore.seal(.aesGCM, key: k, nonce: n, plaintext: p, aad: UnsafeRawBufferPointer(start: nil, count: 0), into: o, tag: t)
            } } } } }) {
            guard case WireCryptoError.incorrectParameterSize(what: "AEAD output buffer", length: 63, _) = $0 else { return XCTFail("\($0)") }
        }
    }

    // Nonces come from a per-thread pool; its page is wiped in a forked child, so the child draws
    // fresh bytes instead of the ones its parent hands out next (which would repeat a nonce).
    func testNoncePool_aForkedChildNeverRepeatsItsParentsNextNonce() throws {
        var warm = (UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &warm) { AEADCore.randomNonce(into: UnsafeMutableRawBufferPointer(rebasing: $0.prefix(12))) }
        var pipeEnds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&pipeEnds), 0)
        let child = fork()
        if child == 0 {
            // Only async-signal-safe work in the child: the pool, getrandom, write, _exit.
            var drawn = (UInt64(0), UInt64(0))
            withUnsafeMutableBytes(of: &drawn) { AEADCore.randomNonce(into: UnsafeMutableRawBufferPointer(rebasing: $0.prefix(12))) }
            let written = withUnsafeBytes(of: &drawn) { write(pipeEnds[1], $0.baseAddress, 12) }
            _exit(written == 12 ? 0 : 1)
        }
        XCTAssertGreaterThan(child, 0)
        close(pipeEnds[1])
        var parentNext = (UInt64(0), UInt64(0)), childDrawn = (UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &parentNext) { AEADCore.randomNonce(into: UnsafeMutableRawBufferPointer(rebasing: $0.prefix(12))) }
        let got = withUnsafeMutableBytes(of: &childDrawn) { read(pipeEnds[0], $0.baseAddress, 12) }
        close(pipeEnds[0])
        var status: Int32 = 0
        XCTAssertEqual(waitpid(child, &status, 0), child)
        XCTAssertEqual(got, 12)
        XCTAssertNotEqual(withUnsafeBytes(of: &childDrawn) { Data($0.prefix(12)) }, withUnsafeBytes(of: &parentNext) { Data($0.prefix(12)) })
        XCTAssertNotEqual(withUnsafeBytes(of: &warm) { Data($0.prefix(12)) }, withUnsafeBytes(of: &parentNext) { Data($0.prefix(12)) })
    }

    func testSeal_refusesWrongKeySizes() {
        XCTAssertThrowsError(try ChaChaPoly.seal(Data(), using: SymmetricKey(size: .bits128))) {
            XCTAssertEqual($0 as? CryptoKitError, .incorrectKeySize(bytes: 16, allowed: [32]))
        }
        XCTAssertThrowsError(try AES.GCM.seal(Data(), using: SymmetricKey(data: Data(count: 20))))
    }
}

/// StrictBase64 decodes by itself (one allocation per PEM body); for every text it accepts it must
/// give Foundation's bytes, unused low bits ignored as Foundation and Python ignore them.
final class StrictBase64Tests: XCTestCase {
    func testDecode_givesFoundationsBytesForEveryTextItAccepts() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for length in 0..<200 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            XCTAssertEqual(StrictBase64.decode(bytes.base64EncodedString()), bytes)
            // Any alphabet text of a whole number of quanta, with 0 to 2 padding characters.
            var text = (0..<((length / 3 + 1) * 4)).map { _ in alphabet.randomElement(using: &generator)! }
            let padding = length % 3
            for index in 0..<padding { text[text.count - 1 - index] = UInt8(ascii: "=") }
            let string = String(decoding: text, as: UTF8.self)
            XCTAssertEqual(StrictBase64.decode(string), Data(base64Encoded: string), string)
        }
        for refused in ["YWJj=", "YQ=a", "YQ===", "Y Q==", "YQ==\n", "Y", "====", "Y===", "=YQ=", "YQ=\u{0}", "YQ\u{e9}="] { XCTAssertNil(StrictBase64.decode(refused), refused) }
        XCTAssertEqual(StrictBase64.decode("AB=="), Data([0]))
    }
}
