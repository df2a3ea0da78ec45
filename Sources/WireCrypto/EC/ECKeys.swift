import Foundation
internal import COpenSSL
internal import COpenSSLShims

/// A P-256/384/521 public key. Every way in ends in one uncompressed point checked to be on the
/// curve (OpenSSL's import refuses other points), so every way out is the same bytes whatever the
/// key was read from.
public struct ECPublicKey: Sendable {
    let key: EVPKey
    let operations: KeyOperations
    public let curve: ECCurve
    /// `04‖X‖Y`.
    public let x963Representation: Data

    /// ANSI X9.63 / SEC 1 §2.3.3 uncompressed `04‖X‖Y`: what `SecKeyCopyExternalRepresentation`
    /// gives for a public EC key. Without `curve`, the length decides it (65, 97 or 133 bytes).
    public init(x963Representation data: Data, curve: ECCurve? = nil) throws {
        guard let curve = curve ?? ECCurve.of(x963ByteCount: data.count, isPrivate: false) else {
            throw WireCryptoError.malformedECKey(curve: "P-256/384/521", format: "X9.63",
                                                 reason: "\(data.count) bytes fits no curve (65, 97 or 133 bytes: 04‖X‖Y)")
        }
        guard data.count == curve.x963PublicKeyByteCount, data.first == 0x04 else {
            throw WireCryptoError.malformedECKey(curve: curve.rawValue, format: "X9.63",
                                                 reason: "expected \(curve.x963PublicKeyByteCount) bytes starting 04, got \(data.count) starting \(data.first.map { String(format: "%02x", $0) } ?? "nothing")")
        }
        try self.init(uncompressedPoint: Data(data), curve: curve, format: "X9.63")
    }

    /// X‖Y without the 04 (CryptoKit's `rawRepresentation`).
    public init(rawRepresentation data: Data, curve: ECCurve) throws {
        guard data.count == 2 * curve.coordinateByteCount else {
            throw WireCryptoError.malformedECKey(curve: curve.rawValue, format: "raw X‖Y", reason: "expected \(2 * curve.coordinateByteCount) bytes, got \(data.count)")
        }
        try self.init(uncompressedPoint: Data([0x04]) + data, curve: curve, format: "raw X‖Y")
    }

    /// SEC 1 §2.3.3 compressed `02‖X` or `03‖X` (the parity of Y).
    public init(compressedRepresentation data: Data, curve: ECCurve) throws {
        guard data.count == 1 + curve.coordinateByteCount, data.first == 0x02 || data.first == 0x03 else {
            throw WireCryptoError.malformedECKey(curve: curve.rawValue, format: "compressed point",
                                                 reason: "expected \(1 + curve.coordinateByteCount) bytes starting 02 or 03, got \(data.count)")
        }
        let point = try Self.decodedPoint(Data(data), curve: curve, format: "compressed point")
        try self.init(uncompressedPoint: point, curve: curve, format: "compressed point")
    }

    /// SubjectPublicKeyInfo DER naming a named curve (id-ecPublicKey with P-256/384/521).
    public init(derRepresentation der: Data) throws {
        guard let decoded = try decodeDER(der, type: "EC", selection: COpenSSLShims_EVP_PKEY_PUBLIC_KEY(), structure: "SubjectPublicKeyInfo") else {
            throw WireCryptoError.malformedECKey(curve: "P-256/384/521", format: "SubjectPublicKeyInfo DER", reason: "OpenSSL does not decode it as an EC public key")
        }
        let curve = try namedCurve(of: decoded, format: "SubjectPublicKeyInfo DER")
        guard let point = decodedPublicPoint(of: decoded, curve: curve) else {
            throw WireCryptoError.malformedECKey(curve: curve.rawValue, format: "SubjectPublicKeyInfo DER", reason: "no public point")
        }
        try self.init(uncompressedPoint: point, curve: curve, format: "SubjectPublicKeyInfo DER")
    }

    /// PEM `PUBLIC KEY` (SubjectPublicKeyInfo).
    public init(pemRepresentation: String) throws {
        try self.init(derRepresentation: try pemBody(Data(pemRepresentation.utf8), labels: ["PUBLIC KEY"], curve: "P-256/384/521").der)
    }

    init(uncompressedPoint point: Data, curve: ECCurve, format: String) throws {
        let params = try OSSLParams().string("group", curve.groupName).octets("pub", point)
        guard let key = try keyFromData(type: "EC", selection: COpenSSLShims_EVP_PKEY_PUBLIC_KEY(), params: params) else {
            throw WireCryptoError.malformedECKey(curve: curve.rawValue, format: format, reason: "the point is not on the curve")
        }
        self.key = key; self.curve = curve; self.x963Representation = point
        self.operations = KeyOperations(key)
    }

    /// `point` (any SEC 1 encoding) decoded and re-encoded uncompressed.
    static func decodedPoint(_ point: Data, curve: ECCurve, format: String) throws -> Data {
        let notOnCurve = WireCryptoError.malformedECKey(curve: curve.rawValue, format: format, reason: "the point is not on the curve")
        guard let group = EC_GROUP_new_by_curve_name(curve.nid) else { throw openSSLFailure("EC_GROUP_new_by_curve_name") }
        defer { EC_GROUP_free(group) }
        guard let decoded = EC_POINT_new(group) else { throw openSSLFailure("EC_POINT_new") }
        defer { EC_POINT_free(decoded) }
        let status = point.withUnsafeBytes { EC_POINT_oct2point(group, decoded, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count, nil) }
        guard status == 1 else { OpenSSLError.drainQueue(); throw notOnCurve }
        return try uncompressed(decoded, group: group, curve: curve)
    }

    /// X‖Y without the 04.
    public var rawRepresentation: Data { x963Representation.dropFirst() }

    /// `02‖X` or `03‖X`.
    public var compressedRepresentation: Data {
        let size = curve.coordinateByteCount
        return Data([0x02 | (x963Representation.last! & 1)]) + x963Representation.dropFirst().prefix(size)
    }

    /// SubjectPublicKeyInfo DER (uncompressed point, named curve).
    public var derRepresentation: Data {
        get throws { try encodeDER(key, privateKey: false, structure: "SubjectPublicKeyInfo") }
    }

    /// PEM `PUBLIC KEY`, 64-character lines, no newline after the END line (as CryptoKit writes it).
    public var pemRepresentation: String {
        get throws { String(decoding: PEM.iOSStyle(label: "PUBLIC KEY", der: try derRepresentation), as: UTF8.self) }
    }
}

let importedECPrivateKeys = ImportedKeys<ECPrivateKey>()

/// A P-256/384/521 private key with its public key.
public struct ECPrivateKey: Sendable {
    let key: EVPKey
    let operations: KeyOperations
    public let publicKey: ECPublicKey
    public var curve: ECCurve { publicKey.curve }

    /// A fresh key.
    public init(curve: ECCurve) throws {
        let key = try generateKey(type: "EC", group: curve.groupName)
        guard let point = decodedPublicPoint(of: key, curve: curve) else { throw openSSLFailure("EVP_PKEY_get_bn_param(qx/qy)") }
        self.key = key
        self.operations = KeyOperations(key)
        self.publicKey = try ECPublicKey(uncompressedPoint: point, curve: curve, format: "a generated key")
    }

    /// `04‖X‖Y‖K` (what `SecKeyCopyExternalRepresentation` gives for a private EC key). The public
    /// point must be K·G; without `curve` the length decides it (97, 145 or 199 bytes).
    public init(x963Representation data: Data, curve: ECCurve? = nil) throws {
        guard let curve = curve ?? ECCurve.of(x963ByteCount: data.count, isPrivate: true) else {
            throw WireCryptoError.malformedECKey(curve: "P-256/384/521", format: "X9.63 private",
                                                 reason: "\(data.count) bytes fits no curve (97, 145 or 199 bytes: 04‖X‖Y‖K)")
        }
        guard data.count == curve.x963PrivateKeyByteCount, data.first == 0x04 else {
            throw WireCryptoError.malformedECKey(curve: curve.rawValue, format: "X9.63 private",
                                                 reason: "expected \(curve.x963PrivateKeyByteCount) bytes starting 04, got \(data.count)")
        }
        let data = Data(data)
        try self.init(scalar: data.suffix(curve.coordinateByteCount), point: data.prefix(curve.x963PublicKeyByteCount), curve: curve, format: "X9.63 private")
    }

    /// K alone, big-endian, the curve's coordinate size (CryptoKit's `rawRepresentation`). A K
    /// imported before is the key made then: the import costs two scalar multiplications (K·G and
    /// OpenSSL's pairwise check), as much as an ECDH, and Wycheproof's ECDH files use 23 to 37
    /// private keys across 355 to 1,047 tests each.
    public init(rawRepresentation data: Data, curve: ECCurve) throws {
        guard data.count == curve.coordinateByteCount else {
            throw WireCryptoError.malformedECKey(curve: curve.rawValue, format: "raw K", reason: "expected \(curve.coordinateByteCount) bytes, got \(data.count)")
        }
        let id = ImportedKeys<ECPrivateKey>.id(Data(curve.rawValue.utf8) + Data([0]) + data, passphrase: nil)
        if let known = importedECPrivateKeys.key(id) { self = known; return }
        let point = try Self.publicPoint(ofScalar: Data(data), curve: curve)
        try self.init(scalar: Data(data), point: point, curve: curve, format: "raw K")
        importedECPrivateKeys.remember(self, as: id)
    }

    /// PKCS#8 PrivateKeyInfo or SEC 1 ECPrivateKey DER, named curve.
    public init(derRepresentation der: Data) throws {
        let format = "PKCS#8 or SEC 1 DER"
        let selection = COpenSSLShims_EVP_PKEY_KEYPAIR()
        guard let decoded = try decodeDER(der, type: "EC", selection: selection, structure: "PrivateKeyInfo")
            ?? decodeDER(der, type: "EC", selection: selection, structure: "type-specific") else {
            throw WireCryptoError.malformedECKey(curve: "P-256/384/521", format: format, reason: "OpenSSL decodes it as neither PKCS#8 nor SEC 1 EC private key")
        }
        let curve = try namedCurve(of: decoded, format: format)
        guard let scalar = bigNumberParameter(decoded, "priv", byteCount: curve.coordinateByteCount) else {
            throw WireCryptoError.malformedECKey(curve: curve.rawValue, format: format, reason: "no private scalar")
        }
        // SEC 1 makes the public key optional: when absent, K·G.
        let point = try decodedPublicPoint(of: decoded, curve: curve) ?? Self.publicPoint(ofScalar: scalar, curve: curve)
        try self.init(scalar: scalar, point: point, curve: curve, format: format)
    }

    /// PEM `PRIVATE KEY` (PKCS#8) or `EC PRIVATE KEY` (SEC 1).
    public init(pemRepresentation: String) throws {
        try self.init(derRepresentation: try pemBody(Data(pemRepresentation.utf8), labels: ["PRIVATE KEY", "EC PRIVATE KEY"], curve: "P-256/384/521").der)
    }

    private init(scalar: Data, point: Data, curve: ECCurve, format: String) throws {
        let params = try OSSLParams().string("group", curve.groupName).octets("pub", point).bigNumber("priv", scalar)
        guard let key = try keyFromData(type: "EC", selection: COpenSSLShims_EVP_PKEY_KEYPAIR(), params: params),
              keyIsConsistent(key, privateKey: true) else {
            throw WireCryptoError.malformedECKey(curve: curve.rawValue, format: format,
                                                 reason: "K is not in [1, n−1] or the public point is not K·G")
        }
        self.key = key
        self.operations = KeyOperations(key)
        self.publicKey = try ECPublicKey(uncompressedPoint: point, curve: curve, format: format)
    }

    /// K·G, uncompressed.
    static func publicPoint(ofScalar scalar: Data, curve: ECCurve) throws -> Data {
        guard let group = EC_GROUP_new_by_curve_name(curve.nid) else { throw openSSLFailure("EC_GROUP_new_by_curve_name") }
        defer { EC_GROUP_free(group) }
        guard let point = EC_POINT_new(group) else { throw openSSLFailure("EC_POINT_new") }
        defer { EC_POINT_free(point) }
        guard let k = scalar.withUnsafeBytes({ BN_bin2bn($0.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32($0.count), nil) }) else {
            throw openSSLFailure("BN_bin2bn")
        }
        defer { BN_clear_free(k) }
        guard BN_is_zero(k) == 0, BN_cmp(k, EC_GROUP_get0_order(group)) < 0 else {
            throw WireCryptoError.malformedECKey(curve: curve.rawValue, format: "private scalar", reason: "K is not in [1, n−1]")
        }
        guard EC_POINT_mul(group, point, k, nil, nil, nil) == 1 else { throw openSSLFailure("EC_POINT_mul") }
        return try uncompressed(point, group: group, curve: curve)
    }

    /// `04‖X‖Y‖K`.
    public var x963Representation: Data { publicKey.x963Representation + rawRepresentation }

    /// K, big-endian, the coordinate size.
    public var rawRepresentation: Data { bigNumberParameter(key, "priv", byteCount: curve.coordinateByteCount) ?? Data() }

    /// PKCS#8 PrivateKeyInfo DER (what CryptoKit's `derRepresentation` gives).
    public var derRepresentation: Data {
        get throws { try encodeDER(key, privateKey: true, structure: "PrivateKeyInfo") }
    }

    /// SEC 1 ECPrivateKey DER (`openssl ec -outform DER`), with the curve and the public key.
    public var sec1DERRepresentation: Data {
        get throws { try encodeDER(key, privateKey: true, structure: "type-specific") }
    }

    /// PEM `PRIVATE KEY` (PKCS#8), as CryptoKit writes it.
    public var pemRepresentation: String {
        get throws { String(decoding: PEM.iOSStyle(label: "PRIVATE KEY", der: try derRepresentation), as: UTF8.self) }
    }

    /// PEM `EC PRIVATE KEY` (SEC 1), as `openssl ecparam -genkey` writes it.
    public var sec1PEMRepresentation: String {
        get throws { String(decoding: PEM.iOSStyle(label: "EC PRIVATE KEY", der: try sec1DERRepresentation), as: UTF8.self) }
    }
}

extension ECCurve {
    /// OpenSSL's NID, for EC_GROUP (point arithmetic the EVP interface does not offer).
    var nid: Int32 {
        switch self {
        case .p256: return NID_X9_62_prime256v1
        case .p384: return NID_secp384r1
        case .p521: return NID_secp521r1
        }
    }
}

/// `point` as `04‖X‖Y`.
private func uncompressed(_ point: OpaquePointer, group: OpaquePointer, curve: ECCurve) throws -> Data {
    var bytes = [UInt8](repeating: 0, count: curve.x963PublicKeyByteCount)
    guard EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &bytes, bytes.count, nil) == bytes.count else {
        throw WireCryptoError.malformedECKey(curve: curve.rawValue, format: "point", reason: "the point at infinity is not a public key")
    }
    return Data(bytes)
}

/// The named curve of a decoded key; explicit parameters and other curves are refused.
private func namedCurve(of key: EVPKey, format: String) throws -> ECCurve {
    // OpenSSL names explicit parameters after the curve they resemble even with a missing or wrong
    // cofactor (Wycheproof ecdh_secp256r1_test tcId 359, 361); only a named-curve OID is taken, as
    // CryptoKit's derRepresentation takes only that.
    guard stringParameter(key, "encoding") != "explicit" else {
        throw WireCryptoError.malformedECKey(curve: "P-256/384/521", format: format, reason: "explicit curve parameters, not a named curve")
    }
    guard let name = stringParameter(key, "group"), let curve = ECCurve(groupName: name) else {
        throw WireCryptoError.malformedECKey(curve: "P-256/384/521", format: format,
                                             reason: "the key is not on a named P-256, P-384 or P-521 curve (\(stringParameter(key, "group") ?? "explicit parameters"))")
    }
    return curve
}

/// A decoded key's public point as `04‖X‖Y` (from its coordinates, whatever encoding it came in).
private func decodedPublicPoint(of key: EVPKey, curve: ECCurve) -> Data? {
    guard let x = bigNumberParameter(key, "qx", byteCount: curve.coordinateByteCount),
          let y = bigNumberParameter(key, "qy", byteCount: curve.coordinateByteCount) else { return nil }
    return Data([0x04]) + x + y
}

/// The DER of the first PEM block of `data`, whose label must be one of `labels`.
func pemBody(_ data: Data, labels: [String], curve: String) throws -> (label: String, der: Data) {
    guard let label = PEM.firstLabel(in: data), labels.contains(label) else {
        throw WireCryptoError.malformedECKey(curve: curve, format: "PEM",
                                             reason: "expected a PEM block labelled \(labels.map { "'\($0)'" }.joined(separator: " or ")), found \(PEM.firstLabel(in: data).map { "'\($0)'" } ?? "no PEM")")
    }
    do {
        return (label, try PEM.body(of: data, label: label))
    } catch {
        throw WireCryptoError.malformedECKey(curve: curve, format: "PEM", reason: "the '\(label)' block is not well formed (\(error))")
    }
}
