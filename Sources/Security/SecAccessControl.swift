import Foundation

// Access control (SecAccessControl.h): keychain items and keys bound to the device passcode, to
// biometry, or to "the user is present". There is no user, passcode or biometry here: a simulated
// user (`SimulatedUser`, set by `crosscheck run --app-user present|absent|cancel` through the app's
// environment) answers every prompt a device would show, so an app's success and failure paths can
// both be exercised. Flag values are Apple's (SecAccessControl.h); the conflict rule for
// kSecAttrAccessible with kSecAttrAccessControl is securityd's (`query_set_access_control`:
// "conflicting kSecAccess and kSecAccessControl attributes", errSecParam).

public typealias CFOptionFlags = UInt

/// Constraints and options for SecAccessControlCreateWithFlags, with Apple's raw values.
public struct SecAccessControlCreateFlags: OptionSet, Hashable, Sendable {
    public let rawValue: CFOptionFlags
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    /// Biometry or the passcode.
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    /// Touch ID with any enrolled finger, or Face ID.
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    @available(*, deprecated, renamed: "biometryAny")
    public static let touchIDAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// Biometry of the fingers/face enrolled when the item was made.
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    @available(*, deprecated, renamed: "biometryCurrentSet")
    public static let touchIDCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// The device passcode.
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    /// A paired watch (macOS; renamed `companion` in the iOS 18 SDKs).
    public static let watch = SecAccessControlCreateFlags(rawValue: 1 << 5)
    public static let companion = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// At least one constraint must be satisfied.
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    /// Every constraint must be satisfied.
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    /// A Secure Enclave private key may sign and agree keys.
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    /// An application-supplied password is mixed into the item's key (LAContext.setCredential).
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)

    /// Every flag Apple declares, with the name an audit shows (aliases once).
    static let names: [(SecAccessControlCreateFlags, String)] = [
        (.userPresence, "userPresence"), (.biometryAny, "biometryAny"), (.biometryCurrentSet, "biometryCurrentSet"),
        (.devicePasscode, "devicePasscode"), (.companion, "watch"), (.or, "or"), (.and, "and"),
        (.privateKeyUsage, "privateKeyUsage"), (.applicationPassword, "applicationPassword"),
    ]

    /// The constraints that ask the user (biometry, passcode, presence, a watch).
    static let userConstraints: SecAccessControlCreateFlags = [.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .companion]
    static let known = names.reduce(SecAccessControlCreateFlags()) { $0.union($1.0) }

    /// "userPresence|privateKeyUsage", or "none".
    var text: String {
        let parts = Self.names.filter { contains($0.0) }.map(\.1)
        return parts.isEmpty ? "none" : parts.joined(separator: "|")
    }
}

/// An access control: a protection class (a kSecAttrAccessible value) and constraints.
public final class SecAccessControl: Hashable, CustomStringConvertible, @unchecked Sendable {
    /// The kSecAttrAccessible value.
    let protection: String
    let flags: SecAccessControlCreateFlags

    init(protection: String, flags: SecAccessControlCreateFlags) { self.protection = protection; self.flags = flags }

    /// True when reading the item (or using the key) asks the user.
    var asksUser: Bool { !flags.intersection(.userConstraints).isEmpty || flags.contains(.applicationPassword) }

    /// How an audit names it: "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, userPresence|privateKeyUsage".
    var auditText: String { "\(AccessibilityName.byValue[protection] ?? protection), \(flags.text)" }

    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool { lhs.protection == rhs.protection && lhs.flags == rhs.flags }
    public func hash(into hasher: inout Hasher) { hasher.combine(protection); hasher.combine(flags) }
    public var description: String { "<SecAccessControlRef: \(protection);\(flags.text)>" }
}

public func SecAccessControlGetTypeID() -> CFTypeID { TypeIDs.accessControl }

extension TypeIDs {
    static let accessControl: CFTypeID = 304
    static let identity: CFTypeID = 305
}

/// Makes an access control: `protection` must be one of the kSecAttrAccessible values and at most
/// one of `.or`/`.and` may be given (errSecParam otherwise, as Apple's SecAccessControl.c); flags
/// Apple does not declare are errSecParam too.
@discardableResult
public func SecAccessControlCreateWithFlags(_ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
                                            _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecAccessControl? {
    guard let value = stringAttribute(protection), AccessibilityName.byValue[value] != nil else {
        report(errSecParam, "SecAccessControlCreateWithFlags: protection \(protection) is not a kSecAttrAccessible value", to: error)
        return nil
    }
    guard flags.isSubset(of: .known) else {
        report(errSecParam, "SecAccessControlCreateWithFlags: unknown flags 0x\(String(flags.subtracting(.known).rawValue, radix: 16))", to: error)
        return nil
    }
    guard !(flags.contains(.or) && flags.contains(.and)) else {
        report(errSecParam, "SecAccessControlCreateWithFlags: only one logical operation can be set (.or or .and)", to: error)
        return nil
    }
    return SecAccessControl(protection: value, flags: flags)
}

nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "accc"
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
nonisolated(unsafe) public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
nonisolated(unsafe) public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
nonisolated(unsafe) public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
@available(*, deprecated, message: "Use kSecUseAuthenticationUI instead.")
nonisolated(unsafe) public let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"

// MARK: - The simulated user

/// Who answers the prompts a device shows for access-controlled items and keys: biometry, the
/// passcode, "confirm it's you". `present` authenticates, `cancel` taps Cancel
/// (errSecUserCanceled), `absent` fails to authenticate (errSecAuthFailed). An app's process gets
/// it from the environment variable CROSSCHECK_APP_USER, which `crosscheck run --app-user` sets.
public enum SimulatedUser: String, CaseIterable, Sendable {
    case present, absent, cancel

    /// The environment variable that carries the choice into an app's process.
    public static let environmentVariable = "CROSSCHECK_APP_USER"

    @TaskLocal static var override: SimulatedUser?

    /// The user answering now: a `with` override, else the environment's, else present.
    public static var current: SimulatedUser {
        override ?? ProcessInfo.processInfo.environment[environmentVariable].flatMap(SimulatedUser.init(rawValue:)) ?? .present
    }

    /// Runs `body` with `user` answering the prompts (tests).
    public static func with<R>(_ user: SimulatedUser, _ body: () throws -> R) rethrows -> R {
        try $override.withValue(user) { try body() }
    }

    /// Runs `body` with `user` answering the prompts, across its awaits (tests of async APIs).
    public static func with<R: Sendable>(_ user: SimulatedUser, _ body: () async throws -> R) async rethrows -> R {
        try await $override.withValue(user) { try await body() }
    }

    /// What the prompt ends in: nil when the user authenticated.
    var failure: SecFailure? {
        switch self {
        case .present: return nil
        case .cancel: return SecFailure(errSecUserCanceled, "the user canceled the authentication prompt (simulated user: cancel)")
        case .absent: return SecFailure(errSecAuthFailed, "authentication failed: no enrolled biometry or passcode matched (simulated user: absent)")
        }
    }
}

/// Whether an operation on something protected by `control` may go ahead, given the query's
/// kSecUseAuthenticationUI: nil to go ahead; errSecInteractionNotAllowed when the query forbids a
/// prompt (kSecUseAuthenticationUIFail, kSecUseNoAuthenticationUI); else the simulated user's answer.
func authorize(_ control: SecAccessControl?, query: [String: Any] = [:]) -> SecFailure? {
    guard let control, control.asksUser else { return nil }
    if promptForbidden(query) {
        return SecFailure(errSecInteractionNotAllowed, "authentication is needed and the query forbids the prompt (kSecUseAuthenticationUIFail)")
    }
    if let context = query[kSecUseAuthenticationContext as String] as? SecAuthenticationContext {
        if context.isAuthenticated { return nil }
        if context.interactionNotAllowed {
            return SecFailure(errSecInteractionNotAllowed, "authentication is needed and the LAContext in kSecUseAuthenticationContext has interactionNotAllowed")
        }
    }
    return SimulatedUser.current.failure
}

/// What Security reads from the object an app passes as kSecUseAuthenticationContext (an
/// LAContext: LocalAuthentication's LAContext adopts this; Security cannot import it, as on iOS).
public protocol SecAuthenticationContext: AnyObject {
    /// The app's `interactionNotAllowed`: a prompt is an error instead.
    var interactionNotAllowed: Bool { get }
    /// The context authenticated the user within the reuse window the app allowed: no new prompt.
    var isAuthenticated: Bool { get }
}

func promptForbidden(_ query: [String: Any]) -> Bool {
    stringAttribute(query[kSecUseAuthenticationUI as String]) == kSecUseAuthenticationUIFail as String
        || boolAttribute(query["u_NoAuthUI"])
}

func promptSkipped(_ query: [String: Any]) -> Bool {
    stringAttribute(query[kSecUseAuthenticationUI as String]) == kSecUseAuthenticationUISkip as String
}

/// The access control of a key (kSecAttrAccessControl among the attributes it was made or stored with).
func accessControl(of key: SecKey) -> SecAccessControl? { key.extraAttributes[kSecAttrAccessControl as String] as? SecAccessControl }

/// Using a private key with access control asks the user first, as on a device; nil to go ahead.
func authorizeUse(of key: SecKey) -> SecFailure? { authorize(accessControl(of: key)) }

/// The kSecAttrAccessible an item gets with `control`, or the conflict securityd reports.
func accessibility(given accessible: InMemoryKeychain.Value?, control: SecAccessControl) -> Result<InMemoryKeychain.Value, SecFailure> {
    let implied = InMemoryKeychain.Value.string(control.protection)
    guard let accessible else { return .success(implied) }
    // kSecAttrAccessible makes an access control of its own with no constraints; securityd
    // refuses the item when the two differ.
    guard accessible == implied, control.flags.isEmpty else {
        return .failure(SecFailure(errSecParam, "conflicting kSecAccess and kSecAccessControl attributes"))
    }
    return .success(implied)
}
