import Foundation
internal import WireCrypto

// SecKeyCopyKeyExchangeResult: ECDH (standard and cofactor, which agree on P-256/384/521: their
// cofactor is 1) and the ANSI X9.63 KDF variants, with Apple's parameters and statuses (Apple's
// open-source SecECKey.c and SecKeyAdaptors.m, `SecKeyECDHCopyX963Result`).

/// Keys of the parameters dictionary SecKeyCopyKeyExchangeResult takes.
public struct SecKeyKeyExchangeParameter: Hashable, RawRepresentable, @unchecked Sendable {
    public let rawValue: CFString
    public init(rawValue: CFString) { self.rawValue = rawValue }
    public static func == (lhs: Self, rhs: Self) -> Bool { (lhs.rawValue as String) == (rhs.rawValue as String) }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue as String) }

    public static let requestedSize = SecKeyKeyExchangeParameter(rawValue: "requestedSize")
    public static let sharedInfo = SecKeyKeyExchangeParameter(rawValue: "sharedInfo")
}

/// The C names, as Swift code written for iOS uses them (`kSecKeyKeyExchangeParameterRequestedSize as String`).
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterRequestedSize: CFString = "requestedSize"
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterSharedInfo: CFString = "sharedInfo"

/// An ECDH algorithm: cofactor or standard, and the KDF hash for the X9.63 variants.
struct KeyExchangeAlgorithm {
    let cofactor: Bool
    let kdf: WireCrypto.Digest?
}

extension SecKeyAlgorithm {
    public static let ecdhKeyExchangeStandard = SecKeyAlgorithm("algid:keyexchange:ECDH")
    public static let ecdhKeyExchangeStandardX963SHA1 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA1")
    public static let ecdhKeyExchangeStandardX963SHA224 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA224")
    public static let ecdhKeyExchangeStandardX963SHA256 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA256")
    public static let ecdhKeyExchangeStandardX963SHA384 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA384")
    public static let ecdhKeyExchangeStandardX963SHA512 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA512")
    public static let ecdhKeyExchangeCofactor = SecKeyAlgorithm("algid:keyexchange:ECDHC")
    public static let ecdhKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA1")
    public static let ecdhKeyExchangeCofactorX963SHA224 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA224")
    public static let ecdhKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA256")
    public static let ecdhKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA384")
    public static let ecdhKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA512")

    /// The key exchange this module implements for the name, or nil.
    var keyExchange: KeyExchangeAlgorithm? {
        let parts = (rawValue as String).split(separator: ":").map(String.init)
        guard parts.count == 3 || parts.count == 5, parts[0] == "algid", parts[1] == "keyexchange",
              parts[2] == "ECDH" || parts[2] == "ECDHC" else { return nil }
        if parts.count == 3 { return KeyExchangeAlgorithm(cofactor: parts[2] == "ECDHC", kdf: nil) }
        guard parts[3] == "KDFX963", let digest = WireCrypto.Digest(name: parts[4]), digest.rawValue == parts[4] else { return nil }
        return KeyExchangeAlgorithm(cofactor: parts[2] == "ECDHC", kdf: digest)
    }
}

/// The shared secret of `privateKey` and `publicKey`: the raw x coordinate for the plain
/// algorithms, or kSecKeyKeyExchangeParameterRequestedSize bytes of the X9.63 KDF over it (with
/// kSecKeyKeyExchangeParameterSharedInfo) for the KDF ones. nil with a CFError otherwise:
/// errSecParam for an algorithm or key the operation does not take, a missing requested size, or
/// a public key of another curve.
@discardableResult
public func SecKeyCopyKeyExchangeResult(_ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey,
                                        _ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    switch keyExchange(privateKey, algorithm, publicKey, entries(of: parameters)) {
    case let .success(data): return data as NSData
    case let .failure(failure): report(failure.status, failure.message, to: error); return nil
    }
}

func keyExchange(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ peer: SecKey, _ parameters: [String: Any]) -> Result<Data, SecFailure> {
    if let denied = authorizeUse(of: key) { return .failure(denied) }  // SecAccessControl.swift
    let name = algorithm.rawValue as String
    guard let exchange = algorithm.keyExchange, case let .ecPrivate(privateKey) = key.material else {
        return .failure(SecFailure(errSecParam, "\(name): algorithm not supported by the key \(key)"))
    }
    guard let peerKey = peer.ecPublicKey, peerKey.curve == privateKey.curve else {
        return .failure(SecFailure(errSecParam, "ECpriv sharedsecret: bad public key"))
    }
    let shared: Data
    do { shared = try privateKey.sharedSecret(with: peerKey, cofactor: exchange.cofactor) } catch {
        return .failure(SecFailure(errSecDecode, "ECpriv failed to compute shared secret (\(error))"))
    }
    guard let kdf = exchange.kdf else { return .success(shared) }
    guard let size = parameters[kSecKeyKeyExchangeParameterRequestedSize as String].flatMap(exactInteger), size > 0 else {
        return .failure(SecFailure(errSecParam, "kSecKeyKeyExchangeParameterRequestedSize is missing"))
    }
    let sharedInfo = parameters[kSecKeyKeyExchangeParameterSharedInfo as String].flatMap(dataAttribute) ?? Data()
    do {
        return .success(try X963KDF.derive(secret: shared, sharedInfo: sharedInfo, digest: kdf, byteCount: size))
    } catch {
        return .failure(SecFailure(errSecParam, "ECDHKeyExchange wrong input (\(error))"))
    }
}

/// A number given as a number (Apple reads the requested size only as a CFNumber).
private func exactInteger(_ value: Any) -> Int? {
    switch value {
    case let number as Int: return number
    case let number as NSNumber: return number.intValue
    default: return nil
    }
}

/// Bytes given as Data or NSData (anything else is ignored, as Apple ignores a non-CFData shared info).
private func dataAttribute(_ value: Any) -> Data? {
    switch value {
    case let data as Data: return data
    case let data as NSData: return Data(data)
    default: return nil
    }
}
