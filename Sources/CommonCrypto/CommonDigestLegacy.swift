import Foundation
internal import WireCrypto

// CommonDigest.h's MD2 and MD4, which Apple still declares (deprecated since iOS 13 and macOS
// 10.15, `API_DEPRECATED(CC_DIGEST_DEPRECATION_WARNING, macos(10.4, 10.15), ios(2.0, 13.0))`) and
// old app code still calls, e.g. to checksum or to talk to a legacy server:
//
//     extern unsigned char *CC_MD2(const void *data, CC_LONG len, unsigned char *md);
//     extern int CC_MD2_Init(CC_MD2_CTX *c);   CC_MD2_Update(CC_MD2_CTX *c, const void *data, CC_LONG len);
//     extern int CC_MD2_Final(unsigned char *md, CC_MD2_CTX *c);   (and the same four for MD4)
//
// The hashes are WireCrypto's own (`InsecureMD2`, RFC 1319; `InsecureMD4`, RFC 1320): OpenSSL 3
// has no MD2 unless built with it and keeps MD4 in its legacy provider.

/// The running state of a `CC_MD2_CTX` or `CC_MD4_CTX`: a value, so a copied context goes on alone.
struct CCLegacyDigestState {
    enum Running {
        case md2(InsecureMD2)
        case md4(InsecureMD4)
    }

    private var running: Running?

    mutating func start(_ fresh: Running) { running = fresh }

    mutating func update(_ data: UnsafeRawPointer?, _ len: Int) {
        guard len > 0, let data, let current = running else { return }
        let bytes = UnsafeRawBufferPointer(start: data, count: len)
        switch current {
        case .md2(var md2): md2.update(bytes); running = .md2(md2)
        case .md4(var md4): md4.update(bytes); running = .md4(md4)
        }
    }

    /// Writes the 16-byte digest to `md` and leaves the context to be started again, as C's Final does.
    mutating func finish(into md: UnsafeMutablePointer<UInt8>?) -> Int32 {
        guard let current = running, let md else { return 0 }
        let digest: [UInt8]
        switch current {
        case .md2(let md2): digest = md2.finalize()
        case .md4(let md4): digest = md4.finalize()
        }
        md.update(from: digest, count: digest.count)
        running = nil
        return 1
    }

    /// As `CCDigestState.requireStarted`: Apple's code reads garbage state; here it stops the app.
    func requireStarted(_ function: String) {
        precondition(running != nil, "\(function) on a context that CC_…_Init has not started")
    }

    /// The one-shot functions: the digest of `len` bytes at `data` into `md`; nil `md` is a nil
    /// result and no digest, as Apple's header says.
    static func oneShot(_ fresh: Running, _ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?)
        -> UnsafeMutablePointer<UInt8>? {
        guard let md else { return nil }
        var state = CCLegacyDigestState()
        state.start(fresh)
        state.update(data, Int(len))
        _ = state.finish(into: md)
        return md
    }
}

/// `CC_MD2_CTX`: start it with `CC_MD2_Init`.
public struct CC_MD2_CTX { var state = CCLegacyDigestState(); public init() {} }
/// `CC_MD4_CTX`: start it with `CC_MD4_Init`.
public struct CC_MD4_CTX { var state = CCLegacyDigestState(); public init() {} }

// MARK: MD2 (RFC 1319)

@discardableResult
@available(iOS, introduced: 2.0, deprecated: 13.0, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
@available(macOS, introduced: 10.4, deprecated: 10.15, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
public func CC_MD2(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    CCLegacyDigestState.oneShot(.md2(InsecureMD2()), data, len, md)
}
@discardableResult
@available(iOS, introduced: 2.0, deprecated: 13.0, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
@available(macOS, introduced: 10.4, deprecated: 10.15, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
public func CC_MD2_Init(_ c: UnsafeMutablePointer<CC_MD2_CTX>!) -> Int32 { c.pointee.state.start(.md2(InsecureMD2())); return 1 }
@discardableResult
@available(iOS, introduced: 2.0, deprecated: 13.0, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
@available(macOS, introduced: 10.4, deprecated: 10.15, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
public func CC_MD2_Update(_ c: UnsafeMutablePointer<CC_MD2_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    c.pointee.state.requireStarted("CC_MD2_Update"); c.pointee.state.update(data, Int(len)); return 1
}
@discardableResult
@available(iOS, introduced: 2.0, deprecated: 13.0, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
@available(macOS, introduced: 10.4, deprecated: 10.15, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
public func CC_MD2_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_MD2_CTX>!) -> Int32 {
    c.pointee.state.requireStarted("CC_MD2_Final"); return c.pointee.state.finish(into: md)
}

// MARK: MD4 (RFC 1320)

@discardableResult
@available(iOS, introduced: 2.0, deprecated: 13.0, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
@available(macOS, introduced: 10.4, deprecated: 10.15, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
public func CC_MD4(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    CCLegacyDigestState.oneShot(.md4(InsecureMD4()), data, len, md)
}
@discardableResult
@available(iOS, introduced: 2.0, deprecated: 13.0, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
@available(macOS, introduced: 10.4, deprecated: 10.15, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
public func CC_MD4_Init(_ c: UnsafeMutablePointer<CC_MD4_CTX>!) -> Int32 { c.pointee.state.start(.md4(InsecureMD4())); return 1 }
@discardableResult
@available(iOS, introduced: 2.0, deprecated: 13.0, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
@available(macOS, introduced: 10.4, deprecated: 10.15, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
public func CC_MD4_Update(_ c: UnsafeMutablePointer<CC_MD4_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    c.pointee.state.requireStarted("CC_MD4_Update"); c.pointee.state.update(data, Int(len)); return 1
}
@discardableResult
@available(iOS, introduced: 2.0, deprecated: 13.0, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
@available(macOS, introduced: 10.4, deprecated: 10.15, message: "This function is cryptographically broken and should not be used in security contexts. Clients should migrate to SHA256 (or stronger).")
public func CC_MD4_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_MD4_CTX>!) -> Int32 {
    c.pointee.state.requireStarted("CC_MD4_Final"); return c.pointee.state.finish(into: md)
}
