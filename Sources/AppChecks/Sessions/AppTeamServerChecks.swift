import Foundation
import AppUnderTest
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// `sessions.app_client.team_server.<server>` (`run --server FILE.py:NAME --suite sessions --app …`):
/// the app under test as a client of a team's own server in the server seat, through the same
/// pieces as its conversations with the Swift and PythonRef servers (AppSessionChecks).
/// rsa-socket pi-to-phone: the app's RSASocketClient driven over a socket pair to the server, whole
/// and in pieces the server reads one at a time; it must show the server's message and see it
/// stop; and the app's own networking (RSASocketSession) through a loopback port relayed to the
/// server (Transport's `LoopbackRelay`). aes-https: login with `--user`, then the app's envelope and its reading of the answer.
/// No pinning: in-process there is no TLS (`crosscheck remote --app` checks it on the live server).
enum AppTeamServerChecks {
    typealias Seat = TeamServerSeat<any InProcessServer>

    static func checks(_ app: AppSubject, seat: Seat, settings: AppSessionSettings) -> [Check] {
        let relation = seat.relation(client: "app")
        var list = Lists(suite: "sessions.\(relation)", relation: relation, app: app)
        switch seat.profile {
        case .rsaSocket: addRSASocket(app, seat: seat, settings: settings, &list)
        case .aesHTTPS: addAESHTTPS(app, seat: seat, settings: settings, &list)
        }
        return list.checks
    }

    /// One testcase saying why the app has no conversation with this server (a run with --app
    /// must show the app was considered).
    static func notAClient(_ app: AppSubject, seat: Seat, _ list: inout Lists, lacking capability: String) {
        list.add(seat.profile.rawValue, "not-a-client") {
            .skipped(reason: "not run: \(app.identifier) cannot be a client of \(seat.profile.rawValue): it has no \(capability)")
        }
    }

    // MARK: rsa-socket

    static func addRSASocket(_ app: AppSubject, seat: Seat, settings: AppSessionSettings, _ list: inout Lists) {
        let profile = seat.profile.rawValue
        let clientPadding = app.read(RSASocketClient.self, { $0.rsaPadding })
        let sessionCapable = app.has(RSASocketSession.self)
        guard clientPadding != nil || sessionCapable else {
            return notAClient(app, seat: seat, &list, lacking: "RSASocketClient or RSASocketSession")
        }
        // The app's own session names no padding; it shares the client's when it has one.
        guard let padding = AppCheckNames.padding(clientPadding ?? "pkcs1") else {
            return list.unknown(profile, profile, "the app's rsaPadding '\(clientPadding ?? "")' is not pkcs1, oaep-sha1 or oaep-sha256")
        }
        // Named after the app's padding: the app is what is under test, the server's padding is what was found.
        let label = "pi-to-phone.legacy.\(padding)"
        let weaknesses = (padding.isWeak ? [Weakness.pkcs1] : []) + [Weakness.legacyFraming]
        if clientPadding != nil {
            for pieces in [nil, 1, 5] as [Int?] {
                let name = "inprocess.\(label)" + (pieces.map { ".\(Conversation.Delivery.chunks($0))" } ?? "")
                list.add(profile, name, weaknesses: weaknesses) {
                    seat.judged { try converse(app, padding: padding, seat: seat, settings: settings, splitInto: pieces) }
                }
            }
        }
        if sessionCapable {
            list.add(profile, "tcp.\(label).app-networking", weaknesses: weaknesses) {
                seat.judged { try converseOverItsOwnSocket(app, padding: padding, assumed: clientPadding == nil, seat: seat, settings: settings) }
            }
        }
    }

    /// Why the app can have no pi-to-phone conversation with this server, or nil.
    static func notApplicable(_ app: AppSubject, _ seat: Seat) -> CheckOutcome? {
        guard seat.framing == .legacy else {
            return .skipped(reason: "not applicable: \(app.identifier) speaks only legacy framing (the server is checked as --framing \(seat.framing.rawValue))")
        }
        guard seat.paddings[.piToPhone] != nil else {
            return .skipped(reason: "not run: \(seat.name) completed no pi-to-phone conversation when it was discovered (see the discovery testcase), so there is no ciphertext for \(app.identifier) to decrypt")
        }
        return nil
    }

    /// A failure, led by the padding mismatch when there is one: the real interop finding (each
    /// side is consistent, but not with the other).
    /// `assumed`: the app names no padding (its own session alone), so `padding` is the guess the
    /// seed apps' convention makes, and the failure says so.
    static func failure(_ failure: CheckFailure, _ app: AppSubject, padding: RSAEncryptionPadding, assumed: Bool = false, _ seat: Seat,
                        also: String = "") -> CheckFailure {
        let serverPadding = seat.paddings[.piToPhone] ?? padding
        let appSide = assumed ? "\(app.identifier) names no padding (it has no RSASocketClient), taken to be \(padding)"
                              : "\(app.identifier) decrypts pi-to-phone with \(padding)"
        let mismatch = serverPadding == padding ? ""
            : "\(appSide), but \(seat.name) encrypts it with \(serverPadding): move both to one padding; "
        return CheckFailure(mismatch + failure.message + also, details: failure.details)
    }

    /// The app's key message to the server, the server's ciphertext to the app, Quit, `Server stopped`.
    static func converse(_ app: AppSubject, padding: RSAEncryptionPadding, seat: Seat, settings: AppSessionSettings,
                         splitInto pieces: Int?) throws -> CheckOutcome {
        if let notApplicable = notApplicable(app, seat) { return notApplicable }
        let client = AppRSASocketClientMachine(app: app)
        let transcript = SocketDriver.drive(client, over: try seat.server.connect(timeout: settings.timeout), quietGap: settings.quietGap,
                                            timeout: settings.timeout, deadline: settings.timeout * 3, splitInto: pieces)
        if let unreachable = client.unreachable { throw unreachable }
        do {
            try AppSessionChecks.verify(client: transcript.events, server: nil, exhausted: false, app: app,
                                        message: seat.message ?? RSASocket.defaultMessage, details: AppSessionChecks.details(of: transcript))
        } catch let checkFailure as CheckFailure {
            throw failure(checkFailure, app, padding: padding, seat,
                          also: pieces.map { "; the app's messages went in \($0)-byte pieces, each read by the server before the next" } ?? "")
        }
        return .passed
    }

    /// The app's whole session with its own networking (`RSASocketSession`), to a loopback port
    /// relayed to the server: the app must show the server's message.
    static func converseOverItsOwnSocket(_ app: AppSubject, padding: RSAEncryptionPadding, assumed: Bool, seat: Seat,
                                         settings: AppSessionSettings) throws -> CheckOutcome {
        if let notApplicable = notApplicable(app, seat) { return notApplicable }
        let relay = try LoopbackRelay(to: seat.server, timeout: settings.timeout)
        let port = relay.port
        let session = Result {
            try AppExpect.succeeds(app, "run a session over its own socket to 127.0.0.1:\(port) (relayed to \(seat.name))") {
                try app.with(RSASocketSession.self) { try $0.runSession(host: "127.0.0.1", port: Int(port), timeout: settings.timeout) }
            }
        }
        let problems = relay.finish()
        do {
            try Expect.equalBytes(try session.get(), seat.message ?? RSASocket.defaultMessage, "what \(app.identifier) decrypted and showed")
        } catch let checkFailure as CheckFailure {
            throw failure(checkFailure, app, padding: padding, assumed: assumed, seat, also: problems.isEmpty ? "" : " (\(problems.joined(separator: "; ")))")
        }
        return .passed
    }

    // MARK: aes-https

    static func addAESHTTPS(_ app: AppSubject, seat: Seat, settings: AppSessionSettings, _ list: inout Lists) {
        guard let derivation = app.read(AESEnvelopeClient.self, { $0.keyDerivation }) else {
            return notAClient(app, seat: seat, &list, lacking: "AESEnvelopeClient")
        }
        // The server's key mode names the testcase as it does the reference client's; the app
        // derives its key its own way from the same string, whatever was found.
        let name = "inprocess.login-and-echo" + (seat.keyMode.map { ".\($0.rawValue)" } ?? "")
        list.add(seat.profile.rawValue, name, weaknesses: seat.keyMode.map(Weakness.aesHTTPS(keyMode:)) ?? []) {
            seat.judged {
                do {
                    try AppSessionChecks.loginAndEcho(app, server: "team's \(seat.name)", username: seat.username, password: seat.password) {
                        try seat.server.exchange($0, timeout: settings.timeout)
                    }
                } catch let failure as CheckFailure {
                    guard let mode = seat.keyMode, mode.rawValue != derivation else { throw failure }
                    throw CheckFailure("\(app.identifier) makes its AES key from the key string as \(derivation), but \(seat.name)'s login answer is a \(mode.rawValue) key: move both to one key mode; "
                                       + failure.message, details: failure.details)
                }
                return .passed
            }
        }
    }
}
