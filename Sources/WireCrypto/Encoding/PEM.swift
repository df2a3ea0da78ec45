import Foundation
import StrictFormats

/// PEM text in the exact shape crosscheck needs to reproduce.
public enum PEM {
    /// The iOS client's form (CryptoExportImportManager): `-----BEGIN <label>-----\n`, base64 in
    /// 64-character lines each ending in `\n`, `-----END <label>-----` and no newline after it.
    public static func iOSStyle(label: String, der: Data) -> Data {
        var text = "-----BEGIN \(label)-----\n"
        let base64 = der.base64EncodedString()
        var index = base64.startIndex
        while index < base64.endIndex {
            let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
            text += String(base64[index..<end]) + "\n"
            index = end
        }
        text += "-----END \(label)-----"
        return Data(text.utf8)
    }

    /// The DER inside the first PEM block labelled `label` (docs/PROTOCOL.md, "PEM line ends"): a
    /// line end is LF, CRLF or a lone CR (RFC 7468 §3's `eol`); the BEGIN line must end in one; the
    /// body is the base64 between the BEGIN line and the END line with every CR and LF removed
    /// (line widths and blank lines do not matter, any other byte does: no encryption headers).
    /// Read as bytes (as PythonRef reads it, one character per byte): a String and its Unicode
    /// scalars cost about a thousand instructions per byte here.
    public static func body(of data: Data, label: String) throws -> Data {
        let begin = Array("-----BEGIN \(label)-----".utf8), end = Array("-----END \(label)-----".utf8)
        return try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let beginAt = find(begin, in: bytes, from: 0), let endAt = find(end, in: bytes, from: beginAt + begin.count) else {
                throw WireCryptoError.malformedKey(reason: "no complete '\(label)' PEM block (BEGIN and matching END line)", stack: [])
            }
            let bodyStart = beginAt + begin.count
            guard bodyStart < endAt, bytes[bodyStart] == 0x0a || bytes[bodyStart] == 0x0d else {
                throw WireCryptoError.malformedKey(reason: "the '\(label)' BEGIN line does not end in a line end (LF, CRLF or CR)", stack: [])
            }
            var base64: [UInt8] = []
            base64.reserveCapacity(endAt - bodyStart)
            // Indexes, not a slice: unoptimized builds (the libFuzzer target) allocate per element of a slice.
            var index = bodyStart
            while index < endAt {
                let byte = bytes[index]
                if byte != 0x0d && byte != 0x0a { base64.append(byte) }
                index += 1
            }
            guard let der = StrictBase64.decode(bytes: base64), !der.isEmpty else {
                throw WireCryptoError.malformedKey(reason: "the '\(label)' PEM body is not base64", stack: [])
            }
            return der
        }
    }

    /// Where `pattern` first occurs in `bytes` at or after `start`.
    static func find(_ pattern: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        var index = start
        search: while index <= bytes.count - pattern.count {
            if bytes[index] == first {
                for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] { index += 1; continue search }
                return index
            }
            index += 1
        }
        return nil
    }

    /// The label of the PEM block `data` begins with (after ASCII whitespace), or nil when `data`
    /// does not begin with `-----BEGIN ` and so is not PEM (but DER, or nothing). PythonRef draws the
    /// same line; a BEGIN line further in (after other text) does not make the data PEM.
    public static func firstLabel(in data: Data) -> String? {
        data.withUnsafeBytes { raw -> String? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            while start < bytes.count, [0x20, 0x09, 0x0a, 0x0d, 0x0b, 0x0c].contains(bytes[start]) { start += 1 }
            guard bytes.count - start >= beginMarker.count, bytes[start..<(start + beginMarker.count)].elementsEqual(beginMarker) else { return nil }
            let rest = UnsafeBufferPointer(rebasing: bytes[(start + beginMarker.count)..<min(bytes.count, start + beginMarker.count + 200)])
            guard let close = find(dashes, in: rest, from: 0) else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: rest[0..<close]), as: UTF8.self)
        }
    }

    private static let beginMarker = Array("-----BEGIN ".utf8)
    private static let dashes = Array("-----".utf8)
}
