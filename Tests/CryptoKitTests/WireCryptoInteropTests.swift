import Foundation
import XCTest
import CryptoKit
import WireCrypto
import TestSupport

/// The CryptoKit module and WireCrypto's CryptoKit-shaped API (what the harness's Swift side uses
/// today) read each other's combined boxes. Both names exist in both modules, so they are qualified.
final class WireCryptoInteropTests: XCTestCase {
    func testCombinedBoxes_crossBothWays() throws {
        let raw = Data((0..<32).map { UInt8($0 * 7 % 256) })
        let appKey = CryptoKit.SymmetricKey(data: raw)
        let wireKey = WireCrypto.SymmetricKey(data: raw)
        let message = Data("sealed by one, opened by the other".utf8)
        let fromApp = try XCTUnwrap(CryptoKit.AES.GCM.seal(message, using: appKey).combined)
        XCTAssertEqual(try WireCrypto.AES.GCM.open(WireCrypto.AES.GCM.SealedBox(combined: fromApp), using: wireKey), message)
        let fromWire = try XCTUnwrap(WireCrypto.AES.GCM.seal(message, using: wireKey).combined)
        XCTAssertEqual(try CryptoKit.AES.GCM.open(CryptoKit.AES.GCM.SealedBox(combined: fromWire), using: appKey), message)
        let chacha = try CryptoKit.ChaChaPoly.seal(message, using: appKey).combined
        XCTAssertEqual(try WireCrypto.ChaChaPoly.open(WireCrypto.ChaChaPoly.SealedBox(combined: chacha), using: wireKey), message)
    }
}
