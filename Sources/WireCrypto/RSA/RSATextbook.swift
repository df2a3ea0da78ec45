import Foundation
internal import COpenSSL

// Textbook RSA decryption (RFC 8017 §5.1.2 RSADP, no padding): what PyCrypto 2.x's `key.decrypt(c)`
// computes, for protocols that use it. The encryption half is `_WEAK_AND_INSECURE_textbookEncrypt`
// (RSAProbes.swift). Deterministic and malleable: never a choice, only a peer's protocol to check.

extension RSAPrivateKey {
    /// cᵈ mod n of a ciphertext of exactly k bytes, as k bytes (I2OSP, leading zeros kept). Throws for
    /// c ≥ n (RSADP step 1: "ciphertext representative out of range"), as OpenSSL refuses it. RSADP
    /// and RSASP1 (§5.2.1) are the same operation: the raw private operation of RSARawSignature.swift.
    public func _WEAK_AND_INSECURE_textbookDecrypt(_ ciphertext: Data) throws -> Data {
        let k = modulusByteCount
        guard ciphertext.count == k else {
            throw WireCryptoError.invalidLength(what: "textbook RSA ciphertext", length: ciphertext.count, expected: "exactly \(k) (the modulus length)")
        }
        return try rawPrivateOperation(ciphertext, padding: RSA_NO_PADDING)
    }
}
