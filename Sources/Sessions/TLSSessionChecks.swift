import Foundation
import Conformance
import PythonBridge
import Transport
import WireCrypto
import WireProtocol
import StrictFormats

/// aes-https over loopback TLS with the test certificates in Vectors/tls: the pinned Swift client
/// (what the iOS app does, seed 002) and the PythonRef client against a Swift and a PythonRef
/// server, and the four refusals — each verified as the client's refusal for the right reason,
/// next to a control showing the server was up and answering.
enum TLSSessionChecks {
    typealias Role = any AESHTTPSClientRole & AESHTTPSServerRole

    static func checks(_ context: SessionContext, roles: [Role]) -> [Check] {
        var checks: [Check] = []
        let mode = KeyDerivationMode.base64Raw
        for serverName in ["swift", "python"] {
            for clientName in ["swift", "python"] {
                var list = CheckList(suite: "sessions.\(clientName)_client.\(serverName)_server", profile: "aes-https",
                                     relation: "\(clientName)_client.\(serverName)_server")
                list.add("tls.pinned.login-and-echo.\(mode.rawValue)", weaknesses: [Weakness.cbcNoMAC]) {
                    if clientName == "swift" {
                        try loginAndEchoOverTLS(context, client: SwiftAESHTTPS(), serverName: serverName, mode: mode)
                    } else {
                        try pythonClient(context, port: try server(context, serverName, certificate: "pinned", mode: mode).port, mode: mode)
                    }
                    return .passed
                }
                checks += list.checks
            }
            var refusals = CheckList(suite: "sessions.swift_client.\(serverName)_server", profile: "aes-https",
                                     relation: "swift_client.\(serverName)_server")
            refusals.add("tls.refuses-impostor-certificate-for-the-same-name") {
                let port = try server(context, serverName, certificate: "impostor", mode: mode).port
                try expectRefusal(context, port: port, pin: "pinned", reason: .unknownIssuer)
                try control(context, port: port)
                return .passed
            }
            refusals.add("tls.refuses-pinned-certificate-under-another-host-name") {
                let port = try server(context, serverName, certificate: "pinned", mode: mode).port
                try expectRefusal(context, port: port, pin: "pinned", reason: .hostNameMismatch, host: "pi.invalid")
                let client = try PinnedHTTPSClient(pinnedCertificatePath: context.certificate("pinned"), timeout: context.options.timeout)
                try Expect.equal(try send(client, AESHTTPSClient.loginRequest(username: "alice", password: "wonderland"), port: port).status,
                                 200, "control: the same server and pin under its own name")
                return .passed
            }
            refusals.add("tls.refuses-expired-certificate") {
                let port = try server(context, serverName, certificate: "expired", mode: mode).port
                try expectRefusal(context, port: port, pin: "expired", reason: .expired)
                try control(context, port: port)
                return .passed
            }
            refusals.add("tls.refuses-plain-http") {
                let running = try server(context, serverName, certificate: nil, mode: mode)
                let before = (running as? SwiftHTTPSServer)?.server.acceptedConnectionCount
                let client = try PinnedHTTPSClient(pinnedCertificatePath: context.certificate("pinned"), timeout: context.options.timeout)
                do {
                    _ = try client.send(HTTPRequest(AESHTTPSClient.loginRequest(username: "alice", password: "wonderland")),
                                        to: URL(string: "http://127.0.0.1:\(running.port)")!)
                    throw CheckFailure("the pinned client sent a request over plain HTTP")
                } catch let error as TransportError {
                    guard case .plainHTTPRefused = error else { throw CheckFailure("refused plain HTTP for the wrong reason: \(error)") }
                }
                if let before, let server = running as? SwiftHTTPSServer {
                    try Expect.equal(server.server.acceptedConnectionCount, before, "connections the plain server accepted from the refusing client")
                }
                // Control: the plain server does answer a plain request.
                let answer = try rawPlainRequest(context, port: running.port, AESHTTPSClient.loginRequest(username: "alice", password: "wonderland"))
                try Expect.equal(answer.status, 200, "control: a plain request to the plain server")
                return .passed
            }
            checks += refusals.checks
        }
        return checks
    }

    // MARK: servers and clients


    /// The aes-https server of `implementation` serving `certificate` (nil: plain HTTP), started once per run.
    static func server(_ context: SessionContext, _ implementation: String, certificate name: String?, mode: KeyDerivationMode) throws -> RunningServer {
        let options = context.options
        let encryptionKey = AESHTTPSSessionChecks.encryptionKey(mode, context)
        let id = "aes-https/\(implementation)/\(name ?? "plain")/\(mode.rawValue)"
        if implementation == "swift" {
            return try options.servers.server(id) { () -> SwiftHTTPSServer in
                let logic = AESHTTPSServer(config: AESHTTPSServerConfig(users: AESHTTPSSessionChecks.users, keyMode: mode, encryptionKey: encryptionKey))
                let identity = name.map { TLSServerIdentity(certificatePath: context.certificate($0), privateKeyPath: context.privateKey($0)) }
                return try SwiftHTTPSServer(identity: identity, timeout: options.timeout) { request in
                    let answer = logic.handle(WebRequest(method: request.method, path: request.path, headers: request.headers, body: request.body))
                    return HTTPResponse(status: answer.status, headers: answer.headers, body: answer.body)
                }
            }
        }
        return try options.servers.server(id) { () -> PythonServerProcess in
            try PythonServerProcess(context, arguments: ["aes-https"]
                + (name.map { ["--cert", context.certificate($0), "--key", context.privateKey($0)] } ?? ["--plain-http-for-tests"])
                + ["--key-mode", mode.rawValue, "--encryption-key", encryptionKey, "--user", "alice:wonderland",
                   "--quiet", "--timeout", String(options.timeout)])
        }
    }

    /// Login and one echo from `client`'s logic over the pinned libcurl client, against the
    /// `serverName` server serving the pinned certificate in `mode`.
    static func loginAndEchoOverTLS(_ context: SessionContext, client: AESHTTPSClientRole, serverName: String, mode: KeyDerivationMode) throws {
        let port = try server(context, serverName, certificate: "pinned", mode: mode).port
        let transport = try PinnedHTTPSClient(pinnedCertificatePath: context.certificate("pinned"), timeout: context.options.timeout)
        try AESHTTPSSessionChecks.loginAndEcho(client: client, serverName: serverName, mode: mode) { try send(transport, $0, port: port) }
    }

    static func send(_ client: PinnedHTTPSClient, _ request: WebRequest, port: UInt16, host: String = "127.0.0.1") throws -> WebResponse {
        let url = URL(string: "https://\(host):\(port)")!
        return WebResponse(try client.send(HTTPRequest(request), to: url, resolve: host == "127.0.0.1" ? nil : (host, "127.0.0.1")))
    }

    static func expectRefusal(_ context: SessionContext, port: UInt16, pin: String, reason: TransportError.CertificateRefusal,
                              host: String = "127.0.0.1") throws {
        let client = try PinnedHTTPSClient(pinnedCertificatePath: context.certificate(pin), timeout: context.options.timeout)
        do {
            let answer = try send(client, AESHTTPSClient.loginRequest(username: "alice", password: "wonderland"), port: port, host: host)
            throw CheckFailure("the pinned client accepted the server and got \(answer.status); it must refuse (\(reason))")
        } catch let error as TransportError {
            guard case let .certificateRefused(actual, detail) = error, actual == reason else {
                throw CheckFailure("the client failed, but not by refusing the certificate for \(reason): \(error)")
            }
            _ = detail
        }
    }

    /// The server is up and speaks TLS: a client that checks nothing gets an answer.
    static func control(_ context: SessionContext, port: UInt16) throws {
        let insecure = PinnedHTTPSClient._INSECURE_acceptingAnyCertificate(timeout: context.options.timeout)
        let answer = try send(insecure, AESHTTPSClient.loginRequest(username: "alice", password: "wonderland"), port: port)
        try Expect.equal(answer.status, 200, "control: the same server with certificate checks off")
    }

    static func rawPlainRequest(_ context: SessionContext, port: UInt16, _ request: WebRequest) throws -> WebResponse {
        let connection = try TCPConnection.connect(host: "127.0.0.1", port: port, timeout: context.options.timeout)
        defer { connection.close() }
        return WebResponse(try connection.exchange(HTTPRequest(request), host: "127.0.0.1:\(port)", timeout: context.options.timeout))
    }

    /// `python3 -m pythonref client aes-https`: login and one echo, verified by the client itself.
    static func pythonClient(_ context: SessionContext, port: UInt16, mode: KeyDerivationMode) throws {
        let options = context.options
        let client = try context.startPythonRef([
            "client", "aes-https", "--url", "https://127.0.0.1:\(port)", "--pin", context.certificate("pinned"),
            "--user", "alice:wonderland", "--key-mode", mode.rawValue, "--timeout", String(options.timeout),
            "--params", String(decoding: try JSONValues.encode(.dict(AESHTTPSSessionChecks.params)), as: UTF8.self)])
        // Its own --timeout bounds each step; this bounds the whole client, should one wedge.
        guard client.waitForExit(within: options.timeout * 4) else {
            client.stop()
            throw CheckFailure("the python client's conversation did not end within \(Int(options.timeout * 4)) s", details: client.lastLines())
        }
        guard client.process.terminationStatus == 0 else {
            throw CheckFailure("the python client's conversation failed (exit \(client.process.terminationStatus))", details: client.lastLines())
        }
    }
}

/// A Swift `HTTPServer` (TLS or plain) as a run's server.
final class SwiftHTTPSServer: RunningServer, @unchecked Sendable {
    let server: HTTPServer
    let port: UInt16

    init(identity: TLSServerIdentity?, timeout: TimeInterval, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws {
        server = HTTPServer(tls: identity, host: "127.0.0.1", port: 0,
                            limits: HTTPServerLimits(handshakeTimeout: timeout, requestTimeout: timeout, writeTimeout: timeout), handler: handler)
        port = try server.start()
    }

    func stop() { server.stop() }
}
