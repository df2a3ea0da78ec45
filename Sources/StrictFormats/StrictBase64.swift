import Foundation

/// Standard base64 as the protocol means it: the standard alphabet, padding required (the length a
/// multiple of 4, at most two `=` and only at the end), nothing else — no whitespace. Foundation's
/// `Data(base64Encoded:)` alone also takes `YQ===` and `YQ=a`; PythonRef's `strict_b64decode`
/// takes neither, and the two must agree (found by `crosscheck fuzz`).
public enum StrictBase64 {
    public static func decode(_ text: String) -> Data? { decode(bytes: Array(text.utf8)) }

    /// The same, from the text's bytes. Decoded here rather than by Foundation (whose decoder gives
    /// the same bytes for every text this accepts, unused low bits ignored as there): PEM bodies are
    /// decoded for every key import, and this makes one allocation where Foundation makes several.
    public static func decode(bytes: [UInt8]) -> Data? {
        guard bytes.count % 4 == 0 else { return nil }
        var padding = 0
        for byte in bytes {
            if byte == UInt8(ascii: "=") { padding += 1; continue }
            guard padding == 0, isAlphabet(byte) else { return nil }
        }
        guard padding <= 2 else { return nil }
        var output = Data(count: bytes.count / 4 * 3 - padding)
        output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) in
            var written = 0, accumulator: UInt32 = 0, bits = 0
            for byte in bytes where byte != UInt8(ascii: "=") {
                accumulator = accumulator << 6 | UInt32(value(byte))
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    out[written] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                    written += 1
                }
            }
        }
        return output
    }

    private static func value(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        default: return 63  // "/", the only other byte `isAlphabet` lets through
        }
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"): return true
        default: return false
        }
    }
}

/// One hex digit, either case: JSON's `\u` escapes, form encoding's `%HH`, hex text.
public enum HexDigit {
    public static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
