import Foundation
import AppUnderTest
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// Where `crosscheck remote --app` sends the app under test: a live server, reached as the app
/// reaches it (the name in its URL, the certificate it pins, the account it logs in with).
public struct AppRemoteTarget: Sendable {
    public let target: ServerAddress
    /// "rsa-socket" or "aes-https".
    public let profile: String
    public var serverName: String?
    public var pin: String?
    public var username = "user"
    public var password = "password"
    public var timeout: TimeInterval = 5

    public init(target: ServerAddress, profile: String) { self.target = target; self.profile = profile }
    var urlHost: String { serverName ?? target.host }
}

/// The app under test as a client of a live server (`crosscheck remote --app DIR|seed-00N`): its own
/// code and, where it has them, its own networking (seed 000's socket session), its envelope code
/// (seed 001) over the live HTTPS connection, its pinning delegate (seed 002) on the chain the live
/// server presents. Testcases `app.<identifier>.…` in `remote.<host:port>`; a failure names what the
/// app's code did, with the lines it printed.
public enum AppRemoteChecks {
    public static func checks(_ app: AppSubject, _ remote: AppRemoteTarget) -> [Check] {
        let suite = "remote.\(remote.target)"
        let classname = "crosscheck.remote.\(remote.profile)"
        var list: [Check] = []
        func add(_ name: String, _ body: @escaping @Sendable () throws -> CheckOutcome) {
            list.append(Check(suite: suite, classname: classname, name: "app.\(app.identifier).\(name)") {
                do { return try body() } catch let unreachable as AppUnreachable {
                    return .error(message: "\(app.identifier) could not be asked: \(unreachable)", details: "")
                } catch let error as TransportError {
                    return .error(message: "\(remote.target): \(error)", details: "")
                }
            })
        }
        if remote.profile == "rsa-socket" {
            guard app.has(RSASocketSession.self) else { return [skipped(suite, classname, app, "session", "it has no RSASocketSession (its own socket client)")] }
            add("session-over-its-own-socket") {
                let address = try HostResolver.resolve(remote.target.host, timeout: remote.timeout)
                let security = app.securityMark, console = app.consoleMark
                let plaintext = try AppExpect.succeeds(app, "run its session over its own socket to \(remote.target)") {
                    try app.with(RSASocketSession.self) { try $0.runSession(host: address, port: Int(remote.target.port), timeout: remote.timeout) }
                }
                // From iOS 17.4 a PKCS#1 v1.5 SecKeyDecrypt whose padding does not check answers a
                // synthetic message (SecKeyAdaptors.m): often text the app shows as the server's.
                let synthetic = app.implicitRejections(since: security)
                guard synthetic == 0 else {
                    throw CheckFailure("\(app.identifier)'s PKCS#1 v1.5 decryption of what \(remote.target) sent did not check (\(synthetic) time\(synthetic == 1 ? "" : "s")), and, as iOS does from 17.4 (implicit rejection), answered a synthetic message that the app took as the server's: the server encrypts with another padding or to another key",
                                       details: AppExpect.printed(app, since: console))
                }
                guard !plaintext.isEmpty else {
                    throw CheckFailure("\(app.identifier)'s session with \(remote.target) ended without a message decrypted")
                }
                return .passed
            }
            return list
        }
        if app.has(CertificatePinning.self), let pin = remote.pin {
            add("pinning-accepts-the-live-chain") {
                let pinned = try pinnedDER(pin)
                let chain = try liveChain(remote)
                let console = app.consoleMark
                let accepted = try AppExpect.succeeds(app, "decide on the chain \(remote.target) presents") {
                    try app.with(CertificatePinning.self) { try $0.evaluateServerTrust(chainDER: chain, host: remote.urlHost, pinnedCertificateDER: pinned) }
                }
                guard accepted else {
                    throw CheckFailure("\(app.identifier)'s pinning delegate refuses the chain \(remote.target) presents for \(remote.urlHost) (pinned: \(pin)): the app would cancel every request",
                                       details: AppExpect.printed(app, since: console))
                }
                return .passed
            }
        }
        if app.has(AESEnvelopeClient.self), let pin = remote.pin {
            add("login-and-echo") {
                let client = try PinnedHTTPSClient(pinnedCertificatePath: pin, timeout: remote.timeout)
                let address = try HostResolver.resolve(remote.target.host, timeout: remote.timeout)
                let host = remote.urlHost
                let url = URL(string: "https://\(host.contains(":") ? "[\(host)]" : host):\(remote.target.port)")!
                try AppSessionChecks.loginAndEcho(app, server: "live \(remote.target)", username: remote.username, password: remote.password) { request in
                    WebResponse(try client.send(HTTPRequest(request), to: url, resolve: HostResolver.isLiteral(host) ? nil : (host, address)))
                }
                return .passed
            }
        }
        if list.isEmpty {
            return [skipped(suite, classname, app, "https", remote.pin == nil ? "aes-https needs --pin" : "it has neither AESEnvelopeClient nor CertificatePinning")]
        }
        return list
    }

    /// `remote --protocol FILE --app DIR`: the app's own client of a described protocol
    /// (`DescribedProtocolClient`) runs its conversation with the live server through its own
    /// networking and crypto. The conversation and its message are the app's own: those of its
    /// `describedProtocol`, which may be another file than the run's (the app is judged by what it
    /// speaks, against the server as it is). Testcase `app.<identifier>.described.<conversation>` in
    /// remote.<host:port>: it fails when the app's code throws (its printed lines in the details), or
    /// returns no plaintext, or another one than its description fixes, where the server's answer
    /// carries the conversation's message. The live server's side is not seen: whether it took the
    /// app's messages shows only in the app completing the conversation. When the run's probes took
    /// the server down (`serverDownSince`), the app is not run: it would be blamed for that.
    public static func described(_ app: AppSubject, _ remote: AppRemoteTarget, description: ProtocolDescription, files: ProjectFiles,
                                 serverDownSince: String? = nil) -> [Check] {
        let suite = "remote.\(remote.target)", classname = "crosscheck.described.\(description.name).remote"
        guard let declared = app.read(DescribedProtocolClient.self, { ($0.describedProtocol, $0.describedConversation) }) else {
            return [skipped(suite, classname, app, "described", "it has no DescribedProtocolClient (its own client of a described protocol)")]
        }
        let (declaredName, conversationName) = declared
        let spoken: ProtocolDescription
        do {
            spoken = try ProtocolDescription(contentsOfFile: AppDescribedClientChecks.resolve(declaredName, appFolder: app.folder, files: files))
        } catch {
            return [Check(suite: suite, classname: classname, name: "app.\(app.identifier).described") {
                .error(message: "\(app.identifier)'s describedProtocol \"\(declaredName)\": \(error)", details: "")
            }]
        }
        guard let conversation = conversationName.isEmpty ? spoken.conversations.first : spoken.conversation(named: conversationName) else {
            return [Check(suite: suite, classname: classname, name: "app.\(app.identifier).described") {
                .error(message: "\(app.identifier)'s describedConversation \"\(conversationName)\" is not in its describedProtocol \(declaredName) (it has \(spoken.conversations.map(\.name).joined(separator: ", ")))", details: "")
            }]
        }
        let name = "app.\(app.identifier).described.\(conversation.name)"
        if let serverDownSince {
            return [Check(suite: suite, classname: classname, name: name) {
                .skipped(reason: "not run: the server has taken no connections since \(serverDownSince) took it down")
            }]
        }
        let carriesMessage = conversation.steps.filter { $0.from == .server }.flatMap(\.values).contains { $0.carries == .message }
        let check = Check(suite: suite, classname: classname, name: name) {
            do {
                // The target as the run was given it (--host, a --targets line): a socket client gets
                // its address; an HTTP client the host itself, as in its URL.
                let host = spoken.transport.kind == .tcp ? try HostResolver.resolve(remote.target.host, timeout: remote.timeout) : remote.target.host
                let console = app.consoleMark
                let plaintext = try AppExpect.succeeds(app, "run conversation \(conversation.name) (its \(declaredName)) with \(remote.target) through its own client") {
                    try app.with(DescribedProtocolClient.self) { try $0.runDescribedConversation(host: host, port: Int(remote.target.port), timeout: remote.timeout) }
                }
                guard carriesMessage else { return .passed }
                if plaintext.isEmpty {
                    throw CheckFailure("\(app.identifier)'s conversation \(conversation.name) with \(remote.target) ended without the message the server's answer carries",
                                       details: AppExpect.printed(app, since: console))
                }
                if let fixed = conversation.message, plaintext != fixed {
                    throw CheckFailure("\(app.identifier) took \(Expect.preview(plaintext)) from the server's answer; its description fixes the message \(Expect.preview(fixed))",
                                       details: AppExpect.printed(app, since: console))
                }
                return .passed
            } catch let unreachable as AppUnreachable {
                return .error(message: "\(app.identifier) could not be asked: \(unreachable)", details: "")
            } catch let error as TransportError {
                return .error(message: "\(remote.target): \(error)", details: "")
            }
        }
        return [check]
    }

    /// The chain the live server presents (TLS 1.3, else 1.2), leaf first, as the app's delegate gets it.
    static func liveChain(_ remote: AppRemoteTarget) throws -> [Data] {
        let address = try HostResolver.resolve(remote.target.host, timeout: remote.timeout)
        for version in [TLSProtocolVersion.tls1_3, .tls1_2] {
            if let facts = try InsecureTLSProbe.handshake(host: address, port: remote.target.port, offering: version,
                                                          serverName: remote.urlHost, timeout: remote.timeout), !facts.peerChain.isEmpty {
                return facts.peerChain
            }
        }
        throw CheckFailure("\(remote.target) completed no TLS 1.2 or 1.3 handshake, so there is no chain for the app to decide on")
    }

    static func pinnedDER(_ path: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path), let certificate = try? X509Certificate(pem: data) else {
            throw CheckFailure("--pin \(path): no readable PEM certificate")
        }
        return certificate.der
    }

    static func skipped(_ suite: String, _ classname: String, _ app: AppSubject, _ name: String, _ why: String) -> Check {
        Check(suite: suite, classname: classname, name: "app.\(app.identifier).\(name)") {
            .skipped(reason: "not run: \(app.identifier) is no client in this run: \(why)")
        }
    }
}
