import Foundation
internal import WireCrypto

/// CryptoKit's `SymmetricKeySize`.
public struct SymmetricKeySize: Sendable, Equatable {
    public let bitCount: Int

    /// As in CryptoKit, a size that is not a positive multiple of 8 bits is a programming error
    /// and traps; code takes sizes from the constants below, not from input.
    public init(bitCount: Int) {
        precondition(bitCount > 0 && bitCount % 8 == 0, "SymmetricKeySize: bitCount must be a positive multiple of 8")
        self.bitCount = bitCount
    }

    public static let bits128 = SymmetricKeySize(bitCount: 128)
    public static let bits192 = SymmetricKeySize(bitCount: 192)
    public static let bits256 = SymmetricKeySize(bitCount: 256)
}

/// CryptoKit's `SymmetricKey`: key bytes that code reads only through `withUnsafeBytes`.
/// Equality is constant-time, as in CryptoKit. It wraps WireCrypto's key, which the AEADs take.
public struct SymmetricKey: ContiguousBytes, Sendable, Equatable {
    let wrapped: WireCrypto.SymmetricKey

    /// A fresh random key from the CSPRNG (CryptoKit uses the system RNG the same way).
    public init(size: SymmetricKeySize) {
        wrapped = WireCrypto.SymmetricKey(size: WireCrypto.SymmetricKeySize(bitCount: size.bitCount))
    }

    /// A key made of the given bytes (seed 003 and 004 restore keys this way).
    public init<D: ContiguousBytes>(data: D) { wrapped = WireCrypto.SymmetricKey(data: data) }

    /// The key's bytes, for HMAC inside this module.
    var bytes: [UInt8] { wrapped.withUnsafeBytes { [UInt8]($0) } }

    public var bitCount: Int { wrapped.bitCount }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try wrapped.withUnsafeBytes(body)
    }

    public static func == (lhs: SymmetricKey, rhs: SymmetricKey) -> Bool {
        lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in constantTimeEqual(a, b) } }
    }
}

/// Compares without an early exit, so the time taken does not depend on where bytes differ.
func constantTimeEqual<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool where A.Element == UInt8, B.Element == UInt8 {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for (x, y) in zip(a, b) { difference |= x ^ y }
    return difference == 0
}
