import Foundation

/// Profiles (the seed systems) × relations (who talks to whom), with the pass / fail / skip /
/// known counts of the testcases in each cell: the table at the top of the HTML report.
///
/// Both come from the testcase classname `crosscheck.<profile>.<relation>` and the suite name:
/// - `swift_to_python` and `swift_client.python_server` are swift → python, and the reverse;
/// - a relation or suite that names `openssl` (and `openssl-cli` profile checks such as the
///   manifest) is OpenSSL CLI;
/// - a relation or suite that names `app` (an `app.*` suite) is the app under test;
/// - `remote.*` and `audit.*` suites, `crosscheck.remote.<profile>` classnames and relations that
///   name `remote` are remote targets;
/// - `wycheproof.*` suites are Wycheproof vectors; `*_vs_*` relations are byte-for-byte and
///   differential (fuzz) comparisons; same-language pairings and `<impl>_server` probes are
///   controls and probes; anything else is other.
public struct CoverageMatrix: Sendable {
    public enum Relation: String, CaseIterable, Sendable {
        case swiftToPython = "swift → python"
        case pythonToSwift = "python → swift"
        case openSSL = "OpenSSL CLI"
        case app = "app under test"
        case remote = "remote targets"
        case comparison = "swift vs python"
        case wycheproof = "Wycheproof vectors"
        case controls = "controls & probes"
        case other = "other"

        /// The columns shown even when empty: what a reader looks for first.
        public var isHeadline: Bool { [.swiftToPython, .pythonToSwift, .openSSL, .app, .remote].contains(self) }
    }

    public struct Counts: Sendable, Equatable {
        public var pass = 0
        public var fail = 0
        public var error = 0
        /// Skips that are not known problems.
        public var skip = 0
        public var known = 0
        public var total: Int { pass + fail + error + skip + known }
        /// Failures and errors: what makes a cell red.
        public var problems: Int { fail + error }

        mutating func add(_ verdict: Verdict) {
            switch verdict {
            case .pass: pass += 1
            case .fail: fail += 1
            case .error: error += 1
            case .skip: skip += 1
            case .known: known += 1
            }
        }
    }

    public struct Cell: Hashable, Sendable {
        public let profile: String
        public let relation: Relation
    }

    /// Rows in display order: known profiles first, then others alphabetically.
    public let profiles: [String]
    /// Columns in display order: the headline ones always, the rest when they have testcases.
    public let relations: [Relation]
    public let cells: [Cell: Counts]

    public init(_ report: JUnitReport) {
        var cells: [Cell: Counts] = [:]
        for suite in report.suites {
            for testCase in suite.cases {
                let cell = Self.cell(classname: testCase.classname, suite: suite.name)
                cells[cell, default: Counts()].add(testCase.outcome.verdict)
            }
        }
        let used = Set(cells.keys.map(\.profile))
        profiles = Self.knownProfiles.map(\.name).filter(used.contains) + used.subtracting(Self.knownProfiles.map(\.name)).sorted()
        let usedRelations = Set(cells.keys.map(\.relation))
        relations = Relation.allCases.filter { $0.isHeadline || usedRelations.contains($0) }
        self.cells = cells
    }

    public func counts(_ profile: String, _ relation: Relation) -> Counts { cells[Cell(profile: profile, relation: relation)] ?? Counts() }

    public func rowTotal(_ profile: String) -> Counts { total(cells.filter { $0.key.profile == profile }.values) }
    public func columnTotal(_ relation: Relation) -> Counts { total(cells.filter { $0.key.relation == relation }.values) }
    public var total: Counts { total(cells.values) }

    private func total<S: Sequence>(_ counts: S) -> Counts where S.Element == Counts {
        counts.reduce(into: Counts()) { sum, next in
            sum.pass += next.pass; sum.fail += next.fail; sum.error += next.error; sum.skip += next.skip; sum.known += next.known
        }
    }

    /// The profiles of docs/PROTOCOL.md and the seed systems each stands for.
    public static let knownProfiles: [(name: String, seeds: String)] = [
        ("rsa-socket", "seed 000: RSA over a raw TCP socket"),
        ("aes-https", "seeds 001, 002: AES-CBC envelopes over pinned HTTPS"),
        ("sealed", "seeds 003, 004: CryptoKit sealed boxes"),
        ("keys", "key formats, exported by one side, imported by the other"),
        ("openssl-cli", "seed 000 §2: keys and ciphertexts of the openssl command"),
        ("wycheproof", "loading the Wycheproof files"),
    ]

    public static func seeds(of profile: String) -> String? { knownProfiles.first { $0.name == profile }?.seeds }

    public static func cell(classname: String, suite: String) -> Cell {
        let parts = classname.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        var profile = "other"
        var relation = classname
        if parts.count == 3, parts[0] == "crosscheck" {
            profile = parts[1]
            relation = parts[2]
        }
        if profile == "remote" {
            // crosscheck.remote.<profile>: the relation is the remote target.
            profile = relation.split(separator: ".").first.map(String.init) ?? relation
            return Cell(profile: profile, relation: .remote)
        }
        let suiteKind = suite.split(separator: ".").first.map(String.init) ?? suite
        let tokens = Set(relation.split(whereSeparator: { $0 == "_" || $0 == "." || $0 == "-" }).map(String.init))
        if suiteKind == "remote" || suiteKind == "audit" || tokens.contains("remote") {
            return Cell(profile: profile, relation: .remote)
        }
        if suiteKind == "app" || tokens.contains("app") { return Cell(profile: profile, relation: .app) }
        if suiteKind == "wycheproof" || tokens.contains("wycheproof") { return Cell(profile: profile, relation: .wycheproof) }
        if tokens.contains("openssl") || profile == "openssl-cli" { return Cell(profile: profile, relation: .openSSL) }
        if let (from, to) = direction(relation) {
            if from == "swift" && to == "python" { return Cell(profile: profile, relation: .swiftToPython) }
            if from == "python" && to == "swift" { return Cell(profile: profile, relation: .pythonToSwift) }
            if from == to { return Cell(profile: profile, relation: .controls) }
            return Cell(profile: profile, relation: .other)
        }
        if relation.contains("_vs_") { return Cell(profile: profile, relation: .comparison) }
        if relation.hasSuffix("_server") { return Cell(profile: profile, relation: .controls) }
        return Cell(profile: profile, relation: .other)
    }

    /// "swift_to_python" → (swift, python); "python_client.swift_server" → (python, swift).
    static func direction(_ relation: String) -> (String, String)? {
        if let range = relation.range(of: "_to_") {
            return (String(relation[..<range.lowerBound]), String(relation[range.upperBound...]))
        }
        let parts = relation.split(separator: ".").map(String.init)
        if parts.count == 2, parts[0].hasSuffix("_client"), parts[1].hasSuffix("_server") {
            return (String(parts[0].dropLast("_client".count)), String(parts[1].dropLast("_server".count)))
        }
        return nil
    }
}
