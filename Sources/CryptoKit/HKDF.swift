import Foundation
internal import WireCrypto

// CryptoKit's HKDF<H> (RFC 5869) with Apple's signatures, over WireCrypto's HKDF (OpenSSL's
// EVP_KDF). Apple's functions do not throw: an output length outside 1…255 × the hash length traps
// there (its SymmetricKeySize and the block counter's UInt8), and traps here, with the reason.

/// The OpenSSL digest behind a CryptoKit hash function, for the primitives WireCrypto computes by
/// name (HKDF, the X9.63 KDF).
protocol OpenSSLNamedHash {
    static var wireDigest: WireCrypto.Digest { get }
}

extension SHA256: OpenSSLNamedHash { static var wireDigest: WireCrypto.Digest { .sha256 } }
extension SHA384: OpenSSLNamedHash { static var wireDigest: WireCrypto.Digest { .sha384 } }
extension SHA512: OpenSSLNamedHash { static var wireDigest: WireCrypto.Digest { .sha512 } }
extension Insecure.SHA1: OpenSSLNamedHash { static var wireDigest: WireCrypto.Digest { .sha1 } }

/// The WireCrypto digest for `H`. Insecure.MD5 (and a hash function an app defines itself) are not
/// offered to HKDF or X9.63 here: stopping with the reason beats deriving a key no peer can match.
func wireDigest<H: HashFunction>(of _: H.Type, for operation: String) -> WireCrypto.Digest {
    guard let named = H.self as? OpenSSLNamedHash.Type else {
        preconditionFailure("\(operation) with \(H.self): this CryptoKit derives keys with SHA256, SHA384, SHA512 "
                            + "and Insecure.SHA1 only (docs/APPLE-MODULES.md)")
    }
    return named.wireDigest
}

/// Runs a WireCrypto derivation whose only possible failure is an output length Apple's CryptoKit
/// also traps on (its functions do not throw).
func derivedOrTrap(_ operation: String, _ body: () throws -> [UInt8]) -> SymmetricKey {
    do {
        return SymmetricKey(data: try body())
    } catch {
        preconditionFailure("\(operation): \(error)")
    }
}

/// CryptoKit's HMAC-based key derivation function (RFC 5869).
public struct HKDF<H: HashFunction>: Sendable {
    public static func deriveKey<Salt: DataProtocol, Info: DataProtocol>(
        inputKeyMaterial: SymmetricKey, salt: Salt, info: Info, outputByteCount: Int
    ) -> SymmetricKey {
        let digest = wireDigest(of: H.self, for: "HKDF")
        return derivedOrTrap("HKDF<\(H.self)>.deriveKey") {
            try WireCrypto.HKDF.deriveKey(digest: digest, inputKeyMaterial: inputKeyMaterial.bytes, salt: salt, info: info,
                                          outputByteCount: outputByteCount)
        }
    }

    public static func deriveKey<Info: DataProtocol>(inputKeyMaterial: SymmetricKey, info: Info, outputByteCount: Int) -> SymmetricKey {
        deriveKey(inputKeyMaterial: inputKeyMaterial, salt: [UInt8](), info: info, outputByteCount: outputByteCount)
    }

    public static func deriveKey<Salt: DataProtocol>(inputKeyMaterial: SymmetricKey, salt: Salt, outputByteCount: Int) -> SymmetricKey {
        deriveKey(inputKeyMaterial: inputKeyMaterial, salt: salt, info: [UInt8](), outputByteCount: outputByteCount)
    }

    public static func deriveKey(inputKeyMaterial: SymmetricKey, outputByteCount: Int) -> SymmetricKey {
        deriveKey(inputKeyMaterial: inputKeyMaterial, salt: [UInt8](), info: [UInt8](), outputByteCount: outputByteCount)
    }

    /// HKDF-Extract: the pseudorandom key, as the HMAC of the input key material under the salt
    /// (nil and empty are the same salt).
    public static func extract<Salt: DataProtocol>(inputKeyMaterial: SymmetricKey, salt: Salt?) -> HashedAuthenticationCode<H> {
        let digest = wireDigest(of: H.self, for: "HKDF")
        let prk = derivedOrTrap("HKDF<\(H.self)>.extract") {
            try WireCrypto.HKDF.extract(digest: digest, inputKeyMaterial: inputKeyMaterial.bytes, salt: salt.map { Array($0) } ?? [])
        }
        return HashedAuthenticationCode(bytes: prk.bytes)
    }

    /// HKDF-Expand: `outputByteCount` bytes (1…255 × the hash length) from a pseudorandom key.
    public static func expand<PRK: ContiguousBytes, Info: DataProtocol>(
        pseudoRandomKey prk: PRK, info: Info?, outputByteCount: Int
    ) -> SymmetricKey {
        let digest = wireDigest(of: H.self, for: "HKDF")
        let prkBytes = prk.withUnsafeBytes { [UInt8]($0) }
        return derivedOrTrap("HKDF<\(H.self)>.expand") {
            try WireCrypto.HKDF.expand(digest: digest, pseudoRandomKey: prkBytes, info: info.map { Array($0) } ?? [],
                                       outputByteCount: outputByteCount)
        }
    }
}
