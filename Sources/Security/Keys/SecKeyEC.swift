import Foundation
internal import WireCrypto

// EC keys (kSecAttrKeyTypeECSECPrimeRandom / kSecAttrKeyTypeEC, P-256, P-384, P-521) as Security
// has them: X9.63 external representations (`04‖X‖Y` public, `04‖X‖Y‖K` private), a block size of
// the coordinate's bytes, and ECDSA signatures. Behaviour and statuses follow Apple's open-source
// SecECKey.c and SecKeyAdaptors.m; docs/APPLE-MODULES.md lists where they differ.

extension SecKey {
    /// The curve of an EC key, nil for RSA.
    var ecCurve: ECCurve? {
        switch material {
        case let .ecPrivate(key): return key.curve
        case let .ecPublic(key): return key.curve
        case .rsaPrivate, .rsaPublic: return nil
        }
    }

    var isEC: Bool { ecCurve != nil }

    /// The public half of an EC key, nil for RSA.
    var ecPublicKey: ECPublicKey? {
        switch material {
        case let .ecPrivate(key): return key.publicKey
        case let .ecPublic(key): return key
        case .rsaPrivate, .rsaPublic: return nil
        }
    }

    /// Apple's description of an EC key (SecECKey.c), without the address.
    var ecDescription: String {
        let curveName = ["P-256": "kSecECCurveSecp256r1", "P-384": "kSecECCurveSecp384r1", "P-521": "kSecECCurveSecp521r1"][ecCurve?.rawValue ?? ""] ?? "kSecECCurveNone"
        return "<SecKeyRef curve type: \(curveName), algorithm id: 3, key type: \(isPrivate ? "ECPrivateKey" : "ECPublicKey"), version: 4, block size: \(8 * blockSize) bits>"
    }
}

/// Whether `type` (a kSecAttrKeyType value) names EC keys: kSecAttrKeyTypeECSECPrimeRandom and
/// kSecAttrKeyTypeEC are both "73".
func isECKeyType(_ type: String) -> Bool { type == kSecAttrKeyTypeECSECPrimeRandom as String || type == kSecAttrKeyTypeEC as String }

/// A fresh EC key pair of `bits` (256, 384 or 521), as SecKeyCreateRandomKey makes it.
func generateECKeyPair(bits: Int?) -> Result<(privateKey: SecKey.Material, publicKey: SecKey.Material), SecFailure> {
    guard let bits, let curve = ECCurve(bits: bits) else {
        if bits == 192 || bits == 224 {
            return .failure(SecFailure(errSecUnimplemented, "EC key size \(bits ?? 0) bits: P-192 and P-224 are not provided here; use 256, 384 or 521"))
        }
        return .failure(SecFailure(errSecKeySizeNotAllowed, "EC key size \(bits.map(String.init) ?? "missing"): kSecAttrKeySizeInBits must be 256, 384 or 521"))
    }
    do {
        let key = try ECPrivateKey(curve: curve)
        return .success((.ecPrivate(key), .ecPublic(key.publicKey)))
    } catch {
        return .failure(SecFailure(errSecInternalComponent, "EC key generation failed: \(error)"))
    }
}

/// SecKeyCreateWithData for EC: kSecAttrKeyClass public takes `04‖X‖Y`, private `04‖X‖Y‖K`; the
/// length decides the curve; a kSecAttrKeySizeInBits that names another curve is errSecParam.
func ecSecKey(from data: Data, keyClass: String, attributes: [String: Any]) -> Result<SecKey, SecFailure> {
    let isPrivate: Bool
    switch keyClass {
    case String(kSecAttrKeyClassPublic): isPrivate = false
    case String(kSecAttrKeyClassPrivate): isPrivate = true
    default: return .failure(SecFailure(errSecParam, "Unsupported key class: \(keyClass)"))
    }
    let failure = SecFailure(errSecParam, "EC \(isPrivate ? "private" : "public") key creation from data failed")
    guard let curve = ECCurve.allCases.first(where: { (isPrivate ? $0.x963PrivateKeyByteCount : $0.x963PublicKeyByteCount) == data.count }) else {
        return .failure(failure)
    }
    if let bits = integerAttribute(attributes[kSecAttrKeySizeInBits as String]), bits != curve.bits {
        return .failure(SecFailure(errSecParam, "EC key creation from data failed: \(data.count) bytes is a \(curve.bits)-bit key, kSecAttrKeySizeInBits says \(bits)"))
    }
    do {
        let material: SecKey.Material = isPrivate ? .ecPrivate(try ECPrivateKey(x963Representation: data, curve: curve))
                                                  : .ecPublic(try ECPublicKey(x963Representation: data, curve: curve))
        return .success(SecKey(material, attributes: attributes))
    } catch {
        return .failure(failure)
    }
}

// MARK: - ECDSA

/// How an ECDSA algorithm takes its input and encodes its signature.
struct ECDSAAlgorithm {
    /// The hash applied to a message, or nil when the input is a digest.
    let messageDigest: WireCrypto.Digest?
    /// For the digest algorithms that name a hash, the digest length they require.
    let digestLength: Int?
    /// RFC 4754 raw r‖s instead of X9.62 DER.
    let raw: Bool
}

extension SecKeyAlgorithm {
    /// The ECDSA algorithm this module implements for the name, or nil.
    var ecdsa: ECDSAAlgorithm? {
        let parts = (rawValue as String).split(separator: ":").map(String.init)
        guard parts.count >= 4, parts[0] == "algid", parts[1] == "sign", parts[2] == "ECDSA" else { return nil }
        let digest = parts.count >= 5 ? WireCrypto.Digest(name: parts[4]) : nil
        if parts.count >= 5, digest == nil { return nil }
        switch (parts[3], parts.count) {
        case ("RFC4754", 4): return ECDSAAlgorithm(messageDigest: nil, digestLength: nil, raw: true)
        case ("digest-X962", 4): return ECDSAAlgorithm(messageDigest: nil, digestLength: nil, raw: false)
        case ("digest-X962", 5): return ECDSAAlgorithm(messageDigest: nil, digestLength: digest?.byteCount, raw: false)
        case ("message-X962", 5): return ECDSAAlgorithm(messageDigest: digest, digestLength: nil, raw: false)
        case ("digest-RFC4754", 5): return ECDSAAlgorithm(messageDigest: nil, digestLength: digest?.byteCount, raw: true)
        case ("message-RFC4754", 5): return ECDSAAlgorithm(messageDigest: digest, digestLength: nil, raw: true)
        default: return nil
        }
    }

    /// iOS 17's RFC 4754 (raw r‖s) variants of the X9.62 algorithms. Their raw strings follow the
    /// X9.62 names' pattern (Apple's headers do not print them; compare algorithms, not strings).
    public static let ecdsaSignatureDigestRFC4754SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA1")
    public static let ecdsaSignatureDigestRFC4754SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA224")
    public static let ecdsaSignatureDigestRFC4754SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA256")
    public static let ecdsaSignatureDigestRFC4754SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA384")
    public static let ecdsaSignatureDigestRFC4754SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA512")
    public static let ecdsaSignatureMessageRFC4754SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA1")
    public static let ecdsaSignatureMessageRFC4754SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA224")
    public static let ecdsaSignatureMessageRFC4754SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA256")
    public static let ecdsaSignatureMessageRFC4754SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA384")
    public static let ecdsaSignatureMessageRFC4754SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA512")
}

/// Whether an EC key supports `algorithm` for `operation` (sign: the private key; verify: the public
/// key; encrypt/decrypt: ECIES; keyExchange: ECDH with the private key). Apple's SecECKey.m
/// (`SecECPrivateKeyCopyOperationResult`) answers only sign and key exchange for a private key, so
/// verify with one is "algorithm not supported by the key" (errSecParam, SecKey.m
/// `SecKeyRunAlgorithmAndCopyResult`).
func ecAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
    switch operation {
    case .sign: return key.isPrivate && algorithm.ecdsa != nil
    case .verify: return !key.isPrivate && algorithm.ecdsa != nil
    case .encrypt: return !key.isPrivate && algorithm.ecies != nil
    case .decrypt: return key.isPrivate && algorithm.ecies != nil
    case .keyExchange: return key.isPrivate && algorithm.keyExchange != nil
    }
}

/// SecKeyCreateSignature for EC keys (and for ECDSA names asked of RSA keys: errSecParam).
func ecdsaSign(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ input: Data) -> Result<Data, SecFailure> {
    let name = algorithm.rawValue as String
    guard let ecdsa = algorithm.ecdsa, case let .ecPrivate(privateKey) = key.material else {
        return .failure(SecFailure(errSecParam, "\(name): algorithm not supported by the key \(key)"))
    }
    if let length = ecdsa.digestLength, input.count != length {
        return .failure(SecFailure(errSecParam, "bad digest size for signing with algorithm \(name)"))
    }
    guard ecdsa.messageDigest != nil || !input.isEmpty else {
        return .failure(SecFailure(errSecParam, "\(name): an empty digest cannot be signed"))
    }
    do {
        let der = try ecdsa.messageDigest.map { try privateKey.signature(for: input, digest: $0) } ?? privateKey.signature(forDigest: input)
        return .success(ecdsa.raw ? try ECDSASignatureEncoding.raw(fromDER: der, curve: privateKey.curve) : der)
    } catch {
        return .failure(SecFailure(errSecParam, "\(name): EC signing failed: \(error)"))
    }
}

/// SecKeyVerifySignature for EC keys: errSecVerifyFailed for a signature that does not match or
/// is not in the algorithm's encoding (as Apple reports both), errSecParam for an algorithm the key
/// does not support or a digest of the wrong length.
func ecdsaVerify(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ input: Data, _ signature: Data) -> SecFailure? {
    let name = algorithm.rawValue as String
    guard let ecdsa = algorithm.ecdsa, !key.isPrivate, let publicKey = key.ecPublicKey else {
        return SecFailure(errSecParam, "\(name): algorithm not supported by the key \(key)")
    }
    if let length = ecdsa.digestLength, input.count != length {
        return SecFailure(errSecParam, "bad digest size for signing with algorithm \(name)")
    }
    let der: Data
    if ecdsa.raw {
        guard let converted = try? ECDSASignatureEncoding.der(fromRaw: signature, curve: publicKey.curve) else {
            return SecFailure(errSecVerifyFailed, "Wrong ECDSA RFC4754 signature")
        }
        der = converted
    } else {
        der = signature
    }
    let digest = ecdsa.messageDigest.map { $0.hash(input) } ?? input
    return publicKey.isValidSignature(der, forDigest: digest) ? nil : SecFailure(errSecVerifyFailed, "EC signature verification failed, no match")
}
