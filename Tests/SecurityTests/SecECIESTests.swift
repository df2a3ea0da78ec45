import Foundation
import XCTest
import Security
import TestSupport

/// SecKeyCreateEncryptedData/DecryptedData with Apple's ECIES, both ways with PythonRef's
/// `ec_interop` (pyca, composed from ECDH + X9.63 KDF + AES-GCM as Apple's adaptors compose it):
/// what the app seals the Pi opens, and what the Pi seals the app opens, for every ECIES algorithm
/// on every curve.
final class SecECIESTests: XCTestCase {
    private static let algorithms: [(SecKeyAlgorithm, hash: String, variableIV: Bool)] = [
        (.eciesEncryptionStandardX963SHA1AESGCM, "SHA1", false), (.eciesEncryptionStandardX963SHA224AESGCM, "SHA224", false),
        (.eciesEncryptionStandardX963SHA256AESGCM, "SHA256", false), (.eciesEncryptionStandardX963SHA384AESGCM, "SHA384", false),
        (.eciesEncryptionStandardX963SHA512AESGCM, "SHA512", false),
        (.eciesEncryptionCofactorX963SHA1AESGCM, "SHA1", false), (.eciesEncryptionCofactorX963SHA224AESGCM, "SHA224", false),
        (.eciesEncryptionCofactorX963SHA256AESGCM, "SHA256", false), (.eciesEncryptionCofactorX963SHA384AESGCM, "SHA384", false),
        (.eciesEncryptionCofactorX963SHA512AESGCM, "SHA512", false),
        (.eciesEncryptionStandardVariableIVX963SHA224AESGCM, "SHA224", true), (.eciesEncryptionStandardVariableIVX963SHA256AESGCM, "SHA256", true),
        (.eciesEncryptionStandardVariableIVX963SHA384AESGCM, "SHA384", true), (.eciesEncryptionStandardVariableIVX963SHA512AESGCM, "SHA512", true),
        (.eciesEncryptionCofactorVariableIVX963SHA224AESGCM, "SHA224", true), (.eciesEncryptionCofactorVariableIVX963SHA256AESGCM, "SHA256", true),
        (.eciesEncryptionCofactorVariableIVX963SHA384AESGCM, "SHA384", true), (.eciesEncryptionCofactorVariableIVX963SHA512AESGCM, "SHA512", true),
    ]

    /// Runs `script` with PythonRef importable; stdin is `input`, the result its stdout lines.
    private func pythonRef(_ script: String, input: String) throws -> [String] {
        let output = try runChecked("/usr/bin/python3", ["-c", "import sys; sys.path.insert(0, sys.argv[1]); exec(sys.argv[2])",
                                                         repositoryRoot.appendingPathComponent("PythonRef").path, script], input: Data(input.utf8))
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private func makeKey(bits: Int) throws -> (SecKey, SecKey, Data) {
        var error: Unmanaged<CFError>?
        let privateKey = try XCTUnwrap(SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                                              kSecAttrKeySizeInBits as String: bits] as CFDictionary, &error))
        let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(privateKey))
        return (privateKey, publicKey, try XCTUnwrap(SecKeyCopyExternalRepresentation(privateKey, &error) as Data?))
    }

    func testAppSeals_pythonRefOpens_everyAlgorithmAndCurve() throws {
        for (bits, point) in [(256, 65), (384, 97), (521, 133)] {
            let (_, publicKey, privateData) = try makeKey(bits: bits)
            var lines: [String] = []
            var plaintexts: [String] = []
            for (index, (algorithm, hash, variableIV)) in Self.algorithms.enumerated() {
                XCTAssertTrue(SecKeyIsAlgorithmSupported(publicKey, .encrypt, algorithm))
                let plaintext = Data("message \(index) from the phone on P-\(bits) \(UUID())".utf8)
                var error: Unmanaged<CFError>?
                let sealed = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, algorithm, plaintext as CFData, &error) as Data?, "\(algorithm.rawValue)")
                XCTAssertEqual(sealed.count, point + plaintext.count + 16, "ephemeral key ‖ ciphertext ‖ tag")
                XCTAssertEqual(sealed.first, 4)
                lines.append("\(hash) \(variableIV ? 1 : 0) \(sealed.hex)")
                plaintexts.append(plaintext.hex)
            }
            let opened = try pythonRef("""
                from pythonref import ec_interop
                lines = sys.stdin.read().split("\\n")
                key = bytes.fromhex(lines[0])
                for line in lines[1:]:
                    hash_name, variable, sealed = line.split()
                    print(ec_interop.ecies_open(key, bytes.fromhex(sealed), hash_name, variable == "1").hex())
                """, input: ([privateData.hex] + lines).joined(separator: "\n"))
            XCTAssertEqual(opened, plaintexts, "P-\(bits)")
        }
    }

    func testPythonRefSeals_appOpens_everyAlgorithmAndCurve_andTamperingIsRefused() throws {
        for bits in [256, 384, 521] {
            let (privateKey, _, privateData) = try makeKey(bits: bits)
            let publicData = privateData.prefix(1 + 2 * ((bits + 7) / 8))
            let sealed = try pythonRef("""
                from pythonref import ec_interop
                key, *rest = sys.stdin.read().split()
                for hash_name, variable in zip(rest[::2], rest[1::2]):
                    message = f"from the Pi {hash_name} {variable}".encode()
                    print(ec_interop.ecies_seal(bytes.fromhex(key), message, hash_name, variable == "1").hex())
                """, input: ([publicData.hex] + Self.algorithms.flatMap { [$0.hash, $0.variableIV ? "1" : "0"] }).joined(separator: " "))
            XCTAssertEqual(sealed.count, Self.algorithms.count)
            for ((algorithm, hash, variableIV), box) in zip(Self.algorithms, sealed) {
                let label = "P-\(bits) \(algorithm.rawValue)"
                var error: Unmanaged<CFError>?
                let opened = SecKeyCreateDecryptedData(privateKey, algorithm, Data(hex: box) as CFData, &error) as Data?
                XCTAssertEqual(opened, Data("from the Pi \(hash) \(variableIV ? 1 : 0)".utf8), label)
                // A flipped tag byte, or the box under the other IV rule, is errSecParam.
                var tampered = Data(hex: box)
                tampered[tampered.count - 1] ^= 1
                error = nil
                XCTAssertNil(SecKeyCreateDecryptedData(privateKey, algorithm, tampered as CFData, &error), label)
                XCTAssertEqual(error.map { CFErrorGetCode($0.takeRetainedValue()) }, Int(errSecParam), label)
                let other = Self.algorithms.first { $0.hash == hash && $0.variableIV != variableIV }
                if let other {
                    XCTAssertNil(SecKeyCreateDecryptedData(privateKey, other.0, Data(hex: box) as CFData, nil), "\(label) opened as \(other.0.rawValue)")
                }
            }
        }
    }

    /// A box made elsewhere: the ciphertext and SEC 1 key published in jedda/ECIES-Swift-Playground
    /// (Pages/Decrypt, made with Apple's `.eciesEncryptionCofactorVariableIVX963SHA384AESGCM` or the
    /// author's Go port of it), the key as its X9.63 bytes (`openssl ec -text` of that PEM).
    func testThirdPartyBox_opens() throws {
        let key = "04eea3060961b42fb1d8029b558486cbcb1ddc17385de445d9d3d3295696660464bbc8221de564182ad9b2de04c2db8e62be5119ef9f593c582cb5832042866bb2"
            + "4f2f3481259b0c5247e661979368a04f8512ea448056cf6e7d2ade13086ddd81"
        let box = "BNYuilyA9qKhJ51iaNFzMJXe7Z3pUG62o3vPfud3LEJbw2f1yMLEKF+V+6GQNNbk4Vjw2IHpEaZSB2If/ibZCS08AC6l/eUzMhW11k0Qr5mxggMHwV0aB1K8p/1J4bcy7n/4plUAEyA="
        var error: Unmanaged<CFError>?
        let privateKey = try XCTUnwrap(SecKeyCreateWithData(Data(hex: key) as CFData, [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary, &error))
        let opened = SecKeyCreateDecryptedData(privateKey, .eciesEncryptionCofactorVariableIVX963SHA384AESGCM, Data(base64Encoded: box)! as CFData, &error)
        XCTAssertEqual(opened as Data?, Data("This is a test message.".utf8))
        XCTAssertNil(SecKeyCreateDecryptedData(privateKey, .eciesEncryptionCofactorX963SHA384AESGCM, Data(base64Encoded: box)! as CFData, nil), "zero IV")
    }

    func testShortInputs_andWrongKeys_areErrSecParam() throws {
        let (privateKey, publicKey, _) = try makeKey(bits: 256)
        func code(_ body: (UnsafeMutablePointer<Unmanaged<CFError>?>) -> CFData?) -> Int? {
            var error: Unmanaged<CFError>?
            XCTAssertNil(body(&error))
            return error.map { CFErrorGetCode($0.takeRetainedValue()) }
        }
        let algorithm = SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA256AESGCM
        var error: Unmanaged<CFError>?
        let sealed = try XCTUnwrap(SecKeyCreateEncryptedData(publicKey, algorithm, Data("x".utf8) as CFData, &error) as Data?)
        XCTAssertEqual(code { SecKeyCreateDecryptedData(privateKey, algorithm, sealed.prefix(64) as CFData, $0) }, Int(errSecParam))
        XCTAssertEqual(code { SecKeyCreateDecryptedData(privateKey, algorithm, sealed.prefix(80) as CFData, $0) }, Int(errSecParam))
        XCTAssertEqual(code { SecKeyCreateDecryptedData(publicKey, algorithm, sealed as CFData, $0) }, Int(errSecParam), "a public key cannot decrypt")
        XCTAssertEqual(code { SecKeyCreateEncryptedData(privateKey, algorithm, Data() as CFData, $0) }, Int(errSecParam), "Apple encrypts to the public key")
        var offCurve = sealed
        offCurve[10] ^= 1
        XCTAssertEqual(code { SecKeyCreateDecryptedData(privateKey, algorithm, offCurve as CFData, $0) }, Int(errSecParam))
        // Another recipient's key does not open it.
        let (otherPrivate, _, _) = try makeKey(bits: 256)
        XCTAssertEqual(code { SecKeyCreateDecryptedData(otherPrivate, algorithm, sealed as CFData, $0) }, Int(errSecParam))
        XCTAssertEqual(SecKeyCreateDecryptedData(privateKey, algorithm, sealed as CFData, &error) as Data?, Data("x".utf8))
        XCTAssertTrue(SecKeyIsAlgorithmSupported(privateKey, .decrypt, algorithm))
        XCTAssertFalse(SecKeyIsAlgorithmSupported(publicKey, .decrypt, algorithm))
    }
}
