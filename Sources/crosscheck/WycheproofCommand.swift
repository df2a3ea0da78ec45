import Foundation
import Conformance
import Vectors
import Reports
import WireCrypto

/// `crosscheck wycheproof FILE...`: any Wycheproof file of the four schemas, on either or both
/// implementations.
enum WycheproofCommand: Command {
    static let name = "wycheproof"
    static let abstract = "Run Wycheproof test-vector files (RSA PKCS#1/OAEP decryption, AEAD, IND-CPA) against the implementations."
    static var usage: String {
        """
        USAGE: crosscheck wycheproof [--impl swift|python|both] [--junit PATH] [--quiet] FILE...

        Runs every vector of each FILE, of the Wycheproof schemas
          \(WycheproofFile.Schema.allCases.map { $0.rawValue.replacingOccurrences(of: ".json", with: "") }.joined(separator: "\n  ")).
        valid vectors must decrypt to msg (and, for deterministic ciphers, encrypt back to ct); invalid ones
        must fail and release nothing; acceptable ones pass either way, their outcome recorded. Vectors the
        implementations or the CryptoKit combined format cannot express (an IV other than 96 bits, a tag
        other than 128 bits, an unknown hash) are skipped with the reason. Files flagging InvalidPkcs1Padding
        or InvalidOaepPadding also get an oracle check: every such vector must fail the same way.
        A file the strict loader cannot read is reported as an error testcase.

        OPTIONS:
        \(ImplementationChoice.help)
          --junit PATH        also write a JUnit report (testcase <file>.tc<tcId>; flags, comment, outcome as properties)
          --quiet             no progress lines, only the summary
        \(PythonOptions.help)
          -h, --help          show this help

        EXIT STATUS: 0 no failures (skips allowed), 1 a vector failed or a file did not load, 64 usage error,
        69 environment not ready, 73 report not writable, 130 interrupted.
        """
    }

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        let implementations = try ImplementationChoice(&arguments)
        let junitPath = try arguments.option("--junit")
        let quiet = arguments.flag("--quiet")
        let python = try PythonOptions(&arguments)
        let files = try arguments.positionals()
        guard !files.isEmpty else { throw CommandExit.usage("name at least one Wycheproof FILE", command: self) }

        let peers = try implementations.peers(python)
        let ledger = WycheproofLedger()
        let checks = WycheproofChecks.checks(files: files.map { URL(fileURLWithPath: $0) }, peers: peers, ledger: ledger)
        let finished = try CheckSession.run(
            checks, title: "crosscheck wycheproof", quiet: quiet, junitPath: junitPath,
            properties: [("crosscheck.implementations", peers.map(\.name).joined(separator: ",")),
                         ("crosscheck.files", files.joined(separator: " ")), ("swift.openssl", OpenSSLInfo.version)],
            caseProperties: { result in
                ledger.outcome(suite: result.check.suite, name: result.check.name).map { [JUnitProperty(name: "outcome", value: $0)] } ?? []
            })
        printSkipReasons(finished.results)
        printAcceptable(finished.results, ledger: ledger)
        return finished.exitCode
    }

    /// Why vectors were skipped: per file and kind of reason, with the count per implementation.
    static func printSkipReasons(_ results: [CheckResult]) {
        var counts: [String: [String: Int]] = [:]  // "file: kind of reason" -> suite -> count
        var examples: [String: String] = [:]
        for result in results {
            guard case let .skipped(reason) = result.outcome else { continue }
            let file = result.check.properties["file"] ?? result.check.suite
            let key = "\(file): \(result.check.properties["skip"] ?? reason)"
            counts[key, default: [:]][result.check.suite, default: 0] += 1
            if examples[key] == nil, result.check.properties["skip"] != nil { examples[key] = reason }
        }
        guard !counts.isEmpty else { return }
        print("Skipped, by reason:")
        for (reason, perSuite) in counts.sorted(by: { $0.key < $1.key }) {
            let tally = Set(perSuite.values).count == 1
                ? "\(perSuite.values.first!) × on \(perSuite.count == 1 ? perSuite.keys.first! : "each of \(perSuite.count) suites")"
                : perSuite.sorted { $0.key < $1.key }.map { "\($0.value) × on \($0.key)" }.joined(separator: ", ")
            print("  \(tally): \(reason)\(examples[reason].map { " (e.g. \($0))" } ?? "")")
        }
    }

    /// What each implementation did with `acceptable` vectors (they pass either way).
    static func printAcceptable(_ results: [CheckResult], ledger: WycheproofLedger) {
        let acceptable = results.filter { $0.check.properties["result"] == "acceptable" }
        guard !acceptable.isEmpty else { return }
        print("Acceptable vectors (conformant either way), outcomes:")
        for result in acceptable {
            print("  \(result.check.suite) \(result.check.name): \(ledger.outcome(suite: result.check.suite, name: result.check.name) ?? "not run")")
        }
    }
}
