// RoundTrip — the `roundtrip` suite: every primitive in both directions (one implementation
// encrypts, the other decrypts), keys exported by one side and imported by the other, tamper cases
// both must refuse, and byte-for-byte comparisons of every deterministic output.
// May import: Conformance (the core), WireCrypto. Nothing that does I/O.
import Foundation
import Conformance

public enum RoundTripSuite {
    public static let name = "roundtrip"
    public static let summary = "every primitive both ways (Swift→Python, Python→Swift), key formats, tamper cases, byte-for-byte comparisons"

    public static func checks(_ context: SuiteContext) -> [Check] {
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
