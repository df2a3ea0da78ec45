import Foundation

/// AES-CMAC (RFC 4493; NIST SP 800-38B): the MAC PyCryptodome's `CMAC.new(key, ciphermod=AES)` and
/// pyca's `cmac.CMAC(algorithms.AES(key))` compute, for servers that authenticate a ciphertext with
/// it. Written from RFC 4493 §2 over OpenSSL's AES (one CBC pass with a zero IV).
public enum AESCMAC {
    public static let tagBytes = 16

    public static func authenticationCode(key: Data, message: Data) throws -> Data {
        guard [16, 24, 32].contains(key.count) else { throw WireCryptoError.incorrectKeySize(bytes: key.count, allowed: [16, 24, 32]) }
        let cipherKey = [UInt8](key)
        // §2.3: L = AES_K(0^128); K1 = L << 1 (xor Rb when the top bit was set), K2 = K1 << 1 likewise.
        let l = try AESBlockMode.ecb.process(encrypt: true, key: cipherKey, input: [UInt8](repeating: 0, count: 16))
        let k1 = doubled(l), k2 = doubled(k1)
        // §2.4: the last block is whole (xor K1) or padded with 10…0 (xor K2); an empty message is one padded block.
        var blocks = [UInt8](message)
        let whole = !blocks.isEmpty && blocks.count % 16 == 0
        if !whole { blocks += [0x80] + [UInt8](repeating: 0, count: 15 - blocks.count % 16) }
        let last = blocks.count - 16
        for index in 0..<16 { blocks[last + index] ^= (whole ? k1 : k2)[index] }
        let chained = try AESBlockMode.cbc(iv: [UInt8](repeating: 0, count: 16)).process(encrypt: true, key: cipherKey, input: blocks)
        return Data(chained.suffix(16))
    }

    /// A 128-bit string shifted left by one bit, Rb = 0x87 folded in when the top bit falls off (§2.3).
    static func doubled(_ block: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        for index in 0..<16 { out[index] = block[index] << 1 | (index < 15 ? block[index + 1] >> 7 : 0) }
        if block[0] & 0x80 != 0 { out[15] ^= 0x87 }
        return out
    }
}
