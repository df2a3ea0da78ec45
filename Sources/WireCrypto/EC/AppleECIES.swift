import Foundation

/// Apple's ECIES (`SecKeyCreateEncryptedData` with `eciesEncryption…X963SHA…AESGCM`), composed as
/// Apple's open-source Security framework composes it (SecKeyAdaptors.m, `SecKeyECIESCopyEncryptedData`
/// and `SecKeyECIESKeyExchangeKDFX963CopyResult`):
/// 1. a fresh ephemeral key pair on the recipient's curve;
/// 2. Z = ECDH(ephemeral private, recipient public) (standard or cofactor: the same on these curves);
/// 3. X9.63 KDF(Z, SharedInfo = the ephemeral public key `04‖X‖Y`) with the algorithm's hash, for
///    an AES key of 16 bytes when the curve has ≤ 256 bits and 32 bytes above (P-384, P-521);
/// 4. AES-GCM with a 16-byte IV — all zero, or (the `VariableIV` algorithms) the 16 KDF bytes that
///    follow the key — no associated data, a 16-byte tag;
/// 5. output: ephemeral public key ‖ ciphertext ‖ tag.
public enum AppleECIES {
    /// The GCM IV and tag sizes Apple uses (`kSecKeyIESIV`, `kSecKeyIESTagLength`).
    public static let ivByteCount = 16
    public static let tagByteCount = 16

    /// AES-128 for curves of at most 256 bits, AES-256 above.
    public static func aesKeyByteCount(_ curve: ECCurve) -> Int { curve.bits > 256 ? 32 : 16 }

    public static func seal(_ plaintext: Data, to recipient: ECPublicKey, digest: Digest, cofactor: Bool, variableIV: Bool) throws -> Data {
        let ephemeral = try ECPrivateKey(curve: recipient.curve)
        let ephemeralPublic = ephemeral.publicKey.x963Representation
        let shared = try ephemeral.sharedSecret(with: recipient, cofactor: cofactor)
        let (key, iv) = try keyAndIV(shared: shared, ephemeralPublic: ephemeralPublic, curve: recipient.curve, digest: digest, variableIV: variableIV)
        var ciphertext = Data(count: plaintext.count)
        var tag = Data(count: tagByteCount)
        try key.withUnsafeBytes { key in
            try iv.withUnsafeBytes { iv in
                try plaintext.withUnsafeBytes { input in
                    try ciphertext.withUnsafeMutableBytes { output in
                        try tag.withUnsafeMutableBytes { tag in
                            try AEADCore.seal(.aesGCM, key: key, nonce: iv, plaintext: input, aad: UnsafeRawBufferPointer(start: nil, count: 0),
                                              into: output, tag: tag)
                        }
                    }
                }
            }
        }
        return ephemeralPublic + ciphertext + tag
    }

    /// Opens what `seal` (or iOS) made for `recipient`. Too short an input is `.invalidLength`, an
    /// ephemeral key that is not a point of the curve `.malformedECKey`, any other tampering
    /// `.authenticationFailure`.
    public static func open(_ sealed: Data, with recipient: ECPrivateKey, digest: Digest, cofactor: Bool, variableIV: Bool) throws -> Data {
        let curve = recipient.curve
        let sealed = Data(sealed)
        guard sealed.count >= curve.x963PublicKeyByteCount + tagByteCount else {
            throw WireCryptoError.invalidLength(what: "\(curve.rawValue) ECIES ciphertext", length: sealed.count,
                                                expected: "at least \(curve.x963PublicKeyByteCount + tagByteCount) (ephemeral key ‖ ciphertext ‖ 16-byte tag)")
        }
        let ephemeralPublic = sealed.prefix(curve.x963PublicKeyByteCount)
        let ephemeral = try ECPublicKey(x963Representation: ephemeralPublic, curve: curve)
        let shared = try recipient.sharedSecret(with: ephemeral, cofactor: cofactor)
        let (key, iv) = try keyAndIV(shared: shared, ephemeralPublic: ephemeralPublic, curve: curve, digest: digest, variableIV: variableIV)
        let body = sealed.dropFirst(curve.x963PublicKeyByteCount)
        let ciphertext = Data(body.dropLast(tagByteCount)), tag = Data(body.suffix(tagByteCount))
        return try key.withUnsafeBytes { key in
            try iv.withUnsafeBytes { iv in
                try ciphertext.withUnsafeBytes { input in
                    try tag.withUnsafeBytes { tag in
                        try AEADCore.open(.aesGCM, key: key, nonce: iv, ciphertext: input, tag: tag, aad: UnsafeRawBufferPointer(start: nil, count: 0))
                    }
                }
            }
        }
    }

    /// The AES key and the IV from the X9.63 KDF (zero IV unless `variableIV`).
    static func keyAndIV(shared: Data, ephemeralPublic: Data, curve: ECCurve, digest: Digest, variableIV: Bool) throws -> (key: Data, iv: Data) {
        let keyBytes = aesKeyByteCount(curve)
        let derived = try X963KDF.derive(secret: shared, sharedInfo: ephemeralPublic, digest: digest,
                                         byteCount: keyBytes + (variableIV ? ivByteCount : 0))
        return (derived.prefix(keyBytes), variableIV ? Data(derived.suffix(ivByteCount)) : Data(count: ivByteCount))
    }
}
