import Foundation
internal import WireCrypto

// CryptoKit's AES.GCM and ChaChaPoly with Apple's names, shapes and errors, over WireCrypto's
// CryptoKit-shaped AEAD (one implementation of sealing, opening and the combined layout; this file
// only wraps its types and turns its detailed errors into the cases Apple's CryptoKit throws). As in
// swift-crypto (CryptoKit's open twin), a sealed box keeps nonce ‖ ciphertext ‖ tag in one buffer, and
// `ciphertext` and `tag` are slices of it whose indices start where they sit in it.

/// WireCrypto's errors in CryptoKit's terms.
func cryptoKitError(from error: Error) -> CryptoKitError {
    switch error as? WireCryptoError {
    case .authenticationFailure?: return .authenticationFailure
    case .incorrectKeySize?: return .incorrectKeySize
    case .incorrectParameterSize?, .invalidLength?: return .incorrectParameterSize
    default: return .underlyingCoreCryptoError(error: -1)
    }
}

/// Runs `body`, rethrowing any error as the `CryptoKitError` Apple's CryptoKit would throw.
func asCryptoKit<R>(_ body: () throws -> R) throws -> R {
    do { return try body() } catch { throw cryptoKitError(from: error) }
}

/// CryptoKit's `AES` namespace.
public enum AES {
    /// AES in Galois/Counter Mode, as CryptoKit provides it.
    public enum GCM {
        /// A nonce of 12 bytes (the default, random) or more: CryptoKit accepts any length ≥ 12.
        public struct Nonce: ContiguousBytes, Sequence, Sendable {
            let wrapped: WireCrypto.AES.GCM.Nonce

            /// A fresh random 12-byte nonce.
            public init() { wrapped = WireCrypto.AES.GCM.Nonce() }

            /// A nonce of the given bytes; fewer than 12 is `CryptoKitError.incorrectParameterSize`.
            public init<D: DataProtocol>(data: D) throws { wrapped = try asCryptoKit { try WireCrypto.AES.GCM.Nonce(data: data) } }

            init(wrapping nonce: WireCrypto.AES.GCM.Nonce) { wrapped = nonce }

            public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try wrapped.withUnsafeBytes(body) }
            public func makeIterator() -> Array<UInt8>.Iterator { wrapped.makeIterator() }
        }

        /// A sealed message: nonce, ciphertext and a 16-byte tag.
        public struct SealedBox: Sendable {
            let wrapped: WireCrypto.AES.GCM.SealedBox

            public var nonce: AES.GCM.Nonce { Nonce(wrapping: wrapped.nonce) }
            public var ciphertext: Data { wrapped.ciphertext }
            public var tag: Data { wrapped.tag }
            /// nonce ‖ ciphertext ‖ tag; nil when the nonce is not 12 bytes (as in CryptoKit).
            public var combined: Data? { wrapped.combined }

            /// Splits a combined blob; fewer than 28 bytes is `.incorrectParameterSize`.
            public init<D: DataProtocol>(combined: D) throws {
                wrapped = try asCryptoKit { try WireCrypto.AES.GCM.SealedBox(combined: combined) }
            }

            /// A box from its parts; a tag that is not 16 bytes is `.incorrectParameterSize`.
            public init<C: DataProtocol, T: DataProtocol>(nonce: AES.GCM.Nonce, ciphertext: C, tag: T) throws {
                wrapped = try asCryptoKit { try WireCrypto.AES.GCM.SealedBox(nonce: nonce.wrapped, ciphertext: ciphertext, tag: tag) }
            }

            init(wrapping box: WireCrypto.AES.GCM.SealedBox) { wrapped = box }
        }

        public static func seal<Plaintext: DataProtocol>(
            _ message: Plaintext, using key: SymmetricKey, nonce: AES.GCM.Nonce? = nil
        ) throws -> AES.GCM.SealedBox {
            try seal(message, using: key, nonce: nonce, authenticating: Data())
        }

        public static func seal<Plaintext: DataProtocol, AuthenticatedData: DataProtocol>(
            _ message: Plaintext, using key: SymmetricKey, nonce: AES.GCM.Nonce? = nil,
            authenticating authenticatedData: AuthenticatedData
        ) throws -> AES.GCM.SealedBox {
            SealedBox(wrapping: try asCryptoKit {
                try WireCrypto.AES.GCM.seal(message, using: key.wrapped, nonce: nonce?.wrapped, authenticating: authenticatedData)
            })
        }

        public static func open(_ sealedBox: AES.GCM.SealedBox, using key: SymmetricKey) throws -> Data {
            try open(sealedBox, using: key, authenticating: Data())
        }

        public static func open<AuthenticatedData: DataProtocol>(
            _ sealedBox: AES.GCM.SealedBox, using key: SymmetricKey, authenticating authenticatedData: AuthenticatedData
        ) throws -> Data {
            try asCryptoKit { try WireCrypto.AES.GCM.open(sealedBox.wrapped, using: key.wrapped, authenticating: authenticatedData) }
        }
    }
}

/// ChaCha20-Poly1305 (RFC 8439), as CryptoKit provides it: 256-bit keys, 12-byte nonces.
public enum ChaChaPoly {
    public struct Nonce: ContiguousBytes, Sequence, Sendable {
        let wrapped: WireCrypto.ChaChaPoly.Nonce

        public init() { wrapped = WireCrypto.ChaChaPoly.Nonce() }

        /// Exactly 12 bytes; any other length is `CryptoKitError.incorrectParameterSize`.
        public init<D: DataProtocol>(data: D) throws { wrapped = try asCryptoKit { try WireCrypto.ChaChaPoly.Nonce(data: data) } }

        init(wrapping nonce: WireCrypto.ChaChaPoly.Nonce) { wrapped = nonce }

        public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try wrapped.withUnsafeBytes(body) }
        public func makeIterator() -> Array<UInt8>.Iterator { wrapped.makeIterator() }
    }

    public struct SealedBox: Sendable {
        let wrapped: WireCrypto.ChaChaPoly.SealedBox

        public var nonce: ChaChaPoly.Nonce { Nonce(wrapping: wrapped.nonce) }
        public var ciphertext: Data { wrapped.ciphertext }
        public var tag: Data { wrapped.tag }
        /// nonce ‖ ciphertext ‖ tag (never nil for ChaChaPoly, as in CryptoKit).
        public var combined: Data { wrapped.combined }

        public init<D: DataProtocol>(combined: D) throws {
            wrapped = try asCryptoKit { try WireCrypto.ChaChaPoly.SealedBox(combined: combined) }
        }

        public init<C: DataProtocol, T: DataProtocol>(nonce: ChaChaPoly.Nonce, ciphertext: C, tag: T) throws {
            wrapped = try asCryptoKit { try WireCrypto.ChaChaPoly.SealedBox(nonce: nonce.wrapped, ciphertext: ciphertext, tag: tag) }
        }

        init(wrapping box: WireCrypto.ChaChaPoly.SealedBox) { wrapped = box }
    }

    public static func seal<Plaintext: DataProtocol>(
        _ message: Plaintext, using key: SymmetricKey, nonce: ChaChaPoly.Nonce? = nil
    ) throws -> ChaChaPoly.SealedBox {
        try seal(message, using: key, nonce: nonce, authenticating: Data())
    }

    public static func seal<Plaintext: DataProtocol, AuthenticatedData: DataProtocol>(
        _ message: Plaintext, using key: SymmetricKey, nonce: ChaChaPoly.Nonce? = nil,
        authenticating authenticatedData: AuthenticatedData
    ) throws -> ChaChaPoly.SealedBox {
        SealedBox(wrapping: try asCryptoKit {
            try WireCrypto.ChaChaPoly.seal(message, using: key.wrapped, nonce: nonce?.wrapped, authenticating: authenticatedData)
        })
    }

    public static func open(_ sealedBox: ChaChaPoly.SealedBox, using key: SymmetricKey) throws -> Data {
        try open(sealedBox, using: key, authenticating: Data())
    }

    public static func open<AuthenticatedData: DataProtocol>(
        _ sealedBox: ChaChaPoly.SealedBox, using key: SymmetricKey, authenticating authenticatedData: AuthenticatedData
    ) throws -> Data {
        try asCryptoKit { try WireCrypto.ChaChaPoly.open(sealedBox.wrapped, using: key.wrapped, authenticating: authenticatedData) }
    }
}
