import Foundation

/// The receive side of a connection: buffers bytes and yields whole messages under either framing,
/// enforcing the size limit. A thrown `FrameError` means the stream cannot be a valid conversation.
struct MessageStream {
    let framing: Framing
    let maxMessage: Int
    private(set) var buffer = Data()

    init(framing: Framing, maxMessage: Int) { self.framing = framing; self.maxMessage = maxMessage }

    mutating func append(_ data: Data) { buffer.append(data) }

    /// True when nothing but line ends is waiting.
    var isIdle: Bool { MessageScanner.skippingLineEnds(buffer).bytes.isEmpty }

    /// The next message for `expectation`, removed from the buffer; nil when more bytes are needed.
    /// `atEnd`: the line went quiet, so an incomplete message is an error.
    mutating func next(_ expectation: Expectation, atEnd: Bool) throws -> Parsed? {
        switch framing {
        case .legacy:
            switch MessageScanner.scan(expectation, buffer, atEnd: atEnd && !isIdle) {
            case let .complete(parsed, consumed):
                buffer = Data(buffer.dropFirst(consumed))
                return parsed
            case .needMore:
                if buffer.count > maxMessage + 64 {
                    throw FrameError.tooLong(length: buffer.count, limit: maxMessage)
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
            switch MessageScanner.scan(expectation, payload, atEnd: true) {
            case let .complete(parsed, consumed):
                guard MessageScanner.skippingLineEnds(Data(payload.dropFirst(consumed))).bytes.isEmpty else {
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
