import Foundation
import CommandLineKit
import Transport
import WireCrypto
import WireProtocol

/// `crosscheck serve`: crosscheck's Swift reference server (the machines the sessions suite runs),
/// on a real socket, for clients crosscheck does not drive itself (curl, an app, another harness)
/// and to compare with `python3 -m pythonref serve`.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "serve", abstract: "Run crosscheck's Swift rsa-socket or aes-https server (as PythonRef's `serve` does) until interrupted.",
        synopsis: ["rsa-socket [--host H] [--port P] [--padding P] [--framing F] [--digest] [--key FILE]",
                   "aes-https --cert PEM --key PEM [--host H] [--port P] [--user NAME:PASSWORD] [--key-mode M]"],
        discussion: """
        Prints `listening on HOST:PORT` once it accepts connections (port 0 picks a free one), and serves
        until SIGINT/SIGTERM. Every read and write is under --timeout. The same server logic the sessions
        suite checks against PythonRef's (Sources/WireProtocol): every malformed rsa-socket message gets
        exactly `Server: ERROR` and a close, every bad aes-https envelope one 400.
        """,
        exitCodes: [.success, .usage, .noInput, .unavailable])

    enum Profile: String, CaseIterable, ExpressibleByArgument { case rsaSocket = "rsa-socket", aesHTTPS = "aes-https" }

    @Option(name: "--host", value: "H", help: "the address to listen on (an IP literal or localhost)")
    var host = "127.0.0.1"
    @Option(name: "--port", value: "P", help: "the port; 0 picks a free one")
    var port: UInt16 = 0
    @Option(name: "--padding", value: "P", help: "rsa-socket: pkcs1, oaep-sha1 or oaep-sha256")
    var padding = "oaep-sha256"
    @Option(name: "--framing", value: "F", help: "rsa-socket: legacy or framed")
    var framing = Framing.legacy
    @Flag(name: "--digest", help: "rsa-socket: answer `Server: OK sha256=<hex>` (the digest extension)")
    var digest: Bool
    @Option(name: "--key", value: "FILE", help: "rsa-socket: the server's private key PEM (default: a fresh RSA-2048 key); aes-https: the TLS key PEM")
    var keyFile: String?
    @Option(name: "--cert", value: "PEM", help: "aes-https: the TLS certificate PEM")
    var certificate: String?
    @Option(name: "--user", value: "NAME:PASSWORD", help: "aes-https: the account")
    var user = "user:password"
    @Option(name: "--key-mode", value: "M", help: "aes-https: utf8-zeropad16 or base64-raw")
    var keyMode = KeyDerivationMode.base64Raw
    @Option(name: "--timeout", value: "SECONDS", help: "deadline for every read and write")
    var timeout = Seconds(10)
    @Positionals(value: "rsa-socket|aes-https", help: "the profile to serve")
    var profiles: [String]
    init() {}

    var profile: Profile { Profile(rawValue: profiles.first ?? "") ?? .rsaSocket }

    func validate() throws {
        guard profiles.count == 1, Profile(rawValue: profiles[0]) != nil else {
            throw UsageError("say 'rsa-socket' or 'aes-https' (once)" + (profiles.isEmpty ? "" : ", not '\(profiles.joined(separator: " "))'"))
        }
        guard (try? RSAEncryptionPadding(name: padding)) != nil else { throw UsageError("--padding takes pkcs1, oaep-sha1 or oaep-sha256, not '\(padding)'") }
        guard user.contains(":") else { throw UsageError("--user takes NAME:PASSWORD, not '\(user)'") }
        if profile == .aesHTTPS, certificate == nil || keyFile == nil { throw UsageError("aes-https needs --cert PEM and --key PEM") }
    }

    func run() throws -> ExitCode {
        let latch = InterruptLatch(notice: "crosscheck serve: stopping (again to quit now)")
        let stop: () -> Void
        let bound: UInt16
        do {
            switch profile {
            case .rsaSocket: (bound, stop) = try serveRSASocket()
            case .aesHTTPS: (bound, stop) = try serveAESHTTPS()
            }
        } catch let error as TransportError {
            throw CommandExit(.unavailable, "crosscheck serve: \(error)")
        }
        FileHandle.standardOutput.write(Data("listening on \(host):\(bound)\n".utf8))  // unbuffered: readiness for a waiting caller
        while !latch.interrupted { pause() }  // returns when a signal's handler has run

        stop()
        return .success
    }

    func serveRSASocket() throws -> (UInt16, () -> Void) {
        let key: RSAPrivateKey
        if let keyFile {
            guard let pem = FileManager.default.contents(atPath: keyFile) else {
                throw CommandExit(.noInput, "crosscheck serve: --key \(keyFile): no such file, or not readable")
            }
            do { key = try RSAPrivateKey(importing: pem) } catch { throw CommandExit(.noInput, "crosscheck serve: --key \(keyFile): \(error)") }
        } else {
            key = try RSAPrivateKey(bits: 2048)
        }
        let config = RSASocketServerConfig(padding: try RSAEncryptionPadding(name: padding), framing: framing, digest: digest, privateKey: key)
        let server = try SessionMachineServer(host: host, port: port, timeout: timeout.value, quietGap: 0.3) { RSASocketServer(config: config) }
        return (server.port, server.stop)
    }

    func serveAESHTTPS() throws -> (UInt16, () -> Void) {
        let colon = user.firstIndex(of: ":") ?? user.endIndex
        let logic = AESHTTPSServer(config: AESHTTPSServerConfig(users: [String(user[..<colon]): String(user[user.index(after: colon)...])],
                                                                keyMode: keyMode))
        let server = HTTPServer(tls: TLSServerIdentity(certificatePath: certificate ?? "", privateKeyPath: keyFile ?? ""), host: host, port: port,
                                limits: HTTPServerLimits(handshakeTimeout: timeout.value, requestTimeout: timeout.value, writeTimeout: timeout.value)) { request in
            let answer = logic.handle(WebRequest(method: request.method, path: request.path, headers: request.headers, body: request.body))
            return HTTPResponse(status: answer.status, headers: answer.headers, body: answer.body)
        }
        return (try server.start(), server.stop)
    }
}
