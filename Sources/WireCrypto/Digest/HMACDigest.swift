import Foundation

/// HMAC (RFC 2104) over one of the SHA digests, in one call: Fernet tokens (protocol descriptions)
/// sign with HMAC-SHA256.
public enum HMACDigest {
    public static func authenticationCode(_ digest: Digest, key: Data, message: Data) -> Data {
        let blockSize = [.sha384, .sha512, .sha512_224, .sha512_256].contains(digest) ? 128 : 64
        var block = key.count > blockSize ? digest.hash(key) : key
        block += Data(count: blockSize - block.count)
        let inner = Data(block.map { $0 ^ 0x36 }), outer = Data(block.map { $0 ^ 0x5c })
        return digest.hash(outer + digest.hash(inner + message))
    }

    /// Equal codes, compared in time that depends only on their length.
    public static func equal(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
