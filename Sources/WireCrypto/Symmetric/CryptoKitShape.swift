import Foundation

// CryptoKit's AES.GCM and ChaChaPoly surface, so Swift written for CryptoKit (seeds 003 and 004)
// compiles against WireCrypto with only its `import` line changed. The combined representation is
// nonce (12) ‖ ciphertext ‖ tag (16). A sealed box keeps its bytes in that one buffer, as
// swift-crypto (CryptoKit's open-source twin) does: `ciphertext` and `tag` are slices of it, whose
// indices start where they sit in it, and `combined` is the buffer itself.

let combinedNonceLength = 12
let combinedTagLength = 16

public enum AES {
    public enum GCM {
        public struct Nonce: ContiguousBytes, Sequence, Sendable {
            /// Data, not an array: a 12-byte nonce fits in Data itself, so making one allocates nothing.
            let bytes: Data
            /// A fresh random 96-bit nonce.
            public init() { bytes = randomNonceData(combinedNonceLength) }
            /// Any nonce of 12 bytes or more, as CryptoKit allows (only 12 fits `combined`).
            public init<D: DataProtocol>(data: D) throws {
                guard data.count >= combinedNonceLength else {
                    throw CryptoKitError.incorrectParameterSize(what: "AES.GCM nonce", length: data.count, expected: "at least 12")
                }
                bytes = Data(data)
            }
            public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try bytes.withUnsafeBytes(body) }
            public func makeIterator() -> Array<UInt8>.Iterator { Array(bytes).makeIterator() }
        }

        public struct SealedBox: Sendable {
            public let nonce: Nonce
            /// nonce ‖ ciphertext ‖ tag.
            let storage: Data

            public var ciphertext: Data { storage.dropFirst(nonce.bytes.count).dropLast(combinedTagLength) }
            public var tag: Data { storage.suffix(combinedTagLength) }

            /// Splits a combined blob; fewer than 28 bytes is `incorrectParameterSize`.
            public init<D: DataProtocol>(combined: D) throws {
                let data = Data(combined)
                guard data.count >= combinedNonceLength + combinedTagLength else {
                    throw CryptoKitError.incorrectParameterSize(what: "AES.GCM sealed box", length: data.count, expected: "at least 28")
                }
                nonce = try Nonce(data: data.prefix(combinedNonceLength))
                storage = data
            }

            public init<C: DataProtocol, T: DataProtocol>(nonce: Nonce, ciphertext: C, tag: T) throws {
                guard tag.count == combinedTagLength else {
                    throw CryptoKitError.incorrectParameterSize(what: "AES.GCM tag", length: tag.count, expected: "16")
                }
                self.init(nonce: nonce, storage: nonce.bytes + Data(ciphertext) + Data(tag))
            }

            /// Takes `Data` as is (no copy): seal's own output.
            init(nonce: Nonce, storage: Data) { self.nonce = nonce; self.storage = storage }

            /// nonce ‖ ciphertext ‖ tag; nil when the nonce is not 12 bytes, as in CryptoKit.
            public var combined: Data? { nonce.bytes.count == combinedNonceLength ? storage : nil }
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
            return SealedBox(nonce: nonce, storage: try sealCombined(.aesGCM, message, key: key, nonce: nonce.bytes, aad: authenticatedData))
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
        /// Data, not an array: a 12-byte nonce fits in Data itself, so making one allocates nothing.
        let bytes: Data
        public init() { bytes = randomNonceData(combinedNonceLength) }
        public init<D: DataProtocol>(data: D) throws {
            guard data.count == combinedNonceLength else {
                throw CryptoKitError.incorrectParameterSize(what: "ChaChaPoly nonce", length: data.count, expected: "12")
            }
            bytes = Data(data)
        }
        public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try bytes.withUnsafeBytes(body) }
        public func makeIterator() -> Array<UInt8>.Iterator { Array(bytes).makeIterator() }
    }

    public struct SealedBox: Sendable {
        public let nonce: Nonce
        /// nonce ‖ ciphertext ‖ tag.
        let storage: Data

        public var ciphertext: Data { storage.dropFirst(combinedNonceLength).dropLast(combinedTagLength) }
        public var tag: Data { storage.suffix(combinedTagLength) }

        public init<D: DataProtocol>(combined: D) throws {
            let data = Data(combined)
            guard data.count >= combinedNonceLength + combinedTagLength else {
                throw CryptoKitError.incorrectParameterSize(what: "ChaChaPoly sealed box", length: data.count, expected: "at least 28")
            }
            nonce = try Nonce(data: data.prefix(combinedNonceLength))
            storage = data
        }

        public init<C: DataProtocol, T: DataProtocol>(nonce: Nonce, ciphertext: C, tag: T) throws {
            guard tag.count == combinedTagLength else {
                throw CryptoKitError.incorrectParameterSize(what: "ChaChaPoly tag", length: tag.count, expected: "16")
            }
            self.init(nonce: nonce, storage: nonce.bytes + Data(ciphertext) + Data(tag))
        }

        /// Takes `Data` as is (no copy): seal's own output.
        init(nonce: Nonce, storage: Data) { self.nonce = nonce; self.storage = storage }

        /// nonce ‖ ciphertext ‖ tag (never nil for ChaChaPoly, as in CryptoKit).
        public var combined: Data { storage }
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
        return SealedBox(nonce: nonce, storage: try sealCombined(.chaChaPoly, message, key: key, nonce: nonce.bytes, aad: authenticatedData))
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

// Specialised for `Data`, the common case: the generic version, reached from another module, pays a
// runtime type look-up and dynamic casts per call (callgrind: ~600 instructions of each 16 KiB seal).
@_specialize(where P == Data, A == Data)
private func sealCombined<P: DataProtocol, A: DataProtocol>(
    _ algorithm: AEADAlgorithm, _ message: P, key: SymmetricKey, nonce: Data, aad: A
) throws -> Data {
    try key.withUnsafeBytes { keyBytes in
        try nonce.withUnsafeBytes { nonceBytes in
            try withContiguousBytes(message) { plaintext in
                try withContiguousBytes(aad) { aadBytes in
                    try AEADCore.sealCombined(algorithm, key: keyBytes, nonce: nonceBytes, plaintext: plaintext, aad: aadBytes)
                }
            }
        }
    }
}

private func openDetached<A: DataProtocol>(
    _ algorithm: AEADAlgorithm, key: SymmetricKey, nonce: Data, ciphertext: Data, tag: Data, aad: A
) throws -> Data {
    try key.withUnsafeBytes { keyBytes in
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
