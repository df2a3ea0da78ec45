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

    /// The label of the first PEM block in `data`, if `data` looks like PEM at all.
    public static func firstLabel(in data: Data) -> String? {
        guard let text = String(data: data.prefix(200), encoding: .utf8),
              let begin = text.range(of: "-----BEGIN ") else { return nil }
        let rest = text[begin.upperBound...]
        guard let close = rest.range(of: "-----") else { return nil }
        return String(rest[..<close.lowerBound])
    }
}
