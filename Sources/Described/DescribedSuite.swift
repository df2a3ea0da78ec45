import Foundation
import Conformance
import PythonBridge
import WireCrypto
import WireProtocol

/// `crosscheck run --protocol FILE`: the two engines speak the description to each other, in this
/// process, every client × server pairing, every conversation; then both engines, as receivers,
/// are given the same mutated messages and must decide the same (docs/PROTOCOL-DESCRIPTIONS.md).
public enum DescribedSuite {
    public static let summary = "a described protocol (--protocol FILE): the Swift and Python engines as client and server of every conversation, and the same mutated messages to both"

    public struct Settings: Sendable {
        public var mutationsPerStep: Int
        public var seed: UInt64
        public var config: [String: String]
        /// Loopback pairings (tcp descriptions): PythonRef's engine as its own process, run by this
        /// interpreter from this PythonRef folder; nil: in process only.
        public var loopback: (python: String, pythonRef: URL)?
        public var timeout: TimeInterval = 10
        public init(mutationsPerStep: Int = 24, seed: UInt64 = 1, config: [String: String] = ["username": "user", "password": "password"],
                    loopback: (python: String, pythonRef: URL)? = nil) {
            self.mutationsPerStep = mutationsPerStep; self.seed = seed; self.config = config; self.loopback = loopback
        }
    }

    /// The suite's checks. `path` is the description file, read by both engines.
    public static func checks(description: ProtocolDescription, path: String, interpreter: PythonInterpreter,
                              settings: Settings = Settings()) -> [Check] {
        let suite = "described.\(description.name)"
        var checks: [Check] = []
        let engines = ["swift", "python"]
        for conversation in description.conversations {
            for client in engines {
                for server in engines {
                    checks.append(Check(suite: suite, classname: "crosscheck.described.\(description.name).\(client)_to_\(server)",
                                        name: "\(conversation.name).conversation",
                                        properties: ["protocol": path, "conversation": conversation.name]) {
                        let cast = try Cast(description: description, path: path, conversation: conversation.name, interpreter: interpreter,
                                            config: settings.config, seed: settings.seed)
                        return try cast.converse(client: client, server: server)
                    })
                }
            }
            if let loopback = settings.loopback, description.transport.kind == .tcp {
                let pairings: [(String, String, @Sendable (Cast) throws -> CheckOutcome)] = [
                    ("swift", "python", { try DescribedLoopback.swiftClientToPythonServer($0, python: loopback.python, pythonRef: loopback.pythonRef, timeout: settings.timeout) }),
                    ("python", "swift", { try DescribedLoopback.pythonClientToSwiftServer($0, python: loopback.python, pythonRef: loopback.pythonRef, timeout: settings.timeout) }),
                ]
                for (client, server, run) in pairings {
                    checks.append(Check(suite: suite, classname: "crosscheck.described.\(description.name).\(client)_to_\(server)",
                                        name: "\(conversation.name).loopback", properties: ["protocol": path, "conversation": conversation.name]) {
                        // Each process makes the keys it holds; only preshared values come from the cast.
                        try run(try Cast(description: description, path: path, conversation: conversation.name, interpreter: interpreter,
                                         config: settings.config, seed: settings.seed))
                    })
                }
            }
            for receiver in [ProtocolDescription.Role.server, ProtocolDescription.Role.client] {
                checks.append(Check(suite: suite, classname: "crosscheck.described.\(description.name).swift_vs_python",
                                    name: "\(conversation.name).mutated-to-\(receiver.rawValue)",
                                    properties: ["protocol": path, "conversation": conversation.name]) {
                    let cast = try Cast(description: description, path: path, conversation: conversation.name, interpreter: interpreter,
                                        config: settings.config, seed: settings.seed)
                    return try cast.mutationsAgree(receiver: receiver, perStep: settings.mutationsPerStep)
                })
            }
        }
        return checks
    }
}

/// The keys, secrets and message of one conversation, made once and given to whichever engines
/// play it, so that a Swift and a Python party in the same seat are interchangeable.
struct Cast {
    let description: ProtocolDescription
    let path: String
    let conversation: String
    let interpreter: PythonInterpreter
    let config: [String: String]
    let privateKeys: [String: RSAPrivateKey]
    let curvePrivateKeys: [String: CurvePrivateKey]
    /// The same keys (RSA and EC) as PEM text for PythonRef, exported once.
    let privatePEMs: [String: String]
    let publicPEMs: [String: String]
    let secrets: [String: Data]
    let message: Data
    var generator: SeededGenerator

    init(description: ProtocolDescription, path: String, conversation: String, interpreter: PythonInterpreter,
         config: [String: String], seed: UInt64) throws {
        self.description = description; self.path = path; self.conversation = conversation
        self.interpreter = interpreter
        // One token for every server of the cast: a replayed server then takes the client's later requests.
        var tokens = SeededGenerator.forCheck("token.\(conversation)", seed: seed)
        self.config = config.merging(["token": "crosscheck-\(tokens.bytes(8).hexString)"]) { given, _ in given }
        generator = SeededGenerator.forCheck("described.\(conversation)", seed: seed)
        var keys: [String: RSAPrivateKey] = [:]
        var curveKeys: [String: CurvePrivateKey] = [:]
        for (name, key) in description.keys {
            if key.type.isCurve { curveKeys[name] = try CurvePrivateKey(fresh: key.type) } else { keys[name] = try key.freshRSAKey() }
        }
        privateKeys = keys
        curvePrivateKeys = curveKeys
        privatePEMs = try keys.mapValues { String(decoding: try $0.exported(.pkcs8PEM), as: UTF8.self) }
            .merging(try curveKeys.mapValues { try $0.pemRepresentation }) { rsa, _ in rsa }
        publicPEMs = try keys.mapValues { String(decoding: try $0.publicKey.exported(.spkiPEM), as: UTF8.self) }
            .merging(try curveKeys.mapValues { try $0.publicKey.pemRepresentation }) { rsa, _ in rsa }
        var made: [String: Data] = [:]
        for (name, secret) in description.secrets { made[name] = DescribedParty.freshSecret(secret, in: description) }
        secrets = made
        message = description.conversation(named: conversation)?.message ?? Data("crosscheck \(UUID().uuidString)".utf8)
    }

    /// A party for `role` of the named engine, holding the private keys its side holds, knowing the
    /// public keys that are preshared and every secret (a secret one side makes is overwritten by
    /// what it makes; the other side learns it on the wire).
    func party(_ engine: String, _ role: ProtocolDescription.Role, conversationKnown: Bool = true, sameCurveKeys: Bool = false) throws -> ConversationParty {
        // An EC or X25519 key that is not preshared is made fresh by each party, as a server makes an
        // ephemeral agreement key per conversation (RSA keys are made once: they take long to make);
        // `sameCurveKeys`: the cast's, so that a conversation replayed to another party (the mutation
        // checks) meets the keys it was made for, later messages sealed under an agreed secret too.
        let holds = { (name: String) in
            self.description.keys[name].map { $0.holder == role && ($0.type == .rsa || $0.preshared || sameCurveKeys) } ?? false
        }
        let knows = { (name: String) in self.description.keys[name]?.holder != role && self.description.keys[name]?.preshared == true }
        let held = privateKeys.filter { holds($0.key) }
        let known = privateKeys.filter { knows($0.key) }.mapValues(\.publicKey)
        let secretsKnown = secrets.filter { description.secrets[$0.key]?.madeBy == .preshared || description.secrets[$0.key]?.madeBy.rawValue == role.rawValue }
        let name = conversationKnown || role == .client ? conversation : nil
        // Only the side that sends the message is given it: a receiver that knew it could judge what it decrypted by it.
        let message = description.sender(ofMessageIn: conversation) == role ? self.message : nil
        if engine == "swift" {
            return try SwiftParty(DescribedParty(description: description, conversation: name, role: role, privateKeys: held,
                                                 knownPublicKeys: known, curvePrivateKeys: curvePrivateKeys.filter { holds($0.key) },
                                                 knownCurvePublicKeys: try curvePrivateKeys.filter { knows($0.key) }.mapValues { try $0.publicKey },
                                                 secrets: secretsKnown, message: message, config: config))
        }
        return try PythonParty(interpreter: interpreter, path: path, conversation: name, role: role,
                               privateKeyPEMs: privatePEMs.filter { holds($0.key) }, publicKeyPEMs: publicPEMs.filter { knows($0.key) },
                               secrets: secretsKnown, message: message, config: config)
    }

    /// One conversation between the two engines named: it completes, and the side that decrypted
    /// the message got the message that was sent.
    func converse(client clientEngine: String, server serverEngine: String) throws -> CheckOutcome {
        let client = try party(clientEngine, .client)
        let server = try party(serverEngine, .server, conversationKnown: false)
        let outcome = try Conversing.run(client: client, server: server)
        let shown = Self.show(outcome.transcript)
        if let refusal = outcome.refusal {
            return .failed(message: "the \(refusal.by == .client ? clientEngine : serverEngine) \(refusal.by.rawValue) refused a message of the \(refusal.by == .client ? serverEngine : clientEngine) \(refusal.by == .client ? "server" : "client"): \(refusal.reason)",
                           details: shown)
        }
        guard outcome.completed else {
            return .failed(message: "the conversation stalled after \(outcome.transcript.count) messages: neither side had anything to send", details: shown)
        }
        // A reading its sender draws (json-fields, any-text) is not the cast's message: the
        // receiver's own checks (the fields and their types, UTF-8) are all there is to judge it by.
        let drawnBySender = description.conversation(named: conversation)?.steps.flatMap(\.values).contains { $0.carries?.isDrawnBySender ?? false } ?? false
        for (side, party) in [("client", client), ("server", server)] where !drawnBySender {
            if let got = try party.received["message"], got != message {
                return .failed(message: "the \(party.engine) \(side) decrypted another message than was sent",
                               details: "sent     \(Self.hex(message))\nreceived \(Self.hex(got))\n\n\(shown)")
            }
        }
        return .passed
    }

    /// The same mutated messages to a Swift and a Python receiver in the same state: both refuse,
    /// or both accept and learn the same. The sender is the Swift engine; keys and secrets are the
    /// cast's, so either receiver can read what it sends.
    func mutationsAgree(receiver: ProtocolDescription.Role, perStep: Int) throws -> CheckOutcome {
        var generator = self.generator
        // The conversation once, to learn the messages the receiver gets and where they fall.
        let sender = receiver == .server ? ProtocolDescription.Role.client : .server
        let base = try Conversing.run(client: try party("swift", .client, sameCurveKeys: true), server: try party("swift", .server, conversationKnown: false, sameCurveKeys: true))
        guard base.completed, base.refusal == nil else {
            return .failed(message: "the Swift engine could not complete the conversation with itself, so there is nothing to mutate", details: Self.show(base.transcript))
        }
        var disagreements: [String] = []
        var tried = 0
        for (index, entry) in base.transcript.enumerated() where entry.from == sender {
            for mutation in MessageMutator.mutations(of: entry.message, count: perStep, generator: &generator) {
                tried += 1
                var verdicts: [String: String] = [:]
                for engine in ["swift", "python"] {
                    verdicts[engine] = try decide(base.transcript, upTo: index, receiver: receiver, engine: engine, last: mutation.message)
                }
                if verdicts["swift"] != verdicts["python"] {
                    disagreements.append("message \(index + 1) (\(mutation.name)): swift \(verdicts["swift"] ?? "?"); python \(verdicts["python"] ?? "?")")
                }
            }
        }
        guard disagreements.isEmpty else {
            return .failed(message: "the engines decide \(disagreements.count) of \(tried) mutated messages to the \(receiver.rawValue) differently",
                           details: disagreements.prefix(20).joined(separator: "\n"))
        }
        return tried == 0 ? .skipped(reason: "the \(sender.rawValue) sends nothing in this conversation") : .passed
    }

    /// The receiver of `engine` given the transcript's messages to it before `index`, then `last`:
    /// "refused" or "accepted" with what it learned.
    func decide(_ transcript: [(from: ProtocolDescription.Role, message: DescribedMessage)], upTo index: Int, receiver: ProtocolDescription.Role,
                        engine: String, last: DescribedMessage) throws -> String {
        let party = try self.party(engine, receiver, conversationKnown: false, sameCurveKeys: true)
        for (position, entry) in transcript.enumerated() where position < index {
            if entry.from == receiver {
                _ = try party.nextMessage()  // its own message: made (and its state moves on), not compared
            } else {
                try party.receive(entry.message)
            }
        }
        do { try party.receive(last) } catch let refusal as DescribedRefusal {
            _ = refusal
            return "refused"
        }
        // What both engines record alike: the message a receiver decrypted.
        return "accepted" + ((try party.received["message"]).map { " (message \(Self.hex($0)))" } ?? "")
    }

    static func hex(_ data: Data) -> String {
        let shown = data.prefix(48).map { String(format: "%02x", $0) }.joined()
        return data.count > 48 ? "\(shown)… (\(data.count) bytes)" : shown
    }

    static func show(_ transcript: [(from: ProtocolDescription.Role, message: DescribedMessage)]) -> String {
        transcript.map { "\($0.from.rawValue): \($0.message.summary)" }.joined(separator: "\n")
    }
}

/// The Swift engine's party as a `ConversationParty`.
final class SwiftParty: ConversationParty {
    let engine = "swift"
    let party: DescribedParty
    init(_ party: DescribedParty) { self.party = party }
    func nextMessage() throws -> DescribedMessage? { try party.nextMessage() }
    func receive(_ message: DescribedMessage) throws { try party.receive(message) }
    var isDone: Bool { party.isDone }
    var received: [String: Data] { party.received }
    func refusalMessage() throws -> DescribedMessage? { party.refusalMessage() }
}

extension ProtocolDescription {
    /// The role whose steps carry the conversation's message (`message` or `json-message`), if any.
    func sender(ofMessageIn conversation: String) -> Role? {
        guard let found = self.conversation(named: conversation) else { return nil }
        func carriesMessage(_ value: DescribedValue) -> Bool {
            if case .plain = value.kind { return true }  // the message in the clear: its first sender sends it
            return value.carries == .message || value.carries == .jsonMessage
        }
        return found.steps.first { $0.values.contains(where: carriesMessage) }?.from
    }
}

/// Conversations and mutated messages per second on a described protocol, for `make bench`: the
/// suite's own code (keys made once, as the suite's checks make them once per check).
public final class DescribedThroughput {
    let cast: Cast
    let base: [(from: ProtocolDescription.Role, message: DescribedMessage)]

    public init(description: ProtocolDescription, path: String, conversation: String, interpreter: PythonInterpreter) throws {
        cast = try Cast(description: description, path: path, conversation: conversation, interpreter: interpreter,
                        config: DescribedSuite.Settings().config, seed: 1)
        let outcome = try Conversing.run(client: try cast.party("swift", .client), server: try cast.party("swift", .server, conversationKnown: false))
        guard outcome.completed else { throw DescribedCheckError.pythonEngine("the Swift engine does not complete \(conversation) with itself") }
        base = outcome.transcript
    }

    /// One whole conversation between the engines named ("swift" or "python"); throws unless it completes.
    public func conversation(client: String, server: String) throws {
        let outcome = try Conversing.run(client: try cast.party(client, .client), server: try cast.party(server, .server, conversationKnown: false))
        guard outcome.completed, outcome.refusal == nil else { throw DescribedCheckError.pythonEngine("the conversation did not complete: \(outcome.refusal?.reason ?? "stalled")") }
    }

    /// The client's message `index` mutated once and given to a Swift and a Python server in the
    /// conversation's state, as the suite's mutated-to-server check does: one decision of each engine.
    public func mutatedToServer(_ ordinal: Int) throws {
        let senders = base.enumerated().filter { $0.element.from == .client }
        let (index, entry) = senders[ordinal % senders.count]
        var generator = SeededGenerator(seed: UInt64(ordinal))
        let mutations = MessageMutator.mutations(of: entry.message, count: 64, generator: &generator)
        let mutation = mutations[ordinal % max(mutations.count, 1)]
        _ = try cast.decide(base, upTo: index, receiver: .server, engine: "swift", last: mutation.message)
        _ = try cast.decide(base, upTo: index, receiver: .server, engine: "python", last: mutation.message)
    }
}
