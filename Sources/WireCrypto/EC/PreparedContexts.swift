import Foundation
internal import COpenSSL

/// Initialised `EVP_PKEY_CTX`s of one key for one operation (sign, verify, derive), kept for reuse.
/// OpenSSL 3.0 fetches the algorithm's implementation on every `*_init` (a method-store look-up
/// under a lock), which costs more than an ECDSA P-256 signature itself; `openssl speed` inits once
/// and signs in a loop, and so does this. Each context serves one caller at a time; one that saw an
/// error is freed, never reused.
final class PreparedContexts: @unchecked Sendable {
    private let lock = NSLock()
    /// Idle contexts, each with what the last caller set on it (a derive context's peer and mode).
    private var idle: [(context: OpaquePointer, setting: AnyObject?)] = []
    private let key: EVPKey
    private let initialize: @Sendable (OpaquePointer) -> Int32
    private let operation: String
    /// Enough for the threads that share one key at once; more are made and freed per call.
    private let capacity = 8

    init(key: EVPKey, operation: String, initialize: @escaping @Sendable (OpaquePointer) -> Int32) {
        self.key = key; self.operation = operation; self.initialize = initialize
    }

    deinit { idle.forEach { EVP_PKEY_CTX_free($0.context) } }

    func with<R>(_ body: (OpaquePointer) throws -> R) throws -> R {
        var setting: AnyObject? = nil
        return try with(setting: &setting) { context, _ in try body(context) }
    }

    /// Runs `body` with a context and what was last set on it (`setting`, nil for a new context);
    /// `body` updates `setting` when it sets something else.
    func with<R>(setting: inout AnyObject?, _ body: (OpaquePointer, inout AnyObject?) throws -> R) throws -> R {
        lock.lock()
        let reused = idle.popLast()
        lock.unlock()
        let context: OpaquePointer
        var current: AnyObject? = reused?.setting
        if let reused {
            context = reused.context
        } else {
            guard let made = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { throw openSSLFailure("EVP_PKEY_CTX_new_from_pkey") }
            guard initialize(made) == 1 else {
                EVP_PKEY_CTX_free(made)
                throw openSSLFailure(operation)
            }
            context = made
        }
        do {
            let result = try body(context, &current)
            setting = current
            lock.lock()
            if idle.count < capacity { idle.append((context, current)); lock.unlock() } else { lock.unlock(); EVP_PKEY_CTX_free(context) }
            return result
        } catch {
            EVP_PKEY_CTX_free(context)
            throw error
        }
    }
}

/// The prepared contexts of one EC or X25519 key, made with it.
final class KeyOperations: @unchecked Sendable {
    let sign: PreparedContexts
    let verify: PreparedContexts
    let derive: PreparedContexts

    init(_ key: EVPKey) {
        sign = PreparedContexts(key: key, operation: "EVP_PKEY_sign_init") { EVP_PKEY_sign_init($0) }
        verify = PreparedContexts(key: key, operation: "EVP_PKEY_verify_init") { EVP_PKEY_verify_init($0) }
        derive = PreparedContexts(key: key, operation: "EVP_PKEY_derive_init") { EVP_PKEY_derive_init($0) }
    }
}
