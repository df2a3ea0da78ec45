import Foundation
import Conformance
import PythonBridge
import Transport
import WireCrypto
import WireProtocol

/// Everything about an aes-https server observable from outside: the pinned certificate, login,
/// bad credentials and tokens, envelopes in both directions, one answer for every bad envelope.
struct RemoteAESHTTPS {
    let run: RemoteRun
    var options: RemoteOptions { run.options }
    let profile = "aes-https"

    init(_ run: RemoteRun) { self.run = run }

    /// The name in the URL: --server-name, else the host as given.
    var urlHost: String { options.serverName ?? run.target.host }
    var baseURL: URL { URL(string: "https://\(urlHost.contains(":") ? "[\(urlHost)]" : urlHost):\(run.target.port)")! }

    func checkAll() {
        guard let pin = options.pin else {
            run.record("liveness.initial", profile: profile, .error(message: "\(RemoteError.missingPin)", details: ""), duration: 0)
            return
        }
        var session: (token: String, key: Data, mode: KeyDerivationMode)?
        run.liveness("liveness.initial", profile: profile, after: "the first connection", first: true) {
            session = try login(pin: pin)
        }
        run.step("tls.serves-the-pinned-certificate", profile: profile) {
            _ = try send(AESHTTPSClient.loginRequest(username: options.username, password: options.password), pin: pin)
            return .passed
        }
        if let foreign = options.foreignCertificate {
            run.step("tls.pinning-refuses-another-certificate", profile: profile) {
                do {
                    _ = try send(AESHTTPSClient.loginRequest(username: options.username, password: options.password), pin: foreign)
                    throw CheckFailure("a client pinned to another certificate accepted the server: the pin is not what protects this connection")
                } catch TransportError.certificateRefused(.unknownIssuer, _) { return .passed }
            }
        }
        run.step("tls.plain-http-refused-by-the-client", profile: profile) {
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
            let answer = try send(try AESHTTPSClient.secureRequest(params: JSONValues.encode(.dict(params)), token: session.token, key: session.key), pin: pin)
            guard answer.status == 200 else { throw CheckFailure("secure-data answered \(answer.status)", details: String(decoding: answer.body.prefix(300), as: UTF8.self)) }
            let plaintext = try AESHTTPSClient.parseSecure(answer, key: session.key)
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
        run.step("secure-data.one-answer-for-every-bad-envelope", profile: profile) {
            let good = try CBCEnvelope.seal(Data("{\"a\":1}".utf8), key: session.key)
            var badPadding = good
            badPadding.iv[15] ^= 0x09
            let bodies: [(String, Data)] = [
                ("bad padding", badPadding.jsonData),
                ("valid padding, not JSON", try CBCEnvelope.seal(Data("not json".utf8), key: session.key).jsonData),
                ("IV of 15 bytes", CBCEnvelope(ciphertext: good.ciphertext, iv: good.iv.prefix(15)).jsonData),
                ("not JSON", Data("{".utf8)),
            ]
            var answers: [(String, WebResponse)] = []
            for (name, body) in bodies {
                answers.append((name, try send(WebRequest(method: "POST", path: "/secure-data", headers: ["authorization": session.token], body: body), pin: pin)))
            }
            let first = answers[0].1
            if let odd = answers.first(where: { $0.1.status != first.status || $0.1.body != first.body }) ?? (first.status == 400 ? nil : answers[0]) {
                throw CheckFailure("bad envelopes get different answers (a padding oracle): \(answers[0].0) → \(first.status), \(odd.0) → \(odd.1.status)",
                                   details: answers.map { "\($0.0): \($0.1.status) \(String(decoding: $0.1.body.prefix(80), as: UTF8.self))" }.joined(separator: "\n"))
            }
            return .passed
        }
        run.liveness("liveness.final", profile: profile, after: "the whole run") { _ = try login(pin: pin) }
    }

    /// Logs in and derives the key; with no `--key-mode`, the mode is inferred from the key string.
    func login(pin: String) throws -> (token: String, key: Data, mode: KeyDerivationMode) {
        let answer = try send(AESHTTPSClient.loginRequest(username: options.username, password: options.password), pin: pin)
        guard answer.status == 200 else {
            throw CheckFailure("login as \(options.username) answered \(answer.status); pass the right --user NAME:PASSWORD",
                               details: String(decoding: answer.body.prefix(300), as: UTF8.self))
        }
        guard let fields = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any], fields["encryptionKey"] is String else {
            throw CheckFailure("the login answer is not {\"token\",\"encryptionKey\"}", details: String(decoding: answer.body.prefix(300), as: UTF8.self))
        }
        let keyString = fields["encryptionKey"] as! String
        let mode = options.keyMode ?? (KeyDerivationMode.base64Raw.inferred(from: keyString) ? .base64Raw : .weakUTF8ZeroPad16)
        let (token, key) = try AESHTTPSClient.parseLogin(answer, mode: mode)
        return (token, key, mode)
    }

    func send(_ request: WebRequest, pin: String) throws -> WebResponse {
        let client = try PinnedHTTPSClient(pinnedCertificatePath: pin, timeout: options.timeout)
        let answer = try client.send(HTTPRequest(method: request.method, path: request.path, headers: request.headers, body: request.body),
                                     to: baseURL, resolve: HostResolver.isLiteral(urlHost) ? nil : (urlHost, run.address))
        return WebResponse(status: answer.status, headers: answer.headers, body: answer.body)
    }
}

extension KeyDerivationMode {
    /// True when `encryptionKey` reads as this mode's input (base64 of an AES key size).
    func inferred(from encryptionKey: String) -> Bool { (try? deriveKey(from: encryptionKey)) != nil }
}
