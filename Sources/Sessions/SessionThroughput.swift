import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// Conversations per second, for `make bench`: whole rsa-socket conversations (phone-to-pi, framed,
/// OAEP-SHA256, RSA-2048, digest on) in process and over loopback TCP.
public enum SessionThroughput {
    public struct Setup {
        let context: SessionContext
        let plan = RSASocketSessionChecks.Plan(direction: .phoneToPi, framing: .framed, padding: .oaepSHA256, bits: 2048, digest: true)
        public init(context: SuiteContext, options: SessionOptions) { self.context = SessionContext(context, options: options) }
    }

    /// In-process conversations per second between `client` and `server` machines.
    public static func inProcess(_ setup: Setup, client: SessionFactory, server: SessionFactory, seconds: Double) throws -> Double {
        try measure(seconds) { try conversation(setup, client: client, server: server) }
    }

    /// `count` in-process conversations, unclocked (for `crosscheck-bench`'s profiling loop).
    public static func conversations(_ setup: Setup, client: SessionFactory, server: SessionFactory, count: Int) throws {
        for _ in 0..<count { try conversation(setup, client: client, server: server) }
    }

    private static func conversation(_ setup: Setup, client: SessionFactory, server: SessionFactory) throws {
        let machines = try RSASocketSessionChecks.makeMachines(setup.context, client: client, server: server, plan: setup.plan)
        let transcript = Conversation.run(client: machines.client, server: machines.server)
        try RSASocketSessionChecks.verify(transcript, plan: setup.plan, plaintext: machines.plaintext, client: client.name, server: server.name)
    }

    /// Loopback TCP conversations per second from `client` to the `serverName` server ("swift" or "python").
    public static func loopback(_ setup: Setup, client: SessionFactory, serverName: String, seconds: Double) throws -> Double {
        _ = try LoopbackSessionChecks.serverPort(setup.context, serverName: serverName, plan: setup.plan)  // start it outside the timing
        return try measure(seconds) {
            guard case .passed = try LoopbackSessionChecks.converse(setup.context, client: client, serverName: serverName, plan: setup.plan) else {
                throw CheckFailure("a loopback conversation failed")
            }
        }
    }

    private static func measure(_ seconds: Double, _ body: () throws -> Void) throws -> Double {
        try body()  // warm-up: keys, servers
        let start = Date()
        var count = 0
        while Date().timeIntervalSince(start) < seconds {
            try body()
            count += 1
        }
        return Double(count) / Date().timeIntervalSince(start)
    }
}
