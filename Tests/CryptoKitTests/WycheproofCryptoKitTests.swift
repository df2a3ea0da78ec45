import Foundation
import XCTest
import CryptoKit
import TestSupport

/// The vendored Wycheproof files through the CryptoKit module as app code calls it: ECDSA
/// (`P256/P384/P521.Signing`, DER and raw signatures), Ed25519 (`Curve25519.Signing`), X25519
/// (`Curve25519.KeyAgreement`), ECDH P-256 with X9.62 points (`P256.KeyAgreement`), and
/// `HKDF<H>.deriveKey(inputKeyMaterial:salt:info:outputByteCount:)`: every valid vector's okm, byte
/// for byte. The invalid vectors ask for more than 255 blocks of output, which CryptoKit does not
/// refuse but stops on (a precondition, as Apple's does: docs/APPLE-MODULES.md); they are counted
/// and checked to be exactly those, never run and never passed.
final class WycheproofCryptoKitTests: XCTestCase {
    func vectors(_ file: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("Vectors/wycheproof/\(file)"))
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let groups = try XCTUnwrap(root["testGroups"] as? [[String: Any]])
        let tests = groups.flatMap { $0["tests"] as! [[String: Any]] }
        XCTAssertEqual(tests.count, root["numberOfTests"] as? Int, file)
        return tests
    }

    func check<H: HashFunction>(_ file: String, _ hash: H.Type, valid: Int) throws {
        var (ran, tooLong) = (0, 0)
        for test in try vectors(file) {
            let (id, size) = (test["tcId"] as! Int, test["size"] as! Int)
            guard test["result"] as? String == "valid" else {
                XCTAssertEqual(test["result"] as? String, "invalid", "tcId \(id)")
                XCTAssertEqual(test["flags"] as? [String], ["SizeTooLarge"], "tcId \(id): the only invalid HKDF vectors ask for too much output")
                XCTAssertGreaterThan(size, 255 * H.Digest.byteCount, "tcId \(id)")
                tooLong += 1
                continue
            }
            let okm = HKDF<H>.deriveKey(inputKeyMaterial: SymmetricKey(data: Data(hex: test["ikm"] as! String)),
                                        salt: Data(hex: test["salt"] as! String), info: Data(hex: test["info"] as! String),
                                        outputByteCount: size)
            XCTAssertEqual(okm.withUnsafeBytes { Data($0) }, Data(hex: test["okm"] as! String), "\(file) tcId \(id)")
            ran += 1
        }
        XCTAssertEqual(ran, valid, file)
        XCTAssertEqual(tooLong, 3, file)
    }

    struct Tally: Equatable { var wrong: [String] = []; var acceptedAcceptable = 0; var refusedAcceptable = 0; var ran = 0 }

    /// Every vector of `file`: `accepts(group, test)` says whether CryptoKit verified it (or
    /// derived the expected bytes: it throws a mismatch as a wrong verdict itself).
    func tally(_ file: String, _ accepts: ([String: Any], [String: Any]) throws -> Bool) throws -> Tally {
        let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("Vectors/wycheproof/\(file)"))
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        var tally = Tally()
        for group in try XCTUnwrap(root["testGroups"] as? [[String: Any]]) {
            for test in try XCTUnwrap(group["tests"] as? [[String: Any]]) {
                let (id, result) = (test["tcId"] as! Int, test["result"] as! String)
                let accepted = try accepts(group, test)
                tally.ran += 1
                switch (result, accepted) {
                case ("valid", false): tally.wrong.append("tcId \(id) valid, refused")
                case ("invalid", true): tally.wrong.append("tcId \(id) invalid, accepted")
                case ("acceptable", true): tally.acceptedAcceptable += 1
                case ("acceptable", false): tally.refusedAcceptable += 1
                default: break
                }
            }
        }
        XCTAssertEqual(tally.ran, root["numberOfTests"] as? Int, file)
        XCTAssertEqual(tally.wrong, [], file)
        return tally
    }

    func hex(_ test: [String: Any], _ field: String) -> Data { Data(hex: test[field] as! String) }

    func testECDSA_everyVerdictOnEveryCurveInBothEncodings() throws {
        func der(_ group: [String: Any]) -> Data { Data(hex: group["publicKeyDer"] as! String) }
        _ = try tally("ecdsa_secp256r1_sha256_test.json") { group, test in
            guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: self.hex(test, "sig")) else { return false }
            return try P256.Signing.PublicKey(derRepresentation: der(group)).isValidSignature(signature, for: self.hex(test, "msg"))
        }
        _ = try tally("ecdsa_secp256r1_sha256_p1363_test.json") { group, test in
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: self.hex(test, "sig")) else { return false }
            return try P256.Signing.PublicKey(derRepresentation: der(group)).isValidSignature(signature, for: self.hex(test, "msg"))
        }
        _ = try tally("ecdsa_secp384r1_sha384_test.json") { group, test in
            guard let signature = try? P384.Signing.ECDSASignature(derRepresentation: self.hex(test, "sig")) else { return false }
            return try P384.Signing.PublicKey(derRepresentation: der(group)).isValidSignature(signature, for: self.hex(test, "msg"))
        }
        _ = try tally("ecdsa_secp384r1_sha384_p1363_test.json") { group, test in
            guard let signature = try? P384.Signing.ECDSASignature(rawRepresentation: self.hex(test, "sig")) else { return false }
            return try P384.Signing.PublicKey(derRepresentation: der(group)).isValidSignature(signature, for: self.hex(test, "msg"))
        }
        _ = try tally("ecdsa_secp521r1_sha512_test.json") { group, test in
            guard let signature = try? P521.Signing.ECDSASignature(derRepresentation: self.hex(test, "sig")) else { return false }
            return try P521.Signing.PublicKey(derRepresentation: der(group)).isValidSignature(signature, for: self.hex(test, "msg"))
        }
        _ = try tally("ecdsa_secp521r1_sha512_p1363_test.json") { group, test in
            guard let signature = try? P521.Signing.ECDSASignature(rawRepresentation: self.hex(test, "sig")) else { return false }
            return try P521.Signing.PublicKey(derRepresentation: der(group)).isValidSignature(signature, for: self.hex(test, "msg"))
        }
    }

    func testEd25519_everyVerdict() throws {
        let tally = try tally("ed25519_test.json") { group, test in
            let key = try Curve25519.Signing.PublicKey(rawRepresentation: Data(hex: (group["publicKey"] as! [String: Any])["pk"] as! String))
            return key.isValidSignature(self.hex(test, "sig"), for: self.hex(test, "msg"))
        }
        XCTAssertEqual(tally.ran, 151)
    }

    /// A secret CryptoKit derives must be the vector's; a refusal is `false`.
    func agreed(_ derive: () throws -> SharedSecret, _ test: [String: Any]) throws -> Bool {
        guard let secret = try? derive() else { return false }
        let bytes = secret.withUnsafeBytes { Data($0) }
        XCTAssertEqual(bytes, hex(test, "shared"), "tcId \(test["tcId"]!): a secret other than the vector's")
        return true
    }

    func testX25519_everyVerdict_allZeroSecretsRefused() throws {
        let tally = try tally("x25519_test.json") { _, test in
            try self.agreed({
                try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: self.hex(test, "private"))
                    .sharedSecretFromKeyAgreement(with: Curve25519.KeyAgreement.PublicKey(rawRepresentation: self.hex(test, "public")))
            }, test)
        }
        // The 31 acceptable vectors with an all-zero secret (low-order public keys) are refused.
        XCTAssertEqual([tally.acceptedAcceptable, tally.refusedAcceptable], [223, 31])
    }

    func testECDHP256WithX962Points_everyVerdict() throws {
        let tally = try tally("ecdh_secp256r1_ecpoint_test.json") { _, test in
            try self.agreed({
                let scalar = self.hex(test, "private").drop { $0 == 0 }
                let ours = try P256.KeyAgreement.PrivateKey(rawRepresentation: Data(count: max(0, 32 - scalar.count)) + scalar)
                let point = self.hex(test, "public")
                let theirs = try point.first == 0x04 ? P256.KeyAgreement.PublicKey(x963Representation: point)
                                                     : P256.KeyAgreement.PublicKey(compressedRepresentation: point)
                return try ours.sharedSecretFromKeyAgreement(with: theirs)
            }, test)
        }
        XCTAssertEqual(tally.ran, 355)
    }

    func testHKDF_everyValidVectorOfEveryHash() throws {
        try check("hkdf_sha1_test.json", Insecure.SHA1.self, valid: 84)
        try check("hkdf_sha256_test.json", SHA256.self, valid: 83)
        try check("hkdf_sha384_test.json", SHA384.self, valid: 80)
        try check("hkdf_sha512_test.json", SHA512.self, valid: 80)
    }
}
