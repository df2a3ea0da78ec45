import Foundation
import WireCrypto

/// The private half of a description's EC or X25519 key (`type = "ec-p256"`, `"ec-p384"`, `"x25519"`):
/// ECDSA signatures (P-256) and key agreement.
public enum CurvePrivateKey: Sendable {
    case ec(ECPrivateKey)
    case x25519(X25519PrivateKey)

    /// A fresh key of `type` (an EC or X25519 type).
    public init(fresh type: ProtocolDescription.KeyType) throws {
        switch type {
        case .x25519: self = .x25519(try X25519PrivateKey())
        case .ecP384: self = .ec(try ECPrivateKey(curve: .p384))
        default: self = .ec(try ECPrivateKey(curve: .p256))
        }
    }

    public var publicKey: CurvePublicKey {
        get throws {
            switch self {
            case let .ec(key): return .ec(key.publicKey)
            case let .x25519(key): return .x25519(try key.publicKey)
            }
        }
    }

    /// PKCS#8 PEM, as the Python engine loads a private key.
    public var pemRepresentation: String {
        get throws {
            switch self {
            case let .ec(key): return try key.pemRepresentation
            case let .x25519(key): return try key.pemRepresentation
            }
        }
    }

    /// The ECDH shared secret with `peer` (SEC 1 v2 §3.3.1: the x-coordinate; RFC 7748 §6.1 for
    /// X25519), refusing an all-zero X25519 result: a small-order public key, which RFC 7748 §6.1
    /// lets a party check for and pyca and OpenSSL refuse.
    public func sharedSecret(with peer: CurvePublicKey) throws -> Data {
        switch (self, peer) {
        case let (.ec(own), .ec(other)):
            guard own.curve == other.curve else { throw DescribedRefusal(reason: "key agreement: the peer's key is on \(other.curve.rawValue), ours on \(own.curve.rawValue)") }
            return try own.sharedSecret(with: other)
        case let (.x25519(own), .x25519(other)):
            let shared: Data
            do { shared = try own.sharedSecret(with: other) } catch {
                throw DescribedRefusal(reason: "key agreement: X25519 with the peer's key gives no shared secret (a small-order key gives all zeros; RFC 7748 §6.1)")
            }
            guard shared.contains(where: { $0 != 0 }) else {
                throw DescribedRefusal(reason: "key agreement: the X25519 shared secret is all zeros (the peer's key has small order; RFC 7748 §6.1)")
            }
            return shared
        default:
            throw DescribedRefusal(reason: "key agreement: the peer's key is not of our key's type")
        }
    }
}

/// The public half of a description's EC or X25519 key.
public enum CurvePublicKey: Sendable {
    case ec(ECPublicKey)
    case x25519(X25519PublicKey)

    /// SubjectPublicKeyInfo PEM.
    public var pemRepresentation: String {
        get throws {
            switch self {
            case let .ec(key): return try key.pemRepresentation
            case let .x25519(key): return try key.pemRepresentation
            }
        }
    }

    /// The EC key, for ECDSA (a `signature` value's key is `ec-p256` by the description).
    public var ecKey: ECPublicKey? { if case let .ec(key) = self { return key }; return nil }

    /// The key's bytes, to tell two keys apart (a SEC 1 uncompressed point, X25519's 32 bytes).
    public var identity: Data {
        switch self {
        case let .ec(key): return key.x963Representation
        case let .x25519(key): return key.rawRepresentation
        }
    }
}

extension DescribedBytes {
    /// An EC or X25519 key's public half in `format` (SPKI PEM — no newline after END, as CryptoKit
    /// writes it; `pem-spki-newline` adds one — SPKI DER, or a SEC 1 point / X25519's raw bytes).
    static func export(_ key: CurvePublicKey, _ format: PublicKeyFormat) throws -> Data {
        switch (key, format) {
        case (_, .pemSPKINewline): return Data((try key.pemRepresentation + "\n").utf8)
        case let (.ec(ec), .derSPKI): return try ec.derRepresentation
        case let (.x25519(x), .derSPKI): return try x.derRepresentation
        case let (.ec(ec), .x962): return ec.x963Representation
        case let (.ec(ec), .x962Compressed): return ec.compressedRepresentation
        case let (.ec(ec), .raw): return ec.rawRepresentation
        case let (.x25519(x), .raw): return x.rawRepresentation
        default: return Data(try key.pemRepresentation.utf8)
        }
    }

    /// An EC point `04‖X‖Y` of `key`'s curve, on it or not, written as `key` would be in `format`
    /// (SPKI DER and PEM: `key`'s own SubjectPublicKeyInfo around it); nil for a compressed form.
    public static func export(point: Data, like key: ECPublicKey, _ format: PublicKeyFormat) -> Data? {
        guard let der = try? key.derRepresentation, point.count == key.x963Representation.count, der.count > point.count else { return nil }
        let spki = der.prefix(der.count - point.count) + point
        switch format {
        case .x962: return point
        case .raw: return point.dropFirst()
        case .derSPKI: return spki
        case .pemSPKI: return PEM.iOSStyle(label: "PUBLIC KEY", der: spki)
        case .pemSPKINewline: return PEM.iOSStyle(label: "PUBLIC KEY", der: spki) + Data("\n".utf8)
        default: return nil
        }
    }

    /// A public key of `type` in `format`, as strict as `importKey` is with RSA's (one PEM block, at
    /// most a line end after it). Every way in checks the point is on the key's curve (SEC 1 v2
    /// §3.2.2.1; OpenSSL's import refuses one that is not): a point off it is refused.
    static func importCurveKey(_ bytes: Data, _ format: PublicKeyFormat, type: ProtocolDescription.KeyType) throws -> CurvePublicKey {
        func refuse(_ why: String) -> DescribedRefusal { DescribedRefusal(reason: "the public key (\(format.rawValue)) \(why)") }
        let curve: ECCurve = type == .ecP384 ? .p384 : .p256
        if let length = format.fixedLength(for: type), format != .derSPKI, bytes.count != length {
            throw refuse("has \(bytes.count) bytes; an \(type.rawValue) key in this format has \(length)")
        }
        var pem: String?
        if format == .pemSPKI || format == .pemSPKINewline {
            let end = Data("-----END PUBLIC KEY-----".utf8)
            guard bytes.starts(with: Data("-----BEGIN PUBLIC KEY-----".utf8)), let endAt = bytes.range(of: end, options: .backwards),
                  [Data(), Data([0x0a]), Data([0x0d, 0x0a]), Data([0x0d])].contains(Data(bytes[endAt.upperBound...])) else {
                throw refuse("is not one PEM block from -----BEGIN PUBLIC KEY----- to -----END PUBLIC KEY----- and at most a line end")
            }
            pem = String(decoding: bytes, as: UTF8.self)
        }
        do {
            if type == .x25519 {
                switch format {
                case .raw: return .x25519(try X25519PublicKey(rawRepresentation: bytes))
                case .derSPKI: return .x25519(try X25519PublicKey(derRepresentation: bytes))
                default: return .x25519(try X25519PublicKey(pemRepresentation: pem ?? ""))
                }
            }
            let key: ECPublicKey
            switch format {
            case .x962: key = try ECPublicKey(x963Representation: bytes, curve: curve)
            case .x962Compressed: key = try ECPublicKey(compressedRepresentation: bytes, curve: curve)
            case .raw: key = try ECPublicKey(rawRepresentation: bytes, curve: curve)
            case .derSPKI: key = try ECPublicKey(derRepresentation: bytes)
            default: key = try ECPublicKey(pemRepresentation: pem ?? "")
            }
            guard key.curve == curve else { throw refuse("is on \(key.curve.rawValue); the description's key is \(type.rawValue)") }
            return .ec(key)
        } catch let refusal as DescribedRefusal {
            throw refusal
        } catch {
            throw refuse("is not a valid \(type.rawValue) key: \(error)")
        }
    }

    /// An agreement secret's bytes from the shared secret: HKDF (RFC 5869), the ANSI X9.63 KDF
    /// (SEC 1 v2 §3.6.1), or the shared secret itself — then the secret's `derive`, as for any secret.
    static func agreed(_ secret: ProtocolDescription.Secret, shared: Data) throws -> Data {
        guard let agreement = secret.agreement else { return shared }
        switch agreement.kdf {
        case .hkdfSHA256, .hkdfSHA384:
            // RFC 5869 §2.3: the OKM's first L octets; a secret that skips some is bytes skip..<skip + L of a longer one.
            return Data(try HKDF.deriveKey(digest: agreement.kdf == .hkdfSHA384 ? .sha384 : .sha256, inputKeyMaterial: shared,
                                           salt: agreement.salt, info: agreement.info, outputByteCount: agreement.skip + secret.bytes).dropFirst(agreement.skip))
        case .x963SHA256:
            return Data(try X963KDF.derive(secret: shared, sharedInfo: agreement.info, digest: .sha256, byteCount: agreement.skip + secret.bytes).dropFirst(agreement.skip))
        case .none:
            return shared
        }
    }
}
