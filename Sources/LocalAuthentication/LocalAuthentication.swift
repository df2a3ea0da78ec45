// LocalAuthentication: Apple's framework for asking the device's owner to authenticate (Face ID,
// Touch ID, the passcode), for app code that gates a key or a secret on it. There is no owner on
// Linux: the simulated user (`crosscheck run --app-user present|absent|cancel`, also what
// Security's access-controlled items ask) answers every prompt, so an app's success path and its
// failure paths (`LAError.userCancel`, `.authenticationFailed`, `.notInteractive`) can both be run.
// docs/APPLE-MODULES.md says how this differs from a device. May import Foundation and Security.
import Foundation
import Security

/// What the owner must prove (Apple's raw values).
public enum LAPolicy: Int, Sendable {
    case deviceOwnerAuthenticationWithBiometrics = 1
    case deviceOwnerAuthentication = 2
    case deviceOwnerAuthenticationWithWatch = 3
    case deviceOwnerAuthenticationWithBiometricsOrWatch = 4
    case deviceOwnerAuthenticationWithWristDetection = 5
}

/// The biometry a device has (the simulated device has Face ID).
public enum LABiometryType: Int, Sendable {
    case none = 0
    case touchID = 1
    case faceID = 2
    case opticID = 4
}

/// The longest reuse window Apple allows for a Touch ID match (seconds).
public let LATouchIDAuthenticationMaximumAllowableReuseDuration: TimeInterval = 300

/// LocalAuthentication's error domain.
public let LAErrorDomain = "com.apple.LocalAuthentication"

/// An authentication that did not succeed, with Apple's codes (LAError.h).
public struct LAError: CustomNSError, Hashable, Sendable {
    public enum Code: Int, Sendable {
        case authenticationFailed = -1
        case userCancel = -2
        case userFallback = -3
        case systemCancel = -4
        case passcodeNotSet = -5
        case biometryNotAvailable = -6
        case biometryNotEnrolled = -7
        case biometryLockout = -8
        case appCancel = -9
        case invalidContext = -10
        case watchNotAvailable = -11
        case biometryNotPaired = -12
        case biometryDisconnected = -13
        case invalidDimensions = -14
        case notInteractive = -1004

        // The Touch ID names Apple kept for the biometry codes.
        public static let touchIDNotAvailable = Code.biometryNotAvailable
        public static let touchIDNotEnrolled = Code.biometryNotEnrolled
        public static let touchIDLockout = Code.biometryLockout
    }

    public let code: Code
    /// The text values of the userInfo it was made with (an Error must be Sendable; LocalAuthentication's carry text).
    private let texts: [String: String]

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        texts = userInfo.compactMapValues { $0 as? String }
    }

    /// An LAError from its NSError form, as Swift's bridged error types have on Apple's platforms
    /// (`LAError(_nsError:)`); a code LocalAuthentication does not define reads as `.authenticationFailed`.
    public init(_nsError error: NSError) {
        self.init(Code(rawValue: error.code) ?? .authenticationFailed, userInfo: error.userInfo)
    }

    public var _nsError: NSError { NSError(domain: LAErrorDomain, code: code.rawValue, userInfo: texts) }
    public var userInfo: [String: Any] { texts }
    public static var errorDomain: String { LAErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { texts }

    public static func == (lhs: LAError, rhs: LAError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    // `catch LAError.userCancel` and `case LAError.userCancel:` as on iOS.
    public static let authenticationFailed = Code.authenticationFailed
    public static let userCancel = Code.userCancel
    public static let userFallback = Code.userFallback
    public static let systemCancel = Code.systemCancel
    public static let passcodeNotSet = Code.passcodeNotSet
    public static let biometryNotAvailable = Code.biometryNotAvailable
    public static let biometryNotEnrolled = Code.biometryNotEnrolled
    public static let biometryLockout = Code.biometryLockout
    public static let appCancel = Code.appCancel
    public static let invalidContext = Code.invalidContext
    public static let notInteractive = Code.notInteractive
    public static let touchIDNotAvailable = Code.biometryNotAvailable
    public static let touchIDNotEnrolled = Code.biometryNotEnrolled
    public static let touchIDLockout = Code.biometryLockout
}

/// Matches an error against an LAError code (`catch LAError.userCancel`).
public func ~= (code: LAError.Code, error: any Error) -> Bool {
    guard let error = error as? LAError else {
        let ns = error as NSError
        return ns.domain == LAErrorDomain && ns.code == code.rawValue
    }
    return error.code == code
}

/// Where a method with an `error:` parameter writes its error (`var error: NSError?` … `error: &error`),
/// as Foundation declares it on Apple's platforms (Foundation on Linux does not).
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

/// One authentication context: evaluates policies by asking the simulated user.
open class LAContext: NSObject, SecAuthenticationContext, @unchecked Sendable {
    private let lock = NSLock()
    private var invalidated = false
    private var authenticatedAt: Date?

    open var localizedReason: String = ""
    open var localizedFallbackTitle: String?
    open var localizedCancelTitle: String?
    /// Seconds a successful evaluation is reused for (at most LATouchIDAuthenticationMaximumAllowableReuseDuration).
    open var touchIDAuthenticationAllowableReuseDuration: TimeInterval = 0
    /// When true, an evaluation that would show a prompt fails with `.notInteractive`.
    open var interactionNotAllowed: Bool = false

    public override init() { super.init() }

    /// Face ID once a policy could be evaluated, as on a device; `.none` before.
    open private(set) var biometryType: LABiometryType = .none

    /// Stands for the enrolled biometry's state: the same bytes on every call while nothing is
    /// enrolled or removed (nothing ever is, here).
    open var evaluatedPolicyDomainState: Data? {
        biometryType == .none ? nil : Data("crosscheck simulated biometry enrollment".utf8)
    }

    /// Whether `policy` can be evaluated: true on the simulated device (biometry enrolled, passcode
    /// set), false with `.invalidContext` after `invalidate()`.
    open func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer) -> Bool {
        if isInvalidated {
            error?.pointee = LAError(.invalidContext) as NSError
            return false
        }
        lock.withLock { biometryType = .faceID }
        return true
    }

    /// Asks the simulated user; `reply` runs later on a queue of the framework's, as on iOS.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let outcome = evaluate(policy, localizedReason: localizedReason)
        DispatchQueue.global().async { reply(outcome == nil, outcome) }
    }

    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        if let failure = evaluate(policy, localizedReason: localizedReason) { throw failure }
        return true
    }

    /// How many times this process called `evaluatePolicy` (any context) — the access-control
    /// audit asks whether that was a secret's only gate (MASTG-TEST-0266…0271). Not Apple's API.
    public static var policyEvaluations: Int { evaluationLock.withLock { evaluations } }
    private static let evaluationLock = NSLock()
    nonisolated(unsafe) private static var evaluations = 0
    static func countEvaluation() { evaluationLock.withLock { evaluations += 1 } }

    /// Ends the context: later evaluations fail with `.invalidContext` (a pending one is not
    /// cancelled here: the simulated user answers at once).
    open func invalidate() { lock.withLock { invalidated = true } }

    private var isInvalidated: Bool { lock.withLock { invalidated } }

    /// Within the reuse window after a success (Security reads it from kSecUseAuthenticationContext).
    public var isAuthenticated: Bool {
        let reuse = min(touchIDAuthenticationAllowableReuseDuration, LATouchIDAuthenticationMaximumAllowableReuseDuration)
        guard !isInvalidated, let at = lock.withLock({ authenticatedAt }) else { return false }
        return Date().timeIntervalSince(at) <= reuse
    }

    /// nil when the user authenticated; else the LAError a device gives.
    private func evaluate(_ policy: LAPolicy, localizedReason: String) -> LAError? {
        LAContext.countEvaluation()
        if isInvalidated { return LAError(.invalidContext) }
        guard !localizedReason.isEmpty else {
            // Apple raises NSInvalidArgumentException for an empty reason; an error is kinder here.
            return LAError(.invalidContext, userInfo: [NSLocalizedDescriptionKey: "localizedReason must not be empty"])
        }
        lock.withLock { biometryType = .faceID }
        if isAuthenticated { return nil }
        if interactionNotAllowed { return LAError(.notInteractive) }
        switch SimulatedUser.current {
        case .present:
            lock.withLock { authenticatedAt = Date() }
            return nil
        case .cancel:
            return LAError(.userCancel, userInfo: [NSLocalizedDescriptionKey: "Canceled by user (simulated user: cancel)."])
        case .absent:
            return LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "Authentication failed (simulated user: absent)."])
        }
    }
}
