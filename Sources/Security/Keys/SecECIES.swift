import Foundation
internal import WireCrypto

// SecKeyCreateEncryptedData / SecKeyCreateDecryptedData with Apple's ECIES algorithms (the
// composition is WireCrypto's `AppleECIES`: ephemeral public key ‖ AES-GCM ciphertext ‖ 16-byte
// tag, X9.63 KDF over the ECDH secret with the ephemeral public key as shared info).

/// An ECIES algorithm: the KDF hash, cofactor ECDH or not, and whether the IV comes from the KDF.
struct ECIESAlgorithm {
    let digest: WireCrypto.Digest
    let cofactor: Bool
    let variableIV: Bool
}

extension SecKeyAlgorithm {
    public static let eciesEncryptionStandardX963SHA1AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM")
    public static let eciesEncryptionStandardX963SHA224AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM")
    public static let eciesEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM")
    public static let eciesEncryptionStandardX963SHA384AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM")
    public static let eciesEncryptionStandardX963SHA512AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM")
    public static let eciesEncryptionCofactorX963SHA1AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM")
    public static let eciesEncryptionCofactorX963SHA224AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM")
    public static let eciesEncryptionCofactorX963SHA256AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM")
    public static let eciesEncryptionCofactorX963SHA384AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM")
    public static let eciesEncryptionCofactorX963SHA512AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM")
    public static let eciesEncryptionStandardVariableIVX963SHA224AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV")
    public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV")
    public static let eciesEncryptionStandardVariableIVX963SHA384AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV")
    public static let eciesEncryptionStandardVariableIVX963SHA512AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV")
    public static let eciesEncryptionCofactorVariableIVX963SHA224AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV")
    public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV")
    public static let eciesEncryptionCofactorVariableIVX963SHA384AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV")
    public static let eciesEncryptionCofactorVariableIVX963SHA512AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV")

    /// The ECIES algorithm for the name, or nil. (Apple has no VariableIV algorithm with SHA-1.)
    var ecies: ECIESAlgorithm? {
        let parts = (rawValue as String).split(separator: ":").map(String.init)
        guard parts.count == 7, parts[0] == "algid", parts[1] == "encrypt", parts[2] == "ECIES",
              parts[3] == "ECDH" || parts[3] == "ECDHC", parts[4] == "KDFX963",
              let digest = WireCrypto.Digest(name: parts[5]), digest.rawValue == parts[5],
              parts[6] == "AESGCM" || (parts[6] == "AESGCM-KDFIV" && digest != .sha1) else { return nil }
        return ECIESAlgorithm(digest: digest, cofactor: parts[3] == "ECDHC", variableIV: parts[6] == "AESGCM-KDFIV")
    }
}

/// ECIES encryption to an EC public key; errSecParam when the key or algorithm does not take it.
func eciesEncrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: Data) -> Result<Data, SecFailure> {
    let name = algorithm.rawValue as String
    guard let ecies = algorithm.ecies, case let .ecPublic(publicKey) = key.material else {
        return .failure(SecFailure(errSecParam, "\(name): algorithm not supported by the key \(key)"))
    }
    do {
        return .success(try AppleECIES.seal(plaintext, to: publicKey, digest: ecies.digest, cofactor: ecies.cofactor, variableIV: ecies.variableIV))
    } catch {
        return .failure(SecFailure(errSecParam, "ECIES: Failed to aes-gcm encrypt data (\(error))"))
    }
}

/// ECIES decryption with an EC private key, with the messages Apple's adaptors give.
func eciesDecrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: Data) -> Result<Data, SecFailure> {
    if let denied = authorizeUse(of: key) { return .failure(denied) }  // SecAccessControl.swift
    let name = algorithm.rawValue as String
    guard let ecies = algorithm.ecies, case let .ecPrivate(privateKey) = key.material else {
        return .failure(SecFailure(errSecParam, "\(name): algorithm not supported by the key \(key)"))
    }
    let curve = privateKey.curve
    guard ciphertext.count >= curve.x963PublicKeyByteCount else {
        return .failure(SecFailure(errSecParam, "\(key): too small input packet for ECIES decrypt"))
    }
    guard ciphertext.count >= curve.x963PublicKeyByteCount + AppleECIES.tagByteCount else {
        return .failure(SecFailure(errSecParam, "ECIES: Input data too short"))
    }
    do {
        return .success(try AppleECIES.open(ciphertext, with: privateKey, digest: ecies.digest, cofactor: ecies.cofactor, variableIV: ecies.variableIV))
    } catch WireCryptoError.malformedECKey {
        return .failure(SecFailure(errSecParam, "ECpriv sharedsecret: bad public key"))
    } catch {
        return .failure(SecFailure(errSecParam, "ECIES: Failed to aes-gcm decrypt data"))
    }
}
