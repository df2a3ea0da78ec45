import Foundation

/// The receive side of a connection: buffers bytes and yields whole messages under either framing,
/// enforcing the size limit. A thrown `FrameError` means the stream cannot be a valid conversation.
struct MessageStream {
    let framing: Framing
    let maxMessage: Int
    private(set) var buffer = Data()

    init(framing: Framing, maxMessage: Int) { self.framing = framing; self.maxMessage = maxMessage }

    mutating func append(_ data: Data) { buffer.append(data) }

    /// True when nothing of a message for `expectation` is waiting: no bytes at all, except that
    /// line ends before a legacy *text* message do not count (framed, a line end starts a frame
    /// header; a raw ciphertext is never searched for delimiters, so there it is a byte of it).
    func isIdle(expecting expectation: AwaitedMessage) -> Bool {
        if framing == .framed { return buffer.isEmpty }
        if case .raw = expectation { return buffer.isEmpty }
        return MessageScanner.skippingLineEnds(buffer).bytes.isEmpty
    }

    /// The next message for `expectation`, removed from the buffer; nil when more bytes are needed.
    /// `atEnd`: the line went quiet, so an incomplete message is an error.
    mutating func next(_ expectation: AwaitedMessage, atEnd: Bool) throws -> Parsed? {
        switch framing {
        case .legacy:
            switch MessageScanner.scan(expectation, buffer, atEnd: atEnd && !isIdle(expecting: expectation)) {
            case let .complete(parsed, consumed):
                buffer = Data(buffer.dropFirst(consumed))
                return parsed
            case .needMore:
                // Line ends left over before a text message are not part of it.
                let pending: Int
                if case .raw = expectation { pending = buffer.count } else { pending = MessageScanner.skippingLineEnds(buffer).bytes.count }
                if pending > maxMessage {
                    throw FrameError.tooLong(length: pending, limit: maxMessage)
                }
                return nil
            case let .invalid(reason):
                throw FrameError.unexpected(reason)
            }
        case .framed:
            guard let payload = try FrameReader(maxMessage: maxMessage).next(from: &buffer) else {
                if atEnd && !buffer.isEmpty { throw FrameError.unexpected("an incomplete frame: \(MessageScanner.describe(buffer))") }
                return nil
            }
            // Leading line ends are skipped between legacy messages only: a frame starts with its message.
            if case .raw = expectation {} else if MessageScanner.skippingLineEnds(payload).skipped > 0 {
                throw FrameError.unexpected("a frame starting with a line end: \(MessageScanner.describe(payload))")
            }
            switch MessageScanner.scan(expectation, payload, atEnd: true) {
            case let .complete(parsed, consumed):
                // Exactly one message per frame (its own line end, if it has one, is part of it).
                guard consumed == payload.count else {
                    throw FrameError.unexpected("a frame holding more than one message: \(MessageScanner.describe(payload))")
                }
                return parsed
            case .needMore:
                throw FrameError.unexpected("a frame holding an incomplete message")
            case let .invalid(reason):
                throw FrameError.unexpected(reason)
            }
        }
    }
}
