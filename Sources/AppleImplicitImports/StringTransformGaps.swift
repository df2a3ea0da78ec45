// Foundation's ICU string transforms (`applyingTransform(_:reverse:)`, `StringTransform`) where
// Foundation on Linux falls short of iOS's (docs/APPLE-MODULES.md, "Foundation's gaps").
//
// swift-corelibs-foundation in Swift 6 toolchains has `String.applyingTransform(_:reverse:)`,
// `NSString.applyingTransform(_:reverse:)` and 15 of Apple's 16 `StringTransform` constants, over
// its CoreFoundation's `CFStringTransform` (the code Apple's CF has, mapping each constant to an ICU
// transform ID) and the toolchain's own ICU (`_FoundationICU`, lib_FoundationICU.so): so the
// transforms themselves are ICU's on both platforms and nothing here re-implements them. What it
// lacks, as Apple declares it (developer.apple.com/documentation/foundation/stringtransform and
// /documentation/swift/stringprotocol/applyingtransform(_:reverse:), iOS 9.0+, macOS 10.11+):
// - `StringTransform.latinToGreek` (NSStringTransformLatinToGreek);
// - `applyingTransform` on every `StringProtocol` (a `Substring`, a generic string), not only `String`;
// - `NSMutableString.applyTransform(_:reverse:range:updatedRange:)` taking a `StringTransform`
//   (Linux's takes a `String`, and with a range it drops the characters it should strip:
//   "naïve café" with `.stripDiacritics` becomes "nave caf").
import Foundation

extension StringTransform {
    /// Latin to Greek script (ICU's "Latin-Greek"), as iOS's `StringTransform.latinToGreek`.
    @available(iOS, introduced: 9.0)
    @available(macOS, introduced: 10.11)
    public static let latinToGreek = StringTransform("Latin-Greek")
}

extension StringProtocol {
    /// The string transformed by `transform` (reversed when `reverse`), or nil when the transform
    /// does not exist or fails, as `String.applyingTransform`: iOS declares it on `StringProtocol`.
    /// (For a `String`, Foundation's own method is the one called: a concrete type's member wins.)
    @available(iOS, introduced: 9.0)
    @available(macOS, introduced: 10.11)
    public func applyingTransform(_ transform: StringTransform, reverse: Bool) -> String? {
        NSString(string: String(self)).applyingTransform(transform, reverse: reverse)
    }
}

extension NSMutableString {
    /// Transforms the characters in `range` in place; `resultingRange` gets the range they cover
    /// afterwards. False (and the string unchanged) when the transform does not exist or fails.
    @available(iOS, introduced: 9.0)
    @available(macOS, introduced: 10.11)
    public func applyTransform(_ transform: StringTransform, reverse: Bool, range: NSRange,
                               updatedRange resultingRange: NSRangePointer?) -> Bool {
        guard let transformed = NSString(string: substring(with: range)).applyingTransform(transform, reverse: reverse) else { return false }
        replaceCharacters(in: range, with: transformed)
        resultingRange?.pointee = NSRange(location: range.location, length: NSString(string: transformed).length)
        return true
    }
}
