import Foundation

/// What a receiver expects next, and how it tells the message is complete (docs/PROTOCOL.md,
/// "Legacy (unframed) reading").
enum AwaitedMessage {
    /// One of these literals (e.g. `Client: OK`, `Quit`).
    case literals([String])
    /// `prefix` + a PEM block, complete at its END line.
    case pem(prefix: String)
    /// `prefix` + exactly `count` bytes.
    case prefixedBytes(prefix: String, count: Int)
    /// Exactly `count` raw bytes, never searched for delimiters.
    case raw(count: Int)
    /// `Server: OK` (optionally ` sha256=` + 64 hex) or `Server: ERROR`.
    case serverReply(wantDigest: Bool)
    /// The first of these that completes.
    indirect case oneOf([AwaitedMessage])
}

enum Parsed: Equatable {
    case literal(String)
    case pem(Data)
    case bytes(Data)
    case serverOK(digest: String?)
    case serverError
}

enum ScanResult: Equatable {
    case complete(Parsed, consumed: Int)
    case needMore
    case invalid(String)
}

enum MessageScanner {
    static let okLiteral = Data("Server: OK".utf8)
    static let errorLiteral = Data("Server: ERROR".utf8)
    static let digestPrefix = Data("Server: OK sha256=".utf8)
    static let stoppedLiteral = "Server stopped"

    /// Scans `buffer` for `expectation`. `atEnd` means no more bytes will come for this message
    /// (a whole frame, or a quiet gap): what still needs more is then invalid.
    static func scan(_ expectation: AwaitedMessage, _ buffer: Data, atEnd: Bool) -> ScanResult {
        let result = scanOpen(expectation, buffer)
        if atEnd, case .needMore = result {
            if case let .serverReply(wantDigest) = expectation, wantDigest, skippingLineEnds(buffer).bytes == okLiteral {
                return .complete(.serverOK(digest: nil), consumed: buffer.count)  // no digest came: unverified
            }
            return .invalid("an incomplete message: \(describe(buffer))")
        }
        return result
    }

    private static func scanOpen(_ expectation: AwaitedMessage, _ buffer: Data) -> ScanResult {
        switch expectation {
        case let .raw(count):
            return buffer.count >= count ? .complete(.bytes(Data(buffer.prefix(count))), consumed: count) : .needMore
        case let .literals(options):
            let (text, skipped) = skippingLineEnds(buffer)
            if text.isEmpty { return .needMore }
            var couldGrow = false
            for option in options {
                let literal = Data(option.utf8)
                if text.starts(with: literal) {
                    // The `\n` of `Server stopped\n` belongs to it when it has arrived.
                    let tail = option == stoppedLiteral && text.dropFirst(literal.count).first == 0x0a ? 1 : 0
                    return .complete(.literal(option), consumed: skipped + literal.count + tail)
                }
                if literal.starts(with: text) { couldGrow = true }
            }
            return couldGrow ? .needMore : .invalid("expected \(options.joined(separator: " or ")), got \(describe(text))")
        case let .pem(prefix):
            let (text, skipped) = skippingLineEnds(buffer)
            if text.isEmpty { return .needMore }
            let prefixBytes = Data(prefix.utf8)
            guard text.starts(with: prefixBytes) else {
                return prefixBytes.starts(with: text) ? .needMore : .invalid("expected \(prefix)<PEM>, got \(describe(text))")
            }
            let body = text.dropFirst(prefixBytes.count)
            let begin = Data("-----BEGIN ".utf8)
            guard body.starts(with: begin) || begin.starts(with: body) else {
                return .invalid("\(prefix) is not followed by a PEM block: \(describe(Data(body)))")
            }
            guard let endMarker = body.firstRange(of: Data("-----END ".utf8)),
                  let close = body[endMarker.upperBound...].firstRange(of: Data("-----".utf8)) else { return .needMore }
            var consumed = close.upperBound - text.startIndex
            let pem = Data(body[body.startIndex..<close.upperBound])
            // A line end right after the END line (CRLF, LF or a lone CR: docs/PROTOCOL.md, "PEM
            // line ends") belongs to this message.
            let rest = text.dropFirst(consumed)
            if rest.starts(with: Data("\r\n".utf8)) { consumed += 2 } else if rest.first == 0x0a || rest.first == 0x0d { consumed += 1 }
            return .complete(.pem(pem), consumed: skipped + consumed)
        case let .prefixedBytes(prefix, count):
            let (text, skipped) = skippingLineEnds(buffer)
            if text.isEmpty { return .needMore }
            let prefixBytes = Data(prefix.utf8)
            guard text.starts(with: prefixBytes) else {
                return prefixBytes.starts(with: text) ? .needMore : .invalid("expected \(prefix)<\(count) bytes>, got \(describe(text))")
            }
            guard text.count >= prefixBytes.count + count else { return .needMore }
            return .complete(.bytes(Data(text.dropFirst(prefixBytes.count).prefix(count))), consumed: skipped + prefixBytes.count + count)
        case let .serverReply(wantDigest):
            let (text, skipped) = skippingLineEnds(buffer)
            if text.isEmpty { return .needMore }
            if text.starts(with: errorLiteral) { return .complete(.serverError, consumed: skipped + errorLiteral.count) }
            // Without `digest`, `Server: OK` is complete at once; what follows is the next message.
            if !wantDigest, text.starts(with: okLiteral) { return .complete(.serverOK(digest: nil), consumed: skipped + okLiteral.count) }
            if text.starts(with: digestPrefix) {
                let hex = text.dropFirst(digestPrefix.count).prefix(64)
                guard hex.allSatisfy(isLowerHex) else { return .invalid("a digest that is not lowercase hex: \(describe(text))") }
                guard hex.count == 64 else { return .needMore }
                return .complete(.serverOK(digest: String(decoding: hex, as: UTF8.self)), consumed: skipped + digestPrefix.count + 64)
            }
            if text.starts(with: okLiteral) {
                // `Server: OK` may be the start of `Server: OK sha256=…`: wait only if that is possible.
                // With `digest`, only ` sha256=` may follow (or nothing, until a quiet gap).
                if digestPrefix.starts(with: text) { return .needMore }
                return .invalid("expected Server: OK sha256=<64 hex>, got \(describe(text))")
            }
            if okLiteral.starts(with: text) || errorLiteral.starts(with: text) { return .needMore }
            return .invalid("expected Server: OK or Server: ERROR, got \(describe(text))")
        case let .oneOf(options):
            var reasons: [String] = []
            var needMore = false
            for option in options {
                switch scanOpen(option, buffer) {
                case .complete(let parsed, let consumed): return .complete(parsed, consumed: consumed)
                case .needMore: needMore = true
                case let .invalid(reason): reasons.append(reason)
                }
            }
            return needMore ? .needMore : .invalid(reasons.joined(separator: "; "))
        }
    }

    /// `buffer` without leading `\r`/`\n` (left over from the previous message), and how many were skipped.
    static func skippingLineEnds(_ buffer: Data) -> (bytes: Data, skipped: Int) {
        let skipped = buffer.prefix { $0 == 0x0d || $0 == 0x0a }.count
        return (skipped == 0 ? buffer : Data(buffer.dropFirst(skipped)), skipped)
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) }

    /// A short printable rendering of bytes for reasons.
    static func describe(_ data: Data) -> String {
        let shown = data.prefix(40)
        let printable = shown.allSatisfy { (0x20...0x7e).contains($0) }
        // Data.hexString, not String(format:) per byte: reasons are made for every refused input, and
        // formatting was 60% of a libFuzzer run's time.
        let body = printable ? "\"\(String(decoding: shown, as: UTF8.self))\"" : Data(shown).hexString
        return body + (data.count > 40 ? "… (\(data.count) bytes)" : "")
    }
}
