import Foundation
internal import WireCrypto

/// CryptoKit's `Digest`: a hash value, compared in constant time, printable as hex.
public protocol Digest: Hashable, ContiguousBytes, CustomStringConvertible, Sequence where Element == UInt8 {
    static var byteCount: Int { get }
}

extension Digest {
    /// Compares with any bytes (CryptoKit lets a digest be compared with `Data` directly).
    public static func == <D: DataProtocol>(lhs: Self, rhs: D) -> Bool {
        lhs.withUnsafeBytes { constantTimeEqual($0, rhs) }
    }

    public var byteCount: Int { Self.byteCount }
}

/// CryptoKit's `HashFunction`: a value type that hashes incrementally; copies hash independently.
public protocol HashFunction {
    associatedtype Digest: CryptoKit.Digest
    static var blockByteCount: Int { get }
    init()
    mutating func update(bufferPointer: UnsafeRawBufferPointer)
    func finalize() -> Self.Digest
}

extension HashFunction {
    public static var byteCount: Int { Digest.byteCount }

    /// The digest of `data` in one call.
    public static func hash<D: DataProtocol>(data: D) -> Self.Digest {
        var hasher = Self()
        hasher.update(data: data)
        return hasher.finalize()
    }

    public mutating func update<D: DataProtocol>(data: D) {
        for region in data.regions {
            region.withUnsafeBytes { update(bufferPointer: $0) }
        }
    }
}

/// One running OpenSSL digest with copy-on-write, so hash-function structs keep value semantics.
struct RunningDigest {
    private var context: DigestContext
    init(_ digest: WireCrypto.Digest) { context = DigestContext(digest) }
    init(_WEAK_AND_INSECURE_MD5: Void) { context = DigestContext._WEAK_AND_INSECURE_MD5() }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        if !isKnownUniquelyReferenced(&context) { context = context.copy() }
        context.update(bytes)
    }

    func finalize() -> [UInt8] { context.finalize() }
}

/// The bytes of a digest; the public digest types wrap this.
struct DigestBytes: Hashable, Sendable {
    let bytes: [UInt8]
    static func == (lhs: DigestBytes, rhs: DigestBytes) -> Bool { constantTimeEqual(lhs.bytes, rhs.bytes) }
    func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
    var hex: String { Data(bytes).hexString }
}

// MARK: - SHA-2

public struct SHA256: HashFunction, Sendable {
    public typealias Digest = SHA256Digest
    public static let blockByteCount = 64
    private var running = RunningDigest(.sha256)
    public init() {}
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) { running.update(bufferPointer) }
    public func finalize() -> SHA256Digest { SHA256Digest(DigestBytes(bytes: running.finalize())) }
}

public struct SHA384: HashFunction, Sendable {
    public typealias Digest = SHA384Digest
    public static let blockByteCount = 128
    private var running = RunningDigest(.sha384)
    public init() {}
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) { running.update(bufferPointer) }
    public func finalize() -> SHA384Digest { SHA384Digest(DigestBytes(bytes: running.finalize())) }
}

public struct SHA512: HashFunction, Sendable {
    public typealias Digest = SHA512Digest
    public static let blockByteCount = 128
    private var running = RunningDigest(.sha512)
    public init() {}
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) { running.update(bufferPointer) }
    public func finalize() -> SHA512Digest { SHA512Digest(DigestBytes(bytes: running.finalize())) }
}

public struct SHA256Digest: CryptoKit.Digest, Sendable {
    let value: DigestBytes
    init(_ value: DigestBytes) { self.value = value }
    public static let byteCount = 32
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try value.bytes.withUnsafeBytes(body) }
    public func makeIterator() -> Array<UInt8>.Iterator { value.bytes.makeIterator() }
    public var description: String { "SHA256 digest: \(value.hex)" }
}

public struct SHA384Digest: CryptoKit.Digest, Sendable {
    let value: DigestBytes
    init(_ value: DigestBytes) { self.value = value }
    public static let byteCount = 48
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try value.bytes.withUnsafeBytes(body) }
    public func makeIterator() -> Array<UInt8>.Iterator { value.bytes.makeIterator() }
    public var description: String { "SHA384 digest: \(value.hex)" }
}

public struct SHA512Digest: CryptoKit.Digest, Sendable {
    let value: DigestBytes
    init(_ value: DigestBytes) { self.value = value }
    public static let byteCount = 64
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try value.bytes.withUnsafeBytes(body) }
    public func makeIterator() -> Array<UInt8>.Iterator { value.bytes.makeIterator() }
    public var description: String { "SHA512 digest: \(value.hex)" }
}

// MARK: - Insecure

/// CryptoKit's namespace for hashes kept only for compatibility: SHA-1 and MD5 (apps use them for
/// checksums and cache keys, never for the protocol).
public enum Insecure {
    public struct MD5: HashFunction, Sendable {
        public typealias Digest = MD5Digest
        public static let blockByteCount = 64
        private var running = RunningDigest(_WEAK_AND_INSECURE_MD5: ())
        public init() {}
        public mutating func update(bufferPointer: UnsafeRawBufferPointer) { running.update(bufferPointer) }
        public func finalize() -> MD5Digest { MD5Digest(DigestBytes(bytes: running.finalize())) }
    }

    public struct MD5Digest: CryptoKit.Digest, Sendable {
        let value: DigestBytes
        init(_ value: DigestBytes) { self.value = value }
        public static let byteCount = 16
        public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try value.bytes.withUnsafeBytes(body) }
        public func makeIterator() -> Array<UInt8>.Iterator { value.bytes.makeIterator() }
        public var description: String { "MD5 digest: \(value.hex)" }
    }

    public struct SHA1: HashFunction, Sendable {
        public typealias Digest = SHA1Digest
        public static let blockByteCount = 64
        private var running = RunningDigest(.sha1)
        public init() {}
        public mutating func update(bufferPointer: UnsafeRawBufferPointer) { running.update(bufferPointer) }
        public func finalize() -> SHA1Digest { SHA1Digest(DigestBytes(bytes: running.finalize())) }
    }

    public struct SHA1Digest: CryptoKit.Digest, Sendable {
        let value: DigestBytes
        init(_ value: DigestBytes) { self.value = value }
        public static let byteCount = 20
        public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try value.bytes.withUnsafeBytes(body) }
        public func makeIterator() -> Array<UInt8>.Iterator { value.bytes.makeIterator() }
        public var description: String { "SHA1 digest: \(value.hex)" }
    }
}
