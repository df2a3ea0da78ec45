import Foundation
import XCTest
@testable import AppChecks

/// `declared-flags` compares what the flags mean (Apple's SecAccessControlCreateFlags), not their
/// names: `.userPresence` is biometry or passcode; an added `.or devicePasscode` weakens a
/// biometry-only item; a stronger stored item (biometryCurrentSet for biometryAny) is fine.
final class DeclaredFlagsMeaningTests: XCTestCase {
    func weakening(_ declared: String, _ stored: String) -> String? {
        AccessControlAudit.weakening(declared: declared.split(separator: "|").map(String.init), stored: stored.split(separator: "|").map(String.init))
    }

    func testUserPresenceIsBiometryOrPasscode_bothWays() {
        XCTAssertNil(weakening("userPresence", "biometryAny|devicePasscode|or"))
        XCTAssertNil(weakening("biometryAny|devicePasscode|or", "userPresence"))
    }

    func testAnAddedOrDevicePasscodeWeakens() {
        let text = weakening("biometryAny", "biometryAny|devicePasscode|or")
        XCTAssertEqual(text, "it opens with devicePasscode, which the declared flags do not allow")
        XCTAssertNotNil(weakening("biometryCurrentSet", "userPresence"))
        XCTAssertNotNil(weakening("biometryAny|devicePasscode", "biometryAny|devicePasscode|or"), "and → or weakens")
    }

    func testStrongerStoredFlagsPass() {
        XCTAssertNil(weakening("biometryAny", "biometryCurrentSet"))
        XCTAssertNil(weakening("userPresence", "biometryCurrentSet|devicePasscode|or"))
        XCTAssertNil(weakening("biometryAny|devicePasscode|or", "biometryAny|devicePasscode"), "or → and strengthens")
    }

    func testOtherFlagsAreComparedByName() {
        XCTAssertEqual(weakening("privateKeyUsage|biometryAny", "biometryAny"), "privateKeyUsage missing")
        XCTAssertEqual(weakening("devicePasscode", ""), "it opens with no authentication at all, which the declared flags do not allow")
    }
}
