import Foundation
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
    if let result = try data.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
        return result
    }
    return try Array(data).withUnsafeBytes(body)
}

/// `count` bytes of uninitialised (not zero-filled) memory as `Data`, for outputs that are written
/// in full right away: zero-filling a 16 KiB buffer per seal is measurable next to AES-GCM itself.
func uninitializedData(count: Int) -> Data {
    var memory: UnsafeMutableRawPointer?
    // 64-byte alignment: AES-NI/VAES loops run a little faster on cache-line-aligned output.
    guard count > 0, posix_memalign(&memory, 64, count) == 0, let memory else { return Data(count: count) }
    return Data(bytesNoCopy: memory, count: count, deallocator: .free)
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

/// `count` random bytes as an array (nonces, keys).
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
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return nil
            }
        }
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }
}
