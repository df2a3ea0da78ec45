import Foundation
import Conformance
import Vectors
import WireCrypto

/// `crosscheck vectors generate|check`: the OpenSSL command-line vectors in `Vectors/openssl/`.
enum VectorsCommand: Command {
    static let name = "vectors"
    static let abstract = "Generate Vectors/openssl/ with the openssl command, or check both implementations and the CLI against it."
    static var usage: String {
        """
        USAGE: crosscheck vectors generate [--dir DIR] [--openssl PATH] [--key-sizes LIST]
               crosscheck vectors check [--dir DIR] [--openssl PATH] [--impl swift|python|both] [--seed N] [--junit PATH] [--quiet]

        generate  writes RSA keys (PKCS#8, PKCS#1, encrypted PKCS#8, SPKI PEM/DER, PKCS#1 public), pkeyutl and
                  rsautl ciphertexts, AES-CBC ciphertexts (openssl enc -K … -iv …) and manifest.json, with the
                  openssl command only; replaces DIR once everything is made. AES-CBC outputs are identical
                  on every run; RSA outputs are random.
        check     verifies DIR against its manifest (edited, missing and unlisted files are reported, never
                  regenerated), has the implementations import every key and decrypt every ciphertext, and
                  has openssl pkeyutl decrypt what they encrypt to each public key.

        OPTIONS:
          --dir DIR           the vector folder (default: Vectors/openssl of this checkout, or $CROSSCHECK_VECTORS/openssl)
          --openssl PATH      the openssl command (default: $CROSSCHECK_OPENSSL, else openssl on PATH)
          --key-sizes LIST    generate: comma-separated RSA sizes (default \(VectorGenerator.defaultKeySizes.map(String.init).joined(separator: ",")))
        \(ImplementationChoice.help)
          --seed N            check: seed for the plaintexts sent to the CLI (default random; reported)
          --junit PATH        check: also write a JUnit report
          --quiet             check: no progress lines, only the summary
        \(PythonOptions.help)
          -h, --help          show this help

        EXIT STATUS: 0 success, 1 a check failed, 64 usage error, 69 openssl or Python missing,
        73 the vectors or the report could not be written, 130 interrupted.
        """
    }

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        let rest = arguments.remaining
        guard let action = rest.first, ["generate", "check"].contains(action) else {
            throw CommandExit.usage("say 'generate' or 'check' first", command: self)
        }
        arguments = Arguments(Array(rest.dropFirst()), command: self)
        let directory = try arguments.option("--dir").map { URL(fileURLWithPath: $0) } ?? ProjectFiles.locate().openSSL
        let opensslPath = try arguments.option("--openssl")
        return action == "generate"
            ? try generate(&arguments, directory: directory, opensslPath: opensslPath)
            : try check(&arguments, directory: directory, opensslPath: opensslPath)
    }

    static func generate(_ arguments: inout Arguments, directory: URL, opensslPath: String?) throws -> ExitCode {
        var sizes = VectorGenerator.defaultKeySizes
        if let list = try arguments.option("--key-sizes") {
            let parsed = list.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !parsed.isEmpty, parsed.allSatisfy({ $0.map { (1024...16384).contains($0) && $0 % 8 == 0 } ?? false }) else {
                throw CommandExit.usage("--key-sizes takes sizes in bits from 1024 to 16384, like 1024,2048", command: self)
            }
            sizes = parsed.compactMap { $0 }
        }
        try arguments.noPositionals()
        let openssl = try locate(opensslPath)
        let started = Date()
        let manifest: VectorManifest
        do { manifest = try VectorGenerator(openssl: openssl, keySizes: sizes).generate(into: directory) } catch {
            throw CommandExit(code: .cannotCreate, message: "crosscheck vectors generate: \(error)")
        }
        let count = { (kind: VectorManifest.Kind) in manifest.files.filter { $0.kind == kind }.count }
        print("wrote \(manifest.files.count) files to \(directory.path) with \(manifest.opensslVersion) in \(String(format: "%.1f", Date().timeIntervalSince(started)))s:")
        print("  \(count(.rsaPrivateKey)) private and \(count(.rsaPublicKey)) public key files (RSA \(sizes.map(String.init).joined(separator: ", ")))")
        print("  \(count(.rsaCiphertext)) RSA ciphertexts (random: checked by decryption)")
        print("  \(count(.aesCBCCiphertext)) AES-CBC ciphertexts (deterministic: identical on every regeneration)")
        print("  \(count(.plaintext)) plaintexts; manifest.json records every file's sha256 and command line")
        return .success
    }

    static func check(_ arguments: inout Arguments, directory: URL, opensslPath: String?) throws -> ExitCode {
        let implementations = try ImplementationChoice(&arguments)
        let seed = try arguments.integer("--seed", as: UInt64.self) ?? UInt64.random(in: 1...999_999)
        let junitPath = try arguments.option("--junit")
        let quiet = arguments.flag("--quiet")
        let python = try PythonOptions(&arguments)
        try arguments.noPositionals()

        let openssl = Result { try OpenSSLTool.locate(opensslPath) }.mapError { $0 as? OpenSSLToolError ?? .notFound("\($0)") }
        let currentVersion = (try? openssl.get().version()) ?? "unavailable"
        let peers = try implementations.peers(python)
        let checks = VectorChecks.checks(directory: directory, peers: peers, openssl: openssl, seed: seed)
        let recorded = (try? VectorManifest.load(from: directory).opensslVersion) ?? "unknown"
        if !quiet { printError("vectors in \(directory.path): made with \(recorded); openssl here: \(currentVersion)") }
        let finished = try CheckSession.run(
            checks, title: "crosscheck vectors check", quiet: quiet, junitPath: junitPath,
            properties: [("crosscheck.seed", String(seed)), ("crosscheck.implementations", peers.map(\.name).joined(separator: ",")),
                         ("vectors.directory", directory.path), ("vectors.openssl.recorded", recorded),
                         ("vectors.openssl.current", currentVersion), ("swift.openssl", OpenSSLInfo.version)])
        print("seed \(seed); rerun with --seed \(seed) to reproduce")
        return finished.exitCode
    }

    static func locate(_ path: String?) throws -> OpenSSLTool {
        do { return try OpenSSLTool.locate(path) } catch {
            throw CommandExit(code: .unavailable, message: "crosscheck: \(error)")
        }
    }
}
