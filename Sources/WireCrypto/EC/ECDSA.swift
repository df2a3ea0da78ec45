import Foundation
internal import COpenSSL
internal import COpenSSLShims

/// ECDSA (ANSI X9.62, FIPS 186-4 §6) over OpenSSL's EVP_PKEY_sign/verify. Signatures are DER
/// `ECDSA-Sig-Value` (what Apple's `…X962…` algorithms and `openssl dgst -sign` produce);
/// `ECDSASignatureEncoding` converts to and from raw r‖s (RFC 4754, CryptoKit's
/// `rawRepresentation`). OpenSSL 3.0 signs with a random k, so signatures differ per call: known
/// answers are checked by verifying published signatures, and interop by each side verifying the other's.
extension ECPrivateKey {
    /// Signs a digest the caller computed. Any length: a digest longer than the group order is cut
    /// to its leftmost bits (X9.62 §7.3), as every implementation does.
    public func signature(forDigest digest: Data) throws -> Data {
        guard !digest.isEmpty else { throw WireCryptoError.invalidLength(what: "ECDSA digest", length: 0, expected: "at least 1 byte") }
        // The DER of two integers of at most the coordinate size each (+1 for a sign byte), with headers.
        let maximum = 2 * (curve.coordinateByteCount + 1 + 3) + 3
        return try operations.sign.with { context in
            var signature = Data(count: maximum)
            var length = maximum
            let status = signature.withUnsafeMutableBytes { output in
                digest.withUnsafeBytes {
                    EVP_PKEY_sign(context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length,
                                  $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
                }
            }
            guard status == 1 else { throw openSSLFailure("EVP_PKEY_sign") }
            signature.count = length
            return signature
        }
    }

    /// Hashes `message` with `digest`, then signs (DER).
    public func signature(for message: Data, digest: Digest) throws -> Data {
        try signature(forDigest: digest.hash(message))
    }
}

extension ECPublicKey {
    /// True when `der` is a DER ECDSA signature of `digest` by this key; false for anything else
    /// (another message, another key, BER or trailing bytes: OpenSSL re-encodes and compares).
    public func isValidSignature(_ der: Data, forDigest digest: Data) -> Bool {
        guard !digest.isEmpty, !der.isEmpty else { return false }
        let status = try? operations.verify.with { context in
            der.withUnsafeBytes { signature in
                digest.withUnsafeBytes { input in
                    EVP_PKEY_verify(context, signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
                                    input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count)
                }
            }
        }
        if status != 1 { OpenSSLError.drainQueue() }
        return status == 1
    }

    /// Hashes `message` with `digest`, then verifies the DER signature.
    public func isValidSignature(_ der: Data, for message: Data, digest: Digest) -> Bool {
        isValidSignature(der, forDigest: digest.hash(message))
    }
}

/// DER `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` and raw r‖s (each big-endian,
/// the curve's coordinate size: RFC 4754 §7, IEEE P1363).
public enum ECDSASignatureEncoding {
    /// r‖s from strict DER (no BER, no trailing bytes, 0 < r, s and each fitting the curve).
    public static func raw(fromDER der: Data, curve: ECCurve) throws -> Data {
        let size = curve.coordinateByteCount
        let bytes = [UInt8](der)
        var cursor: UnsafePointer<UInt8>? = nil
        let signature: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, bytes.count)
        }
        guard let signature else {
            OpenSSLError.drainQueue()
            throw WireCryptoError.malformedSignature(encoding: "DER", reason: "not a DER SEQUENCE of two INTEGERs")
        }
        defer { ECDSA_SIG_free(signature) }
        guard try derEncoding(signature) == Data(bytes) else {
            throw WireCryptoError.malformedSignature(encoding: "DER", reason: "not the one DER encoding (BER lengths, padded integers or trailing bytes)")
        }
        var r: OpaquePointer? = nil, s: OpaquePointer? = nil
        ECDSA_SIG_get0(signature, &r, &s)
        guard let r, let s, BN_is_zero(r) == 0, BN_is_zero(s) == 0, BN_is_negative(r) == 0, BN_is_negative(s) == 0 else {
            throw WireCryptoError.malformedSignature(encoding: "DER", reason: "r and s must be positive")
        }
        var output = [UInt8](repeating: 0, count: 2 * size)
        let fits = output.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, Int32(size)) == Int32(size)
                && BN_bn2binpad(s, buffer.baseAddress! + size, Int32(size)) == Int32(size)
        }
        guard fits else {
            throw WireCryptoError.malformedSignature(encoding: "DER", reason: "r or s is longer than \(curve.rawValue)'s \(size) bytes")
        }
        return Data(output)
    }

    /// Strict DER from r‖s (two halves of the curve's coordinate size).
    public static func der(fromRaw raw: Data, curve: ECCurve) throws -> Data {
        let size = curve.coordinateByteCount
        guard raw.count == 2 * size else {
            throw WireCryptoError.malformedSignature(encoding: "raw r‖s", reason: "\(curve.rawValue) needs \(2 * size) bytes, got \(raw.count)")
        }
        let bytes = [UInt8](raw)
        guard let r = BN_bin2bn(bytes, Int32(size), nil) else { throw openSSLFailure("BN_bin2bn") }
        guard let s = bytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + size, Int32(size), nil) }) else {
            BN_free(r)
            throw openSSLFailure("BN_bin2bn")
        }
        guard let signature = ECDSA_SIG_new() else { BN_free(r); BN_free(s); throw openSSLFailure("ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(signature) }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else { BN_free(r); BN_free(s); throw openSSLFailure("ECDSA_SIG_set0") }
        return try derEncoding(signature)
    }

    private static func derEncoding(_ signature: OpaquePointer) throws -> Data {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_ECDSA_SIG(signature, &out)
        guard length > 0, let out else { throw openSSLFailure("i2d_ECDSA_SIG") }
        defer { COpenSSLShims_OPENSSL_free(out) }
        return Data(bytes: out, count: Int(length))
    }
}
