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
        guard let der = Data(base64Encoded: String(base64)), !der.isEmpty else {
            throw WireCryptoError.malformedKey(reason: "the '\(label)' PEM body is not base64", stack: [])
        }
        return der
    }

    /// The label of the first PEM block in `data`, if `data` looks like PEM at all.
    public static func firstLabel(in data: Data) -> String? {
        guard let text = String(data: data.prefix(200), encoding: .utf8),
              let begin = text.range(of: "-----BEGIN ") else { return nil }
        let rest = text[begin.upperBound...]
        guard let close = rest.range(of: "-----") else { return nil }
        return String(rest[..<close.lowerBound])
    }
}
