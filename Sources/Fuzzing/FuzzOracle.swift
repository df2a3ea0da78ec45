import Foundation
import Conformance
import Frames
import PythonBridge
import WireCrypto
import WireProtocol
import StrictFormats

/// The differential oracle: one frame to the Swift side and to PythonRef, in-process, and a
/// verdict for each. Per family:
/// - rsa-socket: the same protocol machine role of each implementation (same key PEM, padding,
///   framing, digest, limit) is fed the frame (whole or in chunks, a tail 64 KiB at a time while it
///   still reads), then told the line went quiet. Compared: every message it sent (ciphertexts by
///   class: length, and the plaintext when a corpus key decrypts them), whether it closed, and its
///   event kinds with their plaintexts/digests. Reasons are free text and never compared.
/// - keys, envelopes, CBC, key derivation, sealed boxes: the `CryptoPeer` calls, whose failures
///   are already shared `FailureKind`s; results compared exactly (key info, plaintext bytes).
/// - aes-https server: the server logic of each (same users and `encryptionKey`), one request;
///   compared: status, content type, and the body (an encrypted echo by its decrypted JSON value,
///   a login answer by its fields; everything else byte for byte).
public final class FuzzOracle: @unchecked Sendable {
    public let swift: CryptoPeer
    public let python: PythonPeer
    let corpus: FuzzCorpus
    private let keys: [FuzzKey]
    private var httpsServers: [String: HTTPSPair] = [:]
    private var httpsUses = 0

    /// The Python side of the crypto-call families: `python` itself, or it with a planted flaw
    /// (`PlantedFlaw.onBothSides`).
    let pythonCalls: CryptoPeer

    public init(swift: CryptoPeer, python: PythonPeer, corpus: FuzzCorpus) {
        self.swift = swift
        self.python = python
        self.corpus = corpus
        self.keys = corpus.orderedKeys
        let plant = PlantedFlaw.planted(in: swift)
        self.pythonCalls = plant?.onBothSides == true ? plant!.peer(wrapping: python) : python
    }

    /// Both verdicts for `frame`.
    public func run(_ frame: FuzzFrame) -> (swift: FuzzVerdict, python: FuzzVerdict) {
        switch frame.family {
        case .conversation, .clientKey, .encrypted, .framed, .serverKey, .ciphertext:
            let swiftVerdict = splitInvariant(frame, machineVerdict(frame, python: false), python: false)
            let pythonVerdict = splitInvariant(frame, machineVerdict(frame, python: true), python: true)
            return (swiftVerdict, implicitRejectionExplained(frame, swift: swiftVerdict, python: pythonVerdict) ?? pythonVerdict)
        case .httpsServer:
            return httpsVerdicts(frame)
        default:
            return (cryptoVerdict(frame, peer: swift), cryptoVerdict(frame, peer: pythonCalls))
        }
    }

    /// Which generation of pyca/cryptography the Python side runs, from its version: 38–41 read keys
    /// with OpenSSL's decoders (which take some BER), 42 and later with pyca's own ASN.1 parser
    /// (which refuses BER and some invalid numbers itself, in its own words). Recorded in every fuzz
    /// report. The oracle needs no allowance for it: both sides name a key's DER and number
    /// defects before their library reads the key (WireCrypto's `requireDER`/`requireValidRSANumbers`,
    /// PythonRef's `_require_no_der_defect`/`_require_valid_public_numbers_in`), so every
    /// generation answers each key frame the same; a difference is a finding, never excused.
    public static func pycaGeneration(_ version: String) -> String {
        guard let major = Int(version.prefix { $0.isNumber }) else { return "unknown (cryptography \(version))" }
        return major >= 42 ? "pyca >= 42 (its own ASN.1 key parser)" : "pyca \(major) (OpenSSL's key decoders)"
    }

    /// What the two verdicts amount to for `frame`: as `judge(swift:python:)`, and beside agreement
    /// the specification's answer (`frame.spec`): a side that accepts an invalid frame or refuses a
    /// valid one violates it even when the other side does the same; a message sent in the clear
    /// (an "encryption" that is the padded message itself) is a violation whatever the frame.
    public static func judge(_ frame: FuzzFrame, swift: FuzzVerdict, python: FuzzVerdict) -> FrameFinding {
        let pair = judge(swift: swift, python: python)
        if pair == .crash { return .crash }
        if let spec = frame.spec, violates(spec, swift) || violates(spec, python) { return .specViolation }
        if [swift, python].contains(where: { $0.detail.contains(Self.inTheClear) || $0.detail.contains(Self.roundTripBroken) || $0.detail.contains(Self.splitChanges) }) {
            return .specViolation
        }
        return pair
    }

    /// Whether `verdict` answers against `spec`.
    public static func violates(_ spec: FrameSpec, _ verdict: FuzzVerdict) -> Bool {
        switch spec.answer {
        case .valid: return verdict.outcome == .rejected
        case .invalid: return verdict.outcome == .accepted
        }
    }

    /// The words a ciphertext class carries when the "ciphertext" is the message itself.
    static let inTheClear = "THE MESSAGE IN THE CLEAR"

    /// What the two verdicts amount to. Both sides already speak the shared `FailureKind`s (the
    /// error-equivalence map, `ErrorEquivalence`), so refusing "the same way" means the same kind.
    public static func judge(swift: FuzzVerdict, python: FuzzVerdict) -> FrameFinding {
        if swift.outcome == .crashed || python.outcome == .crashed { return .crash }
        // An `Internal` refusal is an implementation bug, never an answer (docs/PROTOCOL.md).
        if [swift, python].contains(where: { $0.outcome == .rejected && $0.summary == FailureKind.internal.rawValue }) { return .crash }
        return swift.outcome == python.outcome && swift.detail == python.detail ? .agreed : .disagreement
    }

    // MARK: crypto calls

    func cryptoVerdict(_ frame: FuzzFrame, peer: CryptoPeer) -> FuzzVerdict {
        let setting = frame.setting
        do {
            // Beside agreement, round trips (issue 37): what a side accepted must come back to the
            // same bytes through the same side — a key re-exported, a plaintext re-encrypted under
            // the same key and IV or nonce. A side whose check is lenient (a non-canonical padding, a
            // key it rewrote) fails this even when the other side is just as lenient.
            switch frame.family {
            case .publicKey:
                let info = try peer.publicKeyInfo(frame.bytes)
                return keyInfoVerdict(info, export: roundTrip { try peer.exportPublicKey(frame.bytes, format: .spkiDER) })
            case .privateKey:
                let passphrase = setting.data("passphrase")
                let info = try peer.privateKeyInfo(frame.bytes, passphrase: passphrase)
                // An encrypted key is exported only with its passphrase, which the export call does not take.
                let encrypted = passphrase?.isEmpty == false || RSAPrivateKey.isEncrypted(frame.bytes)
                let export = encrypted ? nil : roundTrip { try peer.exportPrivateKey(frame.bytes, format: .pkcs8DER, exportPassphrase: nil) }
                return keyInfoVerdict(info, export: encrypted ? .none : .some(export))
            case .envelope:
                return plaintextVerdict(try peer.openEnvelope(key: setting.data("symKey") ?? Data(), envelope: frame.bytes))
            case .cbc:
                let key = setting.data("symKey") ?? Data(), iv = setting.data("iv") ?? Data()
                let plaintext = try peer.cbcDecrypt(key: key, iv: iv, ciphertext: frame.bytes)
                let again = roundTrip { try peer.cbcEncrypt(key: key, iv: iv, plaintext: plaintext) }
                return plaintextVerdict(plaintext, roundTripBroken: again.map { $0 != frame.bytes } ?? true ? "re-encrypting the plaintext under the same key and IV does not give the ciphertext back (a padding the decrypter should have refused)" : nil)
            case .kdf:
                let mode = KeyDerivationMode(rawValue: setting["mode"] ?? "") ?? .base64Raw
                return plaintextVerdict(try peer.deriveKey(mode: mode, encryptionKey: String(decoding: frame.bytes, as: UTF8.self)))
            case .aesGCM, .chaChaPoly:
                if setting.flag("parts") { return plaintextVerdict(try openParts(frame, peer: peer)) }
                let algorithm = AEADAlgorithm(rawValue: setting["alg"] ?? "") ?? .aesGCM
                let key = setting.data("symKey") ?? Data()
                let plaintext = try peer.aeadOpen(algorithm, key: key, combined: frame.bytes, aad: setting.data("aad"))
                let again = roundTrip { try peer.aeadSeal(algorithm, key: key, plaintext: plaintext, nonce: Data(frame.bytes.prefix(12)), aad: setting.data("aad")) }
                return plaintextVerdict(plaintext, roundTripBroken: again.map { $0 != frame.bytes } ?? true ? "sealing the plaintext again with the box's nonce does not give the box back" : nil)
            default:
                return .crashed("harness", note: "no crypto oracle for \(frame.family.rawValue)")
            }
        } catch let failure as PeerFailure {
            if failure.kind == .internal { return .crashed("Internal", note: failure.detail) }
            return .rejected(failure.kind, note: failure.detail)
        } catch {
            return .crashed("Internal", note: "\(error)")
        }
    }

    /// A sealed-box frame opened through the separate parts: the box's 12-byte nonce cut or padded
    /// to `nonceLength` (zero bytes added: a different nonce, so a longer one must fail
    /// authentication, never be refused as a length it may take), its tag to `tagLength`.
    func openParts(_ frame: FuzzFrame, peer: CryptoPeer) throws -> Data {
        let setting = frame.setting
        let algorithm = AEADAlgorithm(rawValue: setting["alg"] ?? "") ?? .aesGCM
        let box = [UInt8](frame.bytes)
        guard box.count >= 28 else { throw PeerFailure(.badLength, "a sealed box under 28 bytes has no parts") }
        func resized(_ bytes: ArraySlice<UInt8>, _ length: Int) -> Data {
            length <= bytes.count ? Data(bytes.prefix(length)) : Data(bytes) + Data(count: length - bytes.count)
        }
        let nonce = resized(box[0..<12], setting.int("nonceLength", default: 12))
        let tag = resized(box[(box.count - 16)...], setting.int("tagLength", default: 16))
        let parts = AEADParts(ciphertext: Data(box[12..<(box.count - 16)]), tag: tag)
        return try peer.aeadOpenParts(algorithm, key: setting.data("symKey") ?? Data(), nonce: nonce, parts: parts, aad: setting.data("aad"))
    }

    /// The value `make` gives, or nil when it throws (a round trip that cannot be made).
    private func roundTrip(_ make: () throws -> Data) -> Data? { try? make() }

    /// An accepted key: its numbers and, compared between the sides, the digest of its canonical
    /// export (a side that accepted a key must export it; both must export the same bytes).
    private func keyInfoVerdict(_ info: RSAKeyInfo, export: Data?? = .none) -> FuzzVerdict {
        var detail = "RSA-\(info.bits) e=0x\(info.publicExponentHex) n=\(info.modulusHex)"
        switch export {
        case .none: break
        case .some(.none): detail += " export \(Self.roundTripBroken): the key it accepted does not export"
        case .some(.some(let der)): detail += " export sha256 \(Digest.sha256.hash(der).hexString.prefix(16))"
        }
        return .accepted("key", detail: detail)
    }

    private func plaintextVerdict(_ plaintext: Data, roundTripBroken: String? = nil) -> FuzzVerdict {
        .accepted("plaintext", detail: "\(plaintext.count) bytes \(plaintext.prefix(24).hexString)\(plaintext.count > 24 ? "… sha256 " + Digest.sha256.hash(plaintext).hexString.prefix(16) : "")"
                  + (roundTripBroken.map { " \(Self.roundTripBroken): \($0)" } ?? ""))
    }

    /// The words a verdict carries when a round trip through the same side does not come back.
    static let roundTripBroken = "ROUND TRIP BROKEN"

    // MARK: rsa-socket machines

    /// docs/PROTOCOL.md "Framing": TCP may split a stream anywhere, so a side must answer a frame
    /// delivered in pieces as it answers it whole. For a frame the campaign delivers split
    /// (`chunk` > 0), the same side is also given it whole; a different answer is a specification
    /// failure of that side (`splitChanges`), whatever the other side does.
    ///
    /// Not under a lowered message limit (`maxMessage`): both sides apply the limit to what they
    /// hold buffered, so a message over it is refused when it arrives in pieces and taken when it
    /// arrives whole — a split-dependence both implementations share, left for the limit's own rule.
    func splitInvariant(_ frame: FuzzFrame, _ verdict: FuzzVerdict, python usePython: Bool) -> FuzzVerdict {
        guard frame.setting.int("chunk", default: 0) > 0, frame.setting["maxMessage"] == nil, verdict.outcome != .crashed else { return verdict }
        var whole = frame
        whole.setting["chunk"] = "0"
        let wholeVerdict = machineVerdict(whole, python: usePython)
        guard wholeVerdict.outcome != verdict.outcome || wholeVerdict.detail != verdict.detail else { return verdict }
        var marked = verdict
        marked.detail += " \(Self.splitChanges): delivered whole it answers \(wholeVerdict.line.prefix(200))"
        return marked
    }

    /// The words a verdict carries when splitting the frame changed a side's answer.
    static let splitChanges = "SPLIT CHANGES THE ANSWER"

    /// A frame whose setting has `rejection=implicit` (`crosscheck fuzz --rsa-rejection implicit`)
    /// runs PythonRef's server as a Pi on OpenSSL ≥ 3.2 does, against the Swift side's explicit
    /// rejection (iOS's). Where they differ, the difference must be that one alone: the same frame
    /// to PythonRef with explicit rejection (nothing else changed) answers as the Swift side does —
    /// then PythonRef's explicit verdict stands for it, noted. The acknowledgement may be followed by
    /// more of the frame (a conversation reads on), so the implicit run only has to end without a
    /// crash; PythonRef's synthetic plaintexts themselves are pinned by Vectors/implicit-rejection.
    func implicitRejectionExplained(_ frame: FuzzFrame, swift: FuzzVerdict, python: FuzzVerdict) -> FuzzVerdict? {
        guard frame.setting["rejection"] == RSARejection.implicit.rawValue, Self.judge(swift: swift, python: python) == .disagreement,
              swift.outcome == .rejected, python.outcome != .crashed else { return nil }
        var explicit = machineVerdict(frame, python: true, rejection: .explicit)
        guard Self.judge(swift: swift, python: explicit) == .agreed else { return nil }
        explicit.note = "implicit rejection: PythonRef (OpenSSL >= 3.2's model) acknowledged with a synthetic plaintext where explicit rejection refuses"
        return explicit
    }

    func machineVerdict(_ frame: FuzzFrame, python usePython: Bool, rejection: RSARejection? = nil) -> FuzzVerdict {
        let setting = frame.setting
        let key = corpus.key(setting["key"])
        let padding = StreamFrames.padding(setting)
        let framing = Framing(rawValue: setting["framing"] ?? "") ?? .legacy
        let maxMessage = setting.int("maxMessage", default: Framing.defaultMaxMessage)
        let digest = setting.flag("digest")
        let machine: SessionMachine
        do {
            machine = try makeMachine(frame.family, usePython: usePython, key: key, padding: padding, framing: framing,
                                      maxMessage: maxMessage, digest: digest, plaintext: setting.data("plaintext") ?? Data(),
                                      rejection: rejection ?? RSARejection(rawValue: setting["rejection"] ?? "") ?? .explicit)
        } catch {
            return .crashed(usePython ? "python-session-open" : "swift-machine", note: "\(error)")
        }
        let actions = Self.feed(machine, frame: frame, chunk: setting.int("chunk", default: 0))
        return describe(actions, closed: machine.closed, framed: framing == .framed, padding: padding, python: usePython)
    }

    /// `rejection`: what PythonRef's server does with a bad PKCS#1 v1.5 padding (the Swift side is explicit).
    func makeMachine(_ family: FrameFamily, usePython: Bool, key: FuzzKey, padding: RSAEncryptionPadding, framing: Framing,
                     maxMessage: Int, digest: Bool, plaintext: Data, rejection: RSARejection = .explicit) throws -> SessionMachine {
        switch family {
        case .serverKey, .ciphertext:
            let direction: RSASocket.Direction = family == .serverKey ? .phoneToPi : .piToPhone
            if usePython {
                var config: [String: PythonValue] = [
                    "direction": .string(direction.rawValue), "padding": .string(padding.description), "framing": .string(framing.rawValue),
                    "max_message": .int(maxMessage), "digest": .bool(digest), "plaintext": .bytes(plaintext), "key_format": "spki-pem",
                ]
                if direction == .piToPhone { config["private_key"] = .bytes(key.privateKeyPEM) }
                return try PythonSessionMachine(peer: python, role: "rsa-socket.client", config: config)
            }
            return RSASocketClient(config: RSASocketClientConfig(direction: direction, padding: padding, framing: framing, maxMessage: maxMessage,
                                                                digest: digest, privateKey: direction == .piToPhone ? key.privateKey : nil,
                                                                plaintext: plaintext))
        default:
            if usePython {
                let config: [String: PythonValue] = [
                    "padding": .string(padding.description), "framing": .string(framing.rawValue), "max_message": .int(maxMessage),
                    "digest": .bool(digest), "private_key": .bytes(key.privateKeyPEM), "message": .bytes(RSASocket.defaultMessage),
                    "rejection": .string(rejection.rawValue),
                ]
                return try PythonSessionMachine(peer: python, role: "rsa-socket.server", config: config)
            }
            return RSASocketServer(config: RSASocketServerConfig(padding: padding, framing: framing, maxMessage: maxMessage, digest: digest,
                                                                privateKey: key.privateKey))
        }
    }

    /// Feeds a frame as a socket shell would: the bytes (whole, or `chunk` at a time), then the
    /// tail 64 KiB at a time, stopping as soon as the machine closes; then one quiet gap.
    static func feed(_ machine: SessionMachine, frame: FuzzFrame, chunk: Int) -> [SessionAction] {
        var actions = machine.start()
        // Byte-by-byte delivery of a long frame costs a call per byte: larger frames go in bigger pieces.
        let size = chunk <= 0 ? max(frame.bytes.count, 1) : max(chunk, frame.bytes.count / 512)
        var offset = 0
        while offset < frame.bytes.count, !machine.closed {
            let end = min(offset + min(size, 65_536), frame.bytes.count)
            actions += machine.receive(frame.bytes.subdata(in: (frame.bytes.startIndex + offset)..<(frame.bytes.startIndex + end)))
            offset = end
        }
        if let tail = frame.tail {
            var remaining = tail.count
            while remaining > 0, !machine.closed {
                let piece = min(remaining, 65_536)
                actions += machine.receive(Data(repeating: tail.byte, count: piece))
                remaining -= piece
            }
        }
        if !machine.closed { actions += machine.idle() }
        return actions
    }

    /// The comparable form of a machine's answer.
    func describe(_ actions: [SessionAction], closed: Bool, framed: Bool, padding: RSAEncryptionPadding, python usePython: Bool) -> FuzzVerdict {
        var sent: [(name: String, detail: String)] = []
        var events: [String] = []
        var reasons: [String] = []
        for action in actions {
            switch action {
            case let .send(bytes): sent.append(describeSend(bytes, framed: framed, padding: padding))
            case .close: break
            case let .event(event):
                switch event {
                case let .decrypted(plaintext): events.append("decrypted(\(plaintext.count) bytes \(Digest.sha256.hash(plaintext).hexString.prefix(16)))")
                case let .serverOK(digest, verified): events.append("server-ok(digest \(digest ?? "none"), verified \(verified.map { "\($0)" } ?? "n/a"))")
                case let .error(reason), let .failed(reason):
                    events.append(event.name)
                    reasons.append(reason)
                default: events.append(event.name)
                }
            }
        }
        let note = reasons.joined(separator: "; ")
        // An exception PythonRef's machine caught for us, or a session call that failed: a crash.
        if usePython, reasons.contains(where: { $0.contains("Internal:") || $0.hasPrefix("pythonref session.") }) {
            return .crashed("python-exception", note: note)
        }
        let kinds = events.map { String($0.prefix { $0 != "(" }) }
        let summary = "sent [\(sent.map(\.name).joined(separator: ","))] \(closed ? "closed" : "open") events [\(kinds.joined(separator: ","))]"
        let detail = "sent [\(sent.map(\.detail).joined(separator: ", "))] \(closed ? "closed" : "open") events [\(events.joined(separator: ", "))]"
        // A conversation a side refused (server error, client failure, the server's ERROR seen) counts as a
        // refusal; so does a `Server: OK sha256=` whose digest is not the plaintext's (docs/PROTOCOL.md,
        // the digest extension: it proves the server recovered the bytes, and here it proves it did not).
        let refused = kinds.contains { ["error", "failed", "server-error"].contains($0) } || events.contains { $0.hasSuffix("verified false)") }
        return FuzzVerdict(outcome: refused ? .rejected : .accepted, summary: summary, detail: detail, note: note)
    }

    private static let texts: [(prefix: String, name: String)] = [
        (RSASocket.hello, "hello"), (RSASocket.keyPrefix, "key"), (RSASocket.ok + " sha256=", "ok-digest"), (RSASocket.error, "ERROR"),
        (RSASocket.ok, "ok"), (RSASocket.quit, "quit"), (RSASocket.stopped, "stopped"),
    ]

    /// A sent message as (name, comparable detail): protocol texts exactly, ciphertexts by class.
    func describeSend(_ bytes: Data, framed: Bool, padding: RSAEncryptionPadding) -> (name: String, detail: String) {
        var body = bytes
        var frame = ""
        if framed, body.count >= 4 {
            let length = body.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            if length == body.count - 4 { frame = "frame:"; body = Data(body.dropFirst(4)) }
        }
        let encrypted = Data(RSASocket.encryptedPrefix.utf8)
        if body.starts(with: encrypted) {
            return ("encrypted", frame + RSASocket.encryptedPrefix + ciphertextClass(Data(body.dropFirst(encrypted.count)), padding: padding))
        }
        if let text = Self.texts.first(where: { body.starts(with: Data($0.prefix.utf8)) }) {
            let printable = body.count <= 80 && body.allSatisfy { (0x20...0x7e).contains($0) || $0 == 0x0a }
            let shown = printable ? String(decoding: body, as: UTF8.self).debugDescription
                                  : "\(body.count) bytes \(body.prefix(16).hexString)… sha256 \(Digest.sha256.hash(body).hexString.prefix(16))"
            return (text.name, frame + shown)
        }
        return ("ciphertext", frame + ciphertextClass(body, padding: padding))
    }

    /// Randomized RSA output by class: its length, and what it decrypts to under a corpus key.
    func ciphertextClass(_ ciphertext: Data, padding: RSAEncryptionPadding) -> String {
        for key in keys where key.byteCount == ciphertext.count {
            if let plaintext = try? key.privateKey.decrypt(ciphertext, padding: padding) {
                return "ciphertext(\(ciphertext.count) bytes, decrypts under \(key.name) to \(plaintext.count) bytes sha256 \(Digest.sha256.hash(plaintext).hexString.prefix(16)))"
            }
        }
        if let clear = RSAInvalidKeys.messageInTheClear(ciphertext) {
            // c = m when e = 1: RFC 8017 §3.1 keys never do this; the bytes are the encoded message.
            return "ciphertext(\(ciphertext.count) bytes, \(Self.inTheClear): the \(clear.padding) encoding of \(clear.message.count) bytes sha256 \(Digest.sha256.hash(clear.message).hexString.prefix(16)))"
        }
        if ciphertext.allSatisfy({ $0 == 0 }) { return "ciphertext(\(ciphertext.count) bytes, all zero)" }
        return "ciphertext(\(ciphertext.count) bytes, not under a corpus key)"
    }

    // MARK: aes-https server

    struct HTTPSPair {
        let swift: AESHTTPSServer
        let swiftToken: String
        let python: @Sendable (WebRequest) throws -> WebResponse
        let pythonToken: String
    }

    private func httpsPair(_ setting: FuzzSetting) throws -> HTTPSPair {
        let mode = KeyDerivationMode(rawValue: setting["keyMode"] ?? "") ?? .base64Raw
        let encryptionKey = setting["encryptionKey"] ?? ""
        let id = "\(mode.rawValue)/\(encryptionKey)"
        // Fresh servers every 2,000 requests: issued tokens are the servers' only state.
        httpsUses += 1
        if httpsUses % 2_000 == 0 { httpsServers = [:] }
        if let pair = httpsServers[id] { return pair }
        let swiftServer = AESHTTPSServer(config: AESHTTPSServerConfig(users: HTTPSFrames.users, keyMode: mode, encryptionKey: encryptionKey))
        let login = AESHTTPSClient.loginRequest(username: "alice", password: "wonderland")
        let swiftToken = try AESHTTPSClient.parseLogin(swiftServer.handle(login), mode: mode).token
        let pythonServer = try PythonAESHTTPS(peer: python).makeServer(users: HTTPSFrames.users, mode: mode, encryptionKey: encryptionKey)
        let pythonToken = try AESHTTPSClient.parseLogin(try pythonServer(login), mode: mode).token
        let pair = HTTPSPair(swift: swiftServer, swiftToken: swiftToken, python: pythonServer, pythonToken: pythonToken)
        httpsServers[id] = pair
        return pair
    }

    func httpsVerdicts(_ frame: FuzzFrame) -> (swift: FuzzVerdict, python: FuzzVerdict) {
        let pair: HTTPSPair
        do { pair = try httpsPair(frame.setting) } catch {
            let verdict = FuzzVerdict.crashed("harness", note: "cannot set up the aes-https servers: \(error)")
            return (verdict, verdict)
        }
        func request(token: String) -> WebRequest {
            var headers = ["content-type": frame.setting["contentType"] ?? "application/json"]
            switch frame.setting["auth"] ?? "valid" {
            case "valid": headers["authorization"] = token
            case "unknown": headers["authorization"] = "0123456789abcdef0123456789abcdef"
            case "empty": headers["authorization"] = ""
            case "bearer": headers["authorization"] = "Bearer " + token
            default: break
            }
            return WebRequest(method: frame.setting["method"] ?? "POST", path: frame.setting["path"] ?? "/secure-data", headers: headers, body: frame.bytes)
        }
        let key = HTTPSFrames.derivedKey(frame.setting)
        // docs/PROTOCOL.md: the answer to /secure-data is an envelope of {"echo": <params>}, the
        // request's own parameters: an echo of anything else is wrong whatever the other side sent.
        let echo = (try? CBCEnvelope(json: frame.bytes)).flatMap { try? $0.open(key: key) }.flatMap { try? StrictJSON.parse($0) }
            .map { JSONValue.object(["echo": $0]).canonicalText }
        let swiftVerdict = describe(pair.swift.handle(request(token: pair.swiftToken)), key: key, echo: echo)
        let pythonVerdict: FuzzVerdict
        do { pythonVerdict = describe(try pair.python(request(token: pair.pythonToken)), key: key, echo: echo) } catch let failure as PeerFailure {
            pythonVerdict = .crashed(failure.kind == .internal ? "python-exception" : "python-\(failure.kind.rawValue)", note: failure.detail)
        } catch {
            pythonVerdict = .crashed("python-exception", note: "\(error)")
        }
        return (swiftVerdict, pythonVerdict)
    }

    func describe(_ response: WebResponse, key: Data, echo: String? = nil) -> FuzzVerdict {
        let contentType = response.headers["content-type"] ?? "none"
        var body = response.body.count <= 200 ? String(decoding: response.body, as: UTF8.self).debugDescription
                                              : "\(response.body.count) bytes sha256 \(Digest.sha256.hash(response.body).hexString.prefix(16))"
        if response.status == 200 {
            if let envelope = try? CBCEnvelope(json: response.body), let plaintext = try? envelope.open(key: key) {
                let answer = StrictJSON.canonical(plaintext)
                body = "envelope of " + answer
                if let echo, answer != echo { body += " \(Self.roundTripBroken): the echo is not the request's parameters \(echo.prefix(120))" }
            } else if let fields = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] {
                let token = fields["token"] as? String ?? ""
                let tokenShape = token.count == 32 && token.allSatisfy(\.isHexDigit) ? "32 hex" : "malformed \(token.debugDescription)"
                body = "login(token \(tokenShape), encryptionKey \((fields["encryptionKey"] as? String ?? "none").debugDescription), fields \(fields.keys.sorted()))"
            }
        }
        return .accepted("status \(response.status)", detail: "status \(response.status) content-type \(contentType) body \(body)")
    }
}
