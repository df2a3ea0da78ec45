import Foundation

/// A `tcp` described party as a `SessionMachine` over bytes: its messages framed by
/// `DescribedFraming`, the peer's bytes (in any split) read back into messages, so the drivers of
/// the built-in machines (sockets, `Conversation.run`) run described parties too. A server that
/// refuses sends the conversation's `error` and closes (with `error_then = "keep-open"` and a
/// `restart`, it reads on with a fresh party); a client that refuses closes.
public final class DescribedSession: SessionMachine {
    public private(set) var party: DescribedParty
    private let restart: (() throws -> DescribedParty)?
    private let framing: DescribedFraming
    private var decoder: DescribedFraming.Decoder
    public private(set) var closed = false

    /// `restart`: a server's fresh party for the next message after a refusal it keeps the connection for.
    public init(party: DescribedParty, restart: (() throws -> DescribedParty)? = nil) {
        self.party = party
        self.restart = restart
        framing = DescribedFraming(transport: party.description.transport)
        decoder = framing.decoder()
    }

    public func start() -> [SessionAction] { sendTurn() }

    public func receive(_ data: Data) -> [SessionAction] {
        guard !closed else { return [] }
        decoder.append(data)
        return pump(atQuietGap: false)
    }

    public func idle() -> [SessionAction] {
        guard !closed, decoder.pending > 0 else { return [] }
        return pump(atQuietGap: true)
    }

    private func pump(atQuietGap: Bool) -> [SessionAction] {
        var actions: [SessionAction] = []
        while !closed {
            let message: Data?
            do {
                message = try decoder.next(expectedLength: party.expectedLength) ?? (atQuietGap ? decoder.quietGap() : nil)
            } catch let refusal as DescribedRefusal {
                return actions + refuse(refusal)
            } catch {
                return actions + refuse(DescribedRefusal(reason: "\(error)"))
            }
            guard let message else { break }
            do { try party.receive(.bytes(message)) } catch let refusal as DescribedRefusal {
                return actions + refuse(refusal)
            } catch {
                return actions + refuse(DescribedRefusal(reason: "\(error)"))
            }
            if !reported, let plaintext = party.received["message"] {
                reported = true
                actions.append(.event(.decrypted(plaintext)))
            }
            actions += sendTurn()
        }
        return actions
    }

    /// The `received["message"]` has been reported as `decrypted` once.
    private var reported = false

    /// Every message it is this party's turn to send; then a close if the conversation is over.
    private func sendTurn() -> [SessionAction] {
        var actions: [SessionAction] = []
        do {
            while let message = try party.nextMessage() {
                guard case let .bytes(bytes) = message else { break }
                actions.append(.send(try framing.encode(bytes)))
            }
        } catch let refusal as DescribedRefusal {
            return actions + refuse(refusal)
        } catch {
            closed = true
            return actions + [.event(party.role == .server ? .error("\(error)") : .failed("\(error)")), .close]
        }
        if party.isDone {
            closed = true
            actions.append(.close)
        }
        return actions
    }

    private func refuse(_ refusal: DescribedRefusal) -> [SessionAction] {
        guard party.role == .server else { closed = true; return [.event(.failed(refusal.reason)), .close] }
        var actions: [SessionAction] = [.event(.error(refusal.reason))]
        if case let .bytes(bytes)? = party.refusalMessage(), let framed = try? framing.encode(bytes) { actions.append(.send(framed)) }
        // error_then = "keep-open": the server reads on, the next message a conversation's first again.
        if (party.conversation ?? party.description.conversations[0]).errorThen == .keepOpen, let restart, let fresh = try? restart() {
            party = fresh
            decoder = framing.decoder()
            reported = false
            return actions
        }
        closed = true
        return actions + [.close]
    }
}
