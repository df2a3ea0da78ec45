import Foundation

/// CryptoKit's `SymmetricKeySize`.
public struct SymmetricKeySize: Sendable, Equatable {
    public let bitCount: Int
    public init(bitCount: Int) {
        precondition(bitCount > 0 && bitCount % 8 == 0, "a key size is a positive multiple of 8 bits")
        self.bitCount = bitCount
    }
    public static let bits128 = SymmetricKeySize(bitCount: 128)
    public static let bits192 = SymmetricKeySize(bitCount: 192)
    public static let bits256 = SymmetricKeySize(bitCount: 256)
}

/// CryptoKit's `SymmetricKey`: key bytes that code reads only through `withUnsafeBytes`.
public struct SymmetricKey: ContiguousBytes, Sendable, Equatable {
    let bytes: [UInt8]

    /// A fresh random key from OpenSSL's CSPRNG.
    public init(size: SymmetricKeySize) { bytes = secureRandomArray(size.bitCount / 8) }

    /// A key from given bytes (seed 004 restores keys this way from base64).
    public init<D: ContiguousBytes>(data: D) { bytes = data.withUnsafeBytes { [UInt8]($0) } }

    public var bitCount: Int { bytes.count * 8 }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
}
