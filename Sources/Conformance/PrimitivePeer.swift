import Foundation
import PythonBridge
import WireCrypto

/// Signature verification, key agreement and HKDF with every parameter given: what Wycheproof's
/// signature, ECDH/X25519 and HKDF files ask of an implementation (`crosscheck wycheproof`). Apart
/// from `CryptoPeer`, whose calls are the wire protocols', so that a peer a test plants there need
/// not offer these; a check that needs them and meets a peer without them skips, saying so.
///
/// Failures are `PeerFailure`s of the shared kinds: a key that cannot be used is `BadKey`, a size
/// out of range `BadLength`, a scheme or curve the implementation lacks `Unsupported`.
public protocol PrimitivePeer: Sendable {
    var name: String { get }
    /// Whether `signature` is `publicKey`'s (SPKI DER) signature of `message`. A signature that
    /// does not verify is `false`, not an error.
    func verifySignature(_ signature: Data, message: Data, publicKey: Data, scheme: VerificationScheme) throws -> Bool
    /// The shared secret of our `privateKey` (the big-endian scalar; X25519: its 32 bytes) and the
    /// peer's `publicKey` in `encoding`.
    func agreeKey(_ curve: KeyAgreementCurve, privateKey: Data, publicKey: Data, encoding: PeerKeyEncoding) throws -> Data
    /// RFC 5869 HKDF; an empty salt is HashLen zeros.
    func hkdf(_ digest: Digest, ikm: Data, salt: Data, info: Data, length: Int) throws -> Data
}

/// A signature scheme as a verifier needs it.
public enum VerificationScheme: Sendable, Equatable, CustomStringConvertible {
    case rsaPKCS1v15(Digest)
    /// MGF1 with `mgf1`; Apple's Security uses the message hash for both and a salt as long as it.
    case rsaPSS(Digest, mgf1: Digest, saltLength: Int)
    /// X9.62 `ECDSA-Sig-Value` DER (`SecKeyCreateSignature`, CryptoKit `derRepresentation`).
    case ecdsaDER(Digest)
    /// IEEE P1363 r‖s, each as long as the group order (CryptoKit `rawRepresentation`).
    case ecdsaP1363(Digest)
    case ed25519

    public var description: String {
        switch self {
        case let .rsaPKCS1v15(digest): return "RSA PKCS#1 v1.5 \(digest.rawValue)"
        case let .rsaPSS(digest, mgf1, salt): return "RSA-PSS \(digest.rawValue) MGF1-\(mgf1.rawValue) salt \(salt)"
        case let .ecdsaDER(digest): return "ECDSA \(digest.rawValue) DER"
        case let .ecdsaP1363(digest): return "ECDSA \(digest.rawValue) P1363"
        case .ed25519: return "Ed25519"
        }
    }
}

/// Curves for key agreement, named as Apple's modules name them.
public enum KeyAgreementCurve: String, Sendable, CaseIterable {
    case p256 = "P-256", p384 = "P-384", p521 = "P-521", x25519 = "X25519"

    /// Wycheproof's names ("secp256r1", "curve25519").
    public init?(wycheproofName: String) {
        switch wycheproofName {
        case "secp256r1": self = .p256
        case "secp384r1": self = .p384
        case "secp521r1": self = .p521
        case "curve25519": self = .x25519
        default: return nil
        }
    }
}

/// How the peer's public key arrives for key agreement.
public enum PeerKeyEncoding: String, Sendable, CaseIterable {
    /// SubjectPublicKeyInfo DER.
    case spkiDER = "spki-der"
    /// An X9.62 EC point: 04‖X‖Y (what `SecKeyCreateWithData` and `x963Representation` take), or compressed.
    case x962
    /// X25519's 32 bytes.
    case raw
}

extension PythonPeer: PrimitivePeer {
    public func verifySignature(_ signature: Data, message: Data, publicKey: Data, scheme: VerificationScheme) throws -> Bool {
        var arguments: [String: PythonValue] = ["key": .bytes(publicKey), "message": .bytes(message), "signature": .bytes(signature)]
        switch scheme {
        case let .rsaPKCS1v15(digest): arguments["scheme"] = "rsa-pkcs1v15"; arguments["hash"] = .string(digest.rawValue)
        case let .rsaPSS(digest, mgf1, salt):
            arguments["scheme"] = "rsa-pss"; arguments["hash"] = .string(digest.rawValue)
            arguments["mgf1_hash"] = .string(mgf1.rawValue); arguments["salt_length"] = .int(salt)
        case let .ecdsaDER(digest): arguments["scheme"] = "ecdsa-der"; arguments["hash"] = .string(digest.rawValue)
        case let .ecdsaP1363(digest): arguments["scheme"] = "ecdsa-p1363"; arguments["hash"] = .string(digest.rawValue)
        case .ed25519: arguments["scheme"] = "ed25519"
        }
        let reply = try handle("sig.verify", arguments)
        guard case let .bool(verified) = reply else { throw PeerFailure(.internal, "pythonref returned \(reply) where a bool was expected") }
        return verified
    }

    public func agreeKey(_ curve: KeyAgreementCurve, privateKey: Data, publicKey: Data, encoding: PeerKeyEncoding) throws -> Data {
        try bytes(handle("kex.agree", ["curve": .string(curve.rawValue), "private": .bytes(privateKey), "public": .bytes(publicKey),
                                       "encoding": .string(encoding.rawValue)]))
    }

    public func hkdf(_ digest: Digest, ikm: Data, salt: Data, info: Data, length: Int) throws -> Data {
        try bytes(handle("hkdf.derive", ["hash": .string(digest.rawValue), "ikm": .bytes(ikm), "salt": .bytes(salt), "info": .bytes(info),
                                         "length": .int(length)]))
    }

    private func bytes(_ value: PythonValue) throws -> Data {
        guard let data = value.bytesValue else { throw PeerFailure(.internal, "pythonref returned \(value) where bytes were expected") }
        return data
    }
}

/// The Swift side's primitives: WireCrypto's. RSA signatures take what Apple's Security takes, PSS
/// with MGF1 of the message hash and a salt as long as it; anything else is `Unsupported`.
extension SwiftPeer: PrimitivePeer {
    public func verifySignature(_ signature: Data, message: Data, publicKey: Data, scheme: VerificationScheme) throws -> Bool {
        try mappedFailures {
            switch scheme {
            case let .rsaPKCS1v15(digest):
                return try RSAPublicKey(importing: publicKey).verify(signature: signature, message: message, scheme: .pkcs1v15(digest))
            case let .rsaPSS(digest, mgf1, salt):
                guard mgf1 == digest, salt == digest.byteCount else {
                    throw PeerFailure(.unsupported, "WireCrypto's RSA-PSS is Apple's: MGF1 of the message hash and a \(digest.byteCount)-byte salt, not \(scheme)")
                }
                return try RSAPublicKey(importing: publicKey).verify(signature: signature, message: message, scheme: .pss(digest))
            case let .ecdsaDER(digest):
                return try ECPublicKey(derRepresentation: publicKey).isValidSignature(signature, for: message, digest: digest)
            case let .ecdsaP1363(digest):
                let key = try ECPublicKey(derRepresentation: publicKey)
                // r‖s that is not two in-range integers of the curve's size is no signature at all.
                guard let der = try? ECDSASignatureEncoding.der(fromRaw: signature, curve: key.curve) else { return false }
                return key.isValidSignature(der, for: message, digest: digest)
            case .ed25519:
                return try Ed25519PublicKey(derRepresentation: publicKey).isValidSignature(signature, for: message)
            }
        }
    }

    public func agreeKey(_ curve: KeyAgreementCurve, privateKey: Data, publicKey: Data, encoding: PeerKeyEncoding) throws -> Data {
        try mappedFailures {
            guard let ecCurve = ECCurve(rawValue: curve.rawValue) else {
                let theirs: X25519PublicKey
                switch encoding {
                case .raw: theirs = try X25519PublicKey(rawRepresentation: publicKey)
                case .spkiDER: theirs = try X25519PublicKey(derRepresentation: publicKey)
                case .x962: throw PeerFailure(.unsupported, "an X25519 key is 32 raw bytes or SPKI DER, not an X9.62 point")
                }
                return try X25519PrivateKey(rawRepresentation: privateKey).sharedSecret(with: theirs)
            }
            // The scalar as an integer (Wycheproof's may carry a sign byte or be short): K at the curve's size.
            let scalar = privateKey.drop { $0 == 0 }
            guard scalar.count <= ecCurve.coordinateByteCount else {
                throw PeerFailure(.badKey, "a \(scalar.count)-byte scalar does not fit \(curve.rawValue)")
            }
            let ours = try ECPrivateKey(rawRepresentation: Data(count: ecCurve.coordinateByteCount - scalar.count) + scalar, curve: ecCurve)
            let theirs: ECPublicKey
            switch encoding {
            case .spkiDER: theirs = try ECPublicKey(derRepresentation: publicKey)
            case .x962 where publicKey.first == 0x02 || publicKey.first == 0x03:
                theirs = try ECPublicKey(compressedRepresentation: publicKey, curve: ecCurve)
            case .x962: theirs = try ECPublicKey(x963Representation: publicKey, curve: ecCurve)
            case .raw: throw PeerFailure(.unsupported, "a \(curve.rawValue) key is SPKI DER or an X9.62 point, not raw bytes")
            }
            return try ours.sharedSecret(with: theirs)
        }
    }

    public func hkdf(_ digest: Digest, ikm: Data, salt: Data, info: Data, length: Int) throws -> Data {
        try mappedFailures { Data(try HKDF.deriveKey(digest: digest, inputKeyMaterial: ikm, salt: salt, info: info, outputByteCount: length)) }
    }

    private func mappedFailures<R>(_ body: () throws -> R) throws -> R {
        do { return try body() } catch { throw ErrorEquivalence.failure(from: error) }
    }
}
