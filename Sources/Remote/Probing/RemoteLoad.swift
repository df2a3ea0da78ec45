import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// A bounded load: `conversations` known-good rsa-socket conversations, `parallel` at once, against
/// one target. For measuring a server (conversations per second), never for flooding one: the
/// count is fixed and every conversation runs under the run's deadlines.
public enum RemoteLoad {
    public struct Measurement: Sendable {
        public var completed: Int
        public var seconds: Double
        public var firstFailure: String?
    }

    public static func run(_ target: ServerAddress, options: RemoteOptions, conversations: Int, parallel: Int) -> Measurement {
        let address: String
        do { address = try HostResolver.resolve(target.host, timeout: options.timeout) } catch {
            return Measurement(completed: 0, seconds: 0, firstFailure: "\(error)")
        }
        let padding = options.padding ?? .oaepSHA256
        let direction = options.directions.first ?? .phoneToPi
        let counter = LoadTally()
        let start = Date()
        DispatchQueue.concurrentPerform(iterations: parallel) { worker in
            // Each worker has its own run and client keys: nothing mutable is shared between threads.
            let probe = RemoteRSASocket(RemoteRun(target: target, address: address, options: options, shouldStop: { false }, progress: { _ in }))
            var index = worker
            while index < conversations {
                do {
                    _ = try probe.expectConversation(direction, padding: padding, keyBits: options.keyBits.first ?? 2048)
                    counter.success()
                } catch {
                    counter.failure("\(error)")
                }
                index += parallel
            }
        }
        return Measurement(completed: counter.completed, seconds: Date().timeIntervalSince(start), firstFailure: counter.firstFailure)
    }
}
