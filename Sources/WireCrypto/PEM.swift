import Foundation

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

    /// The DER inside the first PEM block labelled `label`: the base64 between its BEGIN and END
    /// lines, `\n` or `\r\n` line ends, nothing else inside (no encryption headers).
    public static func body(of data: Data, label: String) throws -> Data {
        let text = String(decoding: data, as: UTF8.self)
        guard let begin = text.range(of: "-----BEGIN \(label)-----"),
              let end = text.range(of: "-----END \(label)-----", range: begin.upperBound..<text.endIndex) else {
            throw WireCryptoError.malformedKey(reason: "no complete '\(label)' PEM block (BEGIN and matching END line)", stack: [])
        }
        // Filter scalars, not Characters: "\r\n" is one Character in Swift.
        var base64 = String.UnicodeScalarView()
        base64.append(contentsOf: text[begin.upperBound..<end.lowerBound].unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
        guard let der = StrictBase64.decode(String(base64)), !der.isEmpty else {
            throw WireCryptoError.malformedKey(reason: "the '\(label)' PEM body is not base64", stack: [])
        }
        return der
    }

    /// The label of the PEM block `data` begins with (after ASCII whitespace), or nil when `data`
    /// does not begin with `-----BEGIN ` and so is not PEM (but DER, or nothing). PythonRef draws the
    /// same line; a BEGIN line further in (after other text) does not make the data PEM.
    public static func firstLabel(in data: Data) -> String? {
        let start = data.drop { [0x20, 0x09, 0x0a, 0x0d, 0x0b, 0x0c].contains($0) }
        let begin = Data("-----BEGIN ".utf8)
        guard start.starts(with: begin) else { return nil }
        let rest = start.dropFirst(begin.count).prefix(200)
        guard let close = rest.firstRange(of: Data("-----".utf8)) else { return nil }
        return String(decoding: rest[..<close.lowerBound], as: UTF8.self)
    }
}
