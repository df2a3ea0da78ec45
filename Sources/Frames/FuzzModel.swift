import Foundation
import Conformance

/// The kinds of frame the differential fuzzer generates, one per thing an implementation parses.
/// Each family has its own oracle (`FuzzOracle`): what both implementations are fed and what of
/// their answers is compared.
public enum FrameFamily: String, CaseIterable, Sendable, Codable {
    /// Whole client byte streams into an rsa-socket server machine (hello, Quit, junk, reordering).
    case conversation = "rsa-socket.conversation"
    /// `public_key=` + PEM into an rsa-socket server machine (pi-to-phone's first message).
    case clientKey = "rsa-socket.client-key"
    /// `Client: OK` then `encrypted_message=` + payload into an rsa-socket server machine.
    case encrypted = "rsa-socket.encrypted"
    /// Framed conversations with broken 4-byte length prefixes into an rsa-socket server machine.
    case framed = "rsa-socket.framed"
    /// The server's `public_key=` message and replies into a phone-to-pi client machine.
    case serverKey = "rsa-socket.server-key"
    /// The server's raw ciphertext and replies into a pi-to-phone client machine.
    case ciphertext = "rsa-socket.ciphertext"
    /// Public-key files in every format into the key importers.
    case publicKey = "keys.public"
    /// Private-key files in every format (and passphrases) into the key importers.
    case privateKey = "keys.private"
    /// aes-https `{"data","iv"}` bodies into the envelope openers.
    case envelope = "aes-https.envelope"
    /// AES-CBC ciphertexts, IVs and keys into the CBC decrypters.
    case cbc = "aes-https.cbc"
    /// `encryptionKey` strings into the key-derivation modes.
    case kdf = "aes-https.kdf"
    /// HTTP requests into the aes-https server logic (status and body compared).
    case httpsServer = "aes-https.server"
    /// AES-GCM combined boxes into the openers.
    case aesGCM = "sealed.aes-gcm"
    /// ChaChaPoly combined boxes into the openers.
    case chaChaPoly = "sealed.chachapoly"

    /// The protocol profile, for JUnit class names.
    public var profile: String {
        switch self {
        case .conversation, .clientKey, .encrypted, .framed, .serverKey, .ciphertext: return "rsa-socket"
        case .publicKey, .privateKey: return "keys"
        case .envelope, .cbc, .kdf, .httpsServer: return "aes-https"
        case .aesGCM, .chaChaPoly: return "sealed"
        }
    }

    /// Families whose frames go to an rsa-socket *server*, so `--target HOST:PORT` can send them.
    public var reachesServer: Bool { [.conversation, .clientKey, .encrypted, .framed].contains(self) }

    /// Families whose frames are rsa-socket byte streams (fed to protocol machines).
}

/// How both implementations are configured for one frame: flat string fields, so a reproducer
/// file can carry them as they are. Each family reads the fields it needs (see `FuzzSettingKey`).
public struct FuzzSetting: Sendable, Equatable, Codable {
    public var fields: [String: String]
    public init(_ fields: [String: String] = [:]) { self.fields = fields }

    public init(from decoder: Decoder) throws { fields = try decoder.singleValueContainer().decode([String: String].self) }
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(fields)
    }

    public subscript(key: String) -> String? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    public func data(_ key: String) -> Data? { fields[key].flatMap { Data(base64Encoded: $0) } }
    public mutating func setData(_ key: String, _ value: Data?) { fields[key] = value?.base64EncodedString() }
    public func int(_ key: String, default value: Int) -> Int { fields[key].flatMap { Int($0) } ?? value }
    public func flag(_ key: String) -> Bool { fields[key] == "1" }
}

/// A long run of one byte after a frame's bytes, fed 64 KiB at a time and only while the
/// receivers still read: how a 10 MB message is sent without ever being held in memory.
public struct FrameTail: Sendable, Equatable, Codable {
    public var byte: UInt8
    public var count: Int
    public init(byte: UInt8, count: Int) { self.byte = byte; self.count = count }
}

/// What the specification requires of a frame, whatever the two implementations do (Wycheproof's
/// valid / invalid, with the clause that decides it): `crosscheck fuzz` judges each side against
/// it as well as against the other side, so "both accepted an invalid frame" is a failure of its
/// own kind (`spec`). Frames the specification leaves open (acceptable either way) carry none.
public struct FrameSpec: Sendable, Equatable, Codable {
    public enum Answer: String, Sendable, Codable {
        /// Every conforming implementation accepts it.
        case valid
        /// Every conforming implementation refuses it.
        case invalid
    }
    public var answer: Answer
    /// The rule that decides, e.g. `RFC 8017 §3.1: 3 ≤ e < n`.
    public var clause: String

    public init(_ answer: Answer, _ clause: String) { self.answer = answer; self.clause = clause }
    public static func valid(_ clause: String) -> FrameSpec { FrameSpec(.valid, clause) }
    public static func invalid(_ clause: String) -> FrameSpec { FrameSpec(.invalid, clause) }
}

/// One generated input: what family it belongs to, which mutator made it, the bytes, and the
/// configuration both implementations get.
public struct FuzzFrame: Sendable, Equatable, Codable {
    public var family: FrameFamily
    /// The structured mutator's name (`iv-not-16-bytes`, `modulus-even`, …), `valid` for an
    /// unmutated base frame, or `random-bytes` (possibly after a structured one: `x+random-bytes`).
    public var mutator: String
    public var bytes: Data
    public var setting: FuzzSetting
    public var tail: FrameTail?
    /// What the specification requires of this frame, where it decides (nil: acceptable either way,
    /// or unknown after random byte edits).
    public var spec: FrameSpec?
    /// The structured mutator left the frame as it was (a mutator that changed nothing tests nothing).
    public var unchanged: Bool?

    public init(family: FrameFamily, mutator: String, bytes: Data, setting: FuzzSetting, tail: FrameTail? = nil, spec: FrameSpec? = nil) {
        self.family = family; self.mutator = mutator; self.bytes = bytes; self.setting = setting; self.tail = tail; self.spec = spec
    }

    /// The structured mutator's name without a `+random-bytes` suffix: what counts and groups findings.
    public var baseMutator: String { mutator.components(separatedBy: "+").first ?? mutator }

    /// The total length, tail included.
    public var length: Int { bytes.count + (tail?.count ?? 0) }
}

/// What one implementation did with a frame.
public struct FuzzVerdict: Sendable, Equatable, Codable {
    public enum Answer: String, Sendable, Codable {
        /// It took the input; `summary` names the class of result, `detail` the comparable result.
        case accepted
        /// It refused with the failure kind in `summary` (crypto ops).
        case rejected
        /// Something escaped that must not: an uncaught Python exception (`Internal`), a broken
        /// reply from PythonRef, or a harness error.
        case crashed
    }

    public var outcome: Answer
    /// Coarse and bounded: used to deduplicate disagreements (`accept`, `BadKey`, `sent key,ERROR; closed`).
    public var summary: String
    /// What is compared when both accept: the result with randomness classified away.
    public var detail: String
    /// For people only (reasons, free text): never compared.
    public var note: String

    public init(outcome: Answer, summary: String, detail: String = "", note: String = "") {
        self.outcome = outcome; self.summary = summary; self.detail = detail; self.note = note
    }

    public static func accepted(_ summary: String, detail: String, note: String = "") -> FuzzVerdict {
        FuzzVerdict(outcome: .accepted, summary: summary, detail: detail, note: note)
    }
    public static func rejected(_ kind: FailureKind, note: String = "") -> FuzzVerdict {
        FuzzVerdict(outcome: .rejected, summary: kind.rawValue, detail: kind.rawValue, note: note)
    }
    public static func crashed(_ what: String, note: String = "") -> FuzzVerdict {
        FuzzVerdict(outcome: .crashed, summary: what, detail: what, note: note)
    }

    /// One line: `accept: …` / `reject BadKey` / `crash: …`.
    public var line: String {
        switch outcome {
        case .accepted: return "accept \(summary)" + (detail.isEmpty || detail == summary ? "" : " [\(detail.prefix(160))]")
        case .rejected: return "reject \(summary)" + (detail.isEmpty || detail == summary ? "" : " [\(detail.prefix(160))]")
        case .crashed: return "crash \(summary)"
        }
    }
}

/// The oracle's finding for one frame.
public enum FrameFinding: Sendable, Equatable {
    /// Both accepted with the same result, or both refused with the same kind.
    case agreed
    /// Different answers: one accepts what the other refuses, different results, or different kinds.
    case disagreement
    /// One side crashed (an uncaught Python exception, a broken reply).
    case crash
    /// The frame took longer than its deadline.
    case hang
    /// A side answered against what the specification requires (`FuzzFrame.spec`), whether or not
    /// the other side did the same.
    case specViolation
}
