import Foundation
import XCTest
import TestSupport

/// One Wycheproof AEAD test (Vectors/wycheproof, Apache-2.0, google/wycheproof v0.9rc5).
struct WycheproofAEADCase {
    let tcId: Int, key: Data, iv: Data, aad: Data, msg: Data, ct: Data, tag: Data, valid: Bool, tagBits: Int
}

func loadWycheproofAEAD(_ file: String) throws -> [WycheproofAEADCase] {
    let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("Vectors/wycheproof/\(file)"))
    let root = try JSONSerialization.jsonObject(with: data) as! [String: Any]
    var cases: [WycheproofAEADCase] = []
    for group in root["testGroups"] as! [[String: Any]] {
        let tagBits = group["tagSize"] as! Int
        for test in group["tests"] as! [[String: Any]] {
            cases.append(WycheproofAEADCase(
                tcId: test["tcId"] as! Int, key: Data(hex: test["key"] as! String), iv: Data(hex: test["iv"] as! String),
                aad: Data(hex: test["aad"] as! String), msg: Data(hex: test["msg"] as! String),
                ct: Data(hex: test["ct"] as! String), tag: Data(hex: test["tag"] as! String),
                valid: (test["result"] as! String) != "invalid", tagBits: tagBits))
        }
    }
    return cases
}
