import Foundation
import StrictFormats
import WireCrypto

/// Turns a TOML document into a `ProtocolDescription`, refusing (by key and line) whatever the
/// format does not have and whatever cannot work.
struct DescriptionReader {
    func read(_ root: StrictTOML.Table) throws -> ProtocolDescription {
        let top = TableReader(root, path: "")
        try top.allow(["name", "summary", "source", "transport", "keys", "secrets", "conversation"])
        let name = try top.name("name", meaning: "the protocol's name, a-z 0-9 -")
        let summary = try top.string("summary")
        let source = try top.string("source")
        _ = try top.require("transport", "kind = \"tcp\", \"http\" or \"https\"")
        let transport = try readTransport(TableReader(try top.subtable("transport")!, path: "transport"))

        var keys: [String: ProtocolDescription.Key] = [:]
        if let table = try top.subtable("keys") {
            for keyName in table.keys {
                guard case let .table(inner) = table[keyName]!.kind else { throw TableReader(table, path: "keys").wrongType(keyName, "a table [keys.\(keyName)]") }
                let reader = TableReader(inner, path: "keys.\(keyName)")
                try reader.allow(["type", "holder", "bits", "preshared"])
                _ = try reader.require("holder", "\"client\" or \"server\": who has the private key")
                let holder = ProtocolDescription.Role(rawValue: try reader.choice("holder", ["client", "server"])!)!
                let type = try reader.choice("type", ProtocolDescription.KeyType.allCases.map(\.rawValue)).flatMap(ProtocolDescription.KeyType.init) ?? .rsa
                if type.isCurve, inner["bits"] != nil {
                    throw DescriptionError.impossible(key: reader.keyPath("bits"), line: reader.line(of: "bits"), reason: "an \(type.rawValue) key is \(type.curveBits) bits by its curve; remove `bits`")
                }
                var bits = type.curveBits
                if !type.isCurve, let number = try reader.integer("bits") {
                    guard [1024, 2048, 3072, 4096].contains(number) || ToyRSA.bits.contains(number) else {
                        throw DescriptionError.notAllowed(key: reader.keyPath("bits"), line: reader.line(of: "bits"), allowed: "1024, 2048, 3072, 4096",
                                                          found: "\(number); bits 8 to 15 make a toy key, which only padding = \"per-character\" values use")
                    }
                    bits = number
                } else if !type.isCurve {
                    bits = 2048
                }
                keys[keyName] = ProtocolDescription.Key(name: keyName, type: type, holder: holder, bits: bits,
                                                        preshared: try reader.boolean("preshared") ?? false, line: inner.line)
            }
        }

        var secrets: [String: ProtocolDescription.Secret] = [:]
        if let table = try top.subtable("secrets") {
            for secretName in table.keys {
                guard case let .table(inner) = table[secretName]!.kind else { throw TableReader(table, path: "secrets").wrongType(secretName, "a table [secrets.\(secretName)]") }
                let reader = TableReader(inner, path: "secrets.\(secretName)")
                try reader.allow(["made_by", "bytes", "derive", "chars", "keys", "kdf", "salt", "info", "skip"])
                _ = try reader.require("made_by", "\"client\", \"server\", \"preshared\" or \"agreement\"")
                let madeBy = ProtocolDescription.SecretMaker(rawValue: try reader.choice("made_by", ProtocolDescription.SecretMaker.allCases.map(\.rawValue))!)!
                let agreement = madeBy == .agreement ? try readAgreement(reader, keys: keys) : nil
                if madeBy != .agreement, let key = ["keys", "kdf", "salt", "info", "skip"].first(where: { inner[$0] != nil }) {
                    throw DescriptionError.impossible(key: reader.keyPath(key), line: reader.line(of: key), reason: "`\(key)` is for `made_by = \"agreement\"` only; remove it")
                }
                let derive = try reader.choice("derive", ProtocolDescription.SecretDerivation.allCases.map(\.rawValue))
                    .flatMap(ProtocolDescription.SecretDerivation.init) ?? .raw
                if derive.isPassphrase, inner["bytes"] != nil {
                    throw DescriptionError.impossible(key: reader.keyPath("bytes"), line: reader.line(of: "bytes"),
                                                      reason: "a passphrase's key size follows its derive (\(derive.rawValue)); remove `bytes`")
                }
                // 8 and 12: a nonce sent alone (`iv = "secret:NAME"`), never a key; 48: a P-384 shared secret (`kdf = "none"`).
                // With `kdf = "none"` the secret is the shared secret itself: its length by default.
                let sharedLength = agreement.flatMap { $0.kdf == .none ? keys[$0.keys[0]]?.type.sharedSecretBytes : nil }
                let bytes = try reader.number("bytes", oneOf: madeBy == .agreement ? [16, 24, 32, 48] : [8, 12, 16, 24, 32]) ?? sharedLength ?? 32
                if derive == .utf8ZeroPad16, bytes != 16 {
                    throw DescriptionError.impossible(key: reader.keyPath("bytes"), line: reader.line(of: "bytes"), reason: "`derive = \"utf8-zeropad16\"` makes a 16-byte key; write `bytes = 16`")
                }
                if inner["chars"] != nil, !derive.isText {
                    throw DescriptionError.impossible(key: reader.keyPath("chars"), line: reader.line(of: "chars"),
                                                      reason: "`chars` is for text secrets only (`utf8-zeropad16`, `passphrase-sha256`, `passphrase-sha256-128`); remove it")
                }
                if let agreement {
                    if ![.raw, .sha256].contains(derive) {
                        throw DescriptionError.impossible(key: reader.keyPath("derive"), line: reader.line(of: "derive"), reason: "an agreement secret's derive is raw or sha256 (applied to what the KDF gives); found \(derive.rawValue)")
                    }
                    let type = keys[agreement.keys[0]]!.type
                    if agreement.kdf == .none, bytes != type.sharedSecretBytes {
                        throw DescriptionError.impossible(key: reader.keyPath(inner["bytes"] == nil ? "kdf" : "bytes"), line: reader.line(of: inner["bytes"] == nil ? "kdf" : "bytes"),
                                                          reason: "with `kdf = \"none\"` the secret is the \(type.rawValue) shared secret itself, \(type.sharedSecretBytes) bytes; write `bytes = \(type.sharedSecretBytes)`\(type.sharedSecretBytes == 48 ? " and `derive = \"sha256\"` for a 32-byte key" : "")")
                    }
                    if agreement.kdf != .none, ![16, 24, 32].contains(bytes) {
                        throw DescriptionError.impossible(key: reader.keyPath("bytes"), line: reader.line(of: "bytes"), reason: "an agreement secret's KDF gives 16, 24 or 32 bytes; found \(bytes)")
                    }
                }
                secrets[secretName] = ProtocolDescription.Secret(name: secretName, madeBy: madeBy, bytes: bytes, derive: derive,
                                                                 chars: try reader.number("chars", in: derive.isPassphrase ? 1...64 : 1...15) ?? 12, line: inner.line,
                                                                 agreement: agreement)
            }
        }

        _ = try top.require("conversation", "one or more [[conversation]] tables")
        guard case let .array(items) = root["conversation"]!.kind, !items.isEmpty else { throw top.wrongType("conversation", "an array of tables ([[conversation]])") }
        var conversations: [ProtocolDescription.Conversation] = []
        for (index, item) in items.enumerated() {
            let path = "conversation[\(index + 1)]"
            guard case let .table(table) = item.kind else { throw DescriptionError.wrongType(key: path, line: item.line, expected: "a table", found: describe(item)) }
            let conversation = try readConversation(TableReader(table, path: path), transport: transport)
            if conversations.contains(where: { $0.name == conversation.name }) {
                throw DescriptionError.impossible(key: path + ".name", line: table["name"]!.line, reason: "the conversation name \"\(conversation.name)\" is used twice; names are unique")
            }
            conversations.append(conversation)
        }
        let description = ProtocolDescription(name: name, summary: summary, source: source, transport: transport, keys: keys,
                                              secrets: secrets, conversations: conversations)
        for conversation in conversations {
            var validator = DescriptionValidator(description: description, conversation: conversation)
            try validator.validate()
        }
        return description
    }

    /// `made_by = "agreement"`: two keys of one curve type, one held by each side; the KDF and its inputs.
    func readAgreement(_ reader: TableReader, keys: [String: ProtocolDescription.Key]) throws -> ProtocolDescription.Agreement {
        let value = try reader.require("keys", "the two keys agreed with, one held by each side: keys = [\"client\", \"server\"]")
        guard case let .array(items) = value.kind, items.count == 2 else {
            throw DescriptionError.impossible(key: reader.keyPath("keys"), line: value.line, reason: "`keys` names two keys, one held by each side: keys = [\"A\", \"B\"]")
        }
        var names: [String] = []
        for item in items {
            guard case let .string(name) = item.kind else { throw reader.wrongType("keys", "two key names (strings)") }
            guard let key = keys[name] else {
                throw DescriptionError.impossible(key: reader.keyPath("keys"), line: value.line, reason: "no key \(name) in [keys] (there are \(keys.keys.sorted().joined(separator: ", ")))")
            }
            guard key.type.isCurve else {
                throw DescriptionError.impossible(key: reader.keyPath("keys"), line: value.line, reason: "key \(name) is an RSA key; an agreement needs ec-p256, ec-p384 or x25519 keys")
            }
            names.append(name)
        }
        let (first, second) = (keys[names[0]]!, keys[names[1]]!)
        guard first.type == second.type else {
            throw DescriptionError.impossible(key: reader.keyPath("keys"), line: value.line, reason: "keys \(first.name) (\(first.type.rawValue)) and \(second.name) (\(second.type.rawValue)) are of two types; an agreement needs two keys of one")
        }
        guard first.holder != second.holder else {
            throw DescriptionError.impossible(key: reader.keyPath("keys"), line: value.line, reason: "keys \(first.name) and \(second.name) are both held by the \(first.holder.rawValue); one must be the client's and one the server's")
        }
        let kdf = try reader.choice("kdf", ProtocolDescription.AgreementKDF.allCases.map(\.rawValue)).flatMap(ProtocolDescription.AgreementKDF.init) ?? .hkdfSHA256
        if reader.table["salt"] != nil, kdf != .hkdfSHA256, kdf != .hkdfSHA384 {
            throw DescriptionError.impossible(key: reader.keyPath("salt"), line: reader.line(of: "salt"), reason: "`salt` is HKDF's (kdf = \"hkdf-sha256\" or \"hkdf-sha384\"); remove it")
        }
        if reader.table["info"] != nil, kdf == .none {
            throw DescriptionError.impossible(key: reader.keyPath("info"), line: reader.line(of: "info"), reason: "`info` is the KDF's context; with `kdf = \"none\"` there is none; remove it")
        }
        let saltText = try reader.string("salt") ?? ""
        guard let salt = Data(hexString: saltText) else {
            throw DescriptionError.impossible(key: reader.keyPath("salt"), line: reader.line(of: "salt"), reason: "`salt` is hex text (an even number of 0-9 a-f), e.g. salt = \"000102\"; found \"\(saltText)\"")
        }
        var agreement = ProtocolDescription.Agreement(keys: names, kdf: kdf, salt: salt, info: Data((try reader.string("info") ?? "").utf8))
        if reader.table["skip"] != nil {
            guard kdf != .none else {
                throw DescriptionError.impossible(key: reader.keyPath("skip"), line: reader.line(of: "skip"), reason: "`skip` drops the first bytes of a KDF's output; with `kdf = \"none\"` there is none; remove it")
            }
            agreement.skip = try reader.number("skip", in: 0...4096) ?? 0
        }
        return agreement
    }

    func readTransport(_ reader: TableReader) throws -> ProtocolDescription.Transport {
        try reader.allow(["kind", "framing", "length_bytes", "line_end", "max_message", "port"])
        _ = try reader.require("kind", "\"tcp\", \"http\" or \"https\"")
        let kind = ProtocolDescription.TransportKind(rawValue: try reader.choice("kind", ["tcp", "http", "https"])!)!
        if kind != .tcp, reader.table["framing"] != nil {
            throw DescriptionError.impossible(key: reader.keyPath("framing"), line: reader.line(of: "framing"), reason: "`framing` is for `kind = \"tcp\"` only (HTTP frames its own messages); remove it")
        }
        let framing = try reader.choice("framing", ProtocolDescription.FramingKind.allCases.map(\.rawValue)).flatMap(ProtocolDescription.FramingKind.init) ?? .legacy
        if reader.table["length_bytes"] != nil, framing != .lengthPrefix {
            throw DescriptionError.impossible(key: reader.keyPath("length_bytes"), line: reader.line(of: "length_bytes"), reason: "`length_bytes` is for `framing = \"length-prefix\"` only; remove it")
        }
        if reader.table["line_end"] != nil, framing != .line || kind != .tcp {
            throw DescriptionError.impossible(key: reader.keyPath("line_end"), line: reader.line(of: "line_end"), reason: "`line_end` is for `framing = \"line\"` only; remove it")
        }
        return ProtocolDescription.Transport(kind: kind, framing: framing, lengthBytes: try reader.number("length_bytes", oneOf: [2, 4]) ?? 4,
                                             lineEnd: try reader.choice("line_end", ["\n", "\r\n"]) ?? "\n",
                                             maxMessage: try reader.number("max_message", in: 1...16_777_216) ?? 65536,
                                             port: try reader.number("port", in: 1...65535), statesMaxMessage: reader.table["max_message"] != nil)
    }

    func readConversation(_ reader: TableReader, transport: ProtocolDescription.Transport) throws -> ProtocolDescription.Conversation {
        try reader.allow(transport.isHTTP ? ["name", "message", "error_status", "errors", "step"] : ["name", "message", "error", "errors", "error_then", "step"])
        let name = try reader.name("name", meaning: "the conversation's name, a-z 0-9 -")
        let message = try reader.string("message").map { Data($0.utf8) }
        let error = try reader.table["error"].map { try DescribedValue.read($0, keyPath: reader.keyPath("error")) }
        let errorStatus = try reader.number("error_status", in: 400...599) ?? 400  // a refusal is a client or server error (RFC 9110 §15.5, §15.6)
        var errors: [RefusalKind: DescribedValue] = [:]
        var httpErrors: [RefusalKind: ProtocolDescription.HTTPRefusal] = [:]
        var httpErrorPlaces: [RefusalKind: (keyPath: String, line: Int)] = [:]
        if let table = try reader.subtable("errors") {
            let kinds = TableReader(table, path: reader.keyPath("errors"))
            try kinds.allow(RefusalKind.allCases.map(\.rawValue))
            for name in table.keys {
                guard transport.isHTTP else { errors[RefusalKind(rawValue: name)!] = try DescribedValue.read(table[name]!, keyPath: kinds.keyPath(name)); continue }
                // HTTP: { status = N, body = value }, the body a constant the server can always send.
                guard case let .table(inner) = table[name]!.kind else { throw kinds.wrongType(name, "a table { status = N, body = value }") }
                let entry = TableReader(inner, path: kinds.keyPath(name))
                try entry.allow(["status", "body"])
                _ = try entry.require("status", "the HTTP status of this refusal")
                let body = try inner["body"].map { try DescribedValue.read($0, keyPath: entry.keyPath("body")) }
                if let body, !body.isConstant {
                    throw DescriptionError.impossible(key: body.keyPath, line: body.line, reason: "a refusal's body is a constant: `text`, or a `json` or `form` of one or more `text` fields")
                }
                httpErrors[RefusalKind(rawValue: name)!] = ProtocolDescription.HTTPRefusal(status: try entry.number("status", in: 100...599)!, body: body)
                httpErrorPlaces[RefusalKind(rawValue: name)!] = (entry.keyPath("status"), entry.line(of: "status"))
            }
        }
        _ = try reader.require("step", "one or more [[conversation.step]] tables")
        guard case let .array(items) = reader.table["step"]!.kind, !items.isEmpty else { throw reader.wrongType("step", "an array of tables ([[conversation.step]])") }
        var steps: [ProtocolDescription.Step] = []
        for (index, item) in items.enumerated() {
            let path = reader.keyPath("step[\(index + 1)]")
            guard case let .table(table) = item.kind else { throw DescriptionError.wrongType(key: path, line: item.line, expected: "a table", found: describe(item)) }
            steps.append(try readStep(TableReader(table, path: path), transport: transport))
        }
        if transport.framing == .close, transport.kind == .tcp {
            // After its message a side has closed its half of the connection: it cannot send again.
            for role in ProtocolDescription.Role.allCases {
                let sends = steps.filter { $0.from == role }
                if sends.count > 1 {
                    throw DescriptionError.impossible(key: sends[1].keyPath, line: sends[1].line,
                                                      reason: "with `framing = \"close\"` a message ends when its sender closes its side, so the \(role.rawValue) sends at most one message; this is its second")
                }
            }
        }
        if let closing = steps.dropLast().first(where: \.closes) {
            throw DescriptionError.impossible(key: closing.keyPath + ".then", line: closing.line, reason: "the \(closing.from.rawValue) closes after this step, so the steps after it can never happen; remove `then` or those steps")
        }
        if transport.isHTTP {
            // A correct answer and a refusal of one status: nothing could tell them apart.
            if let same = steps.first(where: { $0.from == .server && $0.status == errorStatus }) {
                throw DescriptionError.impossible(key: same.keyPath + ".status", line: same.line,
                                                  reason: "a correct answer and a refusal would both be status \(errorStatus): nothing could tell them apart; give the answer its own status or `error_status` another")
            }
            // A refusal answered with a correct answer's status is told apart by the two bodies alone.
            for kind in RefusalKind.allCases {
                guard let refusal = httpErrors[kind], let place = httpErrorPlaces[kind],
                      steps.contains(where: { $0.from == .server && $0.status == refusal.status && (refusal.body == nil || $0.body == nil) }) else { continue }
                throw DescriptionError.impossible(key: place.keyPath, line: place.line,
                                                  reason: "a correct answer and this refusal are both status \(refusal.status): give the refusal and the answer each a `body` that tells them apart")
            }
            for (index, step) in steps.enumerated() where step.from != (index % 2 == 0 ? .client : .server) {
                throw DescriptionError.impossible(key: step.keyPath + ".from", line: step.line, reason: index == 0
                    ? "an HTTP conversation begins with the client's request; the server cannot send first"
                    : "an HTTP conversation alternates: each client request, then the server's response")
            }
        }
        var conversation = ProtocolDescription.Conversation(name: name, message: message, error: error, errorStatus: errorStatus, steps: steps, line: reader.line)
        conversation.errors = errors
        conversation.httpErrors = httpErrors
        conversation.errorThen = try reader.choice("error_then", ProtocolDescription.ErrorThen.allCases.map(\.rawValue)).flatMap(ProtocolDescription.ErrorThen.init) ?? .close
        if conversation.errorThen == .keepOpen {
            // The next message after a refusal begins a conversation again: the client's, on a connection both keep.
            if transport.framing == .close {
                throw DescriptionError.impossible(key: reader.keyPath("error_then"), line: reader.line(of: "error_then"),
                                                  reason: "with `framing = \"close\"` each side sends one message and closes: nothing is read after an error; remove error_then")
            }
            if steps.first?.from != .client {
                throw DescriptionError.impossible(key: reader.keyPath("error_then"), line: reader.line(of: "error_then"),
                                                  reason: "keep-open reads the next message as a conversation's first, so the conversation must begin with the client's step")
            }
        }
        for answer in [error].compactMap({ $0 }) + RefusalKind.allCases.compactMap({ errors[$0] }) {
            // A server can always send its refusal: fixed text (as PythonRef's reader has it).
            if let other = answer.values.first(where: { switch $0.kind { case .text, .concat, .startsWith: return false; default: return true } }) {
                throw DescriptionError.impossible(key: other.keyPath, line: other.line, reason: "an error value is fixed text: use { text = \"...\" } (or { starts_with = \"...\" } for a text that varies after its beginning)")
            }
            // starts_with: a refusal's text that varies after a fixed beginning, so a whole error value only.
            if let inner = answer.values.dropFirst().first(where: { if case .startsWith = $0.kind { return true }; return false }) {
                throw DescriptionError.impossible(key: inner.keyPath, line: inner.line, reason: "starts_with is a whole error value (error = { starts_with = \"…\" }), not a part of one")
            }
            // A refusal told by its beginning must be told apart from every answer the server gives as a constant.
            guard case let .startsWith(text) = answer.kind else { continue }
            if text.isEmpty {
                throw DescriptionError.impossible(key: answer.keyPath, line: answer.line, reason: "an empty beginning matches every answer: give the text every refusal begins with")
            }
            for step in steps where step.from == .server {
                guard case let .text(said)? = step.send?.kind, said.hasPrefix(text) || text.hasPrefix(said) else { continue }
                throw DescriptionError.impossible(key: answer.keyPath, line: answer.line,
                                                  reason: "\(step.keyPath)'s answer \(JSONText.string(said)) and this refusal's beginning cannot be told apart")
            }
        }
        return conversation
    }

    func readStep(_ reader: TableReader, transport: ProtocolDescription.Transport) throws -> ProtocolDescription.Step {
        _ = try reader.require("from", "\"client\" or \"server\"")
        let from = ProtocolDescription.Role(rawValue: try reader.choice("from", ["client", "server"])!)!
        var allowed = ["from", "then"]
        if !transport.isHTTP { allowed.append("send") } else { allowed += from == .client ? ["request", "query", "headers", "body"] : ["status", "headers", "body"] }
        try reader.allow(allowed)
        _ = try reader.choice("then", ["close"])
        var step = ProtocolDescription.Step(from: from, send: nil, method: nil, path: nil, headers: [], status: 200, body: nil,
                                            closes: reader.table["then"] != nil, line: reader.line, keyPath: reader.path)
        if !transport.isHTTP {
            let send = try reader.require("send", "the message: a value such as { text = \"…\" }")
            step.send = try DescribedValue.read(send, keyPath: reader.keyPath("send"))
            return step
        }
        if from == .client {
            _ = try reader.require("request", "\"POST /path\": the method and path")
            let request = try reader.string("request")!
            let parts = request.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isUppercase }), parts[1].hasPrefix("/") else {
                throw DescriptionError.notAllowed(key: reader.keyPath("request"), line: reader.line(of: "request"), allowed: "\"METHOD /path\" such as \"POST /login\"", found: "\"\(request)\"")
            }
            guard !parts[1].contains("?") else {
                throw DescriptionError.impossible(key: reader.keyPath("request"), line: reader.line(of: "request"),
                                                  reason: "the path has a query (\"?\"); write the path alone and the query as `query = { form = { name = value, … } }`")
            }
            step.method = String(parts[0]); step.path = String(parts[1])
        } else {
            step.status = try reader.number("status", in: 100...599) ?? 200
        }
        if let headers = try reader.subtable("headers") {
            step.headers = try headers.keys.map { name in
                let value = headers[name]!, path = reader.keyPath("headers.\(name)")
                // A plain string is a literal header value (shorthand for { text = "…" }), as the spec and PythonRef have it.
                if case let .string(text) = value.kind { return DescribedField(name: name, value: DescribedValue(kind: .text(text), line: value.line, keyPath: path)) }
                return DescribedField(name: name, value: try DescribedValue.read(value, keyPath: path))
            }
        }
        step.body = try reader.table["body"].map { try DescribedValue.read($0, keyPath: reader.keyPath("body")) }
        if let query = reader.table["query"] {
            let value = try DescribedValue.read(query, keyPath: reader.keyPath("query"))
            guard case .form = value.kind else {
                throw DescriptionError.impossible(key: value.keyPath, line: value.line, reason: "a query is a `form` value: { form = { name = value, … } }")
            }
            step.query = value
        }
        return step
    }
}

/// The checks across values and steps: who knows which key and secret when, which parts of a
/// `concat` can be split, which JSON fields name each other.
struct DescriptionValidator {
    let description: ProtocolDescription
    let conversation: ProtocolDescription.Conversation
    /// Public keys and secrets each side knows so far.
    var knownKeys: [ProtocolDescription.Role: Set<String>] = [:]
    var knownSecrets: [ProtocolDescription.Role: Set<String>] = [:]
    /// What each side knew when the current step began: an IV secret must arrive in an earlier message.
    var knownSecretsBeforeStep: [ProtocolDescription.Role: Set<String>] = [:]
    /// The same for public keys: a signature is verified with a key the receiver had before the message.
    var knownKeysBeforeStep: [ProtocolDescription.Role: Set<String>] = [:]
    var tokenIssued = false
    /// Checking the conversation's `error`, where a `starts_with` value belongs.
    var inRefusal = false

    init(description: ProtocolDescription, conversation: ProtocolDescription.Conversation) {
        self.description = description; self.conversation = conversation
        for role in ProtocolDescription.Role.allCases {
            knownKeys[role] = Set(description.keys.values.filter { $0.holder == role || $0.preshared }.map(\.name))
            knownSecrets[role] = Set(description.secrets.values.filter { $0.madeBy.rawValue == role.rawValue || $0.madeBy == .preshared }.map(\.name))
        }
        learnAgreements()
    }

    /// An agreement secret is known to a side that knows both keys' public halves (it holds one;
    /// the other is preshared or has arrived).
    mutating func learnAgreements() {
        for secret in description.secrets.values {
            guard let agreement = secret.agreement else { continue }
            for role in ProtocolDescription.Role.allCases where agreement.keys.allSatisfy({ knownKeys[role]!.contains($0) }) {
                knownSecrets[role]!.insert(secret.name)
            }
        }
    }

    func impossible(_ value: DescribedValue, _ reason: String) -> DescriptionError {
        .impossible(key: value.keyPath, line: value.line, reason: reason)
    }

    mutating func validate() throws {
        if let error = conversation.error {
            inRefusal = true
            try check(error, from: .server, inJSON: false, siblings: [])
            inRefusal = false
        }
        var received: Set<ProtocolDescription.Role> = []
        for step in conversation.steps {
            knownSecretsBeforeStep = knownSecrets
            knownKeysBeforeStep = knownKeys
            // `repeat = "received"` is a whole tcp message, sent back by a side that has received one.
            for value in step.values where value.kind == .repeatReceived {
                if description.transport.isHTTP { throw impossible(value, "repeat = \"received\" is a tcp message; an HTTP body is stated as what it holds") }
                guard step.send?.kind == .repeatReceived else { throw impossible(value, "repeat = \"received\" is a whole message (a step's send), not a part of one") }
                guard received.contains(step.from) else {
                    throw impossible(value, "repeat = \"received\" sends back the last message this side received; the \(step.from.rawValue) has received none before this step")
                }
            }
            received.insert(step.from.peer)
            for value in [step.send, step.body, step.query].compactMap({ $0 }) { try check(value, from: step.from, inJSON: false, siblings: []) }
            for header in step.headers {
                try check(header.value, from: step.from, inJSON: true, siblings: [])
                if case .json = header.value.kind { throw impossible(header.value, "a header's value is text, not a JSON object") }
                if case .form = header.value.kind { throw impossible(header.value, "a header's value is text, not a form") }
            }
        }
    }

    mutating func check(_ value: DescribedValue, from sender: ProtocolDescription.Role, inJSON: Bool, siblings: [DescribedField]) throws {
        let receiver = sender.peer
        /// `also_accepts` (docs/PROTOCOL-DESCRIPTIONS.md, `public_key`): an RSA key's other formats,
    /// none repeated, text where `format` is text and binary where it is binary — what the receiver
    /// reads from the same bytes, so the value's extent cannot depend on which one came.
    func checkAlsoAccepts(_ value: DescribedValue, key: ProtocolDescription.Key, format: PublicKeyFormat) throws {
        guard !value.alsoAccepts.isEmpty else { return }
        func refuse(_ reason: String) -> DescriptionError {
            .impossible(key: value.keyPath + ".also_accepts", line: value.alsoAcceptsLine, reason: reason)
        }
        guard key.type == .rsa else { throw refuse("also_accepts is for RSA keys; key \(key.name) is \(key.type.rawValue)") }
        var seen: Set<PublicKeyFormat> = [format]
        let text = PublicKeyFormat.allowed(for: .rsa).filter(\.isText), binary = PublicKeyFormat.allowed(for: .rsa).filter { !$0.isText }
        for other in value.alsoAccepts {
            guard PublicKeyFormat.allowed(for: .rsa).contains(other) else {
                throw refuse("also_accepts lists RSA public-key formats: \(PublicKeyFormat.allowed(for: .rsa).map(\.rawValue).joined(separator: ", ")); found \"\(other.rawValue)\"")
            }
            guard seen.insert(other).inserted else { throw refuse("also_accepts repeats a format (\"\(other.rawValue)\")") }
            guard other.isText == format.isText else {
                let same = format.isText ? text : binary
                throw refuse("also_accepts formats must be \(format.isText ? "text" : "binary") as format \"\(format.rawValue)\" is (\(same.map(\.rawValue).joined(separator: ", ")))")
            }
        }
    }

    func requireEncoded(_ encoding: ValueEncoding, textOK: Bool = false) throws {
            if inJSON, encoding == .raw, !textOK {
                throw impossible(value, "a binary value inside `json` needs an `encoding` (base64, base64url or hex)")
            }
        }
        switch value.kind {
        case .text, .config, .repeatReceived:
            break
        case let .pickle(items):
            if inJSON { throw impossible(value, "a `pickle` is a whole message or body, not a part of one") }
            guard (1...8).contains(items.count) else { throw impossible(value, "a pickle holds 1 to 8 items; this one has \(items.count)") }
            var numbers: [String: [PublicKeyFormat]] = [:]
            for item in items {
                switch item.kind {
                case let .publicKey(name, format, _):
                    guard format == .exponent || format == .modulus else {
                        throw impossible(item, "a key in a pickle is its numbers, each a Python int: format = \"e\" or \"n\"")
                    }
                    guard let key = description.keys[name] else { throw unknownName(item, name, "key", Array(description.keys.keys)) }
                    guard key.type == .rsa else { throw impossible(item, "key \(name) is \(key.type.rawValue); e and n are an RSA key's numbers") }
                    guard key.holder == sender else { throw impossible(item, "key \(name) is the \(key.holder.rawValue)'s; a pickle carries the numbers of a key its sender holds") }
                    numbers[name, default: []].append(format)
                case let .plain(encoding) where encoding == .raw || encoding == .utf8:
                    try check(item, from: sender, inJSON: false, siblings: [])
                case .text, .config, .token:
                    try check(item, from: sender, inJSON: false, siblings: [])
                default:
                    throw impossible(item, "a pickle item is a key's e or n, or text: text, plain (no encoding but utf8), config, token")
                }
            }
            for (name, formats) in numbers.sorted(by: { $0.key < $1.key }) where formats.count != 2 || Set(formats).count != 2 {
                throw impossible(value, "a pickle holds key \(name)'s e and n once each (the receiver makes the key of both)")
            }
            for name in numbers.keys { knownKeys[receiver]!.insert(name) }
            learnAgreements()
        case .startsWith:
            guard inRefusal else { throw impossible(value, "starts_with is only a tcp conversation's error or errors value (a refusal whose text varies); a step sends a value both sides can check") }
        case let .plain(encoding):
            try requireEncoded(encoding, textOK: encoding == .utf8)
        case let .token(use):
            if use == .new {
                guard sender == .server else { throw impossible(value, "only the server makes a token (`token = \"new\"`)") }
                tokenIssued = true
            } else {
                guard sender == .client, tokenIssued else { throw impossible(value, "`token = \"issued\"` sends back a token the server gave in an earlier step (`token = \"new\"`); there is none") }
            }
        case let .concat(parts):
            if inJSON { throw impossible(value, "`concat` cannot be a JSON field") }
            // A part whose length a `length_of = "next"` before it tells is not of unknown length.
            let told = { (index: Int) in index > 0 && parts[index - 1].isLengthOfNext }
            let unknown = parts.indices.filter { description.fixedLength(of: parts[$0]) == nil && !told($0) }
            if unknown.count > 1 {
                throw impossible(parts[unknown[1]], "a `concat` can have one part of unknown length, and \(parts[unknown[0]].keyPath) already is one; give the others fixed lengths (text, rsa, digest) or a `length_of = \"next\"` before them")
            }
            for (index, part) in parts.enumerated() where part.isLengthOfNext {
                let nextIsLength: Bool = {
                    guard index + 1 < parts.count else { return false }
                    switch parts[index + 1].kind { case .lengthOf, .lengthOfNext: return true; default: return false }
                }()
                guard index + 1 < parts.count, !nextIsLength else {
                    throw impossible(part, "`length_of = \"next\"` is the length of the part after it; this one has \(index + 1 < parts.count ? "another length after it" : "none")")
                }
                if let first = unknown.first, index > first {
                    throw impossible(part, "a part whose length is told cannot come after \(parts[first].keyPath), whose length is what the parts after it leave")
                }
            }
            for (index, part) in parts.enumerated() where part.isMACOfPrevious {
                let coversLength: Bool = { if index > 0, case .lengthOf = parts[index - 1].kind { return true }; return false }()
                guard index > 0, !parts[index - 1].isLengthOfNext, !coversLength, !parts[index - 1].isMACOfPrevious else {
                    throw impossible(part, "a `mac` with of = \"previous\" covers the part before it in its concat; this one has none to cover")
                }
                guard case let .mac(secretName, algorithm, _, _) = part.kind, let secret = description.secrets[secretName] else {
                    if case let .mac(secretName, _, _, _) = part.kind { throw unknownName(part, secretName, "secret", Array(description.secrets.keys)) }
                    continue
                }
                for side in [sender, receiver] where !knownSecrets[side]!.contains(secretName) {
                    throw impossible(part, "the \(side.rawValue) does not know secret \(secretName) here, so it cannot \(side == sender ? "compute" : "verify") the MAC")
                }
                if algorithm == .cmacAES, ![16, 24, 32].contains(secret.keyBytes) {
                    throw impossible(part, "cmac-aes needs a 16-, 24- or 32-byte key; secret \(secretName) gives \(secret.keyBytes)")
                }
            }
            for part in parts where !part.isLengthOfNext && !part.isMACOfPrevious { try check(part, from: sender, inJSON: false, siblings: []) }
        case let .json(fields):
            for field in fields { try check(field.value, from: sender, inJSON: true, siblings: fields) }
        case let .form(fields):
            if inJSON { throw impossible(value, "a `form` cannot be a field; it is a body or a query") }
            if fields.isEmpty { throw impossible(value, "a `form` needs at least one field") }
            for field in fields {
                if field.value.isJSONObject || { if case .form = field.value.kind { return true }; return false }() {
                    throw impossible(field.value, "a form field is text: a value with an encoding, not a JSON object or form")
                }
                try check(field.value, from: sender, inJSON: true, siblings: fields)
            }
        case let .mac(secretName, algorithm, covered, encoding):
            if covered == "previous", !inJSON { throw impossible(value, "of = \"previous\" is a `mac` in a `concat`, after the part it covers") }
            guard let secret = description.secrets[secretName] else { throw unknownName(value, secretName, "secret", Array(description.secrets.keys)) }
            for side in [sender, receiver] where !knownSecrets[side]!.contains(secretName) {
                throw impossible(value, "the \(side.rawValue) does not know secret \(secretName) here, so it cannot \(side == sender ? "compute" : "verify") the MAC")
            }
            if algorithm == .cmacAES, ![16, 24, 32].contains(secret.keyBytes) {
                throw impossible(value, "cmac-aes needs a 16-, 24- or 32-byte key; secret \(secretName) gives \(secret.keyBytes)")
            }
            guard inJSON, let sibling = siblings.first(where: { $0.name == covered }), !sibling.value.isSiblingReference, !sibling.value.isJSONObject else {
                throw impossible(value, "`of = \"\(covered)\"` names no sibling field that carries text (the MAC covers that field's text as sent; not a JSON object)")
            }
            guard [.hex, .base64, .base64url].contains(encoding) else {
                throw impossible(value, "a MAC is written as hex, base64 or base64url, not \(encoding.rawValue)")
            }
        case let .signature(keyName, _, covered, _, encoding):
            guard let key = description.keys[keyName] else { throw unknownName(value, keyName, "key", Array(description.keys.keys)) }
            guard key.type == .ecP256 else { throw impossible(value, "key \(keyName) is an RSA key; an ecdsa-sha256 signature needs `type = \"ec-p256\"` in [keys.\(keyName)]") }
            guard key.holder == sender else {
                throw impossible(value, "key \(keyName)'s private half is the \(key.holder.rawValue)'s, so the \(sender.rawValue) cannot sign with it; sign with a key the \(sender.rawValue) holds")
            }
            guard knownKeysBeforeStep[receiver]!.contains(keyName) else {
                throw impossible(value, "the \(receiver.rawValue) does not know key \(keyName)'s public half before this message, so it cannot verify this; send it in an earlier step with { public_key = \"\(keyName)\" } or mark it `preshared = true`")
            }
            guard inJSON, let sibling = siblings.first(where: { $0.name == covered }), !sibling.value.isSiblingReference, !sibling.value.isJSONObject else {
                throw impossible(value, "`of = \"\(covered)\"` names no sibling field that carries text (the signature covers that field's text as sent; not a JSON object)")
            }
            guard [.hex, .base64, .base64url].contains(encoding) else {
                throw impossible(value, "a signature is written as hex, base64 or base64url, not \(encoding.rawValue)")
            }
        case let .publicKey(name, format, encoding):
            guard let key = description.keys[name] else { throw unknownName(value, name, "key", Array(description.keys.keys)) }
            guard knownKeys[sender]!.contains(name) else { throw impossible(value, "the \(sender.rawValue) sends key \(name)'s public half before it knows it") }
            let allowed = PublicKeyFormat.allowed(for: key.type)
            if !allowed.contains(format) {
                throw impossible(value, "key \(name) is an \(key.type.rawValue) key: its public half is \(allowed.map(\.rawValue).joined(separator: ", ")), not \(format.rawValue)")
            }
            if !(inJSON && format.isJSON) { try requireEncoded(encoding, textOK: format.isText) }
            if encoding == .utf8, !format.isText { throw impossible(value, "a binary key (\(format.rawValue)) is not text; `encoding = \"utf8\"` is for text") }
            try checkAlsoAccepts(value, key: key, format: format)
            if key.isToy {
                throw impossible(value, "key \(name) is a toy key (bits = \(key.bits)): its public half is not sent in a value; mark it `preshared = true` (crosscheck remote reads it with --public-key \(name)=FILE)")
            }
            knownKeys[receiver]!.insert(name)
            learnAgreements()
        case let .rsa(name, padding, carries, encoding):
            guard let key = description.keys[name] else { throw unknownName(value, name, "key", Array(description.keys.keys)) }
            guard knownKeys[sender]!.contains(name) else {
                throw impossible(value, "the \(sender.rawValue) encrypts to key \(name) but never learns its public half; send it first with { public_key = \"\(name)\" } or mark it `preshared = true`")
            }
            guard key.type == .rsa else { throw impossible(value, "key \(name) is an EC key (\(key.type.rawValue)); `rsa` encrypts to an RSA key") }
            guard key.holder == receiver else { throw impossible(value, "key \(name)'s private half is the \(key.holder.rawValue)'s, so the \(receiver.rawValue) cannot decrypt this; encrypt to a key the \(receiver.rawValue) holds") }
            try requireEncoded(encoding)
            if encoding == .utf8 { throw impossible(value, "an RSA ciphertext is not text; use raw, base64, base64url or hex") }
            try checkCarries(value, carries, from: sender)
            if key.isToy != (padding == .perCharacter) {
                throw impossible(value, key.isToy
                    ? "key \(name) is a toy key (bits = \(key.bits)), which only padding = \"per-character\" values use"
                    : "padding = \"per-character\" needs a toy key (bits 8 to 15 in [keys.\(name)]); key \(name) has \(key.bits) bits")
            }
            if padding == .perCharacter {
                // Text, each character less its offset below n: below 128 fits the smallest n of an 8-bit key.
                let offset = value.characterOffset
                func ascii(_ text: String) -> Bool { text.unicodeScalars.allSatisfy { (offset..<(offset + 128)).contains(Int($0.value)) } }
                let range = offset == 0 ? "below 128" : "from \(offset) to \(offset + 127)"
                switch carries {
                case .message, .anyText: break
                case let .constant(text) where ascii(text): break
                case .constant: throw impossible(value, "per-character RSA with a toy key carries characters \(range) (the smallest n of an 8-bit key); the stated text has others")
                default: throw impossible(value, "per-character RSA carries text: carries = \"message\", \"text:TEXT\" or \"any-text\"")
                }
                if carries == .message, conversation.message?.isEmpty == true {
                    throw impossible(value, "per-character RSA carries 1 or more characters; the conversation's message is empty")
                }
                if carries == .message, let message = conversation.message, !(String(validating: [UInt8](message), as: UTF8.self).map(ascii) ?? false) {
                    throw impossible(value, "per-character RSA with a toy key carries characters \(range) (the smallest n of an 8-bit key); the conversation's message has others")
                }
            }
            if padding == .textbook {
                // Textbook RSA's plaintext is an integer (RFC 8017 §4.2 OS2IP): a leading 0x00 byte is lost,
                // and random bytes begin with one once in 256. A text secret (letters and digits) never does.
                let stated: (what: String, bytes: Data)? = {
                    if carries == .message, let message = conversation.message { return ("the conversation's message", message) }
                    if case let .constant(text) = carries { return ("the stated text", Data(text.utf8)) }
                    return nil
                }()
                if let (what, bytes) = stated, bytes.isEmpty || bytes.first == 0 || bytes.count >= key.bits / 8 {
                    throw impossible(value, "textbook RSA (padding none) to a \(key.bits)-bit key carries 1 to \(key.bits / 8 - 1) bytes not starting with 0x00; \(what) has \(bytes.count)\(bytes.first == 0 ? " and starts with 0x00" : "")")
                }
            }
        case let .sealed(sealed):
            guard let secret = description.secrets[sealed.secret] else { throw unknownName(value, sealed.secret, "secret", Array(description.secrets.keys)) }
            guard knownSecrets[sender]!.contains(sealed.secret) else { throw impossible(value, "the \(sender.rawValue) seals with secret \(sealed.secret) before it knows it") }
            guard knownSecrets[receiver]!.contains(sealed.secret) else {
                throw impossible(value, "the \(receiver.rawValue) never learns secret \(sealed.secret), so it cannot open this; send it first (carries = \"secret:\(sealed.secret)\" or { secret = \"\(sealed.secret)\" })")
            }
            if secret.keyBytes < 16 {
                throw impossible(value, "secret \(sealed.secret) has \(secret.keyBytes) bytes: no cipher key is that short; an 8- or 12-byte secret is a nonce (use it as `iv = \"secret:\(sealed.secret)\"`)")
            }
            if [.chacha20Poly1305, .chacha20, .fernet].contains(sealed.cipher), secret.keyBytes != 32 {
                throw impossible(value, "\(sealed.cipher.rawValue) needs a 32-byte key; secret \(sealed.secret) gives \(secret.keyBytes) (write `bytes = 32` in [secrets.\(sealed.secret)])")
            }
            if case let .secret(ivName) = sealed.iv {
                guard let ivSecret = description.secrets[ivName] else { throw unknownName(value, ivName, "secret", Array(description.secrets.keys)) }
                guard ivSecret.derive == .raw, sealed.cipher.fixedIVBytes.contains(ivSecret.bytes) else {
                    throw impossible(value, "`iv = \"secret:\(ivName)\"` needs a secret of the cipher's IV length (\(sealed.cipher.fixedIVBytes.count == 1 ? "\(sealed.cipher.ivBytes)" : "8 to 128") bytes, raw); secret \(ivName) has \(ivSecret.derive == .raw ? "\(ivSecret.bytes) bytes" : "derive = \"\(ivSecret.derive.rawValue)\"")")
                }
                // A nonce sent alone must come first; an IV that is the key itself arrives with it
                // (an RSA-wrapped key beside its ciphertext), as the key check above allows.
                for side in [sender, receiver] where ivName != sealed.secret && !knownSecretsBeforeStep[side]!.contains(ivName) {
                    throw impossible(value, "the IV is secret \(ivName), which the \(side.rawValue) does not know yet; send it first ({ secret = \"\(ivName)\" })")
                }
            }
            if let message = conversation.message, sealed.carries == .message, [.aesCBC, .aesECB].contains(sealed.cipher), let last = message.last, (sealed.padding == .space && last == 0x20) || (sealed.padding == .zero && last == 0) {
                throw impossible(value, "the conversation's message ends in \(last == 0 ? "0x00" : "a space"), which \(sealed.padding.rawValue) padding strips: it cannot be carried")
            }
            if sealed.cipher == .salsa20, ![16, 32].contains(secret.keyBytes) {
                throw impossible(value, "salsa20 needs a 16- or 32-byte key; secret \(sealed.secret) gives \(secret.keyBytes) (write `bytes = 16` or `bytes = 32` in [secrets.\(sealed.secret)])")
            }
            if sealed.cipher != .fernet { try requireEncoded(sealed.encoding) }
            if sealed.encoding == .utf8 { throw impossible(value, "a ciphertext is not text; use raw, base64, base64url or hex") }
            for (placement, kind) in [(sealed.iv.fieldName, "nonce_of"), (sealedTagField(sealed), "tag_of")] {
                guard let field = placement else { continue }
                guard inJSON, siblings.contains(where: { $0.name == field && $0.value.kind.names(kind) == siblingName(of: value, in: siblings) }) else {
                    throw impossible(value, "the \(kind == "nonce_of" ? "IV" : "tag") goes in field \"\(field)\", but no sibling JSON field \(field) = { \(kind) = \"…\" } names this one")
                }
            }
            try checkCarries(value, sealed.carries, from: sender)
        case let .secret(name, encoding):
            guard let secret = description.secrets[name] else { throw unknownName(value, name, "secret", Array(description.secrets.keys)) }
            guard secret.madeBy != .agreement else {
                throw impossible(value, "secret \(name) is agreed (made_by = \"agreement\"): each side computes it, and sending it in the clear gives it away")
            }
            guard knownSecrets[sender]!.contains(name) else { throw impossible(value, "the \(sender.rawValue) sends secret \(name) before it knows it") }
            if encoding == .utf8, !secret.derive.isText { throw impossible(value, "`encoding = \"utf8\"` is only for text secrets (`utf8-zeropad16`, passphrases); the others are random bytes") }
            try requireEncoded(encoding, textOK: encoding == .utf8)
            knownSecrets[receiver]!.insert(name)
        case let .digest(encoding):
            try requireEncoded(encoding)
        case .lengthOfNext:
            throw impossible(value, "`length_of = \"next\"` is a part of a `concat`, before the part whose length it gives")
        case let .lengthOf(bytes):
            if inJSON { throw impossible(value, "a `length_of` is raw bytes; it cannot be a JSON field") }
            // The length of the conversation's message: some value must carry it, and none may carry a
            // plaintext its sender draws instead (json-fields, any-text), or the length says another's.
            let values = conversation.steps.flatMap(\.values)
            let carried = values.contains { value in
                if case .plain = value.kind { return true }
                return value.carries == .message || value.carries == .jsonMessage
            }
            if !carried || values.contains(where: { $0.carries?.isDrawnBySender ?? false }) {
                throw impossible(value, "a `length_of` states the length of the conversation's message; carry the message (carries = \"message\" or a `plain` value), not a plaintext its sender draws (json-fields, any-text)")
            }
            if let message = conversation.message, message.count >= 1 << (8 * bytes) {
                throw impossible(value, "the conversation's message has \(message.count) bytes: more than a \(bytes)-byte length field holds")
            }
        case let .nonceOf(field, encoding), let .tagOf(field, encoding):
            let isNonce: Bool = { if case .nonceOf = value.kind { return true }; return false }()
            let ownName = siblingName(of: value, in: siblings)
            guard inJSON, let sibling = siblings.first(where: { $0.name == field }), case let .sealed(sealed) = sibling.value.kind,
                  (isNonce ? sealed.iv.fieldName : sealedTagField(sealed)) == ownName else {
                throw impossible(value, "no sibling JSON field \"\(field)\" is a `sealed` value with `\(isNonce ? "iv" : "tag") = \"field:\(ownName ?? "…")\"`")
            }
            try requireEncoded(encoding)
        }
    }

    func sealedTagField(_ sealed: Sealed) -> String? { if case let .field(name) = sealed.tag { return name }; return nil }
    func siblingName(of value: DescribedValue, in siblings: [DescribedField]) -> String? { siblings.first { $0.value == value }?.name }

    mutating func checkCarries(_ value: DescribedValue, _ carries: Carries, from sender: ProtocolDescription.Role) throws {
        switch carries {
        case .message, .jsonMessage, .constant, .anyText: break
        case let .jsonFields(fields):
            for case let secret? in fields.map(\.secret) { try carry(secret: secret.name, in: value, from: sender) }
        case .echo, .same:
            guard sender == .server else { throw impossible(value, "`carries = \"echo\"` and `\"same\"` are a server's answer; the client sends \"message\" or \"json-message\"") }
        case let .secret(name, _):
            try carry(secret: name, in: value, from: sender)
        }
    }

    /// A secret in a plaintext (`carries = "secret:S"`, or a `json-fields` field): only the side that
    /// makes it can send it, and the other side knows it from then on.
    mutating func carry(secret name: String, in value: DescribedValue, from sender: ProtocolDescription.Role) throws {
        guard let secret = description.secrets[name] else { throw unknownName(value, name, "secret", Array(description.secrets.keys)) }
        guard secret.madeBy != .agreement else {
            throw impossible(value, "secret \(name) is agreed (made_by = \"agreement\"): each side computes it; nobody carries it")
        }
        guard secret.madeBy.rawValue == sender.rawValue else {
            throw impossible(value, "the \(sender.rawValue) carries secret \(name), but \(secret.madeBy == .preshared ? "it is preshared" : "the \(secret.madeBy.rawValue) makes it"); write `made_by = \"\(sender.rawValue)\"` in [secrets.\(name)]")
        }
        knownSecrets[sender.peer]!.insert(name)
    }

    func unknownName(_ value: DescribedValue, _ name: String, _ what: String, _ names: [String]) -> DescriptionError {
        let hint = suggestion(for: name, among: names).map { " — did you mean \"\($0)\"?" } ?? ""
        return impossible(value, "there is no \(what) \"\(name)\"\(hint) (\(what)s: \(names.sorted().joined(separator: ", ")))")
    }
}

extension IVPlacement {
    var fieldName: String? { if case let .field(name) = self { return name }; return nil }
}

extension DescribedValue.Kind {
    /// The sibling field a `nonce_of` / `tag_of` names, when it is of that kind.
    func names(_ kind: String) -> String? {
        switch self {
        case let .nonceOf(field, _) where kind == "nonce_of": return field
        case let .tagOf(field, _) where kind == "tag_of": return field
        default: return nil
        }
    }
}
