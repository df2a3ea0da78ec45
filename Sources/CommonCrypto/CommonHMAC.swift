import Foundation
internal import WireCrypto

// CommonCrypto's CommonHMAC.h: `CCHmac` in one call and `CCHmacInit/Update/Final` over a
// `CCHmacContext`, for every `kCCHmacAlg*`. HMAC is RFC 2104 over CommonDigest's hash functions.

public typealias CCHmacAlgorithm = UInt32

public let kCCHmacAlgSHA1 = 0
public let kCCHmacAlgMD5 = 1
public let kCCHmacAlgSHA256 = 2
public let kCCHmacAlgSHA384 = 3
public let kCCHmacAlgSHA512 = 4
public let kCCHmacAlgSHA224 = 5

extension CCHashFunction {
    /// The hash of a kCCHmacAlg* value. Apple's CommonHMAC has no answer for another value (its
    /// behaviour is undefined); here it stops the app with the reason rather than guess a MAC.
    init(hmacAlgorithm algorithm: CCHmacAlgorithm) {
        switch Int(algorithm) {
        case kCCHmacAlgSHA1: self = .sha1
        case kCCHmacAlgMD5: self = .md5
        case kCCHmacAlgSHA256: self = .sha256
        case kCCHmacAlgSHA384: self = .sha384
        case kCCHmacAlgSHA512: self = .sha512
        case kCCHmacAlgSHA224: self = .sha224
        default: preconditionFailure("CCHmac: \(algorithm) is not a kCCHmacAlg* value (kCCHmacAlgSHA1 … kCCHmacAlgSHA224)")
        }
    }
}

/// A running HMAC: the inner hash fed so far and the outer key block (RFC 2104 §2).
final class HMACState {
    private let inner: DigestContext
    private let outer: DigestContext

    init(_ function: CCHashFunction, key: UnsafeRawPointer?, keyLength: Int) {
        let innerContext = function.makeContext()
        let outerContext = function.makeContext()
        let block = innerContext.blockByteCount
        var keyBytes = (key != nil && keyLength > 0) ? [UInt8](UnsafeRawBufferPointer(start: key, count: keyLength)) : []
        if keyBytes.count > block {
            let hashed = function.makeContext()
            keyBytes.withUnsafeBytes { hashed.update($0) }
            keyBytes = hashed.finalize()
        }
        keyBytes += [UInt8](repeating: 0, count: block - keyBytes.count)
        keyBytes.map { $0 ^ 0x36 }.withUnsafeBytes { innerContext.update($0) }
        keyBytes.map { $0 ^ 0x5c }.withUnsafeBytes { outerContext.update($0) }
        inner = innerContext
        outer = outerContext
    }

    private init(inner: DigestContext, outer: DigestContext) { self.inner = inner; self.outer = outer }
    func copy() -> HMACState { HMACState(inner: inner.copy(), outer: outer.copy()) }

    func update(_ data: UnsafeRawPointer?, _ length: Int) {
        guard length > 0, let data else { return }
        inner.update(UnsafeRawBufferPointer(start: data, count: length))
    }

    func finalize() -> [UInt8] {
        let innerDigest = inner.finalize()
        let finishing = outer.copy()
        innerDigest.withUnsafeBytes { finishing.update($0) }
        return finishing.finalize()
    }
}

/// CommonHMAC.h's `#define CC_HMAC_CONTEXT_SIZE 96`: the 32-bit words of Apple's `CCHmacContext`
/// (code sizes buffers with it). Here the context holds its state otherwise; its size is not this.
public let CC_HMAC_CONTEXT_SIZE: Int32 = 96

/// `CCHmacContext`: start it with `CCHmacInit`. Copying it copies the state, as a C struct does.
public struct CCHmacContext {
    var state: HMACState?
    public init() {}
}

/// The HMAC of `dataLength` bytes under `key`, written to `macOut` (which must hold the digest length).
public func CCHmac(_ algorithm: CCHmacAlgorithm, _ key: UnsafeRawPointer!, _ keyLength: Int,
                   _ data: UnsafeRawPointer!, _ dataLength: Int, _ macOut: UnsafeMutableRawPointer!) {
    let state = HMACState(CCHashFunction(hmacAlgorithm: algorithm), key: key, keyLength: keyLength)
    state.update(data, dataLength)
    write(state.finalize(), to: macOut)
}

public func CCHmacInit(_ ctx: UnsafeMutablePointer<CCHmacContext>!, _ algorithm: CCHmacAlgorithm,
                       _ key: UnsafeRawPointer!, _ keyLength: Int) {
    ctx.pointee.state = HMACState(CCHashFunction(hmacAlgorithm: algorithm), key: key, keyLength: keyLength)
}

public func CCHmacUpdate(_ ctx: UnsafeMutablePointer<CCHmacContext>!, _ data: UnsafeRawPointer!, _ dataLength: Int) {
    precondition(ctx.pointee.state != nil, "CCHmacUpdate on a context that CCHmacInit has not started")
    if !isKnownUniquelyReferenced(&ctx.pointee.state) { ctx.pointee.state = ctx.pointee.state?.copy() }
    ctx.pointee.state?.update(data, dataLength)
}

public func CCHmacFinal(_ ctx: UnsafeMutablePointer<CCHmacContext>!, _ macOut: UnsafeMutableRawPointer!) {
    guard let state = ctx.pointee.state else { preconditionFailure("CCHmacFinal on a context that CCHmacInit has not started") }
    write(state.finalize(), to: macOut)
}

private func write(_ bytes: [UInt8], to out: UnsafeMutableRawPointer?) {
    guard let out else { return }
    bytes.withUnsafeBytes { out.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
}
