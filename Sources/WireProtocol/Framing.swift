import Foundation

/// How messages are delimited on the socket.
public enum Framing: String, Sendable, CaseIterable {
    /// The tutorials: one `send()` per message and nothing between them; receivers infer the end.
    case legacy
    /// Each message is a 4-byte big-endian length, then that many bytes.
    case framed

    public static let defaultMaxMessage = 65536

    /// The bytes to send for `payload`.
    public func encode(_ payload: Data) -> Data {
        switch self {
        case .legacy: return payload
        case .framed:
            var length = UInt32(payload.count).bigEndian
            return Data(bytes: &length, count: 4) + payload
        }
    }
}

/// Why a received stream is not a valid message.
public enum FrameError: Error, Equatable, Sendable, CustomStringConvertible {
    case zeroLength
    case tooLong(length: Int, limit: Int)
    case unexpected(String)

    public var description: String {
        switch self {
        case .zeroLength: return "a frame of length 0"
        case let .tooLong(length, limit): return "a message of \(length) bytes, over the limit of \(limit)"
        case let .unexpected(what): return what
        }
    }
}

/// Splits a `framed` byte stream into payloads.
struct FrameReader {
    let maxMessage: Int

    /// The next complete payload, removing it from `buffer`; nil when more bytes are needed.
    func next(from buffer: inout Data) throws -> Data? {
        guard buffer.count >= 4 else { return nil }
        let bytes = [UInt8](buffer.prefix(4))
        let length = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        if length == 0 { throw FrameError.zeroLength }
        if length > maxMessage { throw FrameError.tooLong(length: length, limit: maxMessage) }
        guard buffer.count >= 4 + length else { return nil }
        let payload = Data(buffer.dropFirst(4).prefix(length))
        buffer = Data(buffer.dropFirst(4 + length))
        return payload
    }
}
