import Foundation

/// The suites `crosscheck run` knows, by name.
public enum SuiteCatalog {
    public struct Entry: Sendable {
        public let name: String
        public let summary: String
        let build: @Sendable (SuiteContext) -> [Check]
    }

    public static let entries: [Entry] = [
        Entry(name: "roundtrip",
              summary: "every primitive both ways (Swift→Python, Python→Swift), key formats, tamper cases, byte-for-byte comparisons",
              build: roundTrip),
        Entry(name: "vectors",
              summary: "Vectors/openssl/: the CLI's keys and ciphertexts into both implementations, theirs into openssl pkeyutl",
              build: vectors),
        Entry(name: "wycheproof",
              summary: "the vendored Wycheproof files (RSA PKCS#1/OAEP, AES-GCM, ChaCha20-Poly1305, AES-CBC) on both implementations",
              build: wycheproof),
        Entry(name: "sessions",
              summary: "rsa-socket and aes-https conversations for every client × server pairing (Swift, Python), in-process and over loopback TCP/TLS: both directions, framings, paddings, key modes; server probes; the four pinning refusals",
              build: { RSASocketSessionChecks.checks($0) + ServerConformanceChecks.checks($0) + LoopbackSessionChecks.checks($0)
                  + AESHTTPSSessionChecks.checks($0) }),
        Entry(name: "fuzz",
              summary: "differential fuzzing: 10,000 malformed frames (with the run's seed) to both implementations, one testcase per frame family; reproducers in reports/fuzz-failures/",
              build: { FuzzSuite.checks($0) }),
    ]

    public static var names: [String] { entries.map(\.name) }

    /// The checks of the named suites, in order; unknown names are a usage error for the caller.
    public static func checks(for names: [String], context: SuiteContext) -> [Check] {
        entries.filter { names.contains($0.name) }.flatMap { $0.build(context) }
    }

    static func roundTrip(_ context: SuiteContext) -> [Check] {
        var checks: [Check] = []
        for (sender, receiver) in context.directions {
            let suite = "roundtrip.\(sender.name)_to_\(receiver.name)"
            checks += RSARoundTrips.checks(context, sender: sender, receiver: receiver, suite: suite)
            checks += SymmetricRoundTrips.checks(context, sender: sender, receiver: receiver, suite: suite)
            checks += KeyFormatChecks.checks(context, sender: sender, receiver: receiver, suite: suite)
        }
        checks += Comparisons.checks(context, suite: "roundtrip.\(context.swift.name)_vs_\(context.python.name)")
        return checks
    }
}
