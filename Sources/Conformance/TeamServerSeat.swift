import Foundation
import WireCrypto
import WireProtocol

/// A team's own server in the server seat (`run --server FILE.py:NAME --suite sessions`), with what
/// a client must know of it found the way `crosscheck remote` finds it (the CLI asks Remote and
/// hands the answers over). Both capabilities that put a client in front of it use this one type:
/// Sessions (the Swift reference client, the seed-app client profiles) and AppChecks (the app
/// under test). `Server` is how it is reached: Transport's `InProcessServer`, which the core
/// cannot name (no I/O here), so the seat is generic over it.
public struct TeamServerSeat<Server: Sendable>: Sendable {
    public enum Profile: String, Sendable { case rsaSocket = "rsa-socket", aesHTTPS = "aes-https" }

    public let server: Server
    /// How reports name the server, e.g. `server:Handler` (the last part of every relation).
    public let name: String
    public let profile: Profile
    /// rsa-socket: the padding of each direction the server completed; a missing direction is not checked.
    public var paddings: [RSASocket.Direction: RSAEncryptionPadding] = [:]
    /// rsa-socket: it answers `Server: OK sha256=…`, so the client asks for and verifies the digest.
    public var digest = false
    /// rsa-socket: the message its pi-to-phone ciphertexts decrypt to.
    public var message: Data?
    public var framing: Framing = .legacy
    /// aes-https: the key mode of its login answer, and the account (`--user`).
    public var keyMode: KeyDerivationMode?
    public var username = "user"
    public var password = "password"
    /// What the server's own code did wrong during a check (it raised, it never ended) outweighs
    /// the check's verdict; the CLI passes Remote's rule, so both commands judge alike.
    public var judge: @Sendable (CheckOutcome) -> CheckOutcome

    public init(server: Server, name: String, profile: Profile, judge: @escaping @Sendable (CheckOutcome) -> CheckOutcome) {
        self.server = server; self.name = name; self.profile = profile; self.judge = judge
    }

    /// `body`'s verdict (a `CheckFailure` a failure, anything else thrown an error) as `judge` rules
    /// on it: every check that talks to the server ends here, which also closes what it opened.
    public func judged(_ body: () throws -> CheckOutcome) -> CheckOutcome {
        let outcome: CheckOutcome
        do { outcome = try body() } catch let failure as CheckFailure {
            outcome = .failed(message: failure.message, details: failure.details)
        } catch {
            outcome = .error(message: "\(error)", details: "")
        }
        return judge(outcome)
    }

    /// The checks of a client named `client` with this server: suite `sessions.<client>_client.team_server.<server>`,
    /// classname `crosscheck.<profile>.<client>_client.team_server.<server>`.
    public func relation(client: String) -> String { "\(client)_client.team_server.\(name)" }
}
