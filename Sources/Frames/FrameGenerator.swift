import Foundation
import Conformance
import WireCrypto
import WireProtocol

/// A frame under construction: the parts a family's mutators edit before the bytes are assembled.
struct FrameDraft {
    var setting: FuzzSetting
    /// Stream families: the messages, framed (or not) by `assemble`; `focus` is the one of interest.
    var messages: [Data] = []
    var focus = 0
    /// When set, the frame's bytes as they are (a mutator wrote them itself).
    var raw: Data?
    var tail: FrameTail?
    /// Envelope, CBC and HTTPS families.
    var plaintext = Data()
    var ciphertext = Data()
    var iv = Data()

    init(setting: FuzzSetting) { self.setting = setting }

    var framed: Bool { setting["framing"] == Framing.framed.rawValue }
}

/// What mutators may use besides the draft: the corpus keys and the run's fixed secrets.
struct MutationContext: Sendable {
    let keys: [FuzzKey]
    let httpsKeys: [KeyDerivationMode: String]

    func key(_ setting: FuzzSetting) -> FuzzKey { keys.first { $0.name == setting["key"] } ?? keys[0] }
    func other(than key: FuzzKey) -> FuzzKey { keys.first { $0.name != key.name } ?? key }
}

/// A structured mutator: a name (reported, and in reproducers) and an edit of a draft.
struct FrameMutator: Sendable {
    let name: String
    /// What the specification requires of the frames it makes, where it decides.
    let spec: FrameSpec?
    let apply: @Sendable (inout FrameDraft, inout SeededGenerator, MutationContext) -> Void
    init(_ name: String, spec: FrameSpec? = nil, _ apply: @escaping @Sendable (inout FrameDraft, inout SeededGenerator, MutationContext) -> Void) {
        self.name = name; self.spec = spec; self.apply = apply
    }
}

/// Makes frame number `index` of a run from the seed alone: the family is `index` modulo the
/// number of families, and everything else comes from a generator seeded by (seed, family,
/// index ÷ families), so any frame can be regenerated without the ones before it.
public struct FrameGenerator: Sendable {
    public let seed: UInt64
    public let families: [FrameFamily]
    let corpus: FuzzCorpus
    let context: MutationContext

    /// Fields every frame's setting gets regardless of what the generator chose (a remote target's
    /// configuration).
    let overrides: [String: String]

    public init(corpus: FuzzCorpus, seed: UInt64, families: [FrameFamily] = FrameFamily.allCases, overrides: [String: String] = [:]) {
        self.corpus = corpus
        self.seed = seed
        self.families = families.isEmpty ? FrameFamily.allCases : families
        self.overrides = overrides
        var https: [KeyDerivationMode: String] = [:]
        var random = SeededGenerator.forCheck("fuzz.https-encryption-key", seed: seed)
        https[.base64Raw] = random.bytes(32).base64EncodedString()
        https[.weakUTF8ZeroPad16] = String(random.bytes(9).base64EncodedString().prefix(12))
        context = MutationContext(keys: corpus.orderedKeys, httpsKeys: https)
    }

    /// Frame `index` of the run (families interleaved).
    public func frame(at index: Int) -> FuzzFrame {
        let family = families[index % families.count]
        return frame(family, ordinal: index / families.count)
    }

    /// The `ordinal`-th frame of `family`, the same whichever families a run selects.
    public func frame(_ family: FrameFamily, ordinal: Int) -> FuzzFrame {
        var random = SeededGenerator.forCheck("fuzz.\(family.rawValue).\(ordinal)", seed: seed)
        return makeFrame(family, &random)
    }

    /// `count` unmutated frames of `family` (for the seed corpus).
    func validFrames(_ family: FrameFamily, count: Int) -> [FuzzFrame] {
        (0..<count).map { index in
            var random = SeededGenerator.forCheck("corpus.\(family.rawValue).\(index)", seed: seed)
            var draft = FrameDraft(setting: chooseSetting(family, &random))
            // Corpus frames are delivered whole, under the default message limit.
            draft.setting["chunk"] = nil
            draft.setting["maxMessage"] = nil
            build(family, &draft, &random)
            return FuzzFrame(family: family, mutator: "valid", bytes: assemble(family, draft), setting: draft.setting, tail: draft.tail)
        }
    }

    /// The names of a family's structured mutators.
    public static func mutatorNames(_ family: FrameFamily) -> [String] { mutators(family).map(\.name) }

    func makeFrame(_ family: FrameFamily, _ random: inout SeededGenerator) -> FuzzFrame {
        var draft = FrameDraft(setting: chooseSetting(family, &random))
        for (name, value) in overrides { draft.setting[name] = value }
        let corpusFrames = corpus.frames[family] ?? []
        // One in five starts from a corpus file (its setting comes with it), the rest from a
        // freshly built valid frame.
        if !corpusFrames.isEmpty, random.chance(20) {
            let pick = random.choose(corpusFrames)
            for (name, value) in pick.entry.setting.fields { draft.setting[name] = value }
            for (name, value) in overrides { draft.setting[name] = value }
            return FuzzFrame(family: family, mutator: "corpus+random-bytes", bytes: havoc(pick.bytes, family, &random), setting: draft.setting)
        }
        build(family, &draft, &random)
        // 6 in 100 stay valid, 78 get one structured mutator, 12 random byte edits, 4 both.
        let roll = random.next() % 100
        var name = "valid"
        var spec = Self.validSpec(family)
        var unchanged: Bool?
        if roll >= 6 && roll < 84 || roll >= 96 {
            let mutator = random.choose(Self.mutators(family))
            let before = (assemble(family, draft), draft.setting, draft.tail)
            mutator.apply(&draft, &random, context)
            name = mutator.name
            spec = mutator.spec
            unchanged = before.0 == assemble(family, draft) && before.1 == draft.setting && before.2 == draft.tail
        }
        var bytes = assemble(family, draft)
        if roll >= 84 {
            bytes = havoc(bytes, family, &random)
            name = name == "valid" ? "random-bytes" : name + "+random-bytes"
            spec = nil  // random edits: the specification's answer is no longer known
        }
        // A message over a lowered limit is refused whatever it holds: the key's validity no longer decides.
        if spec?.answer == .valid, draft.setting["maxMessage"] != nil { spec = nil }
        var frame = FuzzFrame(family: family, mutator: name, bytes: bytes, setting: draft.setting, tail: draft.tail, spec: spec)
        frame.unchanged = unchanged
        return frame
    }

    /// What an unmutated frame of `family` must get, where the specification says: a key file in
    /// a format docs/PROTOCOL.md lists, and a `public_key=` message carrying one, are accepted.
    static func validSpec(_ family: FrameFamily) -> FrameSpec? {
        switch family {
        case .publicKey, .privateKey: return .valid("docs/PROTOCOL.md \"Padding and keys\": a valid RSA key in a listed format")
        case .clientKey, .serverKey: return .valid("docs/PROTOCOL.md: `public_key=` + a valid RSA key's PEM")
        default: return nil
        }
    }

    private func havoc(_ bytes: Data, _ family: FrameFamily, _ random: inout SeededGenerator) -> Data {
        let donors = (corpus.frames[family] ?? []).map(\.bytes)
        return ByteMutator.havoc(bytes, donors: donors, random: &random)
    }

    // MARK: settings

    func chooseSetting(_ family: FrameFamily, _ random: inout SeededGenerator) -> FuzzSetting {
        var setting = FuzzSetting()
        switch family {
        case .conversation, .clientKey, .encrypted, .framed, .serverKey, .ciphertext:
            setting["key"] = random.chance(75) ? FuzzCorpus.keyNames[0] : FuzzCorpus.keyNames[1]
            setting["padding"] = random.choose(["pkcs1", "oaep-sha1", "oaep-sha256"])
            setting["framing"] = family == .framed || random.chance(35) ? Framing.framed.rawValue : Framing.legacy.rawValue
            setting["digest"] = random.chance(50) ? "1" : "0"
            // Split delivery exercises the incremental scanners; most frames arrive whole.
            setting["chunk"] = random.chance(70) ? "0" : String(random.choose([1, 2, 3, 5, 7, 16, 64, 500]))
            if random.chance(10) { setting["maxMessage"] = String(random.choose([1, 64, 300, 1000])) }
            if family == .serverKey {
                setting.setData("plaintext", random.bytes(random.int(in: 0...40)))
            }
        case .publicKey, .privateKey:
            setting["key"] = random.chance(60) ? FuzzCorpus.keyNames[0] : FuzzCorpus.keyNames[1]
        case .envelope, .cbc:
            setting.setData("symKey", random.bytes(random.choose([16, 24, 32])))
        case .kdf:
            setting["mode"] = random.choose(KeyDerivationMode.allCases).rawValue
        case .httpsServer:
            let mode = random.choose(KeyDerivationMode.allCases)
            setting["keyMode"] = mode.rawValue
            setting["encryptionKey"] = context.httpsKeys[mode]
            setting["method"] = "POST"
            setting["path"] = "/secure-data"
            setting["auth"] = "valid"
        case .aesGCM, .chaChaPoly:
            setting["alg"] = family == .aesGCM ? AEADAlgorithm.aesGCM.rawValue : AEADAlgorithm.chaChaPoly.rawValue
            setting.setData("symKey", random.bytes(family == .aesGCM ? random.choose([16, 24, 32]) : 32))
            if random.chance(50) { setting.setData("aad", random.bytes(random.int(in: 0...24))) }
        }
        return setting
    }

    // MARK: base frames

    func build(_ family: FrameFamily, _ draft: inout FrameDraft, _ random: inout SeededGenerator) {
        switch family {
        case .conversation, .clientKey, .encrypted, .framed, .serverKey, .ciphertext:
            StreamFrames.build(family, &draft, &random, context)
        case .publicKey, .privateKey, .envelope, .cbc, .kdf, .aesGCM, .chaChaPoly:
            SymmetricFrames.build(family, &draft, &random, context)
        case .httpsServer:
            HTTPSFrames.build(&draft, &random, context)
        }
    }

    static func mutators(_ family: FrameFamily) -> [FrameMutator] {
        switch family {
        case .conversation, .clientKey, .encrypted, .framed, .serverKey, .ciphertext: return StreamFrames.mutators(family)
        case .publicKey, .privateKey, .envelope, .cbc, .kdf, .aesGCM, .chaChaPoly: return SymmetricFrames.mutators(family)
        case .httpsServer: return HTTPSFrames.mutators
        }
    }

    func assemble(_ family: FrameFamily, _ draft: FrameDraft) -> Data {
        if let raw = draft.raw { return raw }
        switch family {
        case .conversation, .clientKey, .encrypted, .framed, .serverKey, .ciphertext:
            return StreamFrames.assemble(draft.messages, framed: draft.framed)
        case .envelope, .httpsServer:
            return CBCEnvelope(ciphertext: draft.ciphertext, iv: draft.iv).jsonData
        case .cbc, .aesGCM, .chaChaPoly:
            return draft.ciphertext
        case .publicKey, .privateKey, .kdf:
            return draft.plaintext
        }
    }
}

/// rsa-socket streams: what a client sends a server (conversation, client-key, encrypted,
/// framed) and what a server sends a client (server-key, ciphertext), as message lists.
public enum StreamFrames {
    static let hello = Data(RSASocket.hello.utf8)
    static let quit = Data(RSASocket.quit.utf8)
    static let stopped = Data((RSASocket.stopped + "\n").utf8)
    static let error = Data(RSASocket.error.utf8)
    static let keyPrefix = Data(RSASocket.keyPrefix.utf8)
    static let encryptedPrefix = Data(RSASocket.encryptedPrefix.utf8)

    static func assemble(_ messages: [Data], framed: Bool) -> Data {
        messages.reduce(Data()) { $0 + (framed ? Framing.framed.encode($1) : $1) }
    }

    public static func padding(_ setting: FuzzSetting) -> RSAEncryptionPadding {
        (try? RSAEncryptionPadding(name: setting["padding"] ?? "")) ?? .oaepSHA256
    }

    /// A ciphertext for `key` whose decryption has exactly the encoding `probe` makes.
    static func probeCiphertext(_ probe: RSAPaddingProbe, key: FuzzKey, padding: RSAEncryptionPadding, _ random: inout SeededGenerator) -> Data {
        let message = random.bytes(random.int(in: 1...32))
        return key.textbookEncrypt(probe.encode(message, k: key.byteCount, padding: padding, random: &random))
    }

    static func build(_ family: FrameFamily, _ draft: inout FrameDraft, _ random: inout SeededGenerator, _ context: MutationContext) {
        let key = context.key(draft.setting)
        let padding = padding(draft.setting)
        let validCiphertext = probeCiphertext(.valid, key: key, padding: padding, &random)
        switch family {
        case .encrypted, .framed:
            draft.messages = [hello, encryptedPrefix + validCiphertext]
            if random.chance(60) { draft.messages.append(quit) }
            draft.focus = 1
        case .conversation:
            if random.chance(50) {
                draft.messages = [hello, encryptedPrefix + validCiphertext, quit]
            } else {
                draft.messages = [keyPrefix + PEM.iOSStyle(label: "PUBLIC KEY", der: random.choose(context.keys).spkiDER), quit]
            }
            draft.focus = random.int(in: 0...(draft.messages.count - 1))
        case .clientKey:
            draft.messages = [keyPrefix + PEM.iOSStyle(label: "PUBLIC KEY", der: random.choose(context.keys).spkiDER)]
            if random.chance(50) { draft.messages.append(quit) }
        case .serverKey:
            draft.messages = [key.serverKeyMessage, reply(draft.setting), stopped]
        case .ciphertext:
            draft.messages = [validCiphertext, stopped]
        default:
            break
        }
    }

    static func reply(_ setting: FuzzSetting) -> Data {
        guard setting.flag("digest") else { return Data(RSASocket.ok.utf8) }
        return Data((RSASocket.ok + " sha256=" + Digest.sha256.hash(setting.data("plaintext") ?? Data()).hexString).utf8)
    }

    // MARK: mutators

    static func mutators(_ family: FrameFamily) -> [FrameMutator] {
        switch family {
        case .encrypted: return payloadMutators(prefixed: true) + sequenceMutators
        case .conversation: return sequenceMutators + conversationMutators
        case .clientKey: return keyMessageMutators(server: false)
        case .framed: return framingMutators
        case .serverKey: return keyMessageMutators(server: true) + replyMutators
        case .ciphertext: return payloadMutators(prefixed: false) + ciphertextReplyMutators
        default: return []
        }
    }

    /// Replaces the focus message's ciphertext (after `encrypted_message=` when `prefixed`).
    static func payloadMutators(prefixed: Bool) -> [FrameMutator] {
        func replacing(_ name: String, _ make: @escaping @Sendable (Data, FuzzKey, inout SeededGenerator, FrameDraft, MutationContext) -> Data) -> FrameMutator {
            FrameMutator(name) { draft, random, context in
                let key = context.key(draft.setting)
                let prefix = prefixed ? encryptedPrefix : Data()
                let current = Data(draft.messages[draft.focus].dropFirst(prefix.count))
                draft.messages[draft.focus] = prefix + make(current, key, &random, draft, context)
            }
        }
        var list: [FrameMutator] = RSAPaddingProbe.allCases.map { probe in
            replacing("probe-\(probe.rawValue)") { current, key, random, draft, _ in
                let padding = padding(draft.setting)
                guard RSAPaddingProbe.applicable(to: padding).contains(probe) else { return current }
                return probeCiphertext(probe, key: key, padding: padding, &random)
            }
        }
        list += [
            replacing("ciphertext-k-minus-1") { current, _, random, _, _ in random.chance(50) ? Data(current.dropLast()) : Data(current.dropFirst()) },
            replacing("ciphertext-k-plus-1") { current, _, random, _, _ in random.chance(50) ? current + Data([UInt8(truncatingIfNeeded: random.next())]) : Data([0]) + current },
            replacing("ciphertext-empty") { _, _, _, _, _ in Data() },
            replacing("ciphertext-one-byte") { _, _, random, _, _ in random.bytes(1) },
            replacing("ciphertext-2k") { current, _, _, _, _ in current + current },
            replacing("value-equals-modulus") { _, key, _, _, _ in key.publicKey.modulus },
            replacing("value-modulus-plus-1") { _, key, _, _, _ in increment(key.publicKey.modulus) },
            replacing("value-modulus-minus-1") { _, key, _, _, _ in decrement(key.publicKey.modulus) },
            replacing("value-all-ff") { _, key, _, _, _ in Data(repeating: 0xff, count: key.byteCount) },
            replacing("value-zero") { _, key, _, _, _ in Data(count: key.byteCount) },
            replacing("value-one") { _, key, _, _, _ in Data(count: key.byteCount - 1) + Data([1]) },
            replacing("ciphertext-of-other-key") { _, key, random, draft, context in
                probeCiphertext(.valid, key: context.other(than: key), padding: padding(draft.setting), &random)
            },
            replacing("ciphertext-random") { _, key, random, _, _ in random.bytes(key.byteCount) },
            replacing("ciphertext-with-crlf") { current, _, random, _, _ in
                var bytes = current
                guard bytes.count > 4 else { return bytes }
                let index = random.int(in: 0...(bytes.count - 2))
                bytes[bytes.startIndex + index] = 0x0d
                bytes[bytes.startIndex + index + 1] = 0x0a
                return bytes
            },
            FrameMutator("huge-tail") { draft, random, _ in
                draft.messages = Array(draft.messages.prefix(draft.focus)) + [prefixed ? encryptedPrefix : Data()]
                draft.tail = FrameTail(byte: random.choose([0x00, 0x41, 0x0a, 0xff]), count: random.choose([70_000, 1_000_000, 10_000_000]))
            },
        ]
        if prefixed {
            list += [
                FrameMutator("prefix-without-equals") { draft, _, _ in draft.messages[draft.focus] = Data(draft.messages[draft.focus].enumerated().filter { $0.offset != encryptedPrefix.count - 1 }.map(\.element)) },
                FrameMutator("prefix-uppercase") { draft, _, _ in draft.messages[draft.focus] = Data("ENCRYPTED_MESSAGE=".utf8) + draft.messages[draft.focus].dropFirst(encryptedPrefix.count) },
                FrameMutator("prefix-typo") { draft, _, _ in draft.messages[draft.focus] = Data("encrypted_mesage=".utf8) + draft.messages[draft.focus].dropFirst(encryptedPrefix.count) },
                FrameMutator("prefix-leading-space") { draft, _, _ in draft.messages[draft.focus] = Data(" ".utf8) + draft.messages[draft.focus] },
                FrameMutator("line-ends-before-prefix") { draft, random, _ in draft.messages[draft.focus] = Data(random.choose(["\r\n", "\n", "\r", "\n\n\r\n"]).utf8) + draft.messages[draft.focus] },
            ]
        }
        return list
    }

    /// Reorders, drops, duplicates and pads the messages of a stream.
    static let sequenceMutators: [FrameMutator] = [
        FrameMutator("drop-message") { draft, random, _ in
            guard !draft.messages.isEmpty else { return }
            draft.messages.remove(at: random.int(in: 0...(draft.messages.count - 1)))
        },
        FrameMutator("duplicate-message") { draft, random, _ in
            guard !draft.messages.isEmpty else { return }
            let index = random.int(in: 0...(draft.messages.count - 1))
            draft.messages.insert(draft.messages[index], at: index)
        },
        FrameMutator("swap-messages") { draft, random, _ in
            guard draft.messages.count >= 2 else { return }
            let index = random.int(in: 0...(draft.messages.count - 2))
            draft.messages.swapAt(index, index + 1)
        },
        FrameMutator("junk-message") { draft, random, _ in
            let junk = random.chance(50) ? Data(random.choose(["hello", "GET / HTTP/1.1\r\nHost: pi\r\n\r\n", "\u{0}", "Client: OK?", "QUIT", "quit"]).utf8)
                                         : random.bytes(random.int(in: 1...40))
            draft.messages.insert(junk, at: random.int(in: 0...draft.messages.count))
        },
        FrameMutator("line-ends-between-messages") { draft, random, _ in
            guard !draft.messages.isEmpty else { return }
            let index = random.int(in: 0...(draft.messages.count - 1))
            draft.messages[index] += Data(random.choose(["\r\n", "\n", "\r", "\r\n\r\n"]).utf8)
        },
        FrameMutator("trailing-junk") { draft, random, _ in
            guard !draft.messages.isEmpty else { return }
            draft.messages[draft.messages.count - 1] += random.chance(50) ? Data(random.choose(["x", " ", "\0", "Quit", "Client: OK"]).utf8) : random.bytes(random.int(in: 1...8))
        },
    ]

    static let conversationMutators: [FrameMutator] = [
        FrameMutator("empty-stream") { draft, _, _ in draft.messages = [] },
        FrameMutator("line-ends-only") { draft, random, _ in draft.messages = [Data(random.choose(["\n", "\r\n", "\r", "\n\n\n", "\r\n\r\n"]).utf8)] },
        FrameMutator("http-request") { draft, _, _ in draft.messages = [Data("POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}".utf8)] },
        FrameMutator("binary-garbage") { draft, random, _ in draft.messages = [random.bytes(random.int(in: 1...300))] },
        FrameMutator("hello-variant") { draft, random, _ in
            let variant = random.choose(["Client: O", "client: ok", "Client:OK", "Client: OK\n", "Client: OK\r\n", "Client: OK\0", "Client: OKK",
                                         "\nClient: OK", " Client: OK", "Client: OK Client: OK", "Client: OK\u{00e9}"])
            draft.messages = [Data(variant.utf8)] + draft.messages.dropFirst()
        },
        FrameMutator("quit-variant") { draft, random, _ in
            guard !draft.messages.isEmpty else { return }
            draft.messages[draft.messages.count - 1] = Data(random.choose(["quit", "Quit\n", "Qui", "Quit\r\n", "QuitQuit", "Quit\0", "exit"]).utf8)
        },
        FrameMutator("quit-first") { draft, _, _ in draft.messages.insert(quit, at: 0) },
        FrameMutator("messages-joined") { draft, random, _ in
            guard draft.messages.count >= 2 else { return }
            let index = random.int(in: 0...(draft.messages.count - 2))
            draft.messages[index] += draft.messages.remove(at: index + 1)
        },
        FrameMutator("message-split") { draft, random, _ in
            guard let index = draft.messages.indices.filter({ draft.messages[$0].count >= 2 }).first else { return }
            let message = draft.messages[index]
            let cut = random.int(in: 1...(message.count - 1))
            draft.messages.replaceSubrange(index...index, with: [Data(message.prefix(cut)), Data(message.dropFirst(cut))])
        },
        FrameMutator("hello-then-client-key") { draft, random, context in
            draft.messages = [hello, keyPrefix + PEM.iOSStyle(label: "PUBLIC KEY", der: random.choose(context.keys).spkiDER), quit]
        },
    ]

    /// The key variants a `public_key=` message carries in the protocol's own form (iOS PEM layout).
    static let messageForms: Set<String> = ["spki-pem", "pkcs1-pem", "exponent-3"]

    /// `public_key=` + a mutated key: into a server (client key), or as the server's key into a client.
    static func keyMessageMutators(server: Bool) -> [FrameMutator] {
        let index = 0
        var list = KeyMutations.publicVariants.map { variant in
            // In a `public_key=` message the valid form is the iOS PEM layout (docs/PROTOCOL.md; other
            // line ends and final newlines are one side's rule, not both sides'); a key that is no RSA
            // key is invalid in any wrapping.
            FrameMutator("key-\(variant.name)", spec: variant.spec?.answer == .invalid || Self.messageForms.contains(variant.name) ? variant.spec : nil) { draft, random, context in
                let key = server ? context.key(draft.setting) : random.choose(context.keys)
                let body = variant.make(key, context.other(than: key), &random)
                draft.messages[index] = keyPrefix + body + (server ? Data("\n".utf8) : Data())
            }
        }
        list += [
            FrameMutator("prefix-without-equals") { draft, _, _ in draft.messages[index] = Data("public_key".utf8) + draft.messages[index].dropFirst(keyPrefix.count) },
            FrameMutator("prefix-uppercase") { draft, _, _ in draft.messages[index] = Data("PUBLIC_KEY=".utf8) + draft.messages[index].dropFirst(keyPrefix.count) },
            FrameMutator("prefix-space-after") { draft, _, _ in draft.messages[index] = keyPrefix + Data(" ".utf8) + draft.messages[index].dropFirst(keyPrefix.count) },
            FrameMutator("prefix-doubled") { draft, _, _ in draft.messages[index] = keyPrefix + draft.messages[index] },
            FrameMutator("prefix-missing") { draft, _, _ in draft.messages[index] = Data(draft.messages[index].dropFirst(keyPrefix.count)) },
            FrameMutator("line-ends-before-message") { draft, random, _ in draft.messages[index] = Data(random.choose(["\r\n", "\n", "\n\n"]).utf8) + draft.messages[index] },
            FrameMutator("junk-after-key") { draft, random, _ in draft.messages[index] += Data(random.choose(["x", "\r\n\r\n", "Quit", "-----", "\0"]).utf8) },
        ] + sequenceMutators
        return list
    }

    static let replyMutators: [FrameMutator] = [
        FrameMutator("reply-error") { draft, _, _ in draft.messages[1] = error },
        FrameMutator("reply-error-with-junk") { draft, random, _ in draft.messages[1] = error + Data(random.choose(["x", "\n", " sha256=00", "Server: OK"]).utf8) },
        FrameMutator("reply-digest-wrong") { draft, random, _ in
            draft.messages[1] = Data((RSASocket.ok + " sha256=" + random.bytes(32).hexString).utf8)
        },
        FrameMutator("reply-digest-uppercase") { draft, _, _ in draft.messages[1] = Data(String(decoding: StreamFrames.reply(draft.setting), as: UTF8.self).uppercased().utf8) },
        FrameMutator("reply-digest-short") { draft, random, _ in
            let full = String(decoding: StreamFrames.reply(draft.setting), as: UTF8.self) + " sha256=" + random.bytes(32).hexString
            draft.messages[1] = Data(full.prefix(random.int(in: 11...(full.count - 1))).utf8)
        },
        FrameMutator("reply-digest-long") { draft, _, _ in draft.messages[1] = Data((RSASocket.ok + " sha256=" + Data(count: 33).hexString).utf8) },
        FrameMutator("reply-digest-not-hex") { draft, _, _ in draft.messages[1] = Data((RSASocket.ok + " sha256=" + String(repeating: "g", count: 64)).utf8) },
        FrameMutator("reply-without-digest") { draft, _, _ in draft.messages[1] = Data(RSASocket.ok.utf8) },
        FrameMutator("reply-with-digest") { draft, _, _ in
            draft.messages[1] = Data((RSASocket.ok + " sha256=" + Digest.sha256.hash(draft.setting.data("plaintext") ?? Data()).hexString).utf8)
        },
        FrameMutator("reply-variant") { draft, random, _ in
            draft.messages[1] = Data(random.choose(["Server: ok", "Server: OK\n", "Server:OK", "Server: OKAY", "Server: ", "OK", "Server: ERR"]).utf8)
        },
        FrameMutator("stopped-variant") { draft, random, _ in
            draft.messages[2] = Data(random.choose(["Server stopped", "Server stopped\r\n", "server stopped\n", "Server stop", "Server stopped\n\n", ""]).utf8)
        },
        FrameMutator("error-instead-of-key") { draft, _, _ in draft.messages = [error] },
    ]

    static let ciphertextReplyMutators: [FrameMutator] = [
        FrameMutator("error-instead-of-ciphertext") { draft, _, _ in draft.messages = [error] },
        FrameMutator("error-with-junk-instead-of-ciphertext") { draft, random, _ in draft.messages = [error + Data(random.choose(["x", "\n", "\r\n", "Server stopped\n"]).utf8)] },
        FrameMutator("error-then-stopped") { draft, _, _ in draft.messages = [error, stopped] },
        FrameMutator("stopped-variant") { draft, random, _ in
            draft.messages[1] = Data(random.choose(["Server stopped", "Server stopped\r\n", "server stopped\n", "Server stop", "Server stopped\n\n", "Server: ERROR"]).utf8)
        },
        FrameMutator("stopped-missing") { draft, _, _ in draft.messages.removeLast() },
        FrameMutator("trailing-junk") { draft, random, _ in draft.messages.append(random.bytes(random.int(in: 1...20))) },
    ]

    /// Broken 4-byte length prefixes: the whole stream is written here, header by header.
    static let framingMutators: [FrameMutator] = {
        func headers(_ name: String, _ header: @escaping @Sendable (Int, Int, Int, inout SeededGenerator) -> UInt32?) -> FrameMutator {
            FrameMutator(name) { draft, random, _ in
                let target = random.int(in: 0...(draft.messages.count - 1))
                let limit = draft.setting.int("maxMessage", default: Framing.defaultMaxMessage)
                var bytes = Data()
                for (index, message) in draft.messages.enumerated() {
                    var length = UInt32(message.count)
                    if index == target, let changed = header(message.count, limit, index, &random) { length = changed }
                    var bigEndian = length.bigEndian
                    bytes += Data(bytes: &bigEndian, count: 4) + message
                }
                draft.raw = bytes
            }
        }
        return [
            headers("length-zero") { _, _, _, _ in 0 },
            headers("length-over-limit") { _, limit, _, _ in UInt32(limit + 1) },
            headers("length-max-u32") { _, _, _, _ in UInt32.max },
            headers("length-high-bit") { count, _, _, _ in 0x8000_0000 | UInt32(count) },
            headers("length-longer-than-payload") { count, _, _, random in UInt32(count + random.int(in: 1...6)) },
            headers("length-shorter-than-payload") { count, _, _, random in UInt32(max(0, count - random.int(in: 1...6))) },
            headers("length-little-endian") { count, _, _, _ in UInt32(count).byteSwapped },
            FrameMutator("header-truncated") { draft, random, _ in
                let whole = assemble(draft.messages, framed: true)
                var cuts: [Int] = []
                var offset = 0
                for message in draft.messages { cuts.append(offset + random.int(in: 1...3)); offset += 4 + message.count }
                draft.raw = Data(whole.prefix(random.choose(cuts)))
            },
            FrameMutator("header-of-line-ends") { draft, random, _ in draft.raw = Data(random.choose(["\n", "\r\n", "\r\n\n", "\n\n\n"]).utf8) },
            FrameMutator("unframed-message") { draft, random, _ in
                let index = random.int(in: 0...(draft.messages.count - 1))
                draft.raw = draft.messages.enumerated().reduce(Data()) { $0 + ($1.offset == index ? $1.element : Framing.framed.encode($1.element)) }
            },
            FrameMutator("double-header") { draft, random, _ in
                let index = random.int(in: 0...(draft.messages.count - 1))
                draft.messages[index] = Framing.framed.encode(draft.messages[index])
            },
            FrameMutator("frame-at-limit-of-junk") { draft, random, _ in
                let limit = draft.setting.int("maxMessage", default: Framing.defaultMaxMessage)
                var bigEndian = UInt32(limit).bigEndian
                draft.raw = Framing.framed.encode(hello) + Data(bytes: &bigEndian, count: 4)
                draft.tail = FrameTail(byte: random.choose([0x41, 0x00]), count: limit)
            },
            FrameMutator("length-10mb-with-tail") { draft, _, _ in
                var bigEndian = UInt32(10_000_000).bigEndian
                draft.raw = Data(bytes: &bigEndian, count: 4)
                draft.tail = FrameTail(byte: 0x41, count: 10_000_000)
            },
            FrameMutator("two-messages-in-one-frame") { draft, random, _ in
                guard draft.messages.count >= 2 else { return }
                let index = random.int(in: 0...(draft.messages.count - 2))
                draft.messages[index] += draft.messages.remove(at: index + 1)
            },
        ] + sequenceMutators
    }()

    /// n + 1 as k big-endian bytes (all FF bytes when it overflows).
    static func increment(_ value: Data) -> Data {
        var bytes = [UInt8](value)
        for index in bytes.indices.reversed() {
            bytes[index] = bytes[index] &+ 1
            if bytes[index] != 0 { return Data(bytes) }
        }
        return Data(repeating: 0xff, count: value.count)
    }

    static func decrement(_ value: Data) -> Data {
        var bytes = [UInt8](value)
        for index in bytes.indices.reversed() {
            bytes[index] = bytes[index] &- 1
            if bytes[index] != 0xff { return Data(bytes) }
        }
        return Data(count: value.count)
    }
}
