import Foundation

/// CryptoKit's `MessageAuthenticationCode`.
public protocol MessageAuthenticationCode: Hashable, ContiguousBytes, CustomStringConvertible, Sequence where Element == UInt8 {
    var byteCount: Int { get }
}

extension MessageAuthenticationCode {
    /// Constant-time comparison with any bytes, as CryptoKit offers.
    public static func == <D: DataProtocol>(lhs: Self, rhs: D) -> Bool {
        lhs.withUnsafeBytes { constantTimeEqual($0, rhs) }
    }
}

/// The output of `HMAC<H>`.
public struct HashedAuthenticationCode<H: HashFunction>: MessageAuthenticationCode, Sendable {
    let bytes: [UInt8]

    public var byteCount: Int { bytes.count }
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try bytes.withUnsafeBytes(body) }
    public func makeIterator() -> Array<UInt8>.Iterator { bytes.makeIterator() }
    public var description: String {
        "HMAC with \(H.self): " + DigestBytes(bytes: bytes).hex
    }
    public static func == (lhs: Self, rhs: Self) -> Bool { constantTimeEqual(lhs.bytes, rhs.bytes) }
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}

/// HMAC (RFC 2104) over any CryptoKit hash function, as CryptoKit's `HMAC<H>`.
public struct HMAC<H: HashFunction> {
    public typealias Key = SymmetricKey
    public typealias MAC = HashedAuthenticationCode<H>

    private var inner: H
    private var outer: H

    /// Starts an HMAC with `key`; keys longer than the hash's block are hashed first (RFC 2104 §2).
    public init(key: SymmetricKey) {
        var keyBytes = key.bytes
        if keyBytes.count > H.blockByteCount {
            keyBytes = H.hash(data: keyBytes).withUnsafeBytes { [UInt8]($0) }
        }
        keyBytes += [UInt8](repeating: 0, count: H.blockByteCount - keyBytes.count)
        inner = H()
        inner.update(data: keyBytes.map { $0 ^ 0x36 })
        outer = H()
        outer.update(data: keyBytes.map { $0 ^ 0x5c })
    }

    public mutating func update<D: DataProtocol>(data: D) { inner.update(data: data) }

    public func finalize() -> MAC {
        var outer = self.outer
        outer.update(data: inner.finalize().withUnsafeBytes { [UInt8]($0) })
        return MAC(bytes: outer.finalize().withUnsafeBytes { [UInt8]($0) })
    }

    public static func authenticationCode<D: DataProtocol>(for data: D, using key: SymmetricKey) -> MAC {
        var hmac = HMAC(key: key)
        hmac.update(data: data)
        return hmac.finalize()
    }

    public static func isValidAuthenticationCode<D: DataProtocol>(
        _ authenticationCode: MAC, authenticating authenticatedData: D, using key: SymmetricKey
    ) -> Bool {
        authenticationCode == Self.authenticationCode(for: authenticatedData, using: key)
    }

    public static func isValidAuthenticationCode<C: ContiguousBytes, D: DataProtocol>(
        _ authenticationCode: C, authenticating authenticatedData: D, using key: SymmetricKey
    ) -> Bool {
        let expected = Self.authenticationCode(for: authenticatedData, using: key)
        return authenticationCode.withUnsafeBytes { constantTimeEqual($0, expected.bytes) }
    }
}
