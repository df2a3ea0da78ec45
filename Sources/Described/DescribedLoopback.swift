import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// The described suite over loopback TCP: PythonRef's engine as its own process
/// (`python3 -m pythonref described-server` / `described-client`) against the Swift engine on a
/// real socket, both ways — framing, split and joined segments and quiet gaps as a Pi sees them.
/// tcp descriptions only (an https pairing needs the pinned certificate both ends; in-process
/// pairings cover the http engines).
enum DescribedLoopback {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Preshared secrets as the PythonRef command line takes them.
    static func secretArguments(_ cast: Cast) -> [String] {
        cast.description.secrets.values.filter { $0.madeBy == .preshared }.sorted { $0.name < $1.name }.flatMap { secret -> [String] in
            guard let bytes = cast.secrets[secret.name] else { return [] }
            return ["--secret", "\(secret.name)=\(bytes.hexString)"]
        }
    }

    /// Why a pairing cannot run over loopback, if it cannot: PythonRef's command line takes no
    /// preshared keys, and two messages of one side in a row, the first of no known length, run
    /// together on a socket unless the sender pauses (which the engines' socket drivers do not).
    static func cannotRun(_ cast: Cast) -> String? {
        if cast.description.transport.framing == .close, cast.description.transport.kind == .tcp {
            return "framing close: the engines' socket drivers end a message at a quiet gap or its framing, not at a half-close (the in-process pairings and `remote`, which half-closes, cover it)"
        }
        if cast.description.keys.values.contains(where: \.preshared) {
            return "a preshared key: PythonRef's described-server and described-client take none on the command line"
        }
        if let conversation = cast.description.conversation(named: cast.conversation), !cast.description.pauseAfter(in: conversation).isEmpty {
            return "legacy framing with two messages of one side in a row, the first of no known length: only a pause separates them (the in-process pairings and `remote`, which pauses, cover it)"
        }
        return nil
    }

    /// A Swift client to a PythonRef described-server process.
    static func swiftClientToPythonServer(_ cast: Cast, python: String, pythonRef: URL, timeout: TimeInterval) throws -> CheckOutcome {
        if let reason = cannotRun(cast) { return .skipped(reason: reason) }
        let server = try PythonRefProcess(python: python, pythonRef: pythonRef, arguments: [
            "described-server", "--protocol", cast.path, "--host", "127.0.0.1", "--port", "0", "--quiet", "--timeout", String(timeout),
        ] + secretArguments(cast))
        defer { server.stop() }
        let port: UInt16
        do { port = try server.announcedPort(prefix: "LISTENING ", within: 30) } catch { throw Failure(description: "\(error)") }
        let party = try cast.swiftParty(.client)
        let connection = try TCPConnection.connect(host: "127.0.0.1", port: port, timeout: timeout)
        defer { connection.close() }
        let transcript = SocketDriver.drive(DescribedSession(party: party), over: connection, quietGap: 0.3, timeout: timeout, deadline: timeout * 3)
        if let refusal = party.refusal { return .failed(message: "the Swift client refused the Python server's message: \(refusal.reason)", details: Cast.hex(transcript.received)) }
        guard party.isDone else {
            return .failed(message: "the conversation did not complete over loopback\(transcript.transportError.map { ": \($0)" } ?? "")", details: Cast.hex(transcript.received))
        }
        return .passed
    }

    /// A PythonRef described-client process to the Swift engine's server on a loopback port.
    static func pythonClientToSwiftServer(_ cast: Cast, python: String, pythonRef: URL, timeout: TimeInterval) throws -> CheckOutcome {
        if let reason = cannotRun(cast) { return .skipped(reason: reason) }
        let server = try SessionMachineServer(timeout: timeout, quietGap: 0.3) {
            DescribedSession(party: try cast.swiftParty(.server), restart: { try cast.swiftParty(.server) })
        }
        defer { server.stop() }
        let client = try PythonRefProcess(python: python, pythonRef: pythonRef, arguments: [
            "described-client", "--protocol", cast.path, "--host", "127.0.0.1", "--port", String(server.port),
            "--conversation", cast.conversation, "--timeout", String(timeout),
        ] + secretArguments(cast))
        defer { client.stop() }
        guard client.waitForExit(within: timeout * 4) else {
            return .failed(message: "the Python client did not end its conversation with the Swift server within \(Int(timeout * 4)) s", details: client.lastLines())
        }
        guard client.process.terminationStatus == 0 else {
            return .failed(message: "the Python client did not complete the conversation with the Swift server (exit \(client.process.terminationStatus))",
                           details: client.lastLines())
        }
        return .passed
    }
}

extension ProtocolDescription {
    /// Whether a message of this value has a length its receiver knows before it arrives (legacy
    /// framing reads those exactly; any other ends at a quiet gap).
    static func hasKnownLength(_ value: DescribedValue) -> Bool {
        switch value.kind {
        case .text, .rsa, .digest: return true
        case let .concat(parts): return parts.allSatisfy(hasKnownLength)
        default: return false
        }
    }

    /// Legacy framing: the positions (in the conversation's steps) of messages the same side follows
    /// with another at once, and whose length the receiver cannot know — only a pause tells them apart.
    func pauseAfter(in conversation: Conversation) -> Set<Int> {
        guard transport.kind == .tcp, transport.framing == .legacy else { return [] }
        var found = Set<Int>()
        for (position, step) in conversation.steps.enumerated().dropLast() where conversation.steps[position + 1].from == step.from {
            if let value = step.send, !Self.hasKnownLength(value) { found.insert(position) }
        }
        return found
    }
}

extension Cast {
    /// The Swift engine's party for `role`, with the cast's keys and secrets (a server chooses its conversation).
    func swiftParty(_ role: ProtocolDescription.Role) throws -> DescribedParty {
        guard let party = try party("swift", role, conversationKnown: role == .client) as? SwiftParty else {
            throw DescribedLoopback.Failure(description: "no Swift party")
        }
        return party.party
    }
}
