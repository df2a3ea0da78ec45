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
        let padding = bytes.last == UInt8(ascii: "=") ? (bytes.dropLast().last == UInt8(ascii: "=") ? 2 : 1) : 0
        var output = Data(count: bytes.count / 4 * 3 - padding)
        // One table lookup per byte over raw buffers: the fuzz suite decodes tens of thousands of
        // fields, and in the debug builds the tests run, range patterns and iterators cost 8× this.
        let valid = bytes.withUnsafeBufferPointer { (input: UnsafeBufferPointer<UInt8>) -> Bool in
            output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Bool in
                var written = 0, accumulator: UInt32 = 0, bits = 0
                for index in 0..<(input.count - padding) {
                    let value = Self.values[Int(input[index])]
                    guard value != Self.notInAlphabet else { return false }  // also `=` before the end
                    accumulator = accumulator << 6 | UInt32(value)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        out[written] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                        written += 1
                    }
                }
                return true
            }
        }
        return valid ? output : nil
    }

    private static let notInAlphabet: UInt8 = 0xFF

    /// Each byte's 6-bit value in the standard alphabet, `notInAlphabet` for every other byte.
    private static let values: [UInt8] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt8(byte) - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt8(byte) - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt8(byte) - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return notInAlphabet
        }
    }
}

/// One hex digit, either case: JSON's `\u` escapes, form encoding's `%HH`, hex text.
public enum HexDigit {
    public static func value(_ byte: UInt8) -> UInt8? {
        let value = values[Int(byte)]
        return value == 0xFF ? nil : value
    }

    /// A table, as StrictBase64's: hex text is read a byte at a time in every check.
    private static let values: [UInt8] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt8(byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt8(byte) - UInt8(ascii: "A") + 10
        default: return 0xFF
        }
    }
}
