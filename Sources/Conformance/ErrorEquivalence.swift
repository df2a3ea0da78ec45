import Foundation
import PythonBridge
import WireCrypto

/// The error-equivalence map: how each implementation's own errors become shared `FailureKind`s.
/// PythonRef reports kinds itself (`{"err": "<Kind>"}`); WireCrypto's errors are mapped here.
/// Anything a check compares across implementations goes through this one table.
public enum ErrorEquivalence {
    public static func failure(from error: Error) -> PeerFailure {
        if let failure = error as? PeerFailure { return failure }
        if let wire = error as? WireCryptoError { return PeerFailure(kind(of: wire), "\(wire)") }
        if let python = error as? PythonError { return PeerFailure(.internal, "\(python)") }
        return PeerFailure(.internal, "\(error)")
    }

    public static func kind(of error: WireCryptoError) -> FailureKind {
        switch error {
        case .malformedKey, .wrongPassphrase, .incorrectKeySize, .malformedECKey, .curveMismatch, .keyAgreementFailed: return .badKey
        case .plaintextTooLong: return .tooLong
        case .decryptionFailed: return .decryptFailed
        case .invalidLength, .incorrectParameterSize, .malformedSignature: return .badLength
        case .badPadding: return .badPadding
        case .authenticationFailure: return .authFailed
        case .keyDerivation: return .keyDerivation
        case .malformedEnvelope: return .badEnvelope
        case .unsupported: return .unsupported
        case .openSSL: return .internal
        }
    }
}
