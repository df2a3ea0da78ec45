import Foundation

/// AES-GCM for nonces longer than OpenSSL's EVP interface takes. OpenSSL 3 keeps the IV in a
/// 128-byte buffer (GCM_IV_MAX_SIZE) and refuses longer ones; GCM itself, and CryptoKit, take any
/// length. This follows NIST SP 800-38D §7.1 directly: J0 = GHASH_H(IV ‖ 0^(s+64) ‖ [len(IV)]64),
/// the keystream is AES_K(inc32^i(J0)) for i = 1…n, and the tag is AES_K(J0) ⊕ GHASH_H(A, C).
/// The block cipher is OpenSSL's AES (ECB over the counter blocks); only GHASH is Swift.
public enum GCMLongNonce {
    /// The longest nonce OpenSSL's GCM takes; longer ones come here.
    public static let openSSLMaximumNonceBytes = 128

    public static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], aad: [UInt8]) throws -> (ciphertext: [UInt8], tag: [UInt8]) {
        let setup = try Setup(key: key, nonce: nonce)
        let ciphertext = try setup.crypt(plaintext)
        return (ciphertext, try setup.tag(aad: aad, ciphertext: ciphertext))
    }

    /// Verifies the 16-byte tag first and releases no plaintext when it does not match.
    public static func open(key: [UInt8], nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8], aad: [UInt8]) throws -> [UInt8] {
        let setup = try Setup(key: key, nonce: nonce)
        guard tag.count == 16 else {
            throw WireCryptoError.incorrectParameterSize(what: "tag", length: tag.count, expected: "16")
        }
        let expected = try setup.tag(aad: aad, ciphertext: ciphertext)
        var difference: UInt8 = 0
        for (a, b) in zip(expected, tag) { difference |= a ^ b }
        guard difference == 0 else { throw WireCryptoError.authenticationFailure }
        return try setup.crypt(ciphertext)
    }

    /// GCM's counter-mode half alone, for a peer that drops the tag: the input XOR the keystream
    /// from inc32(J0), both ways, for a nonce of any length. Nothing is verified, so a changed
    /// ciphertext opens to a changed plaintext: crosscheck speaks it only to check such peers.
    public static func _WEAK_AND_INSECURE_cryptWithoutTag(key: [UInt8], nonce: [UInt8], input: [UInt8]) throws -> [UInt8] {
        try Setup(key: key, nonce: nonce).crypt(input)
    }

    private struct Setup {
        let key: [UInt8]
        let hashKey: Block
        let j0: Block

        init(key: [UInt8], nonce: [UInt8]) throws {
            guard !nonce.isEmpty else {
                throw WireCryptoError.incorrectParameterSize(what: "AES-GCM nonce", length: 0, expected: "at least 1")
            }
            self.key = key
            hashKey = Block(try AESBlockMode.ecb.process(encrypt: true, key: key, input: [UInt8](repeating: 0, count: 16)))
            if nonce.count == 12 {
                j0 = Block(nonce + [0, 0, 0, 1])  // §7.1 step 2: a 96-bit IV is used as it is
            } else {
                var ghash = GHash(hashKey)
                ghash.absorbPadded(nonce)
                ghash.absorb(Block(high: 0, low: UInt64(nonce.count) * 8))
                j0 = ghash.state
            }
        }

        /// CTR mode from inc32(J0): the low 32 bits count and wrap, the high 96 stay.
        func crypt(_ input: [UInt8]) throws -> [UInt8] {
            if input.isEmpty { return [] }
            let blocks = (input.count + 15) / 16
            var counters = [UInt8]()
            counters.reserveCapacity(blocks * 16)
            var counter = UInt32(truncatingIfNeeded: j0.low)
            for _ in 0..<blocks {
                counter = counter &+ 1
                let block = Block(high: j0.high, low: (j0.low & 0xffff_ffff_0000_0000) | UInt64(counter))
                counters += block.bytes
            }
            let keystream = try AESBlockMode.ecb.process(encrypt: true, key: key, input: counters)
            return zip(input, keystream).map { $0 ^ $1 }
        }

        func tag(aad: [UInt8], ciphertext: [UInt8]) throws -> [UInt8] {
            var ghash = GHash(hashKey)
            ghash.absorbPadded(aad)
            ghash.absorbPadded(ciphertext)
            ghash.absorb(Block(high: UInt64(aad.count) * 8, low: UInt64(ciphertext.count) * 8))
            let mask = try AESBlockMode.ecb.process(encrypt: true, key: key, input: j0.bytes)
            return zip(ghash.state.bytes, mask).map { $0 ^ $1 }
        }
    }

    /// A 128-bit block, big-endian halves (GCM's bit 0 is the high bit of `high`).
    struct Block: Equatable {
        var high: UInt64
        var low: UInt64
        init(high: UInt64, low: UInt64) { self.high = high; self.low = low }
        init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
            var high: UInt64 = 0, low: UInt64 = 0
            for (index, byte) in bytes.enumerated() where index < 16 {
                if index < 8 { high |= UInt64(byte) << (56 - 8 * UInt64(index)) }
                else { low |= UInt64(byte) << (56 - 8 * UInt64(index - 8)) }
            }
            self.init(high: high, low: low)
        }
        var bytes: [UInt8] {
            (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
                + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
        }
    }

    /// GHASH_H (SP 800-38D §6.4) with the bitwise multiplication of Algorithm 1.
    struct GHash {
        let hashKey: Block
        var state = Block(high: 0, low: 0)
        init(_ hashKey: Block) { self.hashKey = hashKey }

        mutating func absorb(_ block: Block) {
            state = multiply(Block(high: state.high ^ block.high, low: state.low ^ block.low), hashKey)
        }

        /// The bytes in 16-byte blocks, the last one zero-padded.
        mutating func absorbPadded(_ bytes: [UInt8]) {
            var index = 0
            while index < bytes.count {
                absorb(Block(bytes[index..<min(index + 16, bytes.count)]))
                index += 16
            }
        }

        private func multiply(_ x: Block, _ y: Block) -> Block {
            var z = Block(high: 0, low: 0)
            var v = y
            for bit in 0..<128 {
                let set = bit < 64 ? (x.high >> (63 - UInt64(bit))) & 1 : (x.low >> (127 - UInt64(bit))) & 1
                if set == 1 { z.high ^= v.high; z.low ^= v.low }
                let carry = v.low & 1
                v.low = (v.low >> 1) | (v.high << 63)
                v.high >>= 1
                if carry == 1 { v.high ^= 0xe100_0000_0000_0000 }
            }
            return z
        }
    }
}
