import Foundation
internal import WireCrypto

// CryptoKit's P256, P384 and P521 with Apple's names: `P256.Signing.PrivateKey`,
// `P256.KeyAgreement.PublicKey`, `P256.Signing.ECDSASignature`, … over WireCrypto's EC keys,
// ECDSA and ECDH. Each of Apple's key names is a concrete struct of its own, as on iOS (so an app's
// `extension P256.Signing.PrivateKey: SomeProtocol {}` is a plain conformance, not a conditional one
// of a generic type); the structs only hold a box and name their curve, and all their API is one
// implementation in extensions of the underscored protocols below. ECDSA over a message hashes it
// with the curve's hash (SHA-256, SHA-384, SHA-512), as CryptoKit does.

/// Not Apple API: the curve of a NIST key type (`P256.Signing.PrivateKey._Curve` is `_P256Curve`).
public protocol _NISTCurve: Sendable {
    associatedtype _MessageHash: HashFunction
}
public enum _P256Curve: _NISTCurve { public typealias _MessageHash = SHA256 }
public enum _P384Curve: _NISTCurve { public typealias _MessageHash = SHA384 }
public enum _P521Curve: _NISTCurve { public typealias _MessageHash = SHA512 }

extension _NISTCurve {
    static var wireCurve: ECCurve {
        if Self.self == _P256Curve.self { return .p256 }
        if Self.self == _P384Curve.self { return .p384 }
        return .p521
    }

    /// The field prime p, big-endian, the coordinate size (FIPS 186-4 §D.1.2).
    static var fieldPrime: [UInt8] {
        switch wireCurve {
        case .p256: return [UInt8](Data(hexString: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")!)
        case .p384: return [UInt8](Data(hexString: "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
                                                    + "feffffff0000000000000000ffffffff")!)
        case .p521: return [0x01] + [UInt8](repeating: 0xff, count: 65)
        }
    }

    /// p − y for a coordinate y < p (big-endian, same size).
    static func negated(_ y: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: y.count)
        var borrow = 0
        for index in stride(from: y.count - 1, through: 0, by: -1) {
            var difference = Int(fieldPrime[index]) - Int(y[index]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 256 }
            result[index] = UInt8(difference)
        }
        return result
    }
}

/// The compact form (draft-jivsov-ecc-compact, as CryptoKit uses it): X alone, the point being the
/// one of (X, y) and (X, p − y) whose y is the smaller. A key whose Y is the larger has none.
func compactX<Curve: _NISTCurve>(of key: ECPublicKey, curve _: Curve.Type) -> Data? {
    let size = Curve.wireCurve.coordinateByteCount
    let point = [UInt8](key.x963Representation)
    let y = Array(point[(1 + size)...])
    return y.lexicographicallyPrecedes(Curve.negated(y)) || y == Curve.negated(y) ? Data(point[1...size]) : nil
}

public enum P256 {
    public enum Signing {
        public typealias ECDSASignature = NISTECDSASignature<_P256Curve>
    }
    public enum KeyAgreement {}
}

public enum P384 {
    public enum Signing {
        public typealias ECDSASignature = NISTECDSASignature<_P384Curve>
    }
    public enum KeyAgreement {}
}

public enum P521 {
    public enum Signing {
        public typealias ECDSASignature = NISTECDSASignature<_P521Curve>
    }
    public enum KeyAgreement {}
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

/// Not Apple API: the EC public key inside a NIST public key struct.
public struct _ECPublicKeyBox: Sendable {
    let key: ECPublicKey
}

/// Not Apple API: the EC private key inside a NIST private key struct.
public struct _ECPrivateKeyBox: Sendable {
    let key: ECPrivateKey
}

/// Not Apple API: a P-256/384/521 public key (`P256.Signing.PublicKey`, `P384.KeyAgreement.PublicKey`,
/// …); Apple's API of those types is this protocol's extension.
public protocol _NISTPublicKey: Sendable {
    associatedtype _Curve: _NISTCurve
    var _box: _ECPublicKeyBox { get }
    init(_box: _ECPublicKeyBox)
}

/// Not Apple API: a `Signing` public key (verifies ECDSA signatures).
public protocol _NISTSigningPublicKey: _NISTPublicKey {}

/// Not Apple API: a P-256/384/521 private key (`P256.Signing.PrivateKey`, `P521.KeyAgreement.PrivateKey`,
/// …) and the public key type of its namespace.
public protocol _NISTPrivateKey: Sendable {
    associatedtype _Curve: _NISTCurve
    associatedtype PublicKey: _NISTPublicKey where PublicKey._Curve == _Curve
    var _box: _ECPrivateKeyBox { get }
    init(_box: _ECPrivateKeyBox)
}

/// Not Apple API: a `Signing` private key (makes ECDSA signatures).
public protocol _NISTSigningPrivateKey: _NISTPrivateKey {}

/// Not Apple API: a `KeyAgreement` private key (ECDH).
public protocol _NISTKeyAgreementPrivateKey: _NISTPrivateKey, DiffieHellmanKeyAgreement {}

extension _NISTPublicKey {
    private static var curve: ECCurve { _Curve.wireCurve }
    private init(_ key: ECPublicKey) { self.init(_box: _ECPublicKeyBox(key: key)) }

    /// X‖Y (without the 04 prefix).
    public init<D: ContiguousBytes>(rawRepresentation: D) throws {
        let data = contiguousData(rawRepresentation)
        guard data.count == 2 * Self.curve.coordinateByteCount else { throw CryptoKitError.incorrectParameterSize }
        self.init(try parsing(.bytes) { try ECPublicKey(rawRepresentation: data, curve: Self.curve) })
    }

    /// 04‖X‖Y (ANSI X9.63).
    public init<Bytes: ContiguousBytes>(x963Representation: Bytes) throws {
        let data = contiguousData(x963Representation)
        guard data.count == Self.curve.x963PublicKeyByteCount else { throw CryptoKitError.incorrectParameterSize }
        self.init(try parsing(.bytes) { try ECPublicKey(x963Representation: data, curve: Self.curve) })
    }

    /// X alone (the compact form): the point with the smaller of the two y for X.
    public init<Bytes: ContiguousBytes>(compactRepresentation: Bytes) throws {
        let data = contiguousData(compactRepresentation)
        guard data.count == Self.curve.coordinateByteCount else { throw CryptoKitError.incorrectParameterSize }
        let even = try parsing(.bytes) { try ECPublicKey(compressedRepresentation: Data([0x02]) + data, curve: Self.curve) }
        if compactX(of: even, curve: _Curve.self) != nil {
            self.init(even)
        } else {
            self.init(try parsing(.bytes) { try ECPublicKey(compressedRepresentation: Data([0x03]) + data, curve: Self.curve) })
        }
    }

    /// 02‖X or 03‖X (SEC 1 compressed).
    public init<Bytes: ContiguousBytes>(compressedRepresentation: Bytes) throws {
        let data = contiguousData(compressedRepresentation)
        guard data.count == 1 + Self.curve.coordinateByteCount else { throw CryptoKitError.incorrectParameterSize }
        self.init(try parsing(.bytes) { try ECPublicKey(compressedRepresentation: data, curve: Self.curve) })
    }

    /// SubjectPublicKeyInfo DER on this curve.
    public init<Bytes: RandomAccessCollection>(derRepresentation: Bytes) throws where Bytes.Element == UInt8 {
        let key = try parsing(.der) { try ECPublicKey(derRepresentation: Data(derRepresentation)) }
        guard key.curve == Self.curve else { throw CryptoKitASN1Error.invalidASN1Object }
        self.init(key)
    }

    /// PEM `PUBLIC KEY` on this curve.
    public init(pemRepresentation: String) throws {
        let key = try parsing(.pem) { try ECPublicKey(pemRepresentation: pemRepresentation) }
        guard key.curve == Self.curve else { throw CryptoKitASN1Error.invalidPEMDocument }
        self.init(key)
    }

    public var rawRepresentation: Data { Data(_box.key.rawRepresentation) }
    public var x963Representation: Data { _box.key.x963Representation }
    public var compressedRepresentation: Data { _box.key.compressedRepresentation }
    /// X alone when this key's y is the smaller of y and p − y; nil otherwise (as in CryptoKit).
    public var compactRepresentation: Data? { compactX(of: _box.key, curve: _Curve.self) }
    public var derRepresentation: Data { encodedOrTrap { try _box.key.derRepresentation } }
    public var pemRepresentation: String { encodedOrTrap { try _box.key.pemRepresentation } }
}

extension _NISTPrivateKey {
    private static var curve: ECCurve { _Curve.wireCurve }
    private init(_ key: ECPrivateKey) { self.init(_box: _ECPrivateKeyBox(key: key)) }

    /// A fresh key; with `compactRepresentable` (the default, as in CryptoKit) one whose public key
    /// has a compact representation (fresh keys are drawn until one has: half of them do).
    public init(compactRepresentable: Bool = true) {
        do {
            var key = try ECPrivateKey(curve: Self.curve)
            while compactRepresentable && compactX(of: key.publicKey, curve: _Curve.self) == nil {
                key = try ECPrivateKey(curve: Self.curve)
            }
            self.init(key)
        } catch {
            // Generation fails only when OpenSSL cannot work at all; Apple's init cannot fail either.
            preconditionFailure("\(Self.curve.rawValue) key generation failed: \(error)")
        }
    }

    /// K, big-endian, the curve's coordinate size.
    public init<Bytes: ContiguousBytes>(rawRepresentation: Bytes) throws {
        let data = contiguousData(rawRepresentation)
        guard data.count == Self.curve.coordinateByteCount else { throw CryptoKitError.incorrectParameterSize }
        self.init(try parsing(.bytes) { try ECPrivateKey(rawRepresentation: data, curve: Self.curve) })
    }

    /// 04‖X‖Y‖K (ANSI X9.63; what `SecKeyCopyExternalRepresentation` gives).
    public init<Bytes: ContiguousBytes>(x963Representation: Bytes) throws {
        let data = contiguousData(x963Representation)
        guard data.count == Self.curve.x963PrivateKeyByteCount else { throw CryptoKitError.incorrectParameterSize }
        self.init(try parsing(.bytes) { try ECPrivateKey(x963Representation: data, curve: Self.curve) })
    }

    /// PKCS#8 PrivateKeyInfo or SEC 1 ECPrivateKey DER on this curve.
    public init<Bytes: RandomAccessCollection>(derRepresentation: Bytes) throws where Bytes.Element == UInt8 {
        let key = try parsing(.der) { try ECPrivateKey(derRepresentation: Data(derRepresentation)) }
        guard key.curve == Self.curve else { throw CryptoKitASN1Error.invalidASN1Object }
        self.init(key)
    }

    /// PEM `PRIVATE KEY` (PKCS#8) or `EC PRIVATE KEY` (SEC 1) on this curve.
    public init(pemRepresentation: String) throws {
        let key = try parsing(.pem) { try ECPrivateKey(pemRepresentation: pemRepresentation) }
        guard key.curve == Self.curve else { throw CryptoKitASN1Error.invalidPEMDocument }
        self.init(key)
    }

    public var publicKey: PublicKey { PublicKey(_box: _ECPublicKeyBox(key: _box.key.publicKey)) }
    public var rawRepresentation: Data { _box.key.rawRepresentation }
    public var x963Representation: Data { _box.key.x963Representation }
    /// PKCS#8 PrivateKeyInfo DER.
    public var derRepresentation: Data { encodedOrTrap { try _box.key.derRepresentation } }
    /// PEM `PRIVATE KEY` (PKCS#8).
    public var pemRepresentation: String { encodedOrTrap { try _box.key.pemRepresentation } }
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

extension _NISTSigningPrivateKey {
    /// ECDSA over the curve's hash of `data` (P-256: SHA-256, P-384: SHA-384, P-521: SHA-512).
    public func signature<D: DataProtocol>(for data: D) throws -> NISTECDSASignature<_Curve> {
        try signature(for: _Curve._MessageHash.hash(data: data))
    }

    /// ECDSA over a digest the caller computed (any hash; a longer one is cut to the order's size).
    public func signature<D: Digest>(for digest: D) throws -> NISTECDSASignature<_Curve> {
        let der = try asCryptoKit { try _box.key.signature(forDigest: digest.withUnsafeBytes { Data($0) }) }
        return try NISTECDSASignature(der: der)
    }
}

extension _NISTSigningPublicKey {
    public func isValidSignature<D: DataProtocol>(_ signature: NISTECDSASignature<_Curve>, for data: D) -> Bool {
        isValidSignature(signature, for: _Curve._MessageHash.hash(data: data))
    }

    public func isValidSignature<D: Digest>(_ signature: NISTECDSASignature<_Curve>, for digest: D) -> Bool {
        guard let der = try? ECDSASignatureEncoding.der(fromRaw: signature.rawRepresentation, curve: _Curve.wireCurve) else { return false }
        return _box.key.isValidSignature(der, forDigest: digest.withUnsafeBytes { Data($0) })
    }
}

extension _NISTKeyAgreementPrivateKey {
    /// ECDH: the x coordinate of K·Q (SEC 1 §3.3.1), the curve's coordinate size.
    public func sharedSecretFromKeyAgreement(with publicKeyShare: PublicKey) throws -> SharedSecret {
        SharedSecret(bytes: [UInt8](try asCryptoKit { try _box.key.sharedSecret(with: publicKeyShare._box.key) }))
    }
}

// Apple's key types: each a struct of its own that names its curve and its namespace's public key.

extension P256.Signing {
    public struct PublicKey: _NISTSigningPublicKey {
        public typealias _Curve = _P256Curve
        public let _box: _ECPublicKeyBox
        public init(_box: _ECPublicKeyBox) { self._box = _box }
    }
    public struct PrivateKey: _NISTSigningPrivateKey {
        public typealias _Curve = _P256Curve
        public typealias PublicKey = P256.Signing.PublicKey
        public let _box: _ECPrivateKeyBox
        public init(_box: _ECPrivateKeyBox) { self._box = _box }
    }
}

extension P256.KeyAgreement {
    public struct PublicKey: _NISTPublicKey {
        public typealias _Curve = _P256Curve
        public let _box: _ECPublicKeyBox
        public init(_box: _ECPublicKeyBox) { self._box = _box }
    }
    public struct PrivateKey: _NISTKeyAgreementPrivateKey {
        public typealias _Curve = _P256Curve
        public typealias PublicKey = P256.KeyAgreement.PublicKey
        public let _box: _ECPrivateKeyBox
        public init(_box: _ECPrivateKeyBox) { self._box = _box }
    }
}

extension P384.Signing {
    public struct PublicKey: _NISTSigningPublicKey {
        public typealias _Curve = _P384Curve
        public let _box: _ECPublicKeyBox
        public init(_box: _ECPublicKeyBox) { self._box = _box }
    }
    public struct PrivateKey: _NISTSigningPrivateKey {
        public typealias _Curve = _P384Curve
        public typealias PublicKey = P384.Signing.PublicKey
        public let _box: _ECPrivateKeyBox
        public init(_box: _ECPrivateKeyBox) { self._box = _box }
    }
}

extension P384.KeyAgreement {
    public struct PublicKey: _NISTPublicKey {
        public typealias _Curve = _P384Curve
        public let _box: _ECPublicKeyBox
        public init(_box: _ECPublicKeyBox) { self._box = _box }
    }
    public struct PrivateKey: _NISTKeyAgreementPrivateKey {
        public typealias _Curve = _P384Curve
        public typealias PublicKey = P384.KeyAgreement.PublicKey
        public let _box: _ECPrivateKeyBox
        public init(_box: _ECPrivateKeyBox) { self._box = _box }
    }
}

extension P521.Signing {
    public struct PublicKey: _NISTSigningPublicKey {
        public typealias _Curve = _P521Curve
        public let _box: _ECPublicKeyBox
        public init(_box: _ECPublicKeyBox) { self._box = _box }
    }
    public struct PrivateKey: _NISTSigningPrivateKey {
        public typealias _Curve = _P521Curve
        public typealias PublicKey = P521.Signing.PublicKey
        public let _box: _ECPrivateKeyBox
        public init(_box: _ECPrivateKeyBox) { self._box = _box }
    }
}

extension P521.KeyAgreement {
    public struct PublicKey: _NISTPublicKey {
        public typealias _Curve = _P521Curve
        public let _box: _ECPublicKeyBox
        public init(_box: _ECPublicKeyBox) { self._box = _box }
    }
    public struct PrivateKey: _NISTKeyAgreementPrivateKey {
        public typealias _Curve = _P521Curve
        public typealias PublicKey = P521.KeyAgreement.PublicKey
        public let _box: _ECPrivateKeyBox
        public init(_box: _ECPrivateKeyBox) { self._box = _box }
    }
}
