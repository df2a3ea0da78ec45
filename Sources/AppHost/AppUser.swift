import Foundation
import Security

/// `crosscheck run --app-user`: who answers the app's biometry/passcode prompts (Security's
/// `SimulatedUser`). It reaches the app's own process through its environment, as the container does.
public enum AppUser {
    /// The choices, "present" first (the default).
    public static let choices = SimulatedUser.allCases.map(\.rawValue)

    /// `environment` with the simulated user set to `choice` (one of `choices`).
    public static func environment(_ environment: [String: String], user choice: String) -> [String: String] {
        var result = environment
        result[SimulatedUser.environmentVariable] = choice
        return result
    }
}

/// `crosscheck run --ios VERSION`: the iOS version whose behaviour the app's Security module gives
/// where versions differ (Security's `TargetIOS`, e.g. PKCS#1 v1.5 implicit rejection from 17.4),
/// carried into the app's process in CROSSCHECK_IOS_VERSION as the simulated user is.
public enum AppTargetIOS {
    /// The default, iOS 26 (Security's `TargetIOS.defaultVersion` says why).
    public static let defaultVersion = TargetIOS.defaultVersion.description

    /// Whether `text` names an iOS version ("17", "17.4", "17.4.1").
    public static func isValid(_ text: String) -> Bool { TargetIOS(text) != nil }

    /// `environment` with the target iOS set to `version` (valid by `isValid`).
    public static func environment(_ environment: [String: String], version: String) -> [String: String] {
        var result = environment
        result[TargetIOS.environmentVariable] = version
        return result
    }
}
