import Foundation

/// Salsa20/20, Bernstein's stream cipher ("Salsa20 specification", https://cr.yp.to/snuffle/spec.pdf;
/// the eSTREAM submission), written here from the specification in pure Swift: neither OpenSSL nor
/// pyca/cryptography has it, but servers that call PyCryptodome's `Salsa20.new(key, nonce)` put it on
/// the wire. Nothing authenticates it, so a changed ciphertext decrypts to changed plaintext;
/// crosscheck speaks it only to check such servers.
///
/// As PyCryptodome does: a 16-byte key (expanded with "expand 16-byte k") or a 32-byte key ("expand
/// 32-byte k"), an 8-byte nonce, and a 64-bit little-endian block counter that starts at 0 (spec §10).
public enum Salsa20 {
    public static let nonceBytes = 8
    public static let allowedKeySizes = [16, 32]
    static let blockBytes = 64

    /// The same operation encrypts and decrypts: `input` XOR the key stream of `key` and `nonce`.
    public static func apply(_ input: Data, key: Data, nonce: Data) throws -> Data {
        guard allowedKeySizes.contains(key.count) else { throw WireCryptoError.incorrectKeySize(bytes: key.count, allowed: allowedKeySizes) }
        guard nonce.count == nonceBytes else { throw WireCryptoError.invalidLength(what: "Salsa20 nonce", length: nonce.count, expected: "8") }
        var state = initialState(key: [UInt8](key), n: [UInt8](nonce) + [UInt8](repeating: 0, count: 8))
        var words = [UInt32](repeating: 0, count: 16)
        var block = [UInt8](repeating: 0, count: blockBytes)
        var output = [UInt8](input)
        var counter: UInt64 = 0
        var offset = 0
        while offset < output.count {
            // Words 8 and 9 are the block number, low word first (spec §10: littleendian of i).
            state[8] = UInt32(truncatingIfNeeded: counter)
            state[9] = UInt32(truncatingIfNeeded: counter >> 32)
            hash(state, into: &words)
            // The key stream block is the 16 words, each little-endian (spec §8).
            for (index, word) in words.enumerated() {
                block[4 * index] = UInt8(truncatingIfNeeded: word)
                block[4 * index + 1] = UInt8(truncatingIfNeeded: word >> 8)
                block[4 * index + 2] = UInt8(truncatingIfNeeded: word >> 16)
                block[4 * index + 3] = UInt8(truncatingIfNeeded: word >> 24)
            }
            let count = min(blockBytes, output.count - offset)
            for index in 0..<count { output[offset + index] ^= block[index] }
            offset += count
            counter &+= 1
        }
        return Data(output)
    }

    /// The 16 words the expansion function hashes (spec §9): the constants σ ("expand 32-byte k") for a
    /// 32-byte key, τ ("expand 16-byte k", the key used twice) for a 16-byte key; `n` is 16 bytes, the
    /// nonce then the block number.
    static func initialState(key: [UInt8], n: [UInt8]) -> [UInt32] {
        precondition(key.count == 16 || key.count == 32, "Salsa20 key must be 16 or 32 bytes")
        precondition(n.count == 16, "Salsa20 expansion input must be 16 bytes")
        let constants = Array((key.count == 32 ? "expand 32-byte k" : "expand 16-byte k").utf8)
        let k0 = Array(key[0..<16]), k1 = key.count == 32 ? Array(key[16..<32]) : k0
        func words(_ bytes: [UInt8]) -> [UInt32] {
            stride(from: 0, to: bytes.count, by: 4).map { i in
                UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
            }
        }
        let c = words(constants), k0Words = words(k0), k1Words = words(k1), nWords = words(n)
        return [c[0]] + k0Words + [c[1]] + nWords + [c[2]] + k1Words + [c[3]]
    }

    /// The Salsa20 expansion function Salsa20_k(n) (spec §9) as bytes: what `apply` XORs with block
    /// number i when `n` is the nonce then i, little-endian. For checking against the spec's examples.
    static func expansion(key: [UInt8], n: [UInt8]) -> [UInt8] {
        var out = [UInt32](repeating: 0, count: 16)
        hash(initialState(key: key, n: n), into: &out)
        return out.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
    }

    /// The Salsa20 hash function on words (spec §8): `input` plus ten double rounds of `input`.
    static func hash(_ input: [UInt32], into output: inout [UInt32]) {
        precondition(input.count == 16 && output.count == 16)
        var x0 = input[0], x1 = input[1], x2 = input[2], x3 = input[3]
        var x4 = input[4], x5 = input[5], x6 = input[6], x7 = input[7]
        var x8 = input[8], x9 = input[9], x10 = input[10], x11 = input[11]
        var x12 = input[12], x13 = input[13], x14 = input[14], x15 = input[15]
        for _ in 0..<10 {
            // columnround (spec §5): each column, starting from its diagonal word.
            quarterRound(&x0, &x4, &x8, &x12)
            quarterRound(&x5, &x9, &x13, &x1)
            quarterRound(&x10, &x14, &x2, &x6)
            quarterRound(&x15, &x3, &x7, &x11)
            // rowround (spec §4): each row, starting from its diagonal word.
            quarterRound(&x0, &x1, &x2, &x3)
            quarterRound(&x5, &x6, &x7, &x4)
            quarterRound(&x10, &x11, &x8, &x9)
            quarterRound(&x15, &x12, &x13, &x14)
        }
        output[0] = x0 &+ input[0]; output[1] = x1 &+ input[1]; output[2] = x2 &+ input[2]; output[3] = x3 &+ input[3]
        output[4] = x4 &+ input[4]; output[5] = x5 &+ input[5]; output[6] = x6 &+ input[6]; output[7] = x7 &+ input[7]
        output[8] = x8 &+ input[8]; output[9] = x9 &+ input[9]; output[10] = x10 &+ input[10]; output[11] = x11 &+ input[11]
        output[12] = x12 &+ input[12]; output[13] = x13 &+ input[13]; output[14] = x14 &+ input[14]; output[15] = x15 &+ input[15]
    }

    /// quarterround (spec §3): y1, then y2, then y3, then y0 change.
    @inline(__always)
    static func quarterRound(_ y0: inout UInt32, _ y1: inout UInt32, _ y2: inout UInt32, _ y3: inout UInt32) {
        y1 ^= rotateLeft(y0 &+ y3, 7)
        y2 ^= rotateLeft(y1 &+ y0, 9)
        y3 ^= rotateLeft(y2 &+ y1, 13)
        y0 ^= rotateLeft(y3 &+ y2, 18)
    }

    /// `value <<< count` (spec §2), for 0 < count < 32.
    @inline(__always)
    static func rotateLeft(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value &<< count) | (value &>> (32 &- count))
    }
}
