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
