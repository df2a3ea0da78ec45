import Foundation

// MD2 and MD4, for app code that still calls CommonDigest's `CC_MD2`/`CC_MD4` (deprecated on
// Apple's side since iOS 13, still declared). OpenSSL 3 has no MD2 unless built with it (Debian's
// is not) and keeps MD4 in its legacy provider, which may be absent; both are a page of code, so
// they are written here from their RFCs' descriptions. Never for the protocol: both are broken.

/// MD2 (RFC 1319, "The MD2 Message-Digest Algorithm"): 16-byte blocks, a 16-byte checksum
/// appended to the padded message, and a 48-byte state mixed through the table `S`. A value: a
/// copy goes on hashing on its own (CommonDigest's contexts are C structs).
public struct InsecureMD2: Sendable {
    public static let digestByteCount = 16

    /// RFC 1319 §3.2: the "random" permutation of 0…255 made from the digits of pi (the same table
    /// as the RFC's reference code, `PI_SUBST`).
    static let S: [UInt8] = [
        41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19,
        98, 167, 5, 243, 192, 199, 115, 140, 152, 147, 43, 217, 188, 76, 130, 202,
        30, 155, 87, 60, 253, 212, 224, 22, 103, 66, 111, 24, 138, 23, 229, 18,
        190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47, 238, 122,
        169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33,
        128, 127, 93, 154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3,
        255, 25, 48, 179, 72, 165, 181, 209, 215, 94, 146, 42, 172, 86, 170, 198,
        79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4, 241,
        69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2,
        27, 96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15,
        85, 71, 163, 35, 221, 81, 175, 58, 195, 92, 249, 206, 186, 197, 234, 38,
        44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205, 244, 65, 129, 77, 82,
        106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
        120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57,
        242, 239, 183, 14, 102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10,
        49, 68, 80, 180, 143, 237, 31, 26, 219, 153, 141, 51, 159, 17, 131, 20,
    ]

    private var state = [UInt8](repeating: 0, count: 48)  // X, §3.4
    private var checksum = [UInt8](repeating: 0, count: 16)  // C, §3.2
    private var lastChecksumByte: UInt8 = 0  // L, §3.2
    private var pending: [UInt8] = []  // bytes of an unfinished block

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes[...]
        while !rest.isEmpty {
            let take = min(16 - pending.count, rest.count)
            pending += rest.prefix(take)
            rest = rest.dropFirst(take)
            if pending.count == 16 { absorb(pending); pending.removeAll(keepingCapacity: true) }
        }
    }

    /// The digest. Padding (§3.1: i bytes of value i, 1 ≤ i ≤ 16, so a whole block is added to a
    /// message of whole blocks) and the checksum block (§3.2) go into a copy, so `self` may go on.
    public func finalize() -> [UInt8] {
        var copy = self
        let padding = 16 - copy.pending.count
        copy.absorb(copy.pending + [UInt8](repeating: UInt8(padding), count: padding))
        copy.process(copy.checksum)
        return Array(copy.state[0..<16])
    }

    /// One block into the checksum and the state. §3.2's text sets C[j] to S[c xor L]; the RFC's
    /// reference code (MD2Transform) and its A.5 test suite xor it into C[j] (RFC 1319 erratum 554),
    /// as every MD2 does.
    private mutating func absorb(_ block: [UInt8]) {
        for j in 0..<16 {
            checksum[j] ^= Self.S[Int(block[j] ^ lastChecksumByte)]
            lastChecksumByte = checksum[j]
        }
        process(block)
    }

    /// §3.4: the block and block xor state into X[16..<48], then 18 rounds over the 48 bytes.
    private mutating func process(_ block: [UInt8]) {
        for j in 0..<16 {
            state[16 + j] = block[j]
            state[32 + j] = block[j] ^ state[j]
        }
        var t: UInt8 = 0
        for round in 0..<18 {
            for k in 0..<48 {
                state[k] ^= Self.S[Int(t)]
                t = state[k]
            }
            t = t &+ UInt8(round)
        }
    }
}

/// MD4 (RFC 1320, "The MD4 Message-Digest Algorithm"): MD5's ancestor, 64-byte blocks, three
/// rounds of 16 steps over four little-endian 32-bit words. A value, as `InsecureMD2`.
public struct InsecureMD4: Sendable {
    public static let digestByteCount = 16

    private var a: UInt32 = 0x6745_2301, b: UInt32 = 0xefcd_ab89, c: UInt32 = 0x98ba_dcfe, d: UInt32 = 0x1032_5476  // §3.3
    private var length: UInt64 = 0  // bytes so far
    private var pending: [UInt8] = []

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var rest = bytes[...]
        while !rest.isEmpty {
            let take = min(64 - pending.count, rest.count)
            pending += rest.prefix(take)
            rest = rest.dropFirst(take)
            if pending.count == 64 { process(pending); pending.removeAll(keepingCapacity: true) }
        }
    }

    /// §3.1–3.2: a 1 bit, zeros to 56 bytes mod 64, then the bit length as 64 bits little-endian;
    /// §3.5: A, B, C, D little-endian.
    public func finalize() -> [UInt8] {
        var copy = self
        var tail = copy.pending + [0x80]
        while tail.count % 64 != 56 { tail.append(0) }
        let bits = length &* 8
        tail += (0..<8).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) }
        for start in stride(from: 0, to: tail.count, by: 64) { copy.process(Array(tail[start..<start + 64])) }
        return [copy.a, copy.b, copy.c, copy.d].flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
    }

    /// §3.4: rounds 1–3 on one block (X[0…15], little-endian words).
    private mutating func process(_ block: [UInt8]) {
        let x: [UInt32] = (0..<16).map { (i: Int) -> UInt32 in
            (0..<4).reduce(UInt32(0)) { (word: UInt32, k: Int) -> UInt32 in word | UInt32(block[4 * i + k]) << UInt32(8 * k) }
        }
        func rotl(_ v: UInt32, _ s: UInt32) -> UInt32 { (v << s) | (v >> (32 - s)) }
        let f = { (x: UInt32, y: UInt32, z: UInt32) in (x & y) | (~x & z) }
        let g = { (x: UInt32, y: UInt32, z: UInt32) in (x & y) | (x & z) | (y & z) }
        let h = { (x: UInt32, y: UInt32, z: UInt32) in x ^ y ^ z }
        var (aa, bb, cc, dd) = (a, b, c, d)
        // One step: [abcd k s] is a = (a + F(b,c,d) + X[k] + constant) <<< s, the four words rotating roles.
        func step(_ mix: (UInt32, UInt32, UInt32) -> UInt32, _ k: Int, _ s: UInt32, _ constant: UInt32) {
            let next = rotl(aa &+ mix(bb, cc, dd) &+ x[k] &+ constant, s)
            (aa, bb, cc, dd) = (dd, next, bb, cc)
        }
        // Round 1: F, words in order, shifts 3 7 11 19.
        for k in 0..<16 { step(f, k, [3, 7, 11, 19][k % 4], 0) }
        // Round 2: G, words 0 4 8 12, 1 5 9 13, …, shifts 3 5 9 13, constant 0x5A827999 (√2).
        for i in 0..<16 { step(g, (i % 4) * 4 + i / 4, [3, 5, 9, 13][i % 4], 0x5a82_7999) }
        // Round 3: H, words 0 8 4 12, 2 10 6 14, 1 9 5 13, 3 11 7 15, shifts 3 9 11 15, 0x6ED9EBA1 (√3).
        let order = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15]
        for i in 0..<16 { step(h, order[i], [3, 9, 11, 15][i % 4], 0x6ed9_eba1) }
        a &+= aa; b &+= bb; c &+= cc; d &+= dd
    }
}
