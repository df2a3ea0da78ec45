import Foundation
import Conformance
import WireCrypto

/// `Vectors/openssl/manifest.json`: for every generated file its SHA-256, the exact `openssl`
/// command line that made it (run in the folder holding the manifest), what it is, and for
/// ciphertexts the plaintext and the key that opens them; plus `openssl version`.
///
/// RSA outputs are randomized, so a regenerated folder differs byte for byte: they are checked by
/// decryption. AES-CBC with a given key and IV is deterministic (`deterministic: true`): those
/// files come out identical on every regeneration.
public struct VectorManifest: Codable, Sendable, Equatable {
    public static let fileName = "manifest.json"
    public static let currentFormat = "crosscheck-openssl-vectors/1"
    /// Files in the folder that the manifest does not list by design.
    public static let unlisted: Set<String> = [fileName, "README.md"]

    public var format: String
    public var opensslVersion: String
    public var generator: String
    /// Where the commands ran.
    public var workingDirectory: String
    public var keys: [KeySet]
    public var files: [Entry]

    /// One RSA key and the files that encode it.
    public struct KeySet: Codable, Sendable, Equatable {
        public var name: String
        public var bits: Int
        /// The modulus as `openssl rsa -noout -modulus` prints it (upper-case hex).
        public var modulus: String
        public var modulusCommand: String
        /// The passphrase of the key's encrypted PKCS#8 file.
        public var passphrase: String
    }

    public struct Plaintext: Codable, Sendable, Equatable {
        public var file: String
        public var hex: String
        /// The plaintext as text, when it is printable UTF-8.
        public var text: String?
    }

    /// A published answer the file must start with (NIST SP 800-38A for AES-CBC).
    public struct Published: Codable, Sendable, Equatable {
        public var ciphertextPrefix: String
        public var source: String
    }

    public enum Kind: String, Codable, Sendable {
        case plaintext
        case rsaPrivateKey = "rsa-private-key"
        case rsaPublicKey = "rsa-public-key"
        case rsaCiphertext = "rsa-ciphertext"
        case aesCBCCiphertext = "aes-cbc-ciphertext"
    }

    public struct Entry: Codable, Sendable, Equatable {
        public var path: String
        public var sha256: String
        public var kind: Kind
        /// The exact command line (nil for plaintexts, which crosscheck writes itself).
        public var command: String?
        public var source: String?
        public var deterministic: Bool
        /// The key set (`rsa2048`) a key file or ciphertext belongs to.
        public var key: String?
        /// Key files: `pkcs8-pem`, `pkcs1-pem`, `pkcs8-pem-encrypted`, `spki-pem`, `spki-der`.
        public var format: String?
        /// RSA ciphertexts: `pkcs1`, `oaep-sha1`, `oaep-sha256`; and the tool (`pkeyutl`, `rsautl`, `enc`).
        public var padding: String?
        public var tool: String?
        public var plaintext: Plaintext?
        /// RSA ciphertexts: the private key file to decrypt with.
        public var decryptWith: String?
        /// AES-CBC: key and IV in hex; `base64` when made with `openssl enc -a`.
        public var aesKey: String?
        public var iv: String?
        public var encoding: String?
        public var published: Published?

        init(path: String, kind: Kind, command: String?, deterministic: Bool) {
            self.path = path; self.kind = kind; self.command = command; self.deterministic = deterministic
            sha256 = ""
        }
    }

    public func keySet(named name: String?) -> KeySet? { keys.first { $0.name == name } }
    public func entry(_ path: String?) -> Entry? { files.first { $0.path == path } }

    public static func load(from directory: URL) throws -> VectorManifest {
        let url = directory.appendingPathComponent(fileName)
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw VectorManifestError.unreadable(url.path, "no manifest (run 'make vectors' or 'crosscheck vectors generate')")
        }
        let manifest: VectorManifest
        do { manifest = try JSONDecoder().decode(VectorManifest.self, from: data) } catch {
            throw VectorManifestError.unreadable(url.path, "not a vector manifest: \(error)")
        }
        guard manifest.format == currentFormat else {
            throw VectorManifestError.unreadable(url.path, "format '\(manifest.format)', expected '\(currentFormat)'")
        }
        return manifest
    }

    public func write(to directory: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try (encoder.encode(self) + Data("\n".utf8)).write(to: directory.appendingPathComponent(Self.fileName), options: .atomic)
    }

    /// Lowercase hex SHA-256 of a file's bytes.
    public static func digest(_ data: Data) -> String { Digest.sha256.hash(data).hexString }

    /// How the folder differs from the manifest: files edited since, missing, or not listed.
    public struct Integrity: Sendable, Equatable {
        public var edited: [String] = []
        public var missing: [String] = []
        public var extra: [String] = []
        public var isClean: Bool { edited.isEmpty && missing.isEmpty && extra.isEmpty }

        public var summary: String {
            var parts: [String] = []
            if !edited.isEmpty { parts.append("edited since generation: \(edited.joined(separator: ", "))") }
            if !missing.isEmpty { parts.append("missing: \(missing.joined(separator: ", "))") }
            if !extra.isEmpty { parts.append("not in the manifest: \(extra.joined(separator: ", "))") }
            return parts.isEmpty ? "every file matches the manifest" : parts.joined(separator: "; ")
        }
    }

    public func integrity(of directory: URL) -> Integrity {
        var result = Integrity()
        for entry in files {
            switch fileState(entry, in: directory) {
            case .matches: break
            case .missing: result.missing.append(entry.path)
            case .edited: result.edited.append(entry.path)
            }
        }
        let listed = Set(files.map(\.path))
        result.extra = Self.relativePaths(in: directory).filter { !listed.contains($0) && !Self.unlisted.contains($0) }
        return result
    }

    public enum FileState: Equatable { case matches, missing, edited(actualSHA256: String) }

    public func fileState(_ entry: Entry, in directory: URL) -> FileState {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent(entry.path)) else { return .missing }
        let actual = Self.digest(data)
        return actual == entry.sha256 ? .matches : .edited(actualSHA256: actual)
    }

    /// Regular files under `directory`, as sorted paths relative to it.
    static func relativePaths(in directory: URL) -> [String] {
        let base = directory.standardizedFileURL.resolvingSymlinksInPath().path
        guard let walker = FileManager.default.enumerator(at: directory.standardizedFileURL.resolvingSymlinksInPath(),
                                                          includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var paths: [String] = []
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let path = url.standardizedFileURL.resolvingSymlinksInPath().path
            paths.append(path.hasPrefix(base + "/") ? String(path.dropFirst(base.count + 1)) : path)
        }
        return paths.sorted()
    }
}

public enum VectorManifestError: Error, Equatable, CustomStringConvertible {
    case unreadable(String, String)
    public var description: String {
        switch self { case let .unreadable(path, reason): return "\(path): \(reason)" }
    }
}
