import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// `crosscheck remote --protocol FILE` (and `run --server … --protocol FILE`): a server that speaks
/// a described protocol, checked from outside with the Swift engine as its client.
///
/// For every conversation: it completes; what no correct server can accept is refused (and the
/// server still answers afterwards); on every RSA step, invalid paddings of every class get one
/// answer (Bleichenbacher, CRYPTO '98; Manger, CRYPTO 2001; RFC 8017 §7.2.2 note: a decryption
/// must not tell a wrong padding from another); on every CBC step, a bad padding gets the answer a
/// good padding with a bad plaintext gets (Vaudenay, EUROCRYPT 2002); the server's IVs, nonces and
/// session secrets are fresh for each conversation (NIST SP 800-38A appendix C: CBC IVs
/// unpredictable; SP 800-38D §8: a GCM nonce never repeats under a key). What the description
/// itself chooses that is weak is reported in the audit suite (skipped; failed with `strict`).
public enum DescribedRemote {
    public struct Options: Sendable {
        public var timeout: TimeInterval = 10
        /// legacy framing: the silence that ends a message of unknown length.
        public var quietGap: TimeInterval = 0.3
        public var strict = false
        public var seed: UInt64 = 1
        /// `--timing N`: N interleaved latency samples per oracle class and a signed-rank test,
        /// reported in the audit suite; never a verdict.
        public var timingSamples: Int?
        /// `username`, `password` (and anything a `config` value names).
        public var config: [String: String] = ["username": "user", "password": "password"]
        /// Preshared secrets (`made_by = "preshared"`), by name.
        public var secrets: [String: Data] = [:]
        /// Preshared public keys the server holds (`preshared = true`), by name.
        public var publicKeys: [String: RSAPublicKey] = [:]
        /// Preshared private keys the client holds, by name.
        public var privateKeys: [String: RSAPrivateKey] = [:]
        /// The same for `type = "ec-p256"` keys.
        public var curvePublicKeys: [String: CurvePublicKey] = [:]
        public var curvePrivateKeys: [String: CurvePrivateKey] = [:]
        public init() {}
    }

    /// Every check against `target`; never throws: a problem is a testcase that says what to do.
    /// Once `shouldStop` answers true (SIGINT), no further conversation starts: the check under way
    /// is left out, no later one runs, and the results so far are returned (a partial report).
    public static func run(_ description: ProtocolDescription, target: DescribedTarget, options: Options,
                           shouldStop: @escaping () -> Bool = { false },
                           progress: @escaping (CheckResult) -> Void = { _ in }) -> [CheckResult] {
        check(description, target: target, options: options, shouldStop: shouldStop, progress: progress).results
    }

    /// `run`, and the check after which the server took no more connections (nil: it still does),
    /// so that what runs after it (the app as a client) is not blamed for what a probe did.
    public static func check(_ description: ProtocolDescription, target: DescribedTarget, options: Options,
                             shouldStop: @escaping () -> Bool = { false },
                             progress: @escaping (CheckResult) -> Void = { _ in }) -> (results: [CheckResult], downSince: String?) {
        let run = DescribedRemoteRun(description: description, target: target, options: options, shouldStop: shouldStop, progress: progress)
        run.checkAll()
        return (run.results, run.downSince)
    }
}

extension DescribedRemote {
    /// What `remote --protocol FILE --load N` measured.
    public struct LoadMeasurement: Sendable {
        public var completed: Int
        public var seconds: Double
        public var firstFailure: String?
    }

    /// `conversations` runs of the description's first conversation, `parallel`
    /// at once, each a whole conversation as the Swift client party holds it to the description:
    /// how many completed, and in what time. Each worker has its own run and parties: nothing
    /// mutable is shared between threads but the tally.
    public static func load(_ description: ProtocolDescription, target: DescribedTarget, options: Options, conversations: Int, parallel: Int,
                            shouldStop: @escaping @Sendable () -> Bool = { false }) -> LoadMeasurement {
        let name = description.conversations[0].name
        let tally = LoadTally()
        let start = Date()
        DispatchQueue.concurrentPerform(iterations: max(1, min(parallel, conversations))) { worker in
            let run = DescribedRemoteRun(description: description, target: target, options: options, shouldStop: shouldStop, progress: { _ in })
            var index = worker
            while index < conversations, !shouldStop() {
                do {
                    let live = try run.converse(name)
                    if live.completed { tally.success() } else {
                        tally.failure(live.party.refusal?.reason ?? live.transportError ?? "the server stopped before the conversation's last step")
                    }
                } catch {
                    tally.failure("\(error)")
                }
                index += parallel
            }
        }
        return LoadMeasurement(completed: tally.completed, seconds: Date().timeIntervalSince(start), firstFailure: tally.firstFailure)
    }
}

/// One conversation with the live server, as far as it went.
struct LiveConversation {
    var party: DescribedParty
    /// The server's answers, one per client message that got one (bytes as read, or a response).
    var answers: [DescribedMessage] = []
    /// The server closed the connection.
    var closedByServer = false
    /// A transport problem or deadline that ended it early.
    var transportError: String?
    /// With `stopAfter`: the client party took the server's last answer as the one a correct
    /// message gets.
    var answerAccepted = false
    /// Bytes the server sent after the description's last message (before closing or going quiet).
    var extraBytes: Data?
    /// With `stopAfter`: the server's answer to the last message sent (nil: none came — it closed,
    /// or stayed silent). Every probe is judged by this, never by an earlier message.
    var probeAnswer: DescribedMessage?
    /// HTTP: the reason phrase of that answer's status line (`400 Bad Padding` tells as much as a body).
    var probeReason: String?
    /// With `stopAfter`: seconds from sending the last message to the first byte of the server's
    /// answer, or to its close (`--timing`: latency statistics, never a verdict).
    var probeLatency: TimeInterval?
    /// The description's last server step closes, and the server kept the connection open.
    var stayedOpen = false
    /// With `stopAfter` on a message the server does not answer directly: it answered (or closed)
    /// before message N, the next of ours, was sent.
    var answeredBefore: Int?
    var completed: Bool { party.isDone && party.refusal == nil && transportError == nil }

    /// An HTTP answer a client takes as a success: a 2xx that is not a refusal the description
    /// declares (`errors`: a 200 may be one).
    func isSuccess(status: Int, body: Data) -> Bool {
        (200..<300).contains(status) && party.declaredRefusalKind(status: status, body: body) == nil
    }
}

final class DescribedRemoteRun {
    let description: ProtocolDescription
    let target: DescribedTarget
    let options: DescribedRemote.Options
    let progress: (CheckResult) -> Void
    let shouldStop: () -> Bool
    /// Interrupted: nothing more is run or recorded.
    private(set) var stopped = false
    /// Whether the run is interrupted (latched: once asked and true, it stays so).
    var interrupted: Bool {
        if !stopped, shouldStop() { stopped = true }
        return stopped
    }
    private(set) var results: [CheckResult] = []
    /// The check after which the server took no more connections: the later ones are not run (each
    /// would fail for that one cause, "connection refused", and say nothing of its own).
    var downSince: String?
    var suite: String { if case let .inProcess(server) = target.place { return "server.\(server.name)" }; return "remote.\(target)" }
    var auditSuite: String { if case let .inProcess(server) = target.place { return "audit.\(server.name)" }; return "audit.\(target)" }
    var classname: String { "crosscheck.described.\(description.name).remote" }

    init(description: ProtocolDescription, target: DescribedTarget, options: DescribedRemote.Options,
         shouldStop: @escaping () -> Bool, progress: @escaping (CheckResult) -> Void) {
        self.description = description; self.target = target; self.options = options; self.shouldStop = shouldStop; self.progress = progress
    }

    /// Thrown by `converse` once the run is interrupted, so that a long audit ends at its next probe.
    struct Interrupted: Error {}

    func record(_ name: String, suite: String? = nil, _ outcome: CheckOutcome, duration: TimeInterval) {
        if interrupted { return }
        let check = Check(suite: suite ?? self.suite, classname: suite == nil ? classname : "crosscheck.described.\(description.name).audit", name: name) { outcome }
        let result = CheckResult(check: check, outcome: outcome, duration: duration)
        results.append(result)
        progress(result)
    }

    /// Runs `body` as the testcase `name`: a thrown `CheckFailure` fails it, anything else is an error.
    func step(_ name: String, _ body: () throws -> CheckOutcome) {
        if let downSince {
            record(name, .skipped(reason: "not run: the server has taken no connections since \(downSince) took it down"), duration: 0)
            return
        }
        if interrupted { return }
        let start = Date()
        let outcome: CheckOutcome
        do { outcome = try body() } catch is Interrupted {
            stopped = true
            return
        } catch let failure as CheckFailure {
            outcome = .failed(message: failure.message, details: failure.details)
        } catch {
            outcome = .error(message: "\(error)", details: "")
        }
        record(name, outcome, duration: Date().timeIntervalSince(start))
    }

    /// A weakness: skipped in the audit suite, failed with --strict.
    func finding(_ name: String, _ message: String) {
        record(name, suite: auditSuite, options.strict ? .failed(message: message, details: "") : .skipped(reason: "weak: \(message)"), duration: 0)
    }

    // MARK: the checks

    func checkAll() {
        for (number, weakness) in description.weaknesses.enumerated() { finding("description.\(number + 1).\(findingName(weakness))", weakness) }
        if description.transport.kind != .https, description.hasSecretInTheClear {
            finding("description.secret-in-the-clear", "a secret travels in a `secret` value over \(description.transport.kind.rawValue), without TLS: anyone on the network reads it")
        }
        for cipher in description.unauthenticatedCiphers {
            finding("description.no-integrity.\(cipher.name)", "\(cipher.said) has no MAC: a changed ciphertext decrypts to a changed plaintext (and CBC to a padding oracle, unless every error looks alike)")
        }
        for conversation in description.conversations {
            var first: LiveConversation?
            step("\(conversation.name).conversation") {
                let live = try converse(conversation.name)
                first = live
                return try judgeCompleted(live, conversation)
            }
            guard let known = first, known.completed, known.extraBytes == nil, !known.stayedOpen else { continue }  // nothing else can be judged
            // Many tutorial servers accept once, or die when their client closes: every later probe
            // would then be blamed for taking them down. A second conversation tells that apart.
            guard servesAgain(conversation) else { continue }
            for key in description.keys.values.sorted(by: { $0.name < $1.name }) where key.holder == .server {
                if let seen = known.party.knownPublicKeys[key.name], seen.bits < 2048 {
                    finding("\(conversation.name).server-key-\(key.name)-bits", "the server's key \(key.name) is \(seen.bits) bits: below today's 2048 (NIST SP 800-57 part 1, table 2)")
                }
            }
            checkRefusals(conversation, known)
            checkCredentials(conversation)
            checkBinarySafety(conversation, known)
            checkPEMSpellings(conversation)
            checkAlsoAccepted(conversation)
            checkSurvivesGarbage(conversation)
            checkOverMaxMessage(conversation)
            checkExponentOneKey(conversation, known)
            checkRSAOracle(conversation, known)
            checkFixedKeyAfterBadPadding(conversation, known)
            checkCBCOracle(conversation, known)
            checkReuse(conversation, known)
            checkAuthenticatedReplay(conversation)
        }
    }

    /// `<conversation>.serves-again`: the same conversation once more, on a new connection. False
    /// when the server no longer takes connections (the probes are not run: nothing could answer them).
    func servesAgain(_ conversation: ProtocolDescription.Conversation) -> Bool {
        var listening = true
        step("\(conversation.name).serves-again") {
            let gone = { (error: Error) in
                listening = false
                return CheckFailure("after one conversation the server no longer takes connections (\(error)): it serves one client, or stops when its client closes — a second client, or the app connecting again, finds nothing; the probes were not run")
            }
            // No bare connect first: a connection that sends nothing takes some of these servers down.
            let again: LiveConversation
            do { again = try conversesAgain(conversation.name) } catch {
                do { try target.connect().close() } catch { throw gone(error) }
                throw error
            }
            guard again.completed else {
                // A server on its way down may still take one connection from its backlog.
                do { try target.connect().close() } catch { throw gone(error) }
                throw CheckFailure("a second conversation, on a new connection, did not complete: \(again.party.refusal?.reason ?? again.transportError ?? "the server stopped before the last step")",
                                   details: show(again))
            }
            return .passed
        }
        return listening
    }

    func findingName(_ weakness: String) -> String {
        let lowered = weakness.lowercased()
        if lowered.contains("1024") { return "rsa-1024" }
        if lowered.contains("pkcs#1 v1.5") { return "rsa-pkcs1" }
        if lowered.contains("fixed iv") { return "fixed-iv" }
        if lowered.contains("ecb") { return "aes-ecb" }
        if lowered.contains("password") { return "password-key" }
        return "weak"
    }

    func judgeCompleted(_ live: LiveConversation, _ conversation: ProtocolDescription.Conversation) throws -> CheckOutcome {
        if let refusal = live.party.refusal {
            // The description's own refusal to a correct client: say so first, what the client made of it after.
            if case let .bytes(data)? = live.answers.last, conversation.isRefusal(data) {
                throw CheckFailure("the server refused the correct client's message with the description's error \(DescribedMessage.bytes(data).summary) — the two sides do not speak the same protocol (the client read: \(refusal.reason))", details: show(live))
            }
            let answer = live.answers.last.map { " (it answered \($0.summary))" } ?? ""
            throw CheckFailure("the server's answer is not what the description says: \(refusal.reason)\(answer)", details: show(live))
        }
        if let problem = live.transportError { throw CheckFailure("the conversation did not complete: \(problem)", details: show(live)) }
        guard live.party.isDone else { throw CheckFailure("the server stopped before the conversation's last step", details: show(live)) }
        if live.stayedOpen {
            throw CheckFailure("the server kept the connection open after its last message; the description says it closes (then = \"close\")", details: show(live))
        }
        if let extra = live.extraBytes {
            throw CheckFailure("the server sent \(extra.count) bytes more than the description's last message: \(DescribedMessage.bytes(extra).summary)", details: show(live))
        }
        // Nothing the server sends after the client's last message: nothing shows it understood
        // (docs/PROTOCOL.md: without proof a case is passed-unverified, not passed).
        if conversation.steps.last?.from == .client {
            // Nothing to judge the answer by (whether the server still takes connections: serves-again).
            return .skipped(reason: "unverified: the description has the server answer nothing after the client's last message, so nothing shows it decrypted it (a server that dropped it would pass the same)")
        }
        // Answers that only repeat what the server received show as little: an echo needs no key.
        let serverValues = conversation.steps.filter { $0.from == .server }.compactMap { $0.send ?? $0.body }
        if !serverValues.isEmpty, serverValues.allSatisfy({ $0.kind == .repeatReceived }) {
            return .skipped(reason: "unverified: the server's answers repeat what it received (repeat = \"received\"), which needs no key, so nothing shows it decrypted it")
        }
        return .passed
    }

    // MARK: driving one conversation

    /// A fresh client party: the preshared keys and secrets of the options, and the run's own client key pairs.
    func client(_ conversation: String, message: Data? = nil, config: [String: String]? = nil) throws -> DescribedParty {
        let (rsa, curve) = try clientKeys()
        return try DescribedParty(description: description, conversation: conversation, role: .client,
                                  privateKeys: rsa, knownPublicKeys: options.publicKeys,
                                  curvePrivateKeys: curve, knownCurvePublicKeys: options.curvePublicKeys, secrets: options.secrets,
                                  message: message, config: config ?? options.config)
    }

    /// The key pairs the client holds, made once for the run (as an app keeps its key pair, and as
    /// the profiles' remote run does): a probe is judged by the server's answer, never by the
    /// freshness of the client's key, and an RSA key made for each of a run's conversations was
    /// most of its time (13 s against the 2 s of the profile on the same server).
    private var madeKeys: (rsa: [String: RSAPrivateKey], curve: [String: CurvePrivateKey])?
    func clientKeys() throws -> (rsa: [String: RSAPrivateKey], curve: [String: CurvePrivateKey]) {
        if let madeKeys { return madeKeys }
        var (rsa, curve) = (options.privateKeys, options.curvePrivateKeys)
        for key in description.keys.values.sorted(by: { $0.name < $1.name }) where key.holder == .client {
            switch key.type {
            case .rsa where rsa[key.name] == nil:
                do { rsa[key.name] = try key.freshRSAKey() } catch { throw DescriptionError.partySetup(reason: "cannot make key \(key.name): \(error)") }
            case .ecP256, .ecP384, .x25519:
                guard curve[key.name] == nil else { break }
                do { curve[key.name] = try CurvePrivateKey(fresh: key.type) } catch { throw DescriptionError.partySetup(reason: "cannot make key \(key.name): \(error)") }
            default: break
            }
        }
        madeKeys = (rsa, curve)
        return (rsa, curve)
    }

    /// One conversation with the server. `replace(index, party)` may set the party's probe, or
    /// return other bytes for the client's message `index` (0-based, client messages only); after
    /// `stopAfter` client messages the conversation ends with the server's answer to the last.
    /// `probe` is set on the party just before it builds client message `probe.at`.
    /// `waitBeforeNext`: on a socket, how long to wait after the probed message for an answer before
    /// sending the client's next one, where the server answers only later (default: a quiet gap).
    /// `unframed`: on a socket, the (replaced) client message at this index goes on the wire as it
    /// is, not framed — a probe of the framing itself.
    func converse(_ conversation: String, stopAfter: Int? = nil, probe: (at: Int, probe: DescribedParty.Probe)? = nil,
                  message: Data? = nil, config: [String: String]? = nil, waitBeforeNext: TimeInterval? = nil, unframed: Int? = nil,
                  replace: (Int, DescribedParty, DescribedMessage) throws -> DescribedMessage = { _, _, message in message }) throws -> LiveConversation {
        if interrupted { throw Interrupted() }
        var live = LiveConversation(party: try client(conversation, message: message, config: config))
        let next: (Int, DescribedParty) -> Void = { sent, party in if let probe, probe.at == sent { party.probe = probe.probe } }
        if description.transport.isHTTP {
            try converseHTTP(&live, stopAfter: stopAfter, beforeBuilding: next, replace: replace)
        } else {
            try converseTCP(&live, stopAfter: stopAfter, waitBeforeNext: waitBeforeNext, unframed: unframed, beforeBuilding: next, replace: replace)
        }
        return live
    }

    /// The description's own conversation, to show the server is still there after a probe: once
    /// more when the first one ended because a value the server sent could not be read while the
    /// server went on (a separated value read one byte short by chance: about one conversation in
    /// 60 with "::", kmilogp8496/seguridad on the corpus). A server that is down, or that the probe
    /// broke for good, fails both; one bad value is not "bad input takes it down".
    func conversesAgain(_ conversation: String) throws -> LiveConversation {
        let first = try converse(conversation)
        guard !first.completed, first.party.refusal != nil, first.transportError == nil, !first.closedByServer,
              let described = description.conversations.first(where: { $0.name == conversation }),
              let last = first.answers.last, wentOn(last, in: first, described) else { return first }
        return try converse(conversation)
    }

    /// An answer that is not a refusal: HTTP 2xx that the description does not declare a refusal; on a
    /// socket, bytes that are not the conversation's `error`/`errors` (the stop-49 review, F2: a server
    /// that refuses a correct message once after a probe is not given a second try).
    private func wentOn(_ answer: DescribedMessage, in live: LiveConversation, _ conversation: ProtocolDescription.Conversation) -> Bool {
        switch answer {
        case let .response(status, _, body):
            return live.isSuccess(status: status, body: body)
        case let .bytes(data):
            return !data.isEmpty && !conversation.isRefusal(data)
        case .request:
            return false
        }
    }

    /// The server's last answer is the one a correct message gets: HTTP 2xx; on a socket, what the
    /// client party takes as the description's next server message.
    func acknowledged(_ live: LiveConversation, _ conversation: ProtocolDescription.Conversation) -> Bool {
        switch live.probeAnswer {
        case let .response(status, _, body)?: return live.isSuccess(status: status, body: body)
        case .bytes?: return live.answerAccepted
        default: return false
        }
    }

    /// The server's last answer is something, and not a refusal: not 4xx/5xx, and on a socket not the
    /// description's `error` (an answer the party does not take, such as a digest of the wrong
    /// plaintext, still counts: the server went on as if it had decrypted).
    func wentOn(_ live: LiveConversation, _ conversation: ProtocolDescription.Conversation) -> Bool {
        switch live.probeAnswer {
        case let .response(status, _, body)?: return live.isSuccess(status: status, body: body)
        case let .bytes(data)?:
            if data.isEmpty { return false }
            if !conversation.refusalTexts.isEmpty { return !conversation.isRefusal(data) }
            return live.answerAccepted
        default: return false
        }
    }

    private func converseHTTP(_ live: inout LiveConversation, stopAfter: Int?, beforeBuilding: (Int, DescribedParty) -> Void,
                              replace: (Int, DescribedParty, DescribedMessage) throws -> DescribedMessage) throws {
        var sent = 0
        while true {
            beforeBuilding(sent, live.party)
            guard let next = try live.party.nextMessage() else { break }
            let message = try replace(sent, live.party, next)
            sent += 1
            guard case let .request(method, path, headers, body) = message else { break }
            let response: HTTPResponse
            let requested = Date()
            do { response = try target.exchange(HTTPRequest(method: method, path: path, headers: headers, body: body), tls: description.transport.kind == .https) } catch {
                live.transportError = "\(method) \(path): \(error)"
                return
            }
            let answer = DescribedMessage.response(status: response.status, headers: response.headers, body: response.body)
            live.answers.append(answer)
            if let stopAfter, sent >= stopAfter {
                (live.probeAnswer, live.probeReason) = (answer, response.reason)
                live.probeLatency = Date().timeIntervalSince(requested)
            }
            do { try live.party.receive(answer) } catch is DescribedRefusal { return }
            if let stopAfter, sent >= stopAfter { live.answerAccepted = true; return }
        }
    }

    private func converseTCP(_ live: inout LiveConversation, stopAfter: Int?, waitBeforeNext: TimeInterval?, unframed: Int?, beforeBuilding: (Int, DescribedParty) -> Void,
                             replace: (Int, DescribedParty, DescribedMessage) throws -> DescribedMessage) throws {
        let connection: TCPConnection
        do { connection = try target.connect() } catch {
            live.transportError = "cannot connect: \(error)"
            return
        }
        defer { connection.close() }
        let framing = DescribedFraming(transport: description.transport)
        var decoder = framing.decoder()
        var sent = 0
        let end = Date().addingTimeInterval(options.timeout * 3)
        while !live.party.isDone {
            // Every message it is the client's turn to send.
            var previousNeedsPause = false
            while true {
                beforeBuilding(sent, live.party)
                let position = live.party.stepIndex
                guard let next = try live.party.nextMessage() else { break }
                let message = try replace(sent, live.party, next)
                // Legacy framing: a message of no known length and the next one of ours are told
                // apart only by a pause (as a phone's separate sends are): wait one quiet gap.
                if previousNeedsPause { Thread.sleep(forTimeInterval: options.quietGap * 2) }
                if let conversation = live.party.conversation { previousNeedsPause = description.pauseAfter(in: conversation).contains(position) }
                sent += 1
                guard case let .bytes(bytes) = message else { break }
                if message != next { live.party.sentInstead(bytes) }
                do { try connection.write(unframed == sent - 1 ? bytes : try framing.encode(bytes), timeout: options.timeout) } catch {
                    // Past a probe, a server that refused it may have closed before reading on: its
                    // answer to the probe is still there to read. So too for a probe of the framing
                    // that the server refused before taking all of it (a reset mid-write).
                    if let stopAfter, sent > stopAfter { break }
                    if unframed == sent - 1, !(error is DescribedRefusal), !Self.isTimeout(error) { break }
                    live.transportError = "writing message \(sent): \(error)"
                    return
                }
                if framing.kind == .close { connection.shutdownWrite() }  // the close ends our message
                // A probe in a message the server does not answer directly (an RSA-wrapped key before
                // the first sealed message): what comes before our next message is its answer to the
                // probe itself, and when it comes tells probes apart as its bytes do (a server that
                // refuses a bad padding at once and a good one only at the next message is an oracle).
                if let stopAfter, sent == stopAfter, live.party.nextStepIsOurs {
                    let wait = max(waitBeforeNext ?? 0, previousNeedsPause ? options.quietGap * 2 : options.quietGap)
                    switch Self.readOrClose(connection, timeout: wait) {
                    case let .bytes(chunk):
                        live.answeredBefore = sent + 1
                        decoder.append(chunk)
                    case .closed:
                        live.answeredBefore = sent + 1
                        live.closedByServer = true
                        return
                    case .quiet:
                        previousNeedsPause = false  // the wait was the pause
                        continue
                    }
                    break
                }
            }
            if live.party.isDone { break }
            let probing = stopAfter.map { sent >= $0 } ?? false
            let probeSent = Date()
            func answerBegins() { if probing, live.probeLatency == nil { live.probeLatency = Date().timeIntervalSince(probeSent) } }
            // The server's next message: read until the framing says it is whole, or a quiet gap ends it.
            var message: Data?
            answer: while message == nil {
                guard Date() < end else { live.transportError = "no answer within \(Int(options.timeout * 3)) s"; return }
                // A probe's answer may be a refusal of another length: only a quiet gap or a close ends it.
                if let whole = try? decoder.next(expectedLength: probing ? nil : live.party.expectedLength) { message = whole; break answer }
                // Only legacy framing ends a message at a quiet gap; a framed one may pause midway
                // (a slow board, a Wi-Fi stall) and is waited for up to the deadline.
                let gapEnds = decoder.pending > 0 && decoder.endsAtQuietGap
                switch Self.readOrClose(connection, timeout: gapEnds ? options.quietGap : options.timeout) {
                case let .bytes(chunk):
                    answerBegins()
                    decoder.append(chunk)
                case let .quiet(awaitsInput):
                    if gapEnds, let rest = decoder.quietGap() { message = rest; break answer }
                    live.transportError = decoder.pending > 0
                        ? "the server sent \(decoder.pending) bytes of a message the framing does not end, then nothing for \(Int(options.timeout)) s"
                        : awaitsInput ? "the server waits for input the description does not send"
                                      : "the server sent nothing for \(Int(options.timeout)) s"
                    return
                case .closed:
                    answerBegins()
                    live.closedByServer = true
                    if decoder.pending > 0, let rest = decoder.endOfStream() { message = rest; break answer }
                    return
                }
            }
            guard let message else { return }
            live.answers.append(.bytes(message))
            if probing {
                live.probeAnswer = .bytes(message)
                // Did it close after answering? (a refusal should)
                // After the description's error a server closes: give it the whole timeout to do so
                // (one that reads on, error_then = "keep-open": a quiet gap shows whether it closed anyway).
                var closesAfterError = false
                if let conversation = live.party.conversation { closesAfterError = conversation.errorThen == .close && conversation.isRefusal(message) }
                if !live.closedByServer, case .closed = Self.readOrClose(connection, upTo: 1, timeout: closesAfterError ? options.timeout : options.quietGap) {
                    live.closedByServer = true
                }
                live.answerAccepted = (try? live.party.receive(.bytes(message))) != nil
                return
            }
            do { try live.party.receive(.bytes(message)) } catch is DescribedRefusal {
                // A message read to the length the description expects may be longer ("Server: ERROR"
                // where "Server: OK" was due): what follows before a quiet gap belongs to it in the report.
                var rest = decoder.quietGap() ?? Data()
                if !live.closedByServer, let more = try? connection.read(upTo: 65536, timeout: options.quietGap) { rest += more }
                if !rest.isEmpty { live.answers[live.answers.count - 1] = .bytes(message + rest) }
                return
            }
        }
        // Done: whatever is left, or comes before the close, is more than the description says. A
        // description whose last server step closes is given the timeout to close in.
        var rest = decoder.quietGap() ?? Data()
        let closes = live.party.conversation?.steps.last.map { $0.from == .server && $0.closes } ?? false
        // The client's last step closes (`then = "close"`): close our side as the description says, and
        // read until the server closes too — what it sends first is more than the description says, however
        // slow the link (a quiet gap would end the read before a stalled answer arrives).
        let clientCloses = live.party.isDone && live.party.conversation?.steps.last.map { $0.from == .client && $0.closes } ?? false
        if clientCloses { connection.shutdownWrite() }
        let until = Date().addingTimeInterval(closes || clientCloses ? options.timeout : options.quietGap)
        reading: while !live.closedByServer, Date() < until {
            switch Self.readOrClose(connection, timeout: max(0.01, until.timeIntervalSinceNow)) {
            case let .bytes(more): rest += more
            case .quiet: break reading
            case .closed: live.closedByServer = true
            }
        }
        if !rest.isEmpty { live.extraBytes = rest }
        if closes, !live.closedByServer, rest.isEmpty { live.stayedOpen = true }
    }

    /// What one read of a live server's connection saw.
    enum ReadOutcome {
        case bytes(Data)
        /// Nothing before the timeout; `awaitsInput`: the connection says the server waits for us.
        case quiet(awaitsInput: Bool)
        /// The server closed, or reset: a server that closes with our later message unread (it refused
        /// an earlier one) makes its kernel answer RST, not FIN, and that is a close too (RFC 1122 §4.2.2.13).
        case closed
    }

    static func isTimeout(_ error: any Error) -> Bool {
        if case TransportError.timedOut? = error as? TransportError { return true }
        return false
    }

    static func readOrClose(_ connection: TCPConnection, upTo limit: Int = 65536, timeout: TimeInterval) -> ReadOutcome {
        do {
            let chunk = try connection.read(upTo: limit, timeout: timeout)
            return chunk.isEmpty ? .closed : .bytes(chunk)
        } catch TransportError.timedOut {
            return .quiet(awaitsInput: false)
        } catch TransportError.peerAwaitsInput {
            return .quiet(awaitsInput: true)
        } catch {
            return .closed
        }
    }

    func show(_ live: LiveConversation) -> String {
        var lines = live.answers.enumerated().map { "server answer \($0.offset + 1): \($0.element.summary)" }
        if live.closedByServer { lines.append("the server closed the connection") }
        if let problem = live.transportError { lines.append(problem) }
        return lines.joined(separator: "\n")
    }
}

