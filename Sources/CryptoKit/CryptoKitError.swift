import Foundation

/// CryptoKit's error type, with Apple's case names and shapes: code that catches
/// `CryptoKitError.authenticationFailure` or `.incorrectParameterSize` compiles and behaves as on iOS.
/// (Equatable is an addition, so tests can compare errors; Apple's type does not promise it.)
public enum CryptoKitError: Error, Equatable, Sendable {
    /// A failure inside the underlying crypto library (here OpenSSL), with its code.
    case underlyingCoreCryptoError(error: Int32)
    /// A key of a size the algorithm does not take (AES: 128/192/256 bits; ChaChaPoly: 256).
    case incorrectKeySize
    /// A nonce, tag or sealed box of the wrong size.
    case incorrectParameterSize
    /// The tag did not verify: wrong key, nonce or associated data, or tampered bytes.
    case authenticationFailure
    /// Key wrapping failed: the key to wrap is not whole 64-bit blocks, at least two (`AES.KeyWrap`).
    case wrapFailure
    /// Key unwrapping failed: a malformed wrapped key or a failed integrity check (wrong KEK, tampering).
    case unwrapFailure
    /// A parameter that is invalid for the operation.
    case invalidParameter
}

/// CryptoKit's errors for DER and PEM that do not decode (key and signature representations). Only
/// the cases this module throws are distinguished: DER it cannot read is `invalidASN1Object`, PEM
/// it cannot read is `invalidPEMDocument` (Apple's parser names the exact fault in more cases).
public enum CryptoKitASN1Error: Error, Equatable, Hashable, Sendable {
    case invalidFieldIdentifier
    case unexpectedFieldType
    case invalidObjectIdentifier
    case invalidASN1Object
    case invalidASN1IntegerEncoding
    case truncatedASN1Field
    case unsupportedFieldLength
    case invalidPEMDocument
}
