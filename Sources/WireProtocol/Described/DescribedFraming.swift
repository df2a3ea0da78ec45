import Foundation

/// How a `tcp` description's messages become bytes on the wire and back
/// (docs/PROTOCOL-DESCRIPTIONS.md, `[transport]`): `legacy` (nothing between messages),
/// `length-prefix` (a 2- or 4-byte big-endian length first) or `line` (the message, then `line_end`).
public struct DescribedFraming: Sendable, Equatable {
    public let kind: ProtocolDescription.FramingKind
    public let lengthBytes: Int
    public let lineEnd: Data
    public let maxMessage: Int

    public init(transport: ProtocolDescription.Transport) {
        kind = transport.framing
        lengthBytes = transport.lengthBytes
        lineEnd = Data(transport.lineEnd.utf8)
        maxMessage = transport.maxMessage
    }

    /// Refusals of the wire: over `max_message`, a length prefix of 0, a line end inside a `line` message.
    static func tooLong(_ length: Int, _ limit: Int) -> DescribedRefusal {
        DescribedRefusal(reason: "a message of \(length) bytes, over the limit of \(limit) (`max_message`)")
    }
    static let zeroLength = DescribedRefusal(reason: "a length prefix of 0")
    static let containsLineEnd = DescribedRefusal(reason: "the message contains the line end, which `line` framing cannot carry")

    /// The bytes to send for `message`; throws `DescribedRefusal` for a message the framing cannot carry.
    public func encode(_ message: Data) throws -> Data {
        guard message.count <= maxMessage else { throw Self.tooLong(message.count, maxMessage) }
        switch kind {
        case .legacy, .close:
            return message
        case .lengthPrefix:
            guard !message.isEmpty else { throw DescribedFraming.zeroLength }
            var prefix = Data()
            for shift in stride(from: (lengthBytes - 1) * 8, through: 0, by: -8) { prefix.append(UInt8(truncatingIfNeeded: message.count >> shift)) }
            guard lengthBytes == 4 || message.count < 1 << 16 else { throw Self.tooLong(message.count, (1 << 16) - 1) }
            return prefix + message
        case .line:
            guard message.range(of: lineEnd) == nil else { throw Self.containsLineEnd }
            return message + lineEnd
        }
    }

    public func decoder() -> Decoder { Decoder(framing: self) }

    /// Takes bytes as they arrive (any split) and hands back whole messages.
    public struct Decoder: Sendable {
        let framing: DescribedFraming
        private var buffer = Data()

        init(framing: DescribedFraming) { self.framing = framing }

        public mutating func append(_ data: Data) { buffer += data }

        /// Bytes received and not yet handed out.
        public var pending: Int { buffer.count }

        /// Whether a quiet gap can end a message (`legacy`). Under `length-prefix` and `line` the
        /// framing alone does: a sender that pauses inside a message has not finished it.
        public var endsAtQuietGap: Bool { framing.kind == .legacy }

        /// The next whole message, or nil when more bytes are needed. `legacy`: a message of
        /// `expectedLength` is taken exactly; with none known, nothing is taken until `quietGap()`.
        public mutating func next(expectedLength: Int? = nil) throws -> Data? {
            switch framing.kind {
            case .legacy:
                guard let expectedLength, buffer.count >= expectedLength else {
                    if buffer.count > framing.maxMessage { throw DescribedFraming.tooLong(buffer.count, framing.maxMessage) }
                    return nil
                }
                return take(expectedLength, skipping: 0)
            case .lengthPrefix:
                guard buffer.count >= framing.lengthBytes else { return nil }
                let length = buffer.prefix(framing.lengthBytes).reduce(0) { $0 << 8 | Int($1) }
                if length == 0 { throw DescribedFraming.zeroLength }
                if length > framing.maxMessage { throw DescribedFraming.tooLong(length, framing.maxMessage) }
                guard buffer.count >= framing.lengthBytes + length else { return nil }
                buffer = Data(buffer.dropFirst(framing.lengthBytes))
                return take(length, skipping: 0)
            case .line:
                guard let end = buffer.range(of: framing.lineEnd) else {
                    // A line of max_message bytes whose "\r\n" arrives split holds max_message + 1
                    // bytes before its "\n" (the stop-49 review): over that, no line end can make it fit.
                    if buffer.count > framing.maxMessage + framing.lineEnd.count - 1 { throw DescribedFraming.tooLong(buffer.count, framing.maxMessage) }
                    return nil
                }
                let length = end.lowerBound - buffer.startIndex
                if length > framing.maxMessage { throw DescribedFraming.tooLong(length, framing.maxMessage) }
                return take(length, skipping: framing.lineEnd.count)
            case .close:
                if buffer.count > framing.maxMessage { throw DescribedFraming.tooLong(buffer.count, framing.maxMessage) }
                return nil  // only the sender's close ends it
            }
        }

        /// The peer closed its side: what is left is its last message (`close` framing; others as at a quiet gap).
        public mutating func endOfStream() -> Data? {
            guard framing.kind == .close else { return quietGap() }
            return buffer.isEmpty ? nil : take(buffer.count, skipping: 0)
        }

        /// `legacy`: the line has been quiet, so what arrived is one message (nil if nothing did).
        public mutating func quietGap() -> Data? {
            guard framing.kind == .legacy, !buffer.isEmpty else { return nil }
            return take(buffer.count, skipping: 0)
        }

        private mutating func take(_ count: Int, skipping extra: Int) -> Data {
            let message = Data(buffer.prefix(count))
            buffer = Data(buffer.dropFirst(count + extra))
            return message
        }
    }
}
