import Foundation
import StrictFormats
import WireCrypto

/// One protocol, as a description file states it (docs/PROTOCOL-DESCRIPTIONS.md): read with
/// StrictTOML and validated whole, so a description that cannot work is refused before any
/// connection, naming the key and its line.
public struct ProtocolDescription: Sendable {
    public enum TransportKind: String, Sendable, CaseIterable { case tcp, http, https }
    public enum FramingKind: String, Sendable, CaseIterable {
        case legacy
        case lengthPrefix = "length-prefix"
        case line
        /// The message ends when its sender closes its side of the connection (a half-close):
        /// a one-shot client that sends and shuts down. Each side sends at most one message.
        case close
    }
    public enum Role: String, Sendable, CaseIterable {
        case client, server
        public var peer: Role { self == .client ? .server : .client }
    }

    public struct Transport: Sendable, Equatable {
        public var kind: TransportKind
        public var framing: FramingKind
        public var lengthBytes: Int
        public var lineEnd: String
        public var maxMessage: Int
        public var port: Int?
        /// The description says `max_message` itself: the server is known to refuse longer messages
        /// (`remote` probes it), where the default is only the engines' own bound.
        public var statesMaxMessage = false
        public var isHTTP: Bool { kind != .tcp }
    }

    public struct Key: Sendable, Equatable {
        public var name: String
        public var type: KeyType = .rsa
        public var holder: Role
        /// RSA: the modulus size a run's fresh key has; EC: the curve's (256).
        public var bits: Int
        public var preshared: Bool
        public var line: Int
        /// An RSA key of 8 to 15 bits (WireCrypto `ToyRSA`), for `padding = "per-character"` only.
        public var isToy: Bool { type == .rsa && ToyRSA.bits.contains(bits) }

        /// A fresh RSA key of `bits` as an engine makes one for a run: a toy key below 1024 bits.
        public func freshRSAKey() throws -> RSAPrivateKey {
            isToy ? try RSAPrivateKey._INSECURE_toyKey(bits: bits) : try RSAPrivateKey(bits: bits)
        }
    }

    /// What a `[keys.NAME]` is: an RSA key (encryption, `rsa` values), an EC key on NIST P-256 or
    /// P-384 (SEC 2 §2.4.2, §2.5.1; FIPS 186-5: `signature` values on P-256, `agreement` secrets), or
    /// an X25519 key (RFC 7748 §5: `agreement` secrets).
    public enum KeyType: String, Sendable, CaseIterable {
        case rsa
        case ecP256 = "ec-p256"
        case ecP384 = "ec-p384"
        case x25519

        /// An EC or X25519 key: no `bits`, and its own public-key formats.
        public var isCurve: Bool { self != .rsa }
        /// A NIST curve (SEC 1 points: x962 and compressed forms), not X25519.
        public var isNISTCurve: Bool { self == .ecP256 || self == .ecP384 }
        /// The curve's size in bits, as a key's `bits`.
        public var curveBits: Int { self == .ecP384 ? 384 : 256 }
        /// The length of the ECDH shared secret (SEC 1 §3.3.1: the x-coordinate; RFC 7748 §6.1: 32).
        public var sharedSecretBytes: Int { self == .ecP384 ? 48 : 32 }
    }

    /// An HTTP refusal of one kind as the description states it: its status, and a constant body
    /// (`text`, or a `json`/`form` of `text` fields) when it says one.
    public struct HTTPRefusal: Sendable, Equatable {
        public var status: Int
        public var body: DescribedValue?
    }

    public enum SecretMaker: String, Sendable, CaseIterable { case client, server, preshared, agreement }

    /// How a key-agreement shared secret becomes the secret's bytes.
    public enum AgreementKDF: String, Sendable, CaseIterable {
        case hkdfSHA256 = "hkdf-sha256"
        case hkdfSHA384 = "hkdf-sha384"
        case x963SHA256 = "x963-sha256"
        case none
    }

    /// `made_by = "agreement"`: ECDH (or X25519) of one side's key with the other's, then a KDF.
    public struct Agreement: Sendable, Equatable {
        /// The two keys, one held by each side.
        public var keys: [String]
        public var kdf: AgreementKDF
        /// HKDF's salt (empty: none, RFC 5869 §2.2).
        public var salt: Data
        /// HKDF's info, or X9.63's SharedInfo.
        public var info: Data
        /// The KDF's first bytes dropped: the secret is bytes `skip` to `skip + bytes` of its output
        /// (wenyupeng/securex: one HKDF of 64 bytes, the AES key its first 32, the HMAC key its last 32).
        public var skip = 0

        /// The key of the pair that `role` holds, and the other one.
        public func keys(heldBy role: ProtocolDescription.Role, in description: ProtocolDescription) -> (own: String, peer: String)? {
            guard let own = keys.first(where: { description.keys[$0]?.holder == role }), let peer = keys.first(where: { $0 != own }) else { return nil }
            return (own, peer)
        }

        /// Whether the key of the pair that `role` holds is preshared: the same in every conversation.
        public func keyIsPreshared(heldBy role: ProtocolDescription.Role, in description: ProtocolDescription) -> Bool {
            keys.contains { description.keys[$0].map { $0.holder == role && $0.preshared } ?? false }
        }
    }
    public enum SecretDerivation: String, Sendable, CaseIterable {
        case raw
        case utf8ZeroPad16 = "utf8-zeropad16"
        case sha256
        /// A text passphrase (any length) hashed to the key: SHA-256, or its first 16 bytes.
        case passphraseSHA256 = "passphrase-sha256"
        case passphraseSHA256First16 = "passphrase-sha256-128"

        /// The secret is text (letters and digits when made fresh), not random bytes.
        public var isText: Bool { self == .utf8ZeroPad16 || isPassphrase }
        public var isPassphrase: Bool { self == .passphraseSHA256 || self == .passphraseSHA256First16 }
    }

    public struct Secret: Sendable, Equatable {
        public var name: String
        public var madeBy: SecretMaker
        public var bytes: Int
        public var derive: SecretDerivation
        /// Text secrets only (`utf8-zeropad16`, passphrases): how many random letters and digits a fresh one has.
        public var chars: Int
        public var line: Int
        /// `made_by = "agreement"`: the keys and KDF.
        public var agreement: Agreement? = nil
        /// The length of the cipher key the secret's bytes become.
        public var keyBytes: Int {
            switch derive {
            case .raw: return bytes
            case .utf8ZeroPad16, .passphraseSHA256First16: return 16
            case .sha256, .passphraseSHA256: return 32
            }
        }

        /// Whether `count` bytes can be this secret as it arrives or is given: any passphrase of
        /// 1 to 1024 bytes, a `utf8-zeropad16` string of 1 to 15, else exactly `bytes`.
        public func fits(_ count: Int) -> Bool {
            if derive.isPassphrase { return (1...1024).contains(count) }
            return derive == .utf8ZeroPad16 ? (1...15).contains(count) : count == bytes
        }

        /// What `fits` allows, for a refusal.
        public var allowedLength: String {
            derive.isPassphrase ? "1 to 1024" : derive == .utf8ZeroPad16 ? "1 to 15" : "\(bytes)"
        }
    }

    public struct Step: Sendable, Equatable {
        public var from: Role
        /// tcp: the message.
        public var send: DescribedValue?
        /// http(s), client steps: the query string (a `form` value), after the path.
        public var query: DescribedValue?
        /// http(s), client steps: the method and path.
        public var method: String?
        public var path: String?
        public var headers: [DescribedField]
        /// http(s), server steps: the status a correct answer has.
        public var status: Int
        public var body: DescribedValue?
        /// The sender closes after this step.
        public var closes: Bool
        public var line: Int
        public var keyPath: String
    }

    public struct Conversation: Sendable, Equatable {
        public var name: String
        public var message: Data?
        public var error: DescribedValue?
        /// tcp: the answer to a refusal of each kind, where it is not `error` (`errors = { padding = … }`).
        public var errors: [RefusalKind: DescribedValue] = [:]
        /// http(s): the answer to a refusal of each kind, where it is not `error_status`
        /// (`errors = { authentication = { status = 200, body = … } }`).
        public var httpErrors: [RefusalKind: HTTPRefusal] = [:]
        public var errorStatus: Int
        /// tcp: after its `error` the server closes (the default), or reads on (`error_then = "keep-open"`).
        public var errorThen: ErrorThen = .close
        public var steps: [Step]
        public var line: Int
    }

    /// What a tcp server does after its refusal: closes, or keeps the connection and reads the next
    /// message as a conversation's first (a `while True: recv()` loop).
    public enum ErrorThen: String, Sendable, Equatable, CaseIterable {
        case close
        case keepOpen = "keep-open"
    }

    public var name: String
    public var summary: String?
    public var source: String?
    public var transport: Transport
    public var keys: [String: Key]
    public var secrets: [String: Secret]
    public var conversations: [Conversation]

    /// Reads and validates the description in `text`.
    public init(toml text: String) throws {
        let root: StrictTOML.Table
        do { root = try StrictTOML.parse(text) } catch let error as StrictTOML.Error {
            throw DescriptionError.syntax(line: error.line, reason: error.reason)
        }
        self = try DescriptionReader().read(root)
    }

    /// Reads and validates the description file at `path`.
    public init(contentsOfFile path: String) throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw DescriptionError.unreadable(path: path, reason: error.localizedDescription)
        }
        guard let text = String(validating: [UInt8](data), as: UTF8.self) else {
            throw DescriptionError.unreadable(path: path, reason: "the file is not UTF-8 text")
        }
        try self.init(toml: text)
    }

    public func conversation(named name: String) -> Conversation? { conversations.first { $0.name == name } }

    /// Secrets of random bytes that a textbook-RSA value carries as they are (no `carries_as`): the
    /// integer of RFC 8017 §4.2 (OS2IP) drops a leading 0x00, so their makers draw one without.
    public var textbookRawSecrets: Set<String> {
        Set(allValues.compactMap { value in
            guard case let .rsa(_, .textbook, .secret(name, .raw), _) = value.kind, secrets[name]?.derive.isText == false else { return nil }
            return name
        })
    }

    /// A value's length on the wire where the description fixes it (a text, an RSA block of the
    /// key's `bits`, a digest, a fixed-size public key or secret): how a receiver splits a `concat`.
    public func fixedLength(of value: DescribedValue) -> Int? {
        switch value.kind {
        case let .text(text): return text.utf8.count
        case let .rsa(name, padding, _, encoding):
            return padding.isUnpadded ? nil : keys[name].flatMap { encoding.encodedLength($0.bits / 8) }
        case let .digest(encoding): return encoding.encodedLength(32)
        case let .lengthOf(bytes), let .lengthOfNext(bytes): return bytes
        case let .mac(_, algorithm, _, encoding): return encoding.encodedLength(algorithm.bytes)
        case let .publicKey(name, format, encoding):
            return keys[name].flatMap { format.fixedLength(for: $0.type) }.flatMap(encoding.encodedLength)
        case let .secret(name, encoding):
            guard let secret = secrets[name] else { return nil }
            if secret.derive.isPassphrase { return nil }  // a given or received passphrase has any length
            // utf8-zeropad16: `chars` letters and digits, one byte each (in latin1 too), as PythonRef's known_length.
            if secret.derive == .utf8ZeroPad16 { return encoding == .latin1 ? secret.chars : encoding.encodedLength(secret.chars) }
            return encoding.encodedLength(secret.bytes)
        case let .concat(parts):
            var total = 0
            for part in parts {
                guard let length = fixedLength(of: part) else { return nil }
                total += length
            }
            return total
        default: return nil
        }
    }

    init(name: String, summary: String?, source: String?, transport: Transport, keys: [String: Key], secrets: [String: Secret],
         conversations: [Conversation]) {
        self.name = name; self.summary = summary; self.source = source; self.transport = transport
        self.keys = keys; self.secrets = secrets; self.conversations = conversations
    }
}

// MARK: - Reading tables with errors that name the key and line

struct TableReader {
    let table: StrictTOML.Table
    let path: String
    let line: Int

    init(_ table: StrictTOML.Table, path: String) { self.table = table; self.path = path; line = table.line }

    func keyPath(_ key: String) -> String { path.isEmpty ? key : path + "." + key }
    func line(of key: String) -> Int { table[key]?.line ?? line }

    func allow(_ allowed: [String]) throws {
        for key in table.keys where !allowed.contains(key) {
            throw DescriptionError.unknownKey(key: keyPath(key), line: line(of: key), suggestion: suggestion(for: key, among: allowed), allowed: allowed)
        }
    }

    func require(_ key: String, _ meaning: String) throws -> StrictTOML.Value {
        guard let value = table[key] else { throw DescriptionError.missingKey(key: keyPath(key), line: line, meaning: meaning) }
        return value
    }

    func wrongType(_ key: String, _ expected: String) -> DescriptionError {
        DescriptionError.wrongType(key: keyPath(key), line: line(of: key), expected: expected, found: table[key].map(describe) ?? "nothing")
    }

    func string(_ key: String) throws -> String? {
        guard let value = table[key] else { return nil }
        guard case let .string(text) = value.kind else { throw wrongType(key, "a string") }
        return text
    }

    func integer(_ key: String) throws -> Int? {
        guard let value = table[key] else { return nil }
        guard case let .integer(number) = value.kind else { throw wrongType(key, "an integer") }
        return number
    }

    func boolean(_ key: String) throws -> Bool? {
        guard let value = table[key] else { return nil }
        guard case let .boolean(flag) = value.kind else { throw wrongType(key, "true or false") }
        return flag
    }

    func subtable(_ key: String) throws -> StrictTOML.Table? {
        guard let value = table[key] else { return nil }
        guard case let .table(inner) = value.kind else { throw wrongType(key, "a table") }
        return inner
    }

    /// A string that must be one of `allowed`.
    func choice(_ key: String, _ allowed: [String]) throws -> String? {
        guard let text = try string(key) else { return nil }
        guard allowed.contains(text) else {
            throw DescriptionError.notAllowed(key: keyPath(key), line: line(of: key), allowed: allowed.map { "\"\($0)\"" }.joined(separator: ", "),
                                              found: "\"\(text)\"" + (suggestion(for: text, among: allowed).map { " (did you mean \"\($0)\"?)" } ?? ""))
        }
        return text
    }

    /// An integer that must be one of `allowed` or in `range`.
    func number(_ key: String, oneOf allowed: [Int]) throws -> Int? {
        guard let number = try integer(key) else { return nil }
        guard allowed.contains(number) else {
            throw DescriptionError.notAllowed(key: keyPath(key), line: line(of: key), allowed: allowed.map(String.init).joined(separator: ", "), found: "\(number)")
        }
        return number
    }

    func number(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let number = try integer(key) else { return nil }
        guard range.contains(number) else {
            throw DescriptionError.notAllowed(key: keyPath(key), line: line(of: key), allowed: "\(range.lowerBound) … \(range.upperBound)", found: "\(number)")
        }
        return number
    }

    func name(_ key: String, meaning: String) throws -> String {
        _ = try require(key, meaning)
        let text = try string(key)!
        guard !text.isEmpty, text.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }) else {
            throw DescriptionError.notAllowed(key: keyPath(key), line: line(of: key), allowed: "names of a-z, 0-9 and '-'", found: "\"\(text)\"")
        }
        return text
    }
}

func describe(_ value: StrictTOML.Value) -> String {
    switch value.kind {
    case let .string(text): return "the string \"\(text)\""
    case let .integer(number): return "the integer \(number)"
    case let .boolean(flag): return "\(flag)"
    case .array: return "an array"
    case .table: return "a table"
    }
}

/// "did you mean": the closest allowed word within a third of its length (at least 1) of edits.
func suggestion(for typed: String, among candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var row = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...b.count {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = row
        }
        return previous[b.count]
    }
    let scored = candidates.map { ($0, distance(Array(typed.lowercased()), Array($0.lowercased()))) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    return best.1 <= max(1, max(typed.count, best.0.count) / 3) ? best.0 : nil
}

extension ProtocolDescription {
    /// What the description does that the spec calls weak, one line each for reports: 1024-bit keys,
    /// PKCS#1 v1.5 padding, `utf8-zeropad16` secrets, fixed IVs, AES-ECB, a decrypted message answered in the clear.
    public var weaknesses: [String] {
        var found: [String] = []
        for key in keys.values.sorted(by: { $0.name < $1.name }) where key.type == .rsa && key.bits == 1024 {
            found.append("key \(key.name) is 1024 bits (line \(key.line)): below today's 2048")
        }
        for secret in secrets.values.sorted(by: { $0.name < $1.name }) where secret.derive.isText {
            found.append(secret.derive == .utf8ZeroPad16
                ? "secret \(secret.name) is \(secret.chars) letters and digits zero-padded to a key (line \(secret.line)): a password, not a key"
                : "secret \(secret.name) is a passphrase hashed to a key (\(secret.derive.rawValue), line \(secret.line)): no salt, no work factor")
        }
        for value in allValues {
            switch value.kind {
            case let .rsa(name, padding, _, _) where padding == .pkcs1:
                found.append("\(value.keyPath) (line \(value.line)): RSA to key \(name) with PKCS#1 v1.5 padding (Bleichenbacher's attack)")
            case let .rsa(name, padding, carries, _) where padding == .textbook:
                found.append("\(value.keyPath) (line \(value.line)): RSA to key \(name) with no padding (textbook RSA, RFC 8017 §5.1.1): deterministic, and malleable (c·sᵉ decrypts to m·s)")
                if case let .secret(secret, _) = carries, textbookRawSecrets.contains(secret) {
                    found.append("\(value.keyPath) (line \(value.line)): textbook RSA of raw secret \(secret) (RFC 8017 §4.2: one secret in 256 begins with 0x00, which the receiver's integer drops; crosscheck's sender draws another)")
                }
            case .pickle:
                found.append("\(value.keyPath) (line \(value.line)): a Python pickle (a server that reads it with pickle.loads runs whatever code a client sends)")
            case let .rsa(name, padding, _, _) where padding == .perCharacter:
                found.append("\(value.keyPath) (line \(value.line)): RSA to key \(name) per character with a toy key of \(keys[name]?.bits ?? 0) bits (each character encrypted alone: a substitution table, read by factoring n or trying each character)")
            case let .json(fields), let .form(fields):
                // A MAC over the ciphertext's field but not over the field its IV travels in: the IV can be
                // changed under a valid MAC (CBC: the first block's plaintext, and its padding when it is the last).
                let macs = DescribedField.macs(in: fields)
                for (mac, algorithm, covered) in macs {
                    guard case let .sealed(sealed) = covered.value.kind, case let .field(ivField) = sealed.iv,
                          !macs.contains(where: { $0.covered.name == ivField }) else { continue }
                    found.append("\(mac.value.keyPath) (line \(mac.value.line)): the \(algorithm.rawValue) covers field \(covered.name) but not its IV in field \(ivField): a changed IV changes the first plaintext block undetected (for CBC, its padding too when it is the last block: a padding oracle under a valid MAC)")
                }
            case let .sealed(sealed):
                if case .fixed = sealed.iv {
                    let stream = [.aesCTR, .aesGCM, .aesEAX, .chacha20, .chacha20Poly1305, .salsa20].contains(sealed.cipher)
                    let cfb = [.aesCFB, .aesCFB8].contains(sealed.cipher)
                    found.append("\(value.keyPath) (line \(value.line)): a fixed IV, the same for every message"
                                 + (stream ? " — for \(sealed.cipher.rawValue) the same keystream under the key: two ciphertexts XORed give their plaintexts XORed" : "")
                                 + (cfb ? " — for \(sealed.cipher.rawValue) the same first keystream segment under the key: two messages' first segments XORed give their plaintexts' XORed, and equal beginnings show" : ""))
                }
                if case let .secret(name) = sealed.iv {
                    if name == sealed.secret {
                        found.append("\(value.keyPath) (line \(value.line)): the IV is the key (secret \(name)): the same IV for every message under it, and a chosen-ciphertext attacker who sees one decryption recovers the key")
                    } else if secrets[name]?.madeBy == .preshared {
                        found.append("\(value.keyPath) (line \(value.line)): the IV is preshared secret \(name), the same for every message")
                    }
                }
                if sealed.cipher == .aesECB { found.append("\(value.keyPath) (line \(value.line)): AES-ECB shows equal blocks as equal") }
                if let separator = sealed.separator {
                    let said = JSONText.string(String(decoding: separator, as: UTF8.self))
                    found.append("\(value.keyPath) (line \(value.line)): the IV, tag and ciphertext are random bytes joined by \(said): parts that hold it, or end so that they meet it, do not split back, so a sender that does not seal again loses correct messages (with \"::\", about one in 120: a part that ends with \":\"); lengths known in advance cannot fail so")
                }
            default: break
            }
        }
        // Two sealed values under one key with one IV taken from a secret (an answer under the key and
        // nonce the client sent): the same key and IV twice — for a stream cipher or GCM the same keystream.
        for conversation in conversations {
            var first: [String: DescribedValue] = [:]
            for value in conversation.steps.flatMap(\.values) {
                guard case let .sealed(sealed) = value.kind, case let .secret(ivName) = sealed.iv else { continue }
                let pair = sealed.secret + "/" + ivName
                if let earlier = first[pair] {
                    found.append("\(value.keyPath) (line \(value.line)): secret \(sealed.secret) with IV secret \(ivName) again, as at \(earlier.keyPath): the same key and IV twice (SP 800-38A app. C; for a stream cipher or GCM the same keystream, SP 800-38D §8)")
                } else {
                    first[pair] = value
                }
            }
        }
        // A server that answers in the clear the message a client sent it encrypted is a decryption
        // oracle: whoever replays a recorded ciphertext reads its plaintext.
        for conversation in conversations {
            var sentEncrypted = false
            for step in conversation.steps {
                for value in step.values {
                    switch value.kind {
                    case let .rsa(_, _, carries, _) where step.from == .client && [.message, .jsonMessage].contains(carries): sentEncrypted = true
                    case let .sealed(sealed) where step.from == .client && [.message, .jsonMessage].contains(sealed.carries): sentEncrypted = true
                    case .plain where step.from == .server && sentEncrypted:
                        found.append("\(value.keyPath) (line \(value.line)): the server answers in the clear the message the client sent encrypted: a decryption oracle (whoever replays a recorded ciphertext reads its plaintext)")
                    default: break
                    }
                }
            }
        }
        return found
    }
}
