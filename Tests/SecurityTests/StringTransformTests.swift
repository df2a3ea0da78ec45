import XCTest
import AppleImplicitImports

/// `applyingTransform(_:reverse:)` and `StringTransform` as app code sees them through
/// AppleImplicitImports (what `import Foundation` brings on iOS): every one of Apple's 16 constants
/// on a `String`, a `Substring` and through generic `StringProtocol` code, and NSMutableString's
/// in-place form. The answers are ICU's transliterators (the CLDR rules iOS's Foundation runs too):
/// Hepburn kana, Hanyu Pinyin with tone marks, the scripts' Latin transliterations.
final class StringTransformTests: XCTestCase {
    private func generic<S: StringProtocol>(_ text: S, _ transform: StringTransform, reverse: Bool = false) -> String? {
        text.applyingTransform(transform, reverse: reverse)
    }

    func testAppleConstants_forwardAndReverse() {
        let cases: [(String, StringTransform, Bool, String)] = [
            ("Москва", .toLatin, false, "Moskva"),
            ("ありがとう", .toLatin, false, "arigatou"),
            ("北京", .mandarinToLatin, false, "běi jīng"),
            ("sushi", .latinToHiragana, false, "すし"),
            ("sushi", .latinToKatakana, false, "スシ"),
            ("すし", .hiraganaToKatakana, false, "スシ"),
            ("スシ", .hiraganaToKatakana, true, "すし"),
            ("moskva", .latinToCyrillic, false, "москва"),
            ("seoul", .latinToHangul, false, "서울"),
            ("athina", .latinToGreek, false, "ἀθινα"),
            ("Αθήνα", .latinToGreek, true, "Athḗna"),
            ("salam", .latinToArabic, false, "سَلَم"),
            ("sawatdi", .latinToThai, false, "ซะวะตดิ"),
            ("ＡＢＣ１２３", .fullwidthToHalfwidth, false, "ABC123"),
            ("ABC123", .fullwidthToHalfwidth, true, "ＡＢＣ１２３"),
            ("café ☕", .toXMLHex, false, "caf&#xE9; &#x2615;"),
            ("&#xE9;", .toXMLHex, true, "é"),
            ("é☕", .toUnicodeName, false, "\\N{LATIN SMALL LETTER E WITH ACUTE}\\N{HOT BEVERAGE}"),
            ("\\N{HOT BEVERAGE}", .toUnicodeName, true, "☕"),
            ("Crème Brûlée", .stripDiacritics, false, "Creme Brulee"),
            ("Crème Brûlée", .stripCombiningMarks, false, "Creme Brulee"),
        ]
        for (text, transform, reverse, expected) in cases {
            XCTAssertEqual(text.applyingTransform(transform, reverse: reverse), expected, "\(text) \(transform) reverse: \(reverse)")
            XCTAssertEqual(("«" + text + "»").dropFirst().dropLast().applyingTransform(transform, reverse: reverse), expected, "Substring \(text)")
            XCTAssertEqual(generic(text, transform, reverse: reverse), expected, "StringProtocol \(text)")
        }
        // Latin-Hebrew has no Apple example to match; it must at least give Hebrew letters.
        let hebrew = "shalom".applyingTransform(.latinToHebrew, reverse: false) ?? ""
        XCTAssertTrue(hebrew.unicodeScalars.contains { (0x05D0...0x05EA).contains($0.value) }, hebrew)
    }

    /// Any ICU transform ID works, as Apple documents for StringTransform(_:); an unknown one is nil.
    func testICUIdentifiers_andUnknownOnes() {
        XCTAssertEqual("Ǆemal".applyingTransform(StringTransform("Any-Lower"), reverse: false), "ǆemal")
        XCTAssertEqual("é".applyingTransform(StringTransform("Any-Hex/Java"), reverse: false), "\\u00E9")
        XCTAssertEqual("beta"[...].applyingTransform(StringTransform(rawValue: "Latin-Greek"), reverse: false), "βετα")
        XCTAssertNil("x".applyingTransform(StringTransform("No-Such-Transform"), reverse: false))
        XCTAssertNil("x"[...].applyingTransform(StringTransform("No-Such-Transform"), reverse: false))
    }

    /// In place over a range, with the range it covers afterwards; the rest of the string untouched;
    /// an unknown transform is false and changes nothing.
    func testMutableStringApplyTransform_inPlaceOverARange() {
        let text = NSMutableString(string: "naïve café")
        var updated = NSRange()
        XCTAssertTrue(text.applyTransform(.stripDiacritics, reverse: false, range: NSRange(location: 6, length: 4), updatedRange: &updated))
        XCTAssertEqual(text as String, "naïve cafe")
        XCTAssertEqual(updated, NSRange(location: 6, length: 4))
        XCTAssertTrue(text.applyTransform(.toUnicodeName, reverse: false, range: NSRange(location: 2, length: 1), updatedRange: &updated))
        XCTAssertEqual(text as String, "na\\N{LATIN SMALL LETTER I WITH DIAERESIS}ve cafe")
        XCTAssertEqual(updated, NSRange(location: 2, length: 39))  // "\N{", the 35-letter name, "}"
        XCTAssertTrue(text.applyTransform(.toUnicodeName, reverse: true, range: NSRange(location: 0, length: text.length), updatedRange: nil))
        XCTAssertEqual(text as String, "naïve cafe")
        XCTAssertFalse(text.applyTransform(StringTransform("No-Such-Transform"), reverse: false, range: NSRange(location: 0, length: 2), updatedRange: &updated))
        XCTAssertEqual(text as String, "naïve cafe")
    }
}
