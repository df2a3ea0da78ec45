import Foundation
internal import COpenSSL

/// ChaCha20 as a bare stream cipher, without Poly1305: what servers that call pyca's
/// `algorithms.ChaCha20(key, nonce)` with `mode=None` put on the wire. Nothing authenticates it, so
/// a changed ciphertext decrypts to changed plaintext; crosscheck speaks it only to check such
/// servers. The 16-byte IV is OpenSSL's and pyca's: a 4-byte little-endian block counter, then a
/// 12-byte nonce (RFC 8439 §2.3 with the counter first).
public enum ChaCha20Unauthenticated {
    public static let ivBytes = 16

    /// The same operation encrypts and decrypts: `input` XOR the key stream.
    public static func apply(_ input: Data, key: Data, iv: Data) throws -> Data {
        guard key.count == 32 else { throw WireCryptoError.incorrectKeySize(bytes: key.count, allowed: [32]) }
        guard iv.count == ivBytes else { throw WireCryptoError.invalidLength(what: "ChaCha20 IV", length: iv.count, expected: "16") }
        guard input.count <= Int(Int32.max) else { throw WireCryptoError.invalidLength(what: "ChaCha20 input", length: input.count, expected: "at most 2 GiB") }
        return try withCipherContext { context in
            let initialised = key.withUnsafeBytes { k in iv.withUnsafeBytes { v in
                EVP_CipherInit_ex2(context, FetchedCipher.chaCha20.pointer, k.uint8, v.uint8, 1, nil)
            } }
            guard initialised == 1 else { throw openSSLFailure("EVP_CipherInit_ex2(ChaCha20)") }
            var output = Data(count: input.count)
            guard !input.isEmpty else { return output }
            var written: Int32 = 0
            let updated = input.withUnsafeBytes { i in output.withUnsafeMutableBytes { o in
                EVP_CipherUpdate(context, o.uint8, &written, i.uint8, Int32(input.count))
            } }
            guard updated == 1, Int(written) == input.count else { throw openSSLFailure("EVP_CipherUpdate(ChaCha20)") }
            return output
        }
    }
}
