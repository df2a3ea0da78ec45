import Foundation

/// Standard base64 as the protocol means it: the standard alphabet, padding required (the length a
/// multiple of 4, at most two `=` and only at the end), nothing else — no whitespace. Foundation's
/// `Data(base64Encoded:)` alone also takes `YQ===` and `YQ=a`; PythonRef's `strict_b64decode`
/// takes neither, and the two must agree (found by `crosscheck fuzz`).
public enum StrictBase64 {
    public static func decode(_ text: String) -> Data? {
        let bytes = Array(text.utf8)
        guard bytes.count % 4 == 0 else { return nil }
        var padding = 0
        for byte in bytes {
            if byte == UInt8(ascii: "=") { padding += 1; continue }
            guard padding == 0, isAlphabet(byte) else { return nil }
        }
        guard padding <= 2 else { return nil }
        return Data(base64Encoded: text)
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"): return true
        default: return false
        }
    }
}
