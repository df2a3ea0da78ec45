import Foundation
import Conformance
import PythonBridge
import Transport
import WireCrypto
import WireProtocol

/// aes-https (seeds 001/002) for every pairing of client and server logic: login, the encrypted
/// echo in both key modes, the 401s; each server's single answer to every bad envelope; and, over
/// loopback TLS, the pinned client against both servers plus the four refusals of seed 002.
enum AESHTTPSSessionChecks {
    static let users = ["alice": "wonderland"]
    static let params: [String: PythonValue] = ["command": "status", "temperature": 21, "lights": ["hall", "porch"], "armed": true]

    static func checks(_ context: SessionContext) -> [Check] {
        guard let python = context.run.python as? PythonPeer else { return [] }
        let roles: [any AESHTTPSClientRole & AESHTTPSServerRole] = [SwiftAESHTTPS(), PythonAESHTTPS(peer: python)]
        var checks: [Check] = []
        if context.options.inProcess {
            for client in roles {
                for server in roles {
                    var list = CheckList(suite: "sessions.\(client.name)_client.\(server.name)_server", profile: "aes-https",
                                         relation: "\(client.name)_client.\(server.name)_server")
                    for mode in KeyDerivationMode.allCases {
                        list.add("inprocess.login-and-echo.\(mode.rawValue)", weaknesses: Weakness.aesHTTPS(keyMode: mode)) {
                            try loginAndEchoInProcess(context, client: client, server: server, mode: mode)
                        }
                    }
                    list.add("inprocess.wrong-credentials-get-401") {
                        let handler = try server.makeServer(users: users, mode: .base64Raw, encryptionKey: encryptionKey(.base64Raw, context))
                        try Expect.equal(try handler(client.loginRequest(username: "alice", password: "rabbit")).status, 401, "status for a wrong password")
                        return .passed
                    }
                    list.add("inprocess.unknown-token-gets-401") {
                        let handler = try server.makeServer(users: users, mode: .base64Raw, encryptionKey: encryptionKey(.base64Raw, context))
                        let request = try client.secureRequest(params: params, token: "0123456789abcdef0123456789abcdef", key: Data(count: 32))
                        try Expect.equal(try handler(request).status, 401, "status for an unknown token")
                        var missing = request
                        missing.headers["authorization"] = nil
                        try Expect.equal(try handler(missing).status, 401, "status without a token")
                        return .passed
                    }
                    checks += list.checks
                }
            }
            for server in roles {
                var list = CheckList(suite: "sessions.\(server.name)_server", profile: "aes-https", relation: "\(server.name)_server")
                list.add("inprocess.every-bad-envelope-gets-one-answer", weaknesses: [Weakness.cbcNoMAC]) {
                    try oneAnswerForEveryBadEnvelope(server: server, context: context)
                }
                list.add("inprocess.unknown-path-404-and-wrong-method-405") {
                    let handler = try server.makeServer(users: users, mode: .base64Raw, encryptionKey: encryptionKey(.base64Raw, context))
                    try Expect.equal(try handler(WebRequest(method: "POST", path: "/admin")).status, 404, "status for an unknown path")
                    try Expect.equal(try handler(WebRequest(method: "GET", path: "/login")).status, 405, "status for GET /login")
                    return .passed
                }
                checks += list.checks
            }
        }
        if context.options.loopback {
            checks += TLSSessionChecks.checks(context, roles: roles)
        }
        return checks
    }

    static func encryptionKey(_ mode: KeyDerivationMode, _ context: SessionContext) -> String {
        mode == .base64Raw ? context.bytes(32, for: "aes-https-key").base64EncodedString() : "pi-secret-key"
    }

    /// `loginAndEcho` against `server` made in this process with the suite's account and a key for `mode`.
    static func loginAndEchoInProcess(_ context: SessionContext, client: AESHTTPSClientRole, server: AESHTTPSServerRole,
                                      mode: KeyDerivationMode) throws -> CheckOutcome {
        let handler = try server.makeServer(users: users, mode: mode, encryptionKey: encryptionKey(mode, context))
        try loginAndEcho(client: client, serverName: server.name, mode: mode, send: handler)
        return .passed
    }

    /// Login, then one encrypted request; the decrypted answer must be `{"echo": params}`.
    static func loginAndEcho(client: AESHTTPSClientRole, serverName: String, mode: KeyDerivationMode,
                             username: String = "alice", password: String = "wonderland",
                             send: (WebRequest) throws -> WebResponse) throws {
        // Each client's logic reads the answers its own way (status, Content-Type, body) and says
        // what it refused: the reference clients want the protocol's 200s, the seed app names its quirk.
        let loginAnswer = try send(try client.loginRequest(username: username, password: password))
        let (token, key) = try Expect.succeedsAny(client.name, "read \(serverName) server's login answer") { try client.parseLogin(loginAnswer, mode: mode) }
        let answer = try send(try client.secureRequest(params: params, token: token, key: key))
        let echoed = try Expect.succeedsAny(client.name, "read \(serverName) server's /secure-data answer") { try client.parseSecure(answer, key: key) }
        try Expect.equal(echoed, PythonValue.dict(["echo": .dict(params)]), "\(client.name) client's decrypted answer")
    }

    /// Bad padding, non-JSON plaintext, a short IV, truncated data, bad base64, not JSON at all:
    /// one status and one body for all, or the server is a padding oracle. JSON that is not an
    /// object is the server's business (docs/PROTOCOL.md): it may answer it as a request, or refuse
    /// it — but then exactly as it refuses the rest.
    static func oneAnswerForEveryBadEnvelope(server: AESHTTPSServerRole, context: SessionContext) throws -> CheckOutcome {
        let handler = try server.makeServer(users: users, mode: .base64Raw, encryptionKey: encryptionKey(.base64Raw, context))
        let login = try handler(AESHTTPSClient.loginRequest(username: "alice", password: "wonderland"))
        let (token, key) = try AESHTTPSClient.parseLogin(login, mode: .base64Raw)
        let good = try CBCEnvelope.seal(Data("{\"a\":1}".utf8), key: key)
        var badPadding = good
        badPadding.iv[15] ^= 0x09
        let bodies: [(String, Data)] = [
            ("bad padding", badPadding.jsonData),
            ("valid padding, not JSON", try CBCEnvelope.seal(Data("not json".utf8), key: key).jsonData),
            ("IV of 15 bytes", CBCEnvelope(ciphertext: good.ciphertext, iv: good.iv.prefix(15)).jsonData),
            ("data not whole blocks", CBCEnvelope(ciphertext: good.ciphertext.dropLast(), iv: good.iv).jsonData),
            ("bad base64", Data("{\"data\":\"!!!\",\"iv\":\"AAAAAAAAAAAAAAAAAAAAAA==\"}".utf8)),
            ("not JSON", Data("{".utf8)),
        ]
        var answers: [(String, WebResponse)] = []
        for (name, body) in bodies {
            answers.append((name, try handler(WebRequest(method: "POST", path: "/secure-data", headers: ["authorization": token], body: body))))
        }
        let notAnObject = try handler(WebRequest(method: "POST", path: "/secure-data", headers: ["authorization": token],
                                                 body: try CBCEnvelope.seal(Data("[1,2]".utf8), key: key).jsonData))
        if notAnObject.status != 200 { answers.append(("JSON that is not an object", notAnObject)) }
        let first = answers[0].1
        for (name, answer) in answers where answer.status != first.status || answer.body != first.body || answer.status != 400 {
            throw CheckFailure("\(server.name) server answers bad envelopes differently (a padding oracle): \(answers[0].0) → \(first.status), \(name) → \(answer.status)",
                               details: answers.map { "\($0.0): \($0.1.status) \(String(decoding: $0.1.body.prefix(80), as: UTF8.self))" }.joined(separator: "\n"))
        }
        return .passed
    }
}

extension Expect {
    /// Like `succeeds`, for roles that throw other errors than `PeerFailure`.
    static func succeedsAny<R>(_ who: String, _ what: String, _ step: () throws -> R) throws -> R {
        do { return try step() } catch let failure as CheckFailure { throw failure } catch {
            throw CheckFailure("\(who) failed to \(what): \(error)")
        }
    }
}
