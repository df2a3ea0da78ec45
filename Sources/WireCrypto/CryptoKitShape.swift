import Foundation

// CryptoKit's AES.GCM and ChaChaPoly surface, so Swift written for CryptoKit (seeds 003 and 004)
// compiles against WireCrypto with only its `import` line changed. The combined representation is
// nonce (12) ‖ ciphertext ‖ tag (16).

let combinedNonceLength = 12
let combinedTagLength = 16

public enum AES {
    public enum GCM {
        public struct Nonce: ContiguousBytes, Sequence, Sendable {
            let bytes: [UInt8]
            /// A fresh random 96-bit nonce.
            public init() { bytes = secureRandomArray(combinedNonceLength) }
            /// Any nonce of 12 bytes or more, as CryptoKit allows (only 12 fits `combined`).
            public init<D: DataProtocol>(data: D) throws {
                guard data.count >= combinedNonceLength else {
                    throw CryptoKitError.incorrectParameterSize(what: "AES.GCM nonce", length: data.count, expected: "at least 12")
                }
                bytes = [UInt8](data)
            }
            public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try bytes.withUnsafeBytes(body) }
            public func makeIterator() -> Array<UInt8>.Iterator { bytes.makeIterator() }
        }

        public struct SealedBox: Sendable {
            public let nonce: Nonce
            public let ciphertext: Data
            public let tag: Data

            /// Splits a combined blob; fewer than 28 bytes is `incorrectParameterSize`.
            public init<D: DataProtocol>(combined: D) throws {
                let data = Data(combined)
                guard data.count >= combinedNonceLength + combinedTagLength else {
                    throw CryptoKitError.incorrectParameterSize(what: "AES.GCM sealed box", length: data.count, expected: "at least 28")
                }
                nonce = try Nonce(data: data.prefix(combinedNonceLength))
                ciphertext = Data(data.dropFirst(combinedNonceLength).dropLast(combinedTagLength))
                tag = Data(data.suffix(combinedTagLength))
            }

            public init<C: DataProtocol, T: DataProtocol>(nonce: Nonce, ciphertext: C, tag: T) throws {
                guard tag.count == combinedTagLength else {
                    throw CryptoKitError.incorrectParameterSize(what: "AES.GCM tag", length: tag.count, expected: "16")
                }
                self.init(nonce: nonce, sealed: Data(ciphertext), tag: Data(tag))
            }

            /// Takes `Data` as is (no copy): seal's own output.
            init(nonce: Nonce, sealed ciphertext: Data, tag: Data) {
                self.nonce = nonce; self.ciphertext = ciphertext; self.tag = tag
            }

            /// nonce ‖ ciphertext ‖ tag; nil when the nonce is not 12 bytes, as in CryptoKit.
            public var combined: Data? {
                guard nonce.bytes.count == combinedNonceLength else { return nil }
                return Data(nonce.bytes) + ciphertext + tag
            }
        }

        public static func seal<Plaintext: DataProtocol>(
            _ message: Plaintext, using key: SymmetricKey, nonce: Nonce? = nil
        ) throws -> SealedBox {
            try seal(message, using: key, nonce: nonce, authenticating: Data())
        }

        public static func seal<Plaintext: DataProtocol, AAD: DataProtocol>(
            _ message: Plaintext, using key: SymmetricKey, nonce: Nonce? = nil, authenticating authenticatedData: AAD
        ) throws -> SealedBox {
            let nonce = nonce ?? Nonce()
            let (ciphertext, tag) = try sealDetached(.aesGCM, message, key: key, nonce: nonce.bytes, aad: authenticatedData)
            return SealedBox(nonce: nonce, sealed: ciphertext, tag: tag)
        }

        public static func open(_ sealedBox: SealedBox, using key: SymmetricKey) throws -> Data {
            try open(sealedBox, using: key, authenticating: Data())
        }

        public static func open<AAD: DataProtocol>(
            _ sealedBox: SealedBox, using key: SymmetricKey, authenticating authenticatedData: AAD
        ) throws -> Data {
            try openDetached(.aesGCM, key: key, nonce: sealedBox.nonce.bytes, ciphertext: sealedBox.ciphertext,
                             tag: sealedBox.tag, aad: authenticatedData)
        }
    }
}

public enum ChaChaPoly {
    public struct Nonce: ContiguousBytes, Sequence, Sendable {
        let bytes: [UInt8]
        public init() { bytes = secureRandomArray(combinedNonceLength) }
        public init<D: DataProtocol>(data: D) throws {
            guard data.count == combinedNonceLength else {
                throw CryptoKitError.incorrectParameterSize(what: "ChaChaPoly nonce", length: data.count, expected: "12")
            }
            bytes = [UInt8](data)
        }
        public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try bytes.withUnsafeBytes(body) }
        public func makeIterator() -> Array<UInt8>.Iterator { bytes.makeIterator() }
    }

    public struct SealedBox: Sendable {
        public let nonce: Nonce
        public let ciphertext: Data
        public let tag: Data

        public init<D: DataProtocol>(combined: D) throws {
            let data = Data(combined)
            guard data.count >= combinedNonceLength + combinedTagLength else {
                throw CryptoKitError.incorrectParameterSize(what: "ChaChaPoly sealed box", length: data.count, expected: "at least 28")
            }
            nonce = try Nonce(data: data.prefix(combinedNonceLength))
            ciphertext = Data(data.dropFirst(combinedNonceLength).dropLast(combinedTagLength))
            tag = Data(data.suffix(combinedTagLength))
        }

        public init<C: DataProtocol, T: DataProtocol>(nonce: Nonce, ciphertext: C, tag: T) throws {
            guard tag.count == combinedTagLength else {
                throw CryptoKitError.incorrectParameterSize(what: "ChaChaPoly tag", length: tag.count, expected: "16")
            }
            self.init(nonce: nonce, sealed: Data(ciphertext), tag: Data(tag))
        }

        /// Takes `Data` as is (no copy): seal's own output.
        init(nonce: Nonce, sealed ciphertext: Data, tag: Data) {
            self.nonce = nonce; self.ciphertext = ciphertext; self.tag = tag
        }

        /// nonce ‖ ciphertext ‖ tag (never nil for ChaChaPoly, as in CryptoKit).
        public var combined: Data { Data(nonce.bytes) + ciphertext + tag }
    }

    public static func seal<Plaintext: DataProtocol>(
        _ message: Plaintext, using key: SymmetricKey, nonce: Nonce? = nil
    ) throws -> SealedBox {
        try seal(message, using: key, nonce: nonce, authenticating: Data())
    }

    public static func seal<Plaintext: DataProtocol, AAD: DataProtocol>(
        _ message: Plaintext, using key: SymmetricKey, nonce: Nonce? = nil, authenticating authenticatedData: AAD
    ) throws -> SealedBox {
        let nonce = nonce ?? Nonce()
        let (ciphertext, tag) = try sealDetached(.chaChaPoly, message, key: key, nonce: nonce.bytes, aad: authenticatedData)
        return SealedBox(nonce: nonce, sealed: ciphertext, tag: tag)
    }

    public static func open(_ sealedBox: SealedBox, using key: SymmetricKey) throws -> Data {
        try open(sealedBox, using: key, authenticating: Data())
    }

    public static func open<AAD: DataProtocol>(
        _ sealedBox: SealedBox, using key: SymmetricKey, authenticating authenticatedData: AAD
    ) throws -> Data {
        try openDetached(.chaChaPoly, key: key, nonce: sealedBox.nonce.bytes, ciphertext: sealedBox.ciphertext,
                         tag: sealedBox.tag, aad: authenticatedData)
    }
}

private func sealDetached<P: DataProtocol, A: DataProtocol>(
    _ algorithm: AEADAlgorithm, _ message: P, key: SymmetricKey, nonce: [UInt8], aad: A
) throws -> (Data, Data) {
    if algorithm == .aesGCM, nonce.count > GCMLongNonce.openSSLMaximumNonceBytes {
        // CryptoKit takes any nonce of 12 bytes or more; OpenSSL's GCM stops at 128 (Wycheproof tc268).
        try checkLongNonceKey(key)
        let sealed = try GCMLongNonce.seal(key: key.bytes, nonce: nonce, plaintext: [UInt8](message), aad: [UInt8](aad))
        return (Data(sealed.ciphertext), Data(sealed.tag))
    }
    var ciphertext = uninitializedData(count: message.count)
    var tag = uninitializedData(count: combinedTagLength)
    try key.withUnsafeBytes { keyBytes in
        try nonce.withUnsafeBytes { nonceBytes in
            try withContiguousBytes(message) { plaintext in
                try withContiguousBytes(aad) { aadBytes in
                    try ciphertext.withUnsafeMutableBytes { out in
                        try tag.withUnsafeMutableBytes { tagOut in
                            try AEADCore.seal(algorithm, key: keyBytes, nonce: nonceBytes, plaintext: plaintext,
                                              aad: aadBytes, into: out, tag: tagOut)
                        }
                    }
                }
            }
        }
    }
    return (ciphertext, tag)
}

private func openDetached<A: DataProtocol>(
    _ algorithm: AEADAlgorithm, key: SymmetricKey, nonce: [UInt8], ciphertext: Data, tag: Data, aad: A
) throws -> Data {
    if algorithm == .aesGCM, nonce.count > GCMLongNonce.openSSLMaximumNonceBytes {
        try checkLongNonceKey(key)
        return Data(try GCMLongNonce.open(key: key.bytes, nonce: nonce, ciphertext: [UInt8](ciphertext), tag: [UInt8](tag), aad: [UInt8](aad)))
    }
    return try key.withUnsafeBytes { keyBytes in
        try nonce.withUnsafeBytes { nonceBytes in
            try ciphertext.withUnsafeBytes { ciphertextBytes in
                try tag.withUnsafeBytes { tagBytes in
                    try withContiguousBytes(aad) { aadBytes in
                        try AEADCore.open(algorithm, key: keyBytes, nonce: nonceBytes, ciphertext: ciphertextBytes,
                                          tag: tagBytes, aad: aadBytes)
                    }
                }
            }
        }
    }
}

/// The key-size refusal AEADCore gives, for the long-nonce path that bypasses it.
private func checkLongNonceKey(_ key: SymmetricKey) throws {
    guard AEADAlgorithm.aesGCM.allowedKeySizes.contains(key.bytes.count) else {
        throw WireCryptoError.incorrectKeySize(bytes: key.bytes.count, allowed: AEADAlgorithm.aesGCM.allowedKeySizes)
    }
}
