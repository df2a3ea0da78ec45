import Foundation

// The accessibility classes Apple's SDK still declares, and how each reads in a key-storage audit.
// kSecAttrAccessibleAlways and kSecAttrAccessibleAlwaysThisDeviceOnly were deprecated in iOS 12
// (macOS 10.14) with the message below, yet older apps still use them: they compile here, with
// the same deprecation warning, so such an app builds and its audit can say what it asked for.
// crosscheck's own code never names them (it reads their values, "dk" and "dku").

@available(*, deprecated, message: "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlock")
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = "dk"
@available(*, deprecated, message: "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly")
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"

/// Apple's names for the accessibility values, by value (the deprecated two included).
enum AccessibilityName {
    static let byValue: [String: String] = [
        kSecAttrAccessibleWhenUnlocked as String: "kSecAttrAccessibleWhenUnlocked",
        kSecAttrAccessibleAfterFirstUnlock as String: "kSecAttrAccessibleAfterFirstUnlock",
        "dk": "kSecAttrAccessibleAlways",
        kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String: "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly",
        kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String: "kSecAttrAccessibleWhenUnlockedThisDeviceOnly",
        kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String: "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly",
        "dku": "kSecAttrAccessibleAlwaysThisDeviceOnly",
    ]
}
