import Foundation
import Conformance
import StrictFormats
import Transport
import WireCrypto
import WireProtocol

/// The one `rsa` or `sealed` value of a client message, located in the bytes the client built, and
/// how to put changed bytes back (the rest of the message stays as built).
struct CryptoPart {
    let value: DescribedValue
    /// Its bytes before their encoding (for `sealed`: IV prefix, ciphertext and tag, before or after it).
    let raw: Data
    let rebuild: (Data) -> DescribedMessage

    /// Finds it in a `send` or `body` that is the value itself, a `concat` of it and texts, or a
    /// `json` with it in a field; nil when the message has none, or a shape not taken apart here.
    static func locate(_ description: ProtocolDescription, in message: DescribedMessage, step: ProtocolDescription.Step) -> CryptoPart? {
        locate(description, in: message, step: step, matching: \.isCryptoPart)
    }

    /// The first value of the message `matching` says is the one.
    static func locate(_ description: ProtocolDescription, in message: DescribedMessage, step: ProtocolDescription.Step, matching isCrypto: (DescribedValue) -> Bool) -> CryptoPart? {
        let length = { (value: DescribedValue) in description.fixedLength(of: value) }
        // In the query string when that is where the step's crypto travels (a GET with no body).
        if let query = step.query, query.values.contains(where: isCrypto), case let .request(method, path, headers, body) = message {
            let route = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            return locate(value: query, in: Data((route.count > 1 ? route[1] : "").utf8), matching: isCrypto, length: length) {
                .request(method: method, path: route[0] + "?" + String(decoding: $0, as: UTF8.self), headers: headers, body: body)
            }
        }
        guard let value = step.send ?? step.body else { return nil }
        switch message {
        case let .bytes(data): return locate(value: value, in: data, matching: isCrypto, length: length) { .bytes($0) }
        case let .request(method, path, headers, data): return locate(value: value, in: data, matching: isCrypto, length: length) { .request(method: method, path: path, headers: headers, body: $0) }
        case let .response(status, headers, data): return locate(value: value, in: data, matching: isCrypto, length: length) { .response(status: status, headers: headers, body: $0) }
        }
    }

    /// Its raw bytes with the last bit flipped: a tag or MAC that no longer verifies.
    static func lastBitFlipped(_ part: CryptoPart) -> Data {
        var raw = part.raw
        if !raw.isEmpty { raw[raw.endIndex - 1] ^= 0x01 }
        return raw
    }

    /// The crypto part of `value` in `body`; `wrap` puts a changed body back into its message.
    static func locate(value: DescribedValue, in body: Data, matching isCrypto: (DescribedValue) -> Bool, length: (DescribedValue) -> Int?,
                       wrap: @escaping (Data) -> DescribedMessage) -> CryptoPart? {
        func encoding(of value: DescribedValue) -> ValueEncoding? {
            switch value.kind {
            case let .rsa(_, _, _, encoding): return encoding
            case let .publicKey(_, _, encoding): return encoding
            case let .tagOf(_, encoding): return encoding
            case let .mac(_, _, _, encoding): return encoding
            case let .signature(_, _, _, _, encoding): return encoding
            case let .sealed(sealed): return sealed.cipher == .fernet ? nil : sealed.encoding
            default: return nil
            }
        }
        func decoded(_ text: Data, _ value: DescribedValue) -> Data? {
            if case let .sealed(sealed) = value.kind, sealed.cipher == .fernet {
                return Data(base64Encoded: String(decoding: text, as: UTF8.self).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/"))
            }
            guard let encoding = encoding(of: value) else { return nil }
            return try? DescribedBytes.decode(text, encoding, what: "")
        }
        func encoded(_ raw: Data, _ value: DescribedValue) -> Data {
            if case let .sealed(sealed) = value.kind, sealed.cipher == .fernet {
                return Data(raw.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").utf8)
            }
            return DescribedBytes.encode(raw, encoding(of: value) ?? .raw)
        }
        switch value.kind {
        case _ where isCrypto(value):
            guard let raw = decoded(body, value) else { return nil }
            return CryptoPart(value: value, raw: raw, rebuild: { wrap(encoded($0, value)) })
        case let .concat(parts):
            // Split as a receiver does (DescribedConcat); texts must be what they say. A changed part
            // goes back with the length field before it, if any, saying its new length.
            // The part itself, or a concat inside it that holds it (a length-told frame: [type, length, [sealed, mac]]).
            guard let index = parts.firstIndex(where: { part in
                      if case .concat = part.kind { return part.values.contains(where: isCrypto) }
                      return isCrypto(part)
                  }),
                  let pieces = DescribedConcat.split(parts, body, fixedLength: length),
                  zip(parts, pieces).allSatisfy({ part, piece in if case let .text(text) = part.kind { return piece == Data(text.utf8) }; return true })
            else { return nil }
            let rejoin = { (piece: Data) -> DescribedMessage in
                var changed = pieces
                changed[index] = piece
                return wrap(DescribedConcat.join(parts, changed) ?? changed.reduce(Data(), +))
            }
            if case .concat = parts[index].kind {
                return locate(value: parts[index], in: pieces[index], matching: isCrypto, length: length, wrap: rejoin)
            }
            guard let raw = decoded(pieces[index], parts[index]) else { return nil }
            return CryptoPart(value: parts[index], raw: raw, rebuild: { rejoin(encoded($0, parts[index])) })
        case let .json(fields):
            guard let field = fields.first(where: { isCrypto($0.value) }), case let .object(members)? = try? StrictJSON.parse(body),
                  case let .string(text)? = members[field.name], let raw = decoded(Data(text.utf8), field.value) else { return nil }
            return CryptoPart(value: field.value, raw: raw, rebuild: { new in
                var changed = members
                changed[field.name] = .string(String(decoding: encoded(new, field.value), as: UTF8.self))
                return wrap(Data(JSONValue.object(changed).canonicalText.utf8))
            })
        case let .form(fields):
            guard let field = fields.first(where: { isCrypto($0.value) }), let members = DescribedBytes.formFields(body),
                  let text = members[field.name], let raw = decoded(Data(text.utf8), field.value) else { return nil }
            return CryptoPart(value: field.value, raw: raw, rebuild: { new in
                // The fields in the description's order, then any others; only the crypto field changes.
                var changed = members
                changed[field.name] = String(decoding: encoded(new, field.value), as: UTF8.self)
                let order = fields.map(\.name) + members.keys.filter { name in !fields.contains { $0.name == name } }.sorted()
                let pairs = order.compactMap { name in changed[name].map { DescribedBytes.formEscape(name) + "=" + DescribedBytes.formEscape($0) } }
                return wrap(Data(pairs.joined(separator: "&").utf8))
            })
        default:
            return nil
        }
    }
}

/// How a server answered a probe, reduced to what a client can tell apart.
struct AnswerSignature: Equatable, CustomStringConvertible {
    var text: String
    var closed: Bool
    /// A refusal the description gives by its beginning (`starts_with`): its whole text with every
    /// number blanked, compared instead of `text` (whose summary may cut off the varying tail).
    var varyingRefusal: String?
    /// The answer came before our message N was sent (a probe in a message answered only later).
    var before: Int?
    var timing: String { before.map { " (before message \($0) was sent)" } ?? "" }
    var description: String { text + (closed ? " (then closed)" : "") + timing }

    /// The answer with every number-like run as `#`: a run of hex digits, `-`, `.` and `:` of four
    /// or more characters with a decimal digit in it — what two answers of one kind still differ in
    /// when each carries a digest, a request id or a timestamp of its own (implicit rejection gives
    /// every undecryptable ciphertext its own digest; that is no oracle).
    var shape: String {
        if let varyingRefusal { return varyingRefusal + (closed ? " (then closed)" : "") + timing }
        var result = "", run = ""
        func flush() {
            result += run.count >= 4 && run.contains(where: \.isNumber) ? "#" : run
            run = ""
        }
        for character in text {
            if character.isHexDigit || character == "-" || character == "." || character == ":" { run.append(character); continue }
            flush()
            result.append(character)
        }
        flush()
        return result + (closed ? " (then closed)" : "") + timing
    }

    /// `text` with every `0x` hex number and every run of decimal digits as `#`.
    static func numbersBlanked(_ text: String) -> String {
        var result = "", characters = Array(text), index = 0
        while index < characters.count {
            if characters[index] == "0", index + 2 < characters.count, characters[index + 1] == "x" || characters[index + 1] == "X", characters[index + 2].isHexDigit {
                index += 2
                while index < characters.count, characters[index].isHexDigit { index += 1 }
                result.append("#")
            } else if characters[index].isASCII, characters[index].isNumber {
                while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
                result.append("#")
            } else {
                result.append(characters[index])
                index += 1
            }
        }
        return result
    }

    init(_ live: LiveConversation) {
        switch live.probeAnswer {
        case let .bytes(data)?:
            text = data.isEmpty ? "nothing" : DescribedMessage.bytes(data).summary
            // A refusal whose text the description says varies (`starts_with`, quqiOnfree's error naming
            // the exception it met, with the byte and position): compared whole with its numbers blanked,
            // so "Invalid padding bytes." and "wrong message" stay two answers (a padding oracle).
            if live.party.conversation?.refusalTexts.contains(where: { !$0.whole && $0.matches(data) }) == true {
                varyingRefusal = Self.numbersBlanked(String(decoding: data, as: UTF8.self))
            }
        case let .response(status, _, body)?: text = "\(status)\(live.probeReason.map { " " + $0 } ?? "") \(DescribedMessage.bytes(body).summary)"
        default: text = live.transportError.map { "no answer (\($0))" } ?? "no answer"
        }
        closed = live.closedByServer
        before = live.answeredBefore
    }
}

extension DescribedRemoteRun {
    /// The client messages of a conversation, each with its step and whether the server answers it.
    func clientSteps(_ conversation: ProtocolDescription.Conversation) -> [(index: Int, step: ProtocolDescription.Step, answered: Bool)] {
        var found: [(Int, ProtocolDescription.Step, Bool)] = []
        var index = 0
        for (position, step) in conversation.steps.enumerated() where step.from == .client {
            let next = conversation.steps.dropFirst(position + 1).first
            found.append((index, step, next?.from == .server))
            index += 1
        }
        return found
    }

    /// The client messages whose crypto a probe can be judged on: those the server answers, and on
    /// a socket those it answers only after more of ours (an RSA-wrapped key, then the first sealed
    /// message): the probe goes in the one, the rest are built as usual, and the answer — to the
    /// probe at once, or to the message after it — is judged (a server that reduces the wrapped key
    /// mod n, or tells its paddings apart, shows it there).
    func judgedClientSteps(_ conversation: ProtocolDescription.Conversation) -> [(index: Int, step: ProtocolDescription.Step)] {
        var found: [(Int, ProtocolDescription.Step)] = []
        var index = 0
        for (position, step) in conversation.steps.enumerated() where step.from == .client {
            defer { index += 1 }
            let later = conversation.steps.dropFirst(position + 1)
            if later.first?.from == .server { found.append((index, step)); continue }
            // Only client steps until a server one, none of them closing (then nothing answers).
            guard !description.transport.isHTTP, !step.closes,
                  let reply = later.firstIndex(where: { $0.from == .server }),
                  !conversation.steps[(position + 1)..<reply].contains(where: \.closes) else { continue }
            found.append((index, step))
        }
        return found
    }

    /// The server's refusal of `kind` as the description states it (`errors.KIND`, else `error`), when it is plain text.
    func errorText(_ conversation: ProtocolDescription.Conversation, kind: RefusalKind? = nil) -> RefusalText? {
        (kind.flatMap { conversation.errors[$0] } ?? conversation.error).flatMap(RefusalText.init)
    }


    /// A probe's answer must be a refusal: HTTP 4xx; on a socket, the description's `error` (or, when
    /// it has none, anything but the answer a correct message gets). Returns the problem, or nil.
    func refusalProblem(_ live: LiveConversation, _ conversation: ProtocolDescription.Conversation, accepted: Bool, kind: RefusalKind? = nil) -> String? {
        switch live.probeAnswer {
        case let .response(status, _, body)?:
            let declaredKind = live.party.declaredRefusalKind(status: status, body: body)
            if let kind, let declared = conversation.httpErrors[kind] {
                // The description says how this kind is refused (`errors`): that status, that body.
                if declaredKind == kind { return nil }
                return "answered \(status) \(DescribedMessage.bytes(body).summary), not the description's refusal of kind \(kind.rawValue) (status \(declared.status)\(declared.body == nil ? "" : " with its body"))"
                    + (accepted ? ", as if the message were correct" : "")
            }
            if declaredKind != nil { return nil }  // a refusal the description declares, even a 200
            if (200..<300).contains(status) { return "answered \(status) \(DescribedMessage.bytes(body).summary), a success status: a client that checks the status takes it as an answer" }
            if status == conversation.errorStatus { return nil }  // the refusal the description declares, even a 5xx
            if status >= 500 { return "answered \(status) \(DescribedMessage.bytes(body).summary): an error of its own, not a refusal (4xx)" }
            return nil
        case let .bytes(data)?:
            if accepted { return "answered \(DescribedMessage.bytes(data).summary), as if the message were correct" }
            // Any refusal (no kind): the description's `error` or any of its per-kind `errors`.
            let declaredAny = kind == nil && conversation.errors.values.contains { RefusalText($0)?.matches(data) ?? false }
            if let error = errorText(conversation, kind: kind), !error.matches(data), !declaredAny {
                return "answered \(DescribedMessage.bytes(data).summary), not the description's error \(error.said)"
            }
            // A refusing server sends the error and closes (docs/PROTOCOL-DESCRIPTIONS.md, "Engines"),
            // unless the description says it reads on (`error_then = "keep-open"`).
            if conversation.errorThen == .close, !live.closedByServer {
                return "answered \(DescribedMessage.bytes(data).summary) but kept the connection open: a refusal closes it (or say `error_then = \"keep-open\"`)"
            }
            if conversation.errorThen == .keepOpen, live.closedByServer {
                return "answered \(DescribedMessage.bytes(data).summary) and closed the connection; the description says it reads on after a refusal (error_then = \"keep-open\")"
            }
            return nil
        default:
            if let error = live.transportError, error.hasPrefix("cannot connect") { return "could not be reached (\(error)): an earlier probe took it down" }
            // A connection dropped mid-answer (an HTTP handler that raised) is no open connection.
            if description.transport.isHTTP, !live.closedByServer, let error = live.transportError { return "gave no answer (\(error))" }
            guard live.closedByServer else { return "gave no answer and kept the connection open" }
            // A close is the refusal only where the description states none: one that says what the
            // server sends (`error`) or that it reads on (keep-open) is not met by a silent close — the
            // client waits for an answer the protocol promises.
            if let error = errorText(conversation, kind: kind) {
                return "closed the connection without a word; the description's refusal is \(error.said)"
                    + (conversation.errorThen == .keepOpen ? ", after which it reads on (error_then = \"keep-open\")" : "")
            }
            return nil
        }
    }

    /// A probe answered by a close: is the server still there? One that is gone crashed on the probe
    /// — a failure of its own, and the check `name` is the one later checks are skipped for (as
    /// serves-again and survives do), so that nothing after is blamed for it. Whatever it answered
    /// first: a server that sends its own key before it loads the client's (wenyupeng/securex) has
    /// answered the probe and still dies on it. (The probes run only once serves-again has passed.)
    func failIfTakenDown(_ live: LiveConversation, by name: String, what: String) throws {
        guard live.closedByServer || live.transportError != nil else { return }
        let silent: Bool = { if case let .bytes(data)? = live.probeAnswer { return data.isEmpty }; return live.probeAnswer == nil }()
        if !silent {
            // An answer, then a close: most such servers close after every answer. Only a conversation that
            // no longer completes shows it gone (a bare connection that sends nothing takes some servers down).
            guard let conversation = live.party.conversation?.name, let again = try? conversesAgain(conversation), !again.completed else { return }
        }
        guard takesNoMoreConnections() else { return }
        downSince = name
        throw CheckFailure("after \(what) the server closed the connection and takes no more: bad input takes it down", details: show(live))
    }

    /// Whether the server takes no more connections: a connect is refused, or the connection ends at
    /// once without a word — a process that is still exiting completes a handshake on its listening
    /// socket, then resets it (the seventh review's F4: a crash seen as a mere close, and the next
    /// probe blamed). A server that waits for the client's first message, or answers it, is there.
    func takesNoMoreConnections() -> Bool {
        guard let connection = try? target.connect() else { return true }
        defer { connection.close() }
        do {
            return try connection.read(upTo: 1, timeout: 0.3).isEmpty
        } catch TransportError.timedOut {
            return false
        } catch {
            return true
        }
    }

    // MARK: refusals

    /// What no correct server accepts, one class per crypto part: an RSA ciphertext not below the
    /// modulus (RFC 8017 §5.1.2 RSADP step 1), an AEAD or Fernet value with a flipped bit (its tag
    /// fails), a CBC/ECB ciphertext one byte short of its blocks. After each, a fresh conversation
    /// must still complete.
    func checkRefusals(_ conversation: ProtocolDescription.Conversation, _ known: LiveConversation) {
        for (index, step) in judgedClientSteps(conversation) {
            checkPointOffCurve(conversation, known, index: index, step: step)
            guard let classes = refusalClasses(step) else { continue }
            for (name, kind, matching, transform) in classes {
                self.step("\(conversation.name).refuses.message-\(index + 1).\(name)") {
                    var changed: DescribedValue?
                    let live = try converse(conversation.name, stopAfter: index + 1) { position, _, message in
                        guard position == index, let part = CryptoPart.locate(description, in: message, step: step, matching: matching) else { return message }
                        changed = part.value
                        return part.rebuild(transform(part))
                    }
                    guard let changed else {
                        if let error = live.transportError, error.hasPrefix("cannot connect") { return .skipped(reason: "not run: the server took no connection for it (\(error))") }
                        return .skipped(reason: "the message's \(name) part could not be taken apart")
                    }
                    try failIfTakenDown(live, by: "\(conversation.name).refuses.message-\(index + 1).\(name)", what: name)
                    let accepted = acknowledged(live, conversation)
                    if let problem = refusalProblem(live, conversation, accepted: accepted, kind: kind) {
                        // Taking a message whose tag, MAC or signature is wrong: it does not verify it.
                        let unverified = accepted && kind == .authentication ? " — it does not verify the \(changed.authenticator)" : ""
                        throw CheckFailure("\(name): the server \(problem)\(unverified)", details: show(live))
                    }
                    let after = try conversesAgain(conversation.name)
                    guard after.completed else {
                        throw CheckFailure("after refusing \(name), the server no longer completes a conversation", details: show(after))
                    }
                    return .passed
                }
            }
            checkModulusAdded(conversation, known, index: index, step: step)
            checkTagLeftOut(conversation, index: index, step: step)
        }
    }

    /// An AEAD tag in a JSON field of its own, left out altogether: a reader that verifies a tag only
    /// when one is sent (`if "tag" in body: cipher.verify(body["tag"])`) takes a forged message.
    /// Judged as any refusal (the description's `error`, any 4xx), not as an authentication failure:
    /// a missing field is malformed input too.
    func checkTagLeftOut(_ conversation: ProtocolDescription.Conversation, index: Int, step: ProtocolDescription.Step) {
        guard let value = step.send ?? step.body else { return }
        let tagged = value.values.lazy.compactMap { part -> (SealedCipher, String)? in
            guard case let .sealed(sealed) = part.kind, case let .field(field) = sealed.tag else { return nil }
            return (sealed.cipher, field)
        }.first
        guard let (cipher, field) = tagged else { return }
        let name = "\(conversation.name).refuses.message-\(index + 1).\(cipher.rawValue)-tag-left-out"
        self.step(name) {
            func without(_ body: Data) -> Data? {
                guard case var .object(members)? = try? StrictJSON.parse(body), members[field] != nil else { return nil }
                members[field] = nil
                return Data(JSONValue.object(members).canonicalText.utf8)
            }
            var changed = false
            let live = try converse(conversation.name, stopAfter: index + 1) { position, _, message in
                guard position == index else { return message }
                switch message {
                case let .request(method, path, headers, body):
                    guard let rest = without(body) else { return message }
                    changed = true
                    return .request(method: method, path: path, headers: headers, body: rest)
                case let .bytes(data):
                    guard let rest = without(data) else { return message }
                    changed = true
                    return .bytes(rest)
                case .response:
                    return message
                }
            }
            guard changed else { return .skipped(reason: "the tag field \"\(field)\" is not a member of the message's JSON object") }
            try failIfTakenDown(live, by: name, what: "a message without its tag")
            let accepted = acknowledged(live, conversation)
            if let problem = refusalProblem(live, conversation, accepted: accepted) {
                throw CheckFailure("a message without its tag field \"\(field)\": the server \(problem)" + (accepted ? " — it verifies a tag only when one is sent" : ""),
                                   details: show(live))
            }
            let after = try conversesAgain(conversation.name)
            guard after.completed else {
                throw CheckFailure("after refusing a message without its tag, the server no longer completes a conversation", details: show(after))
            }
            return .passed
        }
    }

    /// The client's EC public key replaced by a point off the curve: a server must refuse it (SEC 1
    /// v2 §3.2.2.1; NIST SP 800-56A Rev. 3 §5.6.2.3.3–4). One that takes it computes with a point of
    /// the attacker's choosing on another curve, of small order: its answers give away its private
    /// key a few bits at a time (an invalid-curve attack; Jager, Schwenk, Somorovsky, ESORICS 2015).
    /// Where the server answers the key's message alone, the client's own point with Y + 1 is sent
    /// and any answer but a refusal fails. Where its answer comes only with a ciphertext under the
    /// agreed key (in the same message, or a later one), a refusal shows nothing — the ciphertext
    /// fails either way — so the point is (X, 0), of order 2 on the curve y² = x³ + ax + b′ that
    /// passes through it: a server that does not check computes d·P = P for an odd private key d,
    /// and so the x-coordinate X as its shared secret, under which the client seals. Up to twelve
    /// conversations (a server with a fresh key each: its d is odd in one of them but with probability
    /// 2⁻¹²; four missed one such server in 16, a flaky verdict and a flaky test); a server that keeps
    /// one even key is not caught. A compressed point cannot be off the curve.
    func checkPointOffCurve(_ conversation: ProtocolDescription.Conversation, _ known: LiveConversation, index: Int, step: ProtocolDescription.Step) {
        let isECKey: (DescribedValue) -> Bool = { value in
            guard case let .publicKey(name, format, _) = value.kind, let key = self.description.keys[name] else { return false }
            return key.holder == .client && key.type.isNISTCurve && format != .x962Compressed
        }
        guard let value = step.send ?? step.body, let keyValue = value.values.first(where: isECKey),
              case let .publicKey(keyName, format, _) = keyValue.kind else { return }
        let agreed = Set(description.secrets.values.filter { $0.agreement?.keys.contains(keyName) == true }.map(\.name))
        let sealsWithIt = value.values.contains { part in
            switch part.kind {
            case let .sealed(sealed): return agreed.contains(sealed.secret)
            case let .mac(secret, _, _, _): return agreed.contains(secret)
            default: return false
            }
        }
        let position = conversation.steps.firstIndex(of: step) ?? 0
        let answeredAlone = conversation.steps.dropFirst(position + 1).first?.from == .server && !sealsWithIt
        let name = "\(conversation.name).refuses.message-\(index + 1).ec-point-not-on-curve"
        self.step(name) {
            if answeredAlone {
                var changed = false
                let live = try converse(conversation.name, stopAfter: index + 1) { position, party, message in
                    guard position == index, let own = party.knownCurvePublicKeys[keyName]?.ecKey,
                          let part = CryptoPart.locate(description, in: message, step: step, matching: isECKey),
                          let bytes = DescribedBytes.export(point: Self.yPlusOne(own.x963Representation), like: own, format) else { return message }
                    changed = true
                    return part.rebuild(bytes)
                }
                guard changed else { return .skipped(reason: "the message's key could not be taken apart") }
                try failIfTakenDown(live, by: name, what: "a point off the curve")
                let accepted = acknowledged(live, conversation)
                if let problem = refusalProblem(live, conversation, accepted: accepted) {
                    throw CheckFailure("a public key off the curve (the client's point with Y + 1): the server \(problem)"
                                       + (accepted ? " — it does not check that a received point is on its curve (SEC 1 v2 §3.2.2.1), the precondition of an invalid-curve attack" : ""),
                                       details: show(live))
                }
                return .passed
            }
            guard !agreed.isEmpty, let own = known.party.knownCurvePublicKeys[keyName]?.ecKey else {
                return .skipped(reason: "the key's message is answered only with what follows it, and no agreement uses the key: a refusal would show nothing")
            }
            var generator = SeededGenerator.forCheck(name, seed: options.seed)
            let coordinate = own.rawRepresentation.count / 2
            // A key the server keeps for every conversation gives the same answer each time: once is enough.
            let serverKeyIsFixed = agreed.contains { description.secrets[$0]?.agreement?.keyIsPreshared(heldBy: .server, in: description) == true }
            var first: LiveConversation?
            for _ in 0..<(serverKeyIsFixed ? 1 : 12) {
                // X below p on every NIST curve (its first byte under 0x80); Y = 0, so (X, 0) is on the curve only if X is a root of x³ + ax + b — never, by chance.
                var x = generator.bytes(coordinate)
                x[x.startIndex] &= 0x7f
                let point = Data([0x04]) + x + Data(count: coordinate)
                let live = try converse(conversation.name, stopAfter: index + 1, probe: (index, .agreementPoint(point, sharedSecret: x)))
                if acknowledged(live, conversation) {
                    throw CheckFailure("a public key off the curve (the point (X, 0), of order 2 on another curve): the server answered a message sealed under the key that point gives an odd private key (\(AnswerSignature(live))) — it does not check that a received point is on its curve (SEC 1 v2 §3.2.2.1); an invalid-curve attack learns its private key from such answers",
                                       details: show(live))
                }
                try failIfTakenDown(live, by: name, what: "a point off the curve")
                if first == nil { first = live }
            }
            if let first, let problem = refusalProblem(first, conversation, accepted: false) {
                throw CheckFailure("a public key off the curve (the point (X, 0)): the server \(problem)", details: show(first))
            }
            return .passed
        }
    }

    /// A SEC 1 point `04‖X‖Y` with Y + 1: off the curve (y² = x³ + ax + b holds for Y, so not for Y + 1).
    static func yPlusOne(_ point: Data) -> Data {
        var bytes = [UInt8](point)
        for position in stride(from: bytes.count - 1, to: bytes.count / 2, by: -1) {
            bytes[position] &+= 1
            if bytes[position] != 0 { break }
        }
        return Data(bytes)
    }

    /// A valid RSA ciphertext c sent as c + n: a server that reduces mod n (`pow(c, d, n)` with no range
    /// check) decrypts it and answers as if it were c; RFC 8017 §5.1.2 step 1 refuses anything not below
    /// n. The all-0xff probe cannot show this: reduced, it is random bytes whose padding fails either way.
    func checkModulusAdded(_ conversation: ProtocolDescription.Conversation, _ known: LiveConversation, index: Int, step: ProtocolDescription.Step) {
        guard let value = step.cryptoValue, let (keyName, padding) = rsaTarget(value), let key = known.party.knownPublicKeys[keyName] else { return }
        // Per-character RSA has a block per character, each below n ≤ 32767: not one ciphertext to add n to.
        guard padding != .perCharacter else { return }
        self.step("\(conversation.name).refuses.message-\(index + 1).rsa-plus-modulus") {
            let n = [UInt8](RSAInvalidKeys.modulus(of: key))
            let modulus = [UInt8](repeating: 0, count: max(0, key.modulusByteCount - n.count)) + n
            // c + n must still fit in k bytes: c below 2^(8k) − n, drawn again until it is.
            let fits: @Sendable (Data) -> Bool = { Self.addedBigEndian([UInt8]($0), modulus) != nil }
            var changed = false
            let live: LiveConversation
            do {
                live = try converse(conversation.name, stopAfter: index + 1, probe: (index, .rsaCiphertextWhere(fits))) { position, _, message in
                    guard position == index, let part = CryptoPart.locate(description, in: message, step: step, matching: \.isRSA),
                          let sum = Self.addedBigEndian([UInt8](part.raw), modulus) else { return message }
                    changed = true
                    return part.rebuild(Data(sum))
                }
            } catch let DescriptionError.partySetup(reason) {
                // The party says how many ciphertexts it drew: textbook RSA has one per message, and only a
                // message the party drew itself, unread, may be drawn again.
                return .skipped(reason: "no ciphertext of the message is below 2^\(8 * key.modulusByteCount) − n, so c + n does not fit in k bytes (\(reason))")
            }
            // The message unchanged would be taken: only a ciphertext actually sent as c + n is judged.
            guard changed else { return .skipped(reason: "the message's RSA part could not be taken apart") }
            if acknowledged(live, conversation) {
                throw CheckFailure("the server took a valid ciphertext plus its modulus (c + n) as the message itself (\(AnswerSignature(live))): it reduces mod n instead of refusing a ciphertext not below the modulus (RFC 8017 §5.1.2 step 1)",
                                   details: show(live))
            }
            return .passed
        }
    }

    /// a + b for big-endian numbers of one length; nil when the sum needs another byte.
    static func addedBigEndian(_ a: [UInt8], _ b: [UInt8]) -> [UInt8]? {
        guard a.count == b.count else { return nil }
        var sum = [UInt8](repeating: 0, count: a.count), carry = 0
        for position in stride(from: a.count - 1, through: 0, by: -1) {
            let total = Int(a[position]) + Int(b[position]) + carry
            sum[position] = UInt8(total & 0xff)
            carry = total >> 8
        }
        return carry == 0 ? sum : nil
    }

    /// A message authenticated by a signature or a MAC, sent again byte for byte on a new
    /// connection: a server that takes it again verifies nothing fresh (no nonce, timestamp or
    /// challenge of its own), so one recording authenticates forever — a replay attack (RFC 4949,
    /// "replay attack"; a signature or MAC proves who made a message, not when: FIPS 186-5 §3,
    /// RFC 2104 §1). A finding, not a failure: the description may mean it.
    func checkAuthenticatedReplay(_ conversation: ProtocolDescription.Conversation) {
        for (index, step, answered) in clientSteps(conversation) where answered {
            guard step.values.contains(where: { $0.isSignature || $0.isMAC }) else { continue }
            self.step("\(conversation.name).replay.message-\(index + 1)") {
                var recorded: DescribedMessage?
                let first = try converse(conversation.name, stopAfter: index + 1) { position, _, message in
                    if position == index { recorded = message }
                    return message
                }
                guard let recorded, acknowledged(first, conversation) else {
                    return .skipped(reason: "the authenticated message was not taken the first time (\(AnswerSignature(first))): nothing to replay")
                }
                let again = try converse(conversation.name, stopAfter: index + 1) { position, _, message in position == index ? recorded : message }
                if acknowledged(again, conversation) {
                    finding("\(conversation.name).accepts-replay.message-\(index + 1)",
                            "the server took authenticated message \(index + 1) again when it was sent a second time, byte for byte (\(AnswerSignature(again))): nothing it verifies is fresh, so anyone who records one request can replay it (RFC 4949) — sign or MAC a nonce or timestamp the server checks")
                }
                return .passed
            }
        }
    }

    /// A client's public key with e = 1 (RFC 8017 §3.1: 3 ≤ e < n; with e = 1 "encryption" is the
    /// identity): the server must refuse it, and above all must not send the message in the clear.
    func checkExponentOneKey(_ conversation: ProtocolDescription.Conversation, _ known: LiveConversation) {
        for (index, step, answered) in clientSteps(conversation) where answered {
            let isKey: (DescribedValue) -> Bool = { value in
                if case let .publicKey(name, format, _) = value.kind { return self.description.keys[name]?.type == .rsa && format != .pemPKCS1 && format != .derPKCS1 }
                return false
            }
            guard let value = step.send ?? step.body, value.values.contains(where: isKey) else { continue }
            self.step("\(conversation.name).refuses.message-\(index + 1).public-key-exponent-1") {
                var probeFormat: PublicKeyFormat?
                var modulusBytes = 0
                let live = try converse(conversation.name, stopAfter: index + 1) { position, party, message in
                    guard position == index, let part = CryptoPart.locate(description, in: message, step: step, matching: isKey),
                          case let .publicKey(name, format, _) = part.value.kind, let key = party.knownPublicKeys[name] else { return message }
                    probeFormat = format
                    modulusBytes = key.modulusByteCount
                    let modulus = RSAInvalidKeys.modulus(of: key)
                    switch format {
                    case .jsonNE: return part.rebuild(Data("{\"n\":\(DescribedBytes.decimal(modulus)),\"e\":1}".utf8))
                    case .jwk: return part.rebuild(Data("{\"kty\":\"RSA\",\"n\":\"\(DescribedBytes.base64url(modulus, padded: false))\",\"e\":\"AQ\"}".utf8))
                    case .derSPKI: return part.rebuild(RSAInvalidKeys.subjectPublicKeyInfo(modulus: modulus, exponent: Data([1])))
                    case .pemSPKINewline: return part.rebuild(RSAInvalidKeys.spkiPEM(modulus: modulus, exponent: Data([1])) + Data("\n".utf8))
                    default: return part.rebuild(RSAInvalidKeys.spkiPEM(modulus: modulus, exponent: Data([1])))
                    }
                }
                guard probeFormat != nil else { return .skipped(reason: "the client's key could not be taken apart in this message") }
                if let answer = live.probeAnswer {
                    // A weakness, as the rsa-socket profile reports it (RSARefusals, "client-key-exponent-1"):
                    // the server's library let the key through (pyca < 42 loads e = 1), the client did not ask for it.
                    // The RSA value of the answer is its ciphertext to that key: the whole answer, or
                    // the part of it the description's next server step says (a field, an encoding).
                    var candidates: [Data] = []
                    if case let .bytes(whole) = answer { candidates.append(whole) }
                    if let position = conversation.steps.firstIndex(of: step),
                       let next = conversation.steps.dropFirst(position + 1).first(where: { $0.from == .server }) {
                        if let part = CryptoPart.locate(description, in: answer, step: next, matching: \.isRSA) { candidates.append(part.raw) }
                        // Beside a value of no fixed length (RSA-wrapped key ‖ IV ‖ ciphertext): taken by its
                        // place, the RSA value being as long as the modulus of the key it was made for.
                        if case let .bytes(whole) = answer, case let .concat(parts)? = next.send?.kind,
                           let at = parts.firstIndex(where: \.isRSA), case let .rsa(_, _, _, encoding) = parts[at].kind,
                           let length = encoding.encodedLength(modulusBytes) {
                            let offset = parts[..<at].reduce(Optional(0)) { sum, part in
                                if case let .text(text) = part.kind { return sum.map { $0 + text.utf8.count } }
                                return nil
                            }
                            if let offset, whole.count >= offset + length,
                               let raw = try? DescribedBytes.decode(Data(whole.dropFirst(offset).prefix(length)), encoding, what: "the RSA value") {
                                candidates.append(raw)
                            }
                        }
                    }
                    if let leaked = candidates.lazy.compactMap(RSAInvalidKeys.messageInTheClear).first {
                        finding("\(conversation.name).encrypts-to-exponent-1.message-\(index + 1)",
                                "the server encrypted to a client key with e = 1, which is no RSA key (RFC 8017 §3.1: 3 ≤ e < n): the answer is the \(leaked.padding)-encoded message in the clear, \(DescribedMessage.bytes(leaked.message).summary) — refuse such a key before encrypting to it (pyca/cryptography >= 42 refuses it at load)")
                        return .passed
                    }
                }
                if acknowledged(live, conversation) {
                    finding("\(conversation.name).accepts-exponent-1.message-\(index + 1)",
                            "the server took a client key with e = 1, which is no RSA key (RFC 8017 §3.1: 3 ≤ e < n), and answered as to a good one (\(AnswerSignature(live))): what it encrypts to that key is in the clear — refuse such a key (pyca/cryptography >= 42 refuses it at load)")
                    return .passed
                }
                if let problem = refusalProblem(live, conversation, accepted: false) {
                    throw CheckFailure("a key with e = 1: the server \(problem) (RFC 8017 §3.1: e ≥ 3)", details: show(live))
                }
                return .passed
            }
        }
    }

    /// `refuses.message-N.over-max-message`, where the description states `max_message` (the
    /// server is said to refuse longer messages) and frames by length or by line: the first client
    /// message the server answers, as a length prefix of max_message + 1 and 64 bytes of it, or as
    /// max_message + 64 bytes with no line end (a reader that takes a line of max_message bytes
    /// and its line end may hold max_message + 2 bytes before it can tell: the review of stop 49,
    /// a CRLF reader failed at + 1). The refusal may be the description's error or a bare close, as
    /// the seed's framed limit is (docs/PROTOCOL.md, "Framing"); waiting for the rest fails — a
    /// reader that believes the length, or buffers a line without bound, is one any client can make
    /// hold memory. A 2-byte prefix that cannot say max_message + 1 has no probe.
    func checkOverMaxMessage(_ conversation: ProtocolDescription.Conversation) {
        let transport = description.transport
        guard transport.statesMaxMessage, transport.framing == .lengthPrefix || transport.framing == .line,
              let first = clientSteps(conversation).first(where: \.answered) else { return }
        let over = transport.maxMessage + (transport.framing == .lengthPrefix ? 1 : 64)
        let wire: Data
        if transport.framing == .lengthPrefix {
            guard over < 1 << (8 * transport.lengthBytes) else { return }
            let prefix = stride(from: (transport.lengthBytes - 1) * 8, through: 0, by: -8).map { UInt8(truncatingIfNeeded: over >> $0) }
            wire = Data(prefix) + Data(repeating: 0x41, count: min(64, over))
        } else {
            wire = Data(repeating: 0x41, count: over)
        }
        let name = "\(conversation.name).refuses.message-\(first.index + 1).over-max-message"
        step(name) {
            let live = try converse(conversation.name, stopAfter: first.index + 1, unframed: first.index) { position, _, message in
                position == first.index ? .bytes(wire) : message
            }
            let said = transport.framing == .lengthPrefix
                ? "a length prefix of \(over) (max_message is \(transport.maxMessage)) and 64 bytes"
                : "\(over) bytes without a line end (max_message is \(transport.maxMessage))"
            // The header (or the bytes past the limit) is all a reader needs to refuse: one that
            // answers only when its own per-read deadline ends was waiting for the rest. "At once" is
            // 2 s (or four quiet gaps on a slower link), at most half the timeout: a reader whose own
            // deadline is shorter cannot be told from one that refuses (the stop-49 review, F3).
            let atOnce = min(options.timeout / 2, max(2, 4 * options.quietGap))
            let waits = transport.framing == .lengthPrefix ? "waited for the rest of the message its length announced" : "waited for the rest of the line"
            if live.probeAnswer == nil, !live.closedByServer {
                throw CheckFailure("sent \(said), the server \(waits) (no refusal, no close, by our deadline of \(Int(options.timeout)) s): it does not hold to max_message, so any client can make it hold memory — refuse a longer message at once, as the description says",
                                   details: show(live))
            }
            if let latency = live.probeLatency, latency > atOnce {
                throw CheckFailure("sent \(said), the server \(waits) for \(String(format: "%.1f", latency)) s before it \(live.probeAnswer == nil ? "closed" : "answered"): it does not hold to max_message (a refusal needs nothing after the limit), so any client can make it hold memory — refuse a longer message at once, as the description says",
                                   details: show(live))
            }
            try failIfTakenDown(live, by: name, what: "a message over max_message")
            // A bare close is a refusal here whatever the description's error: the seed's own rule for
            // its framed limit, and what a reader that stops reading does.
            if live.probeAnswer != nil, let problem = refusalProblem(live, conversation, accepted: acknowledged(live, conversation)) {
                throw CheckFailure("sent \(said), the server \(problem)", details: show(live))
            }
            let after = try conversesAgain(conversation.name)
            guard after.completed else {
                throw CheckFailure("after refusing a message over max_message, the server no longer completes a conversation", details: show(after))
            }
            return .passed
        }
    }

    /// Every client message the server answers, replaced by bytes of no meaning (as long, or `{}`
    /// for a JSON body): whatever the server answers, it must still complete a conversation after
    /// it — a server that dies on bad input is down for every phone (the most common flaw in the
    /// public servers read for issue 31).
    func checkSurvivesGarbage(_ conversation: ProtocolDescription.Conversation) {
        for (index, step, _) in clientSteps(conversation) {
            self.step("\(conversation.name).survives.message-\(index + 1).garbage") {
                var generator = SeededGenerator.forCheck("\(conversation.name).garbage.\(index)", seed: options.seed)
                let probe = try converse(conversation.name, stopAfter: index + 1) { position, _, message in
                    guard position == index else { return message }
                    switch message {
                    case let .bytes(data): return .bytes(Data(generator.bytes(max(data.count, 16)).map { $0 == 0x0a ? 0x2e : $0 }))
                    case let .request(method, path, headers, _): return .request(method: method, path: path, headers: headers, body: Data("{}".utf8))
                    case .response: return message
                    }
                }
                // Never sent: a server that took no connection for it was not taken down by it (one that
                // serves a single client fails serves-again for that).
                if let error = probe.transportError, error.hasPrefix("cannot connect") {
                    return .skipped(reason: "not run: the server took no connection for the garbage (\(error))")
                }
                let after = try conversesAgain(conversation.name)
                // The description's own conversation is the yardstick: done, and if it ends with the
                // client, the server still takes a connection after it.
                let alive = after.completed && (conversation.steps.last?.from == .server || (try? target.connect().close()) != nil)
                guard alive else {
                    // Down for good (not a conversation gone wrong): the checks after this one are not run.
                    if takesNoMoreConnections() { downSince = "\(conversation.name).survives.message-\(index + 1).garbage" }
                    throw CheckFailure("after message \(index + 1) was garbage (it answered \(AnswerSignature(probe))), the server no longer completes a conversation: bad input takes it down",
                                       details: show(after))
                }
                // HTTP: garbage is refused (4xx, a client error: RFC 9110 §15.5), not met with an error of
                // the server's own (5xx, §15.6) — an unhandled exception (a KeyError on a missing field),
                // unless the description says so.
                if case let .response(status, _, body)? = probe.probeAnswer, status >= 500, status != conversation.errorStatus {
                    throw CheckFailure("message \(index + 1) as garbage (a body of {}) got \(status) \(DescribedMessage.bytes(body).summary): an error of the server's own (an unhandled exception), not a refusal (4xx)",
                                       details: show(probe))
                }
                // A JSON or form body has its fields, and `{}` has none: a server that answers it as it
                // answers the message did not read what it took (a bare `except` answering 200, or no check at all).
                if step.body?.hasFields == true, case let .response(status, _, body)? = probe.probeAnswer, acknowledged(probe, conversation) {
                    throw CheckFailure("message \(index + 1) as garbage (a body of {}, without the fields the description's body has) got \(status) \(DescribedMessage.bytes(body).summary): a success status for a message it cannot have read — a client that checks the status takes it as an answer",
                                       details: show(probe))
                }
                return .passed
            }
        }
        // A key that does not load, in the message's own shape (its text around it kept): the
        // import a server does first, and the crash the tutorial's loop has (Tests/Zoo crash-on-bad-input).
        let isKey: (DescribedValue) -> Bool = { if case .publicKey = $0.kind { return true }; return false }
        for (index, step, answered) in clientSteps(conversation) where answered {
            guard let value = step.send ?? step.body, value.values.contains(where: isKey) else { continue }
            self.step("\(conversation.name).survives.message-\(index + 1).key-that-does-not-load") {
                var changed = false
                let probe = try converse(conversation.name, stopAfter: index + 1) { position, _, message in
                    guard position == index, let part = CryptoPart.locate(description, in: message, step: step, matching: isKey),
                          case let .publicKey(_, format, _) = part.value.kind else { return message }
                    changed = true
                    switch format {
                    case .pemSPKI, .pemSPKINewline: return part.rebuild(Data("-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----".utf8))
                    case .pemPKCS1: return part.rebuild(Data("-----BEGIN RSA PUBLIC KEY-----\nMIIBCgKCAQEA\n-----END RSA PUBLIC KEY-----".utf8))
                    case .derSPKI, .derPKCS1: return part.rebuild(Data([0x30, 0x82, 0x01, 0x22, 0x30, 0x0d]))
                    case .jsonNE: return part.rebuild(Data("{\"n\":15,\"e\":3}".utf8))
                    case .jwk: return part.rebuild(Data("{\"kty\":\"RSA\",\"n\":\"Dw\",\"e\":\"Aw\"}".utf8))
                    // A point of the right length whose first byte names no SEC 1 form (v2 §2.3.4).
                    case .x962, .x962Compressed: return part.rebuild(Data([0x05]) + Data(repeating: 0x11, count: part.raw.count - 1))
                    // X‖Y: neither coordinate below p (all ones); X25519 takes any 32 bytes, so one byte short
                    // (its all-zero key is a check RFC 7748 §6.1 leaves optional, not a key that does not load).
                    case .raw: return part.rebuild(part.raw.count == 32 ? Data(repeating: 0x09, count: 31) : Data(repeating: 0xff, count: part.raw.count))
                    case .exponent, .modulus: changed = false; return message  // a pickle's numbers: not located here
                    }
                }
                // A message sent unchanged would be taken: only a key actually replaced is judged.
                guard changed else { return .skipped(reason: "the message's key could not be taken apart") }
                try failIfTakenDown(probe, by: "\(conversation.name).survives.message-\(index + 1).key-that-does-not-load", what: "a key that does not load")
                if let problem = refusalProblem(probe, conversation, accepted: acknowledged(probe, conversation)) {
                    throw CheckFailure("a key that does not load: the server \(problem)", details: show(probe))
                }
                let after = try conversesAgain(conversation.name)
                guard after.completed else {
                    if takesNoMoreConnections() { downSince = "\(conversation.name).survives.message-\(index + 1).key-that-does-not-load" }
                    throw CheckFailure("after a key that does not load (it answered \(AnswerSignature(probe))), the server no longer completes a conversation: bad input takes it down",
                                       details: show(after))
                }
                return .passed
            }
        }
    }

    /// A wrong password (a `config` value changed) and a token the server never issued: refused
    /// (OWASP ASVS V2/V3: a login and a session that take anything protect nothing).
    func checkCredentials(_ conversation: ProtocolDescription.Conversation) {
        for (index, step, answered) in clientSteps(conversation) where answered {
            let configs = step.values.compactMap { value -> String? in if case let .config(name) = value.kind { return name }; return nil }
            if let name = configs.first(where: { $0 == "password" }) ?? configs.first {
                self.step("\(conversation.name).refuses.message-\(index + 1).wrong-\(name)") {
                    var config = options.config
                    config[name] = (config[name] ?? "") + "-wrong"
                    let live = try converse(conversation.name, stopAfter: index + 1, config: config)
                    if let problem = refusalProblem(live, conversation, accepted: acknowledged(live, conversation)) {
                        throw CheckFailure("a wrong \(name): the server \(problem)", details: show(live))
                    }
                    return .passed
                }
            }
            let issued: (DescribedValue) -> Bool = { if case .token(.issued) = $0.kind { return true }; return false }
            let tokenHeaders = step.headers.filter { issued($0.value) }.map(\.name)
            guard !tokenHeaders.isEmpty else { continue }
            self.step("\(conversation.name).refuses.message-\(index + 1).token-never-issued") {
                let live = try converse(conversation.name, stopAfter: index + 1) { position, _, message in
                    guard position == index, case let .request(method, path, headers, body) = message else { return message }
                    var forged = headers
                    for name in tokenHeaders { forged[name] = String(repeating: "0", count: max(headers[name]?.count ?? 32, 8)) }
                    return .request(method: method, path: path, headers: forged, body: body)
                }
                if let problem = refusalProblem(live, conversation, accepted: acknowledged(live, conversation)) {
                    throw CheckFailure("a token the server never issued: the server \(problem)", details: show(live))
                }
                return .passed
            }
        }
    }

    /// Legacy framing carries raw bytes with nothing around them: an RSA ciphertext holding `\r\n`,
    /// or ending in a line end, must arrive whole (docs/PROTOCOL.md "Framing": the tutorial server's
    /// `replace("\r\n", "")` and a `strip()` corrupt such ciphertexts).
    func checkBinarySafety(_ conversation: ProtocolDescription.Conversation, _ known: LiveConversation) {
        guard description.transport.kind == .tcp, description.transport.framing == .legacy else { return }
        for (index, step, answered) in clientSteps(conversation) where answered {
            // Not on textbook RSA: a message has one ciphertext, and one with a line end in it needs other
            // messages, which the probe may draw only for a message the client made and nothing read.
            guard let value = step.send, let (_, padding) = rsaTarget(value), !padding.isUnpadded else { continue }
            let hazards: [(String, @Sendable (Data) -> Bool)] = [
                ("crlf-inside", { $0.dropLast().range(of: Data([0x0d, 0x0a])) != nil }),
                ("line-end-last", { $0.last == 0x0a }),
            ]
            for (name, hazard) in hazards {
                self.step("\(conversation.name).binary-safety.message-\(index + 1).\(name)") {
                    // Drawn in the conversation, to the key the server sent on this connection.
                    let live = try converse(conversation.name, probe: (index, .rsaCiphertextWhere(hazard)))
                    guard live.completed else {
                        throw CheckFailure("a ciphertext with \(name == "crlf-inside" ? "\\r\\n inside" : "a line end last") did not get through: the server corrupts binary data (a line-end replace or strip on raw ciphertext)",
                                           details: show(live) + "\n" + (live.party.refusal?.reason ?? ""))
                    }
                    return .passed
                }
            }
        }
    }

    /// The client's PEM key as other clients write it: with CRLF line ends (Windows tools, some iOS
    /// string building), and with a line end after the END line where the description has none. A
    /// receiver takes both: a line end is LF, CRLF or CR (RFC 7468 §3, `eol = CRLF / CR / LF`), and
    /// one line end may follow the END line (docs/PROTOCOL.md, "PEM line ends", which the format's
    /// `public_key` receiver follows). The seeds' rsa-socket profile has asked this of the Pi since
    /// issue 5 (`client-key-format.*`); here for every described PEM key a client sends.
    func checkPEMSpellings(_ conversation: ProtocolDescription.Conversation) {
        let isPEM: (DescribedValue) -> Bool = { value in
            guard case let .publicKey(name, format, _) = value.kind else { return false }
            return self.description.keys[name]?.holder == .client && [.pemSPKI, .pemSPKINewline, .pemPKCS1].contains(format)
        }
        for (index, step, _) in clientSteps(conversation) {  // the whole conversation is run: answered alone or not
            guard let value = step.send ?? step.body, let key = value.values.first(where: isPEM), case let .publicKey(_, format, _) = key.kind else { continue }
            var spellings: [(name: String, said: String, respell: @Sendable (Data) -> Data)] = [
                ("client-key-pem-crlf", "with CRLF line ends", { pem in
                    Data(String(decoding: pem, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n").utf8)
                }),
            ]
            if format != .pemSPKINewline {
                spellings.append(("client-key-pem-line-end-after", "with a line end after its END line", { pem in pem.last == 0x0a ? pem : pem + Data([0x0a]) }))
            }
            for spelling in spellings {
                self.step("\(conversation.name).takes.message-\(index + 1).\(spelling.name)") {
                    var changed = false
                    let live = try converse(conversation.name) { position, _, message in
                        guard position == index, let part = CryptoPart.locate(description, in: message, step: step, matching: isPEM) else { return message }
                        changed = true
                        return part.rebuild(spelling.respell(part.raw))
                    }
                    guard changed else { return .skipped(reason: "the message's key could not be taken apart") }
                    guard live.completed else {
                        throw CheckFailure("the client's key \(spelling.said) did not get through (\(AnswerSignature(live))): a PEM reader takes LF, CRLF or CR line ends and one line end after the END line (RFC 7468 §3), as clients write them",
                                           details: show(live) + "\n" + (live.party.refusal?.reason ?? ""))
                    }
                    return .passed
                }
            }
        }
    }

    /// `takes.message-N.client-key-<format>`: the client's key in each format the description says
    /// the server also accepts (`also_accepts`), in place of `format`: the conversation must complete
    /// (seed 000's server takes PKCS#1 PEM, which iOS's SecKeyCopyExternalRepresentation gives, besides
    /// SPKI: docs/PROTOCOL.md "Padding and keys"; the seed profile's `client-key-format.pkcs1-pem`).
    func checkAlsoAccepted(_ conversation: ProtocolDescription.Conversation) {
        let isAlso: (DescribedValue) -> Bool = { value in
            guard case let .publicKey(name, _, _) = value.kind else { return false }
            return !value.alsoAccepts.isEmpty && self.description.keys[name]?.holder == .client
        }
        for (index, step, _) in clientSteps(conversation) {
            guard let value = (step.send ?? step.body)?.values.first(where: isAlso) else { continue }
            for format in value.alsoAccepts {
                self.step("\(conversation.name).takes.message-\(index + 1).client-key-\(format.rawValue)") {
                    var changed = false
                    let live = try converse(conversation.name) { position, party, message in
                        guard position == index, let part = CryptoPart.locate(description, in: message, step: step, matching: isAlso),
                              case let .publicKey(name, _, _) = part.value.kind, let key = party.knownPublicKeys[name] else { return message }
                        changed = true
                        return part.rebuild(try DescribedBytes.export(key, format))
                    }
                    guard changed else { return .skipped(reason: "the message's key could not be taken apart") }
                    guard live.completed else {
                        throw CheckFailure("the client's key as \(format.rawValue), which the description says the server also accepts (`also_accepts`), did not get through (\(AnswerSignature(live)))",
                                           details: show(live) + "\n" + (live.party.refusal?.reason ?? ""))
                    }
                    return .passed
                }
            }
        }
    }

    /// `kind`: the refusal the class asks for, which a conversation's `errors` may answer its own way.
    typealias RefusalClass = (name: String, kind: RefusalKind?, matching: (DescribedValue) -> Bool, transform: (CryptoPart) -> Data)

    /// The must-refuse classes of a client message: which part each changes and how — its crypto
    /// part's, and a signature's over one of its fields (FIPS 186-5 §6.4.2: a changed signature
    /// does not verify).
    func refusalClasses(_ step: ProtocolDescription.Step) -> [RefusalClass]? {
        var signature: [RefusalClass] = step.values.contains(where: \.isSignature) ? [("signature-bit-flipped", .authentication, \.isSignature, CryptoPart.lastBitFlipped)] : []
        // A MAC after the part it covers (a concat's `of = "previous"`): flipped, it must not verify.
        if step.values.contains(where: \.isMACOfPrevious) { signature.append(("mac-bit-flipped", .authentication, \.isMACOfPrevious, CryptoPart.lastBitFlipped)) }
        let classes = cryptoRefusalClasses(step)
        if classes == nil, signature.isEmpty { return nil }
        return (classes ?? []) + signature
    }

    /// One class per crypto part of the message, each changing that part (an RSA-wrapped key and its
    /// AES-GCM box in one JSON: the RSA block not below the modulus, and the box's tag flipped).
    func cryptoRefusalClasses(_ step: ProtocolDescription.Step) -> [RefusalClass]? {
        guard let value = step.cryptoValue else { return nil }
        var classes: [RefusalClass] = []
        for part in value.values where part.isCryptoPart {
            for found in refusalClasses(of: part, in: value) where !classes.contains(where: { $0.name == found.name }) { classes.append(found) }
        }
        return classes.isEmpty ? nil : classes
    }

    func refusalClasses(of crypto: DescribedValue, in value: DescribedValue) -> [RefusalClass] {
        refusalClassesOfItsBytes(crypto, in: value) + shorterThanItsOverhead(crypto)
    }

    /// A sealed value shorter than the IV it starts with (half of it), or than its tag where only a
    /// tag is in band: no reader can open it, and one that slices `data[:16]` unchecked hands a short
    /// IV or nonce to its library, which raises (pyca: ValueError, "Invalid IV size", a GCM nonce
    /// under 8 bytes) — a server that catches only the padding or tag error dies on it. Judged as any
    /// refusal: the libraries differ in which kind they say. The review of stop 47 (N2).
    func shorterThanItsOverhead(_ crypto: DescribedValue) -> [RefusalClass] {
        guard case let .sealed(sealed) = crypto.kind, sealed.cipher != .fernet else { return [] }
        let parts = sealed.wireParts
        if let separator = sealed.separator {
            return separatedPartsCut(sealed, separator: separator)
        }
        if parts.contains(.iv) {
            return [("\(sealed.cipher.rawValue)-shorter-than-its-iv", nil, \.isSealed, { part in Data(part.raw.prefix(sealed.cipher.ivBytes / 2)) })]
        }
        guard parts.contains(.tag) else { return [] }
        return [("\(sealed.cipher.rawValue)-shorter-than-its-tag", nil, \.isSealed, { part in Data(part.raw.prefix(15)) })]
    }

    /// A separated value's IV or tag cut short in its place, the separators kept: a reader that splits
    /// then reaches its own length checks and its library, as with a short IV or tag it was sent (a
    /// probe without its separators is refused by the split alone). A tag of its own can come short
    /// as a field's can (`-tag-truncated`, `-tag-empty`): pyca's `min_tag_length=4` takes the right
    /// 15 bytes. Any refusal will do: a receiver may say length or authentication. The seventh review (F1, F5).
    func separatedPartsCut(_ sealed: Sealed, separator: Data) -> [RefusalClass] {
        let parts = sealed.wireParts, name = sealed.cipher.rawValue
        func cut(_ which: Sealed.WirePart, _ shorten: @escaping @Sendable (Data) -> Data) -> (CryptoPart) -> Data {
            { part in
                var pieces = Sealed.split(part.raw, on: separator)
                guard pieces.count == parts.count, let at = parts.firstIndex(of: which) else { return Data(part.raw.prefix(1)) }
                pieces[at] = shorten(pieces[at])
                return Data(pieces.joined(separator: separator))
            }
        }
        var classes: [RefusalClass] = []
        if parts.contains(.iv) {
            let half = sealed.cipher.ivBytes / 2
            classes.append(("\(name)-shorter-than-its-iv", nil, \.isSealed, cut(.iv) { Data($0.prefix(half)) }))
        }
        if parts.contains(.tag) {
            classes.append(("\(name)-tag-truncated", nil, \.isSealed, cut(.tag) { Data($0.dropLast()) }))
            classes.append(("\(name)-tag-empty", nil, \.isSealed, cut(.tag) { _ in Data() }))
        }
        return classes
    }

    func refusalClassesOfItsBytes(_ crypto: DescribedValue, in value: DescribedValue) -> [RefusalClass] {
        let flipLast = CryptoPart.lastBitFlipped
        switch crypto.kind {
        case let .rsa(_, padding, _, _) where padding == .perCharacter:
            // Every character U+7FFF: not below any toy modulus (n ≤ 32767), so each is refused as a block is.
            return [("rsa-not-below-modulus", nil, \.isRSA, { part in
                Data(String(repeating: "\u{7FFF}", count: max(1, String(decoding: part.raw, as: UTF8.self).unicodeScalars.count)).utf8)
            })]
        case .rsa:
            return [("rsa-not-below-modulus", nil, \.isRSA, { part in Data(repeating: 0xff, count: part.raw.count) })]
        case let .sealed(sealed):
            let isSealed: (DescribedValue) -> Bool = \.isSealed
            switch sealed.cipher {
            case .aesGCM where sealed.tag == .dropped:
                return []  // no tag: any bytes decrypt, as CTR
            case .aesGCM, .chacha20Poly1305, .aesEAX:
                // The tag where it travels: appended (the sealed value's last byte), or its own field.
                if case .field = sealed.tag {
                    // A tag of its own can also come cut short or empty: a reader that lets the sender
                    // choose the tag's length (pyca's min_tag_length, a compare over the bytes sent)
                    // takes a 1-byte tag, forged in 256 tries. All three tags are 16 bytes here.
                    let isTag: (DescribedValue) -> Bool = { if case .tagOf = $0.kind { return true }; return false }
                    let name = sealed.cipher.rawValue
                    return [("\(name)-tag-bit-flipped", .authentication, isTag, flipLast),
                            ("\(name)-tag-truncated", .authentication, isTag, { part in Data(part.raw.dropLast()) }),
                            ("\(name)-tag-empty", .authentication, isTag, { _ in Data() })]
                }
                if sealed.tag == .before {  // nonce ‖ tag ‖ ciphertext (each after a separator if any): the tag's last bit
                    let tagEnd = (sealed.iv == .prefix ? sealed.cipher.ivBytes + (sealed.separator?.count ?? 0) : 0) + 16
                    return [("\(sealed.cipher.rawValue)-tag-bit-flipped", .authentication, isSealed, { part in
                        var raw = part.raw
                        if raw.count >= tagEnd { raw[raw.startIndex + tagEnd - 1] ^= 0x01 }
                        return raw
                    })]
                }
                return [("\(sealed.cipher.rawValue)-tag-bit-flipped", .authentication, isSealed, flipLast)]
            case .fernet:
                return [("fernet-hmac-bit-flipped", .authentication, isSealed, flipLast)]
            case _ where value.macAlgorithm != nil:
                // A MAC over the ciphertext (encrypt-then-MAC): the right ciphertext with its MAC changed,
                // cut by a byte, or empty — a reader that compares only as many bytes as it was sent
                // (`expected[:len(tag)] == tag`) takes the last two (RFC 2104 §5: a truncated MAC is
                // one the receiver agreed to; it never takes fewer bytes than that).
                let name = value.macAlgorithm!.rawValue
                return [("\(name)-bit-flipped", .authentication, \.isMAC, flipLast),
                        ("\(name)-truncated", .authentication, \.isMAC, { part in Data(part.raw.dropLast()) }),
                        ("\(name)-empty", .authentication, \.isMAC, { _ in Data() })]
            case .aesCBC, .aesECB:
                // Whatever the padding (zero padding too): the block modes take whole blocks only
                // (SP 800-38A §6.1, §6.2); a reader that drops a partial block took bytes it never read.
                return [("\(sealed.cipher.rawValue)-not-whole-blocks", .length, isSealed, { part in Data(part.raw.dropLast()) })]
            default:
                return []  // CTR and stream ciphers: any bytes decrypt; nothing is certainly wrong
            }
        default:
            return []
        }
    }

    // MARK: the RSA padding-oracle audit

    /// Invalid PKCS#1 v1.5 (or OAEP) blocks of several classes, each textbook-encrypted to the
    /// server's key: every class must get the same answer. When they are acknowledged alike and the
    /// answer carries a digest, two blocks of one class must get two digests (a fixed "sentinel"
    /// plaintext is a padding oracle through the digest).
    func checkRSAOracle(_ conversation: ProtocolDescription.Conversation, _ known: LiveConversation) {
        for (index, step) in judgedClientSteps(conversation) {
            guard let value = step.cryptoValue, let (keyName, padding) = rsaTarget(value),
                  let key = known.party.knownPublicKeys[keyName] else { continue }
            guard !padding.isUnpadded else {
                // Textbook RSA (RFC 8017 §5.1.2) checks nothing after decryption: there is no padding to
                // leak. Its own weakness (deterministic, malleable) is reported with the description's.
                let what = padding == .textbook ? "textbook RSA (padding none)" : "per-character RSA"
                record("\(conversation.name).oracle.rsa.message-\(index + 1)", suite: auditSuite,
                       .skipped(reason: "note: \(what) has no padding, so no padding oracle; it is reported weak as it is"), duration: 0)
                continue
            }
            self.step("\(conversation.name).oracle.rsa.message-\(index + 1)") {
                var generator = SeededGenerator.forCheck("\(conversation.name).oracle.rsa.\(index)", seed: options.seed)
                // Where the server answers only after the client's next message, a refusal that comes
                // before it is sent is an answer of its own (Manger 2001: a server that refuses some
                // bad paddings at once, the rest only at the next message). A slow board's RSA takes
                // longer than a quiet gap, so every probe here waits this long first; a server that
                // answers only the next message costs the wait each time.
                let patient = min(options.timeout, max(2.0, options.quietGap * 6))
                let k = key.modulusByteCount
                let classes = Self.invalidBlocks(padding: padding, k: k)
                var signatures: [(String, AnswerSignature, LiveConversation)] = []
                for (name, make) in classes {
                    let probed = try converse(conversation.name, stopAfter: index + 1, probe: (index, .rsaBlock(make(&generator))), waitBeforeNext: patient)
                    signatures.append((name, AnswerSignature(probed), probed))
                }
                if let rounds = options.timingSamples {
                    timingNote("\(conversation.name).timing.rsa.message-\(index + 1)", classes: classes.map(\.0), rounds: rounds) { name in
                        guard let make = classes.first(where: { $0.0 == name })?.1 else { return nil }
                        return try converse(conversation.name, stopAfter: index + 1, probe: (index, .rsaBlock(make(&generator)))).probeLatency
                    }
                }
                // Implicit rejection (draft-irtf-cfrg-rsa-guidance, "Implicit rejection"; OpenSSL 3.2 and later:
                // pyca on Debian 13 and today's Raspberry Pi OS) answers each undecryptable ciphertext with a
                // synthetic plaintext of its own. Where the
                // answer is the plaintext itself, all such answers are one class, "taken"; a fixed one (a
                // sentinel) is told apart below.
                let answersPlaintext = nextServerStepReflectsPlaintext(conversation, after: step) == "plaintext"
                let shape = { (live: LiveConversation) in
                    answersPlaintext && self.wentOn(live, conversation) ? "taken, answered as a plaintext" : AnswerSignature(live).shape
                }
                // A server that died on a probe answers the later ones with nothing at all: a crash, not an oracle.
                for (name, _, probed) in signatures {
                    try failIfTakenDown(probed, by: "\(conversation.name).oracle.rsa.message-\(index + 1)", what: "a bad \(padding.rawValue) padding (\(name))")
                }
                if Set(signatures.map { shape($0.2) }).count > 1 {
                    // Before a verdict, each class twice more: an oracle answers a class the same way
                    // every time; an answer that changes between tries (a stalled link) is no verdict.
                    var confirmed: [(String, AnswerSignature, LiveConversation)] = []
                    for (name, make) in classes {
                        let once = try converse(conversation.name, stopAfter: index + 1, probe: (index, .rsaBlock(make(&generator))), waitBeforeNext: patient)
                        let twice = try converse(conversation.name, stopAfter: index + 1, probe: (index, .rsaBlock(make(&generator))), waitBeforeNext: patient)
                        guard shape(once) == shape(twice) else {
                            return .skipped(reason: "inconclusive: the answers to invalid \(padding.rawValue) paddings differ, but class \(name) was answered two ways when tried again (\(AnswerSignature(once)); \(AnswerSignature(twice))) — run it again on a quieter link")
                        }
                        confirmed.append((name, AnswerSignature(once), once))
                    }
                    if Set(confirmed.map { shape($0.2) }).count > 1 {
                        throw CheckFailure("padding oracle: the server answers invalid \(padding.rawValue) paddings differently, so an attacker learns which ciphertexts decrypt (Bleichenbacher 1998; Manger 2001)",
                                           details: confirmed.map { "\($0.0): \($0.1)" }.joined(separator: "\n"))
                    }
                    signatures = confirmed  // one answer after all: the first tries differed by chance
                }
                // One answer for every bad padding, and the one the description gives a refusal.
                if !wentOn(signatures[0].2, conversation), let problem = refusalProblem(signatures[0].2, conversation, accepted: false, kind: .padding) {
                    throw CheckFailure("a bad \(padding.rawValue) padding (\(signatures[0].0)): the server \(problem)", details: show(signatures[0].2))
                }
                // PKCS#1 v1.5: a good padding around a plaintext the server cannot use (not UTF-8): it may
                // be taken, or refused as a bad padding is — a third answer tells a conforming padding from a
                // bad one, which Bleichenbacher's attack needs. Not OAEP: an attacker cannot make a good OAEP
                // padding around a plaintext it does not know, so what a server does with one tells nothing;
                // OAEP's oracle is in the bad classes told apart (Manger 2001; RFC 8017 §7.1.2's note is on
                // the decoding errors, not on what the application does with a message that decoded).
                let unusablePlaintext = Data(repeating: 0xff, count: 16)
                if let goodPadding = Self.validBlock(padding: padding, k: k, message: unusablePlaintext, generator: &generator).map({ DescribedParty.Probe.rsaBlock($0) }) {
                    let unusable = try converse(conversation.name, stopAfter: index + 1, probe: (index, goodPadding), waitBeforeNext: patient)
                    let answer = AnswerSignature(unusable)
                    // A refusal is the description's, or text that begins as one ("ERROR: key length"
                    // where the error is "ERROR"): the server refused, and said why.
                    let refusedAlike: Bool = {
                        guard case let .bytes(data)? = unusable.probeAnswer else { return false }
                        return conversation.refusalTexts.contains { !$0.bytes.isEmpty && data.starts(with: $0.bytes) }
                    }()
                    if !wentOn(unusable, conversation) || refusedAlike, answer.shape != signatures[0].1.shape {
                        throw CheckFailure("padding oracle: a good \(padding.rawValue) padding around 16 bytes of 0xff (not UTF-8; as a key, not the session's) gets \(answer), a bad padding gets \(signatures[0].1) — the answers tell the paddings apart (Bleichenbacher 1998; Manger 2001)",
                                           details: "good padding, unusable plaintext:\n\(show(unusable))\n\nbad padding (\(signatures[0].0)):\n\(show(signatures[0].2))")
                    }
                }
                guard wentOn(signatures[0].2, conversation) else { return .passed }
                if let reflected = nextServerStepReflectsPlaintext(conversation, after: step) {
                    // Same class, other bytes: a sentinel gives the same digest (or plaintext) again, every
                    // time; implicit rejection only by chance (two empty synthetic messages, about
                    // 1/(k − 10) each), so an equal answer gets one more ciphertext before a verdict.
                    let again = try converse(conversation.name, stopAfter: index + 1, probe: (index, .rsaBlock(classes[0].1(&generator))), waitBeforeNext: patient)
                    let sameAgain = AnswerSignature(again) == signatures[0].1
                    if sameAgain, try AnswerSignature(converse(conversation.name, stopAfter: index + 1,
                                                               probe: (index, .rsaBlock(classes[0].1(&generator))), waitBeforeNext: patient)) == signatures[0].1 {
                        throw CheckFailure("padding oracle: every undecryptable ciphertext is acknowledged with the same \(reflected) — a bad padding decrypts to a fixed sentinel, which the \(reflected) tells from a real plaintext (implicit rejection gives each its own)",
                                           details: "\(signatures[0].0): \(signatures[0].1)\nanother of the class: \(AnswerSignature(again))")
                    }
                }
                finding("\(conversation.name).rsa-acknowledges-undecryptable.message-\(index + 1)",
                        "the server acknowledges RSA ciphertexts that do not decrypt (\(signatures[0].1)): implicit rejection, or no check — the client cannot tell that it was understood")
                return .passed
            }
        }
    }

    /// A server that, after a wrapped key it cannot unwrap, goes on with a fixed key of its own (a
    /// constant sentinel: PyCryptodome's `decrypt(ciphertext, sentinel)` with bytes that never change,
    /// an all-zero key) takes what is sealed under that key, and so tells a bad padding from a good one
    /// as plainly as an error would (Bleichenbacher 1998). The stand-in must be random for each
    /// ciphertext (RFC 3218 §2.3.2, "random filling"). The probes: each class of bad padding, and for
    /// PKCS#1 v1.5 a good padding around a secret of the wrong length (conforming, which Bleichenbacher's
    /// attack needs to tell apart), each with the rest of the conversation sealed under the all-zero key
    /// of the secret's length; the control: a bad padding with the rest under a random key, which no
    /// server can know. A correct server answers them all alike; one whose answer under the zero key
    /// differs from the control's (taken, or refused another way: a silent close) keeps a fixed key.
    func checkFixedKeyAfterBadPadding(_ conversation: ProtocolDescription.Conversation, _ known: LiveConversation) {
        for (index, step) in judgedClientSteps(conversation) {
            guard let value = step.cryptoValue, let (keyName, padding) = rsaTarget(value), !padding.isUnpadded,
                  let key = known.party.knownPublicKeys[keyName], let secret = wrappedSecret(value),
                  usesSecret(conversation, secret.name, from: step) else { continue }
            let name = "\(conversation.name).oracle.rsa-fixed-key.message-\(index + 1)"
            self.step(name) {
                var generator = SeededGenerator.forCheck(name, seed: options.seed)
                let patient = min(options.timeout, max(2.0, options.quietGap * 6))  // as oracle.rsa waits, for a slow board
                let k = key.modulusByteCount
                var blocks = Self.invalidBlocks(padding: padding, k: k)
                if let conforming = Self.validBlock(padding: padding, k: k, message: Data(repeating: 0xff, count: secret.bytes + 4), generator: &generator) {
                    blocks.append(("good-padding-wrong-length", { _ in conforming }))
                }
                func probe(_ block: Data, _ stand: Data) throws -> LiveConversation {
                    let live = try converse(conversation.name, stopAfter: index + 1,
                                            probe: (index, .rsaBlockThenKey(block, secret: secret.name, key: stand)), waitBeforeNext: patient)
                    try failIfTakenDown(live, by: name, what: "a wrapped key that does not unwrap to \(secret.bytes) bytes")
                    return live
                }
                // What the answers are compared by: taken, answered but not taken (a sealed answer under
                // another key, whose bytes differ every time), or the refusal itself (its text, a close).
                let outcome = { (live: LiveConversation) -> String in
                    if self.acknowledged(live, conversation) { return "taken" }
                    return self.wentOn(live, conversation) ? "answered, not taken" : AnswerSignature(live).shape
                }
                let zeros = Data(count: secret.bytes)
                let control = try probe(blocks[0].1(&generator), generator.bytes(secret.bytes))
                if acknowledged(control, conversation) {
                    return .skipped(reason: "after a bad padding the server acknowledged what was sealed under a random key: it takes any key, so a fixed one cannot be told (\(AnswerSignature(control)))")
                }
                for (className, make) in blocks {
                    let fixed = try probe(make(&generator), zeros)
                    let taken = acknowledged(fixed, conversation)
                    guard outcome(fixed) != outcome(control) else { continue }
                    // An answer that differs only once (a stalled link) is no verdict: both again.
                    let again = try probe(make(&generator), zeros)
                    let controlAgain = try probe(blocks[0].1(&generator), generator.bytes(secret.bytes))
                    guard outcome(again) == outcome(fixed), outcome(controlAgain) == outcome(control) else {
                        return .skipped(reason: "inconclusive: under the all-zero key after \(className) the server answered \(AnswerSignature(fixed)), then \(AnswerSignature(again)); under a random key \(AnswerSignature(control)), then \(AnswerSignature(controlAgain)) — run it again on a quieter link")
                    }
                    let what = className == "good-padding-wrong-length" ? "a good \(padding.rawValue) padding around \(secret.bytes + 4) bytes (the secret is \(secret.bytes))" : "a bad \(padding.rawValue) padding (\(className))"
                    let finding = taken
                        ? "the server goes on with a fixed key — it took what was sealed under \(secret.bytes) zero bytes (\(AnswerSignature(fixed))), and not the same after a bad padding under a random key (\(AnswerSignature(control))). Whether that key works tells which wrapped keys unwrap; the stand-in key must be random for each ciphertext (RFC 3218 §2.3.2)"
                        : "what was sealed under \(secret.bytes) zero bytes gets \(AnswerSignature(fixed)), the same after a bad padding under a random key gets \(AnswerSignature(control)): the answers tell the wrapped keys apart (a fixed stand-in key, or no stand-in where RFC 3218 §2.3.2 wants a random one)"
                    throw CheckFailure("padding oracle: after \(what) " + finding,
                                       details: "sealed under the all-zero key:\n\(show(fixed))\n\nunder a random key:\n\(show(control))")
                }
                return .passed
            }
        }
    }

    /// The secret an `rsa` value carries (as its bytes, or written as text: the probe replaces the
    /// whole RSA block, and a server's stand-in is a key either way), with its length.
    func wrappedSecret(_ value: DescribedValue) -> (name: String, bytes: Int)? {
        for part in value.values {
            guard case let .rsa(_, _, .secret(name, _), _) = part.kind,
                  let secret = description.secrets[name], !secret.derive.isPassphrase, secret.derive != .utf8ZeroPad16 else { continue }
            return (name, secret.bytes)
        }
        return nil
    }

    /// Whether `step`'s message, or a later one of the client's, seals or MACs with `secret`.
    func usesSecret(_ conversation: ProtocolDescription.Conversation, _ secret: String, from step: ProtocolDescription.Step) -> Bool {
        guard let position = conversation.steps.firstIndex(of: step) else { return false }
        return conversation.steps[position...].filter { $0.from == .client }.contains { later in
            later.values.contains { part in
                switch part.kind {
                case let .sealed(sealed): return sealed.secret == secret
                case let .mac(name, _, _, _): return name == secret
                default: return false
                }
            }
        }
    }

    /// `--timing N`: N interleaved rounds over `classes` (each round in another order, as the
    /// profiles' audits take them), the latency of each probe's answer, and a Wilcoxon signed-rank
    /// test of each pair of classes (TimingAnalysis, in Conformance) — recorded in the audit suite as
    /// skipped, never a verdict, not even with --strict: a live network's jitter decides too much.
    func timingNote(_ name: String, classes: [String], rounds count: Int, latency: (String) throws -> TimeInterval?) {
        var latencies: [String: [Double]] = [:]
        var stopped: String?
        rounds: for round in 0..<count {
            for probeClass in rotated(classes, by: round) {
                guard let sample = try? latency(probeClass) else {
                    stopped = "round \(round + 1): class \(probeClass) got no answer"
                    break rounds
                }
                latencies[probeClass, default: []].append(sample)
            }
        }
        let report = TimingAnalysis(classes: classes, latencies: latencies)
        let text = report.summary + (stopped.map { " (stopped early at \($0))" } ?? "")
        record(name, suite: auditSuite, .skipped(reason: (report.significant ? "weak: " : "note: ") + text), duration: 0)
    }

    func rsaTarget(_ value: DescribedValue) -> (String, RSAPaddingName)? {
        value.values.lazy.compactMap { part -> (String, RSAPaddingName)? in
            if case let .rsa(name, padding, _, _) = part.kind { return (name, padding) }
            return nil
        }.first
    }

    /// What the server's next step answers that is made from the plaintext it decrypted — "digest"
    /// (a digest of it) or "plaintext" (the message in the clear) — or nil: where such an answer is,
    /// a sentinel shows as one answer for every bad padding.
    func nextServerStepReflectsPlaintext(_ conversation: ProtocolDescription.Conversation, after step: ProtocolDescription.Step) -> String? {
        guard let position = conversation.steps.firstIndex(of: step),
              let next = conversation.steps.dropFirst(position + 1).first(where: { $0.from == .server }),
              let value = next.send ?? next.body else { return nil }
        for part in value.values {
            if case .digest = part.kind { return "digest" }
            if case .plain = part.kind { return "plaintext" }
        }
        return nil
    }

    /// A block with a good padding around `message` (PKCS#1 v1.5 type 2 only: OAEP's needs the
    /// hash machinery, and its audit stays with the invalid classes).
    static func validBlock(padding: RSAPaddingName, k: Int, message: Data, generator: inout SeededGenerator) -> Data? {
        guard padding == .pkcs1, k >= message.count + 11 else { return nil }
        let filler = Data(generator.bytes(k - 3 - message.count).map { $0 == 0 ? 0x5a : $0 })
        return Data([0x00, 0x02]) + filler + Data([0x00]) + message
    }

    /// Blocks no padding check accepts, by class (RFC 8017 §7.2.2 step 3 for PKCS#1 v1.5; §7.1.2
    /// step 3g for OAEP). The first byte stays 00 or 01 so every block is below any modulus of k bytes.
    static func invalidBlocks(padding: RSAPaddingName, k: Int) -> [(String, (inout SeededGenerator) -> Data)] {
        func nonzero(_ count: Int, _ generator: inout SeededGenerator) -> Data {
            Data(generator.bytes(count).map { $0 == 0 ? 0x5a : $0 })
        }
        switch padding {
        case .pkcs1:
            return [
                ("block-type-00", { g in Data([0x00, 0x00]) + g.bytes(k - 2) }),
                ("block-type-01", { g in Data([0x00, 0x01]) + nonzero(k - 2, &g) }),
                ("no-separator", { g in Data([0x00, 0x02]) + nonzero(k - 2, &g) }),
                ("separator-too-early", { g in Data([0x00, 0x02]) + nonzero(4, &g) + Data([0x00]) + nonzero(k - 7, &g) }),
                ("first-byte-01", { g in Data([0x01]) + g.bytes(k - 1) }),
            ]
        case .oaepSHA1, .oaepSHA256:
            return [
                ("first-byte-01", { g in Data([0x01]) + g.bytes(k - 1) }),
                ("first-byte-00-hash-wrong", { g in Data([0x00]) + g.bytes(k - 1) }),
            ]
        case .textbook, .perCharacter:
            return []  // no padding: every block below n decrypts to some message
        }
    }

    // MARK: the CBC padding-oracle audit

    /// On a client CBC (PKCS#7, or the 01 02 … n sequence) step: a bad padding and a good padding over a plaintext the server
    /// cannot use must get one answer.
    func checkCBCOracle(_ conversation: ProtocolDescription.Conversation, _ known: LiveConversation) {
        for (index, step) in judgedClientSteps(conversation) {
            guard let value = step.cryptoValue, let sealed = cbcTarget(value) else { continue }
            // ECB: whether the padding is checked at all; Vaudenay's attack needs CBC's chaining, so
            // the answers' differences are no oracle there and are not judged.
            let ecb = sealed.cipher == .aesECB
            let paddingName = sealed.padding == .sequence ? "sequence (01 02 … n)" : "PKCS#7"
            if let algorithm = value.macAlgorithm {
                checkCBCOracleBehindMAC(conversation, index: index, step: step, algorithm: algorithm, ecb: ecb, paddingName: paddingName)
                continue
            }
            self.step("\(conversation.name).\(ecb ? "padding-check.ecb" : "oracle.cbc").message-\(index + 1)") {
                var generator = SeededGenerator.forCheck("\(conversation.name).oracle.cbc.\(index)", seed: options.seed)
                let badPadding = generator.bytes(31) + Data([0x00])  // a last byte of 00: no PKCS#7 padding ends so
                let garbage = Data(repeating: 0xff, count: 13)  // pads fine; neither UTF-8 nor JSON
                let bad = try converse(conversation.name, stopAfter: index + 1, probe: (index, .sealedBlocks(badPadding)))
                let good = try converse(conversation.name, stopAfter: index + 1, probe: (index, .sealedPlaintext(garbage)))
                let (a, b) = (AnswerSignature(bad), AnswerSignature(good))
                if let rounds = options.timingSamples, !ecb {
                    // A bad padding against a good one around bytes the server cannot use: Vaudenay's
                    // oracle in the time to the answer, where the answers themselves are alike.
                    timingNote("\(conversation.name).timing.cbc.message-\(index + 1)", classes: ["bad-padding", "good-padding-unusable-plaintext"], rounds: rounds) { name in
                        let probe: DescribedParty.Probe = name == "bad-padding" ? .sealedBlocks(generator.bytes(31) + Data([0x00])) : .sealedPlaintext(garbage)
                        return try converse(conversation.name, stopAfter: index + 1, probe: (index, probe)).probeLatency
                    }
                }
                // Bad padding is refused, and refused as other malformed input is (one answer for every
                // refusal): the answer to a ciphertext that is not whole blocks is the yardstick.
                if acknowledged(bad, conversation) {
                    throw CheckFailure("the server acknowledged a ciphertext whose \(paddingName) padding is wrong (\(a)): it does not check the padding, so it cannot have decrypted it", details: show(bad))
                }
                try failIfTakenDown(bad, by: "\(conversation.name).oracle.cbc.message-\(index + 1)", what: "a bad \(paddingName) padding")
                if let problem = refusalProblem(bad, conversation, accepted: false, kind: .padding) {
                    throw CheckFailure("a bad padding: the server \(problem)", details: show(bad))
                }
                // PKCS#7 to 32-byte blocks: a message whose padding is longer than 16 bytes must be taken
                // (a reader of 16-byte PKCS#7 refuses every pad byte above 16; the usual message pads less).
                if sealed.padding == .pkcs7To32, conversation.message == nil, [.message, .jsonMessage].contains(sealed.carries) {
                    let long = try converse(conversation.name, message: Data(repeating: 0x6d, count: 40))  // pads with 24 bytes of 0x18
                    guard long.completed else {
                        throw CheckFailure("a message of 40 bytes, padded to 64 with 24 bytes of 0x18 as pkcs7-32 does, was not taken (\(long.party.refusal?.reason ?? long.transportError ?? "the server stopped")): the server unpads to 16-byte blocks, not 32 as the description says",
                                           details: show(long))
                    }
                }
                // The right message with zero bytes for its padding: random blocks above are refused by
                // a lenient reader too when they are not text; its own message is.
                let lenient = try converse(conversation.name, stopAfter: index + 1, probe: (index, .sealedOwnPlaintextZeroPadded))
                if acknowledged(lenient, conversation) {
                    throw CheckFailure("the server acknowledged its message with zero bytes where the \(paddingName) padding goes (\(AnswerSignature(lenient))): it does not check the padding (RFC 5652 §6.3), so a changed last block goes unnoticed",
                                       details: show(lenient))
                }
                // The right message whose padding has only its last byte right: a reader that strips
                // the last byte's count unchecked (`data[:-data[-1]]`, the tutorials' unpad) takes it.
                let sliced = try converse(conversation.name, stopAfter: index + 1, probe: (index, .sealedOwnPlaintextOnlyLastPadByteRight))
                if acknowledged(sliced, conversation) {
                    throw CheckFailure("the server acknowledged its message with a padding whose last byte is right and the others 00 (\(AnswerSignature(sliced))): it strips the padding without checking its bytes (RFC 5652 §6.3: every one of the n bytes is n), so a changed last block goes unnoticed",
                                       details: show(sliced))
                }
                if ecb { return .passed }
                var located = false
                let cut = try converse(conversation.name, stopAfter: index + 1) { position, _, message in
                    guard position == index, let part = CryptoPart.locate(description, in: message, step: step) else { return message }
                    located = true
                    return part.rebuild(Data(part.raw.dropLast()))
                }
                // A description that answers a bad length and a bad padding differently (`errors`) says
                // so on purpose: a length anyone can see tells nothing about the plaintext.
                let byDescription = errorText(conversation, kind: .length)?.bytes != errorText(conversation, kind: .padding)?.bytes
                if located, !byDescription, AnswerSignature(cut).shape != a.shape {
                    throw CheckFailure("CBC padding oracle: a bad padding gets \(a), a ciphertext that is not whole blocks gets \(AnswerSignature(cut)) — the answers tell a padding error apart (Vaudenay 2002)",
                                       details: "bad padding:\n\(show(bad))\n\nnot whole blocks:\n\(show(cut))")
                }
                if acknowledged(good, conversation) {
                    finding("\(conversation.name).cbc-oracle-by-design.message-\(index + 1)",
                            "the server acknowledges any plaintext with a good padding and refuses a bad one (\(a)): CBC (\(sealed.secret)) without a MAC is a padding oracle by design (Vaudenay 2002)")
                    return .passed
                }
                // A last byte above 16 is a bad padding too; some servers check only 00.
                let over16 = try converse(conversation.name, stopAfter: index + 1, probe: (index, .sealedBlocks(generator.bytes(31) + Data([0x11]))))
                if AnswerSignature(over16).shape != a.shape {
                    throw CheckFailure("CBC padding oracle: a padding byte of 00 gets \(a), one of 11 gets \(AnswerSignature(over16)) — the answers tell padding errors apart (Vaudenay 2002)",
                                       details: "padding byte 00:\n\(show(bad))\n\npadding byte 11:\n\(show(over16))")
                }
                guard a.shape == b.shape else {
                    throw CheckFailure("CBC padding oracle: a bad padding gets \(a), a good padding over an unusable plaintext gets \(b) — an attacker decrypts any message a block at a time (Vaudenay 2002)",
                                       details: "bad padding:\n\(show(bad))\n\ngood padding, unusable plaintext:\n\(show(good))")
                }
                // Every refusal alike, yet a reader that takes only text (a `.decode()`) may take any text:
                // Vaudenay's attack changes only a block's last bytes, and the rest stays the sender's text.
                if conversation.message == nil, [.message, .anyText].contains(sealed.carries) {
                    let text = try converse(conversation.name, stopAfter: index + 1, probe: (index, .sealedPlaintext(Data("crosscheck: another text".utf8))))
                    if acknowledged(text, conversation) {
                        finding("\(conversation.name).cbc-oracle-by-design.message-\(index + 1)",
                                "the server acknowledges any text with a good padding and refuses a bad one (\(a)): CBC (\(sealed.secret)) without a MAC is a padding oracle by design — Vaudenay's attack keeps the rest of a block the sender's text (Vaudenay 2002)")
                    }
                }
                return .passed
            }
        }
    }

    /// A CBC ciphertext under a MAC (encrypt-then-MAC): an attacker cannot make a MAC, so every probe
    /// carries a wrong one. A bad padding and a good one must then get one answer — else the server
    /// decrypts before it verifies the MAC and tells the paddings apart (Vaudenay 2002; the reason to
    /// MAC the ciphertext and check it first, Krawczyk 2001).
    func checkCBCOracleBehindMAC(_ conversation: ProtocolDescription.Conversation, index: Int, step: ProtocolDescription.Step,
                                 algorithm: MACAlgorithm, ecb: Bool, paddingName: String) {
        self.step("\(conversation.name).\(ecb ? "padding-check.ecb" : "oracle.cbc").message-\(index + 1)") {
            var generator = SeededGenerator.forCheck("\(conversation.name).oracle.cbc.\(index)", seed: options.seed)
            var forgedCount = 0
            let forged: (Int, DescribedParty, DescribedMessage) throws -> DescribedMessage = { position, _, message in
                guard position == index, let part = CryptoPart.locate(self.description, in: message, step: step, matching: \.isMAC) else { return message }
                forgedCount += 1
                return part.rebuild(CryptoPart.lastBitFlipped(part))
            }
            let bad = try converse(conversation.name, stopAfter: index + 1, probe: (index, .sealedBlocks(generator.bytes(31) + Data([0x00]))), replace: forged)
            let good = try converse(conversation.name, stopAfter: index + 1, probe: (index, .sealedPlaintext(Data("crosscheck: another text".utf8))), replace: forged)
            // Probes whose MAC could not be changed would carry a valid one: nothing here could be judged.
            guard forgedCount == 2 else { return .skipped(reason: "the message's MAC field could not be taken apart") }
            let (a, b) = (AnswerSignature(bad), AnswerSignature(good))
            if acknowledged(bad, conversation) || acknowledged(good, conversation) {
                throw CheckFailure("the server acknowledged a ciphertext whose \(algorithm.rawValue) is wrong (\(acknowledged(bad, conversation) ? a : b)): it does not verify the MAC",
                                   details: show(acknowledged(bad, conversation) ? bad : good))
            }
            guard a.shape == b.shape else {
                throw CheckFailure("CBC padding oracle behind the \(algorithm.rawValue): with a wrong MAC, a bad \(paddingName) padding gets \(a) and a good one \(b) — the server decrypts before it verifies the MAC (Vaudenay 2002)",
                                   details: "bad padding, wrong MAC:\n\(show(bad))\n\ngood padding, wrong MAC:\n\(show(good))")
            }
            return .passed
        }
    }

    func cbcTarget(_ value: DescribedValue) -> Sealed? {
        value.values.lazy.compactMap { part -> Sealed? in
            if case let .sealed(sealed) = part.kind, [.aesCBC, .aesECB].contains(sealed.cipher), [.pkcs7, .pkcs7To32, .sequence].contains(sealed.padding) { return sealed }
            return nil
        }.first
    }

    // MARK: reuse

    /// A second conversation: the server's IVs and nonces, and the session secrets it makes, must
    /// differ from the first's.
    func checkReuse(_ conversation: ProtocolDescription.Conversation, _ known: LiveConversation) {
        let serverSecrets = description.secrets.values.filter { $0.madeBy == .server }.map(\.name)
        // The server's side of a key agreement, where the description does not preshare it: an
        // ephemeral key is what gives forward secrecy (SP 800-56A Rev. 3 §6.1.2, "ephemeral unified model").
        let agreed = Set(description.secrets.values.compactMap(\.agreement).flatMap(\.keys))
        let serverAgreementKeys = description.keys.values.filter { $0.holder == .server && !$0.preshared && agreed.contains($0.name) }.map(\.name).sorted()
        guard !known.party.receivedIVs.isEmpty || !serverSecrets.isEmpty || !serverAgreementKeys.isEmpty else { return }  // nothing of the server's to compare
        self.step("\(conversation.name).fresh-per-conversation") {
            let second = try converse(conversation.name)
            guard second.completed else { throw CheckFailure("a second conversation did not complete", details: show(second)) }
            let fixed = description.usesFixedIV
            // Only an IV the server chose (a prefix or a field) is judged: one the description takes from a
            // secret (the key itself, a nonce the client sent) is the client's by description, its weakness reported as such.
            let echoed = Set(known.party.receivedChosenIVs).intersection(known.party.sentIVs)
            if !echoed.isEmpty, !fixed {
                throw CheckFailure("the server answers under the IV/nonce the client just used (\(echoed.map(\.hexString).sorted().joined(separator: ", "))): the same key and nonce twice — for CTR and GCM the same keystream, which reveals both plaintexts' XOR (SP 800-38D §8)")
            }
            // An IV that is the last ciphertext block the server sent before (chained, as TLS 1.0's
            // CBC): known in advance, so chosen-plaintext attacks work (SP 800-38A app. C, which asks
            // CBC and CFB alike for unpredictable IVs; BEAST).
            // Two conversations back to back (other probes ran since `known`): the second's first IV
            // against the first's last block.
            let third = try converse(conversation.name)
            if let previous = second.party.receivedLastBlocks.last, let next = third.party.receivedIVs.first, previous == next, !fixed {
                throw CheckFailure("the server's IV is the last ciphertext block it sent before (\(next.hexString)): predictable, so an attacker who sees one answer knows the next IV (SP 800-38A app. C)")
            }
            // An IV a counter's step from the last one (a message counter as the IV): as predictable as
            // a chained one, by the reuse audit's rule (PredictableIV). Only where the server's IVs must
            // be unpredictable, CBC and CFB (SP 800-38A app. C); a GCM or ChaCha nonce need only be
            // unique (SP 800-38D §8.2.1 builds it from a counter).
            let serverCiphers = Set(conversation.steps.filter { $0.from == .server }.flatMap(\.values).compactMap { value -> SealedCipher? in
                if case let .sealed(sealed) = value.kind {
                    switch sealed.iv { case .prefix, .field: return sealed.cipher; default: return nil }
                }
                return nil
            })
            if !fixed, !serverCiphers.isEmpty, serverCiphers.isSubset(of: [.aesCBC, .aesCFB, .aesCFB8]),
               let previous = second.party.receivedChosenIVs.last, let next = third.party.receivedChosenIVs.first,
               let bigEndian = [true, false].first(where: { PredictableIV.isCounterStep(previous, next, bigEndian: $0) }) {
                throw CheckFailure("the server's IV is a counter's next value (\(previous.hexString), then \(next.hexString), \(bigEndian ? "big" : "little")-endian): predictable, so an attacker who sees one answer knows the next IV (SP 800-38A app. C: CBC and CFB IVs must be unpredictable)")
            }
            let repeated = Set(known.party.receivedIVs).intersection(second.party.receivedIVs)
            if !repeated.isEmpty, !fixed {
                throw CheckFailure("the server reuses an IV/nonce across conversations (\(repeated.map(\.hexString).sorted().joined(separator: ", "))): CBC and CFB IVs must be unpredictable (SP 800-38A app. C), a GCM, ChaCha20-Poly1305 or EAX nonce must never repeat under a key (SP 800-38D §8; EAX: Bellare, Rogaway and Wagner 2004, §3)")
            }
            for name in serverSecrets {
                // A weakness, as the aes-https profile reports a reused encryptionKey (Tests/Zoo key-reuse: pass + audit).
                if let a = known.party.knownSecrets[name], let b = second.party.knownSecrets[name], a == b {
                    finding("\(conversation.name).static-secret-\(name)",
                            "the server sends the same secret \(name) in every conversation: a static session key (anyone who learns it once reads every conversation)")
                }
            }
            for name in serverAgreementKeys {
                if let a = known.party.knownCurvePublicKeys[name], let b = second.party.knownCurvePublicKeys[name], a.identity == b.identity {
                    finding("\(conversation.name).static-agreement-key-\(name)",
                            "the server agrees every conversation with the same key \(name) (the same public key twice): no forward secrecy — whoever later learns that key opens every recorded conversation (SP 800-56A Rev. 3 §6.1.2: an ephemeral key per conversation gives it)")
                }
            }
            // A fixed IV repeats by description: its finding says so (for a stream cipher, the same keystream).
            return fixed ? .skipped(reason: "the description fixes the IV, so it repeats in every conversation: reported as its finding, not judged here") : .passed
        }
    }
}

extension DescribedValue {
    /// The algorithm of a `mac` field beside this value's sealed field (a `json` or `form` whose
    /// ciphertext is MACed), or nil.
    var macAlgorithm: MACAlgorithm? {
        switch kind {
        case let .json(fields), let .form(fields): return Self.macAlgorithm(in: fields)
        default: return nil
        }
    }

    /// A `json` or `form` with fields (every field of a described body is required).
    var hasFields: Bool {
        switch kind {
        case let .json(fields), let .form(fields): return !fields.isEmpty
        default: return false
        }
    }

    static func macAlgorithm(in fields: [DescribedField]) -> MACAlgorithm? {
        DescribedField.macs(in: fields).first { $0.covered.value.isSealed }?.algorithm
    }

    /// An RSA or sealed value: what the refusal probes and the oracle audits change.
    var isCryptoPart: Bool {
        switch kind {
        case .rsa, .sealed: return true
        default: return false
        }
    }

    var isMAC: Bool { if case .mac = kind { return true }; return false }
    var isRSA: Bool { if case .rsa = kind { return true }; return false }
    var isSealed: Bool { if case .sealed = kind { return true }; return false }
    var isSignature: Bool { if case .signature = kind { return true }; return false }

    /// What an `authentication` refusal probe changed in this part, for a message: its signature,
    /// MAC, Fernet HMAC or (an AEAD's, appended or in its field) tag.
    var authenticator: String {
        switch kind {
        case .signature: return "signature"
        case let .sealed(sealed) where sealed.cipher == .fernet: return "Fernet HMAC"
        case .sealed, .tagOf: return "tag"
        default: return "MAC"
        }
    }
}

extension ProtocolDescription.Step {
    /// The value that carries the step's RSA or sealed part: its message or body, else its query
    /// (a GET whose ciphertext travels in the query string); else its message or body.
    var cryptoValue: DescribedValue? {
        [send, body, query].compactMap { $0 }.first { $0.values.contains(where: \.isCryptoPart) } ?? send ?? body
    }
}

extension ProtocolDescription.Conversation {
    /// The plain-text answers the description gives to refusals (`error` and every `errors` value):
    /// each a whole text, or the beginning of one (`starts_with`).
    var refusalTexts: [RefusalText] {
        // In a fixed order (the verdicts must not change from run to run): whole texts, then the longest beginning first.
        ([error] + RefusalKind.allCases.map { errors[$0] }).compactMap { $0.flatMap(RefusalText.init) }
            .sorted { ($0.whole ? 1 : 0, $0.bytes.count) > ($1.whole ? 1 : 0, $1.bytes.count) }
    }

    /// Whether `data` is one of the description's refusal answers.
    func isRefusal(_ data: Data) -> Bool { refusalTexts.contains { $0.matches(data) } }
}

/// A tcp refusal's text as the description gives it: whole (`text`), or its beginning (`starts_with`).
struct RefusalText {
    let bytes: Data
    let whole: Bool

    init?(_ value: DescribedValue) {
        switch value.kind {
        case let .text(text): (bytes, whole) = (Data(text.utf8), true)
        case let .startsWith(text): (bytes, whole) = (Data(text.utf8), false)
        default: return nil
        }
    }

    func matches(_ data: Data) -> Bool { whole ? data == bytes : data.starts(with: bytes) }
    var said: String { (whole ? "" : "beginning ") + DescribedMessage.bytes(bytes).summary }
}

extension ProtocolDescription {
    /// A `secret` value sent in the clear somewhere: a key, not a secret that is only a nonce
    /// (`iv = "secret:NAME"`, sent alone before its ciphertext, as a prefix IV would be).
    var hasSecretInTheClear: Bool {
        var keys = Set<String>(), ivs = Set<String>()
        for value in allValues {
            guard case let .sealed(sealed) = value.kind else { continue }
            keys.insert(sealed.secret)
            if case let .secret(name) = sealed.iv { ivs.insert(name) }
        }
        return allValues.contains { if case let .secret(name, _) = $0.kind { return !ivs.contains(name) || keys.contains(name) }; return false }
    }
    /// Whether a sealed value uses a fixed IV (already a finding of its own): a constant, or a preshared secret.
    var usesFixedIV: Bool {
        allValues.contains {
            guard case let .sealed(sealed) = $0.kind else { return false }
            if case .fixed = sealed.iv { return true }
            if case let .secret(name) = sealed.iv { return secrets[name]?.madeBy == .preshared }
            return false
        }
    }
    /// The ciphers used without integrity protection, by name (for a finding's id) and as a report says them.
    var unauthenticatedCiphers: [(name: String, said: String)] {
        // A sealed field a sibling `mac` covers is authenticated (encrypt-then-MAC).
        var covered = Set<String>()
        for value in allValues {
            switch value.kind {
            case let .json(fields), let .form(fields): covered.formUnion(DescribedField.macs(in: fields).map(\.covered.value.keyPath))
            default: break
            }
        }
        var found: [String: String] = [:]
        for value in allValues {
            guard case let .sealed(sealed) = value.kind, !covered.contains(value.keyPath) else { continue }
            let cipher = sealed.cipher.rawValue
            if [.aesCBC, .aesCTR, .aesCFB, .aesCFB8, .aesECB, .chacha20, .salsa20].contains(sealed.cipher) { found[cipher] = cipher }
            if sealed.tag == .dropped { found[cipher + "-tag-dropped"] = cipher + " without its tag" }
        }
        return found.sorted { $0.key < $1.key }.map { (name: $0.key, said: $0.value) }
    }
}
