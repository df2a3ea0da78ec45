import Foundation
internal import COpenSSL

extension ECPrivateKey {
    /// ECDH (SEC 1 §3.3.1; SP 800-56A §5.7.1.2 with `cofactor`): the x coordinate of K·Q, left-padded
    /// to the curve's coordinate size. P-256, P-384 and P-521 have cofactor 1, so both modes give
    /// the same secret; `cofactor` is passed to OpenSSL anyway so the mode asked for is the mode run.
    public func sharedSecret(with peer: ECPublicKey, cofactor: Bool = false) throws -> Data {
        guard peer.curve == curve else { throw WireCryptoError.curveMismatch(expected: curve.rawValue, actual: peer.curve.rawValue) }
        return try derive(operations.derive, peer: peer.key, mode: cofactor ? 1 : 0, configure: { context in
            guard EVP_PKEY_CTX_set_ecdh_cofactor_mode(context, cofactor ? 1 : 0) == 1 else {
                throw openSSLFailure("EVP_PKEY_CTX_set_ecdh_cofactor_mode")
            }
        })
    }
}

/// `EVP_PKEY_derive` with one of `contexts` and `peer` (ECDH, X25519). The peer is not validated
/// again here (`validate_peer` 0): every public key was checked when it was made (a point on its
/// curve; these curves have cofactor 1, so OpenSSL's further check, n·Q = O, only repeats a scalar
/// multiplication that cannot fail). A context already set up for this peer and `mode` (agreeing
/// with the same key again, as a phone does with its Pi's) is used as it is.
func derive(_ contexts: PreparedContexts, peer: EVPKey, mode: Int32 = 0, configure: (OpaquePointer) throws -> Void = { _ in }) throws -> Data {
    var setting: AnyObject? = nil
    return try contexts.with(setting: &setting) { context, current in
        let wanted = DeriveSetting(peer: peer, mode: mode)
        if !wanted.matches(current) {
            current = nil
            try configure(context)
            guard EVP_PKEY_derive_set_peer_ex(context, peer.pointer, 0) == 1 else {
                throw WireCryptoError.keyAgreementFailed(reason: "OpenSSL refuses the peer key (\(OpenSSLError.drain(after: "EVP_PKEY_derive_set_peer").stackText()))")
            }
            current = wanted
        }
        // The largest secret of these curves (P-521's 66-byte x); OpenSSL writes its length.
        var secret = [UInt8](repeating: 0, count: 66)
        var length = secret.count
        defer { secret.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        guard EVP_PKEY_derive(context, &secret, &length) == 1 else {
            // X25519 refuses an all-zero result (a low-order peer point, RFC 7748 §6.1).
            throw WireCryptoError.keyAgreementFailed(reason: "no shared secret (\(OpenSSLError.drain(after: "EVP_PKEY_derive").stackText()))")
        }
        return Data(secret.prefix(length))
    }
}

/// What a derive context was set up with: the peer (by identity) and the cofactor mode.
private final class DeriveSetting {
    let peer: EVPKey
    let mode: Int32
    init(peer: EVPKey, mode: Int32) { self.peer = peer; self.mode = mode }
    func matches(_ other: AnyObject?) -> Bool {
        guard let other = other as? DeriveSetting else { return false }
        return other.peer === peer && other.mode == mode
    }
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
