import Foundation
internal import COpenSSL

extension RSAPublicKey {
    /// Textbook RSA, mᵉ mod n, of a block of at most k bytes (reduced mod n if it is not below n),
    /// with NO padding at all: for probe ciphertexts whose decryption holds exactly the padding a
    /// test chose (a valid encoding, or one of the error classes of docs/PROTOCOL.md's "Oracles"),
    /// built from seeded bytes that OpenSSL's own padding would replace with fresh randomness.
    /// Never for data. OpenSSL's BIGNUM arithmetic on this key's n and e.
    public func _WEAK_AND_INSECURE_textbookEncrypt(_ block: Data) throws -> Data {
        let k = modulusByteCount
        guard block.count <= k else { throw WireCryptoError.invalidLength(what: "textbook RSA block", length: block.count, expected: "at most \(k)") }
        var n: OpaquePointer?, e: OpaquePointer?
        defer { BN_free(n); BN_free(e) }
        guard EVP_PKEY_get_bn_param(key.pointer, "n", &n) == 1, EVP_PKEY_get_bn_param(key.pointer, "e", &e) == 1, let n, let e else {
            throw openSSLFailure("EVP_PKEY_get_bn_param(n, e)")
        }
        guard let context = BN_CTX_new() else { throw openSSLFailure("BN_CTX_new") }
        defer { BN_CTX_free(context) }
        let bytes = [UInt8](block)
        guard let message = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw openSSLFailure("BN_bin2bn") }
        defer { BN_free(message) }
        guard let result = BN_new() else { throw openSSLFailure("BN_new") }
        defer { BN_free(result) }
        guard BN_nnmod(message, message, n, context) == 1, BN_mod_exp(result, message, e, n, context) == 1 else {
            throw openSSLFailure("BN_mod_exp")
        }
        var output = [UInt8](repeating: 0, count: k)
        guard BN_bn2binpad(result, &output, Int32(k)) == Int32(k) else { throw openSSLFailure("BN_bn2binpad") }
        return Data(output)
    }

    /// n, big-endian, k bytes: mutators build keys and ciphertexts around it.
    public var modulus: Data {
        var n: OpaquePointer?
        defer { BN_free(n) }
        guard EVP_PKEY_get_bn_param(key.pointer, "n", &n) == 1, let n else { OpenSSLError.drainQueue(); return Data() }
        var output = [UInt8](repeating: 0, count: modulusByteCount)
        _ = BN_bn2binpad(n, &output, Int32(output.count))
        return Data(output)
    }
}

/// `count` bytes from `random`, 8 at a time.
private func randomBytes<R: RandomNumberGenerator>(_ random: inout R, _ count: Int) -> Data {
    var data = Data(capacity: count)
    while data.count < count {
        withUnsafeBytes(of: random.next().littleEndian) { data.append(contentsOf: $0.prefix(count - data.count)) }
    }
    return data
}

/// Encoded messages (EM, k bytes) for RSA decryption probes, to be encrypted with
/// `_WEAK_AND_INSECURE_textbookEncrypt`: the valid encodings of RFC 8017 and
/// the error classes of docs/PROTOCOL.md ("Oracles": ROBOT/tlsfuzzer's probes, Manger's for OAEP).
public enum RSAPaddingProbe: String, CaseIterable, Sendable {
    case valid
    case validEmptyMessage = "valid-empty-message"
    case validMaximumMessage = "valid-maximum-message"
    /// PKCS#1: the first byte is not 00.
    case firstByteNotZero = "first-byte-not-00"
    /// PKCS#1: 00 01 (the signature block type) instead of 00 02.
    case blockTypeOne = "block-type-01"
    /// PKCS#1: 00 00 instead of 00 02.
    case blockTypeZero = "block-type-00"
    /// PKCS#1: no zero byte separates padding and message.
    case noSeparator = "no-zero-separator"
    /// PKCS#1: the zero separator comes before 8 bytes of padding.
    case separatorTooEarly = "separator-too-early"
    /// OAEP: the label hash does not match (another label).
    case wrongLabelHash = "oaep-wrong-label-hash"
    /// OAEP: no 01 byte ends the zero padding of the data block.
    case noOneSeparator = "oaep-no-01-separator"
    /// OAEP: a nonzero byte where the zero padding must be.
    case garbageInPadding = "oaep-garbage-in-padding"
    /// The valid encoding of the *other* scheme (PKCS#1 for an OAEP server and the reverse).
    case otherScheme = "other-scheme"

    /// The probes that make sense for `padding`.
    public static func applicable(to padding: RSAEncryptionPadding) -> [RSAPaddingProbe] {
        let common: [RSAPaddingProbe] = [.valid, .validEmptyMessage, .validMaximumMessage, .firstByteNotZero, .otherScheme]
        if padding.oaepParameters == nil { return common + [.blockTypeOne, .blockTypeZero, .noSeparator, .separatorTooEarly] }
        return common + [.wrongLabelHash, .noOneSeparator, .garbageInPadding]
    }

    /// EM for this probe with `message` (clipped to what fits), padding bytes from `random`.
    public func encode<R: RandomNumberGenerator>(_ message: Data, k: Int, padding: RSAEncryptionPadding, random: inout R) -> Data {
        let limit = padding.maxPlaintextLength(modulusBytes: k)
        var message = Data(message.prefix(limit))
        if self == .validEmptyMessage { message = Data() }
        if self == .validMaximumMessage { message = randomBytes(&random, limit) }
        if self == .otherScheme {
            let other: RSAEncryptionPadding = padding.oaepParameters == nil ? .oaepSHA256 : ._WEAK_AND_INSECURE_PKCS_V1_5
            return RSAPaddingProbe.valid.encode(message, k: k, padding: other, random: &random)
        }
        if let oaep = padding.oaepParameters { return encodeOAEP(message, k: k, hash: oaep.hash, mgf1: oaep.mgf1, random: &random) }
        return encodePKCS1(message, k: k, random: &random)
    }

    private func encodePKCS1<R: RandomNumberGenerator>(_ message: Data, k: Int, random: inout R) -> Data {
        var message = message
        if k < 11 + message.count { message = Data(message.prefix(max(0, k - 11))) }
        var padding = randomBytes(&random, k - 3 - message.count).map { $0 == 0 ? 0x5a : $0 }
        var em = Data([0x00, 0x02]) + Data(padding) + Data([0x00]) + message
        switch self {
        case .firstByteNotZero: em[0] = 0x01 + UInt8(random.next() % 0x7e)
        case .blockTypeOne:
            em[1] = 0x01
            for index in 2..<(2 + padding.count) { em[index] = 0xff }
        case .blockTypeZero: em[1] = 0x00
        case .noSeparator:
            padding = randomBytes(&random, k - 2).map { $0 == 0 ? 0xa5 : $0 }
            em = Data([0x00, 0x02]) + Data(padding)
        case .separatorTooEarly:
            let position = 2 + Int(random.next() % 8)  // padding of 0…7 bytes
            em[position] = 0x00
        default: break
        }
        return em
    }

    private func encodeOAEP<R: RandomNumberGenerator>(_ message: Data, k: Int, hash: Digest, mgf1: Digest, random: inout R) -> Data {
        let hLen = hash.byteCount
        let message = Data(message.prefix(max(0, k - 2 * hLen - 2)))
        var labelHash = hash.hash(Data())
        if self == .wrongLabelHash { labelHash = hash.hash(Data("not the label".utf8)) }
        var db = labelHash + Data(count: k - message.count - 2 * hLen - 2)
        let separatorIndex = db.count
        db += Data([0x01]) + message
        switch self {
        case .noOneSeparator: db[separatorIndex] = 0x00
        case .garbageInPadding where separatorIndex > hLen: db[hLen + Int(random.next() % UInt64(separatorIndex - hLen))] = 0x33
        case .garbageInPadding: db[separatorIndex] = 0x02
        default: break
        }
        let seed = randomBytes(&random, hLen)
        let maskedDB = xor(db, maskGeneration(seed, count: k - hLen - 1, hash: mgf1))
        let maskedSeed = xor(seed, maskGeneration(maskedDB, count: hLen, hash: mgf1))
        var em = Data([0x00]) + maskedSeed + maskedDB
        if self == .firstByteNotZero { em[0] = 0x01 + UInt8(random.next() % 0x7e) }
        return em
    }

    private func maskGeneration(_ seed: Data, count: Int, hash: Digest) -> Data {
        var output = Data()
        var counter: UInt32 = 0
        while output.count < count {
            var bigEndian = counter.bigEndian
            output += hash.hash(seed + Data(bytes: &bigEndian, count: 4))
            counter += 1
        }
        return Data(output.prefix(count))
    }

    private func xor(_ a: Data, _ b: Data) -> Data { Data(zip(a, b).map { $0 ^ $1 }) }
}

