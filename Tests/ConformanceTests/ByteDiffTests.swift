import Foundation
import XCTest
import Conformance

/// ByteDiff: where two byte strings differ, shown so a reader finds it without counting bytes.
final class ByteDiffTests: XCTestCase {

    func testLastByteOfALongEnvelope_isFoundAndCountedAsOne() {
        var expected = Data((0..<65552).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        var actual = expected
        actual[65551] ^= 0x01
        let diff = ByteDiff(expected: expected, actual: actual)
        XCTAssertEqual(diff.firstDifference, 65551)
        XCTAssertEqual(diff.lastDifference, 65551)
        XCTAssertEqual(diff.differingBytes, 1)
        XCTAssertEqual(diff.windowStart, 65535)
        XCTAssertEqual(diff.expectedWindow, [UInt8](expected[65535...]))
        XCTAssertEqual(diff.actualWindow, [UInt8](actual[65535...]))
        let lines = diff.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "byte diff: 1 of 65552 bytes differ (first at offset 65551, last at offset 65551); expected 65552 bytes, actual 65552 bytes")
        let row = expected[65535..<65551].map { String(format: "%02x", $0) }.joined(separator: " ")
        XCTAssertEqual(lines[1], "  expected @65535  " + row)
        XCTAssertEqual(lines[2], "  actual   @65535  " + row)
        XCTAssertEqual(lines[3], "  expected @65551  " + String(format: "%02x", expected[65551]))
        XCTAssertEqual(lines[4], "  actual   @65551  " + String(format: "%02x", actual[65551]))
        XCTAssertEqual(lines[5], "                   ^^")
        XCTAssertEqual(lines.count, 6)
        expected[0] = 0  // the value is a copy: the diff does not change with the data
        XCTAssertEqual(diff.firstDifference, 65551)
    }

    func testShorterActual_missingBytesShowAsDashesAndCount() {
        let expected = Data(Array(0..<40).map(UInt8.init))
        let actual = Data(Array(0..<20).map(UInt8.init))
        let diff = ByteDiff(expected: expected, actual: actual)
        XCTAssertEqual(diff.firstDifference, 20)
        XCTAssertEqual(diff.lastDifference, 39)
        XCTAssertEqual(diff.differingBytes, 20)
        XCTAssertEqual(diff.windowStart, 4)
        XCTAssertEqual(diff.windowLength, 32)
        let text = diff.text
        XCTAssertTrue(text.hasPrefix("byte diff: 20 of 40 bytes differ (first at offset 20, last at offset 39); expected 40 bytes, actual 20 bytes\n"), text)
        XCTAssertTrue(text.contains("\n  expected @20  14 15 16 17 18 19 1a 1b 1c 1d 1e 1f 20 21 22 23\n"), text)
        XCTAssertTrue(text.contains("\n  actual   @20  -- -- -- -- -- -- -- -- -- -- -- -- -- -- -- --\n"), text)
        XCTAssertTrue(text.contains("\n  expected @4   04 05"), "offsets are padded to one width: \(text)")
    }

    func testDifferenceAtTheStart_hasNoContextRowAndMarksOnlyDifferingBytes() {
        let diff = ByteDiff(expected: Data([1, 2, 3, 4]), actual: Data([9, 2, 8, 4]))
        XCTAssertEqual(diff.firstDifference, 0)
        XCTAssertEqual(diff.lastDifference, 2)
        XCTAssertEqual(diff.differingBytes, 2)
        XCTAssertEqual(diff.text, """
            byte diff: 2 of 4 bytes differ (first at offset 0, last at offset 2); expected 4 bytes, actual 4 bytes
              expected @0  01 02 03 04
              actual   @0  09 02 08 04
                           ^^    ^^
            """)
    }

    func testEqualAndEmptyInputs() {
        let equal = ByteDiff(expected: Data([1, 2]), actual: Data([1, 2]))
        XCTAssertTrue(equal.isEqual)
        XCTAssertNil(equal.firstDifference)
        XCTAssertEqual(equal.differingBytes, 0)
        XCTAssertEqual(equal.text, "byte diff: the 2 bytes are equal")
        let fromEmpty = ByteDiff(expected: Data(), actual: Data([0xAB]))
        XCTAssertEqual(fromEmpty.firstDifference, 0)
        XCTAssertEqual(fromEmpty.differingBytes, 1)
        XCTAssertTrue(fromEmpty.text.contains("  expected @0  --\n  actual   @0  ab\n"), fromEmpty.text)
    }

    func testExpectEqualBytes_messageCountsDifferingBytesAndBodyStartsWithTheDiff() {
        var actual = Data(repeating: 0x41, count: 65552)
        actual[65551] = 0x42
        XCTAssertThrowsError(try Expect.equalBytes(actual, Data(repeating: 0x41, count: 65552), "envelope")) { error in
            guard let failure = error as? CheckFailure else { return XCTFail("\(error)") }
            XCTAssertEqual(failure.message, "envelope: 1 of 65552 bytes differ (first at offset 65551, last at offset 65551); expected 65552 bytes, actual 65552 bytes")
            XCTAssertTrue(failure.details.hasPrefix("byte diff: 1 of 65552 bytes differ"), failure.details)
            XCTAssertTrue(failure.details.contains("  actual   @65551  42\n"), failure.details)
            XCTAssertTrue(failure.details.contains("\nexpected: 65552 bytes 4141"), "the start of each side follows")
        }
    }
}
