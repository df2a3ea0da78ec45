import Foundation
internal import WireCrypto

// CommonCrypto's CommonDigest.h as Swift imports it on iOS: one-shot `CC_MD2`/`CC_MD4`/`CC_MD5`/
// `CC_SHA1`/`CC_SHA224`/`CC_SHA256`/`CC_SHA384`/`CC_SHA512` (each returns its `md` argument), the
// `CC_<H>_Init/Update/Final` context functions (return 1), `CC_LONG` lengths and the
// `CC_<H>_DIGEST_LENGTH`/`_BLOCK_BYTES` macros (imported as Int32). MD5 and the SHAs are OpenSSL's,
// through WireCrypto's DigestContext (the one CryptoKit's hash functions use too); MD2 and MD4 are
// WireCrypto's own (`InsecureMD2`, RFC 1319; `InsecureMD4`, RFC 1320), in CommonDigestLegacy.swift.
//
// Availability and deprecation as Apple's header (CommonDigest.h, iOS 13 SDK and later) declares
// them: MD2, MD4 and MD5 are `API_DEPRECATED(CC_DIGEST_DEPRECATION_WARNING, macos(10.4, 10.15),
// ios(2.0, 13.0))`, the SHAs `API_AVAILABLE(macos(10.4), ios(2.0))`. Marks for iOS and macOS have
// no effect on Linux (a Linux build warns about nothing), as an iOS target's build does.

public typealias CC_LONG = UInt32
public typealias CC_LONG64 = UInt64

public let CC_MD2_DIGEST_LENGTH: Int32 = 16
/// 64, as Apple's header says, although MD2 works on 16-byte blocks (RFC 1319 §3.1).
public let CC_MD2_BLOCK_BYTES: Int32 = 64
public let CC_MD4_DIGEST_LENGTH: Int32 = 16
public let CC_MD4_BLOCK_BYTES: Int32 = 64
public let CC_MD5_DIGEST_LENGTH: Int32 = 16
public let CC_MD5_BLOCK_BYTES: Int32 = 64
public let CC_SHA1_DIGEST_LENGTH: Int32 = 20
public let CC_SHA1_BLOCK_BYTES: Int32 = 64
public let CC_SHA224_DIGEST_LENGTH: Int32 = 28
public let CC_SHA224_BLOCK_BYTES: Int32 = 64
public let CC_SHA256_DIGEST_LENGTH: Int32 = 32
public let CC_SHA256_BLOCK_BYTES: Int32 = 64
public let CC_SHA384_DIGEST_LENGTH: Int32 = 48
public let CC_SHA384_BLOCK_BYTES: Int32 = 128
public let CC_SHA512_DIGEST_LENGTH: Int32 = 64
public let CC_SHA512_BLOCK_BYTES: Int32 = 128

/// The hash functions CommonDigest names.
enum CCHashFunction {
    case md5, sha1, sha224, sha256, sha384, sha512

    func makeContext() -> DigestContext {
        switch self {
        case .md5: return DigestContext._WEAK_AND_INSECURE_MD5()
        case .sha1: return DigestContext(.sha1)
        case .sha224: return DigestContext(.sha224)
        case .sha256: return DigestContext(.sha256)
        case .sha384: return DigestContext(.sha384)
        case .sha512: return DigestContext(.sha512)
        }
    }

    var digest: WireCrypto.Digest? {
        switch self {
        case .md5: return nil
        case .sha1: return .sha1
        case .sha224: return .sha224
        case .sha256: return .sha256
        case .sha384: return .sha384
        case .sha512: return .sha512
        }
    }

    /// The digest of `len` bytes at `data`, written to `md` (which must hold the digest length).
    func oneShot(_ data: UnsafeRawPointer?, _ len: Int, _ md: UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>? {
        guard let md else { return nil }
        DigestContext.hash(UnsafeRawBufferPointer(start: len > 0 ? data : nil, count: data == nil ? 0 : len), digest: digest, into: md)
        return md
    }
}

/// The running state a `CC_<H>_CTX` holds. A C context is a value: copying it copies the state, so
/// the shared OpenSSL context is copied before a write when another copy still refers to it.
struct CCDigestState {
    private var context: DigestContext?
    private var function: CCHashFunction?

    mutating func start(_ function: CCHashFunction) {
        self.function = function
        context = function.makeContext()
    }

    mutating func update(_ data: UnsafeRawPointer?, _ len: Int) {
        guard context != nil, len > 0, let data else { return }
        if !isKnownUniquelyReferenced(&context) { context = context?.copy() }
        context?.update(UnsafeRawBufferPointer(start: data, count: len))
    }

    /// Writes the digest to `md` and leaves the context to be started again, as C's Final does.
    mutating func finish(into md: UnsafeMutablePointer<UInt8>?) -> Int32 {
        guard let running = context, let md else { return 0 }
        let digest = running.finalize()
        digest.withUnsafeBufferPointer { md.update(from: $0.baseAddress!, count: digest.count) }
        context = nil
        return 1
    }

    /// Update or Final on a context that was never started: Apple's code reads garbage state;
    /// here it is a programming error that stops the app with the reason.
    func requireStarted(_ function: String) {
        precondition(context != nil, "\(function) on a context that CC_…_Init has not started")
    }
}

/// `CC_MD5_CTX`: start it with `CC_MD5_Init`.
public struct CC_MD5_CTX { var state = CCDigestState(); public init() {} }
/// `CC_SHA1_CTX`: start it with `CC_SHA1_Init`.
public struct CC_SHA1_CTX { var state = CCDigestState(); public init() {} }
/// `CC_SHA256_CTX`, which `CC_SHA224_*` uses too (as in CommonDigest.h).
public struct CC_SHA256_CTX { var state = CCDigestState(); public init() {} }
/// `CC_SHA512_CTX`, which `CC_SHA384_*` uses too (as in CommonDigest.h).
public struct CC_SHA512_CTX { var state = CCDigestState(); public init() {} }

// MARK: one-shot

/// MD5: broken for collisions; apps use it for checksums and cache keys (deprecated on iOS 13).
@discardableResult
@available(iOS, introduced: 2.0, deprecated: 13.0, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
@available(macOS, introduced: 10.4, deprecated: 10.15, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
public func CC_MD5(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    CCHashFunction.md5.oneShot(data, Int(len), md)
}
@discardableResult
public func CC_SHA1(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    CCHashFunction.sha1.oneShot(data, Int(len), md)
}
@discardableResult
public func CC_SHA224(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    CCHashFunction.sha224.oneShot(data, Int(len), md)
}
@discardableResult
public func CC_SHA256(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    CCHashFunction.sha256.oneShot(data, Int(len), md)
}
@discardableResult
public func CC_SHA384(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    CCHashFunction.sha384.oneShot(data, Int(len), md)
}
@discardableResult
public func CC_SHA512(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    CCHashFunction.sha512.oneShot(data, Int(len), md)
}

// MARK: contexts

@discardableResult
@available(iOS, introduced: 2.0, deprecated: 13.0, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
@available(macOS, introduced: 10.4, deprecated: 10.15, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
public func CC_MD5_Init(_ c: UnsafeMutablePointer<CC_MD5_CTX>!) -> Int32 { c.pointee.state.start(.md5); return 1 }
@discardableResult
@available(iOS, introduced: 2.0, deprecated: 13.0, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
@available(macOS, introduced: 10.4, deprecated: 10.15, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
public func CC_MD5_Update(_ c: UnsafeMutablePointer<CC_MD5_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    c.pointee.state.requireStarted("CC_MD5_Update"); c.pointee.state.update(data, Int(len)); return 1
}
@discardableResult
@available(iOS, introduced: 2.0, deprecated: 13.0, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
@available(macOS, introduced: 10.4, deprecated: 10.15, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
public func CC_MD5_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_MD5_CTX>!) -> Int32 {
    c.pointee.state.requireStarted("CC_MD5_Final"); return c.pointee.state.finish(into: md)
}

@discardableResult
public func CC_SHA1_Init(_ c: UnsafeMutablePointer<CC_SHA1_CTX>!) -> Int32 { c.pointee.state.start(.sha1); return 1 }
@discardableResult
public func CC_SHA1_Update(_ c: UnsafeMutablePointer<CC_SHA1_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    c.pointee.state.requireStarted("CC_SHA1_Update"); c.pointee.state.update(data, Int(len)); return 1
}
@discardableResult
public func CC_SHA1_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA1_CTX>!) -> Int32 {
    c.pointee.state.requireStarted("CC_SHA1_Final"); return c.pointee.state.finish(into: md)
}

@discardableResult
public func CC_SHA224_Init(_ c: UnsafeMutablePointer<CC_SHA256_CTX>!) -> Int32 { c.pointee.state.start(.sha224); return 1 }
@discardableResult
public func CC_SHA224_Update(_ c: UnsafeMutablePointer<CC_SHA256_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    c.pointee.state.requireStarted("CC_SHA224_Update"); c.pointee.state.update(data, Int(len)); return 1
}
@discardableResult
public func CC_SHA224_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA256_CTX>!) -> Int32 {
    c.pointee.state.requireStarted("CC_SHA224_Final"); return c.pointee.state.finish(into: md)
}

@discardableResult
public func CC_SHA256_Init(_ c: UnsafeMutablePointer<CC_SHA256_CTX>!) -> Int32 { c.pointee.state.start(.sha256); return 1 }
@discardableResult
public func CC_SHA256_Update(_ c: UnsafeMutablePointer<CC_SHA256_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    c.pointee.state.requireStarted("CC_SHA256_Update"); c.pointee.state.update(data, Int(len)); return 1
}
@discardableResult
public func CC_SHA256_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA256_CTX>!) -> Int32 {
    c.pointee.state.requireStarted("CC_SHA256_Final"); return c.pointee.state.finish(into: md)
}

@discardableResult
public func CC_SHA384_Init(_ c: UnsafeMutablePointer<CC_SHA512_CTX>!) -> Int32 { c.pointee.state.start(.sha384); return 1 }
@discardableResult
public func CC_SHA384_Update(_ c: UnsafeMutablePointer<CC_SHA512_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    c.pointee.state.requireStarted("CC_SHA384_Update"); c.pointee.state.update(data, Int(len)); return 1
}
@discardableResult
public func CC_SHA384_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA512_CTX>!) -> Int32 {
    c.pointee.state.requireStarted("CC_SHA384_Final"); return c.pointee.state.finish(into: md)
}

@discardableResult
public func CC_SHA512_Init(_ c: UnsafeMutablePointer<CC_SHA512_CTX>!) -> Int32 { c.pointee.state.start(.sha512); return 1 }
@discardableResult
public func CC_SHA512_Update(_ c: UnsafeMutablePointer<CC_SHA512_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    c.pointee.state.requireStarted("CC_SHA512_Update"); c.pointee.state.update(data, Int(len)); return 1
}
@discardableResult
public func CC_SHA512_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA512_CTX>!) -> Int32 {
    c.pointee.state.requireStarted("CC_SHA512_Final"); return c.pointee.state.finish(into: md)
}
