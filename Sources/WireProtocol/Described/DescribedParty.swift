import Foundation
import StrictFormats
import WireCrypto

/// One message of a described conversation: bytes on a socket (framed by `DescribedFraming`), or an
/// HTTP request or response as `aes_https.py` has them.
public enum DescribedMessage: Equatable, Sendable {
    case bytes(Data)
    case request(method: String, path: String, headers: [String: String], body: Data)
    case response(status: Int, headers: [String: String], body: Data)
}

/// The client or server side of one conversation of a description, sans I/O: asked in turn for
/// its next outgoing message or given the peer's, which it checks or refuses with the reason.
public final class DescribedParty {
    public let description: ProtocolDescription
    public let role: ProtocolDescription.Role
    /// nil for a server until the client's first message picks the conversation.
    public private(set) var conversation: ProtocolDescription.Conversation?
    /// What this party learned: `message` (the conversation's message, when received), …
    public var received: [String: Data] { state.received }
    /// The public keys this party knows now: its own, preshared ones, and those it received.
    public var knownPublicKeys: [String: RSAPublicKey] { state.publicKeys }
    /// The EC and X25519 public keys this party knows now.
    public var knownCurvePublicKeys: [String: CurvePublicKey] { state.curvePublicKeys }
    /// The secrets' bytes this party knows now (made, preshared, received or agreed).
    public var knownSecrets: [String: Data] { state.secrets }
    /// For audits (`crosscheck remote`'s padding-oracle probes): the next `rsa` or `sealed` value this
    /// party builds is made from the probe's bytes instead of what the step carries; used once.
    public enum Probe: Sendable {
        /// The `rsa` value's ciphertext itself (a block of the auditor's choosing, already encrypted).
        case rsaCiphertext(Data)
        /// Textbook RSA of this block (a padding of the auditor's choosing) to the key the value
        /// names, as this party knows it now (a server may make a key per connection).
        case rsaBlock(Data)
        /// The value's own encryption, drawn again (randomized padding) until `accept` holds, at most
        /// 20,000 times: a ciphertext with a hazard in it (a line end) that must still arrive whole.
        case rsaCiphertextWhere(@Sendable (Data) -> Bool)
        /// The `sealed` value encrypts exactly these bytes, adding no padding (CBC/ECB: whole blocks).
        case sealedBlocks(Data)
        /// The `sealed` value carries these bytes instead (padded as the description says).
        case sealedPlaintext(Data)
        /// The `sealed` value's own plaintext with zero bytes where its PKCS#7 padding goes (a
        /// padding no PKCS#7 reader takes): a server that takes it does not check the padding.
        case sealedOwnPlaintextZeroPadded
        /// The `sealed` value's own plaintext with a padding whose last byte n is right and whose
        /// other n − 1 bytes are zero (n + a block when n is 1, so there are others): a reader that
        /// strips n bytes without checking them (`data[:-data[-1]]`) takes it; no PKCS#7 reader does.
        case sealedOwnPlaintextOnlyLastPadByteRight
        /// The next `public_key` value of this party's own EC key is this point instead (`04‖X‖Y`,
        /// in the value's format; it need not be on the curve), and every agreement secret made with
        /// that key is derived from `sharedSecret`, what a server that takes the point computes.
        case agreementPoint(Data, sharedSecret: Data)
        /// The `rsa` value is this block, textbook-encrypted (as `rsaBlock`), and the secret it
        /// carries is `key` for the whole message and after: what a server that goes on with a fixed
        /// key after a padding it cannot unwrap (a constant sentinel) computes.
        case rsaBlockThenKey(Data, secret: String, key: Data)
    }
    public var probe: Probe?
    /// The IV or nonce of every `sealed` value received, in order (the reuse audit compares them).
    public var receivedIVs: [Data] { state.receivedIVs }
    /// Those of them the sender chose (a prefix or a field), not the description (`fixed:`, `secret:`).
    public var receivedChosenIVs: [Data] { state.receivedChosenIVs }
    /// The last 16 bytes of every CBC ciphertext received, in order (a chained IV is the last one's).
    public var receivedLastBlocks: [Data] { state.receivedLastBlocks }
    /// The IV or nonce of every `sealed` value this party sent, in order.
    public var sentIVs: [Data] { state.sentIVs }
    /// True once the conversation ended (its last step, a close, or a refusal).
    public private(set) var isDone = false
    /// The refusal that ended the conversation, if one did.
    public private(set) var refusal: DescribedRefusal?

    private let privateKeys: [String: RSAPrivateKey]
    private let curvePrivateKeys: [String: CurvePrivateKey]
    fileprivate let config: [String: String]
    private var ownMessage: Data?
    /// The position of the next step in the conversation.
    public private(set) var stepIndex = 0
    private var state: State

    /// What a party knows and remembers as the conversation goes.
    struct State {
        var publicKeys: [String: RSAPublicKey]
        var curvePublicKeys: [String: CurvePublicKey] = [:]
        var secrets: [String: Data]
        var token: String?
        var issuedTokens: Set<String> = []
        var received: [String: Data] = [:]
        var lastReceivedJSON: JSONValue?
        var lastReceivedPlaintext: Data?
        var lastSentJSON: JSONValue?
        var lastSentPlaintext: Data?
        var receivedIVs: [Data] = []
        var receivedChosenIVs: [Data] = []
        var sentIVs: [Data] = []
        var receivedLastBlocks: [Data] = []
        /// This side has sent the conversation's message (sealed, encrypted or in the clear).
        var sentMessage = false
        /// The message length a `length_of` value stated, checked once the message arrives.
        var statedMessageLength: Int?
        /// The last tcp message received and sent, whole, as `repeat = "received"` sends and checks them.
        var lastReceivedMessage: Data?
        var lastSentMessage: Data?
    }

    /// - Parameters:
    ///   - conversation: its name; nil for a server that lets the client's first message choose (or when there is only one).
    ///   - privateKeys: the keys this role holds, by name (a key not given is made fresh, `bits` long).
    ///   - knownPublicKeys: preshared public keys the other side holds.
    ///   - curvePrivateKeys, knownCurvePublicKeys: the same for EC and X25519 keys (`ec-p256`, `ec-p384`, `x25519`; a key not given is made fresh).
    ///   - secrets: preshared secrets' bytes (the UTF-8 text for `utf8-zeropad16`); secrets this role makes are made fresh.
    ///   - message: the conversation's message for a sender of `carries = "message"` (default: the description's, else random text).
    ///   - config: run settings (`username`, `password`).
    public init(description: ProtocolDescription, conversation: String?, role: ProtocolDescription.Role,
                privateKeys: [String: RSAPrivateKey] = [:], knownPublicKeys: [String: RSAPublicKey] = [:],
                curvePrivateKeys: [String: CurvePrivateKey] = [:], knownCurvePublicKeys: [String: CurvePublicKey] = [:],
                secrets: [String: Data] = [:], message: Data? = nil, config: [String: String] = [:]) throws {
        self.description = description
        self.role = role
        self.config = config
        if let conversation {
            guard let found = description.conversation(named: conversation) else {
                throw DescriptionError.partySetup(reason: "no conversation \"\(conversation)\" (the description has \(description.conversations.map(\.name).joined(separator: ", ")))")
            }
            self.conversation = found
        } else if description.conversations.count == 1 {
            self.conversation = description.conversations[0]  // nothing to choose
        } else if role == .client {
            throw DescriptionError.partySetup(reason: "a client must be given its conversation (\(description.conversations.map(\.name).joined(separator: ", ")))")
        }
        let rsa = try Self.keyring(description, role, { !$0.isCurve }, held: privateKeys, known: knownPublicKeys, argument: "knownPublicKeys",
                                   make: { try $0.freshRSAKey() }, publicHalf: { $0.publicKey })
        let curve = try Self.keyring(description, role, \.isCurve, held: curvePrivateKeys, known: knownCurvePublicKeys, argument: "knownCurvePublicKeys",
                                     make: { try CurvePrivateKey(fresh: $0.type) }, publicHalf: { try $0.publicKey })
        self.privateKeys = rsa.held
        self.curvePrivateKeys = curve.held
        let (publicKeys, curvePublicKeys) = (rsa.publics, curve.publics)
        var secretBytes: [String: Data] = [:]
        for secret in description.secrets.values {
            if secret.madeBy == .preshared {
                guard let given = secrets[secret.name] else { throw DescriptionError.partySetup(reason: "secret \(secret.name) is preshared: pass its bytes in secrets") }
                secretBytes[secret.name] = given
            } else if secret.madeBy.rawValue == role.rawValue {
                secretBytes[secret.name] = secrets[secret.name] ?? Self.freshSecret(secret, in: description)
            }
        }
        state = State(publicKeys: publicKeys, curvePublicKeys: curvePublicKeys, secrets: secretBytes)
        ownMessage = message
        // An agreement with a preshared key is known from the start.
        var context = Context(party: self, state: state)
        do { try context.agree() } catch { throw DescriptionError.partySetup(reason: "key agreement with a preshared key: \(error)") }
        state = context.state
    }

    /// A fresh secret as its maker makes it (random bytes, or random letters and digits for a text secret).
    /// A secret carried raw by textbook RSA never begins with 0x00 (the receiver's integer would drop it):
    /// drawn again until it does not, as a sender must (`ProtocolDescription.textbookRawSecrets`).
    public static func freshSecret(_ secret: ProtocolDescription.Secret, in description: ProtocolDescription) -> Data {
        guard secret.derive.isText else {
            var bytes = secureRandomBytes(secret.bytes)
            while bytes.first == 0, description.textbookRawSecrets.contains(secret.name) { bytes = secureRandomBytes(secret.bytes) }
            return bytes
        }
        return Data(randomText(secret.chars).utf8)
    }

    static func randomText(_ count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String(secureRandomBytes(count).map { alphabet[Int($0) % alphabet.count] })
    }

    /// The conversation's message as this party sends it.
    var message: Data {
        messageReads += 1
        if let ownMessage { return ownMessage }
        let made = conversation?.message ?? Data(("described " + Self.randomText(20)).utf8)
        drewMessage = conversation?.message == nil
        ownMessage = made
        return made
    }
    /// Whether `message` is this party's own random draw (neither stated nor given), so another draw would do.
    private var drewMessage = false
    /// How often `message` was read: a message anything has read (sent, digested, measured) stays.
    fileprivate private(set) var messageReads = 0

    /// Another random message in place of a drawn one that nothing had read before the value now
    /// being built (a probe that needs a ciphertext with some property, where textbook RSA gives one
    /// message only one ciphertext); nil when the message is stated, given or was read before.
    fileprivate func redrawMessage(readBefore: Bool) -> Data? {
        guard drewMessage, !readBefore else { return nil }
        let made = Data(("described " + Self.randomText(20)).utf8)
        ownMessage = made
        return made
    }

    /// The next message this party sends, or nil when it is the peer's turn (or the conversation is over).
    public func nextMessage() throws -> DescribedMessage? {
        guard !isDone, let conversation, stepIndex < conversation.steps.count else { return nil }
        let step = conversation.steps[stepIndex]
        guard step.from == role else { return nil }
        var context = Context(party: self, state: state)
        // Every value of the message is built with the stand-in key, a sealed one before the RSA block too.
        if case let .rsaBlockThenKey(_, secret, key)? = probe { context.state.secrets[secret] = key }
        let built: DescribedMessage
        if description.transport.isHTTP {
            var headers: [String: String] = [:]
            for header in step.headers { headers[header.name] = String(decoding: try context.build(header.value).bytes, as: UTF8.self) }
            let body = try step.body.map { try context.build($0).bytes } ?? Data()
            if case .json? = step.body?.kind { headers["Content-Type"] = "application/json" }
            if case .form? = step.body?.kind { headers["Content-Type"] = "application/x-www-form-urlencoded" }
            var target = step.path ?? "/"
            if let query = step.query { target += "?" + String(decoding: try context.build(query).bytes, as: UTF8.self) }
            built = role == .client ? .request(method: step.method!, path: target, headers: headers, body: body)
                : .response(status: step.status, headers: headers, body: body)
        } else {
            let bytes = try context.build(step.send!).bytes
            context.state.lastSentMessage = bytes
            built = .bytes(bytes)
        }
        state = context.state
        advance(past: step)
        return built
    }

    /// The bytes that went out in place of the last message built (a probe changed them): what the
    /// peer received, so what a `repeat = "received"` answer must send back.
    public func sentInstead(_ bytes: Data) {
        state.lastSentMessage = bytes
    }

    /// Checks the peer's message; throws `DescribedRefusal` (and the conversation is over) when it is wrong.
    public func receive(_ message: DescribedMessage) throws {
        guard !isDone else { throw DescribedRefusal(reason: "the conversation is over; nothing more was expected") }
        do {
            if conversation == nil { try choose(message) } else { try accept(message, in: conversation!) }
            if let stated = state.statedMessageLength, let received = state.received["message"], stated != received.count {
                throw DescribedRefusal(reason: "the length field says \(stated) bytes; the message has \(received.count)")
            }
        } catch let refusal as DescribedRefusal {
            self.refusal = refusal
            isDone = true
            throw refusal
        }
    }

    /// The next step is this party's to send (it has a message to build before it reads again).
    public var nextStepIsOurs: Bool {
        guard !isDone, let conversation, stepIndex < conversation.steps.count else { return false }
        return conversation.steps[stepIndex].from == role
    }

    /// The bytes a length-aware reader should take for the next incoming message (`legacy`
    /// framing), or nil when its length is not known from the description.
    public var expectedLength: Int? {
        guard !isDone, let conversation, stepIndex < conversation.steps.count, let value = conversation.steps[stepIndex].send,
              conversation.steps[stepIndex].from != role else { return nil }
        return Context(party: self, state: state).length(of: value)
    }

    /// What a server sends when it refuses (the conversation's `error`, or HTTP `error_status`);
    /// nil for a client, or when the description gives no error message.
    public func refusalMessage() -> DescribedMessage? {
        guard role == .server else { return nil }
        let conversation = self.conversation ?? description.conversations[0]
        if description.transport.isHTTP {
            if let kind = refusal?.kind, let declared = conversation.httpErrors[kind] {
                var context = Context(party: self, state: state)
                let body = declared.body.flatMap { try? context.build($0).bytes } ?? Data()
                let type: String = {
                    switch declared.body?.kind { case .json?: return "application/json"; case .form?: return "application/x-www-form-urlencoded"; default: return "text/plain" }
                }()
                return .response(status: declared.status, headers: ["Content-Type": type], body: body)
            }
            let status = refusal?.httpStatus ?? conversation.errorStatus
            return .response(status: status, headers: ["Content-Type": "application/json"],
                             body: Data((status == 401 ? "{\"error\":\"unauthorized\"}" : "{\"error\":\"bad request\"}").utf8))
        }
        guard let error = refusal?.kind.flatMap({ conversation.errors[$0] }) ?? conversation.error else { return nil }
        var context = Context(party: self, state: state)
        return (try? context.build(error).bytes).map(DescribedMessage.bytes)
    }

    private func advance(past step: ProtocolDescription.Step) {
        stepIndex += 1
        if step.closes || stepIndex >= (conversation?.steps.count ?? 0) { isDone = true }
    }

    private func choose(_ message: DescribedMessage) throws {
        var reasons: [String] = []
        for candidate in description.conversations where candidate.steps.first?.from == .client {
            let saved = state
            do {
                conversation = candidate
                try accept(message, in: candidate)
                return
            } catch let refusal as DescribedRefusal {
                reasons.append("\(candidate.name): \(refusal.reason)")
                conversation = nil
                stepIndex = 0
                state = saved
            }
        }
        throw DescribedRefusal(reason: "the first message begins no conversation (\(reasons.joined(separator: "; ")))")
    }

    private func accept(_ message: DescribedMessage, in conversation: ProtocolDescription.Conversation) throws {
        guard stepIndex < conversation.steps.count, conversation.steps[stepIndex].from != role else {
            throw DescribedRefusal(reason: "a message arrived when none was expected (it is this side's turn, or the conversation is over)")
        }
        let step = conversation.steps[stepIndex]
        var context = Context(party: self, state: state)
        switch message {
        case let .bytes(bytes):
            guard let value = step.send else { throw DescribedRefusal(reason: "raw bytes arrived in an HTTP conversation") }
            try context.parse(value, bytes)
            context.state.lastReceivedMessage = bytes
        case let .request(method, path, headers, body):
            let route = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            guard role == .server, step.method == method, step.path == String(route[0]) else {
                throw DescribedRefusal(reason: "expected \(step.method ?? "?") \(step.path ?? "?"); received \(method) \(route[0])")
            }
            if let query = step.query { try context.parse(query, Data((route.count > 1 ? route[1] : "").utf8)) }
            try checkHeadersAndBody(step, headers, body, &context)
        case let .response(status, headers, body):
            guard role == .client else { throw DescribedRefusal(reason: "a response arrived at the server") }
            // An answer the description declares as a refusal (`errors`) is one, whatever else it
            // matches: a 200 may be a refusal.
            if let kind = declaredRefusalKind(status: status, body: body) {
                throw DescribedRefusal(reason: "the server refused the message: it answered \(status) \(String(decoding: body.prefix(200), as: UTF8.self)), the description's refusal of kind \(kind.rawValue)", kind: kind)
            }
            guard status == step.status else {
                throw DescribedRefusal(reason: "the server answered status \(status), not \(step.status): \(String(decoding: body.prefix(200), as: UTF8.self))")
            }
            try checkHeadersAndBody(step, headers, body, &context)
        }
        state = context.state
        advance(past: step)
    }

    private func checkHeadersAndBody(_ step: ProtocolDescription.Step, _ headers: [String: String], _ body: Data, _ context: inout Context) throws {
        for header in step.headers {
            guard let value = headers.first(where: { $0.key.lowercased() == header.name.lowercased() })?.value else {
                if case .token(.issued) = header.value.kind { throw DescribedRefusal(reason: "unknown token: no \(header.name) header", httpStatus: 401) }
                throw DescribedRefusal(reason: "the \(header.name) header is missing")
            }
            try context.parse(header.value, Data(value.utf8))
        }
        if let value = step.body { try context.parse(value, body) }
    }

    /// The kind of refusal a server's HTTP answer is, when the conversation's `errors` declares one
    /// with that status (and that body, when it states one); nil otherwise.
    public func declaredRefusalKind(status: Int, body: Data) -> RefusalKind? {
        guard let conversation else { return nil }
        for kind in RefusalKind.allCases {
            guard let declared = conversation.httpErrors[kind], declared.status == status else { continue }
            if let value = declared.body {
                var context = Context(party: self, state: state)
                guard (try? context.parse(value, body)) != nil else { continue }
            }
            return kind
        }
        return nil
    }

    /// The keys of `type` this role holds (those not given made fresh) and every public half it
    /// knows from the start: its own, and the other side's preshared ones.
    private static func keyring<Private, Public>(_ description: ProtocolDescription, _ role: ProtocolDescription.Role, _ ofType: (ProtocolDescription.KeyType) -> Bool,
                                                 held given: [String: Private], known: [String: Public], argument: String,
                                                 make: (ProtocolDescription.Key) throws -> Private,
                                                 publicHalf: (Private) throws -> Public) throws -> (held: [String: Private], publics: [String: Public]) {
        var held = given
        var publics: [String: Public] = [:]
        for key in description.keys.values where ofType(key.type) {
            if key.holder == role {
                if held[key.name] == nil {
                    do { held[key.name] = try make(key) } catch { throw DescriptionError.partySetup(reason: "cannot make key \(key.name): \(error)") }
                }
                do { publics[key.name] = try publicHalf(held[key.name]!) } catch { throw DescriptionError.partySetup(reason: "key \(key.name): \(error)") }
            } else if key.preshared {
                guard let half = known[key.name] else { throw DescriptionError.partySetup(reason: "key \(key.name) is preshared: pass its public half in \(argument)") }
                publics[key.name] = half
            }
        }
        return (held, publics)
    }

    fileprivate func ecPrivateKey(_ name: String) throws -> ECPrivateKey {
        guard case let .ec(key)? = curvePrivateKeys[name] else { throw DescribedRefusal(reason: "this side does not hold EC key \(name)") }
        return key
    }

    fileprivate func curvePrivateKey(_ name: String) -> CurvePrivateKey? { curvePrivateKeys[name] }

    fileprivate func privateKey(_ name: String) throws -> RSAPrivateKey {
        guard let key = privateKeys[name] else { throw DescribedRefusal(reason: "this side does not hold key \(name)") }
        return key
    }
    fileprivate func setting(_ name: String) throws -> String {
        guard let value = config[name] else { throw DescriptionError.partySetup(reason: "the run setting \(name) is not given (--\(name))") }
        return value
    }
}

// MARK: - Building and checking values

/// A built value: its bytes, and the IV and tag of a `sealed` one (for sibling `nonce_of`/`tag_of`).
struct BuiltValue {
    var bytes: Data
    var iv = Data()
    var tag = Data()
}

private struct Context {
    let party: DescribedParty
    var state: DescribedParty.State

    var description: ProtocolDescription { party.description }

    /// Every agreement secret this side can compute now and has not: it holds its key of the pair
    /// and knows the other's public half (preshared, or just received).
    mutating func agree() throws {
        for secret in description.secrets.values.sorted(by: { $0.name < $1.name }) where state.secrets[secret.name] == nil {
            guard let agreement = secret.agreement, let (own, peer) = agreement.keys(heldBy: party.role, in: description),
                  let mine = party.curvePrivateKey(own), let theirs = state.curvePublicKeys[peer] else { continue }
            state.secrets[secret.name] = try DescribedBytes.agreed(secret, shared: try mine.sharedSecret(with: theirs))
        }
    }

    func secretKey(_ name: String) throws -> Data {
        guard let bytes = state.secrets[name], let secret = description.secrets[name] else {
            throw DescribedRefusal(reason: "secret \(name) is not known yet")
        }
        switch secret.derive {
        case .raw: return bytes
        case .utf8ZeroPad16: return bytes + Data(count: max(0, 16 - bytes.count))
        case .sha256, .passphraseSHA256: return Digest.sha256.hash(bytes)
        case .passphraseSHA256First16: return Digest.sha256.hash(bytes).prefix(16)
        }
    }

    /// The plaintext a `carries` stands for, on the sending side.
    mutating func plaintext(_ carries: Carries) throws -> Data {
        switch carries {
        case .message:
            state.lastSentPlaintext = party.message
            state.sentMessage = true
            return party.message
        case .jsonMessage:
            guard let text = String(validating: [UInt8](party.message), as: UTF8.self) else {
                throw DescriptionError.partySetup(reason: "carries = \"json-message\" needs a message that is UTF-8 text")
            }
            let object = JSONValue.object(["message": .string(text)])
            state.lastSentJSON = object
            state.sentMessage = true
            let bytes = Data(("{\"message\":" + JSONText.string(text) + "}").utf8)
            state.lastSentPlaintext = bytes
            return bytes
        case .echo:
            guard let received = state.lastReceivedJSON else { throw DescriptionError.partySetup(reason: "carries = \"echo\" before any json-message arrived") }
            return Data(("{\"echo\":" + JSONText.value(received) + "}").utf8)
        case .same:
            guard let received = state.lastReceivedPlaintext else { throw DescriptionError.partySetup(reason: "carries = \"same\" before any plaintext arrived") }
            return received
        case let .secret(name, written):
            guard let bytes = state.secrets[name] else { throw DescriptionError.partySetup(reason: "secret \(name) is not known to the \(party.role.rawValue)") }
            return written.encode(bytes)
        case let .constant(text):
            state.lastSentPlaintext = Data(text.utf8)
            return Data(text.utf8)
        case .anyText:
            let reading = Data("crosscheck reading \(DescribedParty.randomText(12))".utf8)
            state.lastSentPlaintext = reading
            return reading
        case let .jsonFields(fields):
            // Values of each field's type, drawn fresh: a reading the receiver cannot have guessed.
            let random = DescribedParty.randomText(6)
            let number = Int(secureRandomBytes(1)[0])
            let members = try fields.map { field -> String in
                if let carried = field.secret {
                    guard let bytes = state.secrets[carried.name] else { throw DescriptionError.partySetup(reason: "secret \(carried.name) is not known to the \(party.role.rawValue)") }
                    return JSONText.string(field.name) + ":" + JSONText.string(String(decoding: carried.written.encode(bytes), as: UTF8.self))
                }
                switch field.type {
                case .integer: return JSONText.string(field.name) + ":\(number)"
                case .number: return JSONText.string(field.name) + ":\(number).5"
                case .string: return JSONText.string(field.name) + ":" + JSONText.string("crosscheck \(random)")
                }
            }
            let bytes = Data(("{" + members.joined(separator: ",") + "}").utf8)
            state.lastSentJSON = try? StrictJSON.parse(bytes)
            state.lastSentPlaintext = bytes
            // A reading stands for the conversation's message; a key handed out does not.
            if !fields.contains(where: { $0.secret != nil }) { state.sentMessage = true }
            return bytes
        }
    }

    /// What a received plaintext must be, and what it teaches.
    mutating func accept(_ plaintext: Data, _ carries: Carries) throws {
        state.lastReceivedPlaintext = plaintext
        switch carries {
        case .message:
            // A conversation that states its message means that one (a command such as "Request Access").
            if let stated = party.conversation?.message, plaintext != stated {
                throw DescribedRefusal(reason: "the message is not the description's \(JSONText.string(String(decoding: stated, as: UTF8.self)))")
            }
            state.received["message"] = plaintext
        case .jsonMessage:
            guard let object = try? StrictJSON.parse(plaintext), case let .string(text)? = object["message"] else {
                throw DescribedRefusal(reason: "the plaintext is not a JSON object with a \"message\" string")
            }
            if let stated = party.conversation?.message, Data(text.utf8) != stated {
                throw DescribedRefusal(reason: "the message is not the description's \(JSONText.string(String(decoding: stated, as: UTF8.self)))")
            }
            state.lastReceivedJSON = object
            state.received["message"] = Data(text.utf8)
        case .echo:
            guard let object = try? StrictJSON.parse(plaintext), let echo = object["echo"] else {
                throw DescribedRefusal(reason: "the answer is not a JSON object with an \"echo\" field")
            }
            guard echo == state.lastSentJSON else { throw DescribedRefusal(reason: "wrong echo: the answer echoes \(JSONText.value(echo)), not what was sent") }
            state.received["echo"] = Data(JSONText.value(echo).utf8)
        case .same:
            guard plaintext == state.lastSentPlaintext else { throw DescribedRefusal(reason: "the answer's plaintext is not the same as what was sent") }
        case .anyText:
            guard String(validating: [UInt8](plaintext), as: UTF8.self) != nil else { throw DescribedRefusal(reason: "the plaintext is not UTF-8 text") }
            state.received["message"] = plaintext
        case let .constant(text):
            guard plaintext.elementsEqual(text.utf8) else {
                throw DescribedRefusal(reason: "the plaintext is not the stated text \(JSONText.string(text)); received \(JSONText.string(String(decoding: plaintext.prefix(80), as: UTF8.self)))")
            }
        case let .jsonFields(fields):
            guard let object = try? StrictJSON.parse(plaintext), case .object = object else {
                throw DescribedRefusal(reason: "the plaintext is not a JSON object")
            }
            for field in fields {
                let fits: Bool
                switch (field.type, object[field.name]) {
                case let (.integer, .number(text)?): fits = !text.contains(where: { ".eE".contains($0) })
                case (.number, .number?), (.string, .string?): fits = true
                default: fits = false
                }
                guard fits else { throw DescribedRefusal(reason: "the JSON plaintext has no \(field.type.rawValue) field \(JSONText.string(field.name))") }
                if let carried = field.secret, case let .string(text)? = object[field.name] {
                    try learn(carried.name, try carried.written.decode(Data(text.utf8), what: "the secret \(carried.name) in field \(JSONText.string(field.name))"))
                }
            }
            state.lastReceivedJSON = object
            if !fields.contains(where: { $0.secret != nil }) { state.received["message"] = plaintext }
        case let .secret(name, written):
            try learn(name, try written.decode(plaintext, what: "the carried secret \(name)"))
        }
    }

    /// A secret that arrived inside a plaintext, once its length is the description's.
    mutating func learn(_ name: String, _ bytes: Data) throws {
        guard let secret = description.secrets[name] else { throw DescribedRefusal(reason: "no secret \(name)") }
        guard secret.fits(bytes.count) else { throw DescribedRefusal(reason: "secret \(name) arrived as \(bytes.count) bytes; the description says \(secret.allowedLength)") }
        state.secrets[name] = bytes
    }

    /// The message as this side knows it for a `plain` value it receives: received, its own once
    /// sent, or the one the conversation states; nil when not yet known (the `plain` teaches it).
    var knownMessage: Data? { state.received["message"] ?? (state.sentMessage ? party.message : nil) ?? party.conversation?.message }

    mutating func build(_ value: DescribedValue) throws -> BuiltValue {
        switch value.kind {
        case let .text(text), let .startsWith(text):  // starts_with: a server built from the description sends just the beginning
            return BuiltValue(bytes: Data(text.utf8))
        case .repeatReceived:
            guard let received = state.lastReceivedMessage else { throw DescriptionError.partySetup(reason: "nothing was received to send back") }
            return BuiltValue(bytes: received)
        case let .pickle(items):
            var entries: [DescribedPickle.Item] = []
            for item in items {
                if case let .publicKey(name, format, _) = item.kind {
                    guard let key = state.publicKeys[name] else { throw DescriptionError.partySetup(reason: "the \(party.role.rawValue) does not know key \(name)") }
                    let (n, e) = DescribedBytes.numbers(of: key)
                    entries.append(.integer(format == .modulus ? n : e))
                    continue
                }
                let bytes = try build(item).bytes
                guard let text = String(validating: [UInt8](bytes), as: UTF8.self) else {
                    throw DescriptionError.partySetup(reason: "\(item.keyPath) is not UTF-8 text, and a pickle item is a str")
                }
                entries.append(.text(text))
            }
            guard let pickled = DescribedPickle.encode(entries) else {
                throw DescriptionError.partySetup(reason: "the pickle would reach 64 KiB, where CPython splits its frames")
            }
            return BuiltValue(bytes: pickled)
        case let .plain(encoding):
            let message = state.received["message"] ?? party.message
            if state.received["message"] == nil { state.sentMessage = true }
            return BuiltValue(bytes: DescribedBytes.encode(message, encoding))
        case let .lengthOf(bytes):
            let count = digestedMessage.count
            guard count < 1 << (8 * bytes) else { throw DescriptionError.partySetup(reason: "the message has \(count) bytes: more than a \(bytes)-byte length field holds") }
            return BuiltValue(bytes: Data((0..<bytes).reversed().map { UInt8(truncatingIfNeeded: count >> (8 * $0)) }))
        case let .config(name):
            return BuiltValue(bytes: Data(try party.setting(name).utf8))
        case let .token(use):
            if use == .new {
                // config["token"]: the harness gives two servers the same token, so either can take the client's next request.
                let token = party.config["token"] ?? secureRandomBytes(16).hexString
                state.issuedTokens.insert(token)
                return BuiltValue(bytes: Data(token.utf8))
            }
            guard let token = state.token else { throw DescriptionError.partySetup(reason: "no token was issued to send back") }
            return BuiltValue(bytes: Data(token.utf8))
        case let .concat(parts):
            var pieces: [Data] = []
            for part in parts {
                if case let .mac(secret, algorithm, _, encoding) = part.kind, part.isMACOfPrevious {
                    let code = try DescribedBytes.mac(algorithm, key: try secretKey(secret), message: pieces.last ?? Data())
                    pieces.append(DescribedBytes.encode(code, encoding))
                } else {
                    pieces.append(try build(part).bytes)
                }
            }
            guard let bytes = DescribedConcat.join(parts, pieces) else {
                throw DescriptionError.partySetup(reason: "a part is longer than the length field before it holds")
            }
            return BuiltValue(bytes: bytes)
        case .lengthOfNext:
            return BuiltValue(bytes: Data())  // written by the concat, once the next part is built
        case let .json(fields):
            let members = try fieldTexts(fields).map { JSONText.string($0.name) + ":" + ($0.isObject ? $0.text : JSONText.string($0.text)) }
            return BuiltValue(bytes: Data(("{" + members.joined(separator: ",") + "}").utf8))
        case let .form(fields):
            let pairs = try fieldTexts(fields).map { DescribedBytes.formEscape($0.name) + "=" + DescribedBytes.formEscape($0.text) }
            return BuiltValue(bytes: Data(pairs.joined(separator: "&").utf8))
        case let .publicKey(name, format, encoding):
            if case let .agreementPoint(point, shared)? = party.probe, case let .ec(own)? = party.curvePrivateKey(name),
               let bytes = DescribedBytes.export(point: point, like: own.publicKey, format) {
                party.probe = nil
                for secret in description.secrets.values where secret.agreement?.keys.contains(name) == true {
                    state.secrets[secret.name] = try DescribedBytes.agreed(secret, shared: shared)
                }
                return BuiltValue(bytes: DescribedBytes.encode(bytes, encoding))
            }
            if let key = state.curvePublicKeys[name] { return BuiltValue(bytes: DescribedBytes.encode(try DescribedBytes.export(key, format), encoding)) }
            guard let key = state.publicKeys[name] else { throw DescriptionError.partySetup(reason: "the \(party.role.rawValue) does not know key \(name)") }
            return BuiltValue(bytes: DescribedBytes.encode(try DescribedBytes.export(key, format), encoding))
        case let .rsa(name, padding, carries, encoding):
            guard let key = state.publicKeys[name] else { throw DescriptionError.partySetup(reason: "the \(party.role.rawValue) does not know key \(name)") }
            switch party.probe {
            case let .rsaCiphertext(chosen)?:
                party.probe = nil
                return BuiltValue(bytes: DescribedBytes.encode(chosen, encoding))
            case let .rsaBlock(block)?, let .rsaBlockThenKey(block, _, _)?:
                party.probe = nil
                return BuiltValue(bytes: DescribedBytes.encode(try key._WEAK_AND_INSECURE_textbookEncrypt(block), encoding))
            case let .rsaCiphertextWhere(accept)?:
                party.probe = nil
                let readBefore = party.messageReads > 0
                var message = try plaintext(carries)
                var draws = 0
                for _ in 0..<20_000 {
                    draws += 1
                    let drawn = try DescribedBytes.rsaEncrypt(message, to: key, padding: padding, offset: value.characterOffset)
                    if accept(drawn) { return BuiltValue(bytes: DescribedBytes.encode(drawn, encoding)) }
                    // Textbook RSA has one ciphertext per message: draw another message where the party may,
                    // or another of its own secrets, which this message is the first to carry.
                    if padding.isUnpadded {
                        if case let .secret(name, _) = carries, let secret = description.secrets[name], secret.madeBy.rawValue == party.role.rawValue {
                            state.secrets[name] = DescribedParty.freshSecret(secret, in: description)
                            message = try plaintext(carries)
                            continue
                        }
                        guard carries == .message, let another = party.redrawMessage(readBefore: readBefore) else { break }
                        message = another
                        state.lastSentPlaintext = another
                    }
                }
                throw DescriptionError.partySetup(reason: "no ciphertext with the property in \(draws) draw\(draws == 1 ? "" : "s")\(draws == 1 ? " (textbook RSA: a fixed message has one ciphertext)" : "")")
            default: break
            }
            let ciphertext = try DescribedBytes.rsaEncrypt(try plaintext(carries), to: key, padding: padding, offset: value.characterOffset)
            return BuiltValue(bytes: DescribedBytes.encode(ciphertext, encoding))
        case let .sealed(sealed):
            let key = try secretKey(sealed.secret)
            var fixedIV: Data?
            if case let .fixed(bytes) = sealed.iv { fixedIV = bytes }
            if case let .secret(name) = sealed.iv {
                guard let bytes = state.secrets[name] else { throw DescriptionError.partySetup(reason: "secret \(name), the IV, is not known to the \(party.role.rawValue)") }
                fixedIV = bytes
            }
            let tagDropped = sealed.tag == .dropped
            var output: DescribedCipher.Output
            switch party.probe {
            case let .sealedBlocks(blocks)?:
                party.probe = nil
                output = try DescribedCipher.sealUnpadded(blocks, cipher: sealed.cipher, key: key, iv: fixedIV, tagDropped: tagDropped)
            case let .sealedPlaintext(chosen)?:
                party.probe = nil
                output = try DescribedCipher.seal(chosen, cipher: sealed.cipher, padding: sealed.padding, key: key, iv: fixedIV, tagDropped: tagDropped)
            case .sealedOwnPlaintextZeroPadded?:
                party.probe = nil
                output = try DescribedCipher.seal(try plaintext(sealed.carries), cipher: sealed.cipher, padding: .zero, key: key, iv: fixedIV, tagDropped: tagDropped)
            case .sealedOwnPlaintextOnlyLastPadByteRight?:
                party.probe = nil
                let own = try plaintext(sealed.carries)
                let block = sealed.padding == .pkcs7To32 ? 32 : 16
                var count = block - own.count % block
                if count == 1 { count += block }  // above the block: no PKCS#7 padding either
                let padded = own + Data(repeating: 0, count: count - 1) + Data([UInt8(count)])
                // Whole blocks of 16 for the cipher: a 32-byte pkcs7-32 block is two.
                output = try DescribedCipher.sealUnpadded(padded, cipher: sealed.cipher, key: key, iv: fixedIV, tagDropped: tagDropped)
            default:
                let own = try plaintext(sealed.carries)
                output = try DescribedCipher.seal(own, cipher: sealed.cipher, padding: sealed.padding, key: key, iv: fixedIV, tagDropped: tagDropped)
                // A part that holds the separator could not be split off: seal again under a fresh IV.
                var tries = 1
                while tries < 100, sealed.holdsSeparator(iv: output.iv, tag: output.tag, ciphertext: output.ciphertext) {
                    output = try DescribedCipher.seal(own, cipher: sealed.cipher, padding: sealed.padding, key: key, iv: fixedIV, tagDropped: tagDropped)
                    tries += 1
                }
            }
            if !output.iv.isEmpty { state.sentIVs.append(output.iv) }
            let bytes = sealed.wire(iv: output.iv, tag: output.tag, ciphertext: output.ciphertext)
            return BuiltValue(bytes: DescribedBytes.encode(bytes, sealed.encoding), iv: output.iv, tag: output.tag)
        case let .secret(name, encoding):
            guard let bytes = state.secrets[name] else { throw DescriptionError.partySetup(reason: "secret \(name) is not known to the \(party.role.rawValue)") }
            return BuiltValue(bytes: DescribedBytes.encode(bytes, encoding))
        case let .digest(encoding):
            return BuiltValue(bytes: DescribedBytes.encode(Digest.sha256.hash(digestedMessage), encoding))
        case .nonceOf, .tagOf, .mac, .signature:
            return BuiltValue(bytes: Data())  // built by their json or form, from their sibling
        }
    }

    /// A `json`'s or `form`'s fields as text, in order: the values first, then the fields that
    /// refer to a sibling (its IV or tag, or a MAC over its text as sent).
    mutating func fieldTexts(_ fields: [DescribedField]) throws -> [(name: String, text: String, isObject: Bool)] {
        var built: [String: BuiltValue] = [:]
        for field in fields where !field.value.isSiblingReference { built[field.name] = try build(field.value) }
        return try fields.map { field in
            switch field.value.kind {
            case let .nonceOf(sibling, encoding), let .tagOf(sibling, encoding):
                let source = built[sibling] ?? BuiltValue(bytes: Data())
                let bytes: Data = { if case .nonceOf = field.value.kind { return source.iv }; return source.tag }()
                return (field.name, String(decoding: DescribedBytes.encode(bytes, encoding), as: UTF8.self), false)
            case let .mac(secret, algorithm, covered, encoding):
                let code = try DescribedBytes.mac(algorithm, key: try secretKey(secret), message: built[covered]?.bytes ?? Data())
                return (field.name, String(decoding: DescribedBytes.encode(code, encoding), as: UTF8.self), false)
            case let .signature(keyName, _, covered, format, encoding):
                let signature = try DescribedBytes.sign(built[covered]?.bytes ?? Data(), with: try party.ecPrivateKey(keyName), format: format)
                return (field.name, String(decoding: DescribedBytes.encode(signature, encoding), as: UTF8.self), false)
            default:
                return (field.name, String(decoding: built[field.name]!.bytes, as: UTF8.self), field.value.isJSONObject)
            }
        }
    }

    /// The conversation's message as this side knows it: received, else its own.
    var digestedMessage: Data { state.received["message"] ?? party.message }

    /// The length of a value's bytes when known before reading them.
    func length(of value: DescribedValue) -> Int? {
        switch value.kind {
        case let .rsa(name, padding, _, encoding) where !padding.isUnpadded:
            // A key this side holds has its real size, which may differ from the description's `bits`.
            if let key = try? party.privateKey(name) { return encoding.encodedLength(key.modulusByteCount) }
        case let .concat(parts):
            var total = 0
            for part in parts { guard let length = length(of: part) else { return nil }; total += length }
            return total
        default: break
        }
        // Everything else as the reader counted it when it checked the concat: one rule for both.
        return description.fixedLength(of: value)
    }

    mutating func parse(_ value: DescribedValue, _ bytes: Data, siblings: [String: Data] = [:]) throws {
        switch value.kind {
        case .lengthOf:
            guard let length = length(of: value), bytes.count == length else { throw DescribedRefusal(reason: "the length field is not \(length(of: value) ?? 0) bytes") }
            state.statedMessageLength = bytes.reduce(0) { $0 << 8 | Int($1) }
        case let .plain(encoding):
            let message = try DescribedBytes.decode(bytes, encoding, what: "the message in the clear")
            if let known = knownMessage {
                guard message == known else { throw DescribedRefusal(reason: "the message in the clear is not the conversation's message") }
            } else {
                state.received["message"] = message
            }
        case let .startsWith(text):
            guard bytes.starts(with: Data(text.utf8)) else {
                throw DescribedRefusal(reason: "expected text beginning \(JSONText.string(text)); received \(JSONText.string(String(decoding: bytes.prefix(80), as: UTF8.self)))")
            }
        case let .pickle(items):
            let types = items.map { item -> String in if case .publicKey = item.kind { return "int" }; return "str" }
            guard let entries = DescribedPickle.decode(bytes), entries.count == items.count else {
                throw DescribedRefusal(reason: "the message is not a pickle of \(items.count) items (\(types.joined(separator: ", "))) as pickle.dumps writes one")
            }
            var numbers: [String: (n: Data?, e: Data?)] = [:]
            for (position, (item, entry)) in zip(items, entries).enumerated() {
                switch (item.kind, entry) {
                case let (.publicKey(name, format, _), .integer(value)):
                    if format == .modulus { numbers[name, default: (nil, nil)].n = value } else { numbers[name, default: (nil, nil)].e = value }
                case let (kind, .text(text)):
                    if case .publicKey = kind { fallthrough }
                    try parse(item, Data(text.utf8))
                default:
                    throw DescribedRefusal(reason: "item \(position + 1) of the pickle is \(types[position] == "int" ? "a str where an int" : "an int where a str") is wanted")
                }
            }
            for (name, pair) in numbers.sorted(by: { $0.key < $1.key }) {
                guard let n = pair.n, let e = pair.e else { continue }  // the validator has both
                state.publicKeys[name] = try DescribedBytes.publicKey(modulus: n, exponent: e, toy: description.keys[name]?.isToy == true)
            }
        case .repeatReceived:
            guard let sent = state.lastSentMessage, bytes == sent else {
                throw DescribedRefusal(reason: "the answer is not the message sent: expected \(state.lastSentMessage?.count ?? 0) bytes back, received \(bytes.count) bytes that differ")
            }
        case let .text(text):
            guard bytes.elementsEqual(text.utf8) else {
                throw DescribedRefusal(reason: "expected \(JSONText.string(text)); received \(JSONText.string(String(decoding: bytes.prefix(80), as: UTF8.self)))")
            }
        case let .config(name):
            guard bytes.elementsEqual(try party.setting(name).utf8) else { throw DescribedRefusal(reason: "the \(name) is not the run's") }
        case let .token(use):
            let token = String(decoding: bytes, as: UTF8.self)
            if use == .new {
                guard !token.isEmpty, String(validating: [UInt8](bytes), as: UTF8.self) != nil else { throw DescribedRefusal(reason: "the token is empty or not text") }
                state.token = token
            } else {
                guard state.issuedTokens.contains(token) else { throw DescribedRefusal(reason: "unknown token: the server did not issue \(JSONText.string(token))", httpStatus: 401) }
            }
        case let .concat(parts):
            guard let pieces = DescribedConcat.split(parts, bytes, fixedLength: { length(of: $0) }) else {
                if parts.contains(where: \.isLengthOfNext) {
                    throw DescribedRefusal(reason: "the message has \(bytes.count) bytes, which its length fields do not account for")
                }
                let lengths = parts.map(length(of:))
                let known = lengths.compactMap { $0 }.reduce(0, +)
                // The reader allows one part of unknown length; should two ever get here, refuse, never slice past the end.
                if lengths.filter({ $0 == nil }).count > 1 { throw DescribedRefusal(reason: "the message has two parts of unknown length: it cannot be taken apart") }
                throw DescribedRefusal(reason: "the message has \(bytes.count) bytes; its fixed parts alone need \(known)\(lengths.contains(where: { $0 == nil }) ? " or more" : "")")
            }
            for (index, (part, piece)) in zip(parts, pieces).enumerated() where !part.isMACOfPrevious {
                // A MAC over this part is verified before the part is opened (encrypt-then-MAC).
                if index + 1 < parts.count, case let .mac(secret, algorithm, _, encoding) = parts[index + 1].kind, parts[index + 1].isMACOfPrevious {
                    let code = try DescribedBytes.decode(pieces[index + 1], encoding, what: "the \(algorithm.rawValue)")
                    let expected = try DescribedBytes.mac(algorithm, key: try secretKey(secret), message: piece)
                    guard HMACDigest.equal(code, expected) else {
                        throw DescribedRefusal(reason: "the \(algorithm.rawValue) after \(part.keyPath) does not verify over it (wrong key or tampered)", kind: .authentication)
                    }
                }
                try parse(part, piece)
            }
        case .lengthOfNext:
            break  // the concat read it, and took the next part by it
        case let .json(fields):
            guard let parsed = try? StrictJSON.parse(bytes), case let .object(members) = parsed else {
                throw DescribedRefusal(reason: "expected a JSON object; received \(JSONText.string(String(decoding: bytes.prefix(80), as: UTF8.self)))")
            }
            try parseFields(fields, members, container: "JSON field")
        case let .form(fields):
            guard let pairs = DescribedBytes.formFields(bytes) else {
                throw DescribedRefusal(reason: "expected form fields (name=value&…, URL-encoded UTF-8, each name once); received \(JSONText.string(String(decoding: bytes.prefix(80), as: UTF8.self)))")
            }
            try parseFields(fields, pairs.mapValues { JSONValue.string($0) }, container: "form field")
        case let .publicKey(name, format, encoding):
            let keyBytes = try DescribedBytes.decode(bytes, encoding, what: "key \(name)")
            if let type = description.keys[name]?.type, type.isCurve {
                state.curvePublicKeys[name] = try DescribedBytes.importCurveKey(keyBytes, format, type: type)
                try agree()
            } else {
                state.publicKeys[name] = try DescribedBytes.importKey(keyBytes, format, alsoAccepted: value.alsoAccepts)
            }
        case let .rsa(name, padding, carries, encoding):
            let key = try party.privateKey(name)
            let ciphertext = try DescribedBytes.decode(bytes, encoding, what: "the RSA ciphertext")
            if padding == .perCharacter {
                try accept(try DescribedBytes.perCharacterDecrypt(ciphertext, with: key, name: name, offset: value.characterOffset), carries)
                return
            }
            guard let padded = DescribedBytes.rsaPadding(padding) else {
                try accept(try DescribedBytes.textbookDecrypt(ciphertext, with: key, name: name), carries)
                return
            }
            guard ciphertext.count == key.modulusByteCount else {
                throw DescribedRefusal(reason: "the RSA ciphertext has \(ciphertext.count) bytes; key \(name) needs exactly \(key.modulusByteCount)")
            }
            let plaintext: Data
            do { plaintext = try key.decrypt(ciphertext, padding: padded) } catch {
                throw DescribedRefusal(reason: "the RSA ciphertext does not decrypt with key \(name) (\(padding.rawValue)): \(error)")
            }
            try accept(plaintext, carries)
        case let .sealed(sealed):
            let key = try secretKey(sealed.secret)
            var body = sealed.cipher == .fernet ? bytes : try DescribedBytes.decode(bytes, sealed.encoding, what: "the \(sealed.cipher.rawValue) value")
            if sealed.separator != nil { body = try sealed.joinedParts(body) }
            var iv = Data(), tag = Data()
            switch sealed.iv {
            case .prefix:
                guard body.count >= sealed.cipher.ivBytes else { throw DescribedRefusal(reason: "the \(sealed.cipher.rawValue) value is shorter than its IV") }
                iv = Data(body.prefix(sealed.cipher.ivBytes)); body = Data(body.dropFirst(sealed.cipher.ivBytes))
            case .field: iv = siblings["iv"] ?? Data()
            case let .fixed(bytes): iv = bytes
            case let .secret(name):
                guard let bytes = state.secrets[name] else { throw DescribedRefusal(reason: "secret \(name), the IV, has not arrived") }
                iv = bytes
            case .none: break
            }
            if sealed.cipher.isAEAD {
                switch sealed.tag {
                case .appended:
                    guard body.count >= 16 else { throw DescribedRefusal(reason: "the \(sealed.cipher.rawValue) value is shorter than its tag") }
                    tag = Data(body.suffix(16)); body = Data(body.dropLast(16))
                case .before:
                    guard body.count >= 16 else { throw DescribedRefusal(reason: "the \(sealed.cipher.rawValue) value is shorter than its tag") }
                    tag = Data(body.prefix(16)); body = Data(body.dropFirst(16))
                case .field: tag = siblings["tag"] ?? Data()
                case .dropped: break
                }
            }
            // A nonce on the wire (a prefix or a field) has the cipher's length; only a `fixed:` or
            // secret one may differ (an aes-gcm nonce of 8 to 128 bytes), as PythonRef's reader has it.
            switch sealed.iv {
            case .prefix, .field:
                guard iv.count == sealed.cipher.ivBytes else {
                    throw DescribedRefusal(reason: "the \(sealed.cipher.rawValue) IV/nonce is \(iv.count) bytes; must be \(sealed.cipher.ivBytes)")
                }
            case .fixed, .secret, .none: break
            }
            if !iv.isEmpty { state.receivedIVs.append(iv) }
            if !iv.isEmpty, sealed.iv == .prefix || sealed.iv.fieldName != nil { state.receivedChosenIVs.append(iv) }
            // CBC's and CFB's IVs must be unpredictable (SP 800-38A app. C): the last 16 ciphertext
            // bytes, where a server that chains would take its next IV from.
            if [.aesCBC, .aesCFB, .aesCFB8].contains(sealed.cipher), body.count >= 16 { state.receivedLastBlocks.append(Data(body.suffix(16))) }
            try accept(try DescribedCipher.open(body, cipher: sealed.cipher, padding: sealed.padding, key: key, iv: iv, tag: tag, tagDropped: sealed.tag == .dropped), sealed.carries)
        case let .secret(name, encoding):
            let secretBytes = try DescribedBytes.decode(bytes, encoding, what: "secret \(name)")
            if let secret = description.secrets[name] {
                guard secret.fits(secretBytes.count) else { throw DescribedRefusal(reason: "secret \(name) arrived as \(secretBytes.count) bytes; the description says \(secret.allowedLength)") }
            }
            state.secrets[name] = secretBytes
        case let .digest(encoding):
            // Compared as bytes: an encoding with two spellings (hex in either case) is the same digest.
            let digest = Digest.sha256.hash(digestedMessage)
            guard (try? DescribedBytes.decode(bytes, encoding, what: "the digest")) == digest else {
                throw DescribedRefusal(reason: "the digest is not SHA-256 of the message (expected \(String(decoding: DescribedBytes.encode(digest, encoding), as: UTF8.self)))")
            }
        case .nonceOf, .tagOf, .mac, .signature:
            break  // read with their json or form
        }
    }

    /// A `json`'s or `form`'s fields from the members received: the sibling references first (a
    /// MAC is verified before the field it covers is opened: encrypt-then-MAC), then the values.
    mutating func parseFields(_ fields: [DescribedField], _ members: [String: JSONValue], container: String) throws {
        var references: [String: Data] = [:]
        for field in fields where field.value.isSiblingReference {
            guard let text = members[field.name]?.stringValue else { throw DescribedRefusal(reason: "the \(container) \"\(field.name)\" is missing or not a string") }
            func decoded(_ encoding: ValueEncoding) throws -> Data { try DescribedBytes.decode(Data(text.utf8), encoding, what: "the field \"\(field.name)\"") }
            /// The text, as sent, of the field a MAC or signature covers.
            func coveredText(_ covered: String) throws -> Data {
                guard let text = members[covered]?.stringValue else { throw DescribedRefusal(reason: "the \(container) \"\(covered)\" is missing or not a string") }
                return Data(text.utf8)
            }
            switch field.value.kind {
            case let .nonceOf(sibling, encoding): references["iv:" + sibling] = try decoded(encoding)
            case let .tagOf(sibling, encoding): references["tag:" + sibling] = try decoded(encoding)
            case let .mac(secret, algorithm, covered, encoding):
                let code = try decoded(encoding)
                let expected = try DescribedBytes.mac(algorithm, key: try secretKey(secret), message: try coveredText(covered))
                guard HMACDigest.equal(code, expected) else {
                    throw DescribedRefusal(reason: "the \(algorithm.rawValue) in field \"\(field.name)\" does not verify over field \"\(covered)\" (wrong key or tampered)", kind: .authentication)
                }
            case let .signature(keyName, algorithm, covered, format, encoding):
                let signature = try decoded(encoding)
                let signed = try coveredText(covered)
                guard let key = state.curvePublicKeys[keyName]?.ecKey else { throw DescribedRefusal(reason: "key \(keyName)'s public half has not arrived") }
                guard DescribedBytes.verify(signature, of: signed, with: key, format: format) else {
                    throw DescribedRefusal(reason: "the \(algorithm.rawValue) signature in field \"\(field.name)\" does not verify over field \"\(covered)\" with key \(keyName) (wrong key, tampered, or not \(format.rawValue))", kind: .authentication)
                }
            default: break
            }
        }
        for field in fields where !field.value.isSiblingReference {
            guard let member = members[field.name] else { throw DescribedRefusal(reason: "the \(container) \"\(field.name)\" is missing") }
            let fieldBytes: Data
            if field.value.isJSONObject {
                guard case .object = member else { throw DescribedRefusal(reason: "the \(container) \"\(field.name)\" is not an object") }
                fieldBytes = Data(JSONText.value(member).utf8)
            } else {
                guard let text = member.stringValue else { throw DescribedRefusal(reason: "the \(container) \"\(field.name)\" is not a string") }
                fieldBytes = Data(text.utf8)
            }
            try parse(field.value, fieldBytes, siblings: [
                "iv": references["iv:" + field.name], "tag": references["tag:" + field.name],
            ].compactMapValues { $0 })
        }
    }
}

extension DescribedValue {
    /// A `nonce_of` / `tag_of`: written from, and read for, a sibling field.
    var isSiblingReference: Bool {
        switch kind {
        case .nonceOf, .tagOf, .mac, .signature: return true
        default: return false
        }
    }

    /// Built without keys, secrets or the conversation's state: `text`, or a `json`/`form` of them
    /// (with at least one field: an empty one would match any object).
    var isConstant: Bool {
        switch kind {
        case .text: return true
        case let .json(fields), let .form(fields): return !fields.isEmpty && fields.allSatisfy(\.value.isConstant)
        default: return false
        }
    }

    /// Inside `json`: written as a JSON object rather than a string.
    var isJSONObject: Bool {
        switch kind {
        case .json: return true
        case let .publicKey(_, format, encoding): return format.isJSON && encoding == .raw
        default: return false
        }
    }
}

/// JSON text as crosscheck writes it: no spaces, `/` unescaped, non-ASCII as is (Python's
/// `json.dumps(…, separators=(",", ":"), ensure_ascii=False)`).
enum JSONText {
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func value(_ value: JSONValue) -> String {
        switch value {
        case let .object(members): return "{" + members.keys.sorted().map { string($0) + ":" + self.value(members[$0]!) }.joined(separator: ",") + "}"
        case let .array(items): return "[" + items.map(self.value).joined(separator: ",") + "]"
        case let .string(text): return string(text)
        case let .number(text): return text
        case let .bool(flag): return flag ? "true" : "false"
        case .null: return "null"
        }
    }
}

extension Sealed {
    /// The value's bytes on the wire before their encoding: its parts in order, joined by the separator if any.
    public func wire(iv: Data, tag: Data, ciphertext: Data) -> Data {
        let parts = parts(iv: iv, tag: tag, ciphertext: ciphertext)
        guard let separator else { return parts.reduce(Data(), +) }
        return Data(parts.joined(separator: separator))
    }

    /// Whether a reader splitting the wire on the separator would not get these parts back: a part
    /// holds it, or ends so that it meets it (`b"x:" + b"::" + b"y"` is `x:::y`, which splits into
    /// `x` and `:y`): with "::", about one message in 120.
    func holdsSeparator(iv: Data, tag: Data, ciphertext: Data) -> Bool {
        guard let separator else { return false }
        return Self.split(wire(iv: iv, tag: tag, ciphertext: ciphertext), on: separator) != parts(iv: iv, tag: tag, ciphertext: ciphertext)
    }

    /// The parts on the wire, in `wireParts`' order.
    func parts(iv: Data, tag: Data, ciphertext: Data) -> [Data] {
        wireParts.map { part in
            switch part {
            case .iv: return iv
            case .tag: return tag
            case .ciphertext: return ciphertext
            }
        }
    }

    /// Python's `bytes.split(separator)`: left to right, never overlapping.
    public static func split(_ bytes: Data, on separator: Data) -> [Data] {
        var pieces: [Data] = [], rest = bytes[...]
        while let found = rest.range(of: separator) {
            pieces.append(Data(rest[..<found.lowerBound])); rest = rest[found.upperBound...]
        }
        return pieces + [Data(rest)]
    }

    /// A separated value's parts, checked and put end to end as an unseparated value has them
    /// (`nonce, tag, ciphertext = data.split(b"::")`: parts that do not split back cannot be read).
    func joinedParts(_ bytes: Data) throws -> Data {
        guard let separator else { return bytes }
        let pieces = Self.split(bytes, on: separator)
        let said = JSONText.string(String(decoding: separator, as: UTF8.self))
        // Laid out right, read wrong: the sender's IV or tag holds (or ends in a prefix of) the
        // separator, and it did not seal again — the separator's weakness, said as such, since it
        // shows in about one value in 120 (`::`) and a report should not read as a random failure.
        let unlucky = layoutHolds(bytes, separator) ? " — read by position it fits the layout, so a part may hold or end in the separator's bytes: a sender that does not seal again until its parts split back loses values so (about one in 120 with \"::\"; more with a one-byte separator)" : ""
        guard pieces.count == wireParts.count else {
            throw DescribedRefusal(reason: "the \(cipher.rawValue) value splits into \(pieces.count) parts on \(said); the description has \(wireParts.count) (a part that contains the separator cannot be read)\(unlucky)", kind: .length)
        }
        for (part, piece) in zip(wireParts, pieces) {
            if part == .iv, piece.count != cipher.ivBytes {
                throw DescribedRefusal(reason: "the \(cipher.rawValue) IV/nonce before \(said) is \(piece.count) bytes; must be \(cipher.ivBytes)\(unlucky)", kind: .length)
            }
            if part == .tag, piece.count != 16 {
                throw DescribedRefusal(reason: "the \(cipher.rawValue) tag between \(said) is \(piece.count) bytes; must be 16\(unlucky)", kind: .length)
            }
        }
        return pieces.reduce(Data(), +)
    }

    /// Whether the fixed-length parts (IV, tag) with the separator after each, read by position
    /// rather than by splitting, fit `bytes`: the layout a sender meant.
    func layoutHolds(_ bytes: Data, _ separator: Data) -> Bool {
        var at = bytes.startIndex
        for (index, part) in wireParts.enumerated() {
            let isLast = index == wireParts.count - 1
            switch part {
            case .iv, .tag:
                let length = part == .iv ? cipher.ivBytes : 16
                guard bytes.endIndex - at >= length else { return false }
                at += length
                if isLast { return at == bytes.endIndex }
            default:
                // A part of no fixed length: the rest up to the fixed parts after it.
                let after = wireParts[(index + 1)...].reduce(0) { $0 + ($1 == .iv ? cipher.ivBytes : 16) + separator.count }
                guard bytes.endIndex - at >= after else { return false }
                at = bytes.endIndex - after
                if isLast { return true }
            }
            guard bytes.endIndex - at >= separator.count, bytes[at..<(at + separator.count)] == separator else { return false }
            at += separator.count
        }
        return true
    }
}
