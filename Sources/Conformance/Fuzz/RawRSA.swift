import Foundation
import WireCrypto

/// Textbook RSA with a public key, for building probe ciphertexts whose decryption has exactly the
/// padding a mutator chose (a valid encoding, or one of the error classes of docs/PROTOCOL.md's
/// "Oracles"), from seeded bytes: OpenSSL's own encryption pads with fresh randomness, so its
/// ciphertexts could not be reproduced from a seed. Montgomery multiplication (CIOS) on 64-bit
/// limbs; the modulus must be odd (every real RSA modulus is). Not constant time: probes only.
struct RawRSAPublicKey: Sendable {
    /// k: the modulus length in bytes.
    let byteCount: Int
    /// n, big-endian, exactly `byteCount` bytes.
    let modulus: Data
    let exponent: Int
    private let n: [UInt64]          // little-endian limbs
    private let n0inverse: UInt64    // −n⁻¹ mod 2⁶⁴
    private let rSquared: [UInt64]   // R² mod n, R = 2^(64·limbs)

    /// From the key's modulus (hex, as `RSAKeyInfo` gives it) and public exponent.
    init?(modulusHex: String, exponent: Int) {
        let hex = modulusHex.count % 2 == 0 ? modulusHex : "0" + modulusHex
        guard let bytes = Data(hexString: hex), let last = bytes.last, last & 1 == 1, exponent > 0 else { return nil }
        let trimmed = Data(bytes.drop { $0 == 0 })
        self.init(modulus: trimmed, exponent: exponent)
    }

    init(info: RSAKeyInfo) throws {
        guard let key = RawRSAPublicKey(modulusHex: info.modulusHex, exponent: info.publicExponent) else {
            throw PeerFailure(.internal, "probe RSA needs an odd modulus and a positive exponent (\(info))")
        }
        self = key
    }

    private init(modulus: Data, exponent: Int) {
        self.byteCount = modulus.count
        self.modulus = modulus
        self.exponent = exponent
        let limbs = Self.limbs(of: modulus, count: (modulus.count + 7) / 8)
        self.n = limbs
        var inverse: UInt64 = 1  // Newton's iteration doubles the correct low bits each round
        for _ in 0..<6 { inverse = inverse &* (2 &- limbs[0] &* inverse) }
        self.n0inverse = 0 &- inverse
        // R² mod n by doubling 1 modulo n, 2·64·limbs times.
        var value = [UInt64](repeating: 0, count: limbs.count)
        value[0] = 1
        for _ in 0..<(2 * 64 * limbs.count) {
            let carry = Self.shiftLeftOne(&value)
            if carry || !Self.less(value, limbs) { Self.subtract(&value, limbs) }
        }
        self.rSquared = value
    }

    /// mᵉ mod n for a big-endian `message` of at most k bytes (reduced mod n first if it is ≥ n).
    func encrypt(_ message: Data) -> Data {
        var m = Self.limbs(of: message.suffix(byteCount), count: n.count)
        if !Self.less(m, n) { Self.subtract(&m, n) }  // a k-byte value is below 2n: one subtraction
        let one: [UInt64] = [1] + [UInt64](repeating: 0, count: n.count - 1)
        let base = montgomeryProduct(m, rSquared)
        var result = montgomeryProduct(one, rSquared)
        let bits = UInt64(exponent)
        for bit in stride(from: 63 - bits.leadingZeroBitCount, through: 0, by: -1) {
            result = montgomeryProduct(result, result)
            if (bits >> UInt64(bit)) & 1 == 1 { result = montgomeryProduct(result, base) }
        }
        return Self.bytes(of: montgomeryProduct(result, one), count: byteCount)
    }

    /// a·b·R⁻¹ mod n (CIOS, Koç, Acar & Kaliski 1996).
    private func montgomeryProduct(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        let s = n.count
        var t = [UInt64](repeating: 0, count: s + 2)
        for i in 0..<s {
            var carry: UInt64 = 0
            for j in 0..<s {
                (carry, t[j]) = Self.multiplyAdd(a[j], b[i], t[j], carry)
            }
            let (sum, overflow) = t[s].addingReportingOverflow(carry)
            t[s] = sum
            t[s + 1] = overflow ? 1 : 0
            let m = t[0] &* n0inverse
            (carry, _) = Self.multiplyAdd(m, n[0], t[0], 0)
            for j in 1..<s {
                (carry, t[j - 1]) = Self.multiplyAdd(m, n[j], t[j], carry)
            }
            let (top, topOverflow) = t[s].addingReportingOverflow(carry)
            t[s - 1] = top
            t[s] = t[s + 1] &+ (topOverflow ? 1 : 0)
        }
        var result = Array(t[0..<s])
        if t[s] != 0 || !Self.less(result, n) { Self.subtract(&result, n) }
        return result
    }

    /// x·y + a + b as (high, low): never overflows 128 bits.
    private static func multiplyAdd(_ x: UInt64, _ y: UInt64, _ a: UInt64, _ b: UInt64) -> (UInt64, UInt64) {
        let (high, low) = x.multipliedFullWidth(by: y)
        let (s1, c1) = low.addingReportingOverflow(a)
        let (s2, c2) = s1.addingReportingOverflow(b)
        return (high &+ (c1 ? 1 : 0) &+ (c2 ? 1 : 0), s2)
    }

    private static func less(_ a: [UInt64], _ b: [UInt64]) -> Bool {
        for index in stride(from: a.count - 1, through: 0, by: -1) where a[index] != b[index] { return a[index] < b[index] }
        return false
    }

    private static func subtract(_ a: inout [UInt64], _ b: [UInt64]) {
        var borrow = false
        for index in a.indices {
            let (d1, b1) = a[index].subtractingReportingOverflow(b[index])
            let (d2, b2) = d1.subtractingReportingOverflow(borrow ? 1 : 0)
            a[index] = d2
            borrow = b1 || b2
        }
    }

    private static func shiftLeftOne(_ a: inout [UInt64]) -> Bool {
        var carry: UInt64 = 0
        for index in a.indices {
            let next = a[index] >> 63
            a[index] = a[index] << 1 | carry
            carry = next
        }
        return carry == 1
    }

    private static func limbs(of bigEndian: Data, count: Int) -> [UInt64] {
        var limbs = [UInt64](repeating: 0, count: count)
        for (offset, byte) in bigEndian.reversed().enumerated() where offset / 8 < count {
            limbs[offset / 8] |= UInt64(byte) << UInt64(8 * (offset % 8))
        }
        return limbs
    }

    private static func bytes(of limbs: [UInt64], count: Int) -> Data {
        var out = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            let offset = count - 1 - index
            if offset / 8 < limbs.count { out[index] = UInt8(truncatingIfNeeded: limbs[offset / 8] >> UInt64(8 * (offset % 8))) }
        }
        return Data(out)
    }
}

/// Encoded messages (EM, k bytes) for RSA decryption probes: the valid encodings of RFC 8017 and
/// the error classes of docs/PROTOCOL.md ("Oracles": ROBOT/tlsfuzzer's probes, Manger's for OAEP).
enum PaddingProbe: String, CaseIterable, Sendable {
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
    static func applicable(to padding: RSAEncryptionPadding) -> [PaddingProbe] {
        let common: [PaddingProbe] = [.valid, .validEmptyMessage, .validMaximumMessage, .firstByteNotZero, .otherScheme]
        if padding.oaepParameters == nil { return common + [.blockTypeOne, .blockTypeZero, .noSeparator, .separatorTooEarly] }
        return common + [.wrongLabelHash, .noOneSeparator, .garbageInPadding]
    }

    /// EM for this probe with `message` (clipped to what fits), padding bytes from `random`.
    func encode(_ message: Data, k: Int, padding: RSAEncryptionPadding, random: inout SeededGenerator) -> Data {
        let limit = padding.maxPlaintextLength(modulusBytes: k)
        var message = Data(message.prefix(limit))
        if self == .validEmptyMessage { message = Data() }
        if self == .validMaximumMessage { message = random.bytes(limit) }
        if self == .otherScheme {
            let other: RSAEncryptionPadding = padding.oaepParameters == nil ? .oaepSHA256 : ._WEAK_AND_INSECURE_PKCS_V1_5
            return PaddingProbe.valid.encode(message, k: k, padding: other, random: &random)
        }
        if let oaep = padding.oaepParameters { return encodeOAEP(message, k: k, hash: oaep.hash, mgf1: oaep.mgf1, random: &random) }
        return encodePKCS1(message, k: k, random: &random)
    }

    private func encodePKCS1(_ message: Data, k: Int, random: inout SeededGenerator) -> Data {
        var message = message
        if k < 11 + message.count { message = Data(message.prefix(max(0, k - 11))) }
        var padding = random.bytes(k - 3 - message.count).map { $0 == 0 ? 0x5a : $0 }
        var em = Data([0x00, 0x02]) + Data(padding) + Data([0x00]) + message
        switch self {
        case .firstByteNotZero: em[0] = 0x01 + UInt8(random.next() % 0x7e)
        case .blockTypeOne:
            em[1] = 0x01
            for index in 2..<(2 + padding.count) { em[index] = 0xff }
        case .blockTypeZero: em[1] = 0x00
        case .noSeparator:
            padding = random.bytes(k - 2).map { $0 == 0 ? 0xa5 : $0 }
            em = Data([0x00, 0x02]) + Data(padding)
        case .separatorTooEarly:
            let position = 2 + Int(random.next() % 8)  // padding of 0…7 bytes
            em[position] = 0x00
        default: break
        }
        return em
    }

    private func encodeOAEP(_ message: Data, k: Int, hash: Digest, mgf1: Digest, random: inout SeededGenerator) -> Data {
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
        let seed = random.bytes(hLen)
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

/// A minimal DER writer for the key structures mutators rebuild (SPKI, PKCS#1 RSAPublicKey).
enum FuzzDER {
    static let rsaEncryptionOID = Data([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01])
    static let rsaPSSOID = Data([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a])
    static let null = Data([0x05, 0x00])

    static func length(_ count: Int) -> Data {
        if count < 0x80 { return Data([UInt8(count)]) }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 { bytes.insert(UInt8(rest & 0xff), at: 0); rest >>= 8 }
        return Data([0x80 | UInt8(bytes.count)] + bytes)
    }

    static func tlv(_ tag: UInt8, _ content: Data) -> Data { Data([tag]) + length(content.count) + content }
    static func sequence(_ parts: Data...) -> Data { tlv(0x30, parts.reduce(Data(), +)) }
    static func bitString(_ content: Data) -> Data { tlv(0x03, Data([0x00]) + content) }

    /// A non-negative INTEGER from big-endian magnitude bytes (minimal, with a 00 if the top bit is set).
    static func unsignedInteger(_ magnitude: Data) -> Data {
        var bytes = Data(magnitude.drop { $0 == 0 })
        if bytes.isEmpty { bytes = Data([0x00]) } else if bytes.first! & 0x80 != 0 { bytes.insert(0x00, at: 0) }
        return tlv(0x02, bytes)
    }

    static func integer(_ value: Int) -> Data {
        var bytes: [UInt8] = []
        var rest = value
        while true {  // two's complement, minimal: stop once the sign bit of the top byte is right
            bytes.insert(UInt8(truncatingIfNeeded: rest), at: 0)
            rest >>= 8
            if (rest == 0 && bytes[0] & 0x80 == 0) || (rest == -1 && bytes[0] & 0x80 != 0) { break }
        }
        return tlv(0x02, Data(bytes))
    }

    static func pkcs1PublicKey(modulus: Data, exponent: Data) -> Data {
        sequence(unsignedInteger(modulus), unsignedInteger(exponent))
    }

    static func spki(pkcs1: Data, algorithm: Data = sequence(rsaEncryptionOID, null)) -> Data {
        sequence(algorithm, bitString(pkcs1))
    }
}
