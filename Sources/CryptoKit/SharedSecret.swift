import Foundation
internal import WireCrypto

/// CryptoKit's `DiffieHellmanKeyAgreement`: a private key that agrees a secret with a peer's public key.
public protocol DiffieHellmanKeyAgreement {
    associatedtype PublicKey
    var publicKey: PublicKey { get }
    func sharedSecretFromKeyAgreement(with publicKeyShare: PublicKey) throws -> SharedSecret
}

/// CryptoKit's `SharedSecret`: the result of a key agreement, not a key by itself; derive one with
/// HKDF or the X9.63 KDF. As in CryptoKit, it has no public initialiser (only key agreement makes
/// one), equality is constant-time, and its bytes are read through `withUnsafeBytes`.
public struct SharedSecret: ContiguousBytes, Sendable {
    let bytes: [UInt8]

    init(bytes: [UInt8]) { self.bytes = bytes }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    /// HKDF (RFC 5869) with the secret as input key material: what Apple's sample code and
    /// ECIES-style app protocols use.
    public func hkdfDerivedSymmetricKey<H: HashFunction, Salt: DataProtocol, SI: DataProtocol>(
        using hashFunction: H.Type, salt: Salt, sharedInfo: SI, outputByteCount: Int
    ) -> SymmetricKey {
        HKDF<H>.deriveKey(inputKeyMaterial: SymmetricKey(data: bytes), salt: salt, info: sharedInfo, outputByteCount: outputByteCount)
    }

    /// The ANSI X9.63 KDF (SEC 1 §3.6.1) with the secret as Z: hash(Z ‖ counter ‖ sharedInfo) for
    /// counter = 1, 2, …, cut to `outputByteCount` bytes.
    public func x963DerivedSymmetricKey<H: HashFunction, SI: DataProtocol>(
        using hashFunction: H.Type, sharedInfo: SI, outputByteCount: Int
    ) -> SymmetricKey {
        let digest = wireDigest(of: H.self, for: "X9.63 KDF")
        return derivedOrTrap("SharedSecret.x963DerivedSymmetricKey") {
            [UInt8](try X963KDF.derive(secret: Data(bytes), sharedInfo: Data(sharedInfo), digest: digest, byteCount: outputByteCount))
        }
    }
}

extension SharedSecret: Hashable, CustomStringConvertible {
    public static func == (lhs: SharedSecret, rhs: SharedSecret) -> Bool { constantTimeEqual(lhs.bytes, rhs.bytes) }

    /// Compares with any bytes in constant time, as CryptoKit offers.
    public static func == <D: DataProtocol>(lhs: SharedSecret, rhs: D) -> Bool { constantTimeEqual(lhs.bytes, rhs) }

    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }

    public var description: String { "SharedSecret: \(Data(bytes).hexString)" }
}
