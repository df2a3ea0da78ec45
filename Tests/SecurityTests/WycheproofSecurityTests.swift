import Foundation
import XCTest
import Security
import TestSupport

/// The vendored Wycheproof signature files through the Security module as app code calls it:
/// `SecKeyCreateWithData` (the key as iOS exports it) and `SecKeyVerifySignature`. Every vector's
/// verdict must be the file's: a valid signature verifies, an invalid one is refused with
/// errSecVerifyFailed; an acceptable one may go either way, and what it did is asserted here and
/// written down in docs/APPLE-MODULES.md.
final class WycheproofSecurityTests: XCTestCase {
    struct Outcomes: Equatable { var wrong: [String] = []; var acceptedAcceptable: [Int] = []; var refusedAcceptable: [Int] = []; var ran = 0 }

    /// Runs every test of `file`: `key(group)` makes the SecKey, `algorithm(group)` names the algorithm.
    func run(_ file: String, key: ([String: Any]) throws -> SecKey, algorithm: ([String: Any]) -> SecKeyAlgorithm) throws -> Outcomes {
        let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("Vectors/wycheproof/\(file)"))
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        var outcomes = Outcomes()
        for group in try XCTUnwrap(root["testGroups"] as? [[String: Any]]) {
            let publicKey = try key(group)
            let algorithm = algorithm(group)
            XCTAssertTrue(SecKeyIsAlgorithmSupported(publicKey, .verify, algorithm), "\(file): \(algorithm.rawValue)")
            for test in try XCTUnwrap(group["tests"] as? [[String: Any]]) {
                let (id, result) = (test["tcId"] as! Int, test["result"] as! String)
                var error: Unmanaged<CFError>?
                let verified = SecKeyVerifySignature(publicKey, algorithm, Data(hex: test["msg"] as! String) as CFData,
                                                     Data(hex: test["sig"] as! String) as CFData, &error)
                let code = error.map { CFErrorGetCode($0.takeRetainedValue()) }
                outcomes.ran += 1
                switch (result, verified) {
                case ("valid", false): outcomes.wrong.append("tcId \(id) valid, refused (\(code.map(String.init) ?? "no error"))")
                case ("invalid", true): outcomes.wrong.append("tcId \(id) invalid, verified")
                case ("invalid", false) where code != Int(errSecVerifyFailed):
                    outcomes.wrong.append("tcId \(id) refused with \(code.map(String.init) ?? "no error"), not errSecVerifyFailed")
                case ("acceptable", true): outcomes.acceptedAcceptable.append(id)
                case ("acceptable", false): outcomes.refusedAcceptable.append(id)
                default: break
                }
            }
            XCTAssertEqual(outcomes.wrong, [], file)
        }
        XCTAssertEqual(outcomes.ran, root["numberOfTests"] as? Int, file)
        return outcomes
    }

    /// An RSA public key as `SecKeyCopyExternalRepresentation` gives it: PKCS#1 RSAPublicKey DER.
    func rsaKey(_ group: [String: Any]) throws -> SecKey {
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
        var error: Unmanaged<CFError>?
        let key = SecKeyCreateWithData(Data(hex: group["publicKeyAsn"] as! String) as CFData, attributes as CFDictionary, &error)
        return try XCTUnwrap(key, "\(error.map { $0.takeRetainedValue() } as Any)")
    }

    /// An EC public key as `SecKeyCopyExternalRepresentation` gives it: the X9.63 point 04‖X‖Y.
    func ecKey(_ group: [String: Any]) throws -> SecKey {
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
        var error: Unmanaged<CFError>?
        let point = Data(hex: (group["publicKey"] as! [String: Any])["uncompressed"] as! String)
        let key = SecKeyCreateWithData(point as CFData, attributes as CFDictionary, &error)
        return try XCTUnwrap(key, "\(error.map { $0.takeRetainedValue() } as Any)")
    }

    func testECDSAX962_everyVerdictOnEveryCurve() throws {
        for (file, algorithm, count) in [("ecdsa_secp256r1_sha256_test.json", SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256, 484),
                                         ("ecdsa_secp384r1_sha384_test.json", .ecdsaSignatureMessageX962SHA384, 504),
                                         ("ecdsa_secp521r1_sha512_test.json", .ecdsaSignatureMessageX962SHA512, 542)] {
            let outcomes = try run(file, key: ecKey) { _ in algorithm }
            XCTAssertEqual(outcomes.ran, count, file)
        }
    }

    func testRSAPKCS1v15SHA256_everyVerdictAsWycheproofSays() throws {
        let outcomes = try run("rsa_signature_2048_sha256_test.json", key: rsaKey) { _ in .rsaSignatureMessagePKCS1v15SHA256 }
        XCTAssertEqual(outcomes.ran, 259)
        // tcId 8: a DigestInfo without its NULL parameter (flag MissingNull), acceptable: refused
        // here, as OpenSSL 3 and pyca refuse it (docs/APPLE-MODULES.md).
        XCTAssertEqual(outcomes.refusedAcceptable, [8])
        XCTAssertEqual(outcomes.acceptedAcceptable, [])
    }

    func testRSAPSSSHA256_everyVerdictAsWycheproofSays() throws {
        // Apple's PSS: MGF1 of the message hash, a salt as long as the hash: this file's parameters.
        let outcomes = try run("rsa_pss_2048_sha256_mgf1_32_test.json", key: rsaKey) { group in
            XCTAssertEqual([group["sha"] as? String, group["mgfSha"] as? String], ["SHA-256", "SHA-256"])
            XCTAssertEqual(group["sLen"] as? Int, 32)
            return .rsaSignatureMessagePSSSHA256
        }
        XCTAssertEqual(outcomes.ran, 108)
        XCTAssertEqual(outcomes.acceptedAcceptable + outcomes.refusedAcceptable, [])
    }
}
