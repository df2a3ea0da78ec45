import Foundation

/// A checked-in list of checks that fail for a known reason (the seed apps' own bugs), kept honest
/// the way BoGo's shim config and pytest's strict xfail keep theirs: a listed check that fails is
/// reported as skipped `known: <reason>`; a listed check that *passes* fails the run ("known failure
/// fixed: remove the entry"); an entry that matches no check at all is an error (a stale list).
public struct KnownFailures: Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        /// A check's full name (`crosscheck.<profile>.<relation>.<name>`), `*` matching any run of characters.
        public let pattern: String
        /// Why it fails, in words a reviewer can check.
        public let reason: String
        /// The seed line responsible.
        public let seed: String

        public init(pattern: String, reason: String, seed: String) { self.pattern = pattern; self.reason = reason; self.seed = seed }

        public func matches(_ fullName: String) -> Bool { Glob.matches(pattern, fullName) }
    }

    /// What is wrong with a list file.
    public struct LoadError: Error, Equatable, CustomStringConvertible {
        public let path: String
        public let problem: String
        public var description: String { "\(path): \(problem)" }
    }

    public let entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// Reads `{"known_failures": [{"pattern", "reason", "seed"}, …]}`; every field required and non-empty,
    /// no unknown fields, no pattern twice.
    public static func load(from url: URL) throws -> KnownFailures {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw LoadError(path: url.path, problem: "no such file, or not readable")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], Set(object.keys) == ["known_failures"],
              let list = object["known_failures"] as? [[String: Any]] else {
            throw LoadError(path: url.path, problem: "not {\"known_failures\": [{\"pattern\", \"reason\", \"seed\"}, …]}")
        }
        var entries: [Entry] = []
        for (index, item) in list.enumerated() {
            guard Set(item.keys) == ["pattern", "reason", "seed"], let pattern = item["pattern"] as? String, let reason = item["reason"] as? String,
                  let seed = item["seed"] as? String, !pattern.isEmpty, !reason.isEmpty, !seed.isEmpty else {
                throw LoadError(path: url.path, problem: "entry \(index + 1) must have exactly non-empty \"pattern\", \"reason\" and \"seed\"")
            }
            guard !entries.contains(where: { $0.pattern == pattern }) else {
                throw LoadError(path: url.path, problem: "entry \(index + 1) repeats the pattern '\(pattern)'")
            }
            entries.append(Entry(pattern: pattern, reason: reason, seed: seed))
        }
        return KnownFailures(entries: entries)
    }

    public func entry(for fullName: String) -> Entry? { entries.first { $0.matches(fullName) } }

    /// Failures of listed checks become skipped `known: …`; passes of listed checks become failures.
    public func apply(to results: [CheckResult]) -> [CheckResult] { results.map(apply) }

    public func apply(to result: CheckResult) -> CheckResult {
        guard let entry = entry(for: result.check.fullName) else { return result }
        switch result.outcome {
        case let .failed(message, _), let .error(message, _):
            return CheckResult(check: result.check, outcome: .skipped(reason: "known: \(entry.reason) (\(entry.seed)); failed with: \(message.prefix(300))"),
                               duration: result.duration)
        case .passed:
            return CheckResult(check: result.check, outcome: .failed(
                message: "known failure fixed: this check passes now; remove the entry '\(entry.pattern)' from the known-failures list",
                details: "entry: \(entry.reason) (\(entry.seed))"), duration: result.duration)
        case .skipped:
            return result
        }
    }

    /// Entries that match none of `fullNames` (every check the catalog defines).
    public func stale(among fullNames: [String]) -> [Entry] {
        entries.filter { entry in !fullNames.contains(where: entry.matches) }
    }
}

/// `*` matches any run of characters (also none); everything else matches itself. Compared as
/// UTF-8 bytes, with one backtrack point (the last `*`): every check of a run (15,000 with the
/// Wycheproof suite) is matched against every entry, and splitting strings per call cost 8 % of
/// the suite's time.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        let star = UInt8(ascii: "*")
        let p = Array(pattern.utf8), t = Array(text.utf8)
        var pi = 0, ti = 0
        var lastStar: Int?, resume = 0  // after the last `*`: the pattern position, and where in the text it took up
        while ti < t.count {
            if pi < p.count, p[pi] == star {
                lastStar = pi; resume = ti; pi += 1
            } else if pi < p.count, p[pi] == t[ti] {
                pi += 1; ti += 1
            } else if let lastStar {
                resume += 1; ti = resume; pi = lastStar + 1  // the `*` takes one more byte
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == star { pi += 1 }
        return pi == p.count
    }
}
