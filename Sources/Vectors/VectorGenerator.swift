import Foundation
import Conformance
import WireCrypto

/// Writes `Vectors/openssl/` with the `openssl` command alone, as the seed tutorials do it:
/// `genrsa` keys of each size in every format the profiles use, `pkeyutl` and `rsautl`
/// ciphertexts, `enc -K … -iv …` AES-CBC ciphertexts; then `manifest.json`.
///
/// crosscheck itself writes only the plaintext files (fixed bytes, so they never change), the
/// manifest and the README. The folder is built beside the target and swapped in at the end, so a
/// failed run leaves the previous vectors in place.
public struct VectorGenerator {
    public static let defaultKeySizes = [1024, 2048, 3072, 4096]
    /// The passphrase of every `private-pkcs8-encrypted.pem` (test data, not a secret).
    public static let passphrase = "crosscheck-vectors"
    public static let tutorialMessage = "Secret message from RPi server"

    /// AES keys and IV from NIST SP 800-38A, Appendix F.2 (CBC-AES128/192/256.Encrypt), with the
    /// 64-byte plaintext of F.2 and its published ciphertexts: `openssl enc` pads with PKCS#7, so
    /// its output is the published ciphertext followed by one block of padding.
    static let sp800_38a: [(bits: Int, key: String, ciphertext: String)] = [
        (128, "2b7e151628aed2a6abf7158809cf4f3c",
         "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b273bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7"),
        (192, "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
         "4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a571b242012fb7ae07fa9baac3df102e008b0e27988598881d920a9e64f5615cd"),
        (256, "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
         "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b"),
    ]
    static let sp800_38aIV = "000102030405060708090a0b0c0d0e0f"
    static let sp800_38aPlaintext = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"

    /// The paddings of the rsa-socket profile, with the `pkeyutl` options that select them.
    static let pkeyutlPaddings: [(name: String, options: [String])] = [
        ("pkcs1", ["-pkeyopt", "rsa_padding_mode:pkcs1"]),
        ("oaep-sha1", ["-pkeyopt", "rsa_padding_mode:oaep"]),  // OpenSSL's OAEP default: SHA-1, MGF1-SHA-1
        ("oaep-sha256", ["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha256", "-pkeyopt", "rsa_mgf1_md:sha256"]),
    ]

    public let openssl: OpenSSLTool
    public let keySizes: [Int]

    public init(openssl: OpenSSLTool, keySizes: [Int] = defaultKeySizes) {
        self.openssl = openssl; self.keySizes = keySizes
    }

    /// One `openssl` invocation and the manifest entries for the files it writes.
    struct Step {
        let arguments: [String]
        /// The manifest entry of the file the command writes, its command line filled in.
        let entry: VectorManifest.Entry?
        var commandLine: String { OpenSSLTool.commandLine(arguments) }

        init(arguments: [String], entry: VectorManifest.Entry?) {
            self.arguments = arguments
            self.entry = entry.map { var entry = $0; entry.command = OpenSSLTool.commandLine(arguments); return entry }
        }
    }

    /// Generates everything into `directory`, replacing what is there; returns the manifest written.
    @discardableResult
    public func generate(into directory: URL) throws -> VectorManifest {
        let fm = FileManager.default
        let parent = directory.standardizedFileURL.deletingLastPathComponent()
        try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        let staging = parent.appendingPathComponent(".\(directory.lastPathComponent).staging-\(UUID().uuidString)")
        try fm.createDirectory(at: staging, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: staging) }
        for folder in ["plaintexts", "aes"] + keySizes.map({ "rsa\($0)" }) {
            try fm.createDirectory(at: staging.appendingPathComponent(folder), withIntermediateDirectories: true)
        }

        // Plaintexts: fixed bytes, written by crosscheck.
        var entries: [VectorManifest.Entry] = []
        var plaintexts: [String: Data] = [:]
        func addPlaintext(_ path: String, _ bytes: Data) throws {
            try bytes.write(to: staging.appendingPathComponent(path))
            plaintexts[path] = bytes
            var entry = VectorManifest.Entry(path: path, kind: .plaintext, command: nil, deterministic: true)
            entry.source = "fixed bytes written by crosscheck vectors generate"
            entries.append(entry)
        }
        try addPlaintext("plaintexts/tutorial.txt", Data(Self.tutorialMessage.utf8))
        try addPlaintext("plaintexts/empty.txt", Data())
        try addPlaintext("plaintexts/login.json", Data(#"{"username":"pi","password":"raspberry"}"#.utf8))
        try addPlaintext("plaintexts/block16.txt", Data("sixteen bytes!!!".utf8))
        try addPlaintext("plaintexts/sp800-38a.bin", Data(hexString: Self.sp800_38aPlaintext)!)
        for bits in keySizes {
            for (padding, _) in Self.pkeyutlPaddings {
                let limit = try RSAEncryptionPadding(name: padding).maxPlaintextLength(modulusBytes: bits / 8)
                var generator = SeededGenerator.forCheck("vectors/rsa\(bits)-\(padding)-max", seed: 0x5eed)
                try addPlaintext("plaintexts/rsa\(bits)-\(padding)-max.bin", generator.bytes(limit))
            }
        }
        func plaintext(_ path: String) -> VectorManifest.Plaintext {
            let bytes = plaintexts[path]!
            let text = String(data: bytes, encoding: .utf8).flatMap { text in
                text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7f } ? text : nil
            }
            return VectorManifest.Plaintext(file: path, hex: bytes.hexString, text: text)
        }

        // Phase 1: keys (largest first, so the slow ones start at once) and AES-CBC.
        var phase1: [Step] = keySizes.sorted(by: >).map { bits in
            var entry = VectorManifest.Entry(path: "rsa\(bits)/private-pkcs8.pem", kind: .rsaPrivateKey, command: nil, deterministic: false)
            entry.key = "rsa\(bits)"; entry.format = "pkcs8-pem"
            return Step(arguments: ["genrsa", "-out", entry.path, String(bits)], entry: entry)
        }
        let aesOutputs: [(source: String, base64: Bool)] = [
            ("plaintexts/sp800-38a.bin", false), ("plaintexts/login.json", false), ("plaintexts/login.json", true),
            ("plaintexts/tutorial.txt", false), ("plaintexts/block16.txt", false), ("plaintexts/empty.txt", false),
        ]
        for (bits, key, published) in Self.sp800_38a {
            for (source, base64) in aesOutputs {
                let path = "aes/aes\(bits)-cbc-\(Self.stem(source))\(base64 ? ".b64" : ".bin")"
                var arguments = ["enc", "-aes-\(bits)-cbc", "-K", key, "-iv", Self.sp800_38aIV]
                if base64 { arguments.append("-a") }
                arguments += ["-in", source, "-out", path]
                var entry = VectorManifest.Entry(path: path, kind: .aesCBCCiphertext, command: nil, deterministic: true)
                entry.tool = "enc"; entry.aesKey = key; entry.iv = Self.sp800_38aIV
                entry.encoding = base64 ? "base64" : "binary"; entry.plaintext = plaintext(source)
                if source == "plaintexts/sp800-38a.bin" {
                    entry.published = VectorManifest.Published(ciphertextPrefix: published,
                        source: "NIST SP 800-38A (2001), Appendix F.2, CBC-AES\(bits).Encrypt")
                }
                phase1.append(Step(arguments: arguments, entry: entry))
            }
        }
        try run(phase1, in: staging)
        entries += phase1.compactMap(\.entry)

        // Phase 2: every other encoding of each key, and its modulus.
        var phase2: [Step] = []
        var modulusSteps: [Int: Int] = [:]
        for bits in keySizes {
            let folder = "rsa\(bits)", source = "rsa\(bits)/private-pkcs8.pem"
            let derived: [(String, VectorManifest.Kind, String, [String])] = [
                ("private-pkcs1.pem", .rsaPrivateKey, "pkcs1-pem", ["rsa", "-in", source, "-traditional", "-out"]),
                ("private-pkcs8-encrypted.pem", .rsaPrivateKey, "pkcs8-pem-encrypted",
                 ["pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", source, "-passout", "pass:\(Self.passphrase)", "-out"]),
                ("public-spki.pem", .rsaPublicKey, "spki-pem", ["rsa", "-in", source, "-pubout", "-out"]),
                ("public-spki.der", .rsaPublicKey, "spki-der", ["rsa", "-in", source, "-pubout", "-outform", "DER", "-out"]),
                ("public-pkcs1.pem", .rsaPublicKey, "pkcs1-pem", ["rsa", "-in", source, "-RSAPublicKey_out", "-out"]),
            ]
            for (file, kind, format, arguments) in derived {
                let path = "\(folder)/\(file)"
                var entry = VectorManifest.Entry(path: path, kind: kind, command: nil, deterministic: false)
                entry.key = folder; entry.format = format
                if format == "pkcs8-pem-encrypted" { entry.source = "passphrase: see keys[].passphrase" }
                phase2.append(Step(arguments: arguments + [path], entry: entry))
            }
            modulusSteps[bits] = phase2.count
            phase2.append(Step(arguments: ["rsa", "-in", source, "-noout", "-modulus"], entry: nil))
        }
        let phase2Outcomes = try run(phase2, in: staging)
        entries += phase2.compactMap(\.entry)
        var keySets: [VectorManifest.KeySet] = []
        for bits in keySizes {
            let index = modulusSteps[bits]!
            let printed = String(decoding: phase2Outcomes[index].stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard printed.hasPrefix("Modulus="), Data(hexString: String(printed.dropFirst(8))) != nil else {
                throw VectorGenerationError.unexpectedOutput(command: phase2[index].commandLine, output: printed)
            }
            keySets.append(VectorManifest.KeySet(name: "rsa\(bits)", bits: bits, modulus: String(printed.dropFirst(8)),
                                                 modulusCommand: phase2[index].commandLine, passphrase: Self.passphrase))
        }

        // Phase 3: RSA ciphertexts, with pkeyutl (three paddings) and the tutorial's rsautl.
        var phase3: [Step] = []
        for bits in keySizes {
            let folder = "rsa\(bits)"
            for (padding, options) in Self.pkeyutlPaddings {
                for source in ["plaintexts/tutorial.txt", "plaintexts/empty.txt", "plaintexts/rsa\(bits)-\(padding)-max.bin"] {
                    let label = source.hasSuffix("-max.bin") ? "max" : Self.stem(source)
                    let path = "\(folder)/pkeyutl-\(padding)-\(label).bin"
                    let arguments = ["pkeyutl", "-encrypt", "-pubin", "-inkey", "\(folder)/public-spki.pem", "-in", source, "-out", path] + options
                    var entry = VectorManifest.Entry(path: path, kind: .rsaCiphertext, command: nil, deterministic: false)
                    entry.key = folder; entry.padding = padding; entry.tool = "pkeyutl"; entry.plaintext = plaintext(source)
                    // Each private-key format opens some of the ciphertexts.
                    entry.decryptWith = "\(folder)/" + (label == "empty" ? "private-pkcs8-encrypted.pem" : "private-pkcs8.pem")
                    phase3.append(Step(arguments: arguments, entry: entry))
                }
            }
            for (padding, option) in [("pkcs1", "-pkcs"), ("oaep-sha1", "-oaep")] {
                let path = "\(folder)/rsautl-\(padding)-tutorial.bin"
                let arguments = ["rsautl", "-encrypt", option, "-pubin", "-inkey", "\(folder)/public-pkcs1.pem",
                                 "-in", "plaintexts/tutorial.txt", "-out", path]
                var entry = VectorManifest.Entry(path: path, kind: .rsaCiphertext, command: nil, deterministic: false)
                entry.key = folder; entry.padding = padding; entry.tool = "rsautl"; entry.plaintext = plaintext("plaintexts/tutorial.txt")
                entry.decryptWith = "\(folder)/private-pkcs1.pem"
                phase3.append(Step(arguments: arguments, entry: entry))
            }
        }
        try run(phase3, in: staging)
        entries += phase3.compactMap(\.entry)

        for index in entries.indices {
            entries[index].sha256 = VectorManifest.digest(try Data(contentsOf: staging.appendingPathComponent(entries[index].path)))
        }
        let manifest = VectorManifest(format: VectorManifest.currentFormat, opensslVersion: try openssl.version(),
                                      generator: "crosscheck vectors generate", workingDirectory: "the folder holding this manifest",
                                      keys: keySets, files: entries.sorted { $0.path < $1.path })
        try manifest.write(to: staging)
        try Data(Self.readme.utf8).write(to: staging.appendingPathComponent("README.md"))

        // Swap in: the old folder goes only once the new one is complete.
        if fm.fileExists(atPath: directory.path) {
            let old = parent.appendingPathComponent(".\(directory.lastPathComponent).old-\(UUID().uuidString)")
            try fm.moveItem(at: directory, to: old)
            try fm.moveItem(at: staging, to: directory)
            try? fm.removeItem(at: old)
        } else {
            try fm.moveItem(at: staging, to: directory)
        }
        return manifest
    }

    /// Runs one phase; any command that fails or writes nothing ends the generation.
    @discardableResult
    private func run(_ steps: [Step], in directory: URL) throws -> [OpenSSLTool.ProcessOutput] {
        let outcomes = try openssl.batch(steps.map(\.arguments), in: directory)
        for (step, outcome) in zip(steps, outcomes) where !outcome.succeeded {
            throw VectorGenerationError.commandFailed(command: step.commandLine, status: outcome.status, stderr: outcome.stderr)
        }
        for step in steps {
            if let path = step.entry?.path, !FileManager.default.fileExists(atPath: directory.appendingPathComponent(path).path) {
                throw VectorGenerationError.unexpectedOutput(command: step.commandLine, output: "\(path) was not written")
            }
        }
        return outcomes
    }

    static func stem(_ path: String) -> String {
        let name = (path as NSString).lastPathComponent
        return (name as NSString).deletingPathExtension
    }

    static let readme = """
    # OpenSSL command-line vectors

    Generated by `make vectors` (`crosscheck vectors generate`) with the `openssl` command only;
    `manifest.json` records every file's SHA-256, the exact command line (run in this folder), the
    plaintext of every ciphertext, the key that opens it, and `openssl version`. crosscheck writes
    only the plaintexts (fixed bytes), the manifest and this README.

    RSA keys and ciphertexts are random: a regeneration changes them, and they are checked by
    decryption, never by bytes. AES-CBC with a fixed key and IV (NIST SP 800-38A keys) is
    deterministic: those files are byte-identical after every regeneration.

    `crosscheck vectors check` (and the `vectors` suite of `crosscheck run`) verifies the files
    against the manifest (an edited, missing or unlisted file is reported, never regenerated), has
    Swift and PythonRef import every key and decrypt every ciphertext, and has the CLI decrypt what
    Swift and PythonRef encrypt to each public key.

    Encrypted keys (`private-pkcs8-encrypted.pem`) use the passphrase `crosscheck-vectors`.
    """
}

public enum VectorGenerationError: Error, Equatable, CustomStringConvertible {
    case commandFailed(command: String, status: Int32, stderr: String)
    case unexpectedOutput(command: String, output: String)

    public var description: String {
        switch self {
        case let .commandFailed(command, status, stderr):
            return "'\(command)' exited with \(status): \(stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
        case let .unexpectedOutput(command, output):
            return "'\(command)' did not give what was expected: \(output)"
        }
    }
}
