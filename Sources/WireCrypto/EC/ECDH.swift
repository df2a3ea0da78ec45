import Foundation
internal import COpenSSL

extension ECPrivateKey {
    /// ECDH (SEC 1 §3.3.1; SP 800-56A §5.7.1.2 with `cofactor`): the x coordinate of K·Q, left-padded
    /// to the curve's coordinate size. P-256, P-384 and P-521 have cofactor 1, so both modes give
    /// the same secret; `cofactor` is passed to OpenSSL anyway so the mode asked for is the mode run.
    public func sharedSecret(with peer: ECPublicKey, cofactor: Bool = false) throws -> Data {
        guard peer.curve == curve else { throw WireCryptoError.curveMismatch(expected: curve.rawValue, actual: peer.curve.rawValue) }
        return try derive(key, peer: peer.key, configure: { context in
            guard EVP_PKEY_CTX_set_ecdh_cofactor_mode(context, cofactor ? 1 : 0) == 1 else {
                throw openSSLFailure("EVP_PKEY_CTX_set_ecdh_cofactor_mode")
            }
        })
    }
}

/// `EVP_PKEY_derive` between `key` and `peer` (ECDH, X25519).
func derive(_ key: EVPKey, peer: EVPKey, configure: (OpaquePointer) throws -> Void = { _ in }) throws -> Data {
    guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { throw openSSLFailure("EVP_PKEY_CTX_new_from_pkey") }
    defer { EVP_PKEY_CTX_free(context) }
    guard EVP_PKEY_derive_init(context) == 1 else { throw openSSLFailure("EVP_PKEY_derive_init") }
    try configure(context)
    guard EVP_PKEY_derive_set_peer(context, peer.pointer) == 1 else {
        throw WireCryptoError.keyAgreementFailed(reason: "OpenSSL refuses the peer key (\(OpenSSLError.drain(after: "EVP_PKEY_derive_set_peer").stackText()))")
    }
    var length = 0
    guard EVP_PKEY_derive(context, nil, &length) == 1 else { throw openSSLFailure("EVP_PKEY_derive(size)") }
    var secret = [UInt8](repeating: 0, count: length)
    defer { secret.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
    guard EVP_PKEY_derive(context, &secret, &length) == 1 else {
        // X25519 refuses an all-zero result (a low-order peer point, RFC 7748 §6.1).
        throw WireCryptoError.keyAgreementFailed(reason: "no shared secret (\(OpenSSLError.drain(after: "EVP_PKEY_derive").stackText()))")
    }
    return Data(secret.prefix(length))
}

/// The ANSI X9.63 key derivation function (SEC 1 §3.6.1): hash(Z ‖ counter₃₂ ‖ SharedInfo) for
/// counter = 1, 2, … concatenated and cut to the length asked for. Apple's
/// `…KeyExchange…X963SHA*` and ECIES algorithms and CryptoKit's `x963DerivedSymmetricKey` use it.
/// Over OpenSSL's `X963KDF` (EVP_KDF).
public enum X963KDF {
    public static func derive(secret: Data, sharedInfo: Data = Data(), digest: Digest, byteCount: Int) throws -> Data {
        guard !secret.isEmpty else { throw WireCryptoError.invalidLength(what: "X9.63 KDF shared secret", length: 0, expected: "at least 1 byte") }
        // X9.63 §5.6.3: at most hashlen·(2³² − 1) bytes; far beyond any key, so a sane cap is used.
        guard (1...(1 << 20)).contains(byteCount) else {
            throw WireCryptoError.invalidLength(what: "X9.63 KDF output", length: byteCount, expected: "1 to 1,048,576 bytes")
        }
        guard let kdf = EVP_KDF_fetch(nil, "X963KDF", nil) else { throw openSSLFailure("EVP_KDF_fetch(X963KDF)") }
        defer { EVP_KDF_free(kdf) }
        guard let context = EVP_KDF_CTX_new(kdf) else { throw openSSLFailure("EVP_KDF_CTX_new") }
        defer { EVP_KDF_CTX_free(context) }
        let params = try OSSLParams().string("digest", digest.rawValue).octets("key", secret).octets("info", sharedInfo)
        var output = [UInt8](repeating: 0, count: byteCount)
        let status = try params.withParams { EVP_KDF_derive(context, &output, byteCount, $0) }
        guard status == 1 else { throw openSSLFailure("EVP_KDF_derive(X963KDF, \(digest.rawValue))") }
        return Data(output)
    }
}
