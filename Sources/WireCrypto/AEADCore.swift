import Foundation
internal import COpenSSL

/// The two AEADs of the `sealed` profile, over OpenSSL EVP. The CryptoKit-shaped `AES.GCM` and
/// `ChaChaPoly` are thin layers over this; Wycheproof runs use it directly (any nonce/tag length).
public enum AEADAlgorithm: String, Sendable, CaseIterable {
    case aesGCM = "aes-gcm"
    case chaChaPoly = "chachapoly"

    public var allowedKeySizes: [Int] { self == .aesGCM ? [16, 24, 32] : [32] }

    func cipher(keyBytes: Int) throws -> FetchedCipher {
        switch (self, keyBytes) {
        case (.aesGCM, 16): return .aes128GCM
        case (.aesGCM, 24): return .aes192GCM
        case (.aesGCM, 32): return .aes256GCM
        case (.chaChaPoly, 32): return .chaCha20Poly1305
        default: throw WireCryptoError.incorrectKeySize(bytes: keyBytes, allowed: allowedKeySizes)
        }
    }
}

/// Detached AEAD: ciphertext and tag apart, nonce and tag of any length the cipher allows.
public enum AEADCore {
    /// Encrypts; returns ciphertext and a tag of `tagLength` bytes.
    public static func seal(
        _ algorithm: AEADAlgorithm, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        plaintext: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer, tagLength: Int = 16,
        into output: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawBufferPointer
    ) throws {
        let cipher = try algorithm.cipher(keyBytes: key.count)
        precondition(output.count >= plaintext.count && tag.count >= tagLength)
        try withContext(cipher, encrypt: true, key: key, nonce: nonce, algorithm: algorithm) { context in
            var written: Int32 = 0
            if aad.count > 0 {
                guard EVP_EncryptUpdate(context, nil, &written, aad.uint8, Int32(aad.count)) == 1 else {
                    throw openSSLFailure("EVP_EncryptUpdate(aad)")
                }
            }
            var total: Int32 = 0
            if plaintext.count > 0 {
                guard EVP_EncryptUpdate(context, output.uint8, &total, plaintext.uint8, Int32(plaintext.count)) == 1 else {
                    throw openSSLFailure("EVP_EncryptUpdate")
                }
            }
            var finalWritten: Int32 = 0
            guard EVP_EncryptFinal_ex(context, output.uint8.map { $0 + Int(total) }, &finalWritten) == 1 else {
                throw openSSLFailure("EVP_EncryptFinal_ex")
            }
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagLength), tag.baseAddress) == 1 else {
                throw openSSLFailure("EVP_CIPHER_CTX_ctrl(GET_TAG)")
            }
        }
    }

    /// Decrypts and verifies; writes no plaintext to the caller unless the tag verifies.
    public static func open(
        _ algorithm: AEADAlgorithm, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer
    ) throws -> Data {
        let cipher = try algorithm.cipher(keyBytes: key.count)
        guard (algorithm == .aesGCM ? 4...16 : 16...16).contains(tag.count) else {
            throw WireCryptoError.incorrectParameterSize(what: "tag", length: tag.count,
                                                         expected: algorithm == .aesGCM ? "4 to 16" : "16")
        }
        return try withContext(cipher, encrypt: false, key: key, nonce: nonce, algorithm: algorithm) { context in
            var written: Int32 = 0
            if aad.count > 0 {
                guard EVP_DecryptUpdate(context, nil, &written, aad.uint8, Int32(aad.count)) == 1 else {
                    throw openSSLFailure("EVP_DecryptUpdate(aad)")
                }
            }
            // Decrypt into a scratch buffer that is wiped unless the tag verifies.
            var scratch = Data(count: ciphertext.count)
            var verified = false
            defer { if !verified { scratch.resetBytes(in: 0..<scratch.count) } }
            var total: Int32 = 0
            let ok = scratch.withUnsafeMutableBytes { out -> Bool in
                if ciphertext.count > 0 {
                    guard EVP_DecryptUpdate(context, out.uint8, &total, ciphertext.uint8, Int32(ciphertext.count)) == 1 else { return false }
                }
                guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tag.count),
                                          UnsafeMutableRawPointer(mutating: tag.baseAddress)) == 1 else { return false }
                var finalWritten: Int32 = 0
                return EVP_DecryptFinal_ex(context, out.uint8.map { $0 + Int(total) }, &finalWritten) == 1
            }
            guard ok else { OpenSSLError.drainQueue(); throw WireCryptoError.authenticationFailure }
            verified = true
            return scratch
        }
    }

    /// Runs `body` with a context initialised for `key` and `nonce`. Contexts for 12-byte nonces come
    /// from a per-thread cache and keep their expanded key while the key stays the same: making a
    /// GCM context and expanding its key costs about as much as sealing 4 KiB. A context that saw
    /// any failure is dropped, never reused.
    private static func withContext<R>(
        _ cipher: FetchedCipher, encrypt: Bool, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        algorithm: AEADAlgorithm, _ body: (OpaquePointer) throws -> R
    ) throws -> R {
        if algorithm == .chaChaPoly, nonce.count != 12 {
            throw WireCryptoError.incorrectParameterSize(what: "ChaChaPoly nonce", length: nonce.count, expected: "12")
        }
        if nonce.count == 0 {
            throw WireCryptoError.incorrectParameterSize(what: "AES-GCM nonce", length: 0, expected: "at least 1 (12 is standard)")
        }
        let initFunction = encrypt ? EVP_EncryptInit_ex2 : EVP_DecryptInit_ex2
        guard nonce.count == 12 else {
            return try withCipherContext { context in
                guard initFunction(context, cipher.pointer, nil, nil, nil) == 1 else { throw openSSLFailure("EVP_CipherInit_ex2") }
                guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonce.count), nil) == 1 else {
                    throw openSSLFailure("EVP_CIPHER_CTX_ctrl(SET_IVLEN \(nonce.count))")
                }
                guard initFunction(context, nil, key.uint8, nonce.uint8, nil) == 1 else {
                    throw openSSLFailure("EVP_CipherInit_ex2(key, nonce)")
                }
                return try body(context)
            }
        }
        let cache = AEADContextCache.current()
        let slot = cache.slot(cipher: cipher, encrypt: encrypt)
        do {
            if slot.holds(cipher: cipher, key: key) {
                guard initFunction(slot.context, nil, nil, nonce.uint8, nil) == 1 else { throw openSSLFailure("EVP_CipherInit_ex2(nonce)") }
            } else {
                guard initFunction(slot.context, cipher.pointer, key.uint8, nonce.uint8, nil) == 1 else {
                    throw openSSLFailure("EVP_CipherInit_ex2(key, nonce)")
                }
                slot.remember(cipher: cipher, key: key)
            }
            return try body(slot.context)
        } catch {
            cache.drop(cipher: cipher, encrypt: encrypt)
            throw error
        }
    }
}

/// One reusable `EVP_CIPHER_CTX` with the key it was initialised with.
final class AEADContextSlot {
    let context: OpaquePointer
    private var cipher: FetchedCipher?
    private var key: [UInt8] = []

    init() throws {
        guard let context = EVP_CIPHER_CTX_new() else { throw openSSLFailure("EVP_CIPHER_CTX_new") }
        self.context = context
    }

    deinit {
        forgetKey()
        EVP_CIPHER_CTX_free(context)
    }

    func holds(cipher: FetchedCipher, key candidate: UnsafeRawBufferPointer) -> Bool {
        self.cipher === cipher && key.count == candidate.count && key.withUnsafeBytes { CRYPTO_memcmp($0.baseAddress, candidate.baseAddress, candidate.count) == 0 }
    }

    func remember(cipher: FetchedCipher, key newKey: UnsafeRawBufferPointer) {
        forgetKey()
        self.cipher = cipher
        key = [UInt8](newKey)
    }

    private func forgetKey() {
        key.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
        key = []
    }
}

/// The calling thread's AEAD contexts, one per (cipher, direction). Thread-local because an
/// `EVP_CIPHER_CTX` must not be shared between threads.
final class AEADContextCache {
    private var slots: [ObjectIdentifier: AEADContextSlot] = [:]

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { raw in
            if let raw { Unmanaged<AEADContextCache>.fromOpaque(raw).release() }
        }
        precondition(status == 0, "pthread_key_create failed")
        return key
    }()

    static func current() -> AEADContextCache {
        if let raw = pthread_getspecific(key) { return Unmanaged<AEADContextCache>.fromOpaque(raw).takeUnretainedValue() }
        let cache = AEADContextCache()
        pthread_setspecific(key, Unmanaged.passRetained(cache).toOpaque())
        return cache
    }

    private func id(_ cipher: FetchedCipher, _ encrypt: Bool) -> ObjectIdentifier {
        // Distinct FetchedCipher objects per algorithm and key size; the direction picks one of two tables.
        ObjectIdentifier(encrypt ? cipher : cipher.decryptToken)
    }

    func slot(cipher: FetchedCipher, encrypt: Bool) -> AEADContextSlot {
        let id = id(cipher, encrypt)
        if let slot = slots[id] { return slot }
        // Allocation failure of a context is an out-of-memory condition; surface it at first use.
        let slot = try! AEADContextSlot()
        slots[id] = slot
        return slot
    }

    func drop(cipher: FetchedCipher, encrypt: Bool) { slots[id(cipher, encrypt)] = nil }
}
