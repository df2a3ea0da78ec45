import Foundation
import Conformance
import WireCrypto
import WireProtocol

/// One of the fixed RSA keys of the seed corpus (`Vectors/frames/keys/`): test-only keys both
/// implementations are given, so their deterministic answers (the server's key message, digests)
/// come out byte-identical and probe ciphertexts can be built for them.
public struct FuzzKey: Sendable {
    public let name: String
    /// PKCS#8 PEM, as both implementations receive it.
    public let privateKeyPEM: Data
    public let privateKey: RSAPrivateKey
    let info: RSAKeyInfo
    let publicKey: RSAPublicKey
    let spkiDER: Data
    let pkcs1DER: Data

    public init(name: String, privateKeyPEM: Data) throws {
        self.name = name
        self.privateKeyPEM = privateKeyPEM
        do {
            privateKey = try RSAPrivateKey(importing: privateKeyPEM)
            spkiDER = try privateKey.publicKey.exported(.spkiDER)
            pkcs1DER = try privateKey.publicKey.exported(.pkcs1DER)
        } catch { throw PeerFailure(.badKey, "corpus key \(name): \(error)") }
        info = privateKey.info
        publicKey = privateKey.publicKey
        do { _ = try publicKey._WEAK_AND_INSECURE_textbookEncrypt(Data(count: publicKey.modulusByteCount)) } catch {
            throw PeerFailure(.badKey, "corpus key \(name): probe ciphertexts cannot be made: \(error)")
        }
    }

    public var byteCount: Int { privateKey.modulusByteCount }

    /// A probe ciphertext: `encoded` (at most k bytes) under textbook RSA. Checked to work for this
    /// key at load; should OpenSSL still fail, the frame carries `encoded` itself, which is a
    /// malformed ciphertext all the same.
    func textbookEncrypt(_ encoded: Data) -> Data {
        (try? publicKey._WEAK_AND_INSECURE_textbookEncrypt(encoded)) ?? encoded
    }
    /// `public_key=` + SPKI PEM (iOS form) + `\n`: what a server sends.
    var spkiPEM: Data { PEM.iOSStyle(label: "PUBLIC KEY", der: spkiDER) }
    var serverKeyMessage: Data { Data(RSASocket.keyPrefix.utf8) + spkiPEM + Data("\n".utf8) }
}

/// The seed corpus in `Vectors/frames/`: the fixed keys, and valid frames of every family (listed
/// with their settings in `manifest.json`) that random byte mutation starts from. libFuzzer reads
/// the same folder as its seed corpus (raw files; the manifest and keys are good seeds too).
public struct FuzzCorpus: Sendable {
    public struct Entry: Sendable, Codable, Equatable {
        public var file: String
        public var family: FrameFamily
        public var setting: FuzzSetting
    }

    struct Manifest: Codable {
        var comment: String
        var frames: [Entry]
    }

    public static let keyNames = ["fuzz-rsa1024", "fuzz-rsa2048"]
    public static let manifestName = "manifest.json"

    public let directory: URL
    public private(set) var keys: [String: FuzzKey]
    /// Corpus frames by family, in manifest order, with their bytes.
    public let frames: [FrameFamily: [(entry: Entry, bytes: Data)]]

    /// The default location: `Vectors/frames/` (see `ProjectFiles`).
    public static var defaultDirectory: URL { ProjectFiles.locate().frames }

    /// Loads keys and frames; a missing key is an error that says how to make the corpus.
    public init(directory: URL = FuzzCorpus.defaultDirectory) throws {
        self.directory = directory
        var keys: [String: FuzzKey] = [:]
        for name in Self.keyNames {
            let url = directory.appendingPathComponent("keys/\(name).pem")
            guard let pem = try? Data(contentsOf: url) else {
                throw PeerFailure(.badInput, "the fuzz seed corpus has no \(url.path); run `crosscheck fuzz --write-corpus \(directory.path)` or pass --corpus DIR")
            }
            keys[name] = try FuzzKey(name: name, privateKeyPEM: pem)
        }
        self.keys = keys
        var frames: [FrameFamily: [(entry: Entry, bytes: Data)]] = [:]
        let manifestURL = directory.appendingPathComponent(Self.manifestName)
        if let data = try? Data(contentsOf: manifestURL) {
            let manifest: Manifest
            do { manifest = try JSONDecoder().decode(Manifest.self, from: data) } catch {
                throw PeerFailure(.badInput, "\(manifestURL.path) is not a fuzz corpus manifest: \(error)")
            }
            for entry in manifest.frames {
                guard let bytes = try? Data(contentsOf: directory.appendingPathComponent(entry.file)) else {
                    throw PeerFailure(.badInput, "\(manifestURL.path) lists \(entry.file), which is missing")
                }
                frames[entry.family, default: []].append((entry, bytes))
            }
        }
        self.frames = frames
    }

    public func key(_ name: String?) -> FuzzKey { keys[name ?? ""] ?? keys[Self.keyNames[0]]! }

    /// Every key, the corpus's first, in a fixed order.
    public var orderedKeys: [FuzzKey] { keys.values.sorted { $0.name < $1.name } }

    /// This corpus with one more key (a remote server's, named in settings as `key.name`).
    public func adding(_ key: FuzzKey) -> FuzzCorpus {
        var copy = self
        copy.keys[key.name] = key
        return copy
    }

    /// Writes a fresh seed corpus to `directory`: keys (made only when missing, so settings stay
    /// valid), then valid frames of every family from the generator's builders, and the manifest.
    public static func write(to directory: URL, seed: UInt64 = 1, framesPerFamily: Int = 6) throws -> Int {
        let manager = FileManager.default
        try manager.createDirectory(at: directory.appendingPathComponent("keys"), withIntermediateDirectories: true)
        for (name, bits) in zip(keyNames, [1024, 2048]) {
            let url = directory.appendingPathComponent("keys/\(name).pem")
            if !manager.fileExists(atPath: url.path) {
                try RSAPrivateKey(bits: bits).exported(.pkcs8PEM).write(to: url)
            }
        }
        let empty = try FuzzCorpus(directory: directory, ignoringFrames: ())
        let generator = FrameGenerator(corpus: empty, seed: seed)
        // Regression inputs (fixed findings, in regressions/) are kept as they are.
        var entries: [Entry] = []
        if let data = try? Data(contentsOf: directory.appendingPathComponent(manifestName)),
           let old = try? JSONDecoder().decode(Manifest.self, from: data) {
            entries = old.frames.filter { $0.file.hasPrefix("regressions/") && manager.fileExists(atPath: directory.appendingPathComponent($0.file).path) }
        }
        for family in FrameFamily.allCases {
            let folder = directory.appendingPathComponent(family.rawValue)
            try? manager.removeItem(at: folder)
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            for (index, frame) in generator.validFrames(family, count: framesPerFamily).enumerated() {
                let file = "\(family.rawValue)/valid-\(index + 1).bin"
                try frame.bytes.write(to: directory.appendingPathComponent(file))
                entries.append(Entry(file: file, family: family, setting: frame.setting))
            }
        }
        // The encrypted PKCS#8 forms: their salt is random, so they are corpus files, not built.
        for name in keyNames {
            let key = try RSAPrivateKey(importing: try Data(contentsOf: directory.appendingPathComponent("keys/\(name).pem")))
            let file = "\(FrameFamily.privateKey.rawValue)/\(name)-pkcs8-encrypted.pem"
            try key.exported(.pkcs8EncryptedPEM, passphrase: Data("fuzz passphrase".utf8)).write(to: directory.appendingPathComponent(file))
            entries.append(Entry(file: file, family: .privateKey, setting: FuzzSetting(["passphrase": Data("fuzz passphrase".utf8).base64EncodedString()])))
        }
        let manifest = Manifest(comment: "Seed corpus of `crosscheck fuzz` and `make libfuzzer`; written by `crosscheck fuzz --write-corpus` (see README.md).",
                                frames: entries)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(manifest).write(to: directory.appendingPathComponent(manifestName))
        return entries.count
    }

    private init(directory: URL, ignoringFrames: ()) throws {
        self.directory = directory
        var keys: [String: FuzzKey] = [:]
        for name in Self.keyNames {
            keys[name] = try FuzzKey(name: name, privateKeyPEM: try Data(contentsOf: directory.appendingPathComponent("keys/\(name).pem")))
        }
        self.keys = keys
        self.frames = [:]
    }
}
