import Foundation

/// The iOS version whose behaviour the Apple modules give where iOS versions differ (today: RSA
/// PKCS#1 v1.5 decryption's implicit rejection, from iOS 17.4). An app's process gets it from the
/// environment variable CROSSCHECK_IOS_VERSION, which `crosscheck run --ios VERSION` sets, as
/// `--app-user` sets the simulated user (SecAccessControl.swift); tests use `TargetIOS.with(_:_:)`.
///
/// The default is iOS 26, the current release line (iOS 26, September 2025, follows iOS 18: Apple
/// numbers releases by year from then on), the SDK App Store uploads must be built with from April
/// 2026. Every behaviour this module models is the same on iOS 18 and 26.
public struct TargetIOS: Comparable, CustomStringConvertible, Sendable {
    public let major: Int
    public let minor: Int

    public init(major: Int, minor: Int = 0) { self.major = major; self.minor = minor }

    /// "17", "17.4", "17.4.1" (the patch is ignored); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let major = Int(parts[0]), (2...99).contains(major) else { return nil }
        self.major = major
        self.minor = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
    }

    public static func < (lhs: TargetIOS, rhs: TargetIOS) -> Bool { (lhs.major, lhs.minor) < (rhs.major, rhs.minor) }
    public var description: String { minor == 0 ? "\(major)" : "\(major).\(minor)" }

    /// The environment variable that carries `--ios` into an app's process.
    public static let environmentVariable = "CROSSCHECK_IOS_VERSION"
    /// iOS 26 (see the type's comment for why).
    public static let defaultVersion = TargetIOS(major: 26)
    /// iOS 17.4: SecKeyAdaptors.m's PKCS#1 v1.5 decryption uses corecrypto's
    /// `ccrsa_eme_pkcs1v15_decode_safe` (implicit rejection) from this release.
    public static let implicitRejection = TargetIOS(major: 17, minor: 4)

    @TaskLocal static var override: TargetIOS?

    /// The target now: a `with` override, else the environment's (an unreadable value is the
    /// default: `crosscheck run` refuses one before any app starts), else iOS 26.
    public static var current: TargetIOS {
        override ?? ProcessInfo.processInfo.environment[environmentVariable].flatMap(TargetIOS.init) ?? defaultVersion
    }

    /// Runs `body` as on iOS `version` (tests).
    public static func with<R>(_ version: TargetIOS, _ body: () throws -> R) rethrows -> R {
        try $override.withValue(version) { try body() }
    }
}
