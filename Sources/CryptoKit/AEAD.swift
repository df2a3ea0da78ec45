import Foundation
internal import WireCrypto

/// The 12-byte nonce and 16-byte tag that CryptoKit's combined representations use.
let defaultNonceByteCount = 12
let tagByteCount = 16

/// Seals with OpenSSL through WireCrypto's AEADCore; returns ciphertext and tag.
func aeadSeal<M: DataProtocol, A: DataProtocol>(
    _ algorithm: AEADAlgorithm, key: SymmetricKey, nonce: [UInt8], message: M, aad: A
) throws -> (ciphertext: Data, tag: Data) {
    guard algorithm.allowedKeySizes.contains(key.bytes.count) else { throw CryptoKitError.incorrectKeySize }
    let plaintext = [UInt8](message)
    let associated = [UInt8](aad)
    var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
    var tag = [UInt8](repeating: 0, count: tagByteCount)
    do {
        try key.bytes.withUnsafeBytes { keyBytes in
            try nonce.withUnsafeBytes { nonceBytes in
                try plaintext.withUnsafeBytes { plain in
                    try associated.withUnsafeBytes { aadBytes in
                        try ciphertext.withUnsafeMutableBytes { out in
                            try tag.withUnsafeMutableBytes { tagOut in
                                try AEADCore.seal(algorithm, key: keyBytes, nonce: nonceBytes, plaintext: plain,
                                                  aad: aadBytes, into: out, tag: tagOut)
                            }
                        }
                    }
                }
            }
        }
    } catch {
        throw cryptoKitError(from: error)
    }
    return (Data(ciphertext), Data(tag))
}

/// Opens with OpenSSL through AEADCore; a tag that does not verify is `.authenticationFailure`.
func aeadOpen<A: DataProtocol>(
    _ algorithm: AEADAlgorithm, key: SymmetricKey, nonce: [UInt8], ciphertext: Data, tag: Data, aad: A
) throws -> Data {
    guard algorithm.allowedKeySizes.contains(key.bytes.count) else { throw CryptoKitError.incorrectKeySize }
    let associated = [UInt8](aad)
    do {
        return try key.bytes.withUnsafeBytes { keyBytes in
            try nonce.withUnsafeBytes { nonceBytes in
                try ciphertext.withUnsafeBytes { cipherBytes in
                    try tag.withUnsafeBytes { tagBytes in
                        try associated.withUnsafeBytes { aadBytes in
                            try AEADCore.open(algorithm, key: keyBytes, nonce: nonceBytes, ciphertext: cipherBytes,
                                              tag: tagBytes, aad: aadBytes)
                        }
                    }
                }
            }
        }
    } catch {
        throw cryptoKitError(from: error)
    }
}

/// WireCrypto's errors in CryptoKit's terms.
func cryptoKitError(from error: Error) -> CryptoKitError {
    switch error as? WireCryptoError {
    case .authenticationFailure?: return .authenticationFailure
    case .incorrectKeySize?: return .incorrectKeySize
    case .incorrectParameterSize?, .invalidLength?: return .incorrectParameterSize
    default: return .underlyingCoreCryptoError(error: -1)
    }
}

/// CryptoKit's `AES` namespace.
public enum AES {
    /// AES in Galois/Counter Mode, as CryptoKit provides it.
    public enum GCM {
        /// A nonce of 12 bytes (the default, random) or more: CryptoKit accepts any length ≥ 12.
        public struct Nonce: ContiguousBytes, Sequence, Sendable {
            let bytes: [UInt8]

            /// A fresh random 12-byte nonce.
            public init() { bytes = [UInt8](secureRandomBytes(defaultNonceByteCount)) }

            /// A nonce of the given bytes; fewer than 12 is `CryptoKitError.incorrectParameterSize`.
            public init<D: DataProtocol>(data: D) throws {
                guard data.count >= defaultNonceByteCount else { throw CryptoKitError.incorrectParameterSize }
                bytes = [UInt8](data)
            }

            public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
                try bytes.withUnsafeBytes(body)
            }

            public func makeIterator() -> Array<UInt8>.Iterator { bytes.makeIterator() }
        }

        /// A sealed message: nonce, ciphertext and a 16-byte tag.
        public struct SealedBox: Sendable {
            public let nonce: AES.GCM.Nonce
            public let ciphertext: Data
            public let tag: Data

            /// nonce ‖ ciphertext ‖ tag; nil when the nonce is not 12 bytes (as in CryptoKit).
            public var combined: Data? {
                guard nonce.bytes.count == defaultNonceByteCount else { return nil }
                return Data(nonce.bytes) + ciphertext + tag
            }

            /// Splits a combined blob; fewer than 28 bytes is `.incorrectParameterSize`.
            public init<D: DataProtocol>(combined: D) throws {
                let data = Data(combined)
                guard data.count >= defaultNonceByteCount + tagByteCount else { throw CryptoKitError.incorrectParameterSize }
                nonce = try AES.GCM.Nonce(data: data.prefix(defaultNonceByteCount))
                ciphertext = Data(data.dropFirst(defaultNonceByteCount).dropLast(tagByteCount))
                tag = Data(data.suffix(tagByteCount))
            }

            /// A box from its parts; a tag that is not 16 bytes is `.incorrectParameterSize`.
            public init<C: DataProtocol, T: DataProtocol>(nonce: AES.GCM.Nonce, ciphertext: C, tag: T) throws {
                guard tag.count == tagByteCount else { throw CryptoKitError.incorrectParameterSize }
                self.nonce = nonce
                self.ciphertext = Data(ciphertext)
                self.tag = Data(tag)
            }

            init(nonce: AES.GCM.Nonce, sealed ciphertext: Data, tag: Data) {
                self.nonce = nonce; self.ciphertext = ciphertext; self.tag = tag
            }
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
            let nonce = nonce ?? AES.GCM.Nonce()
            let sealed = try aeadSeal(.aesGCM, key: key, nonce: nonce.bytes, message: message, aad: authenticatedData)
            return SealedBox(nonce: nonce, sealed: sealed.ciphertext, tag: sealed.tag)
        }

        public static func open(_ sealedBox: AES.GCM.SealedBox, using key: SymmetricKey) throws -> Data {
            try open(sealedBox, using: key, authenticating: Data())
        }

        public static func open<AuthenticatedData: DataProtocol>(
            _ sealedBox: AES.GCM.SealedBox, using key: SymmetricKey, authenticating authenticatedData: AuthenticatedData
        ) throws -> Data {
            try aeadOpen(.aesGCM, key: key, nonce: sealedBox.nonce.bytes, ciphertext: sealedBox.ciphertext,
                         tag: sealedBox.tag, aad: authenticatedData)
        }
    }
}

/// ChaCha20-Poly1305 (RFC 8439), as CryptoKit provides it: 256-bit keys, 12-byte nonces.
public enum ChaChaPoly {
    public struct Nonce: ContiguousBytes, Sequence, Sendable {
        let bytes: [UInt8]

        public init() { bytes = [UInt8](secureRandomBytes(defaultNonceByteCount)) }

        /// Exactly 12 bytes; any other length is `CryptoKitError.incorrectParameterSize`.
        public init<D: DataProtocol>(data: D) throws {
            guard data.count == defaultNonceByteCount else { throw CryptoKitError.incorrectParameterSize }
            bytes = [UInt8](data)
        }

        public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            try bytes.withUnsafeBytes(body)
        }

        public func makeIterator() -> Array<UInt8>.Iterator { bytes.makeIterator() }
    }

    public struct SealedBox: Sendable {
        public let nonce: ChaChaPoly.Nonce
        public let ciphertext: Data
        public let tag: Data

        /// nonce ‖ ciphertext ‖ tag (never nil for ChaChaPoly, as in CryptoKit).
        public var combined: Data { Data(nonce.bytes) + ciphertext + tag }

        public init<D: DataProtocol>(combined: D) throws {
            let data = Data(combined)
            guard data.count >= defaultNonceByteCount + tagByteCount else { throw CryptoKitError.incorrectParameterSize }
            nonce = try ChaChaPoly.Nonce(data: data.prefix(defaultNonceByteCount))
            ciphertext = Data(data.dropFirst(defaultNonceByteCount).dropLast(tagByteCount))
            tag = Data(data.suffix(tagByteCount))
        }

        public init<C: DataProtocol, T: DataProtocol>(nonce: ChaChaPoly.Nonce, ciphertext: C, tag: T) throws {
            guard tag.count == tagByteCount else { throw CryptoKitError.incorrectParameterSize }
            self.nonce = nonce
            self.ciphertext = Data(ciphertext)
            self.tag = Data(tag)
        }

        init(nonce: ChaChaPoly.Nonce, sealed ciphertext: Data, tag: Data) {
            self.nonce = nonce; self.ciphertext = ciphertext; self.tag = tag
        }
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
        let nonce = nonce ?? ChaChaPoly.Nonce()
        let sealed = try aeadSeal(.chaChaPoly, key: key, nonce: nonce.bytes, message: message, aad: authenticatedData)
        return SealedBox(nonce: nonce, sealed: sealed.ciphertext, tag: sealed.tag)
    }

    public static func open(_ sealedBox: ChaChaPoly.SealedBox, using key: SymmetricKey) throws -> Data {
        try open(sealedBox, using: key, authenticating: Data())
    }

    public static func open<AuthenticatedData: DataProtocol>(
        _ sealedBox: ChaChaPoly.SealedBox, using key: SymmetricKey, authenticating authenticatedData: AuthenticatedData
    ) throws -> Data {
        try aeadOpen(.chaChaPoly, key: key, nonce: sealedBox.nonce.bytes, ciphertext: sealedBox.ciphertext,
                     tag: sealedBox.tag, aad: authenticatedData)
    }
}
