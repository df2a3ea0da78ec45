import Foundation
import StrictFormats
#if canImport(Glibc)
import Glibc
#endif
internal import COpenSSL
internal import COpenSSLShims

/// Calls `body` with the bytes of `data` without copying when they are already contiguous
/// (`Data`, `[UInt8]`), so sealing large buffers costs no extra pass over memory.
@inline(__always)
func withContiguousBytes<D: DataProtocol, R>(
    _ data: D, _ body: (UnsafeRawBufferPointer) throws -> R
) rethrows -> R {
    // `Data` first, by its own method: its `withContiguousStorageIfAvailable` called from generic
    // code makes the runtime look up `Optional<R>`'s metadata on every call (two such calls were
    // 1,300 instructions of each `AES.GCM.seal`, callgrind).
    if let data = data as? Data { return try data.withUnsafeBytes(body) }
    if let result = try data.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
        return result
    }
    return try Array(data).withUnsafeBytes(body)
}

/// Fills `buffer` from the kernel CSPRNG (getrandom(2)), falling back to OpenSSL's RAND_bytes.
func fillSecureRandom(_ buffer: UnsafeMutableRawBufferPointer) {
    let count = buffer.count
    var filled = 0
    while filled < count {
        let got = getrandom(buffer.baseAddress! + filled, count - filled, 0)
        if got > 0 { filled += got; continue }
        if got < 0 && errno == EINTR { continue }
        // No getrandom (old kernel, seccomp): let OpenSSL find entropy its own way.
        let status = RAND_bytes(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + filled, Int32(count - filled))
        // Both failing means no entropy source at all; nothing sensible can continue.
        precondition(status == 1, "no randomness: getrandom and RAND_bytes failed: \(OpenSSLError.drainQueue())")
        filled = count
    }
}

/// Random bytes for values that are public once used (AEAD nonces), from a per-thread pool that
/// getrandom(2) refills 4 KiB at a time: a nonce costs a copy, not a system call (one call per
/// 16 KiB message was 7% of AES-GCM sealing time under `perf`). The pool's page is mapped with
/// MADV_WIPEONFORK, so a forked child finds it zeroed, that is empty, and never repeats its
/// parent's next nonces; where the kernel cannot do that there is no pool, only getrandom. Keys
/// never come from here (they would wait in memory before use).
enum NoncePool {
    private static let size = 4096
    /// The first 64 bytes hold the count of bytes left (an Int); the pool is the rest.
    private static let header = 64
    private static let capacity = size - header
    /// Marks a thread whose pool could not be made (an address no mapping has).
    private static var unavailable: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 1)! }

    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { raw in
            if let raw, raw != UnsafeMutableRawPointer(bitPattern: 1) { munmap(raw, 4096) }
        }
        // Without thread-specific storage (a process out of keys) nothing here can work.
        precondition(status == 0, "pthread_key_create failed")
        return key
    }()

    /// Fills `buffer` (at most 64 bytes from the pool; more straight from getrandom).
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        let count = buffer.count
        guard count > 0, let base = buffer.baseAddress else { return }
        guard count <= 64, let pool = page() else { fillSecureRandom(buffer); return }
        var left = pool.load(as: Int.self)
        if left < count || left > capacity {
            fillSecureRandom(UnsafeMutableRawBufferPointer(start: pool + header, count: capacity))
            left = capacity
        }
        left -= count
        base.copyMemory(from: pool + header + left, byteCount: count)
        pool.storeBytes(of: left, as: Int.self)
    }

    /// This thread's pool page, mapped on first use; nil where it cannot be wiped on fork.
    private static func page() -> UnsafeMutableRawPointer? {
        if let raw = pthread_getspecific(threadKey) { return raw == unavailable ? nil : raw }
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let mapped, mapped != UnsafeMutableRawPointer(bitPattern: -1) else {
            pthread_setspecific(threadKey, unavailable)
            return nil
        }
        guard madvise(mapped, size, MADV_WIPEONFORK) == 0 else {
            munmap(mapped, size)
            pthread_setspecific(threadKey, unavailable)
            return nil
        }
        pthread_setspecific(threadKey, mapped)  // a fresh anonymous page is zero: an empty pool
        return mapped
    }
}

/// `count` random bytes for a nonce (from `NoncePool`), as `Data`: up to 14 bytes live inside the
/// `Data` value itself, with no allocation.
func randomNonceData(_ count: Int) -> Data {
    var data = Data(count: count)
    data.withUnsafeMutableBytes { NoncePool.fill($0) }
    return data
}

/// `count` random bytes as an array, straight from the kernel (keys).
func secureRandomArray(_ count: Int) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        fillSecureRandom(UnsafeMutableRawBufferPointer(buffer))
        initialized = count
    }
}

/// Random bytes from the kernel CSPRNG (getrandom(2)), falling back to OpenSSL's RAND_bytes.
/// getrandom is three times cheaper than RAND_bytes per call here, which matters for per-message
/// nonces and IVs.
public func secureRandomBytes(_ count: Int) -> Data {
    var data = Data(count: count)
    if count == 0 { return data }
    data.withUnsafeMutableBytes(fillSecureRandom)
    return data
}

extension Data {
    /// Lowercase hex, for messages that show bytes.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8](); out.reserveCapacity(count * 2)
        for byte in self { out.append(digits[Int(byte >> 4)]); out.append(digits[Int(byte & 0x0f)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses hex (upper or lower case, even length); nil for anything else.
    public init?(hexString: String) {
        let utf8 = Array(hexString.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var bytes = [UInt8](); bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = HexDigit.value(utf8[index]), let low = HexDigit.value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }
}
