/// Every error WireCrypto throws. Each case carries what a person needs to act on it.
///
/// CryptoKit-shaped code catches `CryptoKitError.authenticationFailure` and friends: those names are
/// cases here too, and `CryptoKitError` is an alias of this enum, so seed code compiles unchanged.
public enum WireCryptoError: Error, Equatable, Sendable {
    /// An OpenSSL call failed; the error holds the whole drained error queue, oldest first.
    case openSSL(OpenSSLError)
    /// Key bytes that are not an RSA key in a format crosscheck reads (SPKI/PKCS#1/PKCS#8, PEM/DER).
    case malformedKey(reason: String, stack: [OpenSSLErrorEntry])
    /// An encrypted PKCS#8 key and a missing or wrong passphrase.
    case wrongPassphrase
    /// RSA plaintext over the padding's limit for this modulus.
    case plaintextTooLong(length: Int, limit: Int, padding: String, keyBits: Int)
    /// RSA decryption failed. One case for every cause (padding, label, hash): no oracle.
    case decryptionFailed
    /// A ciphertext, IV or nonce of a length the operation cannot take.
    case invalidLength(what: String, length: Int, expected: String)
    /// AES-CBC PKCS#7 padding did not check out after decryption.
    case badPadding
    /// An AEAD tag did not verify (wrong key, nonce, associated data, or tampered bytes).
    case authenticationFailure
    /// A key of a size the algorithm does not take.
    case incorrectKeySize(bytes: Int, allowed: [Int])
    /// A CryptoKit-shaped parameter (sealed box, nonce) of the wrong size.
    case incorrectParameterSize(what: String, length: Int, expected: String)
    /// An `encryptionKey` string the key-derivation mode cannot turn into a key.
    case keyDerivation(mode: String, reason: String)
    /// An aes-https `{"data","iv"}` envelope that is not well formed.
    case malformedEnvelope(reason: String)
    /// A name (padding, digest, format) that crosscheck does not know.
    case unsupported(String)
    /// Bytes that are not a usable elliptic-curve key (P-256/384/521, X25519, Ed25519) in `format`.
    case malformedECKey(curve: String, format: String, reason: String)
    /// Two keys, or a key and a signature, of different curves used together.
    case curveMismatch(expected: String, actual: String)
    /// An ECDSA signature that is not the DER or raw r‖s encoding it was said to be.
    case malformedSignature(encoding: String, reason: String)
    /// ECDH or X25519 produced no usable secret (a low-order peer key, or the identity point).
    case keyAgreementFailed(reason: String)
}

/// CryptoKit's error type name, for code written against CryptoKit.
public typealias CryptoKitError = WireCryptoError

extension WireCryptoError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .openSSL(error):
            return "\(error)"
        case let .malformedKey(reason, stack):
            // A key whose numbers or DER break a rule (they cite RFC 8017 or X.690) is in an accepted
            // format: listing the formats would send the person looking in the wrong place.
            let brokenRule = reason.contains("RFC 8017") || reason.contains("X.690") || reason.contains("docs/PROTOCOL.md")
            return "not a usable RSA key: \(reason)"
                + (stack.isEmpty ? "" : " (OpenSSL: \(stack.map(\.text).joined(separator: "; ")))")
                + (brokenRule ? "" : ". Accepted: PEM 'PUBLIC KEY', 'RSA PUBLIC KEY', 'PRIVATE KEY', 'RSA PRIVATE KEY', 'ENCRYPTED PRIVATE KEY', or their DER.")
        case .wrongPassphrase:
            return "the private key is encrypted and the passphrase is missing or wrong"
        case let .plaintextTooLong(length, limit, padding, bits):
            return "plaintext is \(length) bytes; \(padding) with a \(bits)-bit key allows at most \(limit)"
        case .decryptionFailed:
            return "RSA decryption failed"
        case let .invalidLength(what, length, expected):
            return "\(what) is \(length) bytes; expected \(expected)"
        case .badPadding:
            return "AES-CBC padding is invalid (wrong key or IV, or tampered ciphertext)"
        case .authenticationFailure:
            return "authentication failed: the tag does not match (wrong key, nonce or associated data, or tampered data)"
        case let .incorrectKeySize(bytes, allowed):
            return "key is \(bytes) bytes; allowed: \(allowed.map(String.init).joined(separator: ", "))"
        case let .incorrectParameterSize(what, length, expected):
            return "\(what) is \(length) bytes; expected \(expected)"
        case let .keyDerivation(mode, reason):
            return "key derivation \(mode) failed: \(reason)"
        case let .malformedEnvelope(reason):
            return "malformed envelope: \(reason)"
        case let .unsupported(what):
            return "unsupported: \(what)"
        case let .malformedECKey(curve, format, reason):
            return "not a usable \(curve) key in \(format): \(reason). \(Self.ecFormats(curve))"
        case let .curveMismatch(expected, actual):
            return "the key is on \(actual) but \(expected) is needed: use keys (and signatures) of one curve together"
        case let .malformedSignature(encoding, reason):
            return "not an ECDSA signature in \(encoding): \(reason) (DER is SEQUENCE { INTEGER r, INTEGER s }; raw is r‖s, each the curve's coordinate size)"
        case let .keyAgreementFailed(reason):
            return "key agreement failed: \(reason); the peer's public key must be a valid point of the same curve"
        }
    }
}

extension WireCryptoError {
    /// What a key of `curve` may look like, for the message of `.malformedECKey`.
    static func ecFormats(_ curve: String) -> String {
        switch curve {
        case "X25519", "Ed25519":
            return "Accepted: 32 raw bytes, SubjectPublicKeyInfo / PKCS#8 DER, or PEM 'PUBLIC KEY' / 'PRIVATE KEY'."
        default:
            return "Accepted: X9.63 (04‖X‖Y public, 04‖X‖Y‖K private), a compressed point (02/03‖X), raw X‖Y or K, "
                + "SubjectPublicKeyInfo, PKCS#8 or SEC1 DER, or PEM 'PUBLIC KEY', 'PRIVATE KEY', 'EC PRIVATE KEY'."
        }
    }
}

/// Makes an `.openSSL` error for `function` with the drained queue.
func openSSLFailure(_ function: String) -> WireCryptoError {
    .openSSL(.drain(after: function))
}
