import Foundation
import AppUnderTest
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// How the app's session checks run: the sessions suite's transports and its loopback servers.
public struct AppSessionSettings: Sendable {
    public var inProcess: Bool
    /// The run's loopback servers (nil: no loopback checks).
    public var servers: LoopbackServerProvider?
    public var timeout: TimeInterval
    public var quietGap: TimeInterval

    public init(inProcess: Bool, servers: LoopbackServerProvider?, timeout: TimeInterval, quietGap: TimeInterval) {
        self.inProcess = inProcess; self.servers = servers; self.timeout = timeout; self.quietGap = quietGap
    }
}

/// `sessions.app_client.<server>_server`: the app as the client of whole conversations with the
/// Swift and PythonRef servers. rsa-socket pi-to-phone (seed 000): in process through the app's
/// RSASocketClient (what it writes, one read of the server's answer decrypted), over loopback TCP
/// with crosscheck's socket driver, and over loopback with the app's own networking
/// (RSASocketSession). aes-https (seed 001): login, then the app's request body and its reading
/// of the answer, in both key modes.
enum AppSessionChecks {
    static let users = ["alice": "wonderland"]

    static func checks(_ context: SuiteContext, app: AppSubject, settings: AppSessionSettings) -> [Check] {
        var checks: [Check] = []
        for server in ["swift", "python"] {
            var list = Lists(suite: "sessions.app_client.\(server)_server", relation: "app_client.\(server)_server", app: app)
            addRSASocket(context, app, server: server, settings: settings, &list)
            addAESHTTPS(context, app, server: server, settings: settings, &list)
            AppDescribedClientChecks.add(app, server: server, settings: settings, files: context.files, &list)
            checks += list.checks
        }
        return checks
    }

    // MARK: rsa-socket (seed 000)

    static func addRSASocket(_ context: SuiteContext, _ app: AppSubject, server: String, settings: AppSessionSettings, _ list: inout Lists) {
        let clientPadding = app.read(RSASocketClient.self, { $0.rsaPadding })
        let sessionCapable = app.has(RSASocketSession.self)
        guard clientPadding != nil || sessionCapable else { return }
        // The app's own session names no padding; it shares the client's when it has one.
        guard let padding = AppCheckNames.padding(clientPadding ?? "pkcs1") else {
            list.unknown("rsa-socket", "rsa-socket", "the app's rsaPadding '\(clientPadding ?? "")' is not pkcs1, oaep-sha1 or oaep-sha256")
            return
        }
        let label = "pi-to-phone.legacy.\(padding)"
        let weaknesses = (padding.isWeak ? [Weakness.pkcs1] : []) + [Weakness.legacyFraming]
        if clientPadding != nil, settings.inProcess {
            for delivery in [Conversation.Delivery.whole, .chunks(100)] {
                let name = "inprocess.\(label)" + (delivery == .whole ? "" : ".\(delivery)")
                list.add("rsa-socket", name, weaknesses: weaknesses) {
                    let spec = try serverSpec(context, server: server, padding: padding)
                    let machine = try serverMachine(context, server: server, spec: spec)
                    let client = AppRSASocketClientMachine(app: app)
                    let transcript = Conversation.run(client: client, server: machine, delivery: delivery)
                    if let unreachable = client.unreachable { throw unreachable }
                    try verify(client: transcript.clientEvents, server: transcript.serverEvents, exhausted: transcript.exhausted, app: app,
                               details: "client events: \(transcript.clientEvents)\nserver events: \(transcript.serverEvents)\n"
                                   + "app → server: \(Expect.preview(transcript.clientSent))\nserver → app: \(Expect.preview(transcript.serverSent))")
                    return .passed
                }
            }
        }
        guard let servers = settings.servers else { return }
        if clientPadding != nil {
            list.add("rsa-socket", "tcp.\(label)", weaknesses: weaknesses) {
                let port = try servers.rsaSocketServer(server, try serverSpec(context, server: server, padding: padding))
                let client = AppRSASocketClientMachine(app: app)
                let connection = try TCPConnection.connect(host: "127.0.0.1", port: port, timeout: settings.timeout)
                let outcome = SocketDriver.drive(client, over: connection, quietGap: settings.quietGap, timeout: settings.timeout,
                                                 deadline: settings.timeout * 2)
                if let unreachable = client.unreachable { throw unreachable }
                try verify(client: outcome.events, server: nil, exhausted: false, app: app, details: details(of: outcome))
                return .passed
            }
        }
        if sessionCapable {
            list.add("rsa-socket", "tcp.\(label).app-networking", weaknesses: weaknesses) {
                let port = try servers.rsaSocketServer(server, try serverSpec(context, server: server, padding: padding))
                let plaintext = try AppExpect.succeeds(app, "run a session over its own socket to 127.0.0.1:\(port)") {
                    try app.with(RSASocketSession.self) { try $0.runSession(host: "127.0.0.1", port: Int(port), timeout: settings.timeout) }
                }
                try Expect.equalBytes(plaintext, RSASocket.defaultMessage, "what \(app.identifier) decrypted and showed")
                return .passed
            }
        }
    }

    /// The server's configuration: its own key (generated by its implementation), the app's padding, legacy framing.
    static func serverSpec(_ context: SuiteContext, server: String, padding: RSAEncryptionPadding) throws -> RSASocketServerSpec {
        let key = try context.keys.key(of: context.cryptoPeer(named: server), bits: 2048)
        return RSASocketServerSpec(padding: padding, framing: .legacy, digest: false, privateKeyPEM: key.privateKeyPEM)
    }

    static func serverMachine(_ context: SuiteContext, server: String, spec: RSASocketServerSpec) throws -> SessionMachine {
        if server == "swift" { return try SwiftSessions().rsaSocketServer(spec) }
        guard let python = context.python as? PythonPeer else { throw CheckFailure("the python side is not PythonRef in this run") }
        return try PythonSessions(peer: python).rsaSocketServer(spec)
    }

    /// pi-to-phone: the app shows the server's message and sees the server stop; the server sent its ciphertext and got Quit.
    static func verify(client: [SessionEvent], server: [SessionEvent]?, exhausted: Bool, app: AppSubject,
                       message: Data = RSASocket.defaultMessage, details: String) throws {
        if exhausted { throw CheckFailure("the conversation never ended (step budget exhausted)", details: details) }
        var differences: [String] = []
        let expectedClient: [SessionEvent] = [.decrypted(message), .serverStopped]
        if client != expectedClient { differences.append("\(app.identifier): expected \(expectedClient), got \(client)") }
        if let server, server != [.sentCiphertext, .quit] { differences.append("server: expected [sent-ciphertext, quit], got \(server)") }
        if !differences.isEmpty { throw CheckFailure(differences.joined(separator: "; "), details: details) }
    }

    /// What the app and the server said to each other over a socket, for a failure's body.
    static func details(of transcript: SocketDriver.Transcript) -> String {
        "app events: \(transcript.events)\napp → server: \(Expect.preview(transcript.sent))\nserver → app: \(Expect.preview(transcript.received))"
            + (transcript.transportError.map { "\ntransport: \($0)" } ?? "")
    }

    // MARK: aes-https (seed 001)

    static func addAESHTTPS(_ context: SuiteContext, _ app: AppSubject, server: String, settings: AppSessionSettings, _ list: inout Lists) {
        guard app.has(AESEnvelopeClient.self), settings.inProcess else { return }
        for mode in KeyDerivationMode.allCases {
            let weaknesses = Weakness.aesHTTPS(keyMode: mode)
            list.add("aes-https", "inprocess.login-and-echo.\(mode.rawValue)", weaknesses: weaknesses) {
                let role: AESHTTPSServerRole
                if server == "swift" { role = SwiftAESHTTPS() } else {
                    guard let python = context.python as? PythonPeer else { throw CheckFailure("the python side is not PythonRef in this run") }
                    role = PythonAESHTTPS(peer: python)
                }
                let encryptionKey = mode == .base64Raw ? context.bytes(32, for: "aes-https-key").base64EncodedString() : "pi-secret-key"
                let handler = try role.makeServer(users: users, mode: mode, encryptionKey: encryptionKey)
                try loginAndEcho(app, server: server, handler)
                return .passed
            }
        }
    }

    /// Login (the harness's, as the app's adapter maps only its crypto), then the app's envelope
    /// to /secure-data and its reading of the answer, which must be `{"echo": parameters}`.
    static func loginAndEcho(_ app: AppSubject, server: String, username: String = "alice", password: String = "wonderland",
                             _ handler: (WebRequest) throws -> WebResponse) throws {
        let login = try handler(AESHTTPSClient.loginRequest(username: username, password: password))
        guard login.status == 200, let fields = (try? JSONSerialization.jsonObject(with: login.body)) as? [String: Any],
              let token = fields["token"] as? String, let encryptionKey = fields["encryptionKey"] as? String else {
            throw CheckFailure("the \(server) server's login answer is not 200 {\"token\",\"encryptionKey\"} (\(login.status))",
                               details: String(decoding: login.body.prefix(300), as: UTF8.self))
        }
        let body = try AppExpect.succeeds(app, "build a request body under the key string '\(encryptionKey)'") {
            try app.with(AESEnvelopeClient.self) { try $0.requestBody(parameters: AppRoundTrips.parameters, encryptionKey: encryptionKey) }
        }
        let answer = try handler(WebRequest(method: "POST", path: "/secure-data",
                                             headers: ["authorization": token, "content-type": "application/json"], body: body))
        guard answer.status == 200 else {
            throw CheckFailure("the \(server) server answered \(answer.status) to \(app.identifier)'s envelope (it could not open it)",
                               details: "request body: \(String(decoding: body.prefix(300), as: UTF8.self))\nanswer: \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
        }
        let object = try AppExpect.succeeds(app, "read the \(server) server's answer") {
            try app.with(AESEnvelopeClient.self) { try $0.responseObject(body: answer.body, encryptionKey: encryptionKey) }
        }
        try AppExpect.sameJSON(object, ["echo": AppRoundTrips.parameters], "the answer \(app.identifier) decrypted")
    }
}

/// The app's RSASocketClient as an rsa-socket client machine (pi-to-phone, legacy framing): it
/// writes its key message; each arriving chunk is one socket read, and when the line goes quiet
/// the app decrypts the last read (as its user presses Decrypt), then writes Quit and waits for
/// "Server stopped". An app that cannot be asked is remembered, so the check ends as an error.
final class AppRSASocketClientMachine: SessionMachine {
    enum State { case awaitCiphertext, awaitStopped, done }
    let app: AppSubject
    private var state = State.awaitCiphertext
    private var lastRead = Data()
    private var afterQuit = StoppedWatch()
    private(set) var closed = false
    private(set) var unreachable: AppUnreachable?

    init(app: AppSubject) { self.app = app }

    func start() -> [SessionAction] {
        do { return [.send(try app.with(RSASocketClient.self) { try $0.publicKeyMessage() })] } catch {
            return fail("\(app.identifier) wrote no key message: \(error)", error)
        }
    }

    func receive(_ data: Data) -> [SessionAction] {
        guard !closed else { return [] }
        switch state {
        case .awaitCiphertext:
            lastRead = data
            return []
        case .awaitStopped:
            guard afterQuit.arrived(data) else { return [] }
            state = .done
            closed = true
            return [.event(.serverStopped), .close]
        case .done:
            return []
        }
    }

    func idle() -> [SessionAction] {
        guard !closed, state == .awaitCiphertext, !lastRead.isEmpty else { return [] }
        do {
            let read = lastRead
            let plaintext = try app.with(RSASocketClient.self) { try $0.receiveEncryptedMessage(read) }
            let quit = try app.with(RSASocketClient.self) { $0.quitMessage() }
            state = .awaitStopped
            return [.event(.decrypted(plaintext)), .send(quit)]
        } catch {
            return fail("\(app.identifier) did not decrypt its last read of \(lastRead.count) bytes: \(error)", error)
        }
    }

    private func fail(_ reason: String, _ error: Error) -> [SessionAction] {
        if let error = error as? AppUnreachable { unreachable = error }
        closed = true
        state = .done
        return [.event(.failed(reason)), .close]
    }
}
