import Foundation
internal import WireCrypto

// Security's signatures: SecKeyCreateSignature / SecKeyVerifySignature with Apple's algorithm
// names and statuses. RSA PKCS#1 v1.5 and PSS (message and digest variants, SHA-1…512) are
// here; ECDSA with EC keys is in SecKeyEC.swift.

extension SecKeyAlgorithm {
    public static let rsaSignatureRaw = SecKeyAlgorithm("algid:sign:RSA:raw")
    public static let rsaSignatureDigestPKCS1v15Raw = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15")
    public static let rsaSignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA1")
    public static let rsaSignatureDigestPKCS1v15SHA224 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA224")
    public static let rsaSignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA256")
    public static let rsaSignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA384")
    public static let rsaSignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA512")
    public static let rsaSignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA1")
    public static let rsaSignatureMessagePKCS1v15SHA224 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA224")
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA256")
    public static let rsaSignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA384")
    public static let rsaSignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA512")
    public static let rsaSignatureDigestPSSSHA1 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA1:SHA1:20")
    public static let rsaSignatureDigestPSSSHA224 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA224:SHA224:28")
    public static let rsaSignatureDigestPSSSHA256 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA256:SHA256:32")
    public static let rsaSignatureDigestPSSSHA384 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA384:SHA384:48")
    public static let rsaSignatureDigestPSSSHA512 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA512:SHA512:64")
    public static let rsaSignatureMessagePSSSHA1 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA1:SHA1:20")
    public static let rsaSignatureMessagePSSSHA224 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA224:SHA224:28")
    public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA256:SHA256:32")
    public static let rsaSignatureMessagePSSSHA384 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA384:SHA384:48")
    public static let rsaSignatureMessagePSSSHA512 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA512:SHA512:64")
    public static let ecdsaSignatureRFC4754 = SecKeyAlgorithm("algid:sign:ECDSA:RFC4754")
    public static let ecdsaSignatureDigestX962 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962")
    public static let ecdsaSignatureDigestX962SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA1")
    public static let ecdsaSignatureDigestX962SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA224")
    public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA256")
    public static let ecdsaSignatureDigestX962SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA384")
    public static let ecdsaSignatureDigestX962SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA512")
    public static let ecdsaSignatureMessageX962SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA1")
    public static let ecdsaSignatureMessageX962SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA224")
    public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA256")
    public static let ecdsaSignatureMessageX962SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA384")
    public static let ecdsaSignatureMessageX962SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA512")

    /// The RSA signature scheme this module implements for the algorithm, and whether the input
    /// is the message (hashed here) or its digest; nil for the others.
    var rsaSignature: (scheme: RSASignatureScheme, hashesMessage: Bool)? {
        let parts = (rawValue as String).split(separator: ":").map(String.init)
        guard parts.count >= 5, parts[0] == "algid", parts[1] == "sign", parts[2] == "RSA",
              let digest = WireCrypto.Digest(name: parts[4]) else { return nil }
        switch parts[3] {
        case "digest-PKCS1v15": return (.pkcs1v15(digest), false)
        case "message-PKCS1v15": return (.pkcs1v15(digest), true)
        case "digest-PSS": return (.pss(digest), false)
        case "message-PSS": return (.pss(digest), true)
        default: return nil
        }
    }
}

/// Whether `key` can sign (`.sign`, a private key) or verify (`.verify`, either half) with `algorithm`.
func signatureSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
    guard let (scheme, _) = algorithm.rsaSignature, scheme.fits(modulusBytes: key.blockSize) else { return false }
    switch operation {
    case .sign: return key.isPrivate
    case .verify: return true
    default: return false
    }
}

/// The signature of `dataToSign` (the message, or its digest for the digest algorithms), or nil
/// with a CFError: errSecParam for an algorithm the key does not support (a public key, an ECDSA
/// name, a digest of the wrong length), as iOS reports them.
@discardableResult
public func SecKeyCreateSignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    if let denied = authorizeUse(of: key) { report(denied.status, denied.message, to: error); return nil }  // SecAccessControl.swift
    if key.isEC || algorithm.ecdsa != nil {
        switch ecdsaSign(key, algorithm, Data(dataToSign)) {  // SecKeyEC.swift
        case let .success(signature): return signature as NSData
        case let .failure(failure): report(failure.status, failure.message, to: error); return nil
        }
    }
    let name = algorithm.rawValue as String
    guard let (scheme, hashesMessage) = algorithm.rsaSignature, case let .rsaPrivate(privateKey) = key.material,
          scheme.fits(modulusBytes: key.blockSize) else {
        report(errSecParam, "\(name): algorithm not supported by the key \(key)", to: error)
        return nil
    }
    let input = Data(dataToSign)
    guard hashesMessage || input.count == scheme.digest.byteCount else {
        report(errSecParam, "\(name): the digest to sign is \(input.count) bytes; \(scheme.digest.rawValue) digests are \(scheme.digest.byteCount)", to: error)
        return nil
    }
    let errorOut = error
    do {
        let signature = hashesMessage ? try privateKey.hashAndSign(input, scheme: scheme) : try privateKey.sign(digest: input, scheme: scheme)
        return signature as NSData
    } catch {
        report(errSecInternalComponent, "RSA signing failed: \(error)", to: errorOut)
        return nil
    }
}

/// True when `signature` is valid for `signedData` under `algorithm`; otherwise false with a
/// CFError: errSecVerifyFailed for a signature that does not match, errSecParam for an algorithm
/// the key does not support.
@discardableResult
public func SecKeyVerifySignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> Bool {
    if key.isEC || algorithm.ecdsa != nil {
        guard let failure = ecdsaVerify(key, algorithm, Data(signedData), Data(signature)) else { return true }  // SecKeyEC.swift
        report(failure.status, failure.message, to: error)
        return false
    }
    let name = algorithm.rawValue as String
    guard let (scheme, hashesMessage) = algorithm.rsaSignature, let publicKey = key.publicKey, scheme.fits(modulusBytes: key.blockSize) else {
        report(errSecParam, "\(name): algorithm not supported by the key \(key)", to: error)
        return false
    }
    // Apple's SecKeyAdaptors.m (`SecKeyRSAVerifyAdaptorCopyResult`) verifies by running the key's raw
    // RSA operation on the signature and checking the padding; a private key's raw operation is the
    // private one (SecRSAKey.c, `SecRSAPrivateKeyCopyOperationResult`, decrypt), so the padding never
    // checks out: false with errSecVerifyFailed, whatever the signature.
    if key.isPrivate {
        report(errSecVerifyFailed, "RSA signature verification failed, no match (a private key was given; verify with SecKeyCopyPublicKey's key)", to: error)
        return false
    }
    let input = Data(signedData)
    let valid = hashesMessage
        ? publicKey.verify(signature: Data(signature), message: input, scheme: scheme)
        : publicKey.verify(signature: Data(signature), digest: input, scheme: scheme)
    if !valid { report(errSecVerifyFailed, "RSA signature verification failed", to: error) }
    return valid
}
