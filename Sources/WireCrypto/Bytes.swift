import Foundation
internal import COpenSSL
internal import CShims

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

/// Random bytes from OpenSSL's CSPRNG.
public func secureRandomBytes(_ count: Int) -> Data {
    var data = Data(count: count)
    if count == 0 { return data }
    let status = data.withUnsafeMutableBytes { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count)) }
    // RAND_bytes fails only when the OS entropy source is gone; nothing sensible can continue.
    precondition(status == 1, "OpenSSL RAND_bytes failed: \(drainOpenSSLErrors())")
    return data
}

/// Reads everything written to a memory BIO.
func readMemoryBIO(_ bio: OpaquePointer) -> Data {
    var contents: UnsafeMutablePointer<CChar>? = nil
    let length = CShims_BIO_get_mem_data(bio, &contents)
    guard length > 0, let contents else { return Data() }
    return Data(bytes: contents, count: length)
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
