import Foundation
internal import COpenSSL
internal import COpenSSLShims

/// The NIST prime curves Apple's Security and CryptoKit take (SEC 2 / FIPS 186-4 names). Their
/// cofactor is 1, so cofactor ECDH (SP 800-56A §5.7.1.2) and standard ECDH give the same secret.
public enum ECCurve: String, CaseIterable, Sendable, Equatable {
    case p256 = "P-256"
    case p384 = "P-384"
    case p521 = "P-521"

    /// OpenSSL's group name.
    var groupName: String {
        switch self {
        case .p256: return "prime256v1"
        case .p384: return "secp384r1"
        case .p521: return "secp521r1"
        }
    }

    /// The field size in bits (`kSecAttrKeySizeInBits`).
    public var bits: Int {
        switch self {
        case .p256: return 256
        case .p384: return 384
        case .p521: return 521
        }
    }

    /// Bytes of one coordinate, of the private scalar, and of r and s in a raw signature.
    public var coordinateByteCount: Int { (bits + 7) / 8 }
    /// `04‖X‖Y`.
    public var x963PublicKeyByteCount: Int { 1 + 2 * coordinateByteCount }
    /// `04‖X‖Y‖K`.
    public var x963PrivateKeyByteCount: Int { 1 + 3 * coordinateByteCount }

    public init?(bits: Int) {
        guard let curve = Self.allCases.first(where: { $0.bits == bits }) else { return nil }
        self = curve
    }

    /// OpenSSL's, SEC 2's and NIST's names.
    init?(groupName: String) {
        switch groupName.lowercased() {
        case "prime256v1", "secp256r1", "p-256": self = .p256
        case "secp384r1", "p-384": self = .p384
        case "secp521r1", "p-521": self = .p521
        default: return nil
        }
    }

    /// The curve of an X9.63 public (`04‖X‖Y`) or private (`04‖X‖Y‖K`) key, by its length.
    static func of(x963ByteCount count: Int, isPrivate: Bool) -> ECCurve? {
        allCases.first { (isPrivate ? $0.x963PrivateKeyByteCount : $0.x963PublicKeyByteCount) == count }
    }
}

/// OpenSSL parameters built with `OSSL_PARAM_BLD`. The builder keeps pointers to the names, values
/// and big numbers pushed and copies them only in `OSSL_PARAM_BLD_to_param`, so this object owns
/// copies of all of them until it goes away.
final class OSSLParams {
    private let builder: OpaquePointer
    private var buffers: [UnsafeMutableRawPointer] = []
    private var numbers: [OpaquePointer] = []
    private var failed = false

    init() throws {
        guard let builder = OSSL_PARAM_BLD_new() else { throw openSSLFailure("OSSL_PARAM_BLD_new") }
        self.builder = builder
    }
    deinit {
        OSSL_PARAM_BLD_free(builder)
        buffers.forEach { free($0) }
        numbers.forEach { BN_clear_free($0) }
    }

    /// A copy of `bytes` (plus a terminating zero) owned by this object.
    private func owned(_ bytes: [UInt8]) -> UnsafeMutableRawPointer {
        let copy = malloc(bytes.count + 1)!
        copy.copyMemory(from: bytes + [0], byteCount: bytes.count + 1)
        buffers.append(copy)
        return copy
    }

    private func name(_ key: String) -> UnsafePointer<CChar> {
        UnsafePointer(owned(Array(key.utf8)).assumingMemoryBound(to: CChar.self))
    }

    func string(_ key: String, _ value: String) -> OSSLParams {
        let bytes = Array(value.utf8)
        let text = owned(bytes).assumingMemoryBound(to: CChar.self)
        if OSSL_PARAM_BLD_push_utf8_string(builder, name(key), text, bytes.count) != 1 { failed = true }
        return self
    }

    func octets(_ key: String, _ value: Data) -> OSSLParams {
        if OSSL_PARAM_BLD_push_octet_string(builder, name(key), owned([UInt8](value)), value.count) != 1 { failed = true }
        return self
    }

    /// A non-negative big-endian integer.
    func bigNumber(_ key: String, _ bigEndian: Data) -> OSSLParams {
        let number = bigEndian.withUnsafeBytes { BN_bin2bn($0.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32($0.count), nil) }
        guard let number else { failed = true; return self }
        numbers.append(number)
        if OSSL_PARAM_BLD_push_BN(builder, name(key), number) != 1 { failed = true }
        return self
    }

    /// Calls `body` with the finished parameter array.
    func withParams<R>(_ body: (UnsafeMutablePointer<OSSL_PARAM>) throws -> R) throws -> R {
        guard !failed, let params = OSSL_PARAM_BLD_to_param(builder) else { throw openSSLFailure("OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(params) }
        return try body(params)
    }
}

/// A key made from parameters (`EVP_PKEY_fromdata`) of key type `type` ("EC", "X25519", …).
func keyFromData(type: String, selection: Int32, params: OSSLParams) throws -> EVPKey? {
    guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { throw openSSLFailure("EVP_PKEY_CTX_new_from_name(\(type))") }
    defer { EVP_PKEY_CTX_free(context) }
    guard EVP_PKEY_fromdata_init(context) == 1 else { throw openSSLFailure("EVP_PKEY_fromdata_init") }
    var pkey: OpaquePointer? = nil
    let status = try params.withParams { EVP_PKEY_fromdata(context, &pkey, selection, $0) }
    guard status == 1, let pkey else {
        OpenSSLError.drainQueue()
        return nil
    }
    return EVPKey(takingOwnershipOf: pkey)
}

/// A fresh key of key type `type`, for `group` when the type has groups.
func generateKey(type: String, group: String?) throws -> EVPKey {
    guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { throw openSSLFailure("EVP_PKEY_CTX_new_from_name(\(type))") }
    defer { EVP_PKEY_CTX_free(context) }
    guard EVP_PKEY_keygen_init(context) == 1 else { throw openSSLFailure("EVP_PKEY_keygen_init") }
    if let group, EVP_PKEY_CTX_set_group_name(context, group) != 1 { throw openSSLFailure("EVP_PKEY_CTX_set_group_name(\(group))") }
    var pkey: OpaquePointer? = nil
    guard EVP_PKEY_generate(context, &pkey) == 1, let pkey else { throw openSSLFailure("EVP_PKEY_generate(\(type))") }
    return EVPKey(takingOwnershipOf: pkey)
}

/// An octet-string parameter of a key (e.g. "encoded-pub-key"), or nil when it has none.
func octetParameter(_ key: EVPKey, _ name: String) -> Data? {
    var length = 0
    guard EVP_PKEY_get_octet_string_param(key.pointer, name, nil, 0, &length) == 1 else { OpenSSLError.drainQueue(); return nil }
    var bytes = [UInt8](repeating: 0, count: length)
    guard EVP_PKEY_get_octet_string_param(key.pointer, name, &bytes, length, &length) == 1 else { OpenSSLError.drainQueue(); return nil }
    return Data(bytes.prefix(length))
}

/// A big-number parameter of a key (e.g. "priv") as exactly `byteCount` big-endian bytes.
func bigNumberParameter(_ key: EVPKey, _ name: String, byteCount: Int) -> Data? {
    var number: OpaquePointer? = nil
    guard EVP_PKEY_get_bn_param(key.pointer, name, &number) == 1, let number else { OpenSSLError.drainQueue(); return nil }
    defer { BN_clear_free(number) }
    var bytes = [UInt8](repeating: 0, count: byteCount)
    guard BN_bn2binpad(number, &bytes, Int32(byteCount)) == Int32(byteCount) else { return nil }
    defer { bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
    return Data(bytes)
}

/// A UTF-8 parameter of a key (e.g. "group").
func stringParameter(_ key: EVPKey, _ name: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 80)
    var length = 0
    guard EVP_PKEY_get_utf8_string_param(key.pointer, name, &buffer, buffer.count, &length) == 1 else { OpenSSLError.drainQueue(); return nil }
    return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// OpenSSL's full key check (on the curve, in the group, and for a private key: the public point
/// is K·G), so a key whose halves do not belong together is refused rather than used.
func keyIsConsistent(_ key: EVPKey, privateKey: Bool) -> Bool {
    guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { OpenSSLError.drainQueue(); return false }
    defer { EVP_PKEY_CTX_free(context) }
    let status = privateKey ? EVP_PKEY_check(context) : EVP_PKEY_public_check(context)
    if status != 1 { OpenSSLError.drainQueue() }
    return status == 1
}

/// Decodes DER of one of `structures` (OpenSSL's names: "SubjectPublicKeyInfo", "PrivateKeyInfo",
/// "type-specific") as a key of type `type`; nil when it is not one.
func decodeDER(_ der: Data, type: String, selection: Int32, structure: String?) throws -> EVPKey? {
    guard !der.isEmpty else { return nil }
    try requireOneStructure(der)
    var pkey: OpaquePointer? = nil
    // OpenSSL 3.0 keeps the name pointers until the decode is done: they must outlive it.
    let decoded: Bool = "DER".withCString { inputType in
        type.withCString { keyType in
            let make = { (structureName: UnsafePointer<CChar>?) -> Bool in
                guard let context = OSSL_DECODER_CTX_new_for_pkey(&pkey, inputType, structureName, keyType, selection, nil, nil) else { return false }
                defer { OSSL_DECODER_CTX_free(context) }
                OSSL_DECODER_CTX_set_pem_password_cb(context, COpenSSLShims_refuse_passphrase, nil)
                var remaining = der.count
                let status = der.withUnsafeBytes { buffer -> Int32 in
                    var cursor: UnsafePointer<UInt8>? = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    return OSSL_DECODER_from_data(context, &cursor, &remaining)
                }
                return status == 1 && remaining == 0
            }
            guard let structure else { return make(nil) }
            return structure.withCString { make($0) }
        }
    }
    OpenSSLError.drainQueue()  // decoders leave notes from the formats they tried first
    guard decoded, let pkey else {
        if let pkey { EVP_PKEY_free(pkey) }
        return nil
    }
    return EVPKey(takingOwnershipOf: pkey)
}

/// The public half as SubjectPublicKeyInfo DER, and private keys as PKCS#8 or the type's own
/// structure (SEC1 ECPrivateKey for EC).
func encodeDER(_ key: EVPKey, privateKey: Bool, structure: String) throws -> Data {
    try encodeKey(key, selection: privateKey ? COpenSSLShims_EVP_PKEY_KEYPAIR() : COpenSSLShims_EVP_PKEY_PUBLIC_KEY(),
                  output: "DER", structure: structure)
}
