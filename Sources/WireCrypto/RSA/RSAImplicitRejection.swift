import Foundation
internal import COpenSSL

/// PKCS#1 v1.5 decryption with implicit rejection: a ciphertext whose padding is wrong decrypts to
/// a synthetic message, deterministic for this key and ciphertext, instead of an error, so a
/// padding oracle learns nothing. iOS does this from 17.4 (Apple's SecKeyAdaptors.m,
/// `SecKeyRSACopyDecryptedWithPadding`, calls corecrypto's `ccrsa_eme_pkcs1v15_decode_safe`, which
/// "uses the private key as entropy to generate random dummy responses"); OpenSSL 3.2 does it by
/// default. The synthetic message here is the IETF construction (draft-irtf-cfrg-rsa-guidance,
/// "Implicit rejection"; OpenSSL 3.2's `ossl_rsa_padding_check_PKCS1_type_2`): a key-derivation key
/// KDK = HMAC-SHA256(SHA-256(d as k bytes), ciphertext as k bytes); 128 candidate lengths and a
/// k-byte message drawn from an HMAC-SHA256 counter-mode PRF over KDK (labels "length" and
/// "message"); the last candidate, masked to the bits of k − 10, below k − 10 is the length, and
/// the message is the PRF output's last that-many bytes. corecrypto's `decode_safe` source is not
/// published, so the synthetic bytes may differ from a device's; what app code sees is the same:
/// no error, a message of at most k − 11 bytes that depends only on the key and the ciphertext.
/// Not constant time (a test harness, not a server).
extension RSAPrivateKey {
    public func decryptPKCS1v15ImplicitRejection(_ ciphertext: Data) throws -> Data {
        do {
            return try decrypt(ciphertext, padding: ._WEAK_AND_INSECURE_PKCS_V1_5)
        } catch WireCryptoError.decryptionFailed {
            return try syntheticPKCS1Message(for: ciphertext)
        }
    }

    /// The implicit-rejection message for `ciphertext` (exactly k bytes).
    func syntheticPKCS1Message(for ciphertext: Data) throws -> Data {
        let k = modulusByteCount
        guard ciphertext.count == k else {
            throw WireCryptoError.invalidLength(what: "RSA ciphertext", length: ciphertext.count, expected: "exactly \(k) (the modulus length)")
        }
        let kdk = hmacSHA256(key: Digest.sha256.hash(try privateExponentBytes(count: k)), ciphertext)
        let candidates = [UInt8](implicitRejectionPRF(kdk, label: "length", byteCount: 256))
        let message = implicitRejectionPRF(kdk, label: "message", byteCount: k)
        let maxSeparatorOffset = k - 2 - 8
        var mask = maxSeparatorOffset
        mask |= mask >> 1; mask |= mask >> 2; mask |= mask >> 4; mask |= mask >> 8
        var length = 0
        for index in stride(from: 0, to: candidates.count, by: 2) {
            let candidate = (Int(candidates[index]) << 8 | Int(candidates[index + 1])) & mask
            if candidate < maxSeparatorOffset { length = candidate }
        }
        return Data(message.suffix(length))
    }

    /// The private exponent d, big-endian, left-padded to `count` bytes.
    private func privateExponentBytes(count: Int) throws -> Data {
        var bignum: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(key.pointer, "d", &bignum) == 1, let bignum else {
            throw openSSLFailure("EVP_PKEY_get_bn_param(d)")
        }
        defer { BN_clear_free(bignum) }
        var bytes = Data(count: count)
        let written = bytes.withUnsafeMutableBytes { BN_bn2binpad(bignum, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count)) }
        guard written == Int32(count) else { throw openSSLFailure("BN_bn2binpad(d)") }
        return bytes
    }
}

/// The draft's PRF: HMAC-SHA256(KDK, counter (2 bytes, big-endian) ‖ label ‖ output bits (2 bytes))
/// for counter 0, 1, …, concatenated and cut to `byteCount`.
private func implicitRejectionPRF(_ kdk: Data, label: String, byteCount: Int) -> Data {
    var output = Data()
    var counter = 0
    let bits = byteCount * 8
    while output.count < byteCount {
        var block = Data([UInt8(counter >> 8 & 0xff), UInt8(counter & 0xff)])
        block.append(contentsOf: Array(label.utf8))
        block.append(contentsOf: [UInt8(bits >> 8 & 0xff), UInt8(bits & 0xff)])
        output.append(hmacSHA256(key: kdk, block))
        counter += 1
    }
    return output.prefix(byteCount)
}

/// HMAC-SHA256 (RFC 2104) over WireCrypto's SHA-256; keys here are at most 32 bytes.
private func hmacSHA256(key: Data, _ message: Data) -> Data {
    let blockSize = 64
    var padded = [UInt8](key.count > blockSize ? Digest.sha256.hash(key) : key)
    padded += [UInt8](repeating: 0, count: blockSize - padded.count)
    let inner = Digest.sha256.hash(Data(padded.map { $0 ^ 0x36 }) + message)
    return Digest.sha256.hash(Data(padded.map { $0 ^ 0x5c }) + inner)
}
