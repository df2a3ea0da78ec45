import Foundation
internal import WireCrypto

// CryptoKit's P256, P384 and P521 with Apple's names: `P256.Signing.PrivateKey`,
// `P256.KeyAgreement.PublicKey`, `P256.Signing.ECDSASignature`, … over WireCrypto's EC keys,
// ECDSA and ECDH. Apple generates the nine types per curve from one template; here they are three
// generic types (a key is public or private; a curve parameter and a use parameter pick the rest),
// and Apple's names are type aliases of them, so app code reads and compiles as on iOS. ECDSA over
// a message hashes it with the curve's hash (SHA-256, SHA-384, SHA-512), as CryptoKit does.

/// Not Apple API: the curve parameter of the NIST key types (`P256.Signing.PrivateKey` is
/// `NISTPrivateKey<_P256Curve, _SigningUse>`).
public protocol _NISTCurve: Sendable {
    associatedtype _MessageHash: HashFunction
}
public enum _P256Curve: _NISTCurve { public typealias _MessageHash = SHA256 }
public enum _P384Curve: _NISTCurve { public typealias _MessageHash = SHA384 }
public enum _P521Curve: _NISTCurve { public typealias _MessageHash = SHA512 }

/// Not Apple API: what a NIST key is for, `Signing` or `KeyAgreement` (Apple's keys of the two
/// namespaces are distinct types, so one cannot be passed for the other).
public protocol _KeyUse: Sendable {}
public enum _SigningUse: _KeyUse {}
public enum _KeyAgreementUse: _KeyUse {}

extension _NISTCurve {
    static var wireCurve: ECCurve {
        if Self.self == _P256Curve.self { return .p256 }
        if Self.self == _P384Curve.self { return .p384 }
        return .p521
    }
}

public enum P256 {
    public enum Signing {
        public typealias PublicKey = NISTPublicKey<_P256Curve, _SigningUse>
        public typealias PrivateKey = NISTPrivateKey<_P256Curve, _SigningUse>
        public typealias ECDSASignature = NISTECDSASignature<_P256Curve>
    }
    public enum KeyAgreement {
        public typealias PublicKey = NISTPublicKey<_P256Curve, _KeyAgreementUse>
        public typealias PrivateKey = NISTPrivateKey<_P256Curve, _KeyAgreementUse>
    }
}

public enum P384 {
    public enum Signing {
        public typealias PublicKey = NISTPublicKey<_P384Curve, _SigningUse>
        public typealias PrivateKey = NISTPrivateKey<_P384Curve, _SigningUse>
        public typealias ECDSASignature = NISTECDSASignature<_P384Curve>
    }
    public enum KeyAgreement {
        public typealias PublicKey = NISTPublicKey<_P384Curve, _KeyAgreementUse>
        public typealias PrivateKey = NISTPrivateKey<_P384Curve, _KeyAgreementUse>
    }
}

public enum P521 {
    public enum Signing {
        public typealias PublicKey = NISTPublicKey<_P521Curve, _SigningUse>
        public typealias PrivateKey = NISTPrivateKey<_P521Curve, _SigningUse>
        public typealias ECDSASignature = NISTECDSASignature<_P521Curve>
    }
    public enum KeyAgreement {
        public typealias PublicKey = NISTPublicKey<_P521Curve, _KeyAgreementUse>
        public typealias PrivateKey = NISTPrivateKey<_P521Curve, _KeyAgreementUse>
    }
}

/// CryptoKit's errors for a key or signature that does not parse: wrong lengths are
/// `incorrectParameterSize`, DER is `CryptoKitASN1Error.invalidASN1Object`, PEM is
/// `.invalidPEMDocument`, a point off the curve or a scalar out of range is
/// `underlyingCoreCryptoError`.
func keyError(_ error: Error, format: KeyFormat) -> Error {
    switch format {
    case .der: return CryptoKitASN1Error.invalidASN1Object
    case .pem: return CryptoKitASN1Error.invalidPEMDocument
    case .bytes: return cryptoKitError(from: error)
    }
}

enum KeyFormat { case bytes, der, pem }

func parsing<R>(_ format: KeyFormat, _ body: () throws -> R) throws -> R {
    do { return try body() } catch { throw keyError(error, format: format) }
}

/// Encodes a key that was checked on the way in: only OpenSSL failing outright can stop it, and
/// Apple's properties do not throw.
func encodedOrTrap<R>(_ body: () throws -> R) -> R {
    do { return try body() } catch { preconditionFailure("key encoding failed: \(error)") }
}

func contiguousData<B: ContiguousBytes>(_ bytes: B) -> Data { bytes.withUnsafeBytes { Data($0) } }

/// A P-256/384/521 public key (`P256.Signing.PublicKey`, `P384.KeyAgreement.PublicKey`, …).
public struct NISTPublicKey<Curve: _NISTCurve, Use: _KeyUse>: Sendable {
    let wrapped: ECPublicKey

    init(wrapping key: ECPublicKey) { wrapped = key }

    /// X‖Y (without the 04 prefix).
    public init<D: ContiguousBytes>(rawRepresentation: D) throws {
        let data = contiguousData(rawRepresentation)
        guard data.count == 2 * Curve.wireCurve.coordinateByteCount else { throw CryptoKitError.incorrectParameterSize }
        wrapped = try parsing(.bytes) { try ECPublicKey(rawRepresentation: data, curve: Curve.wireCurve) }
    }

    /// 04‖X‖Y (ANSI X9.63).
    public init<Bytes: ContiguousBytes>(x963Representation: Bytes) throws {
        let data = contiguousData(x963Representation)
        guard data.count == Curve.wireCurve.x963PublicKeyByteCount else { throw CryptoKitError.incorrectParameterSize }
        wrapped = try parsing(.bytes) { try ECPublicKey(x963Representation: data, curve: Curve.wireCurve) }
    }

    /// 02‖X or 03‖X (SEC 1 compressed).
    public init<Bytes: ContiguousBytes>(compressedRepresentation: Bytes) throws {
        let data = contiguousData(compressedRepresentation)
        guard data.count == 1 + Curve.wireCurve.coordinateByteCount else { throw CryptoKitError.incorrectParameterSize }
        wrapped = try parsing(.bytes) { try ECPublicKey(compressedRepresentation: data, curve: Curve.wireCurve) }
    }

    /// SubjectPublicKeyInfo DER on this curve.
    public init<Bytes: RandomAccessCollection>(derRepresentation: Bytes) throws where Bytes.Element == UInt8 {
        let key = try parsing(.der) { try ECPublicKey(derRepresentation: Data(derRepresentation)) }
        guard key.curve == Curve.wireCurve else { throw CryptoKitASN1Error.invalidASN1Object }
        wrapped = key
    }

    /// PEM `PUBLIC KEY` on this curve.
    public init(pemRepresentation: String) throws {
        let key = try parsing(.pem) { try ECPublicKey(pemRepresentation: pemRepresentation) }
        guard key.curve == Curve.wireCurve else { throw CryptoKitASN1Error.invalidPEMDocument }
        wrapped = key
    }

    public var rawRepresentation: Data { Data(wrapped.rawRepresentation) }
    public var x963Representation: Data { wrapped.x963Representation }
    public var compressedRepresentation: Data { wrapped.compressedRepresentation }
    public var derRepresentation: Data { encodedOrTrap { try wrapped.derRepresentation } }
    public var pemRepresentation: String { encodedOrTrap { try wrapped.pemRepresentation } }
}

/// A P-256/384/521 private key (`P256.Signing.PrivateKey`, `P521.KeyAgreement.PrivateKey`, …).
public struct NISTPrivateKey<Curve: _NISTCurve, Use: _KeyUse>: Sendable {
    let wrapped: ECPrivateKey

    /// A fresh key. `compactRepresentable` is accepted for Apple's signature; compact
    /// representations are not provided (docs/APPLE-MODULES.md), so it changes nothing.
    public init(compactRepresentable: Bool = true) {
        do {
            wrapped = try ECPrivateKey(curve: Curve.wireCurve)
        } catch {
            // Generation fails only when OpenSSL cannot work at all; Apple's init cannot fail either.
            preconditionFailure("\(Curve.wireCurve.rawValue) key generation failed: \(error)")
        }
    }

    /// K, big-endian, the curve's coordinate size.
    public init<Bytes: ContiguousBytes>(rawRepresentation: Bytes) throws {
        let data = contiguousData(rawRepresentation)
        guard data.count == Curve.wireCurve.coordinateByteCount else { throw CryptoKitError.incorrectParameterSize }
        wrapped = try parsing(.bytes) { try ECPrivateKey(rawRepresentation: data, curve: Curve.wireCurve) }
    }

    /// 04‖X‖Y‖K (ANSI X9.63; what `SecKeyCopyExternalRepresentation` gives).
    public init<Bytes: ContiguousBytes>(x963Representation: Bytes) throws {
        let data = contiguousData(x963Representation)
        guard data.count == Curve.wireCurve.x963PrivateKeyByteCount else { throw CryptoKitError.incorrectParameterSize }
        wrapped = try parsing(.bytes) { try ECPrivateKey(x963Representation: data, curve: Curve.wireCurve) }
    }

    /// PKCS#8 PrivateKeyInfo or SEC 1 ECPrivateKey DER on this curve.
    public init<Bytes: RandomAccessCollection>(derRepresentation: Bytes) throws where Bytes.Element == UInt8 {
        let key = try parsing(.der) { try ECPrivateKey(derRepresentation: Data(derRepresentation)) }
        guard key.curve == Curve.wireCurve else { throw CryptoKitASN1Error.invalidASN1Object }
        wrapped = key
    }

    /// PEM `PRIVATE KEY` (PKCS#8) or `EC PRIVATE KEY` (SEC 1) on this curve.
    public init(pemRepresentation: String) throws {
        let key = try parsing(.pem) { try ECPrivateKey(pemRepresentation: pemRepresentation) }
        guard key.curve == Curve.wireCurve else { throw CryptoKitASN1Error.invalidPEMDocument }
        wrapped = key
    }

    public var publicKey: NISTPublicKey<Curve, Use> { NISTPublicKey(wrapping: wrapped.publicKey) }
    public var rawRepresentation: Data { wrapped.rawRepresentation }
    public var x963Representation: Data { wrapped.x963Representation }
    /// PKCS#8 PrivateKeyInfo DER.
    public var derRepresentation: Data { encodedOrTrap { try wrapped.derRepresentation } }
    /// PEM `PRIVATE KEY` (PKCS#8).
    public var pemRepresentation: String { encodedOrTrap { try wrapped.pemRepresentation } }
}

/// An ECDSA signature (`P256.Signing.ECDSASignature`, …): raw r‖s, or DER `ECDSA-Sig-Value`.
public struct NISTECDSASignature<Curve: _NISTCurve>: ContiguousBytes, Sendable {
    /// r‖s, each the curve's coordinate size.
    public let rawRepresentation: Data

    public init<D: DataProtocol>(rawRepresentation: D) throws {
        guard rawRepresentation.count == 2 * Curve.wireCurve.coordinateByteCount else { throw CryptoKitError.incorrectParameterSize }
        self.rawRepresentation = Data(rawRepresentation)
    }

    public init<D: DataProtocol>(derRepresentation: D) throws {
        rawRepresentation = try parsing(.der) { try ECDSASignatureEncoding.raw(fromDER: Data(derRepresentation), curve: Curve.wireCurve) }
    }

    init(der: Data) throws {
        rawRepresentation = try asCryptoKit { try ECDSASignatureEncoding.raw(fromDER: der, curve: Curve.wireCurve) }
    }

    /// DER `SEQUENCE { r INTEGER, s INTEGER }`.
    public var derRepresentation: Data {
        do {
            return try ECDSASignatureEncoding.der(fromRaw: rawRepresentation, curve: Curve.wireCurve)
        } catch {
            // The raw form's length is checked on the way in; any r‖s of that length has a DER form.
            preconditionFailure("ECDSA signature DER encoding failed: \(error)")
        }
    }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try rawRepresentation.withUnsafeBytes(body)
    }
}

extension NISTPrivateKey where Use == _SigningUse {
    /// ECDSA over the curve's hash of `data` (P-256: SHA-256, P-384: SHA-384, P-521: SHA-512).
    public func signature<D: DataProtocol>(for data: D) throws -> NISTECDSASignature<Curve> {
        try signature(for: Curve._MessageHash.hash(data: data))
    }

    /// ECDSA over a digest the caller computed (any hash; a longer one is cut to the order's size).
    public func signature<D: Digest>(for digest: D) throws -> NISTECDSASignature<Curve> {
        let der = try asCryptoKit { try wrapped.signature(forDigest: digest.withUnsafeBytes { Data($0) }) }
        return try NISTECDSASignature(der: der)
    }
}

extension NISTPublicKey where Use == _SigningUse {
    public func isValidSignature<D: DataProtocol>(_ signature: NISTECDSASignature<Curve>, for data: D) -> Bool {
        isValidSignature(signature, for: Curve._MessageHash.hash(data: data))
    }

    public func isValidSignature<D: Digest>(_ signature: NISTECDSASignature<Curve>, for digest: D) -> Bool {
        guard let der = try? ECDSASignatureEncoding.der(fromRaw: signature.rawRepresentation, curve: Curve.wireCurve) else { return false }
        return wrapped.isValidSignature(der, forDigest: digest.withUnsafeBytes { Data($0) })
    }
}

extension NISTPrivateKey: DiffieHellmanKeyAgreement where Use == _KeyAgreementUse {
    /// ECDH: the x coordinate of K·Q (SEC 1 §3.3.1), the curve's coordinate size.
    public func sharedSecretFromKeyAgreement(with publicKeyShare: NISTPublicKey<Curve, Use>) throws -> SharedSecret {
        SharedSecret(bytes: [UInt8](try asCryptoKit { try wrapped.sharedSecret(with: publicKeyShare.wrapped) }))
    }
}
