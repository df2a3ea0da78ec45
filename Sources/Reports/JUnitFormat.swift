import Foundation

/// Value formatting shared by the writer, the reader and the summary: XML-safe text, times and
/// timestamps in the exact lexical forms the schema accepts.
public enum JUnitFormat {

    // MARK: XML-safe text

    /// Whether XML 1.0 allows `scalar` in a document (production [2] Char). Swift strings cannot
    /// hold surrogate code points, so only C0 controls and U+FFFE/U+FFFF need checking.
    static func isXMLChar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: return true
        case 0x00...0x1F: return false
        case 0xFFFE, 0xFFFF: return false
        default: return true
        }
    }

    /// `text` with every character XML 1.0 forbids replaced by a visible escape: `\x07` for a C0
    /// control, `\uFFFE` / `\uFFFF` for the two non-characters. Failure messages often carry
    /// arbitrary decoded bytes; the escape keeps which byte it was, where U+FFFD would not.
    /// Backslashes already in the text are left alone, so the replacement is not reversible.
    static func xmlSafe(_ text: String) -> String {
        if text.unicodeScalars.allSatisfy(isXMLChar) { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isXMLChar(scalar) {
                out.append(scalar)
            } else {
                out.append(contentsOf: escape(scalar).unicodeScalars)
            }
        }
        return String(out)
    }

    /// C0 controls, DEL and C1: what a terminal, a browser or a Markdown renderer may act on.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The one loop behind the terminal, HTML and Markdown escapes: `text` with each scalar that
    /// `replace` maps written as its replacement, and every other control character (`isControl`)
    /// but those in `keep` shown as an escape (`\x07`) after `controlPrefix`.
    static func replacing(_ text: String, keep: Set<Unicode.Scalar> = [], controlPrefix: String = "",
                          _ replace: (Unicode.Scalar) -> String?) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if let replacement = replace(scalar) {
                out += replacement
            } else if isControl(scalar) && !keep.contains(scalar) {
                out += controlPrefix + escape(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func escape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        if scalar.value <= 0xFF {
            return "\\x" + String(repeating: "0", count: max(0, 2 - hex.count)) + hex
        }
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// XML-safe text for an attribute of type `xs:token` with `minLength 1` (suite name,
    /// hostname, property name): after whitespace collapsing it must not be empty.
    static func nonEmptyToken(_ text: String, fallback: String) -> String {
        let safe = xmlSafe(text)
        return safe.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? fallback : safe
    }

    // MARK: Times (xs:decimal seconds)

    /// Largest time written: far beyond any test, small enough that milliseconds fit an Int64.
    static let maxTime: TimeInterval = 1e12

    /// Negative and non-finite times become 0; absurdly large ones are capped.
    static func sanitizedTime(_ time: TimeInterval) -> TimeInterval {
        guard time.isFinite, time > 0 else { return 0 }
        return min(time, maxTime)
    }

    /// A testcase time as the report writes it: whole microseconds.
    public static func microseconds(_ time: TimeInterval) -> Int64 {
        Int64((sanitizedTime(time) * 1_000_000).rounded())
    }

    /// The time of a suite with these testcase times: their sum, each taken to whole microseconds
    /// first (what the report holds), so the figure is the same before writing and after reading.
    /// (Whole milliseconds would not do: 216 vectors of 0.4 ms each would add up to 0.)
    public static func suiteTime<Times: Sequence>(_ caseTimes: Times) -> TimeInterval where Times.Element == TimeInterval {
        let cap = Int64(maxTime * 1_000_000)
        let total = caseTimes.reduce(Int64(0)) { min($0 + microseconds($1), cap) }
        return Double(total) / 1_000_000
    }

    /// A testcase time: seconds to the microsecond, at least three decimals, trailing zeros beyond
    /// them dropped: "0.125", "0.000412", "1.2505".
    public static func formatCaseTime(_ time: TimeInterval) -> String {
        let micros = microseconds(time)
        var fraction = String(micros % 1_000_000)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.count > 3, fraction.last == "0" { fraction.removeLast() }
        return "\(micros / 1_000_000).\(fraction)"
    }

    /// Seconds with exactly three decimals and a '.' separator, whatever the locale: "1.250".
    public static func formatTime(_ time: TimeInterval) -> String {
        let millis = Int64((sanitizedTime(time) * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// Reads an `xs:decimal` (also accepts what `Double` accepts, e.g. exponents other tools write).
    static func parseTime(_ text: String) -> TimeInterval? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, let value = Double(trimmed), value.isFinite else { return nil }
        return value
    }

    // MARK: Timestamps (ISO 8601 without a time zone)

    /// The schema's pattern allows four-digit years only.
    static let earliestDate = Date(timeIntervalSince1970: -62_135_596_800)  // 0001-01-01T00:00:00Z
    static let latestDate = Date(timeIntervalSince1970: 253_402_300_799)    // 9999-12-31T23:59:59Z

    static func fixedFormatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = format
        return formatter
    }

    /// "2026-11-30T06:10:00": UTC, whole seconds, no zone suffix.
    static func formatTimestamp(_ date: Date) -> String {
        var clamped = date
        if !date.timeIntervalSince1970.isFinite { clamped = Date(timeIntervalSince1970: 0) }
        clamped = min(max(clamped, earliestDate), latestDate)
        return fixedFormatter("yyyy-MM-dd'T'HH:mm:ss").string(from: clamped)
    }

    /// Reads our own form (taken as UTC) and, for reports written by other tools, ISO 8601 with
    /// fractional seconds and/or a zone ("2024-05-01T10:00:00.123+02:00", "...Z").
    static func parseTimestamp(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm:ssXXXXX",
                       "yyyy-MM-dd'T'HH:mm:ss.SSSXXXXX", "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXXXX",
                       "yyyy-MM-dd'T'HH:mm:ss.SSSSSS", "yyyy-MM-dd HH:mm:ss"] {
            if let date = fixedFormatter(format).date(from: trimmed) { return date }
        }
        return nil
    }
}
