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
/// stop. aes-https: login with `--user`, then the app's envelope and its reading of the answer.
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
        guard let name = app.read(RSASocketClient.self, { $0.rsaPadding }) else {
            return notAClient(app, seat: seat, &list, lacking: "RSASocketClient")
        }
        guard let padding = AppCheckNames.padding(name) else {
            return list.unknown(profile, profile, "the app's rsaPadding '\(name)' is not pkcs1, oaep-sha1 or oaep-sha256")
        }
        // Named after the app's padding: the app is what is under test, the server's padding is what was found.
        let label = "pi-to-phone.legacy.\(padding)"
        let weaknesses = (padding.isWeak ? [Weakness.pkcs1] : []) + [Weakness.legacyFraming]
        for pieces in [nil, 1, 5] as [Int?] {
            let name = "inprocess.\(label)" + (pieces.map { ".\(Conversation.Delivery.chunks($0))" } ?? "")
            list.add(profile, name, weaknesses: weaknesses) {
                seat.judged { try converse(app, padding: padding, seat: seat, settings: settings, splitInto: pieces) }
            }
        }
    }

    /// The app's key message to the server, the server's ciphertext to the app, Quit, `Server stopped`.
    static func converse(_ app: AppSubject, padding: RSAEncryptionPadding, seat: Seat, settings: AppSessionSettings,
                         splitInto pieces: Int?) throws -> CheckOutcome {
        guard seat.framing == .legacy else {
            return .skipped(reason: "not applicable: \(app.identifier) speaks only legacy framing (the server is checked as --framing \(seat.framing.rawValue))")
        }
        guard let serverPadding = seat.paddings[.piToPhone] else {
            return .skipped(reason: "not run: \(seat.name) completed no pi-to-phone conversation when it was discovered (see the discovery testcase), so there is no ciphertext for \(app.identifier) to decrypt")
        }
        let client = AppRSASocketClientMachine(app: app)
        let transcript = SocketDriver.drive(client, over: try seat.server.connect(timeout: settings.timeout), quietGap: settings.quietGap,
                                            timeout: settings.timeout, deadline: settings.timeout * 3, splitInto: pieces)
        if let unreachable = client.unreachable { throw unreachable }
        let split = pieces.map { "; the app's messages went in \($0)-byte pieces, each read by the server before the next" } ?? ""
        do {
            try AppSessionChecks.verify(client: transcript.events, server: nil, exhausted: false, app: app,
                                        message: seat.message ?? RSASocket.defaultMessage, details: AppSessionChecks.details(of: transcript))
        } catch let failure as CheckFailure {
            // The real interop finding: each side is consistent, but not with the other.
            let mismatch = serverPadding == padding ? ""
                : "\(app.identifier) decrypts pi-to-phone with \(padding), but \(seat.name) encrypts it with \(serverPadding): move both to one padding; "
            throw CheckFailure(mismatch + failure.message + split, details: failure.details)
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
                    try AppSessionChecks.loginAndEcho(app, server: "team's \(seat.name)", username: seat.username, password: seat.password) { request in
                        let answer = try seat.server.exchange(HTTPRequest(method: request.method, path: request.path, headers: request.headers,
                                                                          body: request.body), timeout: settings.timeout)
                        return WebResponse(status: answer.status, headers: answer.headers, body: answer.body)
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
