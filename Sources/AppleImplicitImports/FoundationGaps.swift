// Names iOS's Foundation has and swift-corelibs-foundation (Foundation on Linux) lacks, that real app
// crypto code uses (docs/APPLE-MODULES.md, "Foundation's gaps"): hex-formatting a digest the
// Objective-C way, Objective-C's integer names, a Cocoa error code. Each behaves as Apple documents it.
import Foundation

extension NSMutableString {
    /// Appends `format` filled with `args` (printf-style, as `String(format:)`), as on iOS.
    public func appendFormat(_ format: NSString, _ args: any CVarArg...) {
        append(String(format: format as String, arguments: args))
    }
}

/// iOS's `NSMutableString()`: an empty mutable string. Corelibs has only `init(capacity:)`, and an
/// extension cannot add `init()` (NSString declares one that NSMutableString does not inherit), so
/// the call is a function of that name; `NSMutableString(string:)` and the rest stay the type's.
public func NSMutableString() -> Foundation.NSMutableString { Foundation.NSMutableString(capacity: 0) }

/// Objective-C's integer types, as Swift imports them on Apple's 64-bit platforms.
public typealias NSInteger = Int
public typealias NSUInteger = UInt

/// The last of NSCocoaErrorDomain's validation codes (Apple's FoundationErrors.h: 1024…2047).
public let NSValidationErrorMaximum: Int = 2047
public let NSValidationErrorMinimum: Int = 1024
