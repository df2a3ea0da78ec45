// Sessions — the `sessions` suite: whole conversations (rsa-socket both directions, aes-https
// login + encrypted echo) for every client × server pairing of the implementations, in process
// (machines called directly, TCP splits replayed) and over loopback TCP/TLS with PythonRef servers
// in their own processes; server probes; the pinned client's refusals (seed 002).
// May import: Conformance (the core), WireCrypto, WireProtocol, Transport, PythonBridge.
import Foundation
import Conformance

public enum SessionSuite {
    public static let name = "sessions"
    public static let summary = "rsa-socket and aes-https conversations for every client × server pairing (Swift, Python), in-process and over loopback TCP/TLS: both directions, framings, paddings, key modes; server probes; the four pinning refusals"

    public static func checks(_ run: SuiteContext, options: SessionOptions) -> [Check] {
        let context = SessionContext(run, options: options)
        if let seat = options.teamServer { return TeamServerSessionChecks.checks(context, seat: seat) }
        return RSASocketSessionChecks.checks(context) + ServerConformanceChecks.checks(context) + LoopbackSessionChecks.checks(context)
            + AESHTTPSSessionChecks.checks(context) + SeedAppSessionChecks.checks(context)
    }
}
