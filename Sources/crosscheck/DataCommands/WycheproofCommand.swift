import Foundation
import CommandLineKit
import Conformance
import Vectors
import Reports
import WireCrypto

/// `crosscheck wycheproof FILE...`: any Wycheproof file of the schemas `WycheproofFile` reads, on
/// either or both implementations.
struct WycheproofCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "wycheproof", abstract: "Run Wycheproof test-vector files (RSA PKCS#1/OAEP decryption, AEAD, IND-CPA, signatures, ECDH/X25519, HKDF) against the implementations.",
        synopsis: ["[--impl swift|python|both] [--junit PATH] [--quiet] FILE..."],
        discussion: """
        Runs every vector of each FILE, of the Wycheproof schemas
          \(WycheproofFile.Schema.allCases.map { $0.rawValue.replacingOccurrences(of: ".json", with: "") }.joined(separator: "\n  ")).
        valid vectors must decrypt to msg (and, for deterministic ciphers, encrypt back to ct); invalid ones
        must fail and release nothing; acceptable ones pass either way, their outcome recorded. Signatures:
        valid ones must verify, invalid ones must not. ECDH, X25519 and HKDF: valid vectors must give exactly
        the shared secret or okm, invalid ones must be refused, and an acceptable one that gives bytes must
        give those. Vectors the
        implementations or the CryptoKit combined format cannot express (an IV other than 96 bits, a tag
        other than 128 bits, an unknown hash) are skipped with the reason. Files flagging InvalidPkcs1Padding
        or InvalidOaepPadding also get an oracle check: every such vector must fail the same way.
        The schema files themselves live in Vectors/wycheproof/schemas/.
        """,
        exitCodes: [.success, .checksFailed, .usage, .noInput, .unavailable, .cannotCreate, .interrupted],
        exitNotes: [.checksFailed: "a vector failed, or a file the strict loader refuses (an error testcase says where and why)",
                    .noInput: "a FILE is missing or unreadable"])

    @Option(name: "--impl", value: "WHICH", help: "swift, python or both")
    var implementations = Implementations.both
    @OptionGroup var report: ReportOptions
    @OptionGroup var files: FilesOptions
    @Positionals(value: "FILE...", help: "Wycheproof test files (*_test.json)")
    var paths: [String]
    init() {}

    func validate() throws {
        guard !paths.isEmpty else { throw UsageError("name at least one Wycheproof FILE") }
    }

    func run() throws -> ExitCode {
        var loaded: [URL] = []
        for path in paths {
            let url = URL(fileURLWithPath: path)
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw CommandExit(.noInput, "crosscheck wycheproof: \(path): no such file, or not readable")
            }
            loaded.append(url)
        }
        let peers = try implementations.peers(files)
        let ledger = WycheproofLedger()
        let checks = WycheproofChecks.checks(files: loaded, peers: peers, ledger: ledger)
        return try RunReport.runAndFinish(
            checks, title: "crosscheck wycheproof", options: report,
            properties: [("crosscheck.implementations", peers.map(\.name).joined(separator: ",")),
                         ("crosscheck.files", paths.joined(separator: " ")), ("swift.openssl", OpenSSLInfo.version)],
            caseProperties: { result in
                ledger.outcome(suite: result.check.suite, name: result.check.name).map { [JUnitProperty(name: "outcome", value: $0)] } ?? []
            },
            notes: { results in Self.skipReasons(results) + Self.acceptable(results, ledger: ledger) })
    }

    /// Why vectors were skipped: per file and kind of reason, with the count per implementation.
    static func skipReasons(_ results: [CheckResult]) -> [String] {
        var counts: [String: [String: Int]] = [:]  // "file: kind of reason" -> suite -> count
        var examples: [String: String] = [:]
        for result in results {
            guard case let .skipped(reason) = result.outcome else { continue }
            let file = result.check.properties["file"] ?? result.check.suite
            let key = "\(file): \(result.check.properties["skip"] ?? reason)"
            counts[key, default: [:]][result.check.suite, default: 0] += 1
            if examples[key] == nil, result.check.properties["skip"] != nil { examples[key] = reason }
        }
        guard !counts.isEmpty else { return [] }
        var lines = ["Skipped, by reason:"]
        for (reason, perSuite) in counts.sorted(by: { $0.key < $1.key }) {
            let tally = Set(perSuite.values).count == 1
                ? "\(perSuite.values.first!) × on \(perSuite.count == 1 ? perSuite.keys.first! : "each of \(perSuite.count) suites")"
                : perSuite.sorted { $0.key < $1.key }.map { "\($0.value) × on \($0.key)" }.joined(separator: ", ")
            lines.append("  \(tally): \(reason)\(examples[reason].map { " (e.g. \($0))" } ?? "")")
        }
        return lines
    }

    /// What each implementation did with `acceptable` vectors (they pass either way): one line per
    /// vector, or per outcome where more than three vectors of a suite share it (ECDH files have
    /// hundreds).
    static func acceptable(_ results: [CheckResult], ledger: WycheproofLedger) -> [String] {
        let acceptable = results.filter { $0.check.properties["result"] == "acceptable" }
        guard !acceptable.isEmpty else { return [] }
        var groups: [(key: String, results: [CheckResult])] = []
        for result in acceptable {
            let key = "\(result.check.suite)\u{0}\(ledger.outcome(suite: result.check.suite, name: result.check.name) ?? "not run")"
            if let index = groups.firstIndex(where: { $0.key == key }) { groups[index].results.append(result) } else { groups.append((key, [result])) }
        }
        return ["Acceptable vectors (conformant either way), outcomes:"] + groups.flatMap { group -> [String] in
            let parts = group.key.split(separator: "\u{0}", maxSplits: 1).map(String.init)
            let (suite, outcome) = (parts[0], parts.count > 1 ? parts[1] : "")
            guard group.results.count > 3 else { return group.results.map { "  \(suite) \($0.check.name): \(outcome)" } }
            let ids = group.results.map { $0.check.properties["tcId"] ?? $0.check.name }
            return ["  \(suite) \(group.results.count) vectors: \(outcome) (tcId \(ids.joined(separator: ", ")))"]
        }
    }
}
