import Foundation
import WireCrypto

/// What every suite builds its checks from: the two implementations, the seed, shared keys, and
/// where the data files are. Capability modules add their own options beside it (e.g. the sessions
/// suite's transports), never into it.
public struct SuiteContext: Sendable {
    public let swift: CryptoPeer
    public let python: CryptoPeer
    public let seed: UInt64
    public let keys: KeyCache
    public let files: ProjectFiles

    public init(swift: CryptoPeer, python: CryptoPeer, seed: UInt64, files: ProjectFiles) {
        self.swift = swift; self.python = python; self.seed = seed; self.keys = KeyCache(); self.files = files
    }

    /// The crypto peer that makes keys for the implementation called `name`.
    public func cryptoPeer(named name: String) -> CryptoPeer { name == swift.name ? swift : python }

    /// Both directions: (sender, receiver).
    public var directions: [(sender: CryptoPeer, receiver: CryptoPeer)] { [(swift, python), (python, swift)] }

    /// Bytes for a check, reproducible from the seed and the check's name alone.
    public func bytes(_ count: Int, for checkName: String) -> Data {
        var generator = SeededGenerator.forCheck(checkName, seed: seed)
        return generator.bytes(count)
    }
}

/// RSA keys generated once per (implementation, size, slot) and shared by the checks that need
/// them: key generation dominates the run time otherwise. A failed generation is remembered too, so
/// every check that needs the key reports it.
public final class KeyCache: @unchecked Sendable {
    private var keys: [String: Result<GeneratedRSAKey, PeerFailure>] = [:]
    private let lock = NSLock()

    public init() {}

    public func key(of peer: CryptoPeer, bits: Int, slot: String = "main") throws -> GeneratedRSAKey {
        let id = "\(peer.name)/\(bits)/\(slot)"
        lock.lock(); defer { lock.unlock() }
        if let known = keys[id] { return try known.get() }
        let result = Result { try peer.generateRSAKey(bits: bits) }.mapError { error -> PeerFailure in
            let failure = ErrorEquivalence.failure(from: error)
            return PeerFailure(failure.kind, "\(peer.name) could not generate an RSA-\(bits) key: \(failure.detail)")
        }
        keys[id] = result
        return try result.get()
    }
}

/// Collects checks for one testsuite and class.
public struct CheckList {
    public let suite: String
    public let classname: String
    public private(set) var checks: [Check] = []

    public init(suite: String, profile: String, relation: String) {
        self.suite = suite
        self.classname = "crosscheck.\(profile).\(relation)"
    }

    public mutating func add(_ name: String, weaknesses: [String] = [], properties: [String: String] = [:],
                             _ body: @escaping @Sendable () throws -> CheckOutcome) {
        var properties = properties
        if !weaknesses.isEmpty { properties["weakness"] = weaknesses.joined(separator: "; ") }
        checks.append(Check(suite: suite, classname: classname, name: name, properties: properties, body: body))
    }
}

/// Weak choices a report names next to the checks that use them.
public enum Weakness {
    public static let smallRSA = "RSA key below 2048 bits"
    public static let pkcs1 = "PKCS#1 v1.5 encryption (Bleichenbacher/ROBOT padding oracles)"
    public static let cbcNoMAC = "AES-CBC without a MAC (malleable; padding oracles)"
    public static let zeroPadKey = "utf8-zeropad16 key mode (a password, not a key)"
    public static let legacyFraming = "legacy framing (message ends inferred from content and timing)"

    public static func rsa(bits: Int, padding: RSAEncryptionPadding) -> [String] {
        (bits < 2048 ? [smallRSA] : []) + (padding.isWeak ? [pkcs1] : [])
    }

    /// An aes-https envelope under a key made by `keyMode`.
    public static func aesHTTPS(keyMode: KeyDerivationMode) -> [String] {
        [cbcNoMAC] + (keyMode.isWeak ? [zeroPadKey] : [])
    }
}
