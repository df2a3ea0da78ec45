import Foundation
import Conformance
import Transport
import WireCrypto
import WireProtocol

/// The seed apps as clients of a live server (`--client seed-app`, docs/PROTOCOL.md "Client
/// profiles"): does the server accept the app a team actually shipped? One conversation per
/// profile, with the app's own wire behaviours; a failure names the app's quirk and its seed line.
struct RemoteSeedApp {
    let run: RemoteRun
    var options: RemoteOptions { run.options }

    init(_ run: RemoteRun) { self.run = run }

    /// The seed's `let keySize = 1024`.
    static let appKeyBits = 1024

    func checkAll() {
        switch options.profile {
        case .rsaSocket:
            run.step("seed-app.pi-to-phone.rsa\(Self.appKeyBits)", profile: "rsa-socket") { try rsaSocketConversation() }
        case .aesHTTPS:
            run.step("seed-app.login-and-echo", profile: "aes-https") { try loginAndEcho() }
        }
    }

    /// Seed 000's app: its 1024-bit public key as it writes it, one 200-byte read, PKCS#1, UTF-8 text.
    func rsaSocketConversation() throws -> CheckOutcome {
        guard options.framing == .legacy else {
            return .skipped(reason: "not applicable: the seed app speaks only legacy framing (the server is checked as --framing framed)")
        }
        let key = try RSAPrivateKey(bits: Self.appKeyBits)
        let transcript = try run.converse(SeedAppRSASocketClient(privateKey: key))
        switch transcript.events.first {
        case .decrypted?:
            guard transcript.events.contains(.serverStopped) else {
                // The app waits as long as it takes (its quirk); the run's --timeout is the bound.
                throw CheckFailure("the seed app decrypted the server's message but the server did not answer its Quit with `Server stopped` "
                                   + "within \(seconds(options.timeout)) (--timeout; the app itself waits without a deadline: \(SeedQuirk.waitsWithoutDeadline.seedLine))",
                                   details: "events: \(transcript.events)" + (transcript.transportError.map { "\ntransport: \($0)" } ?? ""))
            }
            return .passed
        case let .failed(reason)?:
            throw CheckFailure("the seed app cannot use this server: \(reason)",
                               details: "app → server: \(Expect.preview(transcript.sent))\nserver → app: \(Expect.preview(transcript.received))")
        default:
            throw CheckFailure("the seed app got no ciphertext it could decrypt: \(transcript.events)"
                               + (transcript.transportError.map { " (\($0))" } ?? ""),
                               details: "app → server: \(Expect.preview(transcript.sent))\nserver → app: \(Expect.preview(transcript.received))")
        }
    }

    /// Seed 001's app: form login, the login answer as AFJSONResponseSerializer reads it, the key
    /// through getCString, the envelope labelled as iOS labels it, the answer read whatever its status.
    func loginAndEcho() throws -> CheckOutcome {
        guard let pin = options.pin ?? (options.inProcess == nil ? nil : "") else { throw CheckFailure("\(RemoteError.missingPin)") }
        let https = RemoteAESHTTPS(run)
        do {
            let login = try SeedAppAESHTTPSClient.parseLogin(try https.send(SeedAppAESHTTPSClient.loginRequest(username: options.username,
                                                                                                              password: options.password), pin: pin))
            let key = try SeedAppAESHTTPSClient.key(from: login.encryptionKey)
            let params = Data(#"{"command":"status"}"#.utf8)
            let answer = try https.send(try SeedAppAESHTTPSClient.secureRequest(params: params, token: login.token, key: key), pin: pin)
            // parseSecure refuses an answer whose plaintext is not a JSON object, as the app does.
            _ = try SeedAppAESHTTPSClient.parseSecure(answer, key: key)
            return .passed
        } catch let failure as SeedAppFailure {
            throw CheckFailure("the seed app cannot use this server: \(failure)")
        }
    }
}
