import Foundation

/// Descriptions both engines' tests read (Tests/Descriptions/NAME.toml), so the Swift and PythonRef
/// tests of a format feature hold one text.
enum DescriptionFixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Descriptions")

    /// NAME.toml's text. A file that cannot be read is said on stderr, and gives a text no
    /// description parses, so every test that uses it fails (none is skipped).
    static func text(_ name: String) -> String {
        let file = folder.appendingPathComponent(name + ".toml")
        do {
            return try String(contentsOf: file, encoding: .utf8)
        } catch {
            FileHandle.standardError.write(Data("DescriptionFixture: \(file.path) cannot be read: \(error)\n".utf8))
            return "the fixture \(file.path) cannot be read"
        }
    }
}

import XCTest
@testable import WireProtocol

extension XCTestCase {
    /// For each (old, new, words): `fixture` with `old` replaced by `new` (which must change it) is
    /// refused, and the error says `words`.
    func assertRefused(_ fixture: String, _ cases: [(old: String, new: String, words: String)], file: StaticString = #filePath, line: UInt = #line) {
        for (old, new, words) in cases {
            let text = fixture.replacingOccurrences(of: old, with: new)
            XCTAssertNotEqual(text, fixture, "not in the fixture: \(old)", file: file, line: line)
            XCTAssertThrowsError(try ProtocolDescription(toml: text), new, file: file, line: line) { error in
                XCTAssertTrue("\(error)".contains(words), "\(new): \(error)", file: file, line: line)
            }
        }
    }
}
