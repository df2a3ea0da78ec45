import XCTest
import AppleImplicitImports

/// What AppleImplicitImports adds where Foundation on Linux lacks iOS's names (FoundationGaps.swift).
final class FoundationGapsTests: XCTestCase {
    func testDigestHexTheObjectiveCWay_asOnIOS() {
        let digest: [CUnsignedChar] = [0x00, 0xab, 0x10, 0xff]
        let hash = NSMutableString()
        XCTAssertEqual(hash.length, 0)
        for byte in digest { hash.appendFormat("%02hhx", byte) }
        XCTAssertEqual(hash as String, "00ab10ff")
        hash.appendFormat("-%@-%d", "x" as NSString, 42)
        XCTAssertEqual(hash as String, "00ab10ff-x-42")
        // The type's own initialisers are untouched.
        XCTAssertEqual(NSMutableString(string: "abc") as String, "abc")
    }

    func testObjectiveCIntegerNamesAndCocoaValidationCodes() {
        let count: NSInteger = -3
        let size: NSUInteger = 3
        XCTAssertEqual(count, Int(-3))
        XCTAssertEqual(size, UInt(3))
        XCTAssertEqual(NSValidationErrorMinimum, 1024)
        XCTAssertEqual(NSValidationErrorMaximum, 2047)
    }
}
