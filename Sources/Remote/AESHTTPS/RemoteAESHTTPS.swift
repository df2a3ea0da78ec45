import Foundation
import Conformance
import PythonBridge
import Transport
import WireCrypto
import WireProtocol
import StrictFormats

/// Everything about an aes-https server observable from outside: the pinned certificate, login,
/// bad credentials and tokens, envelopes in both directions, one answer for every bad envelope,
/// the CBC padding-oracle audit (CBCOracleAudit) and the reuse audit of IVs, keys and tokens
/// (ReuseLedger).
struct RemoteAESHTTPS {
    let run: RemoteRun
    var options: RemoteOptions { run.options }
    let profile = "aes-https"
    /// Every login and every response IV of the run, for the reuse checks.
    let ledger = ReuseLedger()
    /// The run's login request, serialised once: the same bytes for every login (five a run), and
    /// JSONSerialization costs about 70,000 instructions a call.
    let loginRequest: WebRequest

    init(_ run: RemoteRun) {
        self.run = run
        loginRequest = AESHTTPSClient.loginRequest(username: run.options.username, password: run.options.password)
    }

    struct Session {
        let token: String
        let key: Data
        let mode: KeyDerivationMode
    }

    /// The name in the URL: --server-name, else the host as given.
    var urlHost: String { options.serverName ?? run.target.host }
    var baseURL: URL { URL(string: "https://\(urlHost.contains(":") ? "[\(urlHost)]" : urlHost):\(run.target.port)")! }

    /// In-process (`run --server`) there is no TLS: the application answers plain HTTP requests.
    static let noTLSInProcess = "not applicable in-process: the application is called with plain HTTP requests; TLS and pinning are the live server's, checked by crosscheck remote"

    func checkAll() {
        guard let pin = options.pin ?? (options.inProcess == nil ? nil : "") else {
            run.record("liveness.initial", profile: profile, .error(message: "\(RemoteError.missingPin)", details: ""), duration: 0)
            return
        }
        var session: Session?
        run.liveness("liveness.initial", profile: profile, after: "the first connection", first: true) {
            session = try login(pin: pin, step: "liveness.initial")
        }
        run.step("tls.serves-the-pinned-certificate", profile: profile) {
            if options.inProcess != nil { return .skipped(reason: Self.noTLSInProcess) }
            _ = try login(pin: pin, step: "tls.serves-the-pinned-certificate")
            return .passed
        }
        if let foreign = options.foreignCertificate, options.inProcess == nil {
            run.step("tls.pinning-refuses-another-certificate", profile: profile) {
                do {
                    _ = try send(loginRequest, pin: foreign)
                    throw CheckFailure("a client pinned to another certificate accepted the server: the pin is not what protects this connection")
                } catch TransportError.certificateRefused(.unknownIssuer, _) { return .passed }
            }
        }
        run.step("tls.plain-http-refused-by-the-client", profile: profile) {
            if options.inProcess != nil { return .skipped(reason: Self.noTLSInProcess) }
            let client = try PinnedHTTPSClient(pinnedCertificatePath: pin, timeout: options.timeout)
            do {
                _ = try client.send(HTTPRequest(method: "POST", path: "/login"), to: URL(string: "http://\(run.address):\(run.target.port)")!)
                throw CheckFailure("the pinned client sent a request over plain HTTP")
            } catch TransportError.plainHTTPRefused { return .passed }
        }
        run.step("login.wrong-password-gets-401", profile: profile) {
            let answer = try send(AESHTTPSClient.loginRequest(username: options.username, password: options.password + "-wrong"), pin: pin)
            try Expect.equal(answer.status, 401, "status for a wrong password")
            return .passed
        }
        guard let session else { return }
        run.finding("key-mode", weak: session.mode.isWeak, session.mode.isWeak
                    ? "encryptionKey is used as utf8-zeropad16: a password padded with zeros, not a random key"
                    : "encryptionKey is base64 of \(session.key.count * 8)-bit random key bytes")
        run.finding("cbc-without-mac", weak: true, "AES-CBC envelopes carry no MAC: the ciphertext is malleable and padding errors can become an oracle")
        run.step("secure-data.echo-both-directions", profile: profile) {
            let params: [String: PythonValue] = ["probe": "crosscheck", "n": 42]
            let (answer, _) = try exchange(JSONValues.encode(.dict(params)), session: session, pin: pin, step: "secure-data.echo-both-directions")
            guard answer.status == 200 else { throw CheckFailure("secure-data answered \(answer.status)", details: String(decoding: answer.body.prefix(300), as: UTF8.self)) }
            let plaintext: Data
            do { plaintext = try AESHTTPSClient.parseSecure(answer, key: session.key) } catch let error as AESHTTPSClientError {
                // The server's own envelope does not open: it does not conform (a failure, not an error of the check).
                throw CheckFailure("\(error)", details: String(decoding: answer.body.prefix(300), as: UTF8.self))
            }
            guard let echoed = try? JSONValues.decode(plaintext) else {
                throw CheckFailure("the server's envelope decrypts to bytes that are not JSON", details: Expect.preview(plaintext))
            }
            // Only an echo proves the server decrypted our request; the reference server echoes.
            guard echoed["echo"] == .dict(params) else {
                return .skipped(reason: "passed-unverified: the server's answer decrypts to JSON, but it does not echo the request, so what it decrypted cannot be proven")
            }
            return .passed
        }
        run.step("secure-data.unknown-token-gets-401", profile: profile) {
            let request = try AESHTTPSClient.secureRequest(params: Data("{}".utf8), token: String(repeating: "0", count: 32), key: session.key)
            try Expect.equal(try send(request, pin: pin).status, 401, "status for an unknown token")
            var missing = request
            missing.headers["authorization"] = nil
            try Expect.equal(try send(missing, pin: pin).status, 401, "status without a token")
            return .passed
        }
        run.step("secure-data.one-answer-for-every-bad-envelope", profile: profile) { try checkMalformedEnvelopes(session: session, pin: pin) }
        CBCOracleAudit(self, session: session, pin: pin).check()
        run.step("reuse.response-ivs", profile: profile) {
            for index in 0..<4 {
                _ = try exchange(Data("{\"reuse\":\(index)}".utf8), session: session, pin: pin, step: "reuse.response-ivs")
            }
            // One request sent twice, byte for byte: the two answers must still differ (a fresh
            // IV each, so a fresh ciphertext), or an IV derived from the request shows.
            let twice = try AESHTTPSClient.secureRequest(params: Data("{\"reuse\":\"twice\"}".utf8), token: session.token, key: session.key)
            let requestIV = (try? CBCEnvelope(json: twice.body).iv) ?? Data()
            for copy in 1...2 {
                recordResponse(try send(twice, pin: pin), requestIV: requestIV, key: session.key, step: "reuse.response-ivs identical request #\(copy)")
            }
            return ledger.ivOutcome()
        }
        run.step("reuse.logins", profile: profile) {
            for index in 0..<3 { _ = try login(pin: pin, step: "reuse.logins.\(index + 1)") }
            let key = ledger.keyFinding()
            run.finding("encryption-key-per-login", weak: key.weak, key.message)
            let token = ledger.tokenFinding()
            run.finding("token-strength", weak: token.weak, token.message)
            return .passed
        }
        run.liveness("liveness.final", profile: profile, after: "the whole run") { _ = try login(pin: pin, step: "liveness.final") }
    }

    /// Envelopes that are not even the `{"data","iv"}` shape: one 400 for all of them (what
    /// decrypts is the oracle audit's business).
    func checkMalformedEnvelopes(session: Session, pin: String) throws -> CheckOutcome {
        let good = try CBCEnvelope.seal(Data("{\"a\":1}".utf8), key: session.key)
        let bodies: [(String, Data)] = [
            ("body not JSON", Data("{".utf8)),
            ("IV of 15 bytes", CBCEnvelope(ciphertext: good.ciphertext, iv: good.iv.prefix(15)).jsonData),
            ("data not base64", Data("{\"data\":\"*not base64*\",\"iv\":\"\(good.iv.base64EncodedString())\"}".utf8)),
            ("no iv field", Data("{\"data\":\"\(good.ciphertext.base64EncodedString())\"}".utf8)),
        ]
        // Each twice: what varies between the two answers to one body (a request id, a time) is
        // masked before the bodies are compared (ResponseMask).
        var answers: [(String, WebResponse)] = []
        var repeats: [[Data]] = []
        for (name, body) in bodies {
            let request = WebRequest(method: "POST", path: "/secure-data", headers: ["authorization": session.token], body: body)
            let pair = [try send(request, pin: pin), try send(request, pin: pin)]
            answers.append((name, pair[0]))
            repeats.append(pair.map(\.body))
        }
        let mask = ResponseMask(groups: repeats)
        let lines = answers.map { "\($0.0): \($0.1.status) \(String(decoding: $0.1.body.prefix(80), as: UTF8.self))" }.joined(separator: "\n")
        if let odd = answers.first(where: { $0.1.status != 400 }) {
            throw CheckFailure("a bad envelope (\(odd.0)) got status \(odd.1.status), not 400", details: lines)
        }
        let first = answers[0]
        let masked = answers.map { ($0.0, mask.apply($0.1.body)) }
        if let odd = masked.first(where: { $0.1 != masked[0].1 }) {
            throw CheckFailure("bad envelopes get different answers: \(first.0) → \(String(decoding: masked[0].1.prefix(60), as: UTF8.self)), \(odd.0) → \(String(decoding: odd.1.prefix(60), as: UTF8.self))",
                               details: lines + (mask.isEmpty ? "" : "\n(fields that vary between repeats of one body are masked as <varies>)"))
        }
        return .passed
    }

    /// Logs in and derives the key; with no `--key-mode`, the mode is inferred from the key string.
    func login(pin: String, step: String) throws -> Session {
        let answer = try send(loginRequest, pin: pin)
        guard answer.status == 200 else {
            let advice = switch answer.status {
            case 404, 405: "the server has no POST /login (docs/PROTOCOL.md, aes-https): it does not serve this profile's login"
            case 401, 403: "pass the right --user NAME:PASSWORD"
            default: "pass the right --user NAME:PASSWORD if the account is wrong; else see the answer below"
            }
            throw CheckFailure("login as \(options.username) answered \(answer.status); \(advice)",
                               details: String(decoding: answer.body.prefix(300), as: UTF8.self))
        }
        guard let fields = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any],
              let keyString = fields["encryptionKey"] as? String, let token = fields["token"] as? String else {
            throw CheckFailure("the login answer is not {\"token\",\"encryptionKey\"}", details: String(decoding: answer.body.prefix(300), as: UTF8.self))
        }
        ledger.recordLogin(token: token, encryptionKey: keyString, step: step)
        let mode = options.keyMode ?? (KeyDerivationMode.base64Raw.inferred(from: keyString) ? .base64Raw : .weakUTF8ZeroPad16)
        let key: Data
        do { key = try mode.deriveKey(from: keyString) } catch { throw AESHTTPSClientError.crypto("\(error)") }
        return Session(token: token, key: key, mode: mode)
    }

    /// `POST /secure-data` with `params` under a fresh IV; a 200 envelope's IV goes to the ledger.
    func exchange(_ params: Data, session: Session, pin: String, step: String) throws -> (WebResponse, requestIV: Data) {
        let iv = AESCBC.randomIV()
        let answer = try send(try AESHTTPSClient.secureRequest(params: params, token: session.token, key: session.key, iv: iv), pin: pin)
        recordResponse(answer, requestIV: iv, key: session.key, step: step)
        return (answer, iv)
    }

    func recordResponse(_ answer: WebResponse, requestIV: Data, key: Data, step: String) {
        if answer.status == 200, let envelope = try? CBCEnvelope(json: answer.body) {
            ledger.recordExchange(requestIV: requestIV, responseIV: envelope.iv, responseCiphertext: envelope.ciphertext, key: key, step: step)
        }
    }

    func send(_ request: WebRequest, pin: String) throws -> WebResponse {
        if let server = options.inProcess { return try server.exchange(request, timeout: options.timeout) }
        let client = try PinnedHTTPSClient(pinnedCertificatePath: pin, timeout: options.timeout)
        return WebResponse(try client.send(HTTPRequest(request), to: baseURL, resolve: HostResolver.isLiteral(urlHost) ? nil : (urlHost, run.address)))
    }
}

extension KeyDerivationMode {
    /// True when `encryptionKey` reads as this mode's input (base64 of an AES key size).
    func inferred(from encryptionKey: String) -> Bool { (try? deriveKey(from: encryptionKey)) != nil }
}
