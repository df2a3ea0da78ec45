import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// How a server's answer to a probe ended.
enum AnswerEnd: Equatable {
    /// The server closed the connection (in an orderly way or with a reset).
    case closed
    /// A message the probe recognises as whole arrived; the connection may still be open.
    case complete
    /// Some bytes, then nothing for the quiet gap; the connection is still open.
    case quiet
    /// Nothing at all by the deadline, and no close: the server is still waiting for something.
    case silent
}

/// What a server said after a probe, and how it ended.
struct ProbeAnswer {
    var bytes = Data()
    var end = AnswerEnd.silent
    /// Seconds from the start of the read to the first byte or the close (nil: neither came).
    var latency: TimeInterval?
}

/// What a server did once its answer was over: the protocol wants a close after `Server: ERROR`
/// and after `Server stopped`, and "reads nothing more".
enum Afterwards: Equatable {
    case closed
    /// It kept the connection and answered our next message with these bytes.
    case readOn(Data)
    /// Still open, and silent, at our deadline.
    case open
}

/// One rsa-socket connection driven by hand for probes that send what a real client never would,
/// while still following the conversation as a client does: `Client: OK`, then *wait* for the
/// whole `public_key=` message, then the probe; a half-close where the point is "no more bytes
/// are coming". Nothing here depends on how TCP splits or joins segments.
final class ProbeConnection {
    private let connection: TCPConnection
    let framing: Framing
    let timeout: TimeInterval
    let quietGap: TimeInterval
    /// Received but not yet part of an answer (e.g. the line end after the server's key).
    private var unread = Data()
    /// The server closed (or reset) the connection.
    private(set) var peerClosed = false

    init(_ run: RemoteRun) throws {
        connection = try run.connect()
        framing = run.options.framing
        timeout = run.options.timeout
        quietGap = run.options.quietGap
    }

    deinit { connection.close() }

    func close() { connection.close() }

    /// Writes `payload`, framed as the run's framing says unless `raw`. A server that has gone is
    /// not an error here (what it did is read next): returns false, and the connection counts as
    /// closed by the peer when it reset.
    @discardableResult
    func send(_ payload: Data, raw: Bool = false) -> Bool {
        do {
            try connection.write(raw ? payload : framing.encode(payload), timeout: timeout)
            return true
        } catch TransportError.connectionReset {
            peerClosed = true
            return false
        } catch {
            return false
        }
    }

    /// Half-closes: the server reads the end of the stream, so "more bytes may come" is over.
    func halfClose() { connection.shutdownWrite() }

    /// Sends `Client: OK` and waits, as a client does, for the whole `public_key=` message.
    /// - Throws: `CheckFailure` saying what came instead (a close, other bytes, silence), or a
    ///   `TransportError` from the connection.
    func requestServerKey() throws -> RSAPublicKey {
        guard send(Data(RSASocket.hello.utf8)) else {
            throw CheckFailure("the connection closed before `Client: OK` could be sent")
        }
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = Data()
        while true {
            switch try Self.serverKeyMessage(in: buffer, framing: framing) {
            case let .complete(pem, consumed):
                unread = Data(buffer.dropFirst(consumed))
                do { return try RSAPublicKey(importing: pem) } catch {
                    throw CheckFailure("the server's `public_key=` does not import as an RSA public key: \(error)", details: Expect.preview(pem))
                }
            case .needMore: break
            }
            let left = deadline.timeIntervalSinceNow
            func silent() -> CheckFailure {
                CheckFailure(buffer.isEmpty ? "no `public_key=` within \(seconds(timeout)): the server was still silent at our deadline"
                                            : "no whole `public_key=` message within \(seconds(timeout)): the server stopped after \(describe(buffer))")
            }
            guard left > 0 else { throw silent() }
            let data: Data
            do { data = try connection.read(upTo: 65536, timeout: left) } catch TransportError.timedOut { continue } catch TransportError.peerAwaitsInput {
                throw silent()  // in-process: it waits for input, so it stays silent to the deadline
            } catch TransportError.connectionReset {
                data = Data()
            }
            if data.isEmpty {
                peerClosed = true
                throw CheckFailure(buffer.isEmpty ? "the server closed the connection instead of sending its key"
                                                  : "the server closed the connection after \(describe(buffer)), before its whole key")
            }
            buffer += data
        }
    }

    enum KeyScan: Equatable { case complete(pem: Data, consumed: Int), needMore }

    /// The `public_key=` message at the start of `buffer` (docs/PROTOCOL.md, "Legacy reading":
    /// complete at the PEM's END line, a following line end is part of it; framed: one frame).
    static func serverKeyMessage(in buffer: Data, framing: Framing) throws -> KeyScan {
        let prefix = Data(RSASocket.keyPrefix.utf8)
        switch framing {
        case .framed:
            guard buffer.count >= 4 else { return .needMore }
            let length = buffer.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            guard length > 0, length <= Framing.defaultMaxMessage else {
                throw CheckFailure("the server answered `Client: OK` with a frame of length \(length)", details: Expect.preview(buffer))
            }
            guard buffer.count >= 4 + length else { return .needMore }
            let payload = Data(buffer.dropFirst(4).prefix(length))
            guard payload.starts(with: prefix) else {
                throw CheckFailure("the server answered `Client: OK` with \(describeMessage(payload)), not `public_key=`")
            }
            return .complete(pem: Data(payload.dropFirst(prefix.count)), consumed: 4 + length)
        case .legacy:
            let skipped = buffer.prefix { $0 == 0x0d || $0 == 0x0a }.count
            let text = Data(buffer.dropFirst(skipped))
            guard text.starts(with: prefix) else {
                if prefix.starts(with: text) { return .needMore }
                throw CheckFailure("the server answered `Client: OK` with \(describeMessage(text)), not `public_key=`")
            }
            let body = text.dropFirst(prefix.count)
            guard let end = body.firstRange(of: Data("-----END ".utf8)),
                  let close = body[end.upperBound...].firstRange(of: Data("-----".utf8)) else { return .needMore }
            var consumed = skipped + (close.upperBound - text.startIndex)
            let rest = buffer.dropFirst(consumed)
            if rest.starts(with: Data("\r\n".utf8)) { consumed += 2 } else if rest.first == 0x0a { consumed += 1 }
            return .complete(pem: Data(body[body.startIndex..<close.upperBound]), consumed: consumed)
        }
    }

    /// Everything the server says next, until it closes, a whole message arrives (`isWhole`), or
    /// it goes quiet for the quiet gap after some bytes. `listen` seconds (default: the timeout)
    /// with nothing at all is `.silent`. At most 1 MiB is kept: a flood is cut, never read whole.
    func readAnswer(listen: TimeInterval? = nil, isWhole: (Data) -> Bool = { _ in false }) -> ProbeAnswer {
        let start = DispatchTime.now().uptimeNanoseconds
        func elapsed() -> TimeInterval { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        var answer = ProbeAnswer()
        answer.bytes = unread
        unread = Data()
        if !answer.bytes.isEmpty { answer.latency = 0 }
        let window = listen ?? timeout
        while true {
            if !answer.bytes.isEmpty, isWhole(answer.bytes) { answer.end = .complete; return answer }
            let wait = answer.bytes.isEmpty ? window - elapsed() : quietGap
            guard wait > 0 else { answer.end = .silent; return answer }
            do {
                let data = try connection.read(upTo: 65536, timeout: wait)
                if answer.latency == nil { answer.latency = elapsed() }
                if data.isEmpty { peerClosed = true; answer.end = .closed; return answer }
                answer.bytes += data
                if answer.bytes.count > 1 << 20 { answer.end = .quiet; return answer }
            } catch TransportError.timedOut, TransportError.peerAwaitsInput {
                answer.end = answer.bytes.isEmpty ? .silent : .quiet
                return answer
            } catch {
                // A reset (or the connection failing in another way) ends the answer like a close.
                if answer.latency == nil { answer.latency = elapsed() }
                peerClosed = true
                answer.end = .closed
                return answer
            }
        }
    }

    /// After an answer that did not end in a close: sends `payload` and sees whether the server
    /// closed, kept reading (and answered: until `isWhole`, a close or a quiet gap), or stays
    /// open and silent.
    func afterwards(sending payload: Data, isWhole: (Data) -> Bool) -> Afterwards {
        if peerClosed { return .closed }
        guard send(payload) else { return .closed }
        let answer = readAnswer(isWhole: isWhole)
        if !answer.bytes.isEmpty { return .readOn(answer.bytes) }
        return answer.end == .closed ? .closed : .open
    }

    /// The messages in `bytes`: legacy bytes without the line ends a previous message may leave;
    /// framed, the payloads of whole frames (bytes that are not whole frames stay one raw piece).
    func messages(_ bytes: Data) -> [Data] {
        switch framing {
        case .legacy:
            let text = Data(bytes.drop { $0 == 0x0d || $0 == 0x0a })
            return text.isEmpty ? [] : [text]
        case .framed:
            let (payloads, rest) = Self.splitFrames(bytes)
            return rest.isEmpty ? payloads : payloads + [rest]
        }
    }

    /// The payloads of the whole frames at the start of `bytes`, and what follows them.
    static func splitFrames(_ bytes: Data) -> (payloads: [Data], rest: Data) {
        var rest = bytes[...]
        var payloads: [Data] = []
        while rest.count >= 4 {
            let length = rest.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            guard length <= rest.count - 4 else { break }
            payloads.append(Data(rest.dropFirst(4).prefix(length)))
            rest = rest.dropFirst(4 + length)
        }
        return (payloads, Data(rest))
    }

    /// After `Server: ERROR`: does the server still read? A further `Client: OK` would get its key.
    func afterwardsHello() -> Afterwards {
        afterwards(sending: Data(RSASocket.hello.utf8), isWhole: { [framing] bytes in
            if case .complete? = try? Self.serverKeyMessage(in: bytes, framing: framing) { return true }
            return false
        })
    }

    /// After `Server: OK`: `Quit` should get `Server stopped\n`.
    func afterwardsQuit() -> Afterwards {
        afterwards(sending: Data(RSASocket.quit.utf8), isWhole: { [unowned self] bytes in
            if framing == .framed { return hasWholeFrames(bytes) }
            return messages(bytes) == [Data((RSASocket.stopped + "\n").utf8)]
        })
    }

    /// The payloads when `bytes` are whole frames and nothing else; nil otherwise (or in legacy framing).
    func wholeFrames(_ bytes: Data) -> [Data]? {
        guard framing == .framed else { return nil }
        let (payloads, rest) = Self.splitFrames(bytes)
        return rest.isEmpty ? payloads : nil
    }

    /// Framed: at least one frame arrived, and nothing but whole frames.
    func hasWholeFrames(_ bytes: Data) -> Bool { !(wholeFrames(bytes)?.isEmpty ?? true) }

    /// The answer as one line for reports: each message quoted when printable, else in hex.
    func describe(_ bytes: Data) -> String {
        let pieces = messages(bytes)
        return pieces.isEmpty ? "nothing" : pieces.map(Self.describeMessage).joined(separator: " + ")
    }

    static func describeMessage(_ data: Data) -> String {
        let shown = data.prefix(48)
        guard shown.allSatisfy({ (0x20...0x7e).contains($0) || $0 == 0x0a }) else {
            return "bytes " + shown.hexString + (data.count > 48 ? "… (\(data.count) bytes)" : "")
        }
        // ASCII byte by byte, a newline as \n: Foundation's replacingOccurrences cost about 10,000
        // instructions a call, and the CBC oracle audit describes every answer.
        var text = "\""
        for byte in shown {
            if byte == 0x0a { text += "\\n" } else { text.unicodeScalars.append(UnicodeScalar(byte)) }
        }
        return text + "\"" + (data.count > 48 ? "… (\(data.count) bytes)" : "")
    }
}

/// `3 s`, `0.3 s`.
func seconds(_ value: TimeInterval) -> String {
    value == value.rounded() ? "\(Int(value)) s" : String(format: "%.3g s", value)
}
