import Foundation
import CommandLineKit
import Conformance
import Vectors
import WireCrypto

/// `crosscheck vectors generate|check`: the OpenSSL command-line vectors in `Vectors/openssl/`.
struct VectorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "vectors", abstract: "Generate Vectors/openssl/ with the openssl command, or check both implementations and the CLI against it.",
        synopsis: ["generate [--dir DIR] [--openssl PATH] [--key-sizes LIST]",
                   "check [--dir DIR] [--openssl PATH] [--impl swift|python|both] [--seed N] [--junit PATH] [--quiet]"],
        discussion: """
        generate  writes RSA keys (PKCS#8, PKCS#1, encrypted PKCS#8, SPKI PEM/DER, PKCS#1 public), pkeyutl and
                  rsautl ciphertexts, AES-CBC ciphertexts (openssl enc -K … -iv …) and manifest.json, with the
                  openssl command only; replaces DIR once everything is made. AES-CBC outputs are identical
                  on every run; RSA outputs are random.
        check     verifies DIR against its manifest (edited, missing and unlisted files are reported, never
                  regenerated), has the implementations import every key and decrypt every ciphertext, and
                  has openssl pkeyutl decrypt what they encrypt to each public key.
        """,
        exitCodes: [.success, .checksFailed, .usage, .noInput, .unavailable, .cannotCreate, .interrupted],
        exitNotes: [.noInput: "check: the vector folder does not exist", .unavailable: "openssl or Python missing (the message says what to install)",
                    .cannotCreate: "the vectors or the report could not be written"])

    enum Action: String, CaseIterable, ExpressibleByArgument { case generate, check }

    @Option(name: "--dir", value: "DIR", help: "the vector folder (default: the openssl/ of the Vectors folder, see --vectors)")
    var directory: String?
    @Option(name: "--openssl", value: "PATH", help: "the openssl command (default: $CROSSCHECK_OPENSSL, else openssl on PATH)")
    var opensslPath: String?
    @Option(name: "--key-sizes", value: "LIST", help: "generate: RSA sizes in bits, from 1024 to 16384")
    var keySizes = ArgumentList<Int>(VectorGenerator.defaultKeySizes)
    @Option(name: "--impl", value: "WHICH", help: "check: swift, python or both")
    var implementations = Implementations.both
    @OptionGroup var seed: SeedOption
    @OptionGroup var report: ReportOptions
    @OptionGroup var files: FilesOptions
    @Positionals(value: "generate|check", help: "what to do")
    var actions: [String]
    init() {}

    var action: Action { Action(rawValue: actions.first ?? "") ?? .check }

    func validate() throws {
        guard actions.count == 1, Action(rawValue: actions[0]) != nil else {
            throw UsageError("say 'generate' or 'check' (once)" + (actions.isEmpty ? "" : ", not '\(actions.joined(separator: " "))'"))
        }
        if let size = keySizes.items.first(where: { !(1024...16384).contains($0) || $0 % 8 != 0 }) {
            throw UsageError("--key-sizes takes sizes in bits from 1024 to 16384 (multiples of 8), not \(size)")
        }
        if action == .generate, seed.$given || report.$junit || $implementations {
            throw UsageError("--seed, --junit and --impl belong to 'check', not 'generate'")
        }
        if action == .check, $keySizes { throw UsageError("--key-sizes belongs to 'generate', not 'check'") }
    }

    func run() throws -> ExitCode {
        let directory = self.directory.map { URL(fileURLWithPath: $0) } ?? files.files.openSSL
        return action == .generate ? try generate(directory) : try check(directory)
    }

    func generate(_ directory: URL) throws -> ExitCode {
        let sizes = keySizes.items
        let openssl = try Self.locate(opensslPath)
        let started = Date()
        let manifest: VectorManifest
        do { manifest = try VectorGenerator(openssl: openssl, keySizes: sizes).generate(into: directory) } catch {
            throw CommandExit(.cannotCreate, "crosscheck vectors generate: \(error)")
        }
        let count = { (kind: VectorManifest.Kind) in manifest.files.filter { $0.kind == kind }.count }
        print("wrote \(manifest.files.count) files to \(directory.path) with \(manifest.opensslVersion) in \(String(format: "%.1f", Date().timeIntervalSince(started)))s:")
        print("  \(count(.rsaPrivateKey)) private and \(count(.rsaPublicKey)) public key files (RSA \(sizes.map(String.init).joined(separator: ", ")))")
        print("  \(count(.rsaCiphertext)) RSA ciphertexts (random: checked by decryption)")
        print("  \(count(.aesCBCCiphertext)) AES-CBC ciphertexts (deterministic: identical on every regeneration)")
        print("  \(count(.plaintext)) plaintexts; manifest.json records every file's sha256 and command line")
        return .success
    }

    func check(_ directory: URL) throws -> ExitCode {
        let seed = self.seed.value
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandExit(.noInput, "crosscheck vectors check: no vector folder at \(directory.path); make one with 'crosscheck vectors generate' (make vectors)")
        }

        let openssl = Result { try OpenSSLTool.locate(opensslPath) }.mapError { $0 as? OpenSSLToolError ?? .notFound("\($0)") }
        let currentVersion = (try? openssl.get().version()) ?? "unavailable"
        let peers = try implementations.peers(files)
        let checks = VectorChecks.checks(directory: directory, peers: peers, openssl: openssl, seed: seed)
        let recorded = (try? VectorManifest.load(from: directory).opensslVersion) ?? "unknown"
        if !report.quiet { printError("vectors in \(directory.path): made with \(recorded); openssl here: \(currentVersion)") }
        return try RunReport.runAndFinish(
            checks, title: "crosscheck vectors check", options: report,
            properties: [("crosscheck.seed", String(seed)), ("crosscheck.implementations", peers.map(\.name).joined(separator: ",")),
                         ("vectors.directory", directory.path), ("vectors.openssl.recorded", recorded),
                         ("vectors.openssl.current", currentVersion), ("swift.openssl", OpenSSLInfo.version)],
            footer: ["seed \(seed); rerun with --seed \(seed) to reproduce"])
    }

    static func locate(_ path: String?) throws -> OpenSSLTool {
        do { return try OpenSSLTool.locate(path) } catch {
            throw CommandExit(.unavailable, "crosscheck: \(error)")
        }
    }
}
