import Foundation
import XCTest
@testable import CryptoKit
import TestSupport

private func randomBytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }
private func bytes<K: ContiguousBytes>(_ key: K) -> [UInt8] { key.withUnsafeBytes { [UInt8]($0) } }

final class CryptoKitHKDFTests: XCTestCase {
    // RFC 5869 Appendix A.1 (SHA-256) and A.4 (SHA-1).
    private let ikm1 = SymmetricKey(data: [UInt8](repeating: 0x0b, count: 22))
    private let salt1 = Data((0x00...0x0c).map { UInt8($0) })
    private let info1 = Data((0xf0...0xf9).map { UInt8($0) })

    func testDeriveExtractExpand_matchRFC5869() {
        let okm = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm1, salt: salt1, info: info1, outputByteCount: 42)
        XCTAssertEqual(bytes(okm).hex, "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm1, salt: salt1)
        XCTAssertEqual(Array(prk).hex, "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
        XCTAssertEqual(HKDF<SHA256>.expand(pseudoRandomKey: prk, info: info1, outputByteCount: 42), okm)
        let sha1 = HKDF<Insecure.SHA1>.deriveKey(inputKeyMaterial: SymmetricKey(data: [UInt8](repeating: 0x0b, count: 11)),
                                                 salt: salt1, info: info1, outputByteCount: 42)
        XCTAssertEqual(bytes(sha1).hex, "085a01ea1b10f36933068b56efa5ad81a4f14b822f5b091568a9cdd4f155fda2c22e422478d305f3f896")
        // A.3: no salt, no info; the overload without either is that case.
        XCTAssertEqual(bytes(HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm1, outputByteCount: 42)).hex,
                       "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    func testOverloadsAndNilArguments_areEmptySaltAndInfo() {
        let general = { (salt: [UInt8], info: [UInt8]) in
            HKDF<SHA384>.deriveKey(inputKeyMaterial: self.ikm1, salt: salt, info: info, outputByteCount: 20)
        }
        XCTAssertEqual(HKDF<SHA384>.deriveKey(inputKeyMaterial: ikm1, info: info1, outputByteCount: 20), general([], Array(info1)))
        XCTAssertEqual(HKDF<SHA384>.deriveKey(inputKeyMaterial: ikm1, salt: salt1, outputByteCount: 20), general(Array(salt1), []))
        XCTAssertNotEqual(general([], Array(info1)), general(Array(salt1), []))
        XCTAssertEqual(Array(HKDF<SHA512>.extract(inputKeyMaterial: ikm1, salt: nil as Data?)),
                       Array(HKDF<SHA512>.extract(inputKeyMaterial: ikm1, salt: Data())))
        let prk = HKDF<SHA512>.extract(inputKeyMaterial: ikm1, salt: Data())
        XCTAssertEqual(HKDF<SHA512>.expand(pseudoRandomKey: prk, info: nil as Data?, outputByteCount: 64),
                       HKDF<SHA512>.expand(pseudoRandomKey: prk, info: Data(), outputByteCount: 64))
    }

    /// Extract is HMAC(salt, IKM) (RFC 5869 §2.2): this module's HMAC<H> (RFC 2104 over the hash
    /// functions, not OpenSSL's HKDF) must agree for every hash.
    func testExtract_isTheHMACOfTheKeyMaterialUnderTheSalt() {
        let ikm = SymmetricKey(data: randomBytes(37)), salt = randomBytes(200)
        XCTAssertEqual(Array(HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)),
                       Array(HMAC<SHA256>.authenticationCode(for: bytes(ikm), using: SymmetricKey(data: salt))))
        XCTAssertEqual(Array(HKDF<SHA384>.extract(inputKeyMaterial: ikm, salt: salt)),
                       Array(HMAC<SHA384>.authenticationCode(for: bytes(ikm), using: SymmetricKey(data: salt))))
        XCTAssertEqual(Array(HKDF<SHA512>.extract(inputKeyMaterial: ikm, salt: salt)),
                       Array(HMAC<SHA512>.authenticationCode(for: bytes(ikm), using: SymmetricKey(data: salt))))
        XCTAssertEqual(Array(HKDF<Insecure.SHA1>.extract(inputKeyMaterial: ikm, salt: salt)),
                       Array(HMAC<Insecure.SHA1>.authenticationCode(for: bytes(ikm), using: SymmetricKey(data: salt))))
    }

    /// Random inputs through every hash: pyca/cryptography's HKDF (PythonRef's library) and
    /// `openssl kdf … HKDF` derive the same bytes, and so does a shared secret's HKDF.
    func testRandomInputs_equalPycaAndOpenSSL() throws {
        struct Case { let hash: String; let ikm: [UInt8]; let salt: [UInt8]; let info: [UInt8]; let length: Int; let ours: [UInt8] }
        var cases: [Case] = []
        for round in 0..<24 {
            let ikm = randomBytes(Int.random(in: 1...80)), salt = randomBytes(round % 3 == 0 ? 0 : Int.random(in: 1...80))
            let info = randomBytes(round % 4 == 0 ? 0 : Int.random(in: 1...80))
            let key = SymmetricKey(data: ikm), secret = SharedSecret(bytes: ikm)
            switch round % 4 {
            case 0:
                let length = Int.random(in: 1...(255 * 32))
                let ours = bytes(HKDF<SHA256>.deriveKey(inputKeyMaterial: key, salt: salt, info: info, outputByteCount: length))
                XCTAssertEqual(bytes(secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: info, outputByteCount: length)), ours)
                cases.append(Case(hash: "SHA256", ikm: ikm, salt: salt, info: info, length: length, ours: ours))
            case 1:
                let length = Int.random(in: 1...200)
                let ours = bytes(HKDF<SHA384>.deriveKey(inputKeyMaterial: key, salt: salt, info: info, outputByteCount: length))
                XCTAssertEqual(bytes(secret.hkdfDerivedSymmetricKey(using: SHA384.self, salt: salt, sharedInfo: info, outputByteCount: length)), ours)
                cases.append(Case(hash: "SHA384", ikm: ikm, salt: salt, info: info, length: length, ours: ours))
            case 2:
                let length = Int.random(in: 1...200)
                let ours = bytes(HKDF<SHA512>.deriveKey(inputKeyMaterial: key, salt: salt, info: info, outputByteCount: length))
                cases.append(Case(hash: "SHA512", ikm: ikm, salt: salt, info: info, length: length, ours: ours))
            default:
                let length = Int.random(in: 1...(255 * 20))
                let ours = bytes(HKDF<Insecure.SHA1>.deriveKey(inputKeyMaterial: key, salt: salt, info: info, outputByteCount: length))
                cases.append(Case(hash: "SHA1", ikm: ikm, salt: salt, info: info, length: length, ours: ours))
            }
        }
        let script = """
        import sys
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF
        for line in sys.stdin:
            name, ikm, salt, info, length = line.split(",")
            h = getattr(hashes, name)()
            print(HKDF(h, int(length), bytes.fromhex(salt) or None, bytes.fromhex(info)).derive(bytes.fromhex(ikm)).hex())
        """
        let input = cases.map { "\($0.hash),\($0.ikm.hex),\($0.salt.hex),\($0.info.hex),\($0.length)" }.joined(separator: "\n") + "\n"
        let pyca = try python(script, input: input).split(separator: "\n").map(String.init)
        XCTAssertEqual(pyca.count, cases.count)
        for (index, item) in cases.enumerated() {
            let context = "HKDF-\(item.hash) ikm=\(item.ikm.hex) salt=\(item.salt.hex) info=\(item.info.hex) L=\(item.length)"
            XCTAssertEqual(item.ours.hex, pyca[index], "pyca: \(context)")
            var arguments = ["kdf", "-keylen", "\(item.length)", "-kdfopt", "digest:\(item.hash)", "-kdfopt", "hexkey:\(item.ikm.hex)"]
            if !item.salt.isEmpty { arguments += ["-kdfopt", "hexsalt:\(item.salt.hex)"] }
            if !item.info.isEmpty { arguments += ["-kdfopt", "hexinfo:\(item.info.hex)"] }
            let openSSLHex = String(decoding: try openssl(arguments + ["HKDF"]), as: UTF8.self)
                .replacingOccurrences(of: ":", with: "").trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            XCTAssertEqual(item.ours.hex, openSSLHex, "openssl kdf: \(context)")
        }
    }
}

final class CryptoKitKeyWrapTests: XCTestCase {
    func testWrapAndUnwrap_matchRFC3394() throws {
        // RFC 3394 §4.1 (128-bit KEK, 128-bit key) and §4.6 (256-bit KEK, 256-bit key).
        let kek128 = SymmetricKey(data: Data(hex: "000102030405060708090a0b0c0d0e0f"))
        let key128 = SymmetricKey(data: Data(hex: "00112233445566778899aabbccddeeff"))
        XCTAssertEqual(try AES.KeyWrap.wrap(key128, using: kek128).hex, "1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5")
        XCTAssertEqual(try AES.KeyWrap.unwrap(Data(hex: "1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5"), using: kek128), key128)
        let kek256 = SymmetricKey(data: Data((0x00...0x1f).map { UInt8($0) }))
        let key256 = SymmetricKey(data: Data(hex: "00112233445566778899aabbccddeeff000102030405060708090a0b0c0d0e0f"))
        let wrapped = "28c9f404c4b810f4cbccb35cfb87f8263f5786e2d80ed326cbc7f0e71a99f43bfb988b9b7a02dd21"
        XCTAssertEqual(try AES.KeyWrap.wrap(key256, using: kek256).hex, wrapped)
        XCTAssertEqual(try AES.KeyWrap.unwrap(Data(hex: wrapped), using: kek256), key256)
        XCTAssertEqual(try AES.KeyWrap.unwrap([UInt8](Data(hex: wrapped)), using: kek256), key256)
    }

    func testErrors_areCryptoKitsCases() throws {
        let kek = SymmetricKey(size: .bits256)
        XCTAssertThrowsError(try AES.KeyWrap.wrap(SymmetricKey(size: .bits128), using: SymmetricKey(data: randomBytes(20)))) {
            XCTAssertEqual($0 as? CryptoKitError, .incorrectKeySize)
        }
        XCTAssertThrowsError(try AES.KeyWrap.wrap(SymmetricKey(data: randomBytes(20)), using: kek)) {
            XCTAssertEqual($0 as? CryptoKitError, .wrapFailure)
        }
        XCTAssertThrowsError(try AES.KeyWrap.wrap(SymmetricKey(data: randomBytes(8)), using: kek)) {
            XCTAssertEqual($0 as? CryptoKitError, .wrapFailure)
        }
        var wrapped = try AES.KeyWrap.wrap(SymmetricKey(size: .bits256), using: kek)
        XCTAssertThrowsError(try AES.KeyWrap.unwrap(wrapped, using: SymmetricKey(size: .bits256))) {
            XCTAssertEqual($0 as? CryptoKitError, .unwrapFailure)
        }
        XCTAssertThrowsError(try AES.KeyWrap.unwrap(wrapped.prefix(20), using: kek)) {
            XCTAssertEqual($0 as? CryptoKitError, .unwrapFailure)
        }
        wrapped[wrapped.startIndex + 30] ^= 0x40
        XCTAssertThrowsError(try AES.KeyWrap.unwrap(wrapped, using: kek)) {
            XCTAssertEqual($0 as? CryptoKitError, .unwrapFailure)
        }
    }

    /// Keys wrapped here are unwrapped by pyca's aes_key_unwrap and `openssl enc -d -id-aesN-wrap`,
    /// and keys they wrap are unwrapped here, for every KEK size.
    func testRandomKeys_interopWithPycaAndOpenSSLBothWays() throws {
        let script = """
        import sys
        from cryptography.hazmat.primitives.keywrap import aes_key_wrap, aes_key_unwrap
        for line in sys.stdin:
            op, kek, data = line.split()
            f = aes_key_wrap if op == "wrap" else aes_key_unwrap
            print(f(bytes.fromhex(kek), bytes.fromhex(data)).hex())
        """
        let scratch = try Scratch()
        var lines: [String] = [], expected: [String] = []
        for (index, kekBytes) in [16, 24, 32, 16, 24, 32].enumerated() {
            let kek = SymmetricKey(data: randomBytes(kekBytes))
            let key = SymmetricKey(data: randomBytes([16, 24, 32, 40, 64, 512][index]))
            let ours = try AES.KeyWrap.wrap(key, using: kek)
            XCTAssertEqual(ours.count, key.bitCount / 8 + 8)
            // Theirs to us and ours to them, through openssl.
            try scratch.write("key", Data(bytes(key)))
            let wrapArgs = ["enc", "-id-aes\(kekBytes * 8)-wrap", "-K", bytes(kek).hex, "-iv", "A6A6A6A6A6A6A6A6"]
            let fromOpenSSL = try scratch.openssl(wrapArgs + ["-in", "key"])
            XCTAssertEqual(fromOpenSSL, ours, "openssl enc -id-aes\(kekBytes * 8)-wrap and AES.KeyWrap.wrap")
            XCTAssertEqual(try AES.KeyWrap.unwrap(fromOpenSSL, using: kek), key)
            try scratch.write("wrapped", ours)
            XCTAssertEqual(try scratch.openssl(["enc", "-d"] + wrapArgs.dropFirst() + ["-in", "wrapped"]), Data(bytes(key)))
            lines += ["unwrap \(bytes(kek).hex) \(ours.hex)", "wrap \(bytes(kek).hex) \(bytes(key).hex)"]
            expected += [bytes(key).hex, ours.hex]
        }
        XCTAssertEqual(try python(script, input: lines.joined(separator: "\n") + "\n").split(separator: "\n").map(String.init), expected)
    }
}
