import Foundation
import WireProtocol

/// One side of one described conversation, from either engine: asked for its next message or given
/// the peer's. The Swift engine's `DescribedParty` and PythonRef's (`PythonParty`) both are one.
public protocol ConversationParty: AnyObject {
    /// "swift" or "python": names the pairing in reports.
    var engine: String { get }
    /// The next message this side sends, or nil when it is not its turn (or the conversation is over).
    func nextMessage() throws -> DescribedMessage?
    /// The peer's message; throws `DescribedRefusal` when this side refuses it.
    func receive(_ message: DescribedMessage) throws
    /// Every step is done.
    var isDone: Bool { get }
    /// What this side learned (e.g. "message": the plaintext it decrypted).
    var received: [String: Data] { get throws }
    /// What this side sends when it refuses (the conversation's `error`), if anything.
    func refusalMessage() throws -> DescribedMessage?
}

/// How one in-process conversation between two parties ended.
public struct ConversationOutcome: Sendable {
    /// Every message, in order: who sent it and what it was.
    public var transcript: [(from: ProtocolDescription.Role, message: DescribedMessage)] = []
    /// The side that refused, and why (nil: nobody refused).
    public var refusal: (by: ProtocolDescription.Role, reason: String)?
    /// Both sides finished every step.
    public var completed = false
}

enum Conversing {
    /// Lets `client` and `server` talk until both are done, one refuses, or neither has anything to
    /// say (a description that stalls): at most `maxMessages` messages, so nothing loops for ever.
    static func run(client: ConversationParty, server: ConversationParty, maxMessages: Int = 64) throws -> ConversationOutcome {
        var outcome = ConversationOutcome()
        var turn = ProtocolDescription.Role.client
        var idleTurns = 0
        while outcome.transcript.count < maxMessages {
            if client.isDone && server.isDone { outcome.completed = true; return outcome }
            let (speaker, listener) = turn == .client ? (client, server) : (server, client)
            if let message = try speaker.nextMessage() {
                idleTurns = 0
                outcome.transcript.append((turn, message))
                do { try listener.receive(message) } catch let refusal as DescribedRefusal {
                    outcome.refusal = (turn == .client ? .server : .client, "\(refusal)")
                    if let answer = try? listener.refusalMessage() { outcome.transcript.append((turn == .client ? .server : .client, answer)) }
                    return outcome
                }
            } else {
                idleTurns += 1
                if idleTurns >= 2 { return outcome }  // neither side has a message: stalled
                turn = turn == .client ? .server : .client
            }
        }
        return outcome
    }
}

extension DescribedMessage {
    /// One line for a report: the bytes (shown as text when they are), or the HTTP message's head and body.
    var summary: String {
        func shown(_ data: Data) -> String {
            if let raw = String(validating: [UInt8](data), as: UTF8.self), !raw.contains(where: { $0.isASCII && $0.asciiValue! < 0x20 && $0 != "\n" && $0 != "\r\n" }) {
                // Line ends written out, so an HTML error page or "Server stopped\n" stays one line.
                let text = raw.replacingOccurrences(of: "\r\n", with: "\\r\\n").replacingOccurrences(of: "\n", with: "\\n")
                return text.count > 200 ? "\"\(text.prefix(200))…\" (\(data.count) bytes)" : "\"\(text)\""
            }
            return Cast.hex(data)
        }
        switch self {
        case let .bytes(data): return shown(data)
        case let .request(method, path, _, body): return "\(method) \(path) \(shown(body))"
        case let .response(status, _, body): return "\(status) \(shown(body))"
        }
    }
}
