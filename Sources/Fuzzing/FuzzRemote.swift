import Foundation
import Conformance
import Frames
import Transport
import WireCrypto
import WireProtocol

/// Malformed rsa-socket frames to a live server over TCP (`crosscheck fuzz --target HOST:PORT`).
///
/// Each frame goes on a fresh connection: written whole (a tail 64 KiB at a time, only while the
/// server still reads), then the write side is shut, and everything the server answers is read
/// until it closes, under the deadline. The answer must be what PythonRef's server machine answers
/// in-process with the target's configuration and key: for a malformed frame exactly
/// `Server: ERROR` (after the server's key message, if the frame began with a hello) and a close —
/// never silence, never a close without the error. Ciphertexts are compared by class (length, and
/// the plaintext when a known key decrypts them). A server on OpenSSL ≥ 3.2 (`--remote-rejection
/// implicit`) acknowledges a bad PKCS#1 v1.5 padding with a synthetic plaintext, and PythonRef's
/// answer is then made the same way, byte for byte. After each family a good conversation must still
/// work (liveness). A reset after the answer counts as the close.
public final class FuzzRemote: @unchecked Sendable {
    public struct Target: Sendable {
        public var host: String
        public var port: UInt16
        public var framing: Framing
        public var padding: RSAEncryptionPadding
        public var digest: Bool
        /// The server's private key, when known; without it only client-key frames are sent.
        public var serverKeyPEM: Data?
        public var maxMessage: Int
        /// What the server's library does with a bad PKCS#1 v1.5 padding: PythonRef's answer is made the same way.
        public var rejection: RSARejection
        /// The padding the server encrypts with for pi-to-phone, when it differs from `padding`
        /// (e.g. PKCS#1 v1.5 for an app that decrypts only that, OAEP for what the server decrypts).
        public var piToPhonePadding: RSAEncryptionPadding?
        /// `crosscheck fuzz --server`: the team's server in this process instead of host:port.
        public var inProcess: (any InProcessServer)?
        /// How reproducers name the in-process server (`server=FILE.py:NAME`), for `crosscheck replay`.
        public var inProcessSpec = ""

        public init(host: String, port: UInt16, framing: String, padding: String, digest: Bool, serverKeyPEM: Data?, maxMessage: Int,
                    rejection: RSARejection = .explicit) throws {
            guard let framing = Framing(rawValue: framing) else { throw PeerFailure(.badInput, "unknown framing '\(framing)' (legacy or framed)") }
            self.host = host; self.port = port; self.framing = framing; self.rejection = rejection
            self.padding = try RSAEncryptionPadding(name: padding)
            self.digest = digest; self.serverKeyPEM = serverKeyPEM; self.maxMessage = maxMessage
        }

        public var address: String {
            if inProcess != nil { return "server=\(inProcessSpec)" }
            return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }

        /// A fresh connection: TCP, or a socket pair to the in-process server.
        func connect(timeout: TimeInterval) throws -> TCPConnection {
            if let inProcess { return try inProcess.connect(timeout: timeout) }
            return try TCPConnection.connect(host: host, port: port, timeout: timeout)
        }
    }

    public let target: Target
    public let families: [FrameFamily]
    let options: FuzzOptions
    let generator: FrameGenerator
    let oracle: FuzzOracle
    let keyName: String

    public init(target: Target, corpus: FuzzCorpus, python: PythonPeer, swift: CryptoPeer, options: FuzzOptions) throws {
        self.target = target
        self.options = options
        var corpus = corpus
        if let pem = target.serverKeyPEM {
            corpus = corpus.adding(try FuzzKey(name: "remote", privateKeyPEM: pem))
            keyName = "remote"
            families = options.families.filter { $0.reachesServer && ($0 != .framed || target.framing == .framed) }
        } else {
            keyName = FuzzCorpus.keyNames[0]
            families = options.families.filter { $0 == .clientKey }
        }
        guard !families.isEmpty else {
            throw PeerFailure(.badInput, "no family to send to \(target.address): the server-directed ones are \(FrameFamily.allCases.filter(\.reachesServer).map(\.rawValue).joined(separator: ", ")), and all but rsa-socket.client-key need --remote-key")
        }
        let overrides = ["framing": target.framing.rawValue, "padding": target.padding.description, "digest": target.digest ? "1" : "0",
                         "chunk": "0", "maxMessage": String(target.maxMessage), "key": keyName]
        generator = FrameGenerator(corpus: corpus, seed: options.seed, families: families, overrides: overrides)
        oracle = FuzzOracle(swift: swift, python: python, corpus: corpus)
    }

    /// Every family's share of the frames, each followed by a liveness conversation.
    public func run(shouldStop: @escaping () -> Bool = { false }, progress: @escaping (FuzzReport) -> Void = { _ in }) -> FuzzReport {
        var total = FuzzReport(seed: options.seed, target: target.address, plant: options.plant)
        let started = Date()
        if let failure = liveness() {
            total.failures.append(livenessFailure(family: families[0], before: true, reason: failure))
            total.elapsed = Date().timeIntervalSince(started)
            total.peakResidentKiB = FuzzCampaign.peakResidentKiB()
            return total
        }
        for (position, family) in families.enumerated() {
            if shouldStop() { total.stopped = true; break }
            let perFamily = options.frames / families.count + (position < options.frames % families.count ? 1 : 0)
            guard perFamily > 0 else { continue }
            let campaign = FuzzCampaign(generator: generator, options: options, oracle: verdicts)
            let part = campaign.run(jobs: perFamily, shouldStop: shouldStop, progress: { partial in
                var merged = total
                merged.frames += partial.frames
                merged.elapsed = Date().timeIntervalSince(started)
                progress(merged)
            }) { (family, $0) }
            total.frames += part.frames
            total.stats[family] = part.stats[family]
            total.failures += part.failures
            total.stopped = total.stopped || part.stopped
            if let reason = liveness() {
                total.failures.append(livenessFailure(family: family, before: false, reason: reason))
                total.stats[family, default: FamilyStats()].crashes += 1
                break  // a server that stopped answering makes every later frame fail the same way
            }
        }
        total.elapsed = Date().timeIntervalSince(started)
        total.peakResidentKiB = FuzzCampaign.peakResidentKiB()
        return total
    }

    private func livenessFailure(family: FrameFamily, before: Bool, reason: String) -> DistinctFailure {
        let expected = FuzzVerdict.accepted("good conversation", detail: "server-ok, server-stopped")
        let actual = FuzzVerdict.crashed("liveness", note: reason)
        return DistinctFailure(family: family, kind: "liveness", swiftSummary: expected.summary, pythonSummary: actual.summary, count: 1,
                               example: FuzzFrame(family: family, mutator: before ? "liveness-before-fuzzing" : "liveness-after-family",
                                                  bytes: Data(), setting: FuzzSetting()),
                               ordinal: -1, swift: expected, python: actual)
    }

    /// (what PythonRef's machine answers in-process, what the target answered).
    public func verdicts(_ frame: FuzzFrame) -> (swift: FuzzVerdict, python: FuzzVerdict) {
        let expectedSends: [Data]
        let padding = padding(for: frame)
        do {
            let machine = try oracle.makeMachine(frame.family, usePython: true, key: oracle.corpus.key(keyName), padding: padding,
                                                 framing: target.framing, maxMessage: target.maxMessage, digest: target.digest, plaintext: Data(),
                                                 rejection: target.rejection)
            expectedSends = FuzzOracle.feed(machine, frame: frame, chunk: 0).compactMap { if case let .send(bytes) = $0 { return bytes } else { return nil } }
        } catch {
            let verdict = FuzzVerdict.crashed("harness", note: "in-process reference: \(error)")
            return (verdict, verdict)
        }
        let expected = wireVerdict(expectedSends, closed: "closed", padding: padding)
        let answer = exchange(frame)
        // Cut the received bytes where the expected messages end, so each is compared by its class.
        var actualSends: [Data] = []
        var rest = answer.received
        for sent in expectedSends where !rest.isEmpty {
            actualSends.append(Data(rest.prefix(sent.count)))
            rest = Data(rest.dropFirst(sent.count))
        }
        if !rest.isEmpty { actualSends.append(rest) }
        var actual = wireVerdict(actualSends, closed: answer.closed, padding: padding)
        actual.note = answer.note
        if answer.closed == "connection refused" { actual.outcome = .crashed; actual.summary = "server unreachable" }
        // An in-process server's own code raising or blocking on this frame is a crash, with its traceback.
        if let problem = target.inProcess?.checkEnded().first {
            actual = .crashed("server \(problem.kind.rawValue)", note: "\(problem.message)\n\(problem.details)")
        }
        return (expected, actual)
    }

    /// The server's padding for the conversation `frame` opens: pi-to-phone when it starts with the client's key.
    func padding(for frame: FuzzFrame) -> RSAEncryptionPadding {
        guard let piToPhone = target.piToPhonePadding else { return target.padding }
        let start = target.framing == .framed ? frame.bytes.dropFirst(4) : frame.bytes.drop { $0 == 0x0d || $0 == 0x0a }
        return start.starts(with: Data(RSASocket.keyPrefix.utf8)) ? piToPhone : target.padding
    }

    private func wireVerdict(_ sends: [Data], closed: String, padding: RSAEncryptionPadding) -> FuzzVerdict {
        let described = sends.map { oracle.describeSend($0, framed: target.framing == .framed, padding: padding) }
        return FuzzVerdict(outcome: described.contains { $0.name == "ERROR" } ? .rejected : .accepted,
                           summary: "sent [\(described.map(\.name).joined(separator: ","))] \(closed)",
                           detail: "sent [\(described.map(\.detail).joined(separator: ", "))] \(closed)")
    }

    /// Sends one frame on a fresh connection; what came back and how the connection ended
    /// (`closed`, `reset`, `no close within N s`, `connection refused`).
    func exchange(_ frame: FuzzFrame) -> (received: Data, closed: String, note: String) {
        let connection: TCPConnection
        do { connection = try target.connect(timeout: options.deadline) } catch {
            return (Data(), "connection refused", "\(error)")
        }
        defer { connection.close() }
        var received = Data()
        var ended: String?
        var notes: [String] = []
        func drain(_ timeout: TimeInterval) {
            while ended == nil {
                do {
                    let data = try connection.read(upTo: 65_536, timeout: timeout)
                    if data.isEmpty { ended = "closed"; return }
                    received += data
                    if received.count > 1 << 20 { ended = "over 1 MiB answered"; return }
                } catch TransportError.timedOut, TransportError.peerAwaitsInput {
                    return
                } catch TransportError.connectionReset {
                    ended = "closed"; notes.append("reset"); return
                } catch {
                    ended = "closed"; notes.append("\(error)"); return
                }
            }
        }
        do {
            try connection.write(frame.bytes, timeout: options.deadline)
            if let tail = frame.tail {
                var remaining = tail.count
                let piece = Data(repeating: tail.byte, count: 65_536)
                while remaining > 0, ended == nil {
                    let count = min(remaining, piece.count)
                    try connection.write(piece.prefix(count), timeout: options.deadline)
                    remaining -= count
                    drain(0.001)
                }
            }
            connection.shutdownWrite()
        } catch {
            notes.append("write: \(error)")  // the server stopped reading: its answer is what counts
        }
        let deadline = Date().addingTimeInterval(options.deadline)
        while ended == nil, Date() < deadline { drain(max(0.01, deadline.timeIntervalSinceNow)) }
        return (received, ended ?? String(format: "no close within %.1f s", options.deadline), notes.joined(separator: "; "))
    }

    /// A good phone-to-pi conversation with the target; nil when it worked, else what went wrong.
    func liveness() -> String? {
        let client = RSASocketClient(config: RSASocketClientConfig(direction: .phoneToPi, padding: target.padding, framing: target.framing,
                                                                  maxMessage: target.maxMessage, digest: target.digest,
                                                                  plaintext: Data("liveness check".utf8)))
        let connection: TCPConnection
        do { connection = try target.connect(timeout: options.deadline) } catch {
            return "cannot connect: \(error)"
        }
        let outcome = SocketDriver.drive(client, over: connection, quietGap: 0.3, timeout: options.deadline, deadline: options.deadline * 2)
        connection.close()
        if let problem = target.inProcess?.checkEnded().first { return "\(problem.message)\n\(problem.details)" }
        let ok = outcome.events.contains { if case let .serverOK(_, verified) = $0 { return verified != false } else { return false } }
        guard ok, outcome.events.contains(.serverStopped) else {
            return "the conversation ended with events \(outcome.events)\(outcome.transportError.map { ", transport: \($0)" } ?? "")"
        }
        return nil
    }
}
