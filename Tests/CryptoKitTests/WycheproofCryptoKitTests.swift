import Foundation
import XCTest
import CryptoKit
import TestSupport

/// The vendored Wycheproof HKDF files through the CryptoKit module as app code calls it,
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

    func testHKDF_everyValidVectorOfEveryHash() throws {
        try check("hkdf_sha1_test.json", Insecure.SHA1.self, valid: 84)
        try check("hkdf_sha256_test.json", SHA256.self, valid: 83)
        try check("hkdf_sha384_test.json", SHA384.self, valid: 80)
        try check("hkdf_sha512_test.json", SHA512.self, valid: 80)
    }
}
