import Foundation
internal import COpenSSL

/// PBKDF2 with HMAC (RFC 8018 §5.2), OpenSSL's `PKCS5_PBKDF2_HMAC`: what CommonCrypto's
/// `CCKeyDerivationPBKDF` computes.
public enum PBKDF2 {
    /// `length` bytes derived from `password` and `salt` with `rounds` iterations of HMAC-`prf`.
    /// Throws for a round count of 0 or a length of 0 (OpenSSL refuses them).
    public static func derive(password: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, prf: Digest,
                              rounds: Int, length: Int) throws -> [UInt8] {
        guard rounds > 0, rounds <= Int(Int32.max), length > 0, length <= Int(Int32.max),
              password.count <= Int(Int32.max), salt.count <= Int(Int32.max) else {
            throw WireCryptoError.invalidLength(what: "PBKDF2 rounds and output", length: min(rounds, length), expected: "at least 1")
        }
        var output = [UInt8](repeating: 0, count: length)
        // A NULL pointer with length 0 is an empty password/salt to OpenSSL; give it a real one.
        let empty: [UInt8] = [0]
        let status = empty.withUnsafeBytes { fallback in
            PKCS5_PBKDF2_HMAC((password.baseAddress ?? fallback.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(password.count),
                              (salt.baseAddress ?? fallback.baseAddress!).assumingMemoryBound(to: UInt8.self), Int32(salt.count),
                              Int32(rounds), EVP_get_digestbyname(prf.rawValue), Int32(length), &output)
        }
        guard status == 1 else { throw openSSLFailure("PKCS5_PBKDF2_HMAC") }
        return output
    }
}
