import Foundation

/// Runs a client machine against a server machine in memory: what one side sends is delivered to
/// the other, split or joined as `delivery` says, with `idle()` standing in for a quiet line. No
/// sockets and no clocks, so every split TCP could produce can be replayed deterministically.
public enum Conversation {
    public enum Delivery: Sendable, Equatable, CustomStringConvertible {
        /// Each send arrives as one chunk (the tutorials' assumption).
        case whole
        /// Everything pending arrives joined into one chunk (TCP coalescing).
        case joined
        /// The byte stream arrives in chunks of this many bytes (TCP splitting).
        case chunks(Int)

        public var description: String {
            switch self {
            case .whole: return "whole"
            case .joined: return "joined"
            case let .chunks(size): return "\(size)-byte-chunks"
            }
        }
    }

    public struct Transcript: Sendable {
        public var clientEvents: [SessionEvent] = []
        public var serverEvents: [SessionEvent] = []
        /// Everything each side put on the wire, in order.
        public var clientSent = Data()
        public var serverSent = Data()
        public var clientClosed = false
        public var serverClosed = false
        /// True when the step budget ran out (a machine that never finishes).
        public var exhausted = false
    }

    public static func run(client: SessionMachine, server: SessionMachine, delivery: Delivery = .whole,
                           maxSteps: Int = 100_000) -> Transcript {
        var transcript = Transcript()
        var toServer: [Data] = [], toClient: [Data] = []

        func apply(_ actions: [SessionAction], fromClient: Bool) {
            for action in actions {
                switch action {
                case let .send(bytes):
                    if fromClient { toServer.append(bytes); transcript.clientSent += bytes } else { toClient.append(bytes); transcript.serverSent += bytes }
                case .close:
                    if fromClient { transcript.clientClosed = true } else { transcript.serverClosed = true }
                case let .event(event):
                    if fromClient { transcript.clientEvents.append(event) } else { transcript.serverEvents.append(event) }
                }
            }
        }

        func nextChunk(_ queue: inout [Data]) -> Data {
            switch delivery {
            case .whole: return queue.removeFirst()
            case .joined:
                defer { queue.removeAll() }
                return queue.reduce(Data(), +)
            case let .chunks(size):
                var stream = queue.reduce(Data(), +)
                let piece = Data(stream.prefix(max(1, size)))
                stream = Data(stream.dropFirst(piece.count))
                queue = stream.isEmpty ? [] : [stream]
                return piece
            }
        }

        apply(client.start(), fromClient: true)
        apply(server.start(), fromClient: false)
        var steps = 0
        var quiet = false
        while steps < maxSteps {
            steps += 1
            // Bytes bound for a side that has closed are lost, as on a closed socket.
            if transcript.serverClosed { toServer.removeAll() }
            if transcript.clientClosed { toClient.removeAll() }
            if !toServer.isEmpty {
                apply(server.receive(nextChunk(&toServer)), fromClient: false)
                quiet = false
            } else if !toClient.isEmpty {
                apply(client.receive(nextChunk(&toClient)), fromClient: true)
                quiet = false
            } else if transcript.clientClosed && transcript.serverClosed {
                return transcript
            } else if !quiet {
                // The line is quiet: each side may now decide an incomplete message is all it gets.
                quiet = true
                apply(server.idle(), fromClient: false)
                apply(client.idle(), fromClient: true)
            } else {
                return transcript
            }
        }
        transcript.exhausted = true
        return transcript
    }
}
