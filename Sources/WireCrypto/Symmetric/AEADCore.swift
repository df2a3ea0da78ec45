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

/// Detached AEAD: ciphertext and tag apart, nonce and tag of any length the cipher allows (AES-GCM
/// nonces longer than OpenSSL takes go through `GCMLongNonce`, so every caller gets them).
public enum AEADCore {
    /// Fills `nonce` with random bytes for one message (a per-thread pool refilled by getrandom(2);
    /// see `NoncePool`). Never use the same nonce twice under one key.
    public static func randomNonce(into nonce: UnsafeMutableRawBufferPointer) { NoncePool.fill(nonce) }

    /// Encrypts; returns ciphertext and a tag of `tagLength` bytes.
    public static func seal(
        _ algorithm: AEADAlgorithm, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        plaintext: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer, tagLength: Int = 16,
        into output: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawBufferPointer
    ) throws {
        let cipher = try algorithm.cipher(keyBytes: key.count)
        guard output.count >= plaintext.count else {
            throw WireCryptoError.incorrectParameterSize(what: "AEAD output buffer", length: output.count, expected: "at least \(plaintext.count)")
        }
        guard tag.count >= tagLength else {
            throw WireCryptoError.incorrectParameterSize(what: "AEAD tag buffer", length: tag.count, expected: "at least \(tagLength)")
        }
        if algorithm == .aesGCM, nonce.count > GCMLongNonce.openSSLMaximumNonceBytes {
            // CryptoKit takes any nonce of 12 bytes or more; OpenSSL's GCM stops at 128 (Wycheproof tc268).
            guard (1...16).contains(tagLength) else {
                throw WireCryptoError.incorrectParameterSize(what: "tag", length: tagLength, expected: "1 to 16")
            }
            let sealed = try GCMLongNonce.seal(key: [UInt8](key), nonce: [UInt8](nonce), plaintext: [UInt8](plaintext), aad: [UInt8](aad))
            sealed.ciphertext.withUnsafeBytes { output.copyMemory(from: $0) }
            sealed.tag.withUnsafeBytes { tag.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(tagLength))) }
            return
        }
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
        if algorithm == .aesGCM, nonce.count > GCMLongNonce.openSSLMaximumNonceBytes {
            return Data(try GCMLongNonce.open(key: [UInt8](key), nonce: [UInt8](nonce), ciphertext: [UInt8](ciphertext),
                                              tag: [UInt8](tag), aad: [UInt8](aad)))
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

    /// Encrypts into one new buffer laid out as CryptoKit's combined representation: nonce ‖
    /// ciphertext ‖ 16-byte tag, 64-byte aligned and never zero-filled first. One allocation per
    /// message, and the combined form costs no copy later. What `AES.GCM.seal` and
    /// `ChaChaPoly.seal` use.
    public static func sealCombined(
        _ algorithm: AEADAlgorithm, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        plaintext: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer
    ) throws -> Data {
        // Raw memory first, `Data` only around the finished bytes: every access through `Data`
        // costs a uniqueness and an exclusivity check, which at 16 KiB is measurable.
        let count = nonce.count + plaintext.count + 16
        let output = try alignedAllocation(count)
        do {
            if nonce.count > 0, let nonceBase = nonce.baseAddress { output.copyMemory(from: nonceBase, byteCount: nonce.count) }
            try seal(algorithm, key: key, nonce: nonce, plaintext: plaintext, aad: aad,
                     into: UnsafeMutableRawBufferPointer(start: output + nonce.count, count: plaintext.count),
                     tag: UnsafeMutableRawBufferPointer(start: output + nonce.count + plaintext.count, count: 16))
        } catch {
            free(output)
            throw error
        }
        return Data(bytesNoCopy: output, count: count, deallocator: .free)
    }

    /// `count` bytes aligned to a cache line (AES-NI loops store a little faster there), not zeroed.
    private static func alignedAllocation(_ count: Int) throws -> UnsafeMutableRawPointer {
        var memory: UnsafeMutableRawPointer?
        guard posix_memalign(&memory, 64, count) == 0, let memory else {
            throw WireCryptoError.unsupported("allocating \(count) bytes for a sealed message (out of memory)")
        }
        return memory
    }

    /// Runs `body` with a context initialised for `key` and `nonce`. Contexts for 12-byte nonces come
    /// from a per-thread table and keep their expanded key while the key stays the same: making a
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
        guard nonce.count == 12, let slot = AEADContextTable.slot(algorithm: algorithm, keyBytes: key.count, encrypt: encrypt) else {
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
        do {
            let context = try AEADContextTable.context(slot, cipher: cipher, key: key)
            if AEADContextTable.holds(slot, key: key) {
                guard initFunction(context, nil, nil, nonce.uint8, nil) == 1 else { throw openSSLFailure("EVP_CipherInit_ex2(nonce)") }
            } else {
                guard initFunction(context, cipher.pointer, key.uint8, nonce.uint8, nil) == 1 else {
                    throw openSSLFailure("EVP_CipherInit_ex2(key, nonce)")
                }
                AEADContextTable.remember(slot, key: key)
            }
            return try body(context)
        } catch {
            AEADContextTable.drop(slot)
            throw error
        }
    }
}

/// The calling thread's AEAD contexts, one per (cipher, direction), each with the key it was
/// initialised with: a table in plain memory, one per thread (an `EVP_CIPHER_CTX` must not be
/// shared between threads), freed with its keys wiped when the thread ends. Plain memory because
/// on this path a dictionary look-up and the exclusivity checks of class properties cost as much
/// as GCM's own per-message set-up.
enum AEADContextTable {
    struct Slot {
        var context: OpaquePointer?
        var keyLength: Int
        /// The key the context holds (at most 32 bytes), zero-padded.
        var key: (UInt64, UInt64, UInt64, UInt64)
    }
    typealias SlotPointer = UnsafeMutablePointer<Slot>

    /// AES-128/192/256-GCM and ChaCha20-Poly1305, each encrypting and decrypting.
    static let count = 8

    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { raw in
            guard let raw else { return }
            let table = raw.assumingMemoryBound(to: Slot.self)
            for index in 0..<AEADContextTable.count { AEADContextTable.drop(table + index) }
            table.deinitialize(count: AEADContextTable.count)
            table.deallocate()
        }
        // Without thread-specific storage (a process out of keys) nothing here can work.
        precondition(status == 0, "pthread_key_create failed")
        return key
    }()

    /// This thread's slot for the cipher; nil for a key size the algorithm does not have.
    static func slot(algorithm: AEADAlgorithm, keyBytes: Int, encrypt: Bool) -> SlotPointer? {
        let cipherIndex: Int
        switch (algorithm, keyBytes) {
        case (.aesGCM, 16): cipherIndex = 0
        case (.aesGCM, 24): cipherIndex = 1
        case (.aesGCM, 32): cipherIndex = 2
        case (.chaChaPoly, 32): cipherIndex = 3
        default: return nil
        }
        let table: SlotPointer
        if let raw = pthread_getspecific(threadKey) {
            table = raw.assumingMemoryBound(to: Slot.self)
        } else {
            table = SlotPointer.allocate(capacity: count)
            table.initialize(repeating: Slot(context: nil, keyLength: 0, key: (0, 0, 0, 0)), count: count)
            pthread_setspecific(threadKey, table)
        }
        return table + (cipherIndex * 2 + (encrypt ? 0 : 1))
    }

    /// The slot's context, made on first use.
    static func context(_ slot: SlotPointer, cipher: FetchedCipher, key: UnsafeRawBufferPointer) throws -> OpaquePointer {
        if let context = slot.pointee.context { return context }
        guard let context = EVP_CIPHER_CTX_new() else { throw openSSLFailure("EVP_CIPHER_CTX_new") }
        slot.pointee.context = context
        slot.pointee.keyLength = 0
        return context
    }

    /// True when the slot's context was initialised with exactly `key` (compared without an early exit).
    static func holds(_ slot: SlotPointer, key: UnsafeRawBufferPointer) -> Bool {
        guard slot.pointee.keyLength == key.count, key.count <= 32 else { return false }
        let candidate = words(key)
        let held = slot.pointee.key
        return (candidate.0 ^ held.0) | (candidate.1 ^ held.1) | (candidate.2 ^ held.2) | (candidate.3 ^ held.3) == 0
    }

    static func remember(_ slot: SlotPointer, key: UnsafeRawBufferPointer) {
        guard key.count <= 32 else { slot.pointee.keyLength = 0; return }
        slot.pointee.key = words(key)
        slot.pointee.keyLength = key.count
    }

    /// Frees the slot's context and wipes its key.
    static func drop(_ slot: SlotPointer) {
        if let context = slot.pointee.context { EVP_CIPHER_CTX_free(context) }
        slot.pointee.context = nil
        slot.pointee.keyLength = 0
        withUnsafeMutableBytes(of: &slot.pointee.key) { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }

    /// Up to 32 key bytes as four words, zero-padded.
    private static func words(_ key: UnsafeRawBufferPointer) -> (UInt64, UInt64, UInt64, UInt64) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: key.prefix(32))) }
        return words
    }
}
